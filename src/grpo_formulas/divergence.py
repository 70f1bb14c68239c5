"""Divergences and GRPO's reference-policy penalty (arXiv 2502.18548, Sections 1.1, 2.2, 3).

Policies over finitely many outputs are dicts {output: probability} (or, for :func:`kl`,
equally long sequences); ``old`` is a :class:`verify_claims.expectations.Categorical` where
an expectation over groups drawn from pi_old is taken.  Single-output terms (k1, k2, k3)
take the two probabilities of one sampled output o ~ pi_theta: ``pi_o`` = pi_theta(o) and
``ref_o`` = pi_ref(o).
"""

from collections.abc import Mapping

import sympy as sp

from verify_claims.expectations import Categorical

from .groups import symmetric_group_expectation

__all__ = [
    "k1",
    "k2",
    "k3",
    "kl",
    "kl0",
    "kl_bern",
    "kl_bern_closed",
    "kl_rev",
    "penalty_def",
    "penalty_direct_def",
    "penalty_term",
    "penalty_term_direct",
    "xlogx",
]


def kl(p, q):
    """KL(p || q) = E_{x ~ p}[log(p(x)/q(x))] (arXiv 2502.18548, Section 1.1, after Eq. (3)).
    ``p`` and ``q``: dicts over the same outputs, or sequences in the same order."""
    if isinstance(p, Mapping):
        return sp.Add(*[p[x] * sp.log(p[x] / q[x]) for x in p])
    return sp.Add(*[pi * sp.log(pi / qi) for pi, qi in zip(p, q)])


def kl_rev(pi, ref):
    """The reverse KL divergence KL_rev(pi || ref) = KL(ref || pi) (arXiv 2502.18548,
    Section 2.2, display after Eq. (10)): on-policy, GRPO's penalty has its gradient up to
    an additive constant."""
    return kl(ref, pi)


def kl0(pi: dict, ref: dict, old: dict):
    """KL_0(pi || ref; old) = E_{x ~ old}[ref/pi] - E_{x ~ old}[log(ref/pi)] - 1
    (arXiv 2502.18548, Section 2.2, the display defining KL_0 after Eq. (7)): the expected
    GRPO penalty D when the group is drawn from old."""
    return sp.Add(*[old[x] * ref[x] / pi[x] for x in old]) \
        - sp.Add(*[old[x] * sp.log(ref[x] / pi[x]) for x in old]) - 1


# --------------------------------------------------------------------- estimators of KL(pi || ref)

def k1(pi_o, ref_o):
    """The estimator k1 = log(pi/ref) of KL(pi_theta || pi_ref) from one sample o ~ pi_theta
    (Schulman, 2020, "Approximating KL divergence", which arXiv 2502.18548 cites in
    Section 2.2): unbiased, can be negative."""
    return -sp.log(ref_o / pi_o)


def k2(pi_o, ref_o):
    """The estimator k2 = (log(ref/pi))^2 / 2 of KL(pi_theta || pi_ref) from one sample
    o ~ pi_theta (Schulman, 2020, cited in arXiv 2502.18548, Section 2.2): non-negative,
    biased."""
    return sp.log(ref_o / pi_o) ** 2 / 2


def k3(pi_o, ref_o):
    """The estimator k3 = ref/pi - log(ref/pi) - 1 (Schulman, 2020, cited in arXiv
    2502.18548, Section 2.2), which is GRPO's penalty term D_i of Eq. (1): non-negative,
    and unbiased for KL(pi_theta || pi_ref) only when o is drawn from pi_theta (Section 2.2)."""
    return ref_o / pi_o - sp.log(ref_o / pi_o) - 1


penalty_term = k3  # D_i(theta) of arXiv 2502.18548, Eq. (1), at output o_i: the k3 estimator


def penalty_def(pi: dict, ref: dict, old: Categorical, G: int):
    """D(theta | q) of arXiv 2502.18548, Eq. (7), from its definition: the expectation over
    o_1..o_G i.i.d. ~ old of (1/G) sum_i D_i(theta), an exact finite sum."""
    def f(group):
        return sp.Add(*[penalty_term(pi[o], ref[o]) for o in group]) / G
    return symmetric_group_expectation(old, G, f)


# --------------------------------------------------------------------- Section 3: direct KL penalty

def penalty_term_direct(pi_o, old_o, ref_o):
    """The Section 3 penalty term of arXiv 2502.18548 (first display of Section 3): the
    importance weight pi/pi_old times the GRPO term D_i of Eq. (1)."""
    return pi_o / old_o * penalty_term(pi_o, ref_o)


def penalty_direct_def(pi: dict, ref: dict, old: Categorical, G: int):
    """D(theta | q) of arXiv 2502.18548, Eq. (7), with the Section 3 penalty terms
    (:func:`penalty_term_direct`): an exact finite sum over groups drawn from old."""
    old_p = dict(zip(old.outcomes, old.probs))

    def f(group):
        return sp.Add(*[penalty_term_direct(pi[o], old_p[o], ref[o]) for o in group]) / G
    return symmetric_group_expectation(old, G, f)


# --------------------------------------------------------------------- binary (Bernoulli) KL

def kl_bern(p, q):
    """KL(Bernoulli(p) || Bernoulli(q)) for p, q in (0, 1): the KL of a binary question
    (arXiv 2502.18548, Section 2.3.1 and Appendix B)."""
    return p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q))


def xlogx(x):
    """x log x continued by its limit 0 at x = 0, as a Piecewise (so that a Bernoulli KL is
    defined on the closed interval, arXiv 2502.18548, Appendix B.2)."""
    return sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(x), True))


def kl_bern_closed(p, q):
    """:func:`kl_bern` extended to p in [0, 1] by continuity, 0 log 0 = 0 (arXiv 2502.18548,
    Appendix B.2)."""
    return xlogx(p) + xlogx(1 - p) - p * sp.log(q) - (1 - p) * sp.log(1 - q)
