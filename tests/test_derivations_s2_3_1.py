"""Section 2.3.1 / Appendix B.1 (binary questions): expected verdicts and wrong variants.

The module must load cleanly; key claims come out as expected (established, or refuted
where the paper is wrong, at the right step); and deliberately broken variants (the other
root of a quadratic, a sign flip, a missing square, a reversed inequality, a wrong limit,
squaring treated as an equivalence) must be refuted with a counterexample.
"""

import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from verify_claims import Ref  # noqa: E402
from derivation_checks import verify  # noqa: E402  (replays committed certificates)
from verify_claims.run.settings import Settings

import derivation_checks as checks  # noqa: E402
from derivation_checks import variant  # noqa: E402

import s2_3_1_binary_questions as m  # noqa: E402
from _s231_helpers import closed_form_g2, closed_form_large  # noqa: E402
from conftest import bundled_paper_loaded  # noqa: E402

SETTINGS = Settings(seed=0, samples=60, precision=30)


def claim(cid):
    return checks.claim(m, cid)


def assert_refuted(c):
    return checks.assert_refuted(c, SETTINGS)


def assert_established(c):
    return checks.assert_established(c, SETTINGS)



# ------------------------------------------------------------------ the module itself

def test_module_loads_and_validates():
    ids = [c.id for c in m.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in m.CLAIMS:
        c.validate()
        assert c.id.startswith(("binary-g2-", "binary-large-g-", "b1-")), c.id
        assert c.note or c.title
    for u in m.UNCHECKABLE:
        assert {"id", "ref", "statement", "reason"} <= set(u) <= {"id", "ref", "statement", "reason", "finding"}
        assert isinstance(u["ref"], Ref)
        assert u["id"] not in ids


def test_loader_reports_no_problems():
    loaded = bundled_paper_loaded()
    mine = [p for p in loaded.problems if "s2_3_1" in str(p)]
    assert not mine, mine


def test_every_refuted_claim_has_a_corrected_partner():
    refuted_ids = {c.id for c in m.CLAIMS if not c.expect.holds}
    partnered = {u for c in m.CLAIMS if c.expect.holds for u in c.uses}
    assert refuted_ids and refuted_ids <= partnered, refuted_ids - partnered


# ------------------------------------------------------------------ expected verdicts

@pytest.mark.parametrize("cid", [
    "binary-g2-closed-form", "binary-large-g-closed-form", "b1-g2-quadratic-unique-nonnegative-root",
    "binary-g2-closed-form-maximises-on-policy-potential", "binary-large-g-closed-form-unique-root",
])
def test_key_claims_established(cid):
    assert_established(claim(cid))


@pytest.mark.parametrize("cid", ["b1-g2-reward-preference-chain", "binary-g2-value-at-beta-equals-gamma",
                                 "binary-g2-jump-at-pi-ref-zero-when-beta-lt-gamma", "b1-g2-eq16",
                                 # (15) is stationary: its reward std denested (tests/test_denest.py)
                                 "binary-large-g-closed-form"])
def test_exact_claims_proved(cid):
    assert verify(claim(cid), SETTINGS).status == "proved"


@pytest.mark.parametrize("cid", [c.id for c in m.CLAIMS if not c.expect.holds])
def test_paper_errors_refuted(cid):
    assert_refuted(claim(cid))


def test_literal_chain_fails_at_the_typo_step():
    res = verify(claim("b1-g2-reward-preference-chain-literal"), SETTINGS)
    assert res.status == "refuted" and res.counterexample["failing step"] == 4
    # earlier steps hold (the symbolic budget is short once numbers refute, so "checked" is fine)
    assert all(s.get("status") in ("proved", "checked") for s in res.steps[1:3])
    assert res.steps[3]["status"] == "refuted"
    assert verify(claim("b1-g2-reward-preference-chain"), SETTINGS).status == "proved"


# ------------------------------------------------------------------ wrong variants

B, Gm, F = m.beta, m.gamma, m.ref


def test_other_root_of_the_g2_quadratic_refuted():
    orig = claim("b1-g2-quadratic-unique-nonnegative-root")
    c = B / Gm
    res = assert_refuted(variant(orig, value=sp.Rational(1, 2) * ((1 - c) - sp.sqrt((1 - c) ** 2 + 4 * c * F))))
    assert res.counterexample["type"] == "root outside the interval"


def test_g2_closed_form_sign_flip_refuted():
    """(14) with 1 + beta/gamma for 1 - beta/gamma is not stationary."""
    orig = claim("binary-g2-closed-form")
    c = m.beta / m.GAMMA_EXPR
    wrong = sp.Rational(1, 2) * (1 + c + sp.sqrt((1 + c) ** 2 + 4 * c * F)) / (1 + 2 * c)
    assert_refuted(variant(orig, at={m.x: wrong}))


def test_large_closed_form_with_beta_for_beta_squared_refuted():
    orig = claim("binary-large-g-closed-form")
    wrong = (2 * B * F + 1 + sp.sqrt(1 + 4 * B * F * (1 - F))) / (2 * (1 + B))
    assert_refuted(variant(orig, at={m.x: wrong}))


def test_large_closed_form_other_root_not_above_reference():
    orig = claim("b1-large-g-quadratic-root-above-reference")
    other = (2 * B ** 2 * F + 1 - sp.sqrt(1 + 4 * B ** 2 * F * (1 - F))) / (2 * (1 + B ** 2))
    assert_refuted(variant(orig, value=other - F))


def test_squaring_as_equivalence_refuted():
    """Dropped condition pi >= pi_ref: the squared equation has the spurious root."""
    orig = claim("b1-large-g-eq19-equivalent-to-quadratic-above-reference")
    assert_established(orig)
    res = assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=()))
    assert res.counterexample["failing step"] == 2


