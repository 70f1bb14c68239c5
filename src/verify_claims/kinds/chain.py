"""Chain: a derivation, each displayed line verified against the one before it.

A step "equals" the previous expression on the domain, or (equations) is "equivalent" to
it (its residual is the previous one times a multiplier that never vanishes) or is
"implied" by it (the multiplier may vanish, as in squaring).  Numerically, what the
relation means is also tested on solutions of the previous equation found by root
finding: where it holds, the next one must hold too (and conversely for "equivalent").
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ..backends.evaluate import real_value
from ..backends.numeric import (SCREEN_MARGIN, Evaluator, NumericOutcome, Undefined, check_equal, fmt,
                                noise, point_repr, residual_of, sample_points, tol, undefined_cx)
from ..backends.sampling import contains, end_value, in_interval
from ..backends.symbolic import (CERTIFIED, PROVED, ProofOutcome, assume, facts_with_ends, prove_sign, short, weakest,
                                 zero_by_then_ends)
from ..model.domain import Domain
from .base import Kind, exactly_nonzero, point_target, start_point


class ChainKind(Kind):
    name = "chain"
    def mutants(self, claim):
        """A mistake in one displayed line of the derivation (every line but the first,
        which is the statement's starting point)."""
        from dataclasses import replace
        from ..mutation import domain_groups, field_mutants
        groups = domain_groups(claim)
        out = []
        for i, step in enumerate(claim.steps):
            if i == 0:
                continue

            def rebuild(new, i=i, step=step):
                steps = list(claim.steps)
                steps[i] = replace(step, expr=new)
                return replace(claim, steps=steps)
            out += field_mutants(claim, f"step{i}", step.expr, groups, rebuild)
        return out

    cost = 4

    def spot_check(self, claim, settings, rng, screen=False):
        """Each step against the previous one at the claim's points.  Inconclusive when a
        step is (every point of its comparison unstable across precisions): the chain is
        then not *checked*, whatever the other steps say."""
        pts = sample_points(claim.domain, settings, rng)
        verdicts, screened, unresolved, stuck = [], 0, 0, None
        for i in range(1, len(claim.steps)):
            cur = claim.steps[i]
            ev = _step_evaluator(claim, i, settings, screen)
            if cur.relation == "equals":
                out = check_equal(ev, "step", "previous", pts)
            else:
                out = check_equal(ev, "step", "previous", pts, mult="multiplier")
            # every decision taken in doubles is counted: with none the engine takes this
            # pass for the full mpmath check and skips its cross-check
            screened += out.evidence.get("screened_in_floats", 0)
            unresolved += out.evidence.get("unresolved_points", 0)
            if cur.relation != "equals":
                if out.verdict == "consistent" and cur.relation == "equivalent":
                    cx, cleared = _check_nonzero(ev, "multiplier", pts)
                    screened += cleared
                    out = cx or out
                # what the relation means: where the previous equation holds, this one holds
                # (and conversely for "equivalent"); tested on solutions found numerically
                if out.verdict == "consistent":
                    out = _check_on_solutions(ev, claim.domain, "previous", "step", pts, rng) or out
                if out.verdict == "consistent" and cur.relation == "equivalent":
                    out = _check_on_solutions(ev, claim.domain, "step", "previous", pts, rng) or out
            verdicts.append(out.verdict)
            if out.verdict == "counterexample":
                out.step = i + 1
                out.counterexample["failing step"] = i + 1
                out.step_verdicts = verdicts
                return out
            if out.verdict == "inconclusive" and stuck is None:
                stuck = {"step": i + 1, "explanation": f"step {i + 1} left unresolved at every point "
                                                       "(unstable across precisions)"}
        evidence = {"points": len(pts), "digits": settings.precision, "steps": len(claim.steps),
                    "unresolved_points": unresolved}
        if screen:
            evidence["screened_in_floats"] = screened
        if stuck is not None:
            evidence["inconclusive_at"] = stuck
            return NumericOutcome("inconclusive", evidence, step_verdicts=verdicts)
        return NumericOutcome("consistent", evidence, step_verdicts=verdicts)

    def shrink_target(self, claim, settings, cx, outcome):
        """The failing step re-checked at other points: its values (or multiplier) at the
        point; for "does not follow", the other coordinates move and the solved one is
        found again on the given equation's solution set."""
        from ..backends.shrink import Coordinate, Target
        i = (cx.get("failing step") or 0) - 1
        if i < 1 or i >= len(claim.steps):
            return None
        syms = claim.domain.symbols()
        cur = claim.steps[i]
        ev = _step_evaluator(claim, i, settings, False)
        typ = cx.get("type")
        start = start_point(cx, outcome, syms)
        if start is None:
            return None
        if typ == "does not follow":
            w = outcome.witness if outcome is not None else None
            if not w or "solved" not in w:
                return None
            solved, given, then = w["solved"], w["given"], w["then"]

            def check(pt):
                found = _solution_cx(ev, claim.domain, given, then, pt, solved)
                return {**found, "failing step": i + 1} if found is not None else None
            coords = [Coordinate(s_, (("point", str(s_)),), claim.domain.sets[s_], start[s_])
                      for s_ in syms if s_ != solved]
            high = 2 * settings.precision + 10
            return Target(coords, check, None, None,
                          f"{given} residual below 10^-{(2 * settings.precision) // 3} and {then} residual above "
                          f"10^-{settings.precision // 3} at {high} digits, {solved} found again by root finding",
                          dps=2 * high + 20, fixed={solved: start[solved]})
        mult = "multiplier" if cur.relation != "equals" else None

        def check(pt):
            if typ == "multiplier vanishes":
                out = _check_nonzero(ev, "multiplier", [pt])[0]
            else:
                out = check_equal(ev, "step", "previous", [pt], mult=mult)
                if out.verdict != "counterexample" and typ == "undefined" and mult is not None:
                    out = _check_nonzero(ev, "multiplier", [pt])[0]
            if out is None or out.verdict != "counterexample":
                return None
            return {**out.counterexample, "failing step": i + 1}

        def exactly(point):
            if typ == "multiplier vanishes":
                return None
            prev, step = (ev.exprs["previous"], ev.exprs["step"])
            d = step - (ev.exprs["multiplier"] * prev if mult else prev)
            return exactly_nonzero(d)(point)
        high = 2 * settings.precision + 10
        how = (f"zero at {high}, {2 * high} and {4 * high} digits (shrinking as rounding does)"
               if typ == "multiplier vanishes" else None)
        return point_target(claim.domain, syms, start, check, exactly, settings, how)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        ends = facts_with_ends(claim.domain, rep)

        def sign(e, want, at):
            # with the intervals' ends as a second try: pi (1 - pi) is non-zero only knowing pi < 1
            return prove_sign(e, want, facts, ctx.trace, at=at) or ends is not None and prove_sign(
                e, want, ends, ctx.trace, at=at + ", with the ends")

        statuses, evidence = [], []
        for i in range(1, len(claim.steps)):
            prev, cur = claim.steps[i - 1], claim.steps[i]
            p, c = residual_of(prev.expr).xreplace(rep), residual_of(cur.expr).xreplace(rep)
            if cur.relation == "equals":
                how, res = zero_by_then_ends(c - p, facts, claim.domain, rep, ctx.trace, at=f"step {i + 1}")
                ok = PROVED if how else None
                note = {"step": i + 1, "strategy": how, "residual": "0" if how else short(res)}
            else:
                m = cur.multiply_by
                m = sp.cancel(c / p) if m is None else sp.sympify(m).xreplace(rep)
                how, res = zero_by_then_ends(c - m * p, facts, claim.domain, rep, ctx.trace, at=f"step {i + 1}")
                ok = PROVED if how else None
                # residual = m * previous shows "previous = 0 => this = 0" only where m is
                # finite: a denominator vanishing on the previous equation's solutions
                # (m = (x**2 + 1)/(x - 1) for x = 1) would make any step "follow"
                den = sp.denom(sp.together(m))
                if ok and den.free_symbols and not (sign(den, "positive", f"step {i + 1} poles")
                                                    or sign(den, "negative", f"step {i + 1} poles")):
                    ok = None
                    how = None
                    note_den = f"the multiplier's denominator {short(den)} is not shown non-zero"
                else:
                    note_den = None
                note = {"step": i + 1, "strategy": how, "multiplier": short(m),
                        "residual": "0" if how else short(res)}
                if note_den:
                    note["multiplier_poles"] = note_den
                if ok and cur.relation == "equivalent":
                    nz = sign(m, "nonzero", f"step {i + 1} multiplier")
                    note["multiplier_nonzero"] = bool(nz)
                    # the multiplier's sign is an inequality over the domain: certified level
                    ok = CERTIFIED if nz and m.free_symbols else (PROVED if nz else None)
            statuses.append(ok)
            evidence.append(note)
        status = weakest(statuses)
        return ProofOutcome(status, "sympy, step by step", {"steps": evidence}, step_statuses=statuses)

    def steps(self, claim, proof, numeric):
        out = []
        for i, step in enumerate(claim.steps):
            entry = {"step": i + 1, "latex": claim.latex(step.expr), "because": step.because,
                     "relation": step.relation if i else "start"}
            if i:
                s = proof.step_statuses[i - 1] if proof.step_statuses else None
                nv = numeric.step_verdicts[i - 1] if numeric.step_verdicts and i - 1 < len(
                    numeric.step_verdicts) else None
                if nv == "counterexample":
                    entry["status"] = "refuted"
                elif s is not None:
                    entry["status"] = s
                elif nv == "consistent":
                    entry["status"] = "checked"
                else:
                    entry["status"] = "not-reached" if numeric.step and i + 1 > numeric.step else "undecided"
            out.append(entry)
        return out


def _check_on_solutions(ev, domain: Domain, given: str, then: str, pts, rng, tries: int = 20):
    """At points where equation `given` holds (found by root-finding in one symbol),
    equation `then` must hold too.  Returns a counterexample outcome or None."""
    syms = ev.symbols
    movable = [s_ for s_ in syms if isinstance(domain.sets.get(s_), sp.Interval)
               and ev.exprs[given].has(s_)]
    if not movable:
        return None
    for pt in pts[:tries]:
        s_ = rng.choice(movable)
        root = _solve_in(ev, given, pt, s_)
        if root is None:
            continue  # no solution found from here
        cx = _follows_cx(ev, domain, given, then, pt, s_, root)
        if cx is not None:
            return NumericOutcome("counterexample", {}, cx,
                                  witness={"point": {**pt, s_: root}, "solved": s_, "given": given, "then": then})
    return None


def _step_evaluator(claim, i, settings, screen):
    """The evaluator of step i (0-based) against the previous one: both expressions (an
    equation = equation step: both residuals), and for implies/equivalent the multiplier."""
    syms = claim.domain.symbols()
    prev, cur = claim.steps[i - 1], claim.steps[i]
    if cur.relation == "equals":
        exprs = {"previous": prev.expr, "step": cur.expr}
        if isinstance(cur.expr, sp.Equality):  # equation = equation: both sides equal
            exprs = {"previous": prev.expr.lhs - prev.expr.rhs, "step": cur.expr.lhs - cur.expr.rhs}
        return Evaluator(syms, exprs, settings.precision, screen=screen, domain=claim.domain)
    mult = cur.multiply_by if cur.multiply_by is not None else sp.cancel(
        residual_of(cur.expr) / residual_of(prev.expr))
    return Evaluator(syms, {"previous": residual_of(prev.expr), "step": residual_of(cur.expr), "multiplier": mult},
                     settings.precision, screen=screen, domain=claim.domain)


def _solve_in(ev, given, pt, s_, dps=None):
    """A solution in s_ of equation `given` found by root finding from pt, or None."""
    dps = dps or ev.precision + 10

    def g(t):
        q = dict(pt)
        q[s_] = t
        return ev.at(given, q, dps)
    try:
        with mpmath.workdps(dps):
            root = mpmath.findroot(g, pt[s_], tol=mpmath.mpf(10) ** (-(dps - 5)))
        return real_value(root, "root")
    except (Undefined, ValueError, ZeroDivisionError, TypeError):
        return None


def _solution_cx(ev, domain, given, then, pt, s_):
    """From pt, the solution of equation `given` in s_ found by root finding, and there the
    counterexample when `then` does not hold (None: no solution found, or it holds)."""
    root = _solve_in(ev, given, pt, s_)
    return None if root is None else _follows_cx(ev, domain, given, then, pt, s_, root)


def _follows_cx(ev, domain, given, then, pt, s_, root):
    q = dict(pt)
    q[s_] = root
    if not in_interval(root, domain.sets[s_]) or not contains(domain, q, ev.precision):
        return None
    # a root of the domain, not a residual that only tends to 0 towards an excluded end
    # (x (1 - x)(x - c) at x = 1 - 1e-40): found again from it with twice the digits, a
    # true root stays where it is, such a point runs off towards the end; and a root within
    # 10^(-p/2) of an excluded end is not told from one (no counterexample is better than a
    # false one: the claim is then only not refuted there)
    near = mpmath.mpf(10) ** (-ev.precision // 2)
    again = _solve_in(ev, given, q, s_, 2 * ev.high)
    st = domain.sets[s_]
    if again is None or not in_interval(again, st) or abs(again - root) > near * max(1, abs(root)):
        return None
    for end, open_ in ((st.start, st.left_open), (st.end, st.right_open)):
        if open_ and end.is_finite and abs(again - end_value(end)) <= near * max(1, abs(float(end))):
            return None
    q[s_] = again
    try:
        gv = ev.at(given, q, ev.high)
        tv = ev.at(then, q, ev.high)
    except Undefined:
        return None
    # given holds to 2p/3 digits while `then` is clearly non-zero (above 10^(-p/3))
    if abs(gv) < tol(ev.precision) and abs(tv) > mpmath.mpf(10) ** (-ev.precision // 3):
        return {"type": "does not follow", "point": point_repr(ev.symbols, q),
                f"{given} residual": fmt(gv, 6), f"{then} residual": fmt(tv),
                "explanation": f"the {given} equation holds here but the {then} one does not"}
    return None


def _check_nonzero(ev, name, pts):
    """Does ev[name] (an "equivalent" step's multiplier) vanish at one of the points?
    Returns (a counterexample outcome or None, how many points doubles cleared).

    A point is cleared in doubles by a wide margin, or in mpmath when the value at the
    working precision already agrees with the one at ev.high (a value, not rounding).  Only
    the rest is judged by `_vanishes`, relative to the size of the multiplier's terms and
    at two precisions, so a tiny but genuine value (exp(-190)) is never called zero."""
    screened = 0
    for pt in pts:
        if ev.screen:
            fv = ev.float_at(name, pt)
            if fv is not None and abs(fv) > SCREEN_MARGIN:
                screened += 1
                continue  # clearly non-zero in doubles
        try:
            v = ev.at(name, pt, ev.precision)
            vh = ev.at(name, pt, ev.high)
        except Undefined as exc:
            return NumericOutcome("counterexample", {}, undefined_cx(ev.symbols, pt, exc)), screened
        if vh != 0 and abs(v - vh) <= noise(ev.precision) * abs(vh):
            continue  # resolved at the working precision: non-zero
        if _vanishes(ev, name, pt, vh):
            return NumericOutcome("counterexample", {"points": len(pts)}, {
                "type": "multiplier vanishes", "point": point_repr(ev.symbols, pt),
                "multiplier": fmt(vh),
                "explanation": "an 'equivalent' step multiplied the equation by zero here"}), screened
    return None, screened


def _vanishes(ev, name, pt, vh):
    """Is ev[name] zero at pt, its value being vh at ev.high?  Zero means: exactly 0 at
    ev.high and at twice its digits, or shrinking with the digits as rounding does, by a
    factor of 100 or more from ev.high to twice it and again to four times it.  A real value,
    however small (exp(-190), (1 + 1e-100) - 1), is kept by more digits: once the digits
    resolve it, it stops shrinking.  Not a comparison with the size of its terms: a
    multiplier of one term (sin(pi x) at x = 1) has no other size.  A point it cannot judge
    (undefined there) is not a counterexample."""
    try:
        v2 = ev.at(name, pt, 2 * ev.high)
        if vh == 0 and v2 == 0:
            return True
        if not abs(v2) < abs(vh) / 100:
            return False
        v4 = ev.at(name, pt, 4 * ev.high)
    except Undefined:
        return False
    return abs(v4) < abs(v2) / 100


KIND = ChainKind()
