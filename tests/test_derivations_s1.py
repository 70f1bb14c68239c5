"""Wrong variants of Section 1 / 1.1 claims must be refuted with a counterexample.

Each variant is a deliberate slip a derivation could make (a missing factor, a sign
flip, a wrong domain, the wrong maximiser); the engine has to catch it numerically.
The claims themselves are also checked to come out as expected.
"""

import dataclasses
import pathlib
import sys

import pytest
import sympy as sp

ROOT = pathlib.Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import s1_1_related_work as s11  # noqa: E402
import s1_introduction as s1  # noqa: E402
from _grpo import advantage  # noqa: E402
from _s1_helpers import gibbs, kl, pairwise_variance  # noqa: E402
from derivation_checks import verify  # noqa: E402  (replays committed certificates)
from verify_claims.run.settings import Settings

SETTINGS = Settings(seed=0, samples=100, precision=30)


def _claim(module, cid):
    return next(c for c in module.CLAIMS if c.id == cid)


def _variant(module, cid, **changes):
    """A copy of a claim with some fields changed, expected to hold (so a refutation is
    a genuine catch, not an expected failure)."""
    c = _claim(module, cid)
    fields = {f.name: getattr(c, f.name) for f in dataclasses.fields(c) if f.init}
    fields.update(id=f"wrong-{cid}", uses=(), expect=s1.HOLDS, **changes)
    return type(c)(**fields)


def _assert_refuted(claim):
    claim.validate()
    result = verify(claim, SETTINGS)
    assert result.status == "refuted", (claim.id, result.status, result.message)
    assert isinstance(result.counterexample, dict) and result.counterexample


# ------------------------------------------------------------------ Section 1
def test_variance_pairwise_missing_factor_two_is_refuted():
    rs = s1.REWARDS[3]
    _assert_refuted(_variant(s1, "advantage-variance-pairwise-g3",
                             rhs=2 * pairwise_variance(rs)))  # 1/G^2 instead of 1/(2G^2)


def test_numerator_pairwise_sign_flip_is_refuted():
    rs = s1.REWARDS[4]
    _assert_refuted(_variant(s1, "advantage-numerator-pairwise-g4",
                             rhs=s1.mean(rs) - rs[0]))


def test_scale_invariance_on_negative_scales_is_refuted():
    _assert_refuted(_variant(s1, "advantage-scale-invariant-g3",
                             domain={**{r: s1.R for r in s1.REWARDS[3]},
                                     s1.s: sp.Interval.open(-sp.oo, 0)},
                             where=(s1.not_all_equal(s1.REWARDS[3]),)))


def test_shift_invariance_with_scaled_rewards_is_refuted():
    rs = s1.REWARDS[3]
    # shifting by c and forgetting that the std is unchanged but dividing by (1 + c^2)
    _assert_refuted(_variant(s1, "advantage-shift-invariant-g3",
                             rhs=advantage(rs, 0) / (1 + s1.c ** 2)))


def test_penalty_term_other_sign_is_refuted():
    _assert_refuted(_variant(s1, "penalty-term-nonnegative", op="<="))


# ------------------------------------------------------------------ Section 1.1
def test_rlhf_gap_missing_beta_is_refuted():
    _assert_refuted(_variant(s11, "rlhf-gibbs-gap-3",
                             rhs=kl(s11.pi, gibbs(s11.ref, s11.r, s11.beta))))


def test_rlhf_maximiser_with_sign_flipped_rewards_is_refuted():
    wrong = gibbs(s11.ref, [-ri for ri in s11.r], s11.beta)  # pi_ref e^{-r/beta}/Z
    _assert_refuted(_variant(s11, "rlhf-gibbs-maximiser-3",
                             at={s11.pi1: wrong[0], s11.pi2: wrong[1]}))


def test_rlhf_pooling_with_weight_beta_is_refuted():
    L = s11.luce(s11.r)
    pooled = s11.normalise([s11.ref[i] * L[i] ** s11.beta for i in range(3)])
    _assert_refuted(_variant(s11, "rlhf-logarithmic-pooling-3", lhs=pooled[0]))


def test_nlhf_best_response_to_uniform_scores_is_refuted():
    # the best response ignoring the opponent (scores P(o > o) = 1/2 for every o): pi_ref
    _assert_refuted(_variant(s11, "nlhf-best-response-gibbs-3",
                             at={s11.pi1: s11.ref1, s11.pi2: s11.ref2}))


def test_nlhf_zero_sum_literal_is_refuted():
    _assert_refuted(_variant(s11, "nlhf-constant-sum-3", rhs=sp.Integer(0)))


# ------------------------------------------------------------------ the claims themselves
@pytest.mark.parametrize("claim", s1.CLAIMS + s11.CLAIMS, ids=lambda c: c.id)
def test_claims_come_out_as_expected(claim):
    result = verify(claim, SETTINGS)
    assert result.as_expected, (claim.id, result.status, result.message, result.counterexample)