def test_beta_limit_to_wrong_value_refuted():
    orig = claim("binary-g2-limit-beta-zero")
    assert_refuted(variant(orig, value=F))


def test_no_jump_claimed_for_beta_below_gamma_refuted():
    orig = claim("binary-g2-jump-at-pi-ref-zero-when-beta-lt-gamma")
    assert_refuted(variant(orig, value=0))


def test_increasing_in_beta_refuted():
    assert_refuted(variant(claim("binary-g2-decreasing-in-beta"), direction="increasing"))


def test_tighter_g2_lower_bound_refuted():
    orig = claim("binary-g2-lower-bound")
    assert_refuted(variant(orig, rhs=sp.Max(1 - B / (2 * Gm), F)))


def test_groups_of_two_more_biased_refuted():
    orig = claim("binary-large-g-more-biased-than-g2")
    assert_refuted(variant(orig, op="<"))


def test_bound_comparison_with_wrong_powers_refuted():
    orig = claim("binary-large-g-bound-exceeds-g2-bound")
    assert_refuted(variant(orig, lhs=1 / (1 + B), rhs=1 - B ** 2))


def test_tie_with_a_margin_refuted():
    """gamma != 0: the stationary policy is not pi_ref."""
    orig = claim("binary-g2-tie-reference-policy")
    assert_refuted(variant(orig, equation=m.H_G2.subs(Gm, sp.Rational(1, 2))))


def test_potential_maximised_elsewhere_refuted():
    orig = claim("binary-g2-closed-form-maximises-on-policy-potential")
    assert_refuted(variant(orig, at={m.x: F}))


def test_closed_forms_agree_with_paper_values():
    """Spot values the paper states in prose: sqrt(pi_ref) at beta = gamma; 1/(1 + beta^2) at 0."""
    assert sp.simplify(closed_form_g2(1, 1, sp.Rational(1, 4)) - sp.Rational(1, 2)) == 0
    assert sp.simplify(closed_form_large(2, 0) - sp.Rational(1, 5)) == 0


# ------------------------------------------------------------------ (14), (15) with pi_old held at them:
# where exactly they are a local minimum / maximum of the frozen objective (issue 11)

FROZEN_EXACT = ["binary-g2-frozen-second-derivative", "binary-g2-frozen-second-derivative-at-14",
                "binary-g2-frozen-boundary-value", "binary-g2-frozen-second-derivative-vanishes-on-boundary",
                "binary-large-g-frozen-second-derivative", "binary-large-g-frozen-second-derivative-at-15",
                "binary-large-g-frozen-boundary-value",
                "binary-large-g-frozen-second-derivative-vanishes-on-boundary"]
FROZEN_REGIONS = ["binary-g2-frozen-local-minimum-region", "binary-g2-frozen-local-maximum-region",
                  "binary-g2-frozen-local-minimum-needs-small-reference",
                  "binary-large-g-frozen-local-minimum-region", "binary-large-g-frozen-local-maximum-region",
                  "binary-large-g-frozen-local-minimum-needs-small-reference"]


