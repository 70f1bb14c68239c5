"""Exact expectations over finite distributions with symbolic probabilities.

The paper's quantities (R_G, D, KL_0, P_G) are expectations over groups of G i.i.d.
outputs, each output with a possibly stochastic reward.  For finitely many outputs
and reward values these are finite sums, so a derivation can state them *exactly*
and the prover can establish identities about them for concrete small cases
(G = 2, 3, 4 with 2-3 outputs) without sampling anything.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import factorial
from typing import Callable, Sequence

import sympy as sp

__all__ = ["Categorical", "expect", "iid", "group_expectation", "compositions"]


@dataclass(frozen=True)
class Categorical:
    """A finite distribution: outcome i has probability probs[i] (sympy expressions).

    Outcomes can be anything hashable (output names, reward values, tuples).  The
    probabilities are not normalised or checked here: a derivation expresses the last
    one as 1 - (sum of the others) when it needs the normalisation to be exact.
    """

    outcomes: tuple
    probs: tuple

    def __init__(self, outcomes: Sequence, probs: Sequence):
        if len(outcomes) != len(probs):
            raise ValueError(f"{len(outcomes)} outcomes but {len(probs)} probabilities")
        object.__setattr__(self, "outcomes", tuple(outcomes))
        object.__setattr__(self, "probs", tuple(sp.sympify(p) for p in probs))

    def expect(self, f: Callable) -> sp.Expr:
        """E[f(X)] as an exact finite sum."""
        return sp.Add(*[p * sp.sympify(f(o)) for o, p in zip(self.outcomes, self.probs)])

    def prob(self, event: Callable) -> sp.Expr:
        """P[event(X)]."""
        return sp.Add(*[p for o, p in zip(self.outcomes, self.probs) if event(o)])

    def then(self, kernel: Callable) -> "Categorical":
        """The joint law of (X, Y) where Y | X = x follows the Categorical kernel(x)."""
        outs, ps = [], []
        for o, p in zip(self.outcomes, self.probs):
            k = kernel(o)
            for o2, p2 in zip(k.outcomes, k.probs):
                outs.append((o, o2))
                ps.append(p * p2)
        return Categorical(outs, ps)

    def total(self) -> sp.Expr:
        return sp.Add(*self.probs)


def expect(dist: Categorical, f: Callable) -> sp.Expr:
    """E_{X ~ dist}[f(X)]."""
    return dist.expect(f)


def iid(dist: Categorical, n: int) -> Categorical:
    """The law of n i.i.d. draws: outcomes are n-tuples, probabilities products."""
    if n < 1:
        raise ValueError("need at least one draw")
    outs, ps = [], []
    for combo in itertools.product(range(len(dist.outcomes)), repeat=n):
        outs.append(tuple(dist.outcomes[i] for i in combo))
        ps.append(sp.Mul(*[dist.probs[i] for i in combo]))
    return Categorical(outs, ps)


def group_expectation(dist: Categorical, G: int, f: Callable) -> sp.Expr:
    """E[f(o_1, ..., o_G)] for o_i i.i.d. ~ dist (f takes a G-tuple)."""
    return iid(dist, G).expect(f)


def compositions(dist: Categorical, n: int):
    """Yield (counts, probability) for the multiset of n i.i.d. draws.

    counts[i] is how many draws gave outcome i; the probability is the multinomial
    one.  Summing a symmetric function over compositions instead of over all n-tuples
    keeps large groups tractable (binomially many terms instead of exponentially).
    """
    k = len(dist.outcomes)
    for combo in itertools.combinations_with_replacement(range(k), n):
        counts = tuple(combo.count(i) for i in range(k))
        coef = factorial(n)
        for c in counts:
            coef //= factorial(c)
        yield counts, coef * sp.Mul(*[dist.probs[i] ** counts[i] for i in range(k)])
