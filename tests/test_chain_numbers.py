"""Chain's numbers: what its float screen decides is counted, "the multiplier vanishes" is
decided relative to the multiplier's terms and only when stable across precisions, and an
inconclusive step leaves the chain undecided rather than checked."""

from __future__ import annotations

import mpmath
import sympy as sp

from verify_claims import Chain, Identity, Step
from verify_claims.backends.numeric import Evaluator
from verify_claims.engine.context import claim_rng
from verify_claims.engine.verify import verify
from verify_claims.kinds.chain import KIND, _check_nonzero
from verify_claims.run.settings import Settings

x = sp.Symbol("x")
SETTINGS = Settings(samples=8, precision=30, timeout=60)


def meta(id_):
    return dict(id=id_, title=f"test claim {id_}", ref="1")


def run(claim, settings=SETTINGS):
    claim.validate()
    return verify(claim, settings)


def refuted(res, typ):
    assert res.status == "refuted", (res.status, res.message, res.counterexample)
    cx = res.counterexample
    assert cx["type"] == typ, cx
    return cx


# ------------------------------------------------ 4a: the non-zero check's float decisions
def _overflowing_chain(mult=2, step=None):
    # exp(x) overflows doubles on [710, 720]: the step comparison is all mpmath, the
    # multiplier's non-zero check is the screen's only decision in floats
    return Chain(**meta("chain-overflow"), steps=[
        sp.Eq(x * sp.exp(x), 715 * sp.exp(x)),
        Step(step if step is not None else sp.Eq(mult * x * sp.exp(x), mult * 715 * sp.exp(x)),
             relation="equivalent", multiply_by=mult)], domain={x: sp.Interval(710, 720)})


def test_float_clearance_of_the_multiplier_is_counted():
    claim = _overflowing_chain()
    out = KIND.spot_check(claim, SETTINGS, claim_rng(SETTINGS, claim.id), screen=True)
    assert out.verdict == "consistent"
    assert out.evidence["screened_in_floats"] == SETTINGS.samples


def test_overflowing_true_chain_is_cross_checked_in_mpmath():
    res = run(_overflowing_chain())
    assert res.status == "proved", (res.status, res.message, res.counterexample)
    num = res.evidence["numeric"]
    assert num["screen"]["screened_in_floats"] > 0
    # the cross-check ran (screen=False: no float count of its own), not the screen reused
    assert "screened_in_floats" not in num and num["points"] > 0


def test_overflowing_chain_with_a_vanishing_multiplier_is_refuted():
    res = run(_overflowing_chain(mult=x - 710), Settings(samples=40, precision=30, timeout=60))
    cx = refuted(res, "multiplier vanishes")
    assert cx["failing step"] == 2 and mpmath.mpf(cx["point"]["x"]) == 710


# ------------------------------------------------ 4b: "vanishes" relative and stable
def _decaying_chain(mult=None, where=sp.Interval(100, 200)):
    m = sp.exp(-x) if mult is None else mult
    return Chain(**meta("chain-decay"), steps=[
        sp.Eq(x, 150), Step(sp.Eq(m * x, 150 * m), relation="equivalent", multiply_by=m)],
        domain={x: where})


def test_tiny_nonzero_multiplier_does_not_refute():
    res = run(_decaying_chain())
    assert res.status in ("proved", "certified"), (res.status, res.message, res.counterexample)
    assert res.evidence["numeric"]["verdict"] == "consistent"


def test_multiplier_that_vanishes_in_the_domain_is_still_refuted():
    # the samples come within 1e-15 of x = 100 (where the multiplier, about 4e-59, is a
    # value, no longer taken for 0) but not onto it: the zero is found by root finding, as
    # a step equation holding where the previous one does not
    res = run(_decaying_chain(mult=(x - 100) * sp.exp(-x)), Settings(samples=40, precision=30, timeout=60))
    cx = refuted(res, "does not follow")
    assert cx["failing step"] == 2 and mpmath.mpf(cx["point"]["x"]) == 100


def test_multiplier_that_vanishes_at_a_sample_point_is_still_refuted():
    claim = _decaying_chain(mult=(x - 100) * sp.exp(-x), where=sp.FiniteSet(100, 150, 200))
    cx = refuted(run(claim), "multiplier vanishes")
    assert cx["failing step"] == 2 and mpmath.mpf(cx["point"]["x"]) == 100


def _ev(mult):
    return Evaluator((x,), {"multiplier": mult}, 30)


