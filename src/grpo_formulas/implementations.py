"""What GRPO libraries compute, written as sympy expressions (beyond arXiv 2502.18548).

The paper's Eq. (2) divides by the *population* standard deviation of the group (divided
by G) and its penalty term D_i of Eq. (1) is written in probabilities.  The libraries
compute, per group of G rewards and per sampled token or output:

- TRL (huggingface/trl, v1.9.0, ``trl/trainer/grpo_trainer.py``, the reward scoring in
  ``_generate_and_score_completions``): ``(rewards - mean) / (nanstd(rewards) + 1e-4)``,
  where ``nanstd`` (``trl/trainer/utils.py``) applies Bessel's correction count/(count - 1);
  up to v0.18 the same with ``tensor.std(dim=1)`` (PyTorch's default is Bessel's correction).
  ``scale_rewards="none"`` skips the division.  Penalty: ``exp(ref - logp) - (ref - logp) - 1``
  per token, times ``exp(logp - old_logp)`` when ``use_bias_correction_kl=True``.
- verl (volcengine/verl, v0.7.0, ``verl/trainer/ppo/core_algos.py``):
  ``compute_grpo_outcome_advantage`` divides by ``torch.std(scores) + epsilon`` (epsilon =
  1e-6), or only subtracts the mean when ``norm_adv_by_std_in_grpo=False`` (Dr. GRPO);
  ``kl_penalty_forward(..., "low_var_kl")`` is k3 with the log ratio clamped to [-20, 20]
  and the result clamped to [-10, 10], not importance weighted.
- OpenRLHF (OpenRLHF/OpenRLHF, v0.11.0): ``group_norm`` in
  ``openrlhf/trainer/ppo_utils/experience_maker.py`` is ``(r - mean) / (std + 1e-9)``,
  ``dr_grpo`` is ``r - mean``; ``compute_approx_kl(..., "k3")`` in
  ``openrlhf/models/utils.py`` is ``exp(-u) - 1 + u`` with u = logp - logp_ref, clamped to
  [-10, 10], not importance weighted.

Rewards ``rs`` are a sequence of sympy expressions; ``i`` is a 0-based index.  Log
probabilities are written as ``sp.log`` of probabilities where a claim compares with the
paper's D_i.
"""

from functools import cache

import sympy as sp

from verify_claims.expectations import Categorical

from .advantage import mean
from .groups import joint_law, symmetric_group_expectation

__all__ = [
    "advantage_centred",
    "advantage_sample_std",
    "advantage_sample_std_eps",
    "binary_group_advantage_one",
    "binary_group_sample_std",
    "clamp",
    "expected_group_relative_preference_with",
    "k3_logprobs",
    "k3_openrlhf",
    "k3_verl",
    "k3_with_importance_ratio",
    "sample_std",
    "sample_variance",
]


# --------------------------------------------------------------------- advantages

def sample_variance(rs):
    """(1/(G - 1)) sum_i (r_i - mean)^2: the variance with Bessel's correction that PyTorch's
    ``Tensor.std`` (default) and TRL's ``nanstd`` use, not the paper's (1/G) sum (Eq. (2))."""
    m = mean(rs)
    return sp.Add(*[(r - m) ** 2 for r in rs]) / (len(rs) - 1)


def sample_std(rs):
    """The sample standard deviation (Bessel's correction): sqrt of :func:`sample_variance`."""
    return sp.sqrt(sample_variance(rs))


def advantage_sample_std(rs, i):
    """(r_i - mean) / sample_std: the library advantage without its epsilon, with the paper's
    0/0 := 0 convention decided structurally as in
    :func:`grpo_formulas.advantage.advantage_ties_structural` (entries are numbers or distinct
    reward levels: a group ties exactly when all its entries are the same expression)."""
    rs = [sp.sympify(r) for r in rs]
    if all(r == rs[0] for r in rs[1:]):
        return sp.S.Zero
    return (rs[i] - mean(rs)) / sample_std(rs)


def advantage_sample_std_eps(rs, i, eps):
    """(r_i - mean) / (sample_std + eps): what TRL (eps = 1e-4), verl (1e-6) and OpenRLHF
    (1e-9) compute; a tie gives 0 / eps = 0 with no convention needed."""
    return (rs[i] - mean(rs)) / (sample_std(rs) + eps)


