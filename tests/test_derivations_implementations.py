"""Beyond the paper: library implementations (derivations/x2_implementations.py).

Every claim gets its expected status, the summaries rest on claims that exist, and the
library conventions are pinned by wrong variants the engine must refute with a
counterexample: the population/sample std factor inverted, the effective beta with the
wrong power, k3 with the sign of its log term flipped, the G = 2 advantage +-1 for the
sample std, (14) at beta instead of sqrt(2) beta, a too strong epsilon bound, and the
importance ratio inverted.
"""

import importlib
import re
import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import derivation_checks as checks  # noqa: E402
from derivation_checks import variant, verify  # noqa: E402  (verify replays committed certificates)
from verify_claims import Summary  # noqa: E402
from verify_claims.kinds.summary import verify_summary  # noqa: E402
from verify_claims.run.settings import Settings  # noqa: E402

import x2_implementations as x2  # noqa: E402
from grpo_formulas.advantage import normalised_advantage  # noqa: E402
from grpo_formulas.closed_forms import closed_form_g2  # noqa: E402
from grpo_formulas.divergence import penalty_term  # noqa: E402
from grpo_formulas.implementations import (advantage_sample_std_eps, k3_openrlhf, k3_verl,  # noqa: E402
                                           sample_std)

SETTINGS = Settings(seed=0, samples=40, precision=30)

EXPECTED = {
    "proved": [
        "impl-sample-std-bessel-factor-g3", "impl-sample-std-bessel-factor-g4",
        "impl-sample-std-advantage-g3", "impl-sample-std-advantage-g4",
        "impl-binary-sample-std-closed-form", "impl-binary-advantage-bessel-factor-any-g",
        "impl-pg-sample-std-g2", "impl-pg-sample-std-g3", "impl-pg-sample-std-g4",
        "impl-eq11-effective-beta-g2", "impl-eq11-effective-beta-g3", "impl-eq11-effective-beta-g4",
        "impl-eq11-effective-beta-any-g", "impl-effective-beta-tends-to-beta",
        "impl-g2-sample-std-advantage-higher", "impl-g2-sample-std-advantage-lower", "impl-g2-eps-advantage",
        "impl-g2-on-policy-derivative-sample-std",
        "impl-eps-advantage-factor", "impl-no-scale-advantage-is-shift-only", "impl-no-scale-pg-g3",
        "impl-k3-trl-is-penalty-term", "impl-k3-verl-is-penalty-term", "impl-k3-openrlhf-is-penalty-term",
        "impl-k3-importance-ratio-is-direct-kl-term", "impl-large-g-closed-form-beta-zero",
        # a stationary point at the root of a quadratic, closed by the root's own relation
        # sqrt(b)**2 = b in exact arithmetic (backends/rational.py; checked before it)
        "impl-g2-stationary-eps-two-levels",
    ],
    "certified": [
        "impl-g2-closed-form-root-sample-std",
        "impl-eps-factor-larger-for-balanced-groups", "impl-binary-min-sample-std", "impl-eps-factor-lower-bound",
        "impl-eps-factor-below-one", "impl-eps-factor-trl-default", "impl-k3-clamps-inactive-moderate-ratios",
        "impl-k3-verl-clamped-for-large-ratios", "impl-beta-zero-g2-maximiser",
        "impl-trl-legacy-beta-g2-sample-std-bound", "impl-trl-legacy-beta-g8-large-g-bound",
        "impl-trl-legacy-beta-g8-g2-form-bound", "impl-verl-example-kl-coef-bound",
    ],
    # a stationary point at the root of a quadratic: neither sympy nor the exact arithmetic
    # closes it (nor the paper's own binary-g2-closed-form); the root itself is certified
    # (impl-g2-closed-form-root-sample-std)
    "checked": ["impl-g2-stationary-sample-std"],
}
SUMMARIES = ["impl-no-scale-options-are-shift-only", "impl-k3-without-ratio-is-kl0-reverse-kl",
             "impl-k3-with-ratio-is-direct-kl"]


def claim(cid):
    return checks.claim(x2, cid)


def assert_refuted(c):
    return checks.assert_refuted(c, SETTINGS)


# ------------------------------------------------------------------ module sanity

