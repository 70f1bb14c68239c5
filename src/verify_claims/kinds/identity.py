"""Identity: lhs = rhs at every point of the domain.

Falsified by comparing both sides at the seeded points; proved when sympy reduces
lhs - rhs to exactly 0 under the domain's assumptions (``backends.symbolic.zero_by``),
or, with Min, Max, Abs, sign or Piecewise in it, branch by branch (``backends.cases``).
"""

from __future__ import annotations

from ..backends.cases import has_kinks, zero_by_cases
from ..backends.instances import instance_values, instances
from ..backends.numeric import Evaluator, check_equal, sample_points
from ..backends.symbolic import (PROVED, ProofOutcome, assume, polynomial_identically_zero, short, zero_by,
                                 with_ends, zero_by_then_ends)
from .base import Kind, exactly_nonzero, point_target, start_point


class IdentityKind(Kind):
    name = "identity"
    mutable_fields = ("lhs", "rhs")
    cost = 5
    proof_shows_equivalence = True

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
        exact = _instances_exactly(claim)
        if exact is not None:
            return exact
        split = instances(claim.lhs - claim.rhs, claim.domain)
        if split is not None:
            return _prove_instances(claim, split, ctx)
        rep, facts = assume(claim)
        e = claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep)
        split_residual = None
        if has_kinks(e, *claim.domain.where):
            # no rewriting of a kink is 0 (Min(1 + eps, Max(x, 1 - eps)) - x on the band):
            # sympy's strategies below only spend their slices failing where the cases decide
            how, split_residual = zero_by_cases(e, [r.xreplace(rep) for r in with_ends(claim.domain)],
                                                ctx.trace, at="lhs - rhs")
            if how:
                return ProofOutcome(PROVED, f"sympy ({how})", {"residual": "0", "strategy": how})
        # log((x - 1)/(r - 1)) splits only where the signs of x - 1 and r - 1 are known: the ends
        how, residual = zero_by_then_ends(e, facts, claim.domain, rep, ctx.trace, at="lhs - rhs")
        if how:
            return ProofOutcome(PROVED, f"sympy ({how})", {"residual": "0", "strategy": how})
        evidence = {"residual": short(residual)}
        if split_residual:
            evidence["case split"] = split_residual
        return ProofOutcome(None, "sympy", evidence)


def _instances_exactly(claim):
    """An identity over a finite parameter that sets a summation bound, proved value by
    value in exact polynomial arithmetic, its sums added up there without being written
    out as sympy expressions; None if some value is not decided that way (then
    _prove_instances writes them out and tries the strategies of zero_by too)."""
    e = claim.lhs - claim.rhs
    split = instance_values(e, claim.domain)
    if split is None or not split[1]:
        return None
    s, values = split
    used = {}
    for v, _dom in values:
        how = polynomial_identically_zero(e.xreplace({s: v}))
        if not how:
            return None
        used.setdefault(how, []).append(v)
    return _proved_by_value(s, [v for v, _ in values], used)


def _proved_by_value(s, values, used):
    how = "; ".join(f"{h} for {len(vs)} value(s)" for h, vs in used.items())
    return ProofOutcome(PROVED, f"sympy, value by value over {s} ({how})",
                        {"residual": "0", "strategy": f"{s} = {values[0]}, ..., {values[-1]}: {how}"})


def _prove_instances(claim, split, ctx):
    """An identity over a finite parameter that sets a summation bound (P_G at G = 2..64):
    proved value by value, each written-out instance by zero_by or, for a polynomial in one
    variable, by exact polynomial arithmetic with its square roots."""
    rep, facts = assume(claim)
    s, cases = split
    if not cases:
        return ProofOutcome(None, "sympy", {"residual": f"no value of {s} is in the domain"})
    used = {}
    for v, ev, _dom in cases:
        how = polynomial_identically_zero(ev)
        if not how:
            how, residual = zero_by(ev.xreplace(rep), facts, ctx.trace, at=f"lhs - rhs [{s} = {v}]")
            if not how:
                return ProofOutcome(None, "sympy", {"residual": f"at {s} = {v}: {short(residual)}"})
        used.setdefault(how, []).append(v)
    return _proved_by_value(s, [v for v, _, _ in cases], used)


KIND = IdentityKind()
