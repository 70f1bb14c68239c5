"""Inequality: lhs op rhs at every point of the domain, op one of <, <=, >, >=.

Falsified at the seeded points (a violation must be stable across precisions; a strict
claim fails on an equality only if the equality is exact).  Established by sympy's sign
analysis of lhs - rhs, else certified as the sign goal (lhs - rhs) op 0, with
``x >= max(a, b)`` split into one goal per argument.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from ..backends.numeric import Evaluator, check_order, point_repr, sample_points
from ..backends.symbolic import CERTIFIED, ProofOutcome, assume, prove_sign, zero_by
from ..engine.goals import Goal, certify_claim, domain_point, short
from .base import Kind, point_target, start_point

_SIGN_FOR = {"<": "negative", "<=": "nonpositive", ">": "positive", ">=": "nonnegative"}


class InequalityKind(Kind):
    name = "inequality"
    mutable_fields = ("lhs", "rhs")

    def mutants(self, claim):
        from dataclasses import replace
        from ..mutation import Mutant
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[claim.op]
        return super().mutants(claim) + [
            Mutant("op:reversed", f"the inequality reversed ({claim.op} -> {flipped})", replace(claim, op=flipped))]

    cost = 3
    inequality_like = True
    certify_first = True

    def spot_check(self, claim, settings, rng, screen=False):
        syms = claim.domain.symbols()
        ev = Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision, screen=screen,
                       domain=claim.domain)
        pts = sample_points(claim.domain, settings, rng)
        return check_order(ev, claim.op, pts, syms)

    def shrink_target(self, claim, settings, cx, outcome):
        syms = claim.domain.symbols()
        ev = Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision, domain=claim.domain)

        def check(pt):
            out = check_order(ev, claim.op, [pt], syms)
            return out.counterexample if out.verdict == "counterexample" else None
        return point_target(claim.domain, syms, start_point(cx, outcome, syms), check,
                            exactly_violated(claim.lhs - claim.rhs, claim.op), settings)

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        d = claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep)
        want = _SIGN_FOR[claim.op]
        if prove_sign(d, want, facts, ctx.trace, at="lhs - rhs"):
            return ProofOutcome(CERTIFIED, "sympy sign analysis", {"difference": short(sp.factor(d), 160),
                                                                   "sign": want})
        if claim.op in ("<=", ">=") and zero_by(d, facts, ctx.trace, at="lhs - rhs")[0]:
            return ProofOutcome(CERTIFIED, "sympy (difference is identically 0)", {"difference": "0"})
        return ProofOutcome(None, "sympy sign analysis", {"difference": short(d, 160), "sign": "not established"})

    def goals(self, claim):
        return inequality_goals(claim.lhs, claim.op, claim.rhs, claim.domain)

    def certify(self, claim, ctx, proof, numeric, budget):
        return certify_claim(claim, self.goals(claim), recheck_inequality(claim, ctx.settings), budget, ctx.trace)


def inequality_goals(lhs, op, rhs, domain, text="") -> list:
    """Goals whose conjunction is lhs op rhs (a Max on the small side or a Min on the
    large side is split: x >= max(a, b) iff x >= a and x >= b)."""
    big, small = (lhs, rhs) if op in (">", ">=") else (rhs, lhs)
    want = "positive" if op in ("<", ">") else "nonnegative"
    if isinstance(small, sp.Max):
        return [g for a in small.args for g in inequality_goals(big, ">" if want == "positive" else ">=", a, domain,
                                                                   f"{text}vs {a}: ")]
    if isinstance(big, sp.Min):
        return [g for a in big.args for g in inequality_goals(a, ">" if want == "positive" else ">=", small, domain,
                                                                 f"{text}{a} vs: ")]
    return [Goal(sp.sympify(big) - sp.sympify(small), want, domain, f"{text}{short(big)} - ({short(small)}) "
                 f"{'> 0' if want == 'positive' else '>= 0'}")]


def exactly_violated(d, op):
    """Exact confirmation that `d op 0` fails at a rational point (None: d is not a rational
    number there)."""
    from ..backends.shrink import exact_sign

    def exactly(point):
        s = exact_sign(d, point)
        if s is None:
            return None
        return not {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0}[op]
    return exactly


def recheck_inequality(claim, settings):
    """Confirm a backend's candidate point: the claim itself re-evaluated there with mpmath,
    or exactly for a rational z3 model."""
    syms = claim.domain.symbols()
    ev = Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision)

    def check(point):
        pt = domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        out = check_order(ev, claim.op, [pt], syms)
        return out.counterexample if out.verdict == "counterexample" else None

    def exact(point):
        """A rational z3 model and a rational difference: the sign is exact.  (mpmath
        cannot confirm a violation far below 1 in absolute size: 1e-61 < 0 is noise to
        its scale-1 tolerance.)"""
        if any(point.get(s) is None for s in syms):
            return None
        pt = {s: point[s] for s in syms}
        if not all(claim.domain.sets[s].contains(pt[s]) is sp.true for s in syms) or any(
                sp.sympify(rel).xreplace(pt) is not sp.true for rel in claim.domain.where):
            return None
        try:
            # exact, never nsimplify (it rounds tiny values to 0)
            d = sp.sympify(claim.lhs).xreplace(pt) - sp.sympify(claim.rhs).xreplace(pt)
        except Exception:  # noqa: BLE001
            return None
        if not d.is_Rational:
            return None
        holds = {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[claim.op]
        if holds:
            return None
        return {"type": "inequality violated",
                "point": point_repr(syms, {s: mpmath.mpf(sp.Float(pt[s], 40)) for s in syms}),
                "exact point": {str(s): str(pt[s]) for s in syms}, "lhs - rhs": str(d) if len(str(d)) < 80
                else mpmath.nstr(mpmath.mpf(sp.Float(d, 30)), 8),
                "explanation": "exact rational arithmetic at a rational point"}
    check.exact = exact
    return check


KIND = InequalityKind()
