"""Wrong variants of the Section 1.3 claims must be refuted with a counterexample."""

import sympy as sp

from derivation_checks import assert_established, assert_refuted, claim, variant

import s1_3_assumptions as s13


def test_penalty_limit_finite_value_refuted():
    orig = claim(s13, "penalty-infinite-outside-reference-support")
    assert_established(orig)
    assert_refuted(variant(orig, value=sp.Integer(10)))


def test_clip_inactive_needs_the_band():
    orig = claim(s13, "clipping-inactive-for-small-steps-ppo")
    assert_established(orig)
    # dropped condition: a step of twice the allowed size activates the clip
    wrong = variant(orig, domain={s13.x: sp.Interval.open(0, sp.oo), s13.A: sp.Reals,
                                  s13.eps: sp.Interval.open(0, 1)},
                    where=(s13.x >= 1 - 2 * s13.eps, s13.x <= 1 + 2 * s13.eps))
    assert_refuted(wrong)


def test_ratio_band_with_absolute_instead_of_relative_step_refuted():
    orig = claim(s13, "epsilon-relative-step-is-ratio-band")
    assert_established(orig)
    # |pi - old| <= eps (absolute, not relative) does not keep the ratio in the band
    assert_refuted(variant(orig, domain={s13.old: sp.Interval.Lopen(0, 1), s13.pi: sp.Interval(0, 1),
                                         s13.eps: sp.Interval.open(0, 1)},
                           where=(sp.Abs(s13.pi - s13.old) <= s13.eps,)))
