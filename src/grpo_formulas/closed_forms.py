"""Closed-form policies (arXiv 2502.18548, Sections 1.1, 2.3.1, 3).

Binary questions (Section 2.3.1): a question with answers a and b, a policy is the single
number pi(a | q); ``ref`` is pi_ref(a | q).
"""

from collections.abc import Mapping

import sympy as sp

__all__ = [
    "closed_form_direct_kl_g2",
    "closed_form_g2",
    "closed_form_large",
    "gibbs",
    "normaliser_direct_kl_g2",
]


def closed_form_g2(beta, gamma, ref):
    """The stationary pi_theta(a | q) of a binary question for groups of two,
    arXiv 2502.18548, Eq. (14): (1/2)(1 - c + sqrt((1 - c)^2 + 4 c ref)) with c = beta/gamma,
    gamma = gamma_{a,b} the confidence margin."""
    c = beta / gamma
    return sp.Rational(1, 2) * (1 - c + sp.sqrt((1 - c) ** 2 + 4 * c * ref))


def closed_form_large(beta, ref):
    """The stationary pi_theta(a | q) of a binary question in the limit of large groups when
    r(a | q) > r(b | q), arXiv 2502.18548, Eq. (15):
    (2 beta^2 ref + 1 + sqrt(1 + 4 beta^2 ref (1 - ref))) / (2 (1 + beta^2))."""
    return (2 * beta ** 2 * ref + 1 + sp.sqrt(1 + 4 * beta ** 2 * ref * (1 - ref))) \
        / (2 * (1 + beta ** 2))


def gibbs(ref, scores, beta):
    """The exponential-form (Gibbs) policy pi(o) = ref(o) exp(score(o)/beta) / Z with Z the sum
    of the numerators: the maximiser of the KL-regularised objective (3), of the form of
    arXiv 2502.18548, Eq. (4).  ``ref`` and ``scores``: dicts over the same outputs (returns a
    dict) or sequences in the same order (returns a tuple)."""
    if isinstance(ref, Mapping):
        w = {o: ref[o] * sp.exp(scores[o] / beta) for o in ref}
        Z = sp.Add(*w.values())
        return {o: w[o] / Z for o in ref}
    w = [ri * sp.exp(si / beta) for ri, si in zip(ref, scores)]
    Z = sp.Add(*w)
    return tuple(wi / Z for wi in w)


def normaliser_direct_kl_g2(gamma, beta, ref_a):
    """Z_q = e^{gamma/(2 beta)} ref + e^{-gamma/(2 beta)} (1 - ref): the normaliser of the
    direct-KL closed form for a binary question and groups of two (arXiv 2502.18548,
    Section 3 and Appendix B.2)."""
    return sp.exp(gamma / (2 * beta)) * ref_a + sp.exp(-gamma / (2 * beta)) * (1 - ref_a)


def closed_form_direct_kl_g2(gamma, beta, ref_a):
    """pi(a | q) = e^{gamma/(2 beta)} ref(a) / Z_q: the stationary policy of a binary question
    for groups of two when the penalty is the direct KL divergence (arXiv 2502.18548,
    Section 3, with Appendix B.2).  Note the argument order (gamma, beta, ref), unlike
    :func:`closed_form_g2`."""
    return sp.exp(gamma / (2 * beta)) * ref_a / normaliser_direct_kl_g2(gamma, beta, ref_a)
