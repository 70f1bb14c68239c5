"""Definitions for the Section 2.3 / Appendix A derivation module (a helper: not scanned).

Section 2.3: the per-context GRPO objective J_GRPO(pi | q) = E_{o ~ pi}[P_G(o | pi_old)]
- beta * KL_0(pi || pi_ref; pi_old), its KKT condition (11) and the forms (12), (13).
Probabilities of outputs are plain sympy symbols or expressions; P_G comes from the
installed package ``grpo_formulas`` (stochastic rewards, exact finite sums), as do KL_0
and the objective; this file keeps the names the modules import.
"""

import sympy as sp

from grpo_formulas.divergence import kl0
from grpo_formulas.objective import expected
from grpo_formulas.objective import grpo_objective as objective
from grpo_formulas.preference import expected_group_relative_preference
from verify_claims.expectations import Categorical

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["eq11_factor", "expected", "expected_group_relative_preference", "g", "kl0",
           "lagrangian", "mixture", "objective", "objective_literal", "ordered_prob", "pg_vector",
           "ref_from_eq11", "reward_mean", "reward_std"]


def pg_vector(policy: Categorical, kernel, G: int) -> dict:
    """{o: P_G(o | policy, q)} for every output o of ``policy`` (display before Eq. (6)),
    with stochastic rewards r | o ~ kernel(o)."""
    return {o: expected_group_relative_preference(o, policy, kernel, G) for o in policy.outcomes}


def objective_literal(pi: dict, pg_old: dict, ref: dict, old: dict, beta):
    """J_GRPO(pi | q) exactly as displayed in Section 2.3: the penalty is
    beta * E_{o ~ pi}[KL_0(pi || ref; old)], an expectation over o of a quantity that does
    not depend on o; equal to the form above only where pi sums to one."""
    return expected(pi, pg_old) - beta * sp.Add(*[pi[o] for o in pi]) * kl0(pi, ref, old)


def lagrangian(pi: dict, pg_old: dict, ref: dict, old: dict, beta, lam, gammas: dict):
    """L = J - lambda (sum_o pi(o) - 1) + sum_o gamma_o pi(o): the Lagrangian whose
    partial derivatives are the stationarity conditions of Appendix A."""
    return objective(pi, pg_old, ref, old, beta) - lam * (sp.Add(*pi.values()) - 1) \
        + sp.Add(*[gammas[o] * pi[o] for o in pi])


def eq11_factor(pg: dict, pi: dict, o, beta):
    """1 - (P_G(o | pi) - E_{o' ~ pi}[P_G(o' | pi)]) / beta: the bracket of Eq. (11)."""
    return 1 - (pg[o] - expected(pi, pg)) / beta


def ref_from_eq11(pg: dict, pi: dict, beta) -> dict:
    """The reference policy for which pi satisfies Eq. (11) at every output: solving (11)
    for pi_ref(o).  Every interior policy pi with (11) arises this way for some pi_ref."""
    return {o: eq11_factor(pg, pi, o, beta) * pi[o] for o in pi}


def g(x):
    """g(x) = 1/(1 - x) of Section 2.3 (the rewriting of Eq. (11))."""
    return 1 / (1 - x)


def reward_mean(pi: dict, r: dict):
    return expected(pi, r)


def reward_std(pi: dict, r: dict):
    """sigma(pi) of Section 2.1: the standard deviation of r(o) for o ~ pi."""
    m = reward_mean(pi, r)
    return sp.sqrt(expected(pi, {o: (r[o] - m) ** 2 for o in pi}))


def ordered_prob(law1: Categorical, law2: Categorical, levels, cmp):
    """P[cmp(rank(r), rank(r'))] for independent r ~ law1, r' ~ law2 on ordered levels."""
    rank = {lv: i for i, lv in enumerate(levels)}
    return law1.then(lambda r: law2).prob(lambda rr: cmp(rank[rr[0]], rank[rr[1]]))


def mixture(policy: Categorical, kernel) -> Categorical:
    """The reward law of o' ~ policy, r' ~ kernel(o'): a law over the shared levels."""
    joint = policy.then(kernel)
    levels, probs = [], {}
    for (o, r), p in zip(joint.outcomes, joint.probs):
        if r not in probs:
            levels.append(r)
            probs[r] = sp.S.Zero
        probs[r] += p
    return Categorical(levels, [probs[lv] for lv in levels])
