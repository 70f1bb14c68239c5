"""Exact expectations over groups of i.i.d. outputs (arXiv 2502.18548, Sections 2.1-2.2).

GRPO's expectations (Eqs. (6)-(7)) are over groups o_1..o_G drawn i.i.d. from pi_old, each
with a possibly stochastic reward.  For finitely many outputs and reward levels they are
finite sums; distributions are :class:`verify_claims.expectations.Categorical`, and a joint
law of (output, reward) is ``policy.then(kernel)`` with ``kernel(o)`` the law of o's reward.
"""

import sympy as sp

from verify_claims.expectations import Categorical, compositions

__all__ = ["joint_law", "point_mass", "symmetric_group_expectation"]


def symmetric_group_expectation(dist, n, f):
    """E[f(X_1, ..., X_n)] for X_i i.i.d. ~ dist and f symmetric in its arguments, summed over
    compositions (multinomial weights) instead of all n-tuples: the group expectations of
    arXiv 2502.18548, Section 2.1 (R_G, P_G) and Eq. (7)."""
    out = []
    for counts, prob in compositions(dist, n):
        tup = tuple(o for o, c in zip(dist.outcomes, counts) for _ in range(c))
        out.append(prob * sp.sympify(f(tup)))
    return sp.Add(*out)


def joint_law(policy: Categorical, kernel):
    """The law of (o, r): o ~ policy, then r ~ kernel(o) (the stochastic rewards of
    arXiv 2502.18548, Section 2.1)."""
    return policy.then(kernel)


def point_mass(value):
    """A deterministic reward as a one-point law (arXiv 2502.18548, Section 2.1: deterministic
    rewards are the special case of stochastic ones)."""
    return Categorical([value], [1])
