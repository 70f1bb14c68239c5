"""What every claim kind provides: one class per kind, one module per class.

As sympy keeps each type's behaviour in its own ``_eval_*`` methods, a kind says in one
place how a claim of that kind is

- spot-checked numerically (``spot_check``; ``screen=True`` is the cheap falsify-first
  pass: floats first, mpmath for every doubtful point),
- proved exactly (``prove``: a symbolic derivation, never a refutation),
- certified over its whole domain (``certify``: reduced to sign goals that the backends
  decide), when the kind is inequality-like,
- and, for chains, which steps hold (``steps``);
- re-checked at other points, to shrink a refuting counterexample towards the simplest
  point that still fails (``shrink_target``; the search is ``backends.shrink``);
- mutated into plausible editing mistakes (``mutants``: which fields carry formulas, and
  the mistakes particular to the kind), for the mutation score (``verify_claims.mutation``).

The engine (``engine.verify``) runs these in that order (certification before the prover
for a kind that sets ``certify_first``) and combines what they found.
A simulation (``simulation.SimulationKind``) has no points, proofs or mutants: its
``evaluate(claim, settings)`` runs the claim's function and returns the whole result.
"""

from __future__ import annotations

from ..backends.symbolic import ProofOutcome
from ..model.derivative import derivative

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
    # certification before the prover (engine.verify._prove_and_certify): for a kind whose
    # prover reaches no more than certified (a sign analysis), and whose certification needs
    # nothing from it, the certificate's backends are the cheaper way to the same status
    # (the bundled paper's inequalities, monotonicities and roots, from scratch: 92-105 s
    # -> 57-66 s of CPU, the same statuses); the prover runs where certification decided nothing
    certify_first = False
    mutable_fields: tuple = ()  # the fields whose formulas a mutant may get wrong

    def spot_check(self, claim, settings, rng, screen: bool = False):
        raise NotImplementedError

    def prove(self, claim, ctx) -> ProofOutcome:
        return ProofOutcome(None, "", {})

    def certify(self, claim, ctx, proof, numeric, budget):
        """A Certificate (certified, refuted with a confirmed counterexample, or undecided
        with a reason), or None when the kind has nothing to certify."""
        return None

    def certify_before_proof(self, claim, ctx, numeric, budget):
        """What of certification comes before the prover (``certify_first``): a Certificate,
        or None when nothing was attempted.  By default all of it, with no proof to go on."""
        return self.certify(claim, ctx, ProofOutcome(None, "sympy", {}), numeric, budget)

    def certify_again(self, claim, proof) -> bool:
        """After a certification that came first and decided nothing, and a proof attempt
        that did not establish the claim either: does the attempt's evidence give
        certification something new to go on?"""
        return False

    def steps(self, claim, proof, numeric):
        return None

    def shrink_target(self, claim, settings, cx: dict, outcome):
        """How to re-check the claim's refuting counterexample `cx` at other points, for
        shrinking it (``backends.shrink.Target``), or None to keep it as found.  `outcome`:
        the NumericOutcome that found it (its ``witness`` holds the point at full
        precision), or None (a certification backend's counterexample)."""
        return None

    # fields whose sign the statement does not see: negating one states the same thing
    # (an equation's roots, an objective's stationary points; not a maximiser's objective)
    sign_free: tuple = ()
    # a proof of a mutant shows it equivalent when the claim is proved too: for an
    # identity, lhs' = rhs and lhs = rhs on the same domain give lhs' = lhs there
    proof_shows_equivalence = False

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


def start_point(cx: dict, outcome, syms, key: str = "point"):
    """The raw counterexample's point at full precision: the engine's own (the outcome's
    witness), else read back from the shown point (certification counterexamples)."""
    from ..backends.shrink import parse_point
    w = outcome.witness if outcome is not None else None
    if w and isinstance(w.get(key), dict) and all(s in w[key] for s in syms):
        return {s: w[key][s] for s in syms}
    return parse_point(cx, syms, key)


def numeric_confirmation(settings) -> str:
    """How the engine confirms a violation (``backends.numeric``), in words."""
    high = 2 * settings.precision + 10
    return f"at {high} and {2 * high} digits (stable across precisions)"


def point_target(domain, syms, start, check, exactly, settings, confirmation=None, *, interior=False):
    """The usual shrink target: every symbol of the domain is a coordinate of "point", and a
    point must satisfy the domain's `where` relations."""
    from ..backends.sampling import contains
    from ..backends.shrink import Coordinate, Target
    if start is None:
        return None
    coords = [Coordinate(s, (("point", str(s)),), domain.sets[s], start[s], interior) for s in syms]
    high = 2 * settings.precision + 10
    return Target(coords, check, exactly, admissible=lambda pt: contains(domain, pt, settings.precision),
                  confirmation=confirmation or numeric_confirmation(settings), dps=2 * high + 20)


def exactly_nonzero(expr):
    """Exact confirmation that expr is not 0 at a rational point (None: not a rational number there)."""
    from ..backends.shrink import exact_sign

    def exactly(point):
        s = exact_sign(expr, point)
        return None if s is None else s != 0
    return exactly


def objective_gradient(claim, field, expr) -> list:
    """Equivalence forms of a maximiser's or a stationary point's objective: its gradient in
    the variables (an objective plus a function of the parameters alone has the same
    maximisers and stationary points), when the objective is smooth."""
    from ..backends.functions import nonsmooth
    if field == "objective" and not nonsmooth(expr):
        return [derivative(expr, v) for v in claim.wrt]
    return [expr]
