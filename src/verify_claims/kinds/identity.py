"""Identity: lhs = rhs at every point of the domain.

Falsified by comparing both sides at the seeded points; proved when sympy reduces
lhs - rhs to exactly 0 under the domain's assumptions (``backends.symbolic.zero_by``).
"""

from __future__ import annotations

from ..backends.numeric import Evaluator, check_equal, sample_points
from ..backends.symbolic import PROVED, ProofOutcome, assume, short, zero_by
from .base import Kind, exactly_nonzero, point_target, start_point


class IdentityKind(Kind):
    name = "identity"
    mutable_fields = ("lhs", "rhs")
    cost = 5

    def spot_check(self, claim, settings, rng, screen=False):
        syms = claim.domain.symbols()
        ev = Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision, screen=screen,
                       domain=claim.domain)
        return check_equal(ev, "lhs", "rhs", sample_points(claim.domain, settings, rng))

    def shrink_target(self, claim, settings, cx, outcome):
        syms = claim.domain.symbols()
        ev = Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision, domain=claim.domain)

        def check(pt):
            out = check_equal(ev, "lhs", "rhs", [pt])
            return out.counterexample if out.verdict == "counterexample" else None
        return point_target(claim.domain, syms, start_point(cx, outcome, syms), check,
                            exactly_nonzero(claim.lhs - claim.rhs), settings)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        how, residual = zero_by(claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep), facts, ctx.trace,
                                at="lhs - rhs")
        if how:
            return ProofOutcome(PROVED, f"sympy ({how})", {"residual": "0", "strategy": how})
        return ProofOutcome(None, "sympy", {"residual": short(residual)})


KIND = IdentityKind()
