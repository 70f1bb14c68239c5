"""Limit: expr -> value as var -> point (from the right '+', the left '-', or both).

Falsified along an approach ladder (x = point +- 10^-k, or 10^k towards infinity) at
parameter points in the interior of the domain, with enough digits for the ladder.
Proved by sympy.limit when it agrees exactly with the claimed value; a sympy.limit that
disagrees with the numbers leaves the claim undecided (neither is trusted alone).  A
limit of a sum whose number of terms grows with the variable (a symbolic group size G)
has no sound method here: it stays checked, with the reason.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ..backends.numeric import Evaluator, NumericOutcome, Undefined, fmt, point_repr, sample_points, undefined_cx
from ..backends.symbolic import PROVED, ProofOutcome, assume, short, zero_by
from ..engine.goals import Certificate
from .base import Kind, point_target, start_point


class LimitKind(Kind):
    name = "limit"
    mutable_fields = ("expr", "value")
    cost = 1
    inequality_like = True

    def spot_check(self, claim, settings, rng, screen=False):
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
        evidence = {"points": len(pts), "ladder": [fmt(v, 4) for v in ladder], "digits": settings.precision}
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
        return ProofOutcome(PROVED, "sympy.limit", {"limit": {k: short(v) for k, v in results.items()}})


    def shrink_target(self, claim, settings, cx, outcome):
        """The parameters (inside their intervals: a limit is pointwise in them, and a
        parameter at an end converges beyond any ladder), with the same direction."""
        syms = claim.domain.symbols()
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