def test_every_claim_has_an_expected_status_and_a_library_reference():
    ids = [c.id for c in x2.CLAIMS]
    assert len(ids) == len(set(ids))
    listed = [i for v in EXPECTED.values() for i in v] + SUMMARIES
    assert sorted(ids) == sorted(listed)
    for c in x2.CLAIMS:
        c.validate()
        assert c.id.startswith("impl-"), c.id
        assert c.expect.holds, c.id
        assert str(c.ref).startswith("Beyond the paper: library implementations"), c.id
        assert "cf. Eq. (" in c.ref.note, c.id
    un = [u["id"] for u in x2.UNCHECKABLE]
    assert len(un) == len(set(un)) and not set(un) & set(ids)
    for u in x2.UNCHECKABLE:
        assert {"id", "ref", "statement", "reason"} <= set(u)
        assert re.search(r"v\d+\.\d+", u["ref"].note), u["id"]  # a version is named


def _bundled_ids():
    out = set()
    for f in sorted((ROOT / "derivations").glob("[!_]*.py")):
        mod = importlib.import_module(f.stem)
        out |= {c.id for c in getattr(mod, "CLAIMS", [])}
    return out


def test_uses_point_at_known_claims():
    known = _bundled_ids()
    for c in x2.CLAIMS:
        for u in c.uses:
            assert u in known, (c.id, u)


@pytest.mark.parametrize("cid,want", [(c, s) for s, cs in EXPECTED.items() for c in cs])
def test_claim_status(cid, want):
    res = verify(claim(cid), SETTINGS)
    assert res.status == want, (cid, res.status, res.message)


@pytest.mark.parametrize("cid", SUMMARIES)
def test_summaries_rest_on_established_claims(cid):
    s = claim(cid)
    assert isinstance(s, Summary)
    by_id = {}
    for f in sorted((ROOT / "derivations").glob("[!_]*.py")):
        for c in getattr(importlib.import_module(f.stem), "CLAIMS", []):
            by_id[c.id] = c
    results = {u: verify(by_id[u], SETTINGS) for u in s.uses}
    assert verify_summary(s, results).status in ("proved", "certified")


# ------------------------------------------------------------------ the library conventions themselves

def test_library_formulas_at_numbers():
    """The sympy encodings agree with what the code computes, at concrete numbers."""
    rs = [sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(1)]
    # torch: tensor([1., 0., 0., 1.]).std() = sqrt(4 * 0.25 / 3) = 0.57735...
    assert sp.nsimplify(sample_std(rs)) == 1 / sp.sqrt(3)
    # TRL: (1 - 0.5) / (0.57735 + 1e-4)
    a = advantage_sample_std_eps(rs, 0, sp.Rational(1, 10000))
    assert abs(float(a) - 0.5 / (3 ** -0.5 + 1e-4)) < 1e-12
    lp, lr = sp.log(sp.Rational(1, 5)), sp.log(sp.Rational(1, 2))
    d = penalty_term(sp.Rational(1, 5), sp.Rational(1, 2))
    assert abs(float(k3_verl(lp, lr) - d)) < 1e-12 and abs(float(k3_openrlhf(lp, lr) - d)) < 1e-12
    assert k3_verl(sp.Integer(0), sp.Integer(5)) == 10 and k3_openrlhf(sp.Integer(0), sp.Integer(5)) == 10


# ------------------------------------------------------------------ wrong variants

@pytest.mark.parametrize("G", [3, 4])
def test_bessel_factor_inverted_is_refuted(G):
    """sqrt(G/(G-1)) in place of sqrt((G-1)/G): the population/sample factor upside down."""
    orig = claim(f"impl-sample-std-advantage-g{G}")
    rs = [sp.Symbol(f"r_{i}", real=True) for i in range(1, G + 1)]
    assert_refuted(variant(orig, rhs=sp.sqrt(sp.Rational(G, G - 1)) * normalised_advantage(rs, 0)))


def test_bessel_factor_inverted_in_pg_is_refuted():
    orig = claim("impl-pg-sample-std-g3")
    assert_refuted(variant(orig, rhs=sp.sqrt(sp.Rational(3, 2)) * x2._p_paper("a", x2.old, 3)))


def test_bessel_factor_inverted_any_g_is_refuted():
    orig = claim("impl-binary-advantage-bessel-factor-any-g")
    from grpo_formulas.implementations import binary_group_advantage_one
    G, m, c = x2.Gs, x2.m, x2.c
    assert_refuted(variant(orig, rhs=sp.sqrt(G / (G - 1)) * binary_group_advantage_one(G, m, c, population=True)))


