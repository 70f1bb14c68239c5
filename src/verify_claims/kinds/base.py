"""What every claim kind provides: one class per kind, one module per class.

As sympy keeps each type's behaviour in its own ``_eval_*`` methods, a kind says in one
place how a claim of that kind is

- spot-checked numerically (``spot_check``; ``screen=True`` is the cheap falsify-first
  pass: floats first, mpmath for every doubtful point),
- proved exactly (``prove``: a symbolic derivation, never a refutation),
- certified over its whole domain (``certify``: reduced to sign goals that the backends
  decide), when the kind is inequality-like,
- and, for chains, which steps hold (``steps``);
- mutated into plausible editing mistakes (``mutants``: which fields carry formulas, and
  the mistakes particular to the kind), for the mutation score (``verify_claims.mutation``).

The engine (``engine.verify``) runs these in that order and combines what they found.
"""

from __future__ import annotations

from ..backends.symbolic import ProofOutcome

__all__ = ["Kind", "derived"]


def derived(claim, key, build):
    """An expression derived from a claim (a gradient after substitutions, a numerator's
    polynomial), built once per process: the screen, the prover, the certificate and the
    full check all need it, and building it can cost more than checking it."""
    cache = claim.__dict__.setdefault("_derived", {})
    if key not in cache:
        cache[key] = build()
    return cache[key]


class Kind:
    name = ""            # the claim model's kind string ("identity", ...)
    cost = 9             # scheduling order: heavier kinds start first (lower runs earlier)
    inequality_like = False  # its strongest status is "certified" (shown over a whole domain)
    mutable_fields: tuple = ()  # the fields whose formulas a mutant may get wrong

    def spot_check(self, claim, settings, rng, screen: bool = False):
        raise NotImplementedError

    def prove(self, claim, ctx) -> ProofOutcome:
        return ProofOutcome(None, "", {})

    def certify(self, claim, ctx, proof, numeric, budget):
        """A Certificate (certified, refuted with a confirmed counterexample, or undecided
        with a reason), or None when the kind has nothing to certify."""
        return None

    def steps(self, claim, proof, numeric):
        return None

    # fields whose sign the statement does not see: negating one states the same thing
    # (an equation's roots, an objective's stationary points; not a maximiser's objective)
    sign_free: tuple = ()

    def equivalence_forms(self, claim, field: str, expr) -> list:
        """What a mutated field must keep for the mutant to state the same as the claim:
        by default the formula itself.  A kind whose statement depends only on a derivative
        (a monotonicity, a maximiser's or stationary point's objective) says so, so that a
        mistake in a term the derivative does not see counts as equivalent."""
        return [expr]

    def mutants(self, claim) -> list:
        """Plausible mistakes in this claim's formulas (mutation.Mutant); kinds add their own
        (a reversed relation, the other root, a nearby maximiser)."""
        from ..mutation import domain_groups, field_mutants
        groups = domain_groups(claim)
        out = []
        for name in self.mutable_fields:
            expr = getattr(claim, name, None)
            if expr is not None:
                out += field_mutants(claim, name, expr, groups)
        return out


def objective_gradient(claim, field, expr) -> list:
    """Equivalence forms of a maximiser's or a stationary point's objective: its gradient in
    the variables (an objective plus a function of the parameters alone has the same
    maximisers and stationary points), when the objective is smooth."""
    import sympy as sp

    from ..backends.functions import nonsmooth
    if field == "objective" and not nonsmooth(expr):
        return [sp.diff(expr, v) for v in claim.wrt]
    return [expr]
