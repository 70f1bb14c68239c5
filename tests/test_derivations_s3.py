"""Section 3 / Appendix B.2 (derivations/s3_extensions.py): key verdicts and wrong variants.

Each wrong-variant test takes a claim, breaks it in one deliberate way (a sign flip, the
other root, a missing factor, a dropped importance weight, the wrong aggregation function)
and checks that the engine refutes the broken version with a counterexample, while the
original is established.
"""

import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from verify_claims import Root  # noqa: E402
from derivation_checks import verify  # noqa: E402  (replays committed certificates)
from verify_claims.run.settings import Settings

import derivation_checks as checks  # noqa: E402
from derivation_checks import variant  # noqa: E402

import s3_extensions as s3  # noqa: E402
from _s2_helpers import kl0  # noqa: E402
from _s3_helpers import h_fn, logit  # noqa: E402

SETTINGS = Settings(seed=0, samples=40, precision=30)


def claim(cid):
    return checks.claim(s3, cid)


def assert_refuted(c):
    return checks.assert_refuted(c, SETTINGS)


def assert_established(c):
    return checks.assert_established(c, SETTINGS)



# ------------------------------------------------------------------ module sanity

def test_module_validates_with_unique_prefixed_ids():
    ids = [c.id for c in s3.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in s3.CLAIMS:
        c.validate()
        assert c.id.startswith(("direct-kl-", "shift-only-", "b2-")), c.id
    un = [u["id"] for u in s3.UNCHECKABLE]
    assert len(un) == len(set(un)) and not set(un) & set(ids)
    for u in s3.UNCHECKABLE:
        assert {"id", "ref", "statement", "reason"} <= set(u)


def test_uses_point_at_known_claims_or_other_sections():
    ids = {c.id for c in s3.CLAIMS}
    external = {"penalty-d-equals-kl0-g2", "penalty-d-equals-kl0-g3", "kl-gradient-eq9"}
    for c in s3.CLAIMS:
        for u in c.uses:
            assert u in ids or u in external, (c.id, u)


@pytest.mark.parametrize("cid", [
    "b2-g2-derivative-literal", "b2-large-g-gamma-tilde-literal",
    "b2-large-g-h-limit-literal-up-to-zero", "b2-large-g-h-limit-literal-down-to-one"])
def test_paper_findings_refuted_and_corrected(cid):
    c = claim(cid)
    assert not c.expect.holds and c.expect.paper_error
    res = verify(c, SETTINGS)
    assert res.status == "refuted" and res.counterexample
    fixed = [d for d in s3.CLAIMS if cid in d.uses and d.expect.holds]
    assert fixed, f"no corrected claim uses {cid}"


@pytest.mark.parametrize("cid,want", [
    ("direct-kl-penalty-equals-kl-g2", "proved"),
    ("direct-kl-penalty-derivation", "proved"),
    ("direct-kl-exp-form-stationary-g2", "proved"),
    ("direct-kl-exp-form-maximiser-g2", "certified"),
    ("direct-kl-g2-closed-form-is-fixed-point", "proved"),
    ("b2-g2-derivative", "proved"),
    ("b2-large-g-h-limit-at-zero", "proved"),
    ("shift-only-reward-pref-g3", "proved"),
])
def test_key_claims_established(cid, want):
    assert verify(claim(cid), SETTINGS).status == want


@pytest.mark.parametrize("cid", [
    "direct-kl-g2-closed-form", "b2-large-g-xstar-critical-point", "b2-large-g-xstar-minimises-h",
    "direct-kl-large-g-two-stationary-upper", "direct-kl-large-g-small-beta-optimum-one"])
def test_key_maxima_and_roots_established(cid):
    assert_established(claim(cid))


# ------------------------------------------------------------------ wrong variants

def test_penalty_without_importance_weight_is_not_kl():
    """Dropped importance weight: the GRPO penalty sampled from pi_old gives KL_0, not KL."""
    orig = claim("direct-kl-penalty-equals-kl-g2")
    assert_refuted(variant(orig, lhs=kl0(s3.PI_N, s3.REF_N, s3.OLD_N)))


def test_closed_form_with_flipped_exponent_is_not_the_maximiser():
    orig = claim("direct-kl-g2-closed-form")
    g, b, r = s3.gamma, s3.beta, s3.refa
    wrong = sp.exp(-g / (2 * b)) * r / (sp.exp(-g / (2 * b)) * r + sp.exp(g / (2 * b)) * (1 - r))
    assert_refuted(variant(orig, at={s3.pa: wrong}, frozen={s3.pold: wrong},
                           domain={g: sp.Interval.Lopen(0, 1), b: sp.Interval(sp.Rational(1, 10), 10),
                                   r: s3.OPEN_UNIT}))


def test_closed_form_with_z_missing_the_second_exponential_is_refuted():
    """Missing factor: Z_q = e^{gamma/(2 beta)} ref + (1 - ref) does not normalise."""
    orig = claim("direct-kl-g2-normaliser")
    g, b, r = s3.gamma, s3.beta, s3.refa
    z_wrong = sp.exp(g / (2 * b)) * r + (1 - r)
    assert_refuted(variant(orig, lhs=sp.exp(g / (2 * b)) * r / z_wrong
                           + sp.exp(-g / (2 * b)) * (1 - r) / z_wrong))


def test_other_root_is_not_the_critical_point_of_h():
    orig = claim("b2-large-g-xstar-critical-point")
    other = (1 - sp.sqrt(1 - 1 / (1 + s3.beta ** 2))) / 2
    assert_refuted(variant(orig, value=other))


def test_h_decreasing_on_the_upper_piece_is_refuted():
    orig = claim("b2-large-g-h-increasing-above-xstar")
    assert_refuted(variant(orig, direction="decreasing"))


def test_h_limit_at_zero_with_wrong_sign_is_refuted():
    orig = claim("b2-large-g-h-limit-at-zero")
    assert_refuted(variant(orig, value=-sp.oo))


def test_shift_only_without_the_group_factor_is_refuted():
    orig = claim("shift-only-reward-pref-g3")
    assert_refuted(variant(orig, rhs=s3._E_PI_R - s3._E_OLD_R))


def test_grpo_aggregation_g_is_not_stationary_for_the_direct_kl_objective():
    """Wrong aggregation: pi = g((P - E P)/beta) ref with g(x) = 1/(1-x) (Eq. (11), the GRPO
    penalty) is not stationary once the penalty is the direct KL."""
    orig = claim("direct-kl-exp-form-stationary-g2")
    u = s3.p2_scores(s3.X)
    eu = sp.Add(*[s3.X[o] * u[o] for o in s3.OUT])
    ref11 = {o: (1 - (u[o] - eu) / s3.beta) * s3.X[o] for o in s3.OUT}
    obj = s3.j_direct(s3.PI_FREE, s3.OLD_FREE, ref11, s3.p2_scores)
    assert_refuted(variant(orig, objective=obj, where=s3.X_WHERE + tuple(
        1 - (u[o] - eu) / s3.beta > 0 for o in s3.OUT)))


def test_upper_zero_is_not_a_local_maximiser_of_the_potential():
    orig = claim("direct-kl-large-g-potential-upper-local-min")
    assert_refuted(variant(orig, objective=-orig.objective))


def test_large_beta_instance_has_two_stationary_policies():
    """beta = 2/(3 log 3), pi_ref(a) = 1/28: h vanishes at 1/2 and at 9/10 (both sides of x*), so
    claiming 1/2 as the unique zero in (0, 1) is refuted with the other zero."""
    x = s3.xx
    b0, r0 = 2 / (3 * sp.log(3)), sp.Rational(1, 28)
    eq = h_fn(x, b0, r0)
    for z in (sp.Rational(1, 2), sp.Rational(9, 10)):
        ok = Root(id="two-zeros-instance", title="t", ref="3", equation=eq, var=x, value=z,
                  interval=s3.OPEN_UNIT)
        assert_established(ok)
    res = assert_refuted(Root(id="two-zeros-instance-unique", title="t", ref="3", equation=eq, var=x,
                              value=sp.Rational(1, 2), interval=s3.OPEN_UNIT, unique=True))
    assert res.counterexample["type"] == "another root in the interval"
    assert abs(float(res.counterexample["x (other)"]) - 0.9) < 1e-9
    assert sp.N(logit(r0)) < 0 and sp.N(h_fn(x, b0, r0).subs(x, s3._XS.subs(s3.beta, b0))) < 0


def test_small_beta_optimum_fails_without_the_threshold():
    """Dropped condition: without h(x*) > 0 (beta below the threshold), pi(a) = 1 is not the
    global maximiser of the potential."""
    orig = claim("direct-kl-large-g-small-beta-optimum-one")
    assert_refuted(variant(orig, domain={s3.beta: sp.Interval(2, 20),
                                         s3.refa: sp.Interval.Lopen(0, sp.Rational(1, 2))}, where=()))


def test_kl_not_kl_reverse_gradient():
    """The importance-weighted penalty's gradient is log(pi/ref), not the reverse-KL -ref/pi."""
    orig = claim("direct-kl-penalty-gradient")
    assert_established(orig)
    assert_refuted(variant(orig, rhs=-s3.f1 / s3.p1))


# ------------------------------------------------------------------ Section 3 wording, read as stated (issue 11)
@pytest.mark.parametrize("cid,partners", [
    ("direct-kl-large-g-two-maximisers-literal-potential",
     ("direct-kl-large-g-potential-lower-local-max", "direct-kl-large-g-potential-increasing-to-one")),
    ("direct-kl-large-g-two-maximisers-literal-fixed-point",
     ("direct-kl-large-g-two-stationary-lower", "direct-kl-large-g-two-stationary-upper")),
])
def test_two_maximisers_as_worded_refuted_with_the_corrected_claims_established(cid, partners):
    c = claim(cid)
    assert not c.expect.holds and c.expect.paper_error
    res = verify(c, SETTINGS)
    assert res.status == "refuted" and res.counterexample["point"], (res.status, res.message)
    for p in partners:
        assert p in c.uses
        assert_established(claim(p))


def test_two_maximisers_potential_counterexample_has_different_heights():
    res = verify(claim("direct-kl-large-g-two-maximisers-literal-potential"), SETTINGS)
    ce = res.counterexample
    assert ce["type"] == "values differ" and float(ce["difference"]) != 0


def test_fixed_point_reading_each_zero_maximises_its_own_objective():
    """The wording's failure is one objective with two maximisers: with pi_old held at z_1, z_1 (not z_2)
    maximises; a variant that freezes pi_old at z_2 for the point z_2 is the (established) upper claim."""
    c = claim("direct-kl-large-g-two-maximisers-literal-fixed-point")
    assert_established(variant(c, frozen={s3.pold: s3.z2}))


def test_small_beta_optimum_one_is_the_literal_reading():
    """'The optimal value of pi(a | q) is 1 if beta is sufficiently small': the maximiser over the closed
    [0, 1] is the boundary point 1, for every (beta, pi_ref) below the threshold min h > 0."""
    c = claim("direct-kl-large-g-small-beta-optimum-one")
    assert c.at == {s3.xx: 1} and c.scope == "global" and c.over[s3.xx] == sp.Interval(0, 1)
    assert tuple(c.domain.where) == s3._WHERE_SMALL