def advantage_centred(rs, i):
    """r_i - mean(r_1, ..., r_G) as the libraries compute it without scale normalisation:
    TRL ``scale_rewards="none"``, verl ``norm_adv_by_std_in_grpo=False``, OpenRLHF
    ``dr_grpo`` (Dr. GRPO).  Written independently of
    :func:`grpo_formulas.advantage.advantage_shift_only` so that their equality is a claim."""
    G = len(rs)
    return rs[i] - sp.Add(*rs) / G


# binary (two-level) rewards with a symbolic group size: m of the G rewards are c, the rest 0

def binary_group_sample_std(G, m, c=1):
    """Sample std of a group of G rewards, m of them equal to c and G - m equal to 0, written
    from the definition: mean c m/G, squared deviations (c - c m/G)^2 (m times) and (c m/G)^2
    (G - m times), divided by G - 1."""
    mu = c * m / G
    return sp.sqrt((m * (c - mu) ** 2 + (G - m) * mu ** 2) / (G - 1))


def binary_group_advantage_one(G, m, c=1, eps=0, population=False):
    """The advantage of an output with reward c in a group of G rewards with m rewards c and
    G - m rewards 0, from the definition: (c - c m/G) / (std + eps), with the sample std
    (Bessel) or, with ``population=True``, the paper's population std (divided by G)."""
    mu = c * m / G
    if population:
        sd = sp.sqrt((m * (c - mu) ** 2 + (G - m) * mu ** 2) / G)
    else:
        sd = binary_group_sample_std(G, m, c)
    return (c - mu) / (sd + eps)


# --------------------------------------------------------------------- expectations over groups

@cache  # several claims state facts about the same expectation: build it once
def expected_group_relative_preference_with(adv, o, old: Categorical, kernel, G: int):
    """P_G(o | pi_old, q) of arXiv 2502.18548, Section 2.1 (display before Eq. (6)) with the
    advantage function ``adv(rs, i)`` in place of Eq. (2): E[adv(r_1..r_G, 0)] with
    r_1 ~ kernel(o) and the other G - 1 (output, reward) pairs i.i.d. from pi_old and the
    reward kernel (``adv`` symmetric in the other G - 1 rewards, as every advantage here is).
    Cached: arguments must be hashable."""
    J = joint_law(old, kernel)
    own = kernel(o)
    return sp.Add(*[p1 * symmetric_group_expectation(
        J, G - 1, lambda grp, r1=r1: adv([r1] + [r for _, r in grp], 0))
        for r1, p1 in zip(own.outcomes, own.probs)])


# --------------------------------------------------------------------- KL estimators

def clamp(x, lo, hi):
    """torch.clamp(x, min=lo, max=hi)."""
    return sp.Min(sp.Max(x, lo), hi)


def k3_logprobs(logp, ref_logp):
    """TRL's ``per_token_kl``: exp(ref - logp) - (ref - logp) - 1 for the log probabilities of
    the sampled token under the policy (logp) and the reference model (ref_logp)."""
    return sp.exp(ref_logp - logp) - (ref_logp - logp) - 1


def k3_verl(logp, ref_logp):
    """verl's ``kl_penalty_forward(logprob, ref_logprob, "low_var_kl")`` (v0.7.0):
    kl = clamp(ref - logp, -20, 20); clamp(exp(kl) - kl - 1, -10, 10)."""
    kl = clamp(ref_logp - logp, -20, 20)
    return clamp(sp.exp(kl) - kl - 1, -10, 10)


def k3_openrlhf(logp, ref_logp):
    """OpenRLHF's ``compute_approx_kl(log_probs, log_probs_base, "k3")`` (v0.11.0):
    u = logp - ref; clamp(exp(-u) - 1 + u, -10, 10)."""
    u = logp - ref_logp
    return clamp(sp.exp(-u) - 1 + u, -10, 10)


def k3_with_importance_ratio(logp, old_logp, ref_logp):
    """TRL with ``use_bias_correction_kl=True``: ``per_token_kl * coef_1`` with
    coef_1 = exp(logp - old_logp) = pi_theta / pi_old."""
    return k3_logprobs(logp, ref_logp) * sp.exp(logp - old_logp)
