"""GRPO's reward preference (arXiv 2502.18548, Section 2.1, Eq. (6)).

pi, old: dicts {output: probability} or :class:`verify_claims.expectations.Categorical`
laws as noted; ``kernel(o)`` is the Categorical law of the reward of output o (a
deterministic reward is :func:`grpo_formulas.groups.point_mass`).  Everything is an exact
finite sum; the advantage is Eq. (2) with the 0/0 := 0 convention
(:func:`grpo_formulas.advantage.advantage_ties_structural`), or the shift-only advantage of
Section 3 for the ``*_shift_only`` functions.
"""

from functools import cache

import sympy as sp

from verify_claims.expectations import Categorical, compositions

from .advantage import advantage_shift_only
from .advantage import advantage_ties_structural as adv
from .groups import joint_law, symmetric_group_expectation

__all__ = [
    "binomial_weight",
    "expected_group_relative_preference",
    "expected_group_relative_preference_shift_only",
    "expected_preference_under",
    "expected_sign",
    "group_relative_preference",
    "pg_expected_binary",
    "pg_reward_one",
    "pg_reward_zero",
    "reward_preference_def",
    "reward_preference_shift_only_def",
    "win_probability",
]


def reward_preference_def(pi: dict, old: Categorical, kernel, G: int):
    """R_G(theta | q) from its definition (arXiv 2502.18548, Section 2.1, display before
    Eq. (6)): the expectation over G i.i.d. (output, reward) pairs, o_i ~ old and
    r_i ~ kernel(o_i), of (1/G) sum_i pi(o_i)/old(o_i) A_i."""
    J = joint_law(old, kernel)
    # the kernel probability of each joint outcome (o, r), so that the weight of a group
    # divided by pi_old(o) is built as a polynomial (no pi_old(o) denominator meets the
    # std denominator of A_i, which would stop sympy from cancelling)
    kprob = [pk for o in old.outcomes for pk in kernel(o).probs]  # order of Categorical.then
    out = []
    for counts, _ in compositions(J, G):
        group = [x for x, c in zip(J.outcomes, counts) for _ in range(c)]
        rs = [r for _, r in group]
        coef = sp.factorial(G) / sp.Mul(*[sp.factorial(c) for c in counts])
        pos = 0
        for j, c in enumerate(counts):
            if c == 0:
                continue
            o = J.outcomes[j][0]
            # prob / pi_old(o) = coef * prod_m P_m^{c_m - [m = j]} * P(r_j | o)
            w = coef * sp.Mul(*[J.probs[m] ** (counts[m] - (m == j)) for m in range(len(counts))]) \
                * kprob[j]
            out.append(c * w * pi[o] * adv(rs, pos) / G)
            pos += c
    return sp.Add(*out)


def group_relative_preference(o, others, kernel):
    """P_G(o | {o'_1, ..., o'_{G-1}}, q) (arXiv 2502.18548, Section 2.1, definition after
    Eq. (6)): the expected advantage A_1 of the group (o, o'_1, ..., o'_{G-1}) over independent
    rewards r_1 ~ kernel(o), r_{j+1} ~ kernel(o'_j)."""
    laws = [kernel(o)] + [kernel(x) for x in others]
    acc = [((), sp.S.One)]
    for law in laws:
        acc = [(rs + (r,), w * p) for rs, w in acc for r, p in zip(law.outcomes, law.probs)]
    return sp.Add(*[w * adv(list(rs), 0) for rs, w in acc])


@cache  # several claims state facts about the same expectation: build it once
def expected_group_relative_preference(o, old: Categorical, kernel, G: int):
    """P_G(o | pi_old, q) (arXiv 2502.18548, Section 2.1, display before Eq. (6)): the
    expectation of P_G(o | {o'_i}) over o'_1..o'_{G-1} i.i.d. ~ old.  Computed as E[A_1] with
    r_1 ~ kernel(o) and the other G - 1 (output, reward) pairs i.i.d. from the joint law
    (A_1 is symmetric in those, so compositions suffice).  Cached: arguments must be hashable."""
    J = joint_law(old, kernel)
    own = kernel(o)
    out = []
    for r1, p1 in zip(own.outcomes, own.probs):
        out.append(p1 * symmetric_group_expectation(
            J, G - 1, lambda grp, r1=r1: adv([r1] + [r for _, r in grp], 0)))
    return sp.Add(*out)


def expected_preference_under(pi: dict, old: Categorical, kernel, G: int):
    """The right-hand side of arXiv 2502.18548, Eq. (6): E_{o ~ pi}[P_G(o | pi_old, q)]."""
    return sp.Add(*[pi[o] * expected_group_relative_preference(o, old, kernel, G) for o in pi])


# --------------------------------------------------------------------- two-level rewards, symbolic G

