"""Definitions shared by the Section 2.1 / 2.2 derivation modules (a helper: not scanned).

Section 2.1: the reward preference R_G(theta | q) from its definition (importance ratio
times advantage, averaged over a group drawn from pi_old), the group-relative preference
P_G of the display after Eq. (6) with stochastic rewards, and closed forms for binary
(0/1-valued) rewards used in the large-group limit.

Section 2.2: the penalty D(theta | q) of Eq. (7) from its definition, KL_0 of the
display after Eq. (7), the KL divergence and the reverse KL divergence, all for finitely
many outputs whose probabilities are plain symbols.

Distributions are :class:`verify_claims.expectations.Categorical`.  A joint law of
(output, reward) is ``old.then(kernel)`` with ``kernel(o)`` the law of the reward of o.
"""

from functools import lru_cache

import sympy as sp

from verify_claims.expectations import Categorical, compositions

from _grpo import mean, std


# --------------------------------------------------------------------- advantages

def adv(rs, i):
    """A_i of Eq. (2) with the paper's convention A_i = 0/0 := 0 when all r are equal.

    The tie is decided structurally: rewards are numbers or *distinct* reward levels
    (written lo, lo + g_1, ... with positive gaps, or symbols a claim keeps apart with
    ``where``), so a group ties exactly when all its entries are the same number or the
    same level.  Any finite
    reward law is a law over distinct levels, so this loses no generality, and unlike
    a Piecewise it keeps the expectations free of case splits (sympy's piecewise_fold
    on a sum of many Piecewise terms blows up).
    """
    rs = [sp.sympify(r) for r in rs]
    if all(r == rs[0] for r in rs[1:]):
        return sp.S.Zero
    return (rs[i] - mean(rs)) / std(rs)


# --------------------------------------------------------------------- expectations

def symmetric_group_expectation(dist, n, f):
    """E[f(X_1, ..., X_n)] for X_i i.i.d. ~ dist and f symmetric in its arguments,
    summed over compositions (multinomial weights) instead of all n-tuples."""
    out = []
    for counts, prob in compositions(dist, n):
        tup = tuple(o for o, c in zip(dist.outcomes, counts) for _ in range(c))
        out.append(prob * sp.sympify(f(tup)))
    return sp.Add(*out)


def joint_law(policy: Categorical, kernel):
    """Law of (o, r): o ~ policy, then r ~ kernel(o)."""
    return policy.then(kernel)


def reward_preference_def(pi: dict, old: Categorical, kernel, G: int):
    """R_G(theta | q) of Section 2.1 from its definition:
    E_{(o_i, r_i) i.i.d.} [ (1/G) sum_i pi(o_i)/pi_old(o_i) A_i ],
    with o_i ~ pi_old and r_i ~ kernel(o_i) independently; A_i with the tie convention.
    The bracket is symmetric in the G pairs (o_i, r_i), so compositions suffice."""
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
            # prob / pi_old(o) = coef * prod_l P_l^{c_l - [l = j]} * P(r_j | o)
            w = coef * sp.Mul(*[J.probs[l] ** (counts[l] - (l == j)) for l in range(len(counts))]) \
                * kprob[j]
            out.append(c * w * pi[o] * adv(rs, pos) / G)
            pos += c
    return sp.Add(*out)


def group_relative_preference(o, others, kernel):
    """P_G(o | {o'_1, ..., o'_{G-1}}, q) (display after Eq. (6)): E[A_1 | o_1 = o,
    o_2 = o'_1, ...] over independent rewards r_1 ~ kernel(o), r_{j+1} ~ kernel(o'_j)."""
    laws = [kernel(o)] + [kernel(x) for x in others]
    acc = [((), sp.S.One)]
    for law in laws:
        acc = [(rs + (r,), w * p) for rs, w in acc for r, p in zip(law.outcomes, law.probs)]
    return sp.Add(*[w * adv(list(rs), 0) for rs, w in acc])


