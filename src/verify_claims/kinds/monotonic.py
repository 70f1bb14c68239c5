"""Monotonic: expr is increasing / decreasing in var on the domain (strictly unless
strict=False).

Falsified on seeded pairs of values of var (random, very close, and straddling the
breakpoints of a Piecewise, sign or Abs, where jumps hide).  Established by the sign of
the derivative: sympy's sign analysis, else the derivative's sign as a goal with the
variable's interval opened, plus the function defined on the closed interval (the mean
value theorem).  A non-smooth expression never gets a derivative argument.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ..backends.definedness import defined
from ..backends.evaluate import Program
from ..backends.functions import nonsmooth
from ..backends.numeric import (Diff, Evaluator, NumericOutcome, Undefined, decide_order, exact, exactly_zero, fmt,
                                point_repr, sample_points, screen_order, undefined_cx)
from ..backends.sampling import contains, in_interval, sample
from ..backends.symbolic import CERTIFIED, ProofOutcome, assume, prove_sign, short
from ..engine.goals import Certificate, Goal, certify_claim, domain_point, open_interval
from ..model.derivative import derivative
from ..model.domain import Domain
from .base import Kind


class MonotonicKind(Kind):
    name = "monotonic"
    mutable_fields = ("expr",)

    def mutants(self, claim):
        from dataclasses import replace
        from ..mutation import Mutant
        other = "decreasing" if claim.direction == "increasing" else "increasing"
        return super().mutants(claim) + [
            Mutant("direction:reversed", f"the direction reversed ({claim.direction} -> {other})",
                   replace(claim, direction=other))]

    def equivalence_forms(self, claim, field, expr):
        """Monotonicity in var depends on the expression only through its derivative in var,
        when the expression is smooth (a jump of a Piecewise would be lost)."""
        if field == "expr" and not nonsmooth(expr):
            return [derivative(expr, claim.var)]
        return [expr]

    cost = 3
    inequality_like = True
    certify_first = True

    def spot_check(self, claim, settings, rng, screen=False):
        syms = claim.domain.symbols()
        x = claim.var
        ev = Evaluator(syms, {"f": claim.expr}, settings.precision, screen=screen, domain=claim.domain)
        st = claim.domain.sets[x]
        pts = sample_points(claim.domain, settings, rng)
        sub = Domain({x: st})
        op = ("<" if claim.strict else "<=") if claim.direction == "increasing" else (
            ">" if claim.strict else ">=")
        tight, pairs, screened = 0, 0, 0
        breaks = _breakpoints(claim.expr, x)
        for pt in pts:
            # a second value of x in its interval: random, very close to the first, or a
            # pair straddling a breakpoint of a Piecewise/sign/Abs (where jumps hide)
            other = sample(sub, 1, rng, settings.precision + 20)[0][x]
            if rng.random() < 0.3:
                with mpmath.workdps(settings.precision + 20):
                    other = pt[x] + (mpmath.mpf(10) ** -rng.choice([4, 8])) * rng.choice([-1, 1])
                if not in_interval(other, st):
                    other = sample(sub, 1, rng, settings.precision + 20)[0][x]
            if breaks and rng.random() < 0.5:
                b = _breakpoint_at(rng.choice(breaks), syms, pt, settings.precision + 20)
                if b is not None:
                    h = mpmath.mpf(10) ** -rng.choice([3, 6, 9])
                    lo_b, hi_b = (b - h, b) if rng.random() < 0.5 else (b, b + h)
                    if in_interval(lo_b, st) and in_interval(hi_b, st):
                        pt = dict(pt)
                        pt[x], other = lo_b, hi_b
            if other == pt[x]:
                continue
            p1, p2 = dict(pt), dict(pt)
            p1[x], p2[x] = (pt[x], other) if pt[x] < other else (other, pt[x])
            if not (contains(claim.domain, p1, settings.precision) and contains(claim.domain, p2, settings.precision)):
                continue  # the second value of x left the domain through a `where` relation
            pairs += 1
            try:
                if screen and screen_order(op, ev.float_at("f", p1), ev.float_at("f", p2)):
                    screened += 1
                    continue
                res, cx = _pair_verdict(claim, ev, op, syms, p1, p2)
                if res is True:
                    return NumericOutcome("counterexample", {"pairs": pairs}, cx, witness={"p1": p1, "p2": p2})
                if res is None:
                    tight += 1
            except Undefined as exc:
                return NumericOutcome("counterexample", {"pairs": pairs}, undefined_cx(syms, p1, exc),
                                      witness={"p1": p1, "p2": p2})
        ev_ = {"pairs": pairs, "digits": settings.precision, "tight_pairs": tight}
        if screen:
            ev_["screened_in_floats"] = screened
        return NumericOutcome("inconclusive" if tight == pairs else "consistent", ev_)

    def shrink_target(self, claim, settings, cx, outcome):
        """The parameters and the pair's two values of the variable (first < second) are
        the coordinates."""
        from ..backends.shrink import Coordinate, Target, exact_sign, parse_point
        syms = claim.domain.symbols()
        x = claim.var
        params = [s_ for s_ in syms if s_ != x]
        first, second = f"{x} (first)", f"{x} (second)"
        w = outcome.witness if outcome is not None else None
        if w and "p1" in w:
            p1, p2 = w["p1"], w["p2"]
        else:
            p1 = parse_point(cx, syms)
            if p1 is None or cx.get("type") == "undefined":
                return None
            try:
                p2 = {**p1, x: mpmath.mpf(cx[second])}
            except (KeyError, TypeError, ValueError):
                return None
        st = claim.domain.sets[x]
        ev = Evaluator(syms, {"f": claim.expr}, settings.precision, domain=claim.domain)
        op = _op(claim)

        def pair(pt):
            q1, q2 = {s_: pt[s_] for s_ in params}, {s_: pt[s_] for s_ in params}
            q1[x], q2[x] = pt[first], pt[second]
            return q1, q2

        def admissible(pt):
            q1, q2 = pair(pt)
            return q1[x] < q2[x] and contains(claim.domain, q1, settings.precision) and contains(
                claim.domain, q2, settings.precision)

        def check(pt):
            q1, q2 = pair(pt)
            try:
                res, found = _pair_verdict(claim, ev, op, syms, q1, q2)
            except Undefined as exc:
                return undefined_cx(syms, q1, exc)
            return found if res is True else None

        def exactly(point):
            q1, q2 = dict(point), dict(point)
            q1[x], q2[x] = point[first], point[second]
            d = claim.expr.xreplace(q2) - claim.expr.xreplace(q1)  # f(second) - f(first)
            s_ = exact_sign(d, {})
            if s_ is None:
                return None
            holds = {"<": s_ > 0, "<=": s_ >= 0, ">": s_ < 0, ">=": s_ <= 0}[op]
            return not holds

        coords = [Coordinate(s_, (("point", str(s_)),), claim.domain.sets[s_], p1[s_]) for s_ in params]
        coords += [Coordinate(first, (("point", str(x)), (first,)), st, p1[x]),
                   Coordinate(second, ((second,),), st, p2[x])]
        high = 2 * settings.precision + 10
        return Target(coords, check, exactly, admissible, f"at {high} and {2 * high} digits (stable across "
                      "precisions)", dps=2 * high + 20)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        x = rep[claim.var]
        if nonsmooth(claim.expr):
            # a derivative ignores jumps: Piecewise((x, x < 1), (x - 1/100, True)) has f' = 1
            return ProofOutcome(None, "sympy sign of the derivative",
                                {"derivative": "not used: the expression is not smooth (Piecewise, sign, ...)"})
        der = derivative(claim.expr.xreplace(rep), x)
        want = ("positive" if claim.strict else "nonnegative") if claim.direction == "increasing" else (
            "negative" if claim.strict else "nonpositive")
        if prove_sign(der, want, facts, ctx.trace, at="derivative"):
            return ProofOutcome(CERTIFIED, "sympy sign of the derivative", {"derivative": short(sp.factor(der)),
                                                                            "sign": want})
        return ProofOutcome(None, "sympy sign of the derivative", {"derivative": short(der),
                                                                   "sign": "not established"})

    def goals(self, claim, expr=None, trace=None):
        """The derivative's sign inside the interval (of `expr`: the claim's expression, or
        its smooth branch).  Where the derivative vanishes exactly at a finite end of the
        interval for every parameter value (Phi' = beta h at a zero of h), that end is an exact
        zero curve of order 1 for the box methods: the derivative is the integral of the
        second derivative from the end, whose sign then decides the boxes next to it.  With a
        trace, the zero test's winning strategy is recorded (a replay runs only that one: the
        strategies that fail first would run out stretched replay slices)."""
        from ..backends.ball import _vanishes_numerically
        from ..backends.interval import Curve
        from ..backends.symbolic import Facts, with_ends, zero_by
        x = claim.var
        sets = dict(claim.domain.sets)
        st = sets[x]
        sets[x] = open_interval(st)
        der = derivative(claim.expr if expr is None else expr, x)
        inc = claim.direction == "increasing"
        want = ("positive" if claim.strict else "nonnegative") if inc else (
            "negative" if claim.strict else "nonpositive")
        curve = None
        if isinstance(st, sp.Interval) and len(claim.domain.sets) > 1:
            rep = claim.domain.assumption_symbols()
            facts = Facts.from_relations(with_ends(claim.domain), rep)
            for end, side in ((st.start, "right"), (st.end, "left")):
                if not end.is_finite or not end.is_Rational:
                    continue
                try:
                    at_end = der.xreplace(rep).xreplace({rep.get(x, x): end})
                except Exception:  # noqa: BLE001 - no value there: no curve
                    continue
                # a numeric filter first (the exact zero test of a non-zero expression is slow)
                if at_end.has(sp.nan, sp.zoo) or not _vanishes_numerically((at_end,), claim.domain, rep) \
                        or zero_by(at_end, facts, trace, at=f"derivative at {x} = {end}")[0] is None:
                    continue
                curve = Curve(x, end, order=1, side=side)
                break
        return [Goal(der, want, Domain(sets, claim.domain.where), f"d/d{x} is {want} inside the interval",
                     curve=curve)]

    def certify(self, claim, ctx, proof, numeric, budget):
        from .maximiser import _Stop, piecewise_ends_continuous, removable_at_ends
        expr, ends = claim.expr, []
        x = claim.var
        if nonsmooth(claim.expr):
            # 0 log 0 = 0: a Piecewise that only fixes the value at a closed end of the
            # interval is its smooth branch inside it, continuous at the end (shown below)
            pieces = removable_at_ends(claim.expr, (x,), claim.domain)
            if pieces is None:
                return Certificate("undecided", reason="not smooth (Piecewise/Max/...): a derivative ignores jumps")
            expr, ends = pieces
        continuity = []

        def before(methods, deadline):
            import time
            # f must be defined on the closed interval (continuity for the mean value theorem)
            if not ends:
                if not defined(claim.expr, claim.domain, max(0.5, (deadline - time.process_time()) / 4), ctx.trace,
                               at="f defined"):
                    return ("could not show the function defined on the whole interval (needed for the mean value "
                            "theorem)")
                return None
            # with a Piecewise at an end: continuous on the closed interval
            try:
                continuity.extend(piecewise_ends_continuous(claim.expr, x, claim.domain, ends, deadline, ctx.trace))
            except _Stop as stop:
                return str(stop)
            return None

        cert = certify_claim(claim, self.goals(claim, expr, ctx.trace), recheck_monotonic(claim, ctx.settings), budget,
                             ctx.trace, before=before)
        if continuity and cert.verdict == "certified":
            cert.goals = continuity + cert.goals
            cert.method = "+".join(dict.fromkeys(["symbolic"] + (cert.method or "").split("+"))).strip("+")
            cert.detail = "; ".join(f"{r['goal']}: {r['detail']}" for r in continuity) + "; " + cert.detail
        return cert


def _op(claim) -> str:
    """The order f(first) op f(second) the claim asserts for first < second."""
    return ("<" if claim.strict else "<=") if claim.direction == "increasing" else (">" if claim.strict else ">=")


def _pair_verdict(claim, ev, op, syms, p1, p2):
    """(True, counterexample) when f(first) op f(second) fails for the pair, confirmed as
    ``decide_order`` confirms a violation; (False, None) when it holds; (None, None) when
    unresolved."""
    x = claim.var
    pair = Diff(ev, "f", p1, "f", p2)
    res = decide_order(op, pair, lambda: exactly_zero(
        claim.expr.xreplace({x: exact(p1[x])}) - claim.expr.xreplace({x: exact(p2[x])}),
        [s_ for s_ in syms if s_ != x], p1))
    if res is not True:
        return res, None
    f1, f2 = pair.values
    return True, {"type": f"not {claim.direction}", "point": point_repr(syms, p1),
                  f"{x} (first)": fmt(p1[x]), f"{x} (second)": fmt(p2[x]), "f(first)": fmt(f1), "f(second)": fmt(f2)}


def _breakpoints(expr, x):
    """Where a non-smooth expression may jump, as expressions in the other symbols:
    the solutions in x of Piecewise conditions and of sign/Abs/Heaviside arguments."""
    out = []
    for pw in sp.ordered(expr.atoms(sp.Piecewise)):
        for _, cond in pw.args:
            for rel in (sp.ordered(cond.atoms(sp.core.relational.Relational)) if cond not in (sp.true, sp.false)
                        else ()):
                out += _solve_for(rel.lhs - rel.rhs, x)
    for f in sp.ordered(expr.atoms(sp.sign, sp.Heaviside, sp.Abs)):
        out += _solve_for(f.args[0], x)
    return out


def _solve_for(e, x):
    if not e.has(x):
        return []
    try:
        return [r for r in sp.solve(e, x) if r.is_real is not False]
    except Exception:  # noqa: BLE001 - no closed form: no breakpoint probing for it
        return []


def _breakpoint_at(bexpr, syms, pt, dps):
    try:
        return Program(bexpr, syms, "breakpoint").mp_at([pt[s_] for s_ in syms], dps)
    except Exception:  # noqa: BLE001
        return None


def recheck_monotonic(claim, settings):
    """Confirm a backend's candidate: pairs of nearby points around it, decided by mpmath."""
    syms = claim.domain.symbols()
    x = claim.var
    ev = Evaluator(syms, {"f": claim.expr}, settings.precision)
    op = ("<" if claim.strict else "<=") if claim.direction == "increasing" else (">" if claim.strict else ">=")

    def check(point):
        pt = domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        for k in (2, 4, 6, 8, 10, 12):
            h = mpmath.mpf(10) ** -k
            for a, b in ((pt[x], pt[x] + h), (pt[x] - h, pt[x])):
                if not (in_interval(a, claim.domain.sets[x]) and in_interval(b, claim.domain.sets[x])):
                    continue
                p1, p2 = dict(pt), dict(pt)
                p1[x], p2[x] = a, b
                if not (contains(claim.domain, p1, settings.precision) and contains(claim.domain, p2, settings.precision)):
                    continue
                pair = Diff(ev, "f", p1, "f", p2)
                try:
                    res = decide_order(op, pair, lambda: exactly_zero(
                        claim.expr.xreplace({x: exact(p1[x])}) - claim.expr.xreplace({x: exact(p2[x])}),
                        [s_ for s_ in syms if s_ != x], pt))
                except ArithmeticError:
                    continue
                if res is True:
                    f1, f2 = pair.values
                    return {"type": f"not {claim.direction}", "point": point_repr(syms, p1),
                            f"{x} (first)": mpmath.nstr(a, 12), f"{x} (second)": mpmath.nstr(b, 12),
                            "f(first)": mpmath.nstr(f1, 12), "f(second)": mpmath.nstr(f2, 12)}
        return None
    return check


KIND = MonotonicKind()
