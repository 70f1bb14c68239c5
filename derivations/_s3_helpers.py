"""Definitions shared by the Section 3 / Appendix B.2 derivation module (a helper: not scanned).

Section 3, direct KL penalty: the importance-weighted penalty term D_i and its group
expectation D(theta | q) of Eq. (7); Gibbs (exponential-form) policies; the Bernoulli KL
divergence of the binary appendix.  Section 3, shift-only normalisation: the advantage
A_i = r_i - mean(r_1..r_G) and, for it, the group-relative preference P_G(o | pi_old)
and the reward preference R_G from their definitions (Section 2.1) with stochastic
rewards.  Appendix B.2: the function h of the large-group case, the point x* the paper
gives, and the potential whose derivative is the on-policy derivative beta h.

Expectations are exact finite sums (verify_claims.expectations.Categorical).  The
penalty terms, the Bernoulli KL, the Gibbs policy, the shift-only advantage and preferences
and the groups-of-two closed form live in the installed package ``grpo_formulas``; this
file keeps the names the modules import and the Appendix B.2 specifics.
"""

import sympy as sp

from grpo_formulas.advantage import advantage_shift_only as adv_shift
from grpo_formulas.closed_forms import closed_form_direct_kl_g2 as closed_form_g2
from grpo_formulas.closed_forms import gibbs
from grpo_formulas.closed_forms import normaliser_direct_kl_g2 as z_q
from grpo_formulas.divergence import (
    kl_bern,
    kl_bern_closed,
    penalty_direct_def,
    penalty_term_direct,
    xlogx,
)
from grpo_formulas.preference import (
    expected_group_relative_preference_shift_only as expected_pref_shift,
)
from grpo_formulas.preference import (
    reward_preference_shift_only_def as reward_pref_shift_def,
)
from grpo_formulas.preference import win_probability as win_prob

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["adv_shift", "closed_form_g2", "expected_pref_shift", "gibbs", "h_fn", "h_min",
           "kl_bern", "kl_bern_closed", "logit", "penalty_direct_def", "penalty_term_direct",
           "potential_large_g", "reference_making_stationary", "reward_pref_shift_def", "win_prob",
           "x_star", "xlogx", "z_q"]


# --------------------------------------------------------------------- direct KL penalty

def reference_making_stationary(x: dict, u: dict, beta):
    """The reference policy for which x is the exponential-form fixed point with scores u:
    ref(o) = x(o) e^{-u(o)/beta} / N.  Every interior x arises this way (for the chosen
    scores), so a claim over all x covers all interior fixed points."""
    w = {o: x[o] * sp.exp(-u[o] / beta) for o in x}
    N = sp.Add(*w.values())
    return {o: w[o] / N for o in x}


# --------------------------------------------------------------------- large groups, binary

def logit(x):
    return sp.log(x / (1 - x))


def h_fn(x, beta, ref_a):
    """h(x) of Appendix B.2 (last displays): (1/beta)/sqrt(x(1-x)) - log(x/(1-x))
    + log(ref/(1-ref))."""
    return 1 / beta / sp.sqrt(x * (1 - x)) - logit(x) + logit(ref_a)


def x_star(beta):
    """x* = (1 + sqrt(1 - 1/(1 + beta^2)))/2 as the paper writes it (end of Appendix B.2)."""
    return (1 + sp.sqrt(1 - 1 / (1 + beta ** 2))) / 2


def h_min(beta, ref_a):
    """h(x*) in closed form (derived here, not in the paper): with y = 2x* - 1 =
    beta/sqrt(1 + beta^2), sqrt(x*(1-x*)) = 1/(2 sqrt(1+beta^2)) and
    log(x*/(1-x*)) = 2 asinh(beta)."""
    return 2 * sp.sqrt(1 + beta ** 2) / beta - 2 * sp.asinh(beta) + logit(ref_a)


def potential_large_g(x, beta, ref_a):
    """Phi(x) = arcsin(2x - 1) - beta KL(x || ref): a function whose derivative is the
    on-policy derivative beta h(x) (with gamma~ = 1).  Extended to x in {0, 1} by
    continuity."""
    return sp.asin(2 * x - 1) - beta * kl_bern_closed(x, ref_a)
