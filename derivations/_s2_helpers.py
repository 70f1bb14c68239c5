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

The definitions live in the installed package ``grpo_formulas`` (reusable by any
derivations directory); this file keeps the names the modules import.
"""

from grpo_formulas.advantage import advantage_ties_structural as adv
from grpo_formulas.divergence import kl, kl0, kl_rev, penalty_def, penalty_term
from grpo_formulas.groups import joint_law, point_mass, symmetric_group_expectation
from grpo_formulas.preference import (
    binomial_weight,
    expected_group_relative_preference,
    expected_preference_under,
    group_relative_preference,
    pg_expected_binary,
    pg_reward_one,
    pg_reward_zero,
    reward_preference_def,
)

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["adv", "binomial_weight", "expected_group_relative_preference",
           "expected_preference_under", "group_relative_preference", "joint_law", "kl", "kl0",
           "kl_rev", "penalty_def", "penalty_term", "pg_expected_binary", "pg_reward_one",
           "pg_reward_zero", "point_mass", "reward_preference_def", "symmetric_group_expectation"]


# why a mistake in a binomial sum survives a claim about its large-group limit (--mutate):
# Limit(..., harmless_mutants={"expr:*": SAME_LIMIT})
# (a change of relative size O(1/G), sqrt(k + 2) for sqrt(k + 1), moves the declared 1/G
# coefficient and is refuted by ladder+asymptotics: only exponentially small ones survive)
SAME_LIMIT = ("the limit and its 1/G coefficient are unchanged: the k = 0 term dropped (weight (1 - p)^(G - 1), "
              "exponentially small), or the upper limit moved past G - 1 (the added terms have binomial(G - 1, k) "
              "= 0: the same sum); the finite-G sums are checked by pg-binary-closed-form-g2/g3/g4")
