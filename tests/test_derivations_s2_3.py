"""Section 2.3 / Appendix A (derivations/s2_3_stationary_policies.py): the module loads, key
verdicts hold, and deliberately wrong variants (sign flip, missing factor, dropped condition,
wrong multiplier, wrong scope) are refuted with a counterexample."""

import dataclasses
import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "src", ROOT / "derivations"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from verify_claims import HOLDS, Ref  # noqa: E402
from conftest import bundled_paper_loaded  # noqa: E402
from derivation_checks import verify  # noqa: E402  (replays committed certificates)
from verify_claims.run.settings import Settings

import s2_3_stationary_policies as m  # noqa: E402
from _s23_helpers import ref_from_eq11, expected  # noqa: E402

SETTINGS = Settings(seed=0, samples=60, precision=30)


def claim(cid):
    found = [c for c in m.CLAIMS if c.id == cid]
    assert found, f"no claim {cid}"
    return found[0]


def variant(original, **changes):
    """A copy with some fields changed, expected (wrongly) to hold.  The domain is passed as
    plain sets plus `where` (replacing a Domain would append to its relations)."""
    changes.setdefault("domain", dict(original.domain.sets))
    changes.setdefault("where", tuple(original.domain.where))
    return dataclasses.replace(original, id=original.id + "-wrong-variant", expect=HOLDS, uses=(),
                               **changes)


def assert_refuted(c):
    c.validate()
    res = verify(c, SETTINGS)
    assert res.status == "refuted", (res.status, res.message, res.evidence)
    assert isinstance(res.counterexample, dict) and res.counterexample
    return res


def assert_established(c):
    res = verify(c, SETTINGS)
    assert res.status in ("proved", "certified", "checked"), (res.status, res.message)
    return res


# ------------------------------------------------------------------ the module itself

def test_module_loads_without_problems():
    loaded = bundled_paper_loaded()
    problems = [p for p in loaded.problems if "s2_3" in str(p)]
    assert not problems, problems
    ids = [c.id for c in loaded.claims]
    assert len(ids) == len(set(ids))
    for c in m.CLAIMS:
        assert c.id.startswith(("kkt-", "pg-", "stationary-", "effective-reg-", "s23-")), c.id


