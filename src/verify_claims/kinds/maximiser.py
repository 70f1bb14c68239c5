"""Maximiser: a point maximises an objective over a feasible set, at every parameter point
(``scope="global"``: against the whole feasible set; ``"local"``: first- and second-order
conditions).  ``frozen`` substitutions (pi_old -> the point) are applied first: this is
how a stationary policy is a maximiser.

Falsified by comparing the point with seeded feasible rivals and small perturbations.
Proved by a zero gradient at a feasible point of a strictly concave objective on a convex
set (sympy), else certified by one of three routes (see ``_certify_maximiser``).
"""

from __future__ import annotations

import time

import mpmath
import sympy as sp

from ..backends.definedness import defined
from ..backends.functions import nonsmooth
from ..backends.numeric import (Evaluator, NumericOutcome, Undefined, arb_point, ball_greater, ball_in_interval, fmt,
                                lost_note, point_repr, sample_points, screen_order, sign_violation, tol,
                                undefined_cx)
from ..backends.sampling import end_value, holds, in_interval, where_values
from ..backends.symbolic import (CERTIFIED, Facts, ProofOutcome, assume, is_linear, prove_sign, short, with_ends,
                                 zero_by)
from ..backends.interval import Curve
from ..engine.goals import Certificate, Goal, methods_for, none_check, open_interval, solve_goal, undecided
from ..model.claims import substitute
from ..model.derivative import derivative, hessian
from ..model.domain import Domain
from .base import Kind, derived, objective_gradient, start_point

# the first-order condition's zero test in three passes (see Maximiser.prove)
_QUICK_ZERO = ("exact", "rational", "exp-log+rational")
_CHEAP_ZERO = ("expand", "cancel", "together", "exp-log+expand", "exp-log+together", "exp-log+cancel")
_SLOW_ZERO = ("simplify", "radsimp+simplify")