def test_vanishing_is_relative_to_the_multipliers_terms():
    pt = {x: mpmath.mpf(150)}
    assert _check_nonzero(_ev(sp.exp(-x)), "multiplier", [pt])[0] is None
    # identically zero, but rounding leaves exp(150) * 1e-70 ~ 1e-5 (far above any absolute
    # threshold): zero relative to its terms, and shrinking with more digits
    out, _ = _check_nonzero(_ev(sp.exp(x) * (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1)), "multiplier", [pt])
    assert out is not None and out.counterexample["type"] == "multiplier vanishes"


def test_stable_tiny_multiplier_is_not_a_zero():
    # 1e-100 at x = 1, the same at every precision: a value, not rounding
    out, _ = _check_nonzero(_ev((x - 1) ** 2 + sp.Rational(1, 10 ** 100)), "multiplier", [{x: mpmath.mpf(1)}])
    assert out is None
    out, _ = _check_nonzero(_ev((x - 1) ** 2), "multiplier", [{x: mpmath.mpf(1)}])
    assert out is not None and out.counterexample["type"] == "multiplier vanishes"


# ------------------------------------------------ 5: an inconclusive step is not checked
BIG = 10 ** 800  # beyond the digits the accuracy guard spends (8 x 70)
LHS = sp.sin(BIG * x)
RHS = sp.sin(BIG * x / 3) * (3 - 4 * sp.sin(BIG * x / 3) ** 2) + sp.Rational(1, 10 ** 50)  # false by 1e-50
FEW = Settings(samples=2, precision=30, timeout=60, seed=1, prover_budget=1, certify_budget=1)


def test_inconclusive_step_leaves_the_chain_undecided():
    ident = run(Identity(**meta("ident-chaotic"), lhs=LHS, rhs=RHS, domain={x: sp.Interval(1, 2)}), FEW)
    assert ident.status == "undecided"
    res = run(Chain(**meta("chain-chaotic"), steps=[LHS, RHS], domain={x: sp.Interval(1, 2)}), FEW)
    assert res.status == "undecided", (res.status, res.message)
    assert res.steps[1]["status"] == "undecided"
    assert res.evidence["numeric"]["verdict"] == "inconclusive"
    assert res.evidence["numeric"]["unresolved_points"] == 2


def test_wrong_step_after_an_inconclusive_one_is_refuted():
    # LHS - RHS is -1e-50 exactly, and chaotic at any precision the check spends; the third
    # step is wrong by 1 and needs no digits
    tiny = -sp.Rational(1, 10 ** 50)
    res = run(Chain(**meta("chain-chaotic-bad"), steps=[LHS - RHS, tiny, tiny + 1], domain={x: sp.Interval(1, 2)}),
              FEW)
    cx = refuted(res, "values differ")
    assert cx["failing step"] == 3
    assert [s.get("status") for s in res.steps] == [None, "undecided", "refuted"]


def test_a_multiplier_of_one_term_that_vanishes_is_found():
    """sin(pi x) at x = 1 is 8e-72 at 70 digits and shrinks with more: rounding, so zero.
    (A comparison with the size of its terms cannot tell: it has one term, itself; a review
    found the false chain *checked* that way.)"""
    m = sp.sin(sp.pi * x)
    res = run(Chain(**meta("chain-sin"), steps=[sp.Eq(x, sp.Rational(3, 2)),
                                                Step(sp.Eq(m * x, m * sp.Rational(3, 2)), relation="equivalent",
                                                     multiply_by=m)], domain={x: sp.Interval(1, 2)}))
    cx = refuted(res, "multiplier vanishes")
    assert mpmath.mpf(cx["point"]["x"]) in (1, 2)
    assert "shrinking as rounding does" in cx["confirmed"]


def test_a_small_real_multiplier_that_more_digits_keep_is_not_zero():
    """x - 1 + 1e-100 at x = 1: 0 at 70 digits (1 - 1e-100 rounds to 1), 1e-100 at 140. More
    digits keep it, so it is not zero (a rule that called every tiny value zero would)."""
    ev = Evaluator([x], {"multiplier": x - 1 + sp.Rational(1, 10 ** 100)}, 30)
    out, _ = _check_nonzero(ev, "multiplier", [{x: mpmath.mpf(1)}])
    assert out is None
    assert ev.at("multiplier", {x: mpmath.mpf(1)}, ev.high) == 0  # not vacuous: it does cancel at 70
