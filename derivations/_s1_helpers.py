"""Definitions shared by the Section 1 / 1.1 derivation modules (a helper: not scanned).

Section 1: the pairwise forms of the advantage (display after Eq. (2)) and the clip
function of Eq. (1), as the paper describes it and as PPO / GRPO implement it.
Section 1.1: finite (3-output) versions of the RLHF objective (3), its Gibbs maximiser
(4), and the NLHF payoff (5) with its Gibbs best response.

The advantage forms, the clip, KL and the Gibbs policy live in the installed package
``grpo_formulas``; this file keeps the names the modules import.
"""

import sympy as sp

from grpo_formulas.advantage import (
    advantage_pairwise,
    clip_as_described,
    clip_ppo,
    clipped_advantage,
    not_all_equal,
    pairwise_mean_deviation,
    pairwise_variance,
    population_variance,
)
from grpo_formulas.closed_forms import gibbs
from grpo_formulas.divergence import kl

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["advantage_pairwise", "clip_as_described", "clip_ppo", "clipped_advantage",
           "expected_preference", "gibbs", "kl", "luce", "nlhf_payoff", "normalise",
           "not_all_equal", "pairwise_mean_deviation", "pairwise_variance", "population_variance",
           "preference_matrix", "rlhf_objective", "simplex3"]

# --------------------------------------------------------------------- Section 1.1

def simplex3(a, b):
    """A 3-output distribution (a, b, 1 - a - b)."""
    return (a, b, 1 - a - b)


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
