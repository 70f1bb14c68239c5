"""The abstract / Section 1.2 summaries: wrong variants must be refuted."""

import sympy as sp

from derivation_checks import assert_established, assert_refuted, claim, variant

import s1_2_summary as s12
from verify_claims.model.result import Result
from verify_claims.kinds.summary import verify_summary


def test_trl_bound_with_a_stronger_constant_refuted():
    orig = claim(s12, "summary-trl-default-beta-large-groups")
    assert_established(orig)
    # 1/(1 + 0.04^2) = 0.99840...: claiming 0.999 fails near beta = 0.04
    assert_refuted(variant(orig, rhs=sp.Rational(999, 1000)))


def test_groups_of_two_bound_with_the_wrong_margin_refuted():
    orig = claim(s12, "summary-trl-default-beta-groups-of-two")
    assert_established(orig)
    assert_refuted(variant(orig, lhs=1 - s12.beta / sp.Rational(1, 2)))  # a margin of 1/2 halves it


def _result(cid, status, paper_error=False, expected="holds"):
    return Result(id=cid, title="", ref="", kind="identity", source="", expected=expected, expected_reason="r",
                  paper_error=paper_error, status=status, as_expected=Result.judge(status, expected == "holds"))


def test_summary_resting_on_a_paper_error_is_refuted_but_a_confirmed_difference_supports():
    s = claim(s12, "abstract-aggregation-differs-from-logarithmic-pooling")
    ok = {u: _result(u, "proved") for u in s.uses}
    ok["stationary-g-not-logarithmic-pooling"] = _result("stationary-g-not-logarithmic-pooling", "refuted",
                                                         expected="refuted")
    assert verify_summary(s, ok).status == "checked"
    bad = dict(ok)
    bad["stationary-g-rewrite"] = _result("stationary-g-rewrite", "refuted")  # a wrong edit upstream
    r = verify_summary(s, bad)
    assert r.status == "refuted" and r.counterexample["claim"] == "stationary-g-rewrite"
