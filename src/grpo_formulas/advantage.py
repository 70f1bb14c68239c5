"""Advantages of GRPO (arXiv 2502.18548, Section 1, Eqs. (1)-(2); Section 3).

Rewards ``rs`` are a sequence of sympy expressions (r_1, ..., r_G); ``i`` is a 0-based index.
"""

import sympy as sp

__all__ = [
    "advantage_pairwise",
    "advantage_shift_only",
    "advantage_ties_structural",
    "advantage_with_ties",
    "all_equal",
    "clip_as_described",
    "clip_ppo",
    "clipped_advantage",
    "mean",
    "normalised_advantage",
    "not_all_equal",
    "pairwise_mean_deviation",
    "pairwise_variance",
    "population_variance",
    "std",
]


def mean(rs):
    """Group mean (1/G) sum_i r_i (arXiv 2502.18548, Section 1, definition under Eq. (2))."""
    return sp.Add(*rs) / len(rs)


def population_variance(rs):
    """(1/G) sum_i (r_i - mean)^2: the square of the std used in Eq. (2) (arXiv 2502.18548,
    Section 1); a population variance, divided by G, not G - 1."""
    m = mean(rs)
    return sp.Add(*[(r - m) ** 2 for r in rs]) / len(rs)


def std(rs):
    """Population standard deviation of the group (arXiv 2502.18548, Section 1, definition
    under Eq. (2)): the square root of :func:`population_variance`."""
    return sp.sqrt(population_variance(rs))


def normalised_advantage(rs, i):
    """A_i = (r_i - mean) / std of arXiv 2502.18548, Eq. (2), without the tie convention:
    undefined (0/0) when all rewards of the group are equal."""
    return (rs[i] - mean(rs)) / std(rs)


def all_equal(rs):
    """The relation r_1 = ... = r_G under which Eq. (2) of arXiv 2502.18548 is 0/0."""
    return sp.And(*[sp.Eq(rs[0], r) for r in rs[1:]])


def advantage_with_ties(rs, i):
    """A_i of arXiv 2502.18548, Eq. (2), with the convention 0/0 := 0 stated under it,
    as a Piecewise: 0 when all rewards are equal, the normalised advantage otherwise."""
    return sp.Piecewise((0, all_equal(rs)), (normalised_advantage(rs, i), True))


def advantage_ties_structural(rs, i):
    """A_i of arXiv 2502.18548, Eq. (2), with the 0/0 := 0 convention decided structurally.

    The entries are numbers or *distinct* reward levels (e.g. lo, lo + g_1, ... with positive
    gaps, or symbols that a claim keeps apart with ``where``), so a group ties exactly when all
    its entries are the same expression; then the result is 0, else the normalised advantage.
    Any finite reward law is a law over distinct levels, so nothing is lost, and unlike a
    Piecewise it keeps exact expectations free of case splits.  Used for the expectations of
    Section 2.1 (R_G, P_G)."""
    rs = [sp.sympify(r) for r in rs]
    if all(r == rs[0] for r in rs[1:]):
        return sp.S.Zero
    return (rs[i] - mean(rs)) / std(rs)


def pairwise_mean_deviation(rs, i):
    """(1/G) sum_j (r_i - r_j): the numerator of the pairwise form of A_i (arXiv 2502.18548,
    Section 1, display after Eq. (2))."""
    G = len(rs)
    return sp.Add(*[rs[i] - r for r in rs]) / G


def pairwise_variance(rs):
    """(1/(2 G^2)) sum_j sum_k (r_j - r_k)^2: the radicand of the pairwise form of A_i
    (arXiv 2502.18548, Section 1, display after Eq. (2))."""
    G = len(rs)
    return sp.Add(*[(rj - rk) ** 2 for rj in rs for rk in rs]) / (2 * G ** 2)


def advantage_pairwise(rs, i):
    """A_i written with pairwise reward differences only (arXiv 2502.18548, Section 1,
    display after Eq. (2))."""
    return pairwise_mean_deviation(rs, i) / sp.sqrt(pairwise_variance(rs))


def not_all_equal(rs):
    """A ``where`` relation: the rewards are not all equal, so std > 0 and Eq. (2) of
    arXiv 2502.18548 is defined without the tie convention."""
    return sp.Add(*[(rs[k] - rs[k + 1]) ** 2 for k in range(len(rs) - 1)]) > 0


def advantage_shift_only(rs, i):
    """A_i = r_i - mean(r_1, ..., r_G): the shift-only normalisation (no division by the
    std) of arXiv 2502.18548, Section 3."""
    return rs[i] - mean(rs)


def clip_as_described(x, eps):
    """clip_eps(x) as the sentence after Eq. (1) of arXiv 2502.18548 defines it: 1 outside
    [1 - eps, 1 + eps], x inside (which is not the clip implementations use; see
    :func:`clip_ppo`)."""
    return sp.Piecewise((1, x < 1 - eps), (1, x > 1 + eps), (x, True))


def clip_ppo(x, eps):
    """The clip of PPO (Schulman et al., 2017) and of GRPO implementations: the nearest point
    of [1 - eps, 1 + eps], min(max(x, 1 - eps), 1 + eps) (arXiv 2502.18548, Eq. (1))."""
    return sp.Min(sp.Max(x, 1 - eps), 1 + eps)


def clipped_advantage(x, A, clip, eps):
    """tilde A_i of arXiv 2502.18548, Eq. (1): min(x A, clip(x, eps) A) for the probability
    ratio x = pi_theta / pi_old and advantage A, with a given clip function."""
    return sp.Min(x * A, clip(x, eps) * A)