def binomial_weight(n, k, p):
    """The Binomial(n, p) probability of k."""
    return sp.binomial(n, k) * p ** k * (1 - p) ** (n - k)


def pg_reward_one(G, k, mu):
    """P_G(o | pi_old) of arXiv 2502.18548, Section 2.1, for an output o with reward 1 when the
    other rewards are 0/1 with mean mu, as a Sum over the number k of other ones.  With
    m = k + 1 ones, A_1 = sqrt((G - 1 - k)/(k + 1)), which is 0 at the tie k = G - 1 (the 0/0
    convention of Eq. (2))."""
    return sp.Sum(binomial_weight(G - 1, k, mu) * sp.sqrt(G - 1 - k) / sp.sqrt(k + 1), (k, 0, G - 1))


def pg_reward_zero(G, k, mu):
    """As :func:`pg_reward_one` for an output with reward 0: A_1 = -sqrt(k/(G - k)), which is 0
    at the tie k = 0 (arXiv 2502.18548, Section 2.1 and Eq. (2))."""
    return -sp.Sum(binomial_weight(G - 1, k, mu) * sp.sqrt(k) / sp.sqrt(G - k), (k, 0, G - 1))


def pg_expected_binary(G, k, w_high, mu):
    """E_{o ~ pi}[P_G(o | pi_old)] (arXiv 2502.18548, Eq. (6)) for 0/1 rewards as one Sum:
    w_high pg_reward_one + (1 - w_high) pg_reward_zero, w_high = P_{o ~ pi}[reward 1]."""
    return sp.Sum(binomial_weight(G - 1, k, mu) * (w_high * sp.sqrt(G - 1 - k) / sp.sqrt(k + 1)
                                                    - (1 - w_high) * sp.sqrt(k) / sp.sqrt(G - k)),
                  (k, 0, G - 1))


# --------------------------------------------------------------------- shift-only normalisation

@cache  # several claims state facts about the same expectation: build it once
def expected_group_relative_preference_shift_only(o, old: Categorical, kernel, G: int):
    """P_G(o | pi_old, q) (arXiv 2502.18548, Section 2.1, display before Eq. (6)) with the
    shift-only advantage of Section 3: E[A_1] with r_1 ~ kernel(o) and the other G - 1
    (output, reward) pairs i.i.d. from the joint law of old and the reward kernel."""
    J = old.then(kernel)
    own = kernel(o)
    return sp.Add(*[p1 * symmetric_group_expectation(
        J, G - 1, lambda grp, r1=r1: advantage_shift_only([r1] + [r for _, r in grp], 0))
        for r1, p1 in zip(own.outcomes, own.probs)])


def reward_preference_shift_only_def(pi: dict, old: Categorical, kernel, G: int):
    """R_G(theta | q) from its definition (arXiv 2502.18548, Section 2.1) with the shift-only
    advantage of Section 3: E[(1/G) sum_i pi(o_i)/old(o_i) A_i] over G i.i.d. (output, reward)
    pairs."""
    J = old.then(kernel)
    old_p = dict(zip(old.outcomes, old.probs))

    def f(group):
        rs = [r for _, r in group]
        return sp.Add(*[pi[o] / old_p[o] * advantage_shift_only(rs, i)
                        for i, (o, _) in enumerate(group)]) / G
    return symmetric_group_expectation(J, G, f)


# --------------------------------------------------------------------- pairwise comparisons

def win_probability(law1: Categorical, law2: Categorical, rank=None):
    """P[r_1 > r_2] for independent r_1 ~ law1, r_2 ~ law2: the preference probability
    P(a > b | q) of arXiv 2502.18548, Section 2.3.1 (groups of two).  Without ``rank`` the
    levels' order is sympy's (r_1 - r_2 known positive, e.g. lo < lo + g with g > 0); with
    ``rank`` (a function of a level) the order is rank(r_1) > rank(r_2)."""
    if rank is None:
        def better(r1, r2):
            return (r1 - r2).is_positive
    else:
        def better(r1, r2):
            return rank(r1) > rank(r2)
    return sp.Add(*[p1 * p2 for r1, p1 in zip(law1.outcomes, law1.probs)
                    for r2, p2 in zip(law2.outcomes, law2.probs) if better(r1, r2)])


def expected_sign(law1: Categorical, law2: Categorical):
    """E[sign(r_1 - r_2)] for independent r_1 ~ law1, r_2 ~ law2: the confidence margin
    gamma_{a,b} = P(a > b | q) - P(b > a | q) of arXiv 2502.18548, Section 2.3.1 (after
    Eq. (14))."""
    return sp.Add(*[p1 * p2 * sp.sign(r1 - r2)
                    for r1, p1 in zip(law1.outcomes, law1.probs)
                    for r2, p2 in zip(law2.outcomes, law2.probs)])
