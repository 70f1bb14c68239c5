"""Definitions shared by the Section 1 / 1.1 derivation modules (a helper: not scanned).

Section 1: the pairwise forms of the advantage (display after Eq. (2)) and the clip
function of Eq. (1), as the paper describes it and as PPO / GRPO implement it.
Section 1.1: finite (3-output) versions of the RLHF objective (3), its Gibbs maximiser
(4), and the NLHF payoff (5) with its Gibbs best response.
"""

import sympy as sp

from _grpo import mean


# --------------------------------------------------------------------- Section 1

def pairwise_mean_deviation(rs, i):
    """(1/G) sum_j (r_i - r_j): numerator of the display after Eq. (2)."""
    G = len(rs)
    return sp.Add(*[rs[i] - r for r in rs]) / G


def population_variance(rs):
    """(1/G) sum_i (r_i - mean)^2, the square of std in Eq. (2)."""
    m = mean(rs)
    return sp.Add(*[(r - m) ** 2 for r in rs]) / len(rs)


def pairwise_variance(rs):
    """(1/(2 G^2)) sum_j sum_k (r_j - r_k)^2: radicand of the display after Eq. (2)."""
    G = len(rs)
    return sp.Add(*[(rj - rk) ** 2 for rj in rs for rk in rs]) / (2 * G ** 2)


def advantage_pairwise(rs, i):
    """The display after Eq. (2): A_i written with pairwise reward differences only."""
    return pairwise_mean_deviation(rs, i) / sp.sqrt(pairwise_variance(rs))


def not_all_equal(rs):
    """A `where` relation: the rewards of the group are not all equal (std > 0)."""
    return sp.Add(*[(rs[k] - rs[k + 1]) ** 2 for k in range(len(rs) - 1)]) > 0


def clip_as_described(x, eps):
    """clip_eps(x) as the sentence after Eq. (1) describes it: 1 if x < 1 - eps or
    x > 1 + eps, and x otherwise."""
    return sp.Piecewise((1, x < 1 - eps), (1, x > 1 + eps), (x, True))


def clip_ppo(x, eps):
    """The clip of PPO (Schulman et al. 2017) and GRPO implementations: the nearest
    point of [1 - eps, 1 + eps], i.e. min(max(x, 1 - eps), 1 + eps)."""
    return sp.Min(sp.Max(x, 1 - eps), 1 + eps)


def clipped_advantage(x, A, clip, eps):
    """tilde A_i of Eq. (1) for probability ratio x and advantage A, with a given clip."""
    return sp.Min(x * A, clip(x, eps) * A)


# --------------------------------------------------------------------- Section 1.1

def simplex3(a, b):
    """A 3-output distribution (a, b, 1 - a - b)."""
    return (a, b, 1 - a - b)


def kl(p, q):
    """KL(p || q) = sum_x p(x) log(p(x)/q(x)) (Section 1.1, after Eq. (3))."""
    return sp.Add(*[pi * sp.log(pi / qi) for pi, qi in zip(p, q)])


def gibbs(ref, scores, beta):
    """The distribution proportional to ref(o) exp(score(o)/beta) (Eq. (4) form)."""
    w = [ri * sp.exp(si / beta) for ri, si in zip(ref, scores)]
    Z = sp.Add(*w)
    return tuple(wi / Z for wi in w)


def rlhf_objective(pi, r, ref, beta):
    """Eq. (3) for one context: E_{o~pi}[r(o)] - beta KL(pi || pi_ref)."""
    return sp.Add(*[p * ri for p, ri in zip(pi, r)]) - beta * kl(pi, ref)


def luce(r):
    """Luce's choice distribution e^{r(o)} / sum_o' e^{r(o')} (Section 1.1, after (4))."""
    w = [sp.exp(ri) for ri in r]
    S = sp.Add(*w)
    return tuple(wi / S for wi in w)


def normalise(ws):
    S = sp.Add(*ws)
    return tuple(w / S for w in ws)


def preference_matrix(P12, P13, P23):
    """P[i][j] = P(o_i > o_j) for 3 outputs with the antisymmetry P(o' > o) = 1 - P(o > o')
    of Section 1.1 (which forces P(o > o) = 1/2)."""
    half = sp.Rational(1, 2)
    return ((half, P12, P13),
            (1 - P12, half, P23),
            (1 - P13, 1 - P23, half))


def expected_preference(P, opp):
    """p_i = E_{o' ~ opp}[P(o_i > o')] for each output i."""
    return tuple(sp.Add(*[P[i][j] * opp[j] for j in range(len(opp))]) for i in range(len(P)))


def nlhf_payoff(pi, opp, P, ref, beta):
    """Eq. (5) for one context, written as the double expectation over o ~ pi, o' ~ opp:
    sum_{i,j} pi_i opp_j [P(o_i > o_j) - beta log(pi_i/ref_i) + beta log(opp_j/ref_j)]."""
    n = len(pi)
    return sp.Add(*[pi[i] * opp[j] * (P[i][j] - beta * sp.log(pi[i] / ref[i])
                                      + beta * sp.log(opp[j] / ref[j]))
                    for i in range(n) for j in range(n)])
