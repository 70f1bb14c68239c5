"""Definitions for Section 2.3.1 and Appendix B.1 (binary questions; a helper: not scanned).

A binary question q has two answers a and b.  Every policy is then one number: x =
pi_theta(a | q), old = pi_theta_old(a | q), ref = pi_ref(a | q) (answer b gets one minus
that).  Rewards may be stochastic given the answer (Section 2.1): a reward *law* per
answer, a :class:`verify_claims.expectations.Categorical` over reward levels whose order
sympy knows (lo, lo + g_1, lo + g_1 + g_2 with positive gaps).

The closed forms are written exactly as the paper displays them: (14) for groups of
two, (15) for the limit of large groups.
"""

import sympy as sp

from verify_claims.expectations import Categorical

from _s2_helpers import expected_preference_under, kl0


def two(x):
    """{a: x, b: 1 - x}: a policy of a binary question from pi(a | q)."""
    return {"a": x, "b": 1 - x}


def law2(x):
    return Categorical(["a", "b"], [x, 1 - x])


# --------------------------------------------------------------------- closed forms

def closed_form_g2(beta, gamma, ref):
    """Eq. (14): (1/2)(1 - beta/gamma + sqrt((1 - beta/gamma)^2 + 4 (beta/gamma) ref))."""
    c = beta / gamma
    return sp.Rational(1, 2) * (1 - c + sp.sqrt((1 - c) ** 2 + 4 * c * ref))


def closed_form_large(beta, ref):
    """Eq. (15): (2 beta^2 ref + 1 + sqrt(1 + 4 beta^2 ref (1 - ref))) / (2 (1 + beta^2))."""
    return (2 * beta ** 2 * ref + 1 + sp.sqrt(1 + 4 * beta ** 2 * ref * (1 - ref))) \
        / (2 * (1 + beta ** 2))


# --------------------------------------------------------------------- reward laws

def esign(law1: Categorical, law2_: Categorical):
    """E[sign(r_1 - r_2)] for independent r_1 ~ law1, r_2 ~ law2_."""
    return sp.Add(*[p1 * p2 * sp.sign(r1 - r2)
                    for r1, p1 in zip(law1.outcomes, law1.probs)
                    for r2, p2 in zip(law2_.outcomes, law2_.probs)])


def win_prob(law1: Categorical, law2_: Categorical):
    """P[r_1 > r_2] for independent r_1 ~ law1, r_2 ~ law2_ (levels with a known order)."""
    return sp.Add(*[p1 * p2 for r1, p1 in zip(law1.outcomes, law1.probs)
                    for r2, p2 in zip(law2_.outcomes, law2_.probs) if (r1 - r2).is_positive])


def point_mass(value):
    return Categorical([value], [1])


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
    return ref * sp.log(ref / x) + (1 - ref) * sp.log((1 - ref) / (1 - x))