def test_every_claim_validates_and_unique():
    ids = [c.id for c in m.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in m.CLAIMS:
        c.validate()


def test_uncheckable_entries_are_well_formed():
    ids = {c.id for c in m.CLAIMS}
    for u in m.UNCHECKABLE:
        assert {"id", "ref", "statement", "reason"} <= set(u) <= {"id", "ref", "statement", "reason", "finding"}, u
        assert isinstance(u["ref"], Ref) and u["statement"] and u["reason"]
        assert u["id"] not in ids


# ------------------------------------------------------------------ key verdicts

@pytest.mark.parametrize("cid", ["kkt-eq11-stationary-g2", "kkt-multiplier-from-normalisation",
                                 "stationary-eq12-groups-of-two", "effective-reg-beta-sigma",
                                 "pg-on-policy-mean-zero-g2"])
def test_key_claims_proved(cid):
    res = verify(claim(cid), SETTINGS)
    assert res.status in ("proved", "certified"), (res.status, res.message)


def test_point_mass_is_a_maximiser_yet_violates_eq11():
    """The paper finding: delta_a maximises J(. | pi_old = delta_a), but (11) fails there."""
    assert_established(claim("stationary-boundary-point-mass-maximiser"))
    res = verify(claim("kkt-eq11-at-boundary-maximiser"), SETTINGS)
    assert res.status == "refuted" and res.counterexample
    assert verify(claim("kkt-multiplier-partial-support"), SETTINGS).status == "proved"


def test_two_sided_reading_refuted_one_sided_bound_holds():
    assert verify(claim("stationary-within-beta-two-sided"), SETTINGS).status == "refuted"
    assert verify(claim("stationary-pg-below-mean-plus-beta"), SETTINGS).status in ("proved", "certified",
                                                                                    "checked")


# ------------------------------------------------------------------ wrong variants

def test_eq11_with_flipped_sign_is_not_stationary():
    orig = claim("kkt-eq11-stationary-g2")
    pg, star, beta = m.PG2_STAR, m.STAR, m.beta
    wrong_ref = {o: (1 + (pg[o] - expected(star, pg)) / beta) * star[o] for o in m.OUT}
    obj = m.objective(m.Y, m.PG2_OLD, wrong_ref, m.OLDF, beta)
    assert_refuted(variant(orig, objective=obj, where=m.STAR_WHERE + tuple(wrong_ref[o] > 0 for o in m.OUT)))


def test_eq11_without_beta_is_not_stationary():
    orig = claim("kkt-eq11-stationary-g2")
    wrong_ref = ref_from_eq11(m.PG2_STAR, m.STAR, 1)       # the 1/beta factor dropped
    obj = m.objective(m.Y, m.PG2_OLD, wrong_ref, m.OLDF, m.beta)
    assert_refuted(variant(orig, objective=obj, where=m.STAR_WHERE + tuple(wrong_ref[o] > 0 for o in m.OUT)))


def test_stationarity_chain_without_complementary_slackness_refuted():
    """Dropped condition: with gamma_a only non-negative (not forced to 0) step 2 fails."""
    orig = claim("kkt-appendix-a-stationarity-chain")
    assert_established(orig)
    res = assert_refuted(variant(orig, domain={**orig.domain.sets, m.ga: m.NONNEG}))
    assert res.counterexample["failing step"] == 2


def test_normalisation_chain_with_unnormalised_reference_refuted():
    """Dropped condition: pi_ref(c) free (pi_ref not summing to one over the support)."""
    orig = claim("kkt-multiplier-from-normalisation")
    steps = list(orig.steps)
    total = m.fa + m.fb + m.fc
    steps[0] = dataclasses.replace(steps[0], expr=sp.Eq(total, steps[0].expr.rhs))
    res = assert_refuted(variant(orig, steps=steps, domain={**orig.domain.sets, m.fc: m.OPEN_UNIT}))
    assert res.counterexample["failing step"] == 2


def test_wrong_multiplier_value_refuted():
    orig = claim("kkt-multiplier-unique")
    assert_refuted(variant(orig, value=orig.value + m.beta))


def test_partial_support_multiplier_is_not_expected_preference():
    """The paper's lambda = E[P_G] is wrong when pi_ref has mass outside supp(pi)."""
    orig = claim("kkt-multiplier-partial-support-unique")
    assert_refuted(variant(orig, value=m._EU_S))


def test_strict_bound_fails_with_zero_reference_probability():
    """Dropped condition: pi_ref(o) = 0 (excluded by Section 1.3) makes the bound an equality."""
    orig = claim("stationary-pg-below-mean-plus-beta")
    assert_refuted(variant(orig, domain={**orig.domain.sets, m.refv: sp.Interval(0, 1)}))


def test_g_decreasing_refuted():
    orig = claim("stationary-g-increasing")
    assert_refuted(variant(orig, direction="decreasing"))


def test_g_rewrite_with_exp_refuted():
    orig = claim("stationary-g-rewrite")
    steps = list(orig.steps)
    steps[1] = dataclasses.replace(steps[1], expr=sp.Eq(m.piv, sp.exp((m.pg_o - m.ep) / m.beta) * m.refv),
                                   multiply_by=None, relation="implies")
    assert_refuted(variant(orig, steps=steps))


def test_point_mass_not_maximiser_for_large_beta():
    """Dropped condition beta < 4 pi_ref(a): for large beta the point mass is not a maximiser."""
    orig = claim("stationary-boundary-point-mass-maximiser")
    assert_refuted(variant(orig, where=(m.beta > 8 / m.fa,)))


def test_eq11_points_below_beta_2_need_not_be_local_maximisers():
    """The claim is certified for beta >= 2 (each output's curvature -beta (2 pi_ref - pi)/pi^2 < 0);
    the same statement down to beta = 1/10 is false: 2 pi_ref(o) < pi(o) once P_2(o) > beta/2."""
    orig = claim("stationary-eq11-local-maximiser-g2")
    assert verify(orig).status == "certified"
    assert_refuted(variant(orig, domain={**orig.domain.sets, m.beta: sp.Interval(sp.Rational(1, 10), 2)}))


def test_eq11_points_are_not_global_maximisers():
    """Observation: (11) is only necessary; an interior solution can lose to a far-away policy
    of J(. | pi_old = pi*), even with beta >= 2 (a rarely sampled output carries little penalty)."""
    orig = claim("stationary-eq11-local-maximiser-g2")
    assert_established(orig)
    # a concrete instance: deterministic rewards t = (1, 0, 0), output a rare under pi*
    pt = {m.ta: 1, m.tb: 0, m.tc: 0, m.pa: sp.Rational(1, 1000), m.pb: sp.Rational(1, 2)}
    obj = orig.objective.subs(pt)
    at = {k: sp.sympify(v).subs(pt) for k, v in orig.at.items()}
    frozen = {k: sp.sympify(v).subs(pt) for k, v in orig.frozen.items()}
    dom = {m.beta: sp.Interval(2, 3), m.lo: m.REAL, m.g1: m.POS}
    assert_refuted(variant(orig, objective=obj, at=at, frozen=frozen, domain=dom, where=(),
                           scope="global"))


def test_eq12_without_loss_probability_refuted():
    orig = claim("stationary-eq12-groups-of-two")
    assert_refuted(variant(orig, rhs=(1 - m._WIN / m.beta) * m.pa))


def test_effective_reg_without_sigma_refuted():
    orig = claim("effective-reg-beta-sigma")
    obj = expected(m.Y, m.RW) - m.beta * m.kl0(m.Y, m._REF13, m.OLDF)
    assert_refuted(variant(orig, objective=obj))


def test_chain_wrong_line_names_that_step():
    orig = claim("kkt-appendix-a-on-policy-chain")
    steps = list(orig.steps)
    # the classic slip: pi_ref = (1 + (P - lambda)/beta) pi
    steps[1] = dataclasses.replace(steps[1], expr=sp.Eq(m.fa, (1 + (m.ua - m.lam) / m.beta) * m.ya))
    res = assert_refuted(variant(orig, steps=steps))
    assert res.counterexample["failing step"] == 2