class MaximiserKind(Kind):
    name = "maximiser"
    mutable_fields = ("objective",)

    def mutants(self, claim):
        """Besides formula mistakes: the claimed maximiser moved to a nearby point."""
        from ..mutation import at_mutants, nearby_point_mutants
        return super().mutants(claim) + at_mutants(claim) + nearby_point_mutants(claim)

    def equivalence_forms(self, claim, field, expr):
        return objective_gradient(claim, field, expr)

    cost = 0
    inequality_like = True
    certify_first = True  # route A by z3 alone (certify_before_proof)

    def spot_check(self, claim, settings, rng, screen=False):
        params = claim.domain.symbols()
        wrt = claim.wrt
        ev = _evaluator(claim, settings, screen)
        feasible = derived(claim, "feasible set", claim.feasible)  # one object: its samples are kept
        n_params = max(10, settings.samples // 4)
        n_cmp = 40
        pts = sample_points(claim.domain, settings, rng, n_params) if params else [{}]
        compared, unresolved, screened, unresolved_rivals = 0, 0, 0, 0
        for pt in pts:
            star = dict(pt)
            try:
                _claimed(ev, star, wrt, settings)
                verdict, got = _claimed_feasible(ev, claim, feasible, pt, star, settings)
                if verdict == "unresolved":
                    unresolved += 1
                    continue
                if verdict == "infeasible":
                    return NumericOutcome("counterexample", {"parameter_points": len(pts)}, got,
                                          witness={"point": pt})
                star = got
                fstar = ev.at("f", star, settings.precision)
            except Undefined as exc:
                # within rounding of the boundary, or a complex residue of a cancellation the
                # point's own rounded coordinates cannot resolve (1 - pi_a - pi_b for a
                # probability of 1e-194): unresolved, not a counterexample
                if exc.near_real or _feasibility(feasible, star, wrt, settings.precision) == "edge":
                    unresolved += 1
                    continue
                return NumericOutcome("counterexample", {}, undefined_cx(params, pt, exc), witness={"point": pt})
            rivals = []
            if claim.scope == "global":
                for c in sample_points(feasible, settings, rng, n_cmp):
                    r = dict(pt)
                    r.update(c)
                    rivals.append(r)
            for k in (3, 6, 9):  # small perturbations probe the local condition
                for _ in range(2):
                    q = dict(star)
                    for v in wrt:
                        with mpmath.workdps(settings.precision + 20):
                            q[v] = star[v] + (mpmath.mpf(10) ** -k) * rng.choice([-1, 1])
                    if _feasibility(feasible, q, wrt, settings.precision) == "yes":
                        rivals.append(q)
            fstar_float = ev.float_at("f", star) if screen else None
            claimed_ball = _claimed_ball(ev, pt, wrt)
            here, screened_here, undecided_here = 0, 0, False  # this parameter point's comparisons
            for q in rivals:
                q = {**pt, **{v: q[v] for v in wrt}}
                try:
                    if fstar_float is not None and screen_order("<", ev.float_at("f", q), fstar_float):
                        here += 1
                        screened_here += 1
                        continue  # clearly worse than the claimed point, in doubles
                    cx = _does_better(ev, params, pt, star, fstar, q, wrt, settings, claimed_ball)
                    if cx is UNRESOLVED:
                        # the rivals the balls cannot decide are the ones that might beat the
                        # claimed point (the clearly worse ones are decided): the parameter
                        # point as a whole is unresolved, unless a later rival refutes it
                        unresolved_rivals += 1
                        undecided_here = True
                        continue
                    if cx is not None and claim.scope == "local":
                        cx = _vet_local(claim, settings, pt, cx)
                        if cx is None:  # a strict local maximum; the rival lies outside its basin
                            break
                    if cx is not None:
                        return NumericOutcome("counterexample", {"parameter_points": len(pts)}, cx,
                                              witness={"point": pt, "better": q})
                    here += 1
                except Undefined:
                    continue  # the objective may be undefined at a rival; that rival cannot win
            if undecided_here:
                unresolved += 1  # its other comparisons not counted
            else:
                compared += here
                screened += screened_here
        evidence = {"parameter_points": len(pts), "comparisons": compared, "digits": settings.precision,
                    "scope": claim.scope, "unresolved_points": unresolved}
        if unresolved_rivals:
            evidence["unresolved_rivals"] = unresolved_rivals
        if screen:
            evidence["screened_in_floats"] = screened
        if unresolved == len(pts) or compared == 0:  # nothing was actually compared
            why = ("every parameter point is unresolved: the claimed point lies within rounding of the feasible "
                   "set's boundary, or a rival's comparison lost more digits to cancellation than the check "
                   "spends (arb balls)")
            return NumericOutcome("inconclusive", {**evidence, "inconclusive_at": {"explanation": why}})
        return NumericOutcome("consistent", evidence)

    def shrink_target(self, claim, settings, cx, outcome):
        """The parameters are the coordinates (the claimed point follows from them).  For
        "a feasible point does better", the rival moves with the claimed point while they
        shrink (the same offset from it: a perturbation stays a perturbation); then, for a
        global maximiser, the rival itself shrinks within the feasible set.  A local one
        keeps its rival at the raw offset: only a nearby point refutes a local maximum."""
        from ..backends.sampling import contains
        from ..backends.shrink import Coordinate, Target, exact_sign, parse_point
        params = claim.domain.symbols()
        wrt = tuple(claim.wrt)
        kind = cx.get("type")
        if kind not in ("a feasible point does better", "claimed maximiser is infeasible", "undefined"):
            return None
        start = start_point(cx, outcome, params) if params else {}
        if start is None:
            return None
        feasible = derived(claim, "feasible set", claim.feasible)
        obj = objective(claim)
        ev = _evaluator(claim, settings)
        high = 2 * settings.precision + 10
        dps = 2 * high + 20
        offsets = {}
        if kind == "a feasible point does better":
            w = outcome.witness if outcome is not None else None
            rival = {v: w["better"][v] for v in wrt} if w and "better" in w else parse_point(cx, wrt, "better")
            if rival is None:
                return None
            try:
                star = dict(start)
                _claimed(ev, star, wrt, settings)
            except Undefined:
                return None
            with mpmath.workdps(dps):
                offsets = {("offset", v): rival[v] - star[v] for v in wrt}

        def claimed_at(pt):
            """(parameters, claimed point, its objective value) or a counterexample/None."""
            par = {s_: pt[s_] for s_ in params}
            star = dict(par)
            try:
                _claimed(ev, star, wrt, settings)
                where = _feasibility(feasible, star, wrt, settings.precision)
                if kind == "claimed maximiser is infeasible":
                    if where != "no":
                        return None
                    star, where = _claimed_again(ev, feasible, par, wrt, settings)
                    return _infeasible_cx(params, par, star, wrt) if where == "no" else None
                if where != "yes":
                    return None
                fstar = ev.at("f", star, settings.precision)
            except Undefined as exc:
                if exc.near_real or _feasibility(feasible, star, wrt, settings.precision) == "edge":
                    return None
                return undefined_cx(params, par, exc) if kind == "undefined" else None
            return None if kind == "undefined" else (par, star, fstar)

        def better_at(par, star, fstar, q):
            if _feasibility(feasible, q, wrt, settings.precision) != "yes":
                return None
            try:
                got = _does_better(ev, params, par, star, fstar, q, wrt, settings, _claimed_ball(ev, par, wrt))
            except Undefined:
                return None
            return None if got is UNRESOLVED else got

        def check(pt):
            got = claimed_at(pt)
            if not isinstance(got, tuple):
                return got
            par, star, fstar = got
            with mpmath.workdps(dps):
                q = {**par, **{v: star[v] + pt[("offset", v)] for v in wrt}}
            got = better_at(par, star, fstar, q)
            # a local claim: a rival outside the basin of a strict local maximum is no counterexample
            return _vet_local(claim, settings, par, got) if got is not None and claim.scope == "local" else got

        def does_better_exactly(point, rival):
            par = {s_: point[s_] for s_ in params}
            star = {v: sp.sympify(claim.at[v]).xreplace(par) for v in wrt}
            q = rival(star)
            s_ = exact_sign(obj.xreplace({**par, **q}) - obj.xreplace({**par, **star}), {})
            return None if s_ is None else s_ > 0

        def exactly(point):
            if kind == "claimed maximiser is infeasible":
                par = {s_: point[s_] for s_ in params}
                star = {v: sp.sympify(claim.at[v]).xreplace(par) for v in wrt}
                if not all(val.is_Rational for val in star.values()):
                    return None
                inside = all(feasible.sets[v].contains(star[v]) == sp.true for v in wrt) and all(
                    sp.sympify(rel).xreplace(star) == sp.true for rel in feasible.where)
                return not inside
            return does_better_exactly(point, lambda star: {v: star[v] + point[("offset", v)] for v in wrt})

        def rival_phase(values):
            """With the parameters shrunk, the rival itself shrinks in the feasible set."""
            par = {s_: values[s_] for s_ in params}
            par_mp = {s_: _as_mpf(v, dps) for s_, v in par.items()}
            star = dict(par_mp)
            try:
                _claimed(ev, star, wrt, settings)
                fstar = ev.at("f", star, settings.precision)
            except Undefined:
                return None
            with mpmath.workdps(dps):
                q0 = {v: star[v] + values[("offset", v)] for v in wrt}

            def check2(pt):
                q = {**par_mp, **{v: pt[("better", v)] for v in wrt}}
                return better_at(par_mp, star, fstar, q)

            def exactly2(point):
                return does_better_exactly(point, lambda star_: {v: point[("better", v)] for v in wrt})
            coords2 = [Coordinate(("better", v), (("better", str(v)),), feasible.sets[v], q0[v],
                                  raw=rival[v]) for v in wrt]
            return Target(coords2, check2, exactly2, None, f"at {settings.precision} and {high} digits",
                          dps=dps, fixed=par)

        coords = [Coordinate(s_, (("point", str(s_)),), claim.domain.sets[s_], start[s_]) for s_ in params]
        if offsets and not params:
            # no parameters: only the rival can shrink
            return rival_phase({**offsets}) if claim.scope == "global" else None
        how = (f"the claimed point outside the feasible set at {settings.precision + 20} and {2 * high} digits"
               if kind == "claimed maximiser is infeasible" else f"at {settings.precision} and {high} digits")
        return Target(coords, check, exactly, lambda pt: contains(claim.domain, pt, settings.precision), how,
                      dps=dps, fixed=offsets,
                      then=rival_phase if offsets and claim.scope == "global" else None)

    def prove(self, claim, ctx):
        feas = claim.feasible()
        rep, facts = assume(claim, feas)
        # for the first-order condition, the parameters' interval ends as facts too (1 - z_1 > 0
        # for z_1 in (0, 1)): what the exp/log normal form needs to split the logs of Appendix
        # B.2's first-order conditions (only there: more facts slow the other sign analyses)
        facts_fo = Facts.from_relations(with_ends(claim.domain) + list(feas.where), rep)
        obj = objective(claim).xreplace(rep)
        wrt = [rep[v] for v in claim.wrt]
        at = {rep[k]: sp.sympify(v).xreplace(rep) for k, v in claim.at.items()}
        ev = {}
        for v in wrt:
            grad = substitute(derivative(obj, v), at)
            # cheapest first across both sets of facts: the exact zero tests (flint's rational
            # arithmetic, on the expression and on its exp/log normal form) with each, then the
            # rational simplifications with each, then simplify (the slow last resort) with
            # each.  B.2's conditions need the ends and fall to cancel with them, where
            # simplify without the ends spent its whole slice first; the direct-KL large-G
            # potential's fall to an exact test with the ends, where the simplifications
            # without them spent 0.5-1.3 s first
            for strategies, f, label in ((s, f, label) for s in (_QUICK_ZERO, _CHEAP_ZERO, _SLOW_ZERO)
                                         for f, label in ((facts, ""), (facts_fo, ", with the ends"))):
                how, res = zero_by(grad, f, ctx.trace, at=f"d/d{v} at the point{label}", strategies=strategies)
                if how:
                    break
            if not how:
                ev["first_order"] = f"not established ({short(res)})"
                return ProofOutcome(None, "sympy", ev)
        ev["first_order"] = "gradient vanishes (proved)"
        # the point must also be feasible before any optimality argument means anything
        for k in claim.wrt:
            iv, val = feas.sets[k], at[rep[k]]
            if not isinstance(iv, sp.Interval):
                # a finite set: the point must be one of its members, exactly
                members = list(iv) if isinstance(iv, sp.FiniteSet) else None
                if members is None or not any(zero_by(val - sp.sympify(m), facts, ctx.trace, at=f"member {k}")[0]
                                                  for m in members):
                    ev["feasible"] = f"not established for {k}"
                    return ProofOutcome(None, "sympy", ev)
                continue
            if isinstance(iv, sp.Interval):
                ends = [(val - iv.start, iv.left_open), (iv.end - val, iv.right_open)]
                for d, open_ in ends:
                    if d.is_finite is False or d.has(sp.oo, -sp.oo):
                        continue
                    if not prove_sign(d, "positive" if open_ else "nonnegative", facts, ctx.trace, at=f"feasible {k}"):
                        ev["feasible"] = f"not established for {k}"
                        return ProofOutcome(None, "sympy", ev)
        for rel in feas.where:
            d = (rel.rhs - rel.lhs) if isinstance(rel, (sp.StrictLessThan, sp.LessThan)) else (rel.lhs - rel.rhs)
            d = substitute(d.xreplace(rep), at)
            strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
            if not prove_sign(d, "positive" if strict else "nonnegative", facts, ctx.trace, at="feasible where"):
                ev["feasible"] = f"not established for {rel}"
                return ProofOutcome(None, "sympy", ev)
        ev["feasible"] = "proved"
        # concavity gives a global maximum only on a convex feasible set: intervals cut by
        # linear relations (a polytope); a discrete or non-convex set is left to the numbers
        convex = all(isinstance(feas.sets[k], sp.Interval) for k in claim.wrt) and all(
            is_linear(rel.lhs - rel.rhs, claim.wrt) for rel in feas.where)
        if not convex or nonsmooth(obj):
            ev["second_order"] = "not attempted (feasible set not convex, or objective not smooth)"
            return ProofOutcome(None, "sympy", ev)
        hess = hessian(obj, wrt)
        minors = [leading_minor(hess, k) for k in range(1, len(wrt) + 1)]
        # negative definite iff the k-th leading minor has sign (-1)^k
        wants = ["negative" if k % 2 else "positive" for k in range(1, len(wrt) + 1)]
        # each sign is first tried against the numbers (falsify first): a minor whose ball has
        # the wrong sign at a point is not given to sympy, whose sign analysis of a minor that
        # cannot have its sign ran until it gave up (2 s of the local maximiser of Eq. (11)
        # with G = 2, which z3 then certifies in 0.3 s)
        where = _hessian_domain(claim, feas)
        back = {v: k for k, v in rep.items()}
        if _signs_proved(claim, minors, wants, "", where, back, facts, ctx, ev):
            ev["second_order"] = "Hessian negative definite on the whole feasible set (strictly concave)"
            return ProofOutcome(CERTIFIED, "sympy (stationary point of a strictly concave objective)", ev)
        if claim.scope == "local":
            at_pt = [substitute(m, at) for m in minors]
            if _signs_proved(claim, at_pt, wants, " at the point", where, back, facts, ctx, ev):
                ev["second_order"] = _noted("Hessian negative definite at the point", ev)
                return ProofOutcome(CERTIFIED, "sympy (first and second order conditions)", ev)
        ev["second_order"] = _noted("not established", ev)
        return ProofOutcome(None, "sympy", ev)

    def certify_before_proof(self, claim, ctx, numeric, budget):
        """Route A by z3 alone, where it applies (one variable, global scope), before the
        prover: it needs no first-order condition, and z3 declines what it cannot state
        (logs, exponentials) before spending anything.  Where it certifies, the prover's
        attempts are not spent (binary-large-g-closed-form-maximises-on-policy-potential: 8 s
        of CPU that no strategy turns into its first-order identity); elsewhere the whole
        certification follows the prover, as for every other maximiser."""
        methods = [m for m in methods_for(claim) if m == "smt"]
        if claim.scope != "global" or len(claim.wrt) != 1 or not methods:
            return None
        t0 = time.process_time()
        return _certify_maximiser(claim, methods, t0, t0 + budget, False, ctx.trace, only=("A",))

    def certify_again(self, claim, proof):
        return True  # all routes, with every method, after the prover

    def certify(self, claim, ctx, proof, numeric, budget):
        if proof.evidence.get("stopped"):
            # the objective's derivatives already exhausted the symbolic budget; the routes
            # differentiate it again (twice for the Hessian), which would only add another
            # budget to a claim that is near the per-claim limit
            return Certificate("undecided", reason="maximiser: the objective's derivatives exhausted the symbolic "
                               "budget; certification not attempted")
        methods = methods_for(claim)
        if not methods:
            return Certificate("undecided", reason="certification switched off for this claim (certify_with='none')")
        first_order = proof.evidence.get("first_order") == "gradient vanishes (proved)"
        t0 = time.process_time()
        return _certify_maximiser(claim, methods, t0, t0 + budget, first_order, ctx.trace)


def _as_mpf(v, dps):
    """A coordinate value as mpf (a shrunk one is an exact sympy Rational)."""
    if isinstance(v, sp.Basic):
        with mpmath.workdps(dps):
            return mpmath.mpf(int(v.p)) / int(v.q)
    return v


def _claimed(ev, star, wrt, settings, dps=None) -> dict:
    """The claimed maximiser's coordinates (at p + 20 digits, or dps) added to the parameter
    point `star`, in place (as far as they are defined)."""
    for v in wrt:
        star[v] = mpmath.mpf(0)
    for v in wrt:
        star[v] = ev.at(f"at[{v}]", dict(star), dps or settings.precision + 20)
    return star


def _claimed_again(ev, feasible, pt, wrt, settings):
    """(the claimed point at 2 (2p + 10) digits, as a Root's value is rechecked; its
    feasibility at 2p + 10): computed once, a cancellation in its formula can move it
    anywhere (cosh(a)^2 - sinh(a)^2 is 0, not 1, at 50 and at 90 digits for a = 110).  Only
    a counterexample about to be reported pays for it."""
    star = _claimed(ev, {k: val for k, val in pt.items() if k not in wrt}, wrt, settings, 2 * ev.high)
    return star, _feasibility(feasible, star, wrt, ev.high)


def _infeasible_cx(params, pt, star, wrt) -> dict:
    return {"type": "claimed maximiser is infeasible", "point": point_repr(params, pt),
            **{str(v): fmt(star[v]) for v in wrt}}


def _local_derivatives(claim):
    """Gradient and Hessian of the objective, for telling a strict local maximum from a point
    that is not one (None for an objective without derivatives: Piecewise, Max, ...)."""
    def build():
        f, wrt = objective(claim), list(claim.wrt)
        if nonsmooth(f):
            return None
        exprs = {f"at[{v}]": claim.at[v] for v in wrt}
        exprs.update({f"g[{i}]": derivative(f, v) for i, v in enumerate(wrt)})
        hess = hessian(f, wrt)
        exprs.update({f"h[{i},{j}]": hess[i, j] for i in range(len(wrt)) for j in range(i, len(wrt))})
        return exprs
    return derived(claim, "local derivatives", build)


def _vet_local(claim, settings, pt, cx):
    """A rival that does better at a finite distance refutes a *local* maximum only if the
    point is not a strict one.  The basin of a strict local maximum can be far smaller than
    the probes (pi_a = 1e-10 in stationary-eq11-local-maximiser-g2: the objective rises
    again from 1e-20 away).  So the derivatives decide, each the same at p and at 2p + 10
    digits: a gradient that does not vanish, or a positive Hessian eigenvalue, keeps the
    counterexample (and says so); a vanishing gradient with a negative definite Hessian is a
    strict local maximum, and the rival is dropped (None).  Anything else (derivatives not
    available, a singular Hessian) keeps the counterexample: the numbers saw no basin."""
    exprs = _local_derivatives(claim)
    if exprs is None:
        return cx
    wrt, params = list(claim.wrt), claim.domain.symbols()
    n = len(wrt)
    ev = derived(claim, f"local derivatives evaluator at {settings.precision} digits",
                 lambda: Evaluator(params + tuple(wrt), exprs, settings.precision, domain=claim.domain))
    base = {s_: _as_mpf(pt[s_], ev.high + 20) for s_ in params}

    def at(dps):
        star = dict(base)
        for v in wrt:
            star[v] = mpmath.mpf(0)
        for v in wrt:
            star[v] = ev.at(f"at[{v}]", dict(star), dps + 20)
        g = [ev.at(f"g[{i}]", star, dps) for i in range(n)]
        h = mpmath.matrix(n, n)
        for i in range(n):
            for j in range(i, n):
                h[i, j] = h[j, i] = ev.at(f"h[{i},{j}]", star, dps)
        with mpmath.workdps(dps):
            eig = sorted(mpmath.eigsy(h)[0]) if n > 1 else [h[0, 0]]
        return g, eig

    try:
        (g_p, e_p), (g_h, e_h) = at(settings.precision), at(ev.high)
    except (Undefined, ArithmeticError, ValueError, mpmath.libmp.NoConvergence):
        return cx  # derivatives not available here: the rival's verdict stands, as before

    def stable(a, b):  # the same value at both precisions (not rounding noise), and not 0
        with mpmath.workdps(ev.high):
            return b != 0 and abs(a - b) <= abs(b) * mpmath.mpf(10) ** (-settings.precision // 3)

    moving = [i for i in range(n) if stable(g_p[i], g_h[i])]
    if moving:
        return {**cx, "why": "the gradient does not vanish at the claimed point: "
                + ", ".join(f"d/d{wrt[i]} = {fmt(g_h[i])}" for i in moving)}
    if stable(e_p[-1], e_h[-1]) and e_h[-1] > 0:
        return {**cx, "why": f"the Hessian at the claimed point has the positive eigenvalue {fmt(e_h[-1])}"}
    if all(stable(a, b) and b < 0 for a, b in zip(e_p, e_h)):
        return None
    return cx


# a rival the accuracy guard could decide neither way (_does_better)
UNRESOLVED = "unresolved"


def _does_better(ev, params, pt, star, fstar, q, wrt, settings, claimed_ball=None):
    """The counterexample when the feasible rival q beats the claimed point at the parameter
    point pt, else None, or UNRESOLVED.

    Usually: better than star (computed at p + 20 digits, f(star) = fstar at p) at p digits,
    and again at 2p + 10 against the claimed point computed afresh at 2 (2p + 10) digits (a
    cancellation in its formula can move the first, see _claimed_again).  But both values
    can lose their digits to cancellation, and then agree on a wrong answer at every
    precision: so where arb can evaluate them, the balls decide (numeric.ball_greater on
    GAIN, f - f at the claimed point as one expression, with `claimed_ball`, f at the
    claimed point, for the tolerance's scale), and a rival they find better is reported with its values
    computed afresh at 2p + 10 digits (or at the digits the balls needed) and stable at
    twice those.  The report shows the recomputed point."""
    p = settings.precision
    answer, digits = ball_greater(ev, GAIN, q, claimed_ball, p) if claimed_ball is not None else (None, p)
    if answer is None:  # no ball: the usual decision
        fq = ev.at("f", q, p)
        if fq - fstar <= tol(p) * max(1, abs(fstar)):
            return None
        star, fs, fq, worse = _difference_at(ev, params, pt, q, wrt, settings, ev.high)
        return _better_cx(params, pt, wrt, star, fs, q, fq) if worse > tol(ev.high) * max(1, abs(fs)) else None
    if answer == "no":
        return None
    if answer == "unresolved":
        ev.at("f", q, p)  # raises Undefined for an objective undefined at the rival: that rival cannot win
        return UNRESOLVED
    at = max(digits, ev.high)
    star, fs, fq, worse = _difference_at(ev, params, pt, q, wrt, settings, at)
    worse2 = _difference_at(ev, params, pt, q, wrt, settings, 2 * at)[3]
    if not (worse > tol(p) * max(1, abs(fs)) and abs(worse2 - worse) <= abs(worse2) / 100):
        return UNRESOLVED
    cx = _better_cx(params, pt, wrt, star, fs, q, fq)
    if digits > p:
        cx["cancellation"] = lost_note(p, at, f"{2 * at} digits")
    return cx


def _difference_at(ev, params, pt, q, wrt, settings, dps):
    """(claimed point, f there, f at q, f(q) - f(claimed)) at dps digits, the claimed point
    computed afresh at 2 dps digits."""
    star = _claimed(ev, {s_: pt[s_] for s_ in params}, wrt, settings, 2 * dps)
    fq = ev.at("f", q, dps)
    fs = ev.at("f", star, dps)
    with mpmath.workdps(dps):
        return star, fs, fq, fq - fs


def _better_cx(params, pt, wrt, star, fs, q, fq) -> dict:
    return {"type": "a feasible point does better", "point": point_repr(params, pt),
            "claimed": {str(v): fmt(star[v]) for v in wrt}, "objective(claimed)": fmt(fs),
            "better": {str(v): fmt(q[v]) for v in wrt}, "objective(better)": fmt(fq)}


def _claimed_feasible(ev, claim, feasible, pt, star, settings):
    """The claimed point `star` (computed at p + 20 digits) judged: ("feasible", the point
    to compare, recomputed where a cancellation moved it), ("unresolved", None), or
    ("infeasible", the counterexample)."""
    params, wrt = claim.domain.symbols(), claim.wrt
    where = _feasibility(feasible, star, wrt, settings.precision)
    if where == "no":
        # infeasible at p + 20 digits: so it must be at 2 (2p + 10) too, else the recomputed
        # point (a cancellation moved the first) is the one compared; defined at p + 20
        # digits, undefined there: the precisions disagree
        try:
            star, where = _claimed_again(ev, feasible, pt, wrt, settings)
        except Undefined:
            return "unresolved", None
        if where == "no":
            return "infeasible", _infeasible_cx(params, pt, star, wrt)
        return ("unresolved", None) if where == "edge" else ("feasible", star)
    # feasible as far as the claimed point's arb balls show (its formula can cancel at every
    # precision: cosh(a)^2 - sinh(a)^2 + 1/2 is 1/2 in [0, 1])
    balls = _feasible_by_balls(ev, claim, feasible, pt, settings)
    if where == "edge" and balls != "in":
        # within rounding of the boundary (e.g. 1 - 1e-400000), and the balls do not place it
        # within the tolerance either (they do a claimed log 2 at the end log 2)
        return "unresolved", None
    if balls == "unresolved":
        return "unresolved", None
    if balls == "out":
        try:
            again, where = _claimed_again(ev, feasible, pt, wrt, settings)
        except Undefined:
            return "unresolved", None
        if where != "no":  # the balls and the values disagree: not decided here
            return "unresolved", None
        return "infeasible", {**_infeasible_cx(params, pt, again, wrt),
                              "cancellation": lost_note(settings.precision, 2 * ev.high,
                                                        f"{ev.high} digits (feasibility)")}
    return "feasible", star


def _feasible_by_balls(ev, claim, feasible, pt, settings):
    """"in", "out", "unresolved" or None (no balls): does the claimed point, as arb balls of
    the parameter point pt, lie in the feasible set's intervals and satisfy its order
    relations, within the tolerance _feasibility allows a value at p digits?"""
    p = settings.precision
    at_zero = {**pt, **{v: mpmath.mpf(0) for v in claim.wrt}}
    eps = tol(p)
    answers = []
    for name, interval in derived(claim, "feasibility balls", lambda: _feasibility_balls(claim, feasible)):
        ends = [e for e in (interval.start, interval.end) if e.is_finite]
        size = max([mpmath.mpf(1)] + [abs(end_value(e)) for e in ends])
        answers.append(ball_in_interval(ev, name, at_zero, p, interval, eps * size)[0])
    if "out" in answers:
        return "out"
    if "unresolved" in answers:
        return "unresolved"
    return "in" if answers and all(a == "in" for a in answers) else None


def _feasibility_balls(claim, feasible):
    """[(ball name, interval)]: each claimed coordinate with its interval, each order
    relation of the feasible set as lhs - rhs with the half-line it must lie on."""
    out = [(f"claimed[{v}]", feasible.sets[v]) for v in claim.wrt if isinstance(feasible.sets[v], sp.Interval)]
    for i, rel in enumerate(feasible.where):
        if isinstance(rel, (sp.StrictLessThan, sp.LessThan)):
            out.append((f"where[{i}]", sp.Interval(-sp.oo, 0, True, isinstance(rel, sp.StrictLessThan))))
        elif isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan)):
            out.append((f"where[{i}]", sp.Interval(0, sp.oo, isinstance(rel, sp.StrictGreaterThan), True)))
    return out