@pytest.mark.parametrize("cid,G", [("impl-eq11-effective-beta-g3", 3), ("impl-eq11-effective-beta-g4", 4)])
def test_effective_beta_with_the_wrong_power_is_refuted(cid, G):
    """beta G/(G - 1) (no square root) instead of beta sqrt(G/(G - 1))."""
    orig = claim(cid)
    xx, b = x2.x, x2.beta
    pa = {o: x2._p_paper(o, xx, G) for o in "ab"}
    wrong = (1 - (pa["a"] - (xx * pa["a"] + (1 - xx) * pa["b"])) / (b * sp.Rational(G, G - 1))) * xx
    assert_refuted(variant(orig, rhs=wrong))


def test_effective_beta_any_g_inverted_is_refuted():
    orig = claim("impl-eq11-effective-beta-any-g")
    G, b = x2.Gs, x2.beta
    assert_refuted(variant(orig, rhs=(1 - (x2._pg - x2._ep) / (b * sp.sqrt((G - 1) / G))) * x2.x))


def test_effective_beta_limit_with_the_wrong_rate_is_refuted():
    orig = claim("impl-effective-beta-tends-to-beta")
    assert_refuted(variant(orig, rate=x2.beta))


def test_k3_with_the_log_term_sign_flipped_is_refuted():
    orig = claim("impl-k3-trl-is-penalty-term")
    lp, lr = x2.lp, x2.lr
    assert_refuted(variant(orig, lhs=sp.exp(lr - lp) + (lr - lp) - 1))


def test_openrlhf_k3_with_the_log_term_sign_flipped_is_refuted():
    orig = claim("impl-k3-openrlhf-is-penalty-term")
    v = x2.lp - x2.lr
    assert_refuted(variant(orig, lhs=sp.exp(-v) - 1 - v))


def test_importance_ratio_inverted_is_refuted():
    """pi_old/pi_theta instead of pi_theta/pi_old."""
    orig = claim("impl-k3-importance-ratio-is-direct-kl-term")
    lp, lo_, lr = x2.lp, x2.lo_, x2.lr
    wrong = (sp.exp(lr - lp) - (lr - lp) - 1) * sp.exp(lo_ - lp)
    assert_refuted(variant(orig, lhs=wrong))


@pytest.mark.parametrize("side,wrong", [("higher", sp.Integer(1)), ("lower", sp.Integer(-1))])
def test_g2_advantage_plus_minus_one_for_the_sample_std_is_refuted(side, wrong):
    orig = claim(f"impl-g2-sample-std-advantage-{side}")
    assert_refuted(variant(orig, rhs=wrong))


def test_g2_eps_advantage_with_population_std_is_refuted():
    orig = claim("impl-g2-eps-advantage")
    d, e = x2.d, x2.eps
    assert_refuted(variant(orig, rhs=(d / 2) / (sp.Abs(d) / 2 + e)))


def test_g2_root_at_the_paper_beta_is_refuted():
    """(14) at beta/gamma (the population std) does not solve the sample-std condition."""
    orig = claim("impl-g2-closed-form-root-sample-std")
    assert_refuted(variant(orig, value=closed_form_g2(x2.beta, x2.gam, x2.ref)))


def test_g2_stationary_at_the_paper_beta_is_refuted():
    orig = claim("impl-g2-stationary-sample-std")
    pt = closed_form_g2(x2.beta, x2.GAMMA3, x2.ref)
    assert_refuted(variant(orig, at={x2.x: pt}))


def test_eps_bound_with_unit_min_std_is_refuted():
    """The bound 1 - eps/c (as if the smallest std were 1) fails for lopsided groups."""
    orig = claim("impl-eps-factor-lower-bound")
    assert_refuted(variant(orig, rhs=1 - x2.eps / x2.c))


def test_eps_factor_at_trl_default_overstated_is_refuted():
    orig = claim("impl-eps-factor-trl-default")
    assert_refuted(variant(orig, rhs=sp.Rational(9998, 10000)))


def test_eps_factors_equal_across_compositions_is_refuted():
    """One effective beta for epsilon would need the same factor for every composition."""
    orig = claim("impl-eps-factor-larger-for-balanced-groups")
    assert_refuted(variant(orig, op="<="))


def test_legacy_bound_with_the_paper_beta_claimed_for_sample_std_is_refuted():
    """0.96, the paper's groups-of-two guarantee, does not hold with the sample std."""
    orig = claim("impl-trl-legacy-beta-g2-sample-std-bound")
    assert_refuted(variant(orig, rhs=sp.Rational(96, 100)))
