"""Stationary: the gradient of an objective vanishes at a point (``frozen`` substitutions
applied after differentiating; on the simplex, equal partial derivatives: the Lagrange
condition).  Falsified at the seeded points; proved when every residual is exactly 0."""

from __future__ import annotations

import mpmath

from ..backends.numeric import (SCREEN_EQUAL, Evaluator, NumericOutcome, Undefined, fmt, point_repr, sample_points,
                                tol, undefined_cx, vanishing_guarded)
from ..backends.symbolic import PROVED, ProofOutcome, assume, short, zero_by_then_ends
from ..model.claims import substitute
from ..backends.shrink import exact_sign
from .base import Kind, derived, objective_gradient, point_target, start_point


class StationaryKind(Kind):
    name = "stationarity"
    mutable_fields = ("objective",)
    sign_free = ("objective",)

    def mutants(self, claim):
        from ..mutation import at_mutants
        return super().mutants(claim) + at_mutants(claim)

    def equivalence_forms(self, claim, field, expr):
        return objective_gradient(claim, field, expr)

    cost = 2

    def spot_check(self, claim, settings, rng, screen=False):
        syms = claim.domain.symbols()
        exprs = {f"residual[{i}]": r for i, r in enumerate(residuals_at(claim))}
        ev = Evaluator(syms, exprs, settings.precision, screen=screen, domain=claim.domain)
        pts = sample_points(claim.domain, settings, rng)
        max_abs = mpmath.mpf(0)
        unresolved, screened = 0, 0
        for pt in pts:
            # counted by point, as the other kinds count: a point is unresolved when one of
            # its residuals is, and counts as screened when one was cleared in doubles
            in_floats = left_open = False
            for name in exprs:
                try:
                    if screen:
                        fv = ev.float_at(name, pt)
                        if fv is not None and abs(fv) <= SCREEN_EQUAL:
                            in_floats = True
                            continue
                    v, cx = _residual_at(ev, name, pt, settings)
                    if cx is not None:
                        return NumericOutcome("counterexample", {"points": len(pts)}, cx, witness={"point": pt})
                    if v is None:
                        left_open = True
                        continue
                    max_abs = max(max_abs, abs(v))
                except Undefined as exc:
                    return NumericOutcome("counterexample", {"points": len(pts)}, undefined_cx(syms, pt, exc),
                                          witness={"point": pt})
            screened += in_floats
            unresolved += left_open
        evidence = {"points": len(pts), "digits": settings.precision, "max_abs_residual": fmt(max_abs, 3),
                    "unresolved_points": unresolved}
        if screen:
            evidence["screened_in_floats"] = screened
        return NumericOutcome("inconclusive" if unresolved == len(pts) else "consistent", evidence)

    def shrink_target(self, claim, settings, cx, outcome):
        syms = claim.domain.symbols()
        residuals = residuals_at(claim)
        exprs = {f"residual[{i}]": r for i, r in enumerate(residuals)}
        ev = Evaluator(syms, exprs, settings.precision, domain=claim.domain)

        def check(pt):
            try:
                for name in exprs:
                    _, found = _residual_at(ev, name, pt, settings)
                    if found is not None:
                        return found
            except Undefined as exc:
                return undefined_cx(syms, pt, exc)
            return None

        def exactly(point):
            signs = [exact_sign(r, point) for r in residuals]
            if any(s_ for s_ in signs):
                return True  # a residual is exactly a non-zero rational
            return False if all(s_ == 0 for s_ in signs) else None
        high = ev.high
        return point_target(claim.domain, syms, start_point(cx, outcome, syms), check, exactly, settings,
                            f"at {settings.precision}, {high} and {2 * high} digits (stable across precisions)")

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        out = []
        for i, r in enumerate(residuals_at(claim)):
            r = r.xreplace(rep)
            how, res = zero_by_then_ends(r, facts, claim.domain, rep, ctx.trace, at=f"residual[{i}]")
            if not how:
                return ProofOutcome(None, "sympy", {"residual": short(res)})
            out.append(how)
        return ProofOutcome(PROVED, "sympy (gradient at the point)", {"strategies": out})


def _residual_at(ev, name, pt, settings):
    """(value, None) where the residual vanishes to the precision's tolerance, (None, None)
    where it is unresolved, (value, counterexample) where it is non-zero and stable across
    precisions."""
    allowed = tol(settings.precision)
    dps = settings.precision
    v = ev.at(name, pt, dps)
    if abs(v) > allowed:
        dps = ev.high
        v = ev.at(name, pt, dps)
        if abs(v) > allowed:
            # a real residual is stable across precisions; cancellation error (1 - x with
            # x = 1 - 1e-41) shrinks with more digits
            v2 = ev.at(name, pt, 2 * ev.high)
            if abs(v2) > allowed and abs(v2 - v) <= abs(v2) / 100:
                return v2, {"type": "gradient does not vanish", "point": point_repr(ev.symbols, pt),
                            name: fmt(v2)}
            return None, None
    # vanishing at dps digits: unless a cancellation wiped the residual out there (the
    # gradient cosh(a)^2 - sinh(a)^2 is 0 at 30 and 70 digits for a = 100, not 1), which its
    # arb ball shows (backends/numeric.py's accuracy guard)
    verdict, got = vanishing_guarded(ev, name, pt, dps, allowed)
    if verdict == "nonzero":
        v2, note = got
        return v2, {"type": "gradient does not vanish", "point": point_repr(ev.symbols, pt), name: fmt(v2),
                    "cancellation": note}
    return (v, None) if verdict == "zero" else (None, None)


def residuals_at(claim) -> list:
    """What must vanish: the claim's residuals with the point substituted."""
    return derived(claim, "residuals at the point",
                   lambda: [substitute(r, claim.at) for r in claim.residuals()])


KIND = StationaryKind()
