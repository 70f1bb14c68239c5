"""Definitions shared by the Section 3 / Appendix B.2 derivation module (a helper: not scanned).

Section 3, direct KL penalty: the importance-weighted penalty term D_i and its group
expectation D(theta | q) of Eq. (7); Gibbs (exponential-form) policies; the Bernoulli KL
divergence of the binary appendix.  Section 3, shift-only normalisation: the advantage
A_i = r_i - mean(r_1..r_G) and, for it, the group-relative preference P_G(o | pi_old)
and the reward preference R_G from their definitions (Section 2.1) with stochastic
rewards.  Appendix B.2: the function h of the large-group case, the point x* the paper
gives, and the potential whose derivative is the on-policy derivative beta h.

Expectations are exact finite sums (verify_claims.expectations.Categorical); the
KL_0-based definitions of Section 2.2 are imported from _s2_helpers.
"""

from functools import lru_cache

import sympy as sp

from verify_claims.expectations import Categorical

from _grpo import mean
from _s2_helpers import penalty_term, symmetric_group_expectation


# --------------------------------------------------------------------- direct KL penalty

def penalty_term_direct(pi_o, old_o, ref_o):
    """D_i(theta) of Section 3 (first display): the importance weight pi/pi_old times the
    GRPO term ref/pi - log(ref/pi) - 1 of Eq. (1)."""
    return pi_o / old_o * penalty_term(pi_o, ref_o)


def penalty_direct_def(pi: dict, ref: dict, old: Categorical, G: int):
    """D(theta | q) of Eq. (7) with the Section 3 penalty terms:
    E_{o_i i.i.d. ~ pi_old}[(1/G) sum_i D_i(theta)], an exact finite sum."""
    old_p = dict(zip(old.outcomes, old.probs))

    def f(group):
        return sp.Add(*[penalty_term_direct(pi[o], old_p[o], ref[o]) for o in group]) / G
    return symmetric_group_expectation(old, G, f)


def kl_bern(p, q):
    """KL(Bernoulli(p) || Bernoulli(q)) for p, q in (0, 1) (Appendix B.2)."""
    return p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q))


def xlogx(x):
    """x log x continued by its limit 0 at x = 0 (so that a KL is defined on the closed
    interval; a Piecewise, so the prover treats it as non-smooth and leaves it to the
    numbers)."""
    return sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(x), True))


def kl_bern_closed(p, q):
    """kl_bern extended to p in [0, 1] by continuity (0 log 0 = 0)."""
    return xlogx(p) + xlogx(1 - p) - p * sp.log(q) - (1 - p) * sp.log(1 - q)


def gibbs(ref: dict, u: dict, beta):
    """The exponential-form policy pi(o) = ref(o) e^{u(o)/beta} / Z, Z = sum of numerators."""
    w = {o: ref[o] * sp.exp(u[o] / beta) for o in ref}
    Z = sp.Add(*w.values())
    return {o: w[o] / Z for o in ref}


def reference_making_stationary(x: dict, u: dict, beta):
    """The reference policy for which x is the exponential-form fixed point with scores u:
    ref(o) = x(o) e^{-u(o)/beta} / N.  Every interior x arises this way (for the chosen
    scores), so a claim over all x covers all interior fixed points."""
    w = {o: x[o] * sp.exp(-u[o] / beta) for o in x}
    N = sp.Add(*w.values())
    return {o: w[o] / N for o in x}


# --------------------------------------------------------------------- shift-only normalisation

def adv_shift(rs, i):
    """Shift-only advantage of Section 3: A_i = r_i - mean(r_1, ..., r_G) (no std)."""
    return rs[i] - mean(rs)


@lru_cache(maxsize=None)  # several claims state facts about the same expectation: build it once
def expected_pref_shift(o, old: Categorical, kernel, G: int):
    """P_G(o | pi_old, q) with the shift-only advantage (definition before Eq. (6)):
    E[A_1] with r_1 ~ kernel(o) and the other G - 1 (output, reward) pairs i.i.d. from the
    joint law of pi_old and the reward kernel."""
    J = old.then(kernel)
    own = kernel(o)
    return sp.Add(*[p1 * symmetric_group_expectation(
        J, G - 1, lambda grp, r1=r1: adv_shift([r1] + [r for _, r in grp], 0))
        for r1, p1 in zip(own.outcomes, own.probs)])


def reward_pref_shift_def(pi: dict, old: Categorical, kernel, G: int):
    """R_G(theta | q) of Section 2.1 from its definition with the shift-only advantage:
    E_{(o_i, r_i) i.i.d.}[(1/G) sum_i pi(o_i)/pi_old(o_i) A_i]."""
    J = old.then(kernel)
    old_p = dict(zip(old.outcomes, old.probs))

    def f(group):
        rs = [r for _, r in group]
        return sp.Add(*[pi[o] / old_p[o] * adv_shift(rs, i) for i, (o, _) in enumerate(group)]) / G
    return symmetric_group_expectation(J, G, f)


# --------------------------------------------------------------------- groups of two, binary

def win_prob(law1: Categorical, law2: Categorical, rank):
    """P[r > r'] for independent r ~ law1, r' ~ law2 over ordered levels (rank gives the order)."""
    return law1.then(lambda r: law2).prob(lambda rr: rank(rr[0]) > rank(rr[1]))


def closed_form_g2(gamma, beta, ref_a):
    """Section 3 / Appendix B.2: pi(a) = e^{gamma/(2 beta)} ref(a) / Z_q with
    Z_q = e^{gamma/(2 beta)} ref(a) + e^{-gamma/(2 beta)} (1 - ref(a))."""
    return sp.exp(gamma / (2 * beta)) * ref_a / z_q(gamma, beta, ref_a)


def z_q(gamma, beta, ref_a):
    return sp.exp(gamma / (2 * beta)) * ref_a + sp.exp(-gamma / (2 * beta)) * (1 - ref_a)


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
