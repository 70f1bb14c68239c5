"""Reusable definitions of GRPO's alignment objective, for derivation modules.

The formulas of *What is the Alignment Objective of GRPO?* (Vojnovic & Yun, 2025,
arXiv 2502.18548) written once as sympy expressions, so that any derivations directory
(the bundled paper's, ``examples/dpo``, your own) can import them instead of copying them::

    from grpo_formulas.advantage import mean, std, normalised_advantage
    from grpo_formulas.divergence import kl, kl0, k3
    from grpo_formulas.preference import expected_group_relative_preference
    from grpo_formulas.closed_forms import closed_form_g2, closed_form_large, gibbs

Modules (each function's docstring names the section and equation it implements):

- ``advantage``: group mean, population std, the normalised advantage of Eq. (2) with and
  without the 0/0 := 0 tie convention, its pairwise form, the shift-only advantage of
  Section 3, the clip of Eq. (1);
- ``groups``: exact expectations over groups of G i.i.d. outputs with stochastic rewards;
- ``preference``: the reward preference R_G and the (expected) group-relative preference
  P_G of Section 2.1 (Eq. (6)), closed forms for two-level rewards, win probabilities;
- ``divergence``: KL, reverse KL, KL_0 and the penalty D of Section 2.2 (Eq. (7)), the KL
  estimators k1, k2, k3 (the GRPO penalty term of Eq. (1) is k3), the direct-KL penalty of
  Section 3, Bernoulli KL;
- ``objective``: the per-context objective J_GRPO of Section 2.3;
- ``closed_forms``: the binary-question stationary policies (14) and (15), the Gibbs policy
  of Eq. (4), the direct-KL closed form of Section 3 for groups of two;
- ``dynamics`` (numpy, no sympy): the GRPO update of Eq. (1) simulated, vectorised over runs,
  for ``Simulation`` claims; the reference points it is compared with (x_G, Eq. (12) solved
  numerically, (14) and (15) in floats) and the paper's notion of stationarity iterated.

This package is content, not engine: it uses sympy, numpy (``dynamics``) and
``verify_claims.expectations``;
the verifier (``verify_claims``) never imports it.  Importing ``grpo_formulas`` itself
loads nothing but this docstring; import the submodules you need.
"""

__all__ = ["advantage", "closed_forms", "divergence", "dynamics", "groups", "objective", "preference"]