@pytest.mark.parametrize("cid", FROZEN_EXACT)
def test_frozen_second_derivatives_and_boundaries_proved(cid):
    res = verify(claim(cid), SETTINGS)
    assert res.status == "proved", (cid, res.status, res.message)


@pytest.mark.parametrize("cid", FROZEN_REGIONS)
def test_frozen_regions_certified_over_the_whole_parameter_range(cid):
    c = claim(cid)
    # whole ranges, not instances: every domain set is an interval
    assert all(isinstance(s, sp.Interval) for s in c.domain.sets.values()), cid
    res = verify(c, SETTINGS)
    assert res.status == "certified", (cid, res.status, res.message)


def test_frozen_instances_lie_in_the_derived_region():
    """The instances refuted before (local minimum at beta/gamma = 3/2, pi_ref = 1/1000; beta = 3,
    pi_ref = 1/100 for (15)) are inside the closed-form regions."""
    r = sp.Rational(3, 2)
    assert sp.Rational(1, 1000) < m.PHI_G2.subs({B: r, Gm: 1})
    assert m.PSI_LARGE.subs(B, 3) == sp.Rational(1, 15) and sp.Rational(1, 100) < sp.Rational(1, 15)
    assert verify(claim("binary-large-g-closed-form-frozen-local-maximiser-instance"), SETTINGS).status == "refuted"


def test_g2_local_minimum_region_with_the_boundary_moved_up_refuted():
    # (variant() adds a `where` to the original's unless the domain is given too: replace it)
    orig = claim("binary-g2-frozen-local-minimum-region")
    assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=(F < sp.Rational(6, 5) * m.PHI_G2,)))


def test_g2_local_maximum_region_with_the_boundary_moved_down_refuted():
    orig = claim("binary-g2-frozen-local-maximum-region")
    assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=(F > sp.Rational(4, 5) * m.PHI_G2,)))


def test_g2_local_minimum_region_with_the_sign_flipped_refuted():
    assert_refuted(variant(claim("binary-g2-frozen-local-minimum-region"), op="<"))


def test_g2_region_with_the_interval_of_beta_over_gamma_misplaced_refuted():
    """A boundary of the same shape on (1/2, 2) instead of (2/3, 2): (2 - r)(2r - 1)/(16 r)."""
    orig = claim("binary-g2-frozen-local-minimum-region")
    c = B / Gm
    assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=(F < (2 - c) * (2 * c - 1) / (16 * c),)))


def test_wrong_frozen_second_derivative_refuted():
    orig = claim("binary-g2-frozen-second-derivative")
    x = m.x
    assert_refuted(variant(orig, rhs=-B * ((2 * F - x) / x ** 2 - (1 - 2 * F + x) / (1 - x) ** 2)))
    at14 = claim("binary-g2-frozen-second-derivative-at-14")
    assert_refuted(variant(at14, rhs=-Gm * (4 * m.P14 + B / Gm - 1) / (m.P14 * (1 - m.P14))))


def test_g2_boundary_value_with_the_wrong_point_refuted():
    orig = claim("binary-g2-frozen-boundary-value")
    assert_refuted(variant(orig, rhs=(2 - B / Gm) / 3))


def test_g2_needs_small_reference_with_a_smaller_bound_refuted():
    orig = claim("binary-g2-frozen-local-minimum-needs-small-reference")
    assert_refuted(variant(orig, rhs=sp.Rational(66, 1000)))


def test_large_local_minimum_region_with_the_boundary_moved_up_refuted():
    orig = claim("binary-large-g-frozen-local-minimum-region")
    wrong_psi = sp.Rational(1, 2) - (B ** 2 + 4) / (2 * B * sp.sqrt(B ** 2 + 25))  # above psi
    assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=(F < wrong_psi,)))


def test_large_local_maximum_region_with_the_boundary_moved_down_refuted():
    orig = claim("binary-large-g-frozen-local-maximum-region")
    assert_refuted(variant(orig, domain=dict(orig.domain.sets), where=(F > sp.Rational(4, 5) * m.PSI_LARGE,)))


def test_large_local_maximum_region_with_the_sign_flipped_refuted():
    assert_refuted(variant(claim("binary-large-g-frozen-local-maximum-region"), op=">"))


def test_wrong_large_frozen_second_derivative_refuted():
    orig = claim("binary-large-g-frozen-second-derivative-at-15")
    P15 = m.P15
    assert_refuted(variant(orig, rhs=-B * (P15 - F) * (B * (P15 - F) + 4 * P15 - 2) / (P15 * (1 - P15)) ** 2))
