"""Definitions for Section 2.3.1 and Appendix B.1 (binary questions; a helper: not scanned).

A binary question q has two answers a and b.  Every policy is then one number: x =
pi_theta(a | q), old = pi_theta_old(a | q), ref = pi_ref(a | q) (answer b gets one minus
that).  Rewards may be stochastic given the answer (Section 2.1): a reward *law* per
answer, a :class:`verify_claims.expectations.Categorical` over reward levels whose order
sympy knows (lo, lo + g_1, lo + g_1 + g_2 with positive gaps).

The closed forms (14) for groups of two and (15) for the limit of large groups, the
reward-law comparisons and KL_0 come from the installed package ``grpo_formulas``; this
file keeps the names the modules import and the binary-question glue.
"""

import sympy as sp

from grpo_formulas.closed_forms import closed_form_g2, closed_form_large
from grpo_formulas.divergence import kl0, kl_bern
from grpo_formulas.groups import point_mass
from grpo_formulas.preference import expected_preference_under
from grpo_formulas.preference import expected_sign as esign
from grpo_formulas.preference import win_probability as win_prob
from verify_claims.expectations import Categorical

# the names the derivation modules import (re-exported from grpo_formulas or defined here)
__all__ = ["bracket", "closed_form_g2", "closed_form_large", "esign", "expected_preference_under",
           "grpo_objective_g2", "grpo_objective_large", "kl0", "kl_bern", "kl_rev_binary", "law2",
           "penalty_binary", "point_mass", "r_inf", "two", "win_prob"]


def two(x):
    """{a: x, b: 1 - x}: a policy of a binary question from pi(a | q)."""
    return {"a": x, "b": 1 - x}


def law2(x):
    return Categorical(["a", "b"], [x, 1 - x])


# --------------------------------------------------------------------- objectives

def penalty_binary(x, old, ref):
    """KL_0(pi || pi_ref; pi_old) (display after Eq. (7)) for a binary question."""
    return kl0(two(x), two(ref), two(old))


def grpo_objective_g2(x, old, ref, beta, kernel):
    """J_GRPO(pi | q) of Section 2.3 for groups of two, from the definitions:
    E_{o ~ pi}[P_2(o | pi_old, q)] (P_2 from the advantage of Eq. (2), rewards drawn from
    kernel(o)) minus beta KL_0(pi || pi_ref; pi_old)."""
    return expected_preference_under(two(x), law2(old), kernel, 2) - beta * penalty_binary(x, old, ref)


def r_inf(x, old, kernel):
    """R_inf(theta | q) of Section 2.1 for a binary question: (E_{pi}[r] - E_{old}[r]) /
    sigma(pi_old), with r(o | q) the expected reward of o and sigma(pi_old) the standard
    deviation of the reward under pi_old (the limit of std(r_1..r_G): the *total* std,
    which includes the spread of a stochastic reward given the answer)."""
    mean_r = {o: kernel(o).expect(lambda r: r) for o in ("a", "b")}
    joint = law2(old).then(kernel)
    mu_old = joint.expect(lambda orr: orr[1])
    var_old = joint.expect(lambda orr: (orr[1] - mu_old) ** 2)
    e_pi = x * mean_r["a"] + (1 - x) * mean_r["b"]
    return (e_pi - mu_old) / sp.sqrt(var_old)


def grpo_objective_large(x, old, ref, beta, kernel):
    """The large-group objective R_inf - beta KL_0 (Section 2.1 display for R_inf and
    Section 2.3; its stationarity condition is Eq. (13))."""
    return r_inf(x, old, kernel) - beta * penalty_binary(x, old, ref)


def bracket(x, old, ref):
    """The bracket multiplied by -beta in the objective displays of Appendix B.1."""
    return old * ref / x + (1 - old) * (1 - ref) / (1 - x) + old * sp.log(x) + (1 - old) * sp.log(1 - x)


def kl_rev_binary(x, ref):
    """KL(pi_ref || pi) for a binary question: the reverse KL of Section 2.2."""
    return kl_bern(ref, x)