def _evaluator(claim, settings, screen=False) -> Evaluator:
    """The objective "f" and the claimed point's coordinates "at[v]" over parameters + wrt;
    and, as balls only, the objective at the claimed point (CLAIMED, _claimed_ball) and
    the objective minus it (GAIN, what a rival is decided on)."""
    wrt = tuple(claim.wrt)
    obj = objective(claim)
    exprs = {"f": obj, **{f"at[{v}]": claim.at[v] for v in wrt}}
    ev = Evaluator(claim.domain.symbols() + wrt, exprs, settings.precision, screen=screen, domain=claim.domain)
    coords = _claimed_coordinates(claim)
    at_claimed = obj.xreplace(coords)
    ev.add_ball(CLAIMED, at_claimed)
    ev.add_ball(GAIN, obj - at_claimed)  # one expression: the terms both share cancel in sympy
    for v in wrt:
        ev.add_ball(f"claimed[{v}]", coords[v])
    for i, rel in enumerate(derived(claim, "feasible set", claim.feasible).where):
        if isinstance(rel, sp.core.relational.Relational):
            ev.add_ball(f"where[{i}]", (rel.lhs - rel.rhs).xreplace(coords))
    return ev


CLAIMED = "f at the claimed point"
GAIN = "f - f at the claimed point"