@lru_cache(maxsize=None)  # several claims state facts about the same expectation: build it once
def expected_group_relative_preference(o, old: Categorical, kernel, G: int):
    """P_G(o | pi_old, q) (display before Eq. (6)): the expectation of
    P_G(o | {o'_i}) over o'_1..o'_{G-1} i.i.d. ~ pi_old.  Equivalently E[A_1] with
    r_1 ~ kernel(o) and the other G - 1 (output, reward) pairs i.i.d. from the joint
    law; A_1 is symmetric in those, so compositions suffice."""
    J = joint_law(old, kernel)
    own = kernel(o)
    out = []
    for r1, p1 in zip(own.outcomes, own.probs):
        out.append(p1 * symmetric_group_expectation(
            J, G - 1, lambda grp: adv([r1] + [r for _, r in grp], 0)))
    return sp.Add(*out)


def expected_preference_under(pi: dict, old: Categorical, kernel, G: int):
    """Right-hand side of Eq. (6): E_{o ~ pi}[P_G(o | pi_old, q)]."""
    return sp.Add(*[pi[o] * expected_group_relative_preference(o, old, kernel, G) for o in pi])


def point_mass(value):
    """A deterministic reward as a one-point law."""
    return Categorical([value], [1])


# --------------------------------------------------------------------- binary rewards, symbolic G

def binomial_weight(n, k, p):
    return sp.binomial(n, k) * p ** k * (1 - p) ** (n - k)


def pg_reward_one(G, k, mu):
    """sum_{k=0}^{G-1} Bin(G-1, mu)(k) * A_1, where o_1 has reward 1 and k of the other
    G - 1 rewards are 1.  With m = k + 1 ones, mean = m/G and std = sqrt(m/G (1 - m/G)),
    so A_1 = (1 - m/G)/std = sqrt((G - 1 - k)/(k + 1)); at k = G - 1 all rewards tie and
    this is 0, the paper's convention."""
    return sp.Sum(binomial_weight(G - 1, k, mu) * sp.sqrt(G - 1 - k) / sp.sqrt(k + 1), (k, 0, G - 1))


def pg_reward_zero(G, k, mu):
    """As pg_reward_one for o_1 with reward 0: A_1 = (0 - k/G)/sqrt(k/G (1 - k/G))
    = -sqrt(k/(G - k)); at k = 0 all rewards tie and this is 0."""
    return -sp.Sum(binomial_weight(G - 1, k, mu) * sp.sqrt(k) / sp.sqrt(G - k), (k, 0, G - 1))


def pg_expected_binary(G, k, w_high, mu):
    """w_high * pg_reward_one + (1 - w_high) * pg_reward_zero as a single Sum (linearity):
    E_{o ~ pi}[P_G(o | pi_old)] for two-level rewards, w_high = P_{o ~ pi}[high reward]."""
    return sp.Sum(binomial_weight(G - 1, k, mu) * (w_high * sp.sqrt(G - 1 - k) / sp.sqrt(k + 1)
                                                    - (1 - w_high) * sp.sqrt(k) / sp.sqrt(G - k)),
                  (k, 0, G - 1))


# --------------------------------------------------------------------- Section 2.2

def penalty_term(pi_o, ref_o):
    """D_i(theta) of Eq. (1): ref/pi - log(ref/pi) - 1 at output o_i."""
    return ref_o / pi_o - sp.log(ref_o / pi_o) - 1


def penalty_def(pi: dict, ref: dict, old: Categorical, G: int):
    """D(theta | q) of Eq. (7): E_{o_i i.i.d. ~ pi_old}[(1/G) sum_i D_i(theta)]."""
    def f(group):
        return sp.Add(*[penalty_term(pi[o], ref[o]) for o in group]) / G
    return symmetric_group_expectation(old, G, f)


def kl0(pi: dict, ref: dict, old: dict):
    """KL_0(pi || ref; pi_old) (display after Eq. (7)):
    E_{x ~ pi_old}[ref/pi] - E_{x ~ pi_old}[log(ref/pi)] - 1."""
    return sp.Add(*[old[x] * ref[x] / pi[x] for x in old]) \
        - sp.Add(*[old[x] * sp.log(ref[x] / pi[x]) for x in old]) - 1


def kl(p: dict, q: dict):
    """KL(p || q) = E_{x ~ p}[log(p(x)/q(x))] (Section 1.1)."""
    return sp.Add(*[p[x] * sp.log(p[x] / q[x]) for x in p])


def kl_rev(pi: dict, ref: dict):
    """KL_rev(pi || ref) = KL(ref || pi) (Section 2.2)."""
    return kl(ref, pi)
