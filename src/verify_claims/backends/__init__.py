"""The backends: each decides a sign goal within a budget, behind one small interface.

A *goal* is "expr is positive / nonnegative / negative / nonpositive / zero at every point
of a domain".  A backend

- says up front when it cannot apply (``declines``: z3 has no logarithm, enclosures do
  not decide equalities), so no work is spent on a method that cannot succeed;
- otherwise ``decide``s the goal within a CPU-time budget: it *holds* (a sound argument
  over the whole domain), is *violated* at a candidate point (which the engine confirms
  with mpmath before it becomes a counterexample), or is *unknown* with a reason.

The five certification backends are ``symbolic`` (sympy sign analysis), ``smt`` (z3
nonlinear real arithmetic), ``bernstein`` (the Bernstein coefficients of a one-variable
polynomial on a bounded interval, in arb balls or exact rationals), ``ball`` (branch-and-bound over python-flint's arb balls: log,
exp, sqrt, asinh, unbounded ends, touching curves) and ``interval`` (the same
branch-and-bound over mpmath's extended intervals);
``numeric`` (mpmath and float sampling) falsifies, and ``evaluate`` compiles expressions
for it.  ``functions`` is the one table of supported functions and side conditions.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Decision", "Backend", "HOLDS", "VIOLATED", "UNKNOWN", "certification_backends", "METHODS", "SEARCHED"]

HOLDS, VIOLATED, UNKNOWN = "holds", "violated", "unknown"
METHODS = ("symbolic", "smt", "bernstein", "ball", "interval")
# what a search tries, as a certificate of *checked* records it: the certification backends
# and the prover's later additions (the case split of ``cases``).  A claim recorded as checked
# before one of them existed is searched again rather than left at checked
SEARCHED = METHODS + ("case split",)


@dataclass
class Decision:
    verdict: str                # HOLDS | VIOLATED | UNKNOWN
    detail: str = ""
    point: dict | None = None   # VIOLATED: a candidate domain point (symbol -> mpf)
    exact: dict | None = None   # VIOLATED: exact rational coordinates, where the backend has them
    boxes: int | None = None
    depth: int | None = None


class Backend:
    """The interface every certification backend implements."""

    name = ""
    # adds up the finite sums of a goal itself (backends.instances keeps them for it); every
    # other backend is given them written out term by term
    takes_sums = False

    def declines(self, goal) -> str | None:
        """Why this backend cannot decide the goal at all (None: it may try)."""
        return None

    def decide(self, goal, seconds: float, trace=None) -> Decision:
        raise NotImplementedError


def certification_backends() -> dict:
    """name -> backend, cheapest first."""
    from .ball import BALL_BACKEND
    from .bernstein import BERNSTEIN
    from .interval import INTERVAL
    from .smt import SMT
    from .symbolic import SYMBOLIC
    return {"symbolic": SYMBOLIC, "smt": SMT, "bernstein": BERNSTEIN, "ball": BALL_BACKEND, "interval": INTERVAL}
