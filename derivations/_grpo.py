"""Definitions shared by the derivation modules (a helper: not scanned for claims).

Section 1, Eq. (2): group mean, population std and the normalised advantage, with the
paper's convention A_i = 0/0 := 0 when all rewards of the group are equal.
"""

import sympy as sp


def mean(rs):
    """mean(r_1, ..., r_G) = (1/G) sum_i r_i  (Section 1, after Eq. (2))."""
    return sp.Add(*rs) / len(rs)


def std(rs):
    """std(r_1, ..., r_G) = sqrt((1/G) sum_i (r_i - mean)^2): the population std."""
    m = mean(rs)
    return sp.sqrt(sp.Add(*[(r - m) ** 2 for r in rs]) / len(rs))


def advantage(rs, i):
    """A_i of Eq. (2), without the tie convention (undefined when all r are equal)."""
    return (rs[i] - mean(rs)) / std(rs)


def all_equal(rs):
    return sp.And(*[sp.Eq(rs[0], r) for r in rs[1:]])


def advantage_with_ties(rs, i):
    """A_i of Eq. (2) with the convention A_i = 0/0 := 0 when r_1 = ... = r_G."""
    return sp.Piecewise((0, all_equal(rs)), (advantage(rs, i), True))
