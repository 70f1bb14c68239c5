"""Wrong variants of Section 2.1 / 2.2 claims must be refuted with a counterexample.

Each test takes a claim of derivations/s2_1_reward_preference.py or
derivations/s2_2_divergence_penalty.py, breaks it in one deliberate way (sign flip,
missing factor, wrong domain, dropped condition) and checks that the engine refutes the
broken version, while the original is established.
"""

import dataclasses
import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from derivation_checks import verify  # noqa: E402  (replays committed certificates)

import s2_1_reward_preference as s21  # noqa: E402
import s2_2_divergence_penalty as s22  # noqa: E402
from _grpo import advantage  # noqa: E402

from derivation_checks import SETTINGS, assert_established, assert_refuted, claim, variant  # noqa: E402



# ------------------------------------------------------------------ Section 2.1

def test_pair_advantage_sign_flip_refuted():
    orig = claim(s21, "pair-advantage-is-sign")
    assert_established(orig)
    assert_refuted(variant(orig, rhs=sp.sign(-s21.dij)))


def test_r2_twice_win_minus_one_without_antisymmetry_refuted():
    """Dropped condition: reward-induced preferences with ties are not antisymmetric."""
    orig = claim(s21, "r2-expected-win-minus-loss")
    assert_established(orig)
    win = s21._E2(lambda o, o2: s21._PREF[o, o2])
    assert_refuted(variant(orig, lhs=orig.rhs, rhs=2 * win - 1))


def test_std_squared_expectation_missing_factor_refuted():
    orig = claim(s21, "group-std-squared-expectation-g3")
    assert_established(orig)
    assert_refuted(variant(orig, rhs=s21.SIGMA2))


def test_order_only_invariance_fails_for_groups_of_three():
    """The G = 2 invariance under increasing maps does not extend to G = 3."""
    orig = claim(s21, "pair-advantage-order-only")
    rk = sp.Symbol("r_k", real=True)
    rs = [s21.ri, s21.rj, rk]
    assert_refuted(variant(
        orig, lhs=advantage([s21._f(r) for r in rs], 0), rhs=advantage(rs, 0),
        domain={**orig.domain.sets, rk: sp.Interval(-sp.oo, sp.oo)},
        where=(sp.Ne(s21.ri, s21.rj),)))


def test_r_inf_limit_with_inverted_ratio_refuted():
    orig = claim(s21, "pg-binary-limit-high-reward")
    p = s21.pold
    assert_refuted(variant(orig, value=sp.sqrt(p / (1 - p))))


# ------------------------------------------------------------------ Section 2.2

def test_kl0_gradient_missing_old_policy_factor_refuted():
    orig = claim(s22, "kl0-gradient-eq8")
    assert_established(orig)
    assert_refuted(variant(orig, rhs=-s22.f1 / s22.p1 ** 2 + 1 / s22.p1))


def test_on_policy_gradient_sign_flip_refuted():
    orig = claim(s22, "kl0-gradient-on-policy-eq10")
    assert_refuted(variant(orig, rhs=s22.f1 / s22.p1 - 1))


def test_unbiasedness_with_unnormalised_reference_refuted():
    """Wrong domain: with ref not summing to one, D is not KL(pi || ref) even on-policy."""
    orig = claim(s22, "penalty-unbiased-kl-on-policy-g2")
    assert_established(orig)
    pi = s22.PI_N
    ref = {"a": s22.f1, "b": s22.f2, "c": s22.f3}
    assert_refuted(variant(
        orig, lhs=s22.penalty_def(pi, ref, s22.Categorical(s22.OUT, [pi[o] for o in s22.OUT]), 2),
        rhs=s22.kl(pi, ref),
        domain={s22.p1: s22.UNIT_OPEN, s22.p2: s22.UNIT_OPEN, s22.f1: s22.POS, s22.f2: s22.POS,
                s22.f3: s22.POS},
        where=(s22.p1 + s22.p2 < 1,)))


def test_reverse_kl_not_stationary_off_simplex():
    """Dropped condition: without the simplex constraint the reverse-KL gradient is -1, not 0."""
    orig = claim(s22, "reverse-kl-stationary-at-reference-on-simplex")
    assert_established(orig)
    assert_refuted(variant(orig, simplex=False))


@pytest.mark.parametrize("module", [s21, s22])
def test_every_claim_validates(module):
    ids = [c.id for c in module.CLAIMS]
    assert len(ids) == len(set(ids))
    for c in module.CLAIMS:
        c.validate()


def test_chain_with_a_wrong_line_names_that_step():
    original = claim(s22, "kl0-on-policy-unbiased-derivation")
    steps = list(original.steps)
    # "pi_ref sums to one" mis-typed as two: line 4 no longer follows from line 3
    steps[3] = dataclasses.replace(steps[3], expr=steps[3].expr + 1)
    res = verify(variant(original, steps=steps), SETTINGS)
    assert res.status == "refuted"
    assert res.counterexample["failing step"] == 4 and res.counterexample["point"]
    # falsify first: no symbolic attempt on the refuted chain; the lines before hold numerically
    assert [s.get("status") for s in res.steps[1:3]] == ["checked", "checked"]
    assert res.steps[3]["status"] == "refuted"
    assert verify(original, SETTINGS).status == "proved"


# ------------------------------------------------------------------ notational slips of Sections 2.1-2.2
@pytest.mark.parametrize("module,ids", [
    (s21, {"s21-r-inf-expectation-subscript", "s21-rewards-drawn-from-old-policy",
           "s21-asymmetric-for-antisymmetric", "s21-r2-notation", "s21-reward-preference-missing-expected"}),
    (s22, {"s22-kl-rev-subscript-case", "s22-reverse-kl-derivative-variable", "s22-capital-in"}),
])
def test_notational_slips_are_listed_as_findings(module, ids):
    from verify_claims import Ref
    from verify_claims.model.claims import Uncheckable
    entries = {u["id"]: u for u in module.UNCHECKABLE}
    assert set(entries) == ids
    claim_ids = {c.id for c in module.CLAIMS}
    for u in entries.values():
        assert isinstance(u["ref"], Ref) and u["ref"].section == module.__name__[1:4].replace("_", ".")
        assert u["finding"] and u["statement"] and u["reason"]
        assert u["id"] not in claim_ids
        Uncheckable.from_declaration(u, module.__name__)   # the loader accepts it
        # each names the claims that check the quantity it is about, and they exist
        named = {w.strip("(),.;") for w in u["reason"].split() if w.strip("(),.;") in claim_ids}
        assert named or "g2/g3/g4" in u["reason"], u["id"]