def _claimed_coordinates(claim) -> dict:
    """The claimed point's coordinates as expressions of the parameters: the wrt variables
    replaced in order as _claimed computes them (one not yet computed is 0)."""
    def build():
        done = {}
        for v in claim.wrt:
            done[v] = sp.sympify(claim.at[v]).xreplace({**{w: sp.Integer(0) for w in claim.wrt}, **done})
        return done
    return derived(claim, "claimed coordinates", build)


def _claimed_ball(ev, pt, wrt):
    """() -> the objective at the claimed point as an arb ball of the parameter point pt at
    arb's current precision (None where arb cannot), kept per precision: the scale of the
    tolerance every rival of pt is compared with."""
    args = arb_point(ev.symbols, {**pt, **{v: 0 for v in wrt}})
    kept = {}

    def ball():
        import flint
        prec = flint.ctx.prec
        if prec not in kept:
            kept[prec] = ev.ball_at(CLAIMED, args)
        return kept[prec]
    return ball


def _feasibility(feasible: Domain, pt, wrt, precision) -> str:
    """'yes', 'no', or 'edge' when only rounding separates the point from the closure."""
    # the comparisons run at the points' own precision: at mpmath's default 15 digits,
    # 1 + 1e-20 rounds to 1, and a point 1e-40 above it would look outside the tolerance
    with mpmath.workdps(precision + 20):
        return _feasibility_at(feasible, pt, wrt, precision)


