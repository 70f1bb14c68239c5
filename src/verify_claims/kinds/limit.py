"""Limit: expr -> value as var -> point (from the right '+', the left '-', or both).

Falsified along an approach ladder (x = point +- 10^-k, or 10^k towards infinity) at
parameter points in the interior of the domain, with enough digits for the ladder.
Proved by sympy.limit when it agrees exactly with the claimed value (and, with a declared
``rate`` c, when sympy.limit also gives var (expr - value) -> c); a sympy.limit that
disagrees with the numbers leaves the claim undecided (neither is trusted alone).

A limit of a sum whose number of terms grows with the variable (a symbolic group size G,
var -> oo) has no sound method here.  It is checked by **ladder+asymptotics**
(``backends/ladder.py``): at a few seeded parameter points S_G is enclosed in arb balls
for G = 10, 100, ..., 10^6 (as far as the term budget goes), S_G - S_inf must tend to 0
and, with a declared rate c (S_G = S_inf + c/G + o(1/G), the second-order term of a
Voronovskaya-type expansion), G (S_G - S_inf) must settle on c.  A ladder that has
clearly settled elsewhere refutes the claim (the counterexample prints the ladder); one
that has not settled is inconclusive, never a counterexample.  The status it supports is
*checked*, never proved or certified.  A claim the ball compiler cannot take keeps the
mpmath approach ladder.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ..backends import ladder as balls
from ..backends.numeric import Evaluator, NumericOutcome, Undefined, fmt, point_repr, sample_points, undefined_cx
from ..backends.symbolic import PROVED, ProofOutcome, assume, short, zero_by
from ..engine.goals import Certificate
from .base import Kind, derived, point_target, start_point

LADDER_METHOD = "ladder+asymptotics"
LADDER_POINTS = 4  # seeded parameter points of a ladder+asymptotics check


class LimitKind(Kind):
    name = "limit"
    mutable_fields = ("expr", "value", "rate")
    cost = 1
    inequality_like = True

    def spot_check(self, claim, settings, rng, screen=False):
        program = ladder_program(claim)
        if program is not None:
            return _ladder_check(claim, program, settings, rng, screen)
        # an approach ladder needs many digits (x = 1e-24 beside 1): always mpmath
        syms = claim.domain.symbols()
        x = claim.var
        allsyms = syms + (x,)
        has_sum = claim.expr.has(sp.Sum)
        ev = Evaluator(allsyms, {"f": claim.expr, "value": claim.value}, settings.precision)
        point = sp.sympify(claim.point)
        ladder = _ladder(claim)
        directions = ["+", "-"] if claim.direction == "+-" else [claim.direction]
        if point.is_infinite:  # there is only one way to approach +-oo
            directions = ["-" if point is sp.oo else "+"]
        n = min(settings.samples, 8 if has_sum else 30)
        # a limit is pointwise in the parameters: a parameter pressed to 1e-20 (x**a with
        # a = 1e-20) converges far beyond any ladder, so parameters stay in the interior
        pts = sample_points(claim.domain, settings, rng, n, edges=False) if syms else [{}]
        base_dps = _base_dps(settings, ladder)
        worst = None
        for pt in pts:
            for dirn in directions:
                verdict, why, vals = _judged(ev, claim, pt, dirn, ladder, base_dps)
                if verdict == "undefined":
                    return NumericOutcome("counterexample", {"points": len(pts)}, why,
                                          witness={"point": pt, "direction": dirn})
                if verdict == "counterexample":
                    return NumericOutcome("counterexample", {"points": len(pts)},
                                          _differs_cx(claim, syms, pt, dirn, vals, why),
                                          witness={"point": pt, "direction": dirn})
                if verdict == "inconclusive":
                    worst = {"point": point_repr(syms, pt), "direction": dirn, "explanation": why,
                             "approach": [{str(x): fmt(xv, 8), "f": fmt(fv)} for xv, fv in vals]}
        # the digits the ladder is evaluated with (a counterexample is confirmed at twice that)
        evidence = {"points": len(pts), "ladder": [fmt(v, 4) for v in ladder], "digits": base_dps}
        if screen:
            evidence["screened_in_floats"] = 0  # an approach ladder is never decided in doubles
        if worst is not None:
            evidence["inconclusive_at"] = worst
            return NumericOutcome("inconclusive", evidence)
        return NumericOutcome("consistent", evidence)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        expr = claim.expr.xreplace(rep)
        value = sp.sympify(claim.value).xreplace(rep)
        results = {}
        dirs = ["+", "-"] if claim.direction == "+-" and not sp.sympify(claim.point).is_infinite else [
            claim.direction if not sp.sympify(claim.point).is_infinite else "+"]
        for d in dirs:
            try:
                if sp.sympify(claim.point).is_infinite:
                    L = sp.limit(expr, claim.var, claim.point)
                else:
                    L = sp.limit(expr, claim.var, claim.point, dir=d)
            except Exception as exc:  # noqa: BLE001 - sympy could not: not established
                return ProofOutcome(None, "sympy.limit", {"error": short(exc)})
            if isinstance(L, sp.Limit) or L.has(sp.Limit) or L is sp.nan or isinstance(L, sp.AccumBounds):
                return ProofOutcome(None, "sympy.limit", {"limit": short(L)})
            results[d] = L
            if value.is_infinite or L.is_infinite:
                same = L == value
            else:
                same = zero_by(L - value, facts, ctx.trace, at=f"limit {d} - value")[0] is not None
            if not same:
                return ProofOutcome(None, "sympy.limit", {"limit": short(L)},
                                    disagrees=f"sympy.limit gives {short(L)}")
        evidence = {"limit": {k: short(v) for k, v in results.items()}}
        if claim.rate is not None:  # the declared rate is claimed too: var (expr - value) -> rate
            rate = sp.sympify(claim.rate).xreplace(rep)
            try:
                R = sp.limit(claim.var * (expr - value), claim.var, sp.oo)
            except Exception as exc:  # noqa: BLE001
                return ProofOutcome(None, "sympy.limit", {**evidence, "rate": short(exc)})
            if isinstance(R, sp.Limit) or R.has(sp.Limit) or R is sp.nan or isinstance(R, sp.AccumBounds) \
                    or R.is_infinite or zero_by(R - rate, facts, ctx.trace, at="rate - declared")[0] is None:
                return ProofOutcome(None, "sympy.limit", {**evidence, "rate": short(R)})
            evidence["rate"] = short(R)
        return ProofOutcome(PROVED, "sympy.limit", evidence)


    def shrink_target(self, claim, settings, cx, outcome):
        """The parameters (inside their intervals: a limit is pointwise in them, and a
        parameter at an end converges beyond any ladder), with the same direction."""
        syms = claim.domain.symbols()
        program = ladder_program(claim)
        if program is not None:
            return _ladder_shrink_target(claim, program, syms, settings, cx, outcome)
        if not syms or cx.get("type") not in ("limit differs", "undefined"):
            return None
        w = outcome.witness if outcome is not None else None
        dirn = (w or {}).get("direction") or cx.get("direction")
        if dirn is None:
            return None
        ev = Evaluator(syms + (claim.var,), {"f": claim.expr, "value": claim.value}, settings.precision)
        ladder = _ladder(claim)
        base_dps = _base_dps(settings, ladder)

        def check(pt):
            verdict, why, vals = _judged(ev, claim, pt, dirn, ladder, base_dps)
            if verdict == "undefined":
                return why
            if verdict == "counterexample":
                return _differs_cx(claim, syms, pt, dirn, vals, why)
            return None
        how = f"along the approach ladder at {base_dps} and {2 * base_dps} digits"
        return point_target(claim.domain, syms, start_point(cx, outcome, syms), check, None, settings, how,
                            interior=True)

    # ------------------------------------------------------------------ limits (reason only)

    def certify(self, claim, ctx, proof, numeric, budget):
        # no certification method handles limits: only the reason is recorded
        return Certificate("undecided", reason=limit_reason(claim, proof.evidence, numeric.evidence))


# ------------------------------------------------------------------ ladder+asymptotics
def _sums_over(claim) -> list:
    x = claim.var
    return [s for s in sp.sympify(claim.expr).atoms(sp.Sum)
            if any(sp.sympify(b).has(x) for lim in s.limits for b in lim[1:])]


def ladder_program(claim):
    """The ball program of a limit checked by ladder+asymptotics: var -> oo with a finite
    value, and a sum whose number of terms grows with var (or a declared rate); None when
    the method does not apply or the expressions have no ball enclosure here."""
    def build():
        if sp.sympify(claim.point) is not sp.oo or sp.sympify(claim.value).is_infinite:
            return None
        if claim.rate is None and not _sums_over(claim):
            return None
        try:
            return balls.Program(claim.expr, claim.var, claim.value, claim.rate)
        except balls.NotSupported:
            return None
    return derived(claim, "ladder-program", build)


def _ladder_points(claim, settings, rng):
    syms = claim.domain.symbols()
    # a limit is pointwise in the parameters: they stay in the interior (see spot_check)
    return sample_points(claim.domain, settings, rng, min(settings.samples, LADDER_POINTS), edges=False) \
        if syms else [{}]


def _ladder_rows(run, var, digits=10) -> list:
    rows = []
    for r in run.rungs:
        gap = r.S - run.limit
        row = {str(var): balls.g_str(r.G), "sum": balls.ball_str(r.S, 12), "sum - limit": balls.ball_str(gap, 8),
               f"{var} (sum - limit)": balls.ball_str(r.G * gap, digits)}
        if run.rate is not None:
            row[f"{var} (sum - limit) - c"] = balls.ball_str(r.G * gap - run.rate, 4)
        rows.append(row)
    return rows


def _ladder_at(program, pt, var, allsyms, ev_claim):
    """The ladder at one point, and, when a value could not be enclosed at a small G,
    whether mpmath finds the claim undefined there (then that is the counterexample)."""
    run = program.run(pt)
    if run.failed_at is not None and run.failed_at <= 1024:
        ev = Evaluator(allsyms, {"f": ev_claim.expr, "value": ev_claim.value}, 30)
        p = dict(pt)
        p[var] = mpmath.mpf(run.failed_at)
        try:
            ev.at("f", p, 60)
            ev.at("value", p, 60)
        except Undefined as exc:
            return run, undefined_cx(allsyms, p, exc)
    return run, None


def _ladder_verdict(claim, program, pt, syms):
    """(NumericOutcome verdict, Verdict, run, counterexample or None) at one point."""
    x = claim.var
    run, undefined = _ladder_at(program, pt, x, syms + (x,), claim)
    if undefined is not None:
        return "counterexample", None, run, undefined
    v = balls.judge(run, str(x))
    if v.verdict != "counterexample":
        return v.verdict, v, run, None
    cx = {"type": v.kind, "point": point_repr(syms, pt), "ladder": _ladder_rows(run, x),
          "claimed": str(claim.value), "claimed at the point": balls.ball_str(run.limit, 12)}
    if claim.rate is not None:
        cx["claimed coefficient"] = str(claim.rate)
        cx["claimed coefficient at the point"] = balls.ball_str(run.rate, 12)
    cx["explanation"] = v.why
    cx["method"] = (f"{LADDER_METHOD}: S_{x} enclosed in arb balls ({balls.PREC} bits) for {x} = "
                    + ", ".join(balls.g_str(r.G) for r in run.rungs) + (f"; {run.stopped}" if run.stopped else ""))
    return "counterexample", v, run, cx


def _ladder_check(claim, program, settings, rng, screen):
    syms = claim.domain.symbols()
    x = claim.var
    pts = _ladder_points(claim, settings, rng)
    evidence = {"method": LADDER_METHOD, "points": len(pts), "group_sizes": "", "precision_bits": balls.PREC,
                "coefficient": (f"c = {claim.rate} (declared: S_{x} = S_inf + c/{x} + o(1/{x}))"
                                if claim.rate is not None else
                                f"none declared: only S_{x} -> S_inf is checked, {x} (S_{x} - S_inf) is shown"),
                "criterion": (f"rungs 10x apart; settled when the last step is at most {balls.SETTLE} of the step "
                              f"before; a mismatch refutes only when settled and beyond {balls.MARGIN} x the last "
                              f"step at both of the two largest {x} (a floor of {balls.VALUE_FLOOR:g} resp. "
                              f"{balls.RATE_FLOOR:g} relative); not settled is inconclusive"),
                "budget": f"{balls.TERMS} terms per point (CPU safety net {balls.SECONDS:g} s)"}
    reached = None
    worst = None
    for i, pt in enumerate(pts, 1):
        verdict, v, run, cx = _ladder_verdict(claim, program, pt, syms)
        if verdict == "counterexample":
            return NumericOutcome("counterexample", {"points": len(pts), "method": LADDER_METHOD}, cx,
                                  witness={"point": pt}, method=LADDER_METHOD)
        tops = [r.G for r in run.rungs]
        reached = tops if reached is None or len(tops) < len(reached) else reached
        rec = {"at": ", ".join(f"{k} = {val}" for k, val in point_repr(syms, pt).items()) or "(no parameters)",
               f"{x}": ", ".join(balls.g_str(G) for G in tops),
               "gap": ", ".join(balls.ball_str(r.S - run.limit, 6) for r in run.rungs),
               "scaled_gap": ", ".join(balls.ball_str(r.G * (r.S - run.limit), 10) for r in run.rungs)}
        if run.rate is not None:
            rec["coefficient_here"] = balls.ball_str(run.rate, 10)
        rec["verdict"] = v.why
        if run.stopped:
            rec["stopped"] = run.stopped
        evidence[f"ladder_{i}"] = rec
        if verdict == "inconclusive" and worst is None:
            worst = {"point": point_repr(syms, pt), "explanation": v.why}
    evidence["group_sizes"] = ", ".join(balls.g_str(G) for G in reached or [])
    if screen:
        evidence["screened_in_floats"] = 0  # a ladder is never decided in doubles: the screen is the check
    if worst is not None:
        evidence["inconclusive_at"] = worst
        return NumericOutcome("inconclusive", evidence, method=LADDER_METHOD)
    return NumericOutcome("consistent", evidence, method=LADDER_METHOD)


def _ladder_shrink_target(claim, program, syms, settings, cx, outcome):
    """Shrinking a ladder counterexample: the parameters (interior, as for every limit), each
    candidate judged by the same ladder and the same rule (the same kind of mismatch)."""
    if not syms or cx.get("type") not in ("limit differs", "rate differs", "undefined"):
        return None

    def check(pt):
        verdict, _, _, found = _ladder_verdict(claim, program, pt, syms)
        return found if verdict == "counterexample" else None
    how = (f"by the same ladder ({balls.PREC}-bit arb balls, {claim.var} = 10 .. 10^6 within the term budget) "
           "and the same settling rule")
    return point_target(claim.domain, syms, start_point(cx, outcome, syms), check, None, settings, how,
                        interior=True)


def _ladder(claim) -> list:
    """The approach ladder: x = point +- 10^-k, or 10^k towards infinity (denser and
    shorter for a Sum whose direct summation costs O(x))."""
    if sp.sympify(claim.point).is_infinite and claim.expr.has(sp.Sum):
        return [mpmath.log10(v) for v in (16, 64, 256, 1024)]
    return [2, 4, 8, 16, 24]


def _base_dps(settings, ladder) -> int:
    # approaching 0 or oo by 10^k while parameters sit 1e-20 from their own ends can
    # cancel ~2k + 20 digits; the working precision grows with the ladder for that
    return settings.precision + 2 * int(max(ladder)) + 30


def _judged(ev, claim, pt, dirn, ladder, base_dps):
    """The ladder's verdict at a parameter point; a counterexample is confirmed with twice
    the digits before it is believed."""
    x, point = claim.var, sp.sympify(claim.point)
    integer_var = bool(x.is_integer)
    infinite_value = sp.sympify(claim.value).is_infinite
    allsyms = ev.symbols
    verdict, why, vals = _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var, infinite_value, claim.value,
                                       base_dps, allsyms)
    if verdict == "counterexample":  # confirm with twice the digits before reporting
        verdict, why, vals = _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var, infinite_value,
                                           claim.value, 2 * base_dps, allsyms)
    return verdict, why, vals


def _differs_cx(claim, syms, pt, dirn, vals, why) -> dict:
    x = claim.var
    return {"type": "limit differs", "point": point_repr(syms, pt), "direction": dirn,
            "approach": [{str(x): fmt(xv, 8), "f": fmt(fv)} for xv, fv in vals],
            "claimed": str(claim.value), "explanation": why}


def _approach(point, direction, k, dps):
    with mpmath.workdps(dps):
        if point is sp.oo:
            return mpmath.mpf(10) ** k
        if point is -sp.oo:
            return -mpmath.mpf(10) ** k
        a = mpmath.mpf(sp.Float(point, dps))
        h = mpmath.mpf(10) ** (-k)
        return a + h if direction == "+" else a - h


def _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var, infinite_value, value, dps, allsyms):
    errs, vals = [], []
    for k in ladder:
        xv = _approach(point, dirn, k, dps)
        if integer_var:
            xv = mpmath.mpf(int(mpmath.nint(xv)))
        p = dict(pt)
        p[x] = xv
        try:
            fv = ev.at("f", p, dps)
            lv = None if infinite_value else ev.at("value", p, dps)
        except Undefined as exc:
            return "undefined", undefined_cx(allsyms, p, exc), vals
        vals.append((xv, fv))
        if not infinite_value:
            with mpmath.workdps(dps):
                errs.append(abs(fv - lv) / max(mpmath.mpf(1), abs(lv)))
    verdict, why = _judge_limit(errs, vals, value if infinite_value else None)
    return verdict, why, vals


def _judge_limit(errs, vals, infinite_value):
    """Decide from the errors |f(x_k) - L| along an approach ladder."""
    if infinite_value is not None:
        sign = 1 if infinite_value is sp.oo else -1
        fs = [sign * fv for _, fv in vals]
        if fs[-1] > 1e6 * max(1, abs(fs[0])) and all(b >= a for a, b in zip(fs, fs[1:])):
            return "consistent", ""
        if fs[-1] <= fs[-2] or fs[-1] < max(1, abs(fs[0])):
            return "counterexample", f"f does not grow towards {infinite_value}"
        return "inconclusive", "f grows, but not clearly without bound"
    last, first = errs[-1], errs[0]
    if last < 1e-12:
        return "consistent", ""
    decreasing = all(b <= a * 1.0000001 for a, b in zip(errs, errs[1:]))
    if decreasing and last <= first / 30:
        return "consistent", ""
    # converged elsewhere: the last two errors agree and are large
    if last > 1e-4 and abs(errs[-1] - errs[-2]) <= 0.1 * last:
        return "counterexample", f"f settles at a distance {fmt(last, 4)} (relative) from the claimed limit"
    if last > 1e-4 and not decreasing:
        return "counterexample", "the error does not decrease along the approach"
    return "inconclusive", "the error decreases, but too slowly to decide"


def limit_reason(claim, symbolic_evidence: dict, numeric_evidence: dict) -> str:
    """One line: why a limit that sympy.limit did not establish stays checked.  No
    certification method here handles limits; a limit of a sum whose number of terms
    grows with the limit variable (a symbolic group size G) would need a proof by another
    route (dominated convergence / a CLT argument), which this engine does not attempt."""
    x = claim.var
    if numeric_evidence.get("method") == LADDER_METHOD:
        sizes = numeric_evidence.get("group_sizes") or "none"
        shown = ("and {x} (S_{x} - S_inf) settles on the declared 1/{x} coefficient" if claim.rate is not None
                 else "(no 1/{x} coefficient declared)").format(x=x)
        what = (f"limit of a sum over a symbolic group size {x}" if _sums_over(claim)
                else f"limit in {x} with a declared 1/{x} coefficient")
        head = (f"{what}: no sound method here (sympy.limit did not establish it); "
                f"{LADDER_METHOD}: S_{x} enclosed in arb balls for {x} = {sizes} at "
                f"{numeric_evidence.get('points', '?')} points")
        stuck = (numeric_evidence.get("inconclusive_at") or {}).get("explanation")
        if stuck:
            return f"{head}, but the ladder did not settle: {short(stuck, 160)}"
        return f"{head}, S_{x} - S_inf tends to 0 {shown}: evidence, not a proof"
    ladder = []
    for v in numeric_evidence.get("ladder", []) or []:
        try:
            ladder.append(10 ** float(v))
        except (TypeError, ValueError):
            pass
    top = max(ladder) if ladder else None
    if top is not None:  # the ladder is reported as rounded log10 values: 3.01 is 2^10
        import math
        p2 = 2 ** round(math.log2(top))
        top = p2 if abs(top - p2) <= 0.01 * p2 else round(top)
    reach = f" up to {x} = {top:d}" if top is not None else ""
    sums = [s for s in sp.sympify(claim.expr).atoms(sp.Sum)
            if any(sp.sympify(b).has(x) for lim in s.limits for b in lim[1:])]
    if sums:
        return (f"limit of a sum over a symbolic group size {x}: no sound method here (sympy.limit cannot "
                f"take it); checked by a summation ladder{reach}")
    why = symbolic_evidence.get("limit") or symbolic_evidence.get("error") or symbolic_evidence.get("stopped") \
        or "not established"
    return f"limit: sympy.limit did not establish it ({short(why, 100)}); checked numerically{reach}"


KIND = LimitKind()
