"""Stationary: the gradient of an objective vanishes at a point (``frozen`` substitutions
applied after differentiating; on the simplex, equal partial derivatives: the Lagrange
condition).  Falsified at the seeded points; proved when every residual is exactly 0."""

from __future__ import annotations

import mpmath

from ..backends.numeric import (SCREEN_EQUAL, Evaluator, NumericOutcome, Undefined, fmt, point_repr,
                                sample_points, tol, undefined_cx)
from ..backends.symbolic import PROVED, ProofOutcome, assume, short, zero_by
from ..model.claims import substitute
from .base import Kind, derived, objective_gradient


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
            for name in exprs:
                try:
                    if screen:
                        fv = ev.float_at(name, pt)
                        if fv is not None and abs(fv) <= SCREEN_EQUAL:
                            screened += 1
                            continue
                    v = ev.at(name, pt, settings.precision)
                    if abs(v) > tol(settings.precision):
                        v = ev.at(name, pt, ev.high)
                        if abs(v) > tol(settings.precision):
                            # a real residual is stable across precisions; cancellation
                            # error (1 - x with x = 1 - 1e-41) shrinks with more digits
                            v2 = ev.at(name, pt, 2 * ev.high)
                            if abs(v2) > tol(settings.precision) and abs(v2 - v) <= abs(v2) / 100:
                                return NumericOutcome("counterexample", {"points": len(pts)}, {
                                    "type": "gradient does not vanish", "point": point_repr(syms, pt),
                                    name: fmt(v2)})
                            unresolved += 1
                            continue
                    max_abs = max(max_abs, abs(v))
                except Undefined as exc:
                    return NumericOutcome("counterexample", {"points": len(pts)}, undefined_cx(syms, pt, exc))
        evidence = {"points": len(pts), "digits": settings.precision, "max_abs_residual": fmt(max_abs, 3),
                    "unresolved_points": unresolved}
        if screen:
            evidence["screened_in_floats"] = screened
        return NumericOutcome("inconclusive" if unresolved == len(pts) else "consistent", evidence)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        out = []
        for i, r in enumerate(residuals_at(claim)):
            how, res = zero_by(r.xreplace(rep), facts, ctx.trace,
                               at=f"residual[{i}]")
            if not how:
                return ProofOutcome(None, "sympy", {"residual": short(res)})
            out.append(how)
        return ProofOutcome(PROVED, "sympy (gradient at the point)", {"strategies": out})


def residuals_at(claim) -> list:
    """What must vanish: the claim's residuals with the point substituted."""
    return derived(claim, "residuals at the point",
                   lambda: [substitute(r, claim.at) for r in claim.residuals()])


KIND = StationaryKind()