def _feasibility_at(feasible: Domain, pt, wrt, precision) -> str:
    tol = mpmath.mpf(10) ** (-(2 * precision) // 3)
    edge = False
    for v in wrt:
        st = feasible.sets[v]
        if not isinstance(st, sp.Interval):
            members = list(st) if isinstance(st, sp.FiniteSet) or st.size.is_finite else None
            if members is not None:
                gaps = [abs(pt[v] - end_value(m)) for m in members]
                if min(gaps) > tol * max(1, abs(pt[v])):
                    return "no"
            elif not mpmath.isint(mpmath.nint(pt[v])) or abs(pt[v] - mpmath.nint(pt[v])) > tol:
                return "no"
            continue
        if isinstance(st, sp.Interval) and not in_interval(pt[v], st):
            lo = end_value(st.start) if st.start.is_finite else -mpmath.inf
            hi = end_value(st.end) if st.end.is_finite else mpmath.inf
            if lo - tol * max(1, abs(lo)) <= pt[v] <= hi + tol * max(1, abs(hi)):
                edge = True
            else:
                return "no"
    for rel, val in zip(feasible.where, where_values(feasible, pt, precision)):
        if not holds(type(rel), val):
            if isinstance(val, mpmath.mpf) and abs(val) <= tol:
                edge = True
            else:
                return "no"
    return "edge" if edge else "yes"


class _Stop(Exception):
    """A goal of a maximiser route was not established (the reason says which)."""


def _feasibility_goals(claim, at, feas):
    """The point lies in the feasible set: in each variable's interval (or finite set)
    and on the right side of every over_where relation, at every parameter point."""
    out = []
    for k in claim.wrt:
        st, v = feas.sets[k], at[k]
        if not isinstance(st, sp.Interval):
            raise _Stop(f"the feasible set of {k} is not an interval")
        if st.start.is_finite:
            out.append(Goal(v - st.start, "positive" if st.left_open else "nonnegative", claim.domain,
                            f"point: {k} above the lower end"))
        if st.end.is_finite:
            out.append(Goal(st.end - v, "positive" if st.right_open else "nonnegative", claim.domain,
                            f"point: {k} below the upper end"))
    for rel in feas.where:
        d = (rel.rhs - rel.lhs) if isinstance(rel, (sp.StrictLessThan, sp.LessThan)) else (rel.lhs - rel.rhs)
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            raise _Stop(f"feasible-set relation {rel} is not an inequality")
        out.append(Goal(substitute(d, at), "positive" if strict else "nonnegative",
                        claim.domain, f"point satisfies {rel}"))
    return out


def _certify_maximiser(claim, methods, t0, deadline, first_order_proved, trace=None, only=None):
    """A Maximiser claim over its whole parameter domain (Section 1.3's stationary
    policies, the maximisers of Sections 2.3 and 3).  Three sound routes:

    A. one variable, global: the point is feasible, f is defined (continuous) on the
       feasible interval I, and f' >= 0 on I's interior left of the point, f' <= 0 right
       of it.  By the mean value theorem f(y) <= f(point) for every y in I.  No
       stationarity is needed, so a maximiser at an end of I is covered.
    B. global: the point is feasible, the gradient vanishes there (the prover's exact
       identity, else a z3 zero goal), the feasible set is convex (intervals cut by
       linear relations) and the Hessian is negative definite on all of it (leading
       minors of alternating sign): f is strictly concave, so the point is its maximum.
    C. local: feasible, zero gradient, Hessian negative definite at the point (its
       leading minors' signs as goals over the parameter domain): a strict local max.

    Sign goals are never turned into counterexamples here: f' < 0 somewhere left of the
    point does not by itself refute a global maximum (the numbers decide refutation)."""
    records, used = [], []
    f = objective(claim)
    wrt = list(claim.wrt)
    at = {k: sp.sympify(v) for k, v in claim.at.items()}
    feas = claim.feasible()

    def need(goal, allowed=None, until=None):
        ms = [m for m in methods if allowed is None or m in allowed] or methods
        m, detail, _ = solve_goal(goal, ms, min(deadline, until or deadline), none_check, trace)
        records.append({"goal": goal.text, "method": m, "detail": detail})
        if m is None:
            raise _Stop(f"{goal.text}: {detail}")
        used.append(m)

    def done(route):
        return Certificate("certified", method="+".join(dict.fromkeys(used)) or None,
                           detail=route + "; " + "; ".join(f"{r['goal']}: {r['detail']}" for r in records),
                           seconds=time.process_time() - t0, goals=records)

    f_open, ends = f, []
    try:
        if nonsmooth(f):
            # 0 log 0 = 0: a Piecewise that only fixes the value at an end of the variable's
            # interval is the smooth branch inside it (route A, continuity at the end below)
            pieces = removable_at_ends(f, wrt, feas) if claim.scope == "global" else None
            if pieces is None:
                raise _Stop("objective not smooth (Piecewise/Max/...): no derivative argument")
            f_open, ends = pieces
        for g in _feasibility_goals(claim, at, feas):
            need(g)
    except _Stop as stop:
        return undecided(t0, records, f"maximiser: {stop}")
    params = dict(claim.domain.sets)
    why = []
    routes = [r for r in (["A", "B"] if claim.scope == "global" else ["C"]) if only is None or r in only]
    route_point = trace.point("maximiser route") if trace is not None else None
    if trace is not None:
        routes = trace.options(route_point, routes)
        if not routes:
            return undecided(t0, records, "maximiser: no route recorded in the certificate")

    def done_route(name, text):
        if trace is not None:
            trace.won(route_point, name)
        return done(text)

    if "A" in routes and len(wrt) == 1 and not any(sp.sympify(r).has(wrt[0]) for r in feas.where):
        n = len(records)
        # route A gets half of what is left: route B must not be starved by an interval search
        until = time.process_time() + (deadline - time.process_time()) / 2
        try:
            x, v, iv = wrt[0], at[wrt[0]], feas.sets[wrt[0]]
            if ends:
                # f is the smooth branch on the open interval, and continuous on the closed one
                whole = Domain({**params, x: iv}, tuple(claim.domain.where))
                for r in piecewise_ends_continuous(f, x, whole, ends, deadline, trace, label="A: "):
                    records.append(r)
                    used.append("symbolic")
            else:
                whole = Domain({**params, x: iv}, tuple(claim.domain.where))
                if not defined(f, whole, max(0.5, (deadline - time.process_time()) / 6), trace, at="A: f defined"):
                    raise _Stop("the objective is not shown defined on the whole feasible interval")
            der = derivative(f_open, x)
            zero_slope = first_order_proved and not ends
            if ends and v.free_symbols - set(params) == set():
                # with a Piecewise, the first-order identity again, on the smooth branch
                prep = claim.domain.assumption_symbols()
                pfacts = Facts.from_relations(with_ends(claim.domain), prep)
                zero_slope = zero_by(der.xreplace({x: v}).xreplace(prep), pfacts, trace,
                                     at="A: the smooth branch's slope at the point")[0] is not None
            for rel, want, side in ((x < v, "nonnegative", "left of"), (x > v, "nonpositive", "right of")):
                if side == "right of" and iv.end.is_finite and sp.sympify(iv.end - v) == 0 or \
                        side == "left of" and iv.start.is_finite and sp.sympify(v - iv.start) == 0:
                    continue  # the point is that end of the interval: nothing on this side
                dom = Domain({**params, x: open_interval(iv)}, tuple(claim.domain.where) + (rel,))
                # f' = 0 at the point exactly (the prover's identity): boxes around the point
                # are decided by the sign of f'' there (the ball backend's zero curve).  Not
                # with a Piecewise: the prover differentiated it, and at its end the derivative
                # of Piecewise((c, Eq(x, e)), (g, True)) is 0 whatever g'(e) is
                curve = Curve(x, v, order=1, side="left" if side == "left of" else "right") \
                    if zero_slope else None
                need(Goal(der, want, dom, f"d/d{x} {want} {side} the point", curve=curve), until=until)
                if not defined(der, dom, max(0.5, (deadline - time.process_time()) / 6), trace,
                               at=f"A: f' defined {side}"):
                    raise _Stop(f"d/d{x} not shown defined {side} the point")
            return done_route("A", "route A: f' >= 0 left of the point and <= 0 right of it on the feasible "
                        "interval (mean value theorem): a global maximiser")
        except _Stop as stop:
            why.append(f"route A: {stop}")
            del records[n:]
    if "B" not in routes and "C" not in routes or ends:
        return undecided(t0, records, "maximiser: " + "; ".join(why))
    try:
        if not first_order_proved:
            for k in wrt:
                need(Goal(substitute(derivative(f, k), at), "zero", claim.domain,
                          f"d/d{k} vanishes at the point"), allowed=("symbolic", "smt"))
        else:
            records.append({"goal": "gradient vanishes at the point", "method": "symbolic",
                            "detail": "the prover's exact identity"})
            used.append("symbolic")
        hess = hessian(f, wrt)
        wants = ["negative" if k % 2 else "positive" for k in range(1, len(wrt) + 1)]
        whole = None
        if claim.scope == "global":
            convex = all(is_linear(r.lhs - r.rhs, wrt) for r in feas.where)
            if not convex:
                raise _Stop("feasible set not shown convex (a non-linear relation)")
            whole = Domain({**params, **feas.sets}, tuple(claim.domain.where) + tuple(feas.where))
            # the concavity inequality f(y) <= f(point) + grad f(point) (y - point) needs f
            # itself defined on the feasible set (log x has the derivative 1/x also at x < 0)
            if not defined(f, whole, max(0.5, (deadline - time.process_time()) / 6), trace, at="B: f defined"):
                raise _Stop("the objective is not shown defined on the whole feasible set")
        route = "B" if whole is not None else "C"
        # Hessian = sum_k g_k'' l_k l_k^T when f = sum_k g_k(l_k . y) + affine: negative definite
        # where every g_k'' < 0 and the l_k span.  One goal per direction instead of the leading
        # minors, whose products of terms can touch 0 on the boundary of the parameter box
        # (stationary-eq11-local-maximiser-g2: minor 2 undecided, each g_k'' a small rational goal)
        sep = separable(f, wrt) if len(wrt) >= 2 else None
        sep_point = trace.point("maximiser second order") if trace is not None else None
        if sep is not None and spanning([d for d, _ in sep[0]], len(wrt)) and \
                (trace is None or "separable" in trace.options(sep_point, ["separable"])):
            n_rec, n_used = len(records), len(used)
            # the minors keep half of what is left if this fails
            until = time.process_time() + (deadline - time.process_time()) / 2
            (pieces, u) = sep
            try:
                for d, g in pieces:
                    line = sum(c * w for c, w in zip(d, wrt))
                    g2 = derivative(g, u, 2)
                    if whole is not None:
                        need(Goal(g2.xreplace({u: line}), "negative", whole,
                                  f"g'' < 0 along ({', '.join(map(str, d))}) on the feasible set"), until=until)
                    else:
                        need(Goal(g2.xreplace({u: substitute(line, at)}), "negative", claim.domain,
                                  f"g'' < 0 along ({', '.join(map(str, d))}) at the point"), until=until)
                if trace is not None:
                    trace.won(sep_point, "separable")
                dirs = ", ".join("(" + ", ".join(map(str, d)) + ")" for d, _ in pieces)
                what = ("strictly concave on the convex feasible set: the global maximiser" if whole is not None
                        else "negative definite at the point: a strict local maximiser")
                return done_route(route, f"route {route}: zero gradient; f = sum_k g_k(l_k . y) + affine along the "
                                         f"spanning directions {dirs}, each g_k'' < 0, so the Hessian sum_k g_k'' "
                                         f"l_k l_k^T is {what}")
            except _Stop as stop:
                why.append(f"route {route}, separable second order: {stop}")
                del records[n_rec:], used[n_used:]
        if whole is not None:
            for k, w in zip(range(1, len(wrt) + 1), wants):
                need(Goal(leading_minor(hess, k), w, whole, f"leading minor {k} of the Hessian {w} on the "
                          "feasible set"))
            return done_route("B", "route B: zero gradient at a feasible point of a strictly concave objective on a "
                        "convex set: the global maximiser")
        for k, w in zip(range(1, len(wrt) + 1), wants):
            need(Goal(substitute(leading_minor(hess, k), at), w, claim.domain,
                      f"leading minor {k} of the Hessian {w} at the point"))
        return done_route("C", "route C: zero gradient and negative definite Hessian at the point: a strict local "
                    "maximiser")
    except _Stop as stop:
        why.append(f"route {'B' if claim.scope == 'global' else 'C'}: {stop}")
    return undecided(t0, records, "maximiser: " + "; ".join(why))


def removable_at_ends(f, wrt, feas):
    """(f with its Piecewise pieces replaced by their general branch, [(piece, side)]) when every
    Piecewise in f is Piecewise((c, Eq(x, e)), (g, True)) for the one variable x and e a
    closed end of its interval: f is g inside the interval, and its value at e is c.  None
    otherwise."""
    if len(wrt) != 1:
        return None
    x = wrt[0]
    iv = feas.sets.get(x)
    if not isinstance(iv, sp.Interval):
        return None
    reps, ends = {}, []
    for pw in sp.ordered(f.atoms(sp.Piecewise)):
        if len(pw.args) != 2 or pw.args[1].cond is not sp.true:
            return None
        cond = pw.args[0].cond
        if not isinstance(cond, sp.Eq) or x not in (cond.lhs, cond.rhs):
            return None
        e = cond.rhs if cond.lhs == x else cond.lhs
        if e == iv.start and not iv.left_open:
            side = "+"
        elif e == iv.end and not iv.right_open:
            side = "-"
        else:
            return None
        reps[pw] = pw.args[1].expr
        ends.append((pw, side))
    g = f.xreplace(reps)
    if nonsmooth(g):
        return None
    return g, ends


def piecewise_ends_continuous(f, x, whole, ends, deadline, trace=None, label="") -> list:
    """f, whose Piecewise pieces `ends` (removable_at_ends) only fix its value at closed ends of
    x's interval, is continuous on the closed interval of `whole`: its terms outside the
    Piecewise are defined on all of it, each piece's branch is defined everywhere but at its
    own end (also at the other end, when that is closed) and tends to the piece's value there.
    The continuity records, or _Stop naming what was not shown.  `label` prefixes the trace's
    decision points (a maximiser's route A)."""
    iv = whole.sets[x]
    rest = f.xreplace({pw: 0 for pw, _ in ends})
    if not defined(rest, whole, max(0.5, (deadline - time.process_time()) / 6), trace,
                   at=label + "f outside its Piecewise defined"):
        raise _Stop("the terms outside the Piecewise are not shown defined on the whole interval")
    records = []
    for pw, side in ends:
        part = Domain({**whole.sets, x: without_end(iv, side)}, tuple(whole.where))
        if not defined(pw.args[1].expr, part, max(0.5, (deadline - time.process_time()) / 6), trace,
                       at=label + "Piecewise branch defined inside"):
            raise _Stop("the Piecewise's branch is not shown defined inside the interval")
        records.append(_continuity_at_end(pw, x, side, whole))
    return records


def without_end(iv, side):
    """The interval without its end on `side` ("+": the lower end, "-": the upper)."""
    return sp.Interval(iv.start, iv.end, iv.left_open or side == "+", iv.right_open or side == "-")


def _continuity_at_end(pw, x, side, domain=None):
    """Piecewise((c, Eq(x, e)), (g, True)) continuous at e: sympy.limit of g at e, from inside
    the interval (`side`: "+" at the lower end, "-" at the upper), is c exactly.  g depends
    on x alone (a limit in the presence of parameters can hold for generic values only), or
    -- with the claim's `domain` -- on the parameters only through one argument w(x, p) of a
    log in g with w(e, p) = 0 exactly: g = G(w), and w > 0 at every domain point with x
    inside the interval (sympy), so g -> lim_{w -> 0+} G(w) for each parameter value
    ((1 - t)(1 - z) log((1 - t)(1 - z)) -> 0 as t -> 1).  A record of the goal; raises _Stop."""
    (c, cond), (g, _) = pw.args
    e = cond.rhs if cond.lhs == x else cond.lhs
    if sp.sympify(c).free_symbols:
        raise _Stop(f"continuity at {x} = {e}: the Piecewise's value depends on parameters (not shown)")
    how = ""
    if g.free_symbols - {x}:
        g, x, e, side, how = _through_one_argument(g, x, e, domain)
    xr = sp.Dummy("x", real=True)
    try:
        lim = sp.limit(g.xreplace({x: xr}), xr, e, side)
    except Exception as exc:  # noqa: BLE001 - not established this way
        raise _Stop(f"continuity at {x} = {e}: sympy.limit failed ({type(exc).__name__})")
    if lim.has(sp.Limit) or not lim.is_finite or zero_by(lim - c)[0] is None:
        raise _Stop(f"continuity at {x} = {e} not shown (limit {short(lim)} against the value {short(c)})")
    return {"goal": f"continuous at {cond.lhs} = {cond.rhs} (the limit of the Piecewise's branch is its value there)",
            "method": "symbolic", "detail": f"{how}sympy.limit from the {'right' if side == '+' else 'left'}: "
                                            f"{short(lim)} = {short(c)}"}


def _through_one_argument(g, x, e, domain):
    """(G, w, 0, "+", how): g = G(w) for w the argument of a log in g that vanishes at x = e
    exactly, G free of x and of the parameters, and w > 0 at every domain point with x in
    its open interval (sympy's sign analysis under the domain's facts).  Raises _Stop."""
    from ..backends.symbolic import prove_sign
    if domain is None or x not in domain.sets:
        raise _Stop(f"continuity at {x} = {e}: the Piecewise depends on parameters (not shown)")
    inner = Domain({**domain.sets, x: open_interval(domain.sets[x])}, tuple(domain.where))
    rep = inner.assumption_symbols()
    facts = Facts.from_relations(with_ends(inner), rep)
    w_ = sp.Dummy("w", positive=True)
    for lg in sp.ordered(g.atoms(sp.log)):
        arg = lg.args[0]
        if not arg.has(x) or zero_by(arg.xreplace({x: e}))[0] is None:
            continue
        big = g.subs(arg, w_)
        if big.free_symbols != {w_}:
            continue
        if not prove_sign(arg.xreplace(rep), "positive", facts):
            continue
        return big, w_, sp.S.Zero, "+", f"the branch is G(w) for w = {short(arg, 60)} -> 0+ (w > 0 inside): "
    raise _Stop(f"continuity at {x} = {e}: the Piecewise depends on parameters (not shown)")


def _affine_parts(e, wrt):
    """(coefficient vector, constant) when e is affine in wrt with coefficients free of wrt, else None
    (structurally, without building a polynomial: the objectives are large)."""
    def lin(e):
        if not e.has(*wrt):
            return {}, e
        if e in wrt:
            return {e: sp.S.One}, sp.S.Zero
        if isinstance(e, sp.Add):
            co, c0 = {}, []
            for a in e.args:
                r = lin(a)
                if r is None:
                    return None
                for w, v in r[0].items():
                    co[w] = co.get(w, 0) + v
                c0.append(r[1])
            return co, sp.Add(*c0)
        if isinstance(e, sp.Mul):
            var = [a for a in e.args if a.has(*wrt)]
            if len(var) != 1:
                return None
            r = lin(var[0])
            if r is None:
                return None
            k = sp.Mul(*[a for a in e.args if not a.has(*wrt)])
            return {w: k * v for w, v in r[0].items()}, k * r[1]
        return None
    if not e.has(*wrt):
        return None
    r = lin(e)
    if r is None:
        return None
    co, c0 = r
    coeffs = [sp.S(co.get(w, 0)) for w in wrt]
    if all(c == 0 for c in coeffs):
        return None
    return coeffs, c0


def _terms(f, wrt):
    """f as a sum of terms, constant factors distributed over sums that hold wrt."""
    if isinstance(f, sp.Add):
        for a in f.args:
            yield from _terms(a, wrt)
        return
    if isinstance(f, sp.Mul):
        const = [a for a in f.args if not a.has(*wrt)]
        var = [a for a in f.args if a.has(*wrt)]
        if len(var) == 1 and isinstance(var[0], sp.Add):
            c = sp.Mul(*const)
            for t in _terms(var[0], wrt):
                yield c * t
            return
    yield f


def separable(f, wrt):
    """f = sum_k g_k(l_k . y) + (affine in y), the l_k distinct rational directions: returns
    ([(l_k, g_k(u))], u), u a fresh symbol, or None when f is not of that form.

    The objectives over a simplex (Sections 1.3, 2.3 and 3) are of this form: each output's
    term depends on its own probability y_o, the last one on 1 - sum y.  Then the Hessian is
    exactly sum_k g_k''(l_k . y) l_k l_k^T, whose sign is decided by the g_k'' alone."""
    wrt = list(wrt)
    groups = {}   # direction (tuple) -> sum of g's
    u = sp.Dummy("u")
    for t in _terms(f, wrt):
        if not t.has(*wrt):
            continue
        forms = {}
        def walk(e):
            if not e.has(*wrt):
                return
            ap = _affine_parts(e, wrt) if (e.is_Add or e.is_Mul or e.is_Symbol) else None
            if ap is not None:
                forms[e] = ap
                return
            for a in e.args:
                walk(a)
        if _affine_parts(t, wrt) is not None:
            continue  # affine: no curvature
        walk(t)
        if not forms:
            return None
        dirs = {}
        for e, (coeffs, const) in forms.items():
            lead = next(c for c in coeffs if c != 0)
            d = tuple(sp.cancel(c / lead) for c in coeffs)
            if not all(x.is_Rational for x in d):
                return None
            dirs.setdefault(d, []).append((e, lead, const))
        if len(dirs) != 1:
            return None
        (d, occ), = dirs.items()
        # e = lead * (d . y) + const  ->  lead * u + const
        g = t.xreplace({e: lead * u + const for e, lead, const in occ})
        if g.has(*wrt):
            return None
        groups[d] = groups.get(d, 0) + g
    return [(d, g) for d, g in groups.items()], u


def spanning(directions, n) -> bool:
    """The rational directions span R^n."""
    return sp.Matrix([list(d) for d in directions]).rank() == n


def _hessian_domain(claim, feas) -> Domain:
    """The parameters' domain and the feasible set together: where the Hessian's minors live."""
    return Domain({**claim.domain.sets, **feas.sets}, tuple(claim.domain.where) + tuple(feas.where))


def _noted(text: str, ev) -> str:
    """text, with the minors the numbers kept from sympy (ev["not_attempted"]) said after it."""
    return text + "".join(f"; {n}" for n in ev.pop("not_attempted", []))


def _signs_proved(claim, minors, wants, label, where, back, facts, ctx, ev) -> bool:
    """Does sympy prove every minor's sign?  A minor the numbers show without that sign
    (numeric.sign_violation, by arb balls at seeded points of `where`) is not attempted: the
    note of why goes to ev["not_attempted"].  `back` maps the assumption symbols of the
    minors back to the declared ones.  A replay follows its certificate and skips the probe."""
    for i, (m, w) in enumerate(zip(minors, wants)):
        name = f"minor {i + 1}{label}"
        if not ctx.replaying:
            pt = sign_violation(m.xreplace(back), w, where, ctx.settings, f"{claim.id}:{name}")
            if pt is not None:
                shown = ", ".join(f"{k} = {fmt(v, 6)}" for k, v in pt.items())
                ev.setdefault("not_attempted", []).append(
                    f"{name} is not {w} at {shown} (arb ball), so sympy was not asked to prove it")
                return False
        if not prove_sign(m, w, facts, ctx.trace, at=name):
            return False
    return True


def leading_minor(hess, k):
    """The k-th leading principal minor, expanded without simplifying: sympy's det
    simplifies every product it forms (dotprodsimp), which spent 20 s on a 2 x 2 minor of a
    large objective; sign analysis tries its own forms of the result anyway."""
    h = hess
    if k == 1:
        return h[0, 0]
    if k == 2:
        return h[0, 0] * h[1, 1] - h[0, 1] * h[1, 0]
    if k == 3:
        return (h[0, 0] * (h[1, 1] * h[2, 2] - h[1, 2] * h[2, 1]) - h[0, 1] * (h[1, 0] * h[2, 2] - h[1, 2] * h[2, 0])
                + h[0, 2] * (h[1, 0] * h[2, 1] - h[1, 1] * h[2, 0]))
    from sympy.matrices.utilities import dotprodsimp
    with dotprodsimp(False):
        return hess[:k, :k].det(method="berkowitz")


def objective(claim):
    """The objective with the frozen substitutions applied (pi_old -> the point)."""
    return derived(claim, "objective", lambda: substitute(claim.objective, claim.frozen)
                   if claim.frozen else sp.sympify(claim.objective))


KIND = MaximiserKind()
