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


# ------------------------------------------------------------------ NLHF uniqueness (issue 11)
@pytest.mark.parametrize("cid,want", [
    ("nlhf-two-outputs-unique-equilibrium", "proved"),
    ("nlhf-two-outputs-fixed-point-residual-increasing", "certified"),
    ("nlhf-payoff-strictly-concave-in-policy-leading-minor-3", "certified"),
    ("nlhf-payoff-strictly-concave-in-policy-determinant-3", "certified"),
    ("nlhf-payoff-strictly-convex-in-opponent-leading-minor-3", "certified"),
    ("nlhf-payoff-strictly-convex-in-opponent-determinant-3", "certified"),
    ("nlhf-fixed-point-residual-monotone-3", "proved"),
    # touches 0 along x = y: certified by pairing the logs, (A - B)(log A - log B) >= 0
    ("nlhf-fixed-points-coincide-3", "certified"),
])
def test_nlhf_uniqueness_claims_status(cid, want):
    res = verify(_claim(s11, cid), SETTINGS)
    assert res.status in ((want,) if isinstance(want, str) else want), (cid, res.status, res.message)


def test_nlhf_two_outputs_fixed_point_with_the_exponent_doubled_is_refuted():
    # the direct-KL exponent gamma/beta (with gamma = 2P - 1) instead of NLHF's gamma/(2 beta)
    e = sp.exp((2 * s11.Pab - 1) / s11.beta)
    _assert_refuted(_variant(s11, "nlhf-two-outputs-unique-equilibrium",
                             rhs=s11.rho * e / (s11.rho * e + 1 - s11.rho)))


def test_nlhf_two_outputs_residual_decreasing_is_refuted():
    _assert_refuted(_variant(s11, "nlhf-two-outputs-fixed-point-residual-increasing", direction="decreasing"))


@pytest.mark.parametrize("cid,op", [("nlhf-payoff-strictly-concave-in-policy-leading-minor-3", ">"),
                                    ("nlhf-payoff-strictly-convex-in-opponent-leading-minor-3", "<"),
                                    ("nlhf-payoff-strictly-concave-in-policy-determinant-3", "<")])
def test_nlhf_hessian_signs_flipped_are_refuted(cid, op):
    _assert_refuted(_variant(s11, cid, op=op))


def test_nlhf_residual_monotonicity_with_one_kl_is_refuted():
    _assert_refuted(_variant(s11, "nlhf-fixed-point-residual-monotone-3", rhs=kl(s11._xv, s11._yv)))


def test_nlhf_fixed_points_coincide_without_distinct_points_is_refuted():
    # dropping x != y: at x = y the symmetrised KL is 0, not > 0
    c = _claim(s11, "nlhf-fixed-points-coincide-3")
    _assert_refuted(_variant(s11, "nlhf-fixed-points-coincide-3", where=c.where[:2],
                             domain={k: sp.FiniteSet(sp.Rational(1, 4)) for k in c.domain.sets}))


def test_nlhf_uniqueness_summary_rests_on_established_claims():
    from verify_claims.kinds.summary import verify_summary
    s = _claim(s11, "nlhf-unique-nash-equilibrium")
    results = {u: verify(_claim(s11, u), SETTINGS) for u in s.uses}
    assert all(r.status in ("proved", "certified", "checked") for r in results.values()), \
        {u: r.status for u, r in results.items()}
    # every step proved or certified (the symmetrised KL's positivity by pairing its logs)
    assert verify_summary(s, results).status == "certified"


def test_nlhf_uncheckable_cites_its_source():
    (u,) = [u for u in s11.UNCHECKABLE if u["id"] == "nlhf-mirror-descent-convergence"]
    assert "Munos" in u["reason"] and "PMLR 235" in u["reason"]


# ------------------------------------------------------------------ the claims themselves
@pytest.mark.parametrize("claim", [c for c in s1.CLAIMS + s11.CLAIMS if c.kind != "summary"], ids=lambda c: c.id)
def test_claims_come_out_as_expected(claim):
    result = verify(claim, SETTINGS)
    assert result.as_expected, (claim.id, result.status, result.message, result.counterexample)
