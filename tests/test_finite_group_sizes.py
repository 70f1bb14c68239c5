"""Finite group sizes (derivations/x1_finite_group_sizes.py) and what certifies them: the
Bernstein backend, goals and identities over a finite summation parameter decided value by
value, and the exact zero test of a radical polynomial.

Every check has its negative: a wrong P_3, x_3 at the wrong beta, x_G claimed decreasing
in G, P_G claimed above the large-group preference, a polynomial that dips below 0 within
1e-6 of a touching point, an identity off by one sqrt(2) term at a single G.
"""

import sys
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "derivations"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import derivation_checks as checks  # noqa: E402
from derivation_checks import variant, verify  # noqa: E402
from verify_claims import Identity, Inequality, Monotonic, Ref, Summary  # noqa: E402
from verify_claims.backends.bernstein import BERNSTEIN  # noqa: E402
from verify_claims.backends.instances import instances, written_out  # noqa: E402
from verify_claims.backends.symbolic import polynomial_identically_zero  # noqa: E402
from verify_claims.engine.goals import Goal  # noqa: E402
from verify_claims.engine.verify import verify as plain_verify  # noqa: E402
from verify_claims.kinds.summary import verify_summary  # noqa: E402
from verify_claims.model.domain import Domain  # noqa: E402
from verify_claims.run.settings import Settings  # noqa: E402

import x1_finite_group_sizes as x1  # noqa: E402

SETTINGS = Settings(seed=0, samples=40, precision=30)
x = sp.Symbol("x")

EXPECTED = {
    "proved": ["finite-g-expected-preference-zero", "finite-g3-preference-closed-form",
               "finite-g3-preference-closed-form-worse-answer", "finite-g-preference-at-one",
               "finite-g-preference-factor"],
    "certified": ["finite-g3-stationary-closed-form", "finite-g3-stationary-above-g2",
                  "finite-g-preference-decreasing", "finite-g-penalty-part-decreasing",
                  "finite-g-preference-increasing-in-g", "finite-g-preference-below-large-group",
                  "finite-g8-trl-default-preference-at-0-98"],
    "checked": ["finite-g-residual-at-15"],
}


@pytest.mark.parametrize("status,cid", [(s, c) for s, ids in EXPECTED.items() for c in ids])
def test_claim_status(status, cid):
    res = verify(checks.claim(x1, cid), SETTINGS)
    assert res.status == status, (cid, res.status, res.message)


def test_every_claim_is_pinned_and_summaries_rest_on_existing_claims():
    ids = {c.id for c in x1.CLAIMS}
    pinned = {c for v in EXPECTED.values() for c in v}
    summaries = {c.id for c in x1.CLAIMS if isinstance(c, Summary)}
    assert ids - summaries == pinned
    for c in x1.CLAIMS:
        if isinstance(c, Summary):
            assert set(c.uses) - ids <= {"binary-large-g-closed-form-unique-root", "pg-binary-limit-high-reward",
                                         "impl-eq11-effective-beta-any-g"}


def test_per_g_claims_declare_the_restriction():
    for c in x1.CLAIMS:
        if any(isinstance(st, sp.Range) for st in c.domain.sets.values()) or (
                isinstance(c, Summary) and c.id.startswith("finite-g-")):
            assert c.narrowed is not None, c.id


def test_summary_is_as_strong_as_its_weakest_support():
    by_id = {c.id: c for c in x1.CLAIMS}
    support = {cid: verify(by_id[cid], SETTINGS) for cid in by_id["finite-g-stationary-unique"].uses}
    res = verify_summary(by_id["finite-g-stationary-unique"], support)
    assert res.status == "certified", res


# ------------------------------------------------------------------ wrong variants
def test_wrong_p3_is_refuted():
    c = checks.claim(x1, "finite-g3-preference-closed-form")
    checks.assert_refuted(variant(c, rhs=1 - x1.x))            # the sqrt(2) factor missing
    checks.assert_refuted(variant(c, rhs=sp.sqrt(3) * (1 - x1.x)))


def test_x3_at_the_wrong_beta_is_refuted():
    c = checks.claim(x1, "finite-g3-stationary-closed-form")
    checks.assert_refuted(variant(c, value=x1.closed_form_g2(x1.beta * sp.sqrt(2), 1, x1.ref)))


def test_x_g_claimed_decreasing_in_g_is_refuted():
    c = checks.claim(x1, "finite-g-preference-increasing-in-g")
    res = checks.assert_refuted(variant(c, op="<"))
    assert "G" in res.counterexample["point"]


def test_preference_claimed_above_the_large_group_limit_is_refuted():
    c = checks.claim(x1, "finite-g-preference-below-large-group")
    checks.assert_refuted(variant(c, op=">"))
    checks.assert_refuted(variant(c, rhs=sp.Rational(9, 10)))  # the margin is 1/G small


def test_preference_claimed_increasing_is_refuted():
    c = checks.claim(x1, "finite-g-preference-decreasing")
    checks.assert_refuted(variant(c, direction="increasing"))


def test_identity_wrong_at_one_g_is_refuted_not_proved():
    # the factor identity broken only at G = 17: proved value by value up to 16, then not
    c = checks.claim(x1, "finite-g-preference-factor")
    G = x1.G
    wrong = variant(c, rhs=c.rhs + sp.Piecewise((sp.sqrt(2) * x1.x * (1 - x1.x), sp.Eq(G, 17)), (0, True)))
    res = plain_verify(wrong, Settings(seed=0, samples=200, precision=30))
    assert res.status != "proved"


def test_trl_default_bound_pushed_too_far_is_refuted():
    # at 0.985, P_8(a | x) = 0.0389 is below beta_eff = 0.0428: x_8 > 0.985 does not follow
    c = checks.claim(x1, "finite-g8-trl-default-preference-at-0-98")
    checks.assert_refuted(variant(c, lhs=x1.pg_reward_one(sp.Integer(8), x1.k, sp.Rational(197, 200)).doit()))


def test_limit_with_the_wrong_rate_is_refuted():
    c = checks.claim(x1, "finite-g-residual-at-15")
    checks.assert_refuted(variant(c, rate=2 * c.rate))


# ------------------------------------------------------------------ the Bernstein backend
def _decide(e, want, iv, seconds=2.0):
    return BERNSTEIN.decide(Goal(e, want, Domain({x: iv}), "test"), seconds)


def test_bernstein_certifies_a_long_algebraic_polynomial():
    q = written_out(x1.q_sum(x1.G).xreplace({x1.G: 64})).xreplace({x1.x: x})
    d = _decide(1 - q**2 * x * (1 - x), "positive", sp.Interval(0, 1))
    assert d.verdict == "holds", d


def test_bernstein_finds_a_dip_near_a_touching_point():
    # (x - 1/3)^2 >= 1e-6 fails only within 1e-3 of 1/3: found, never certified
    d = _decide((x - sp.Rational(1, 3)) ** 2 - sp.Rational(1, 10**6), "positive", sp.Interval(0, 1))
    assert d.verdict == "violated" and abs(d.exact[x] - sp.Rational(1, 3)) < sp.Rational(1, 1000)


def test_bernstein_respects_open_and_closed_ends():
    assert _decide(x**2 * (1 - x), "positive", sp.Interval.open(0, 1)).verdict == "holds"
    d = _decide(x**2 * (1 - x), "positive", sp.Interval(0, 1))
    assert d.verdict == "violated" and d.exact[x] == 0
    assert _decide(sp.sqrt(2) * x - 1, "negative", sp.Interval(0, 1)).verdict == "violated"
    assert _decide(sp.sqrt(2) * x**2 + 1, "positive", sp.Interval(-1, 1)).verdict == "holds"


def test_bernstein_declines_what_it_cannot_state():
    y = sp.Symbol("y")
    assert BERNSTEIN.declines(Goal(x * y, "positive", Domain({x: sp.Interval(0, 1), y: sp.Interval(0, 1)}), "t"))
    assert BERNSTEIN.declines(Goal(sp.log(x + 1), "positive", Domain({x: sp.Interval(0, 1)}), "t"))
    assert BERNSTEIN.declines(Goal(x, "positive", Domain({x: sp.Interval(0, sp.oo)}), "t"))
    assert BERNSTEIN.declines(Goal(x, "zero", Domain({x: sp.Interval(0, 1)}), "t"))


def test_a_wrong_bernstein_claim_is_refuted_through_the_engine():
    c = Inequality(id="dip", title="t", ref=Ref("2.1"), lhs=(x - sp.Rational(1, 3)) ** 2,
                   op=">", rhs=sp.Rational(1, 10**8), domain={x: sp.Interval(0, 1)})
    res = plain_verify(c, Settings(seed=0, samples=20, precision=30))
    assert res.status == "refuted" and res.counterexample


# ------------------------------------------------------------------ value by value
def test_instances_split_only_a_finite_summation_parameter():
    G, k = sp.Symbol("G", integer=True), sp.Symbol("k", integer=True)
    e = sp.Sum(x**k, (k, 0, G - 1))
    s, cases = instances(e, Domain({x: sp.Interval(0, 1), G: sp.Range(1, 4)}))
    assert s == G and [c[1] for c in cases] == [sp.Integer(1), 1 + x, 1 + x + x**2]
    assert instances(e, Domain({x: sp.Interval(0, 1), G: sp.Interval(1, 3)})) is None
    assert instances(x**2, Domain({x: sp.Interval(0, 1)})) is None


def test_a_monotonic_claim_over_a_summation_parameter_is_certified_per_value():
    c = Monotonic(id="m", title="t", ref=Ref("2.1"), expr=x1.PG_A, var=x1.x, direction="decreasing",
                  domain={x1.x: sp.Interval.open(0, 1), x1.G: sp.Range(2, 9)})
    res = plain_verify(c, SETTINGS)
    assert res.status == "certified" and "value by value" in res.evidence["certificate"]["detail"]


def test_polynomial_identically_zero():
    assert polynomial_identically_zero((x + sp.sqrt(3)) ** 2 - x**2 - 2 * sp.sqrt(3) * x - 3)
    assert not polynomial_identically_zero((x + sp.sqrt(3)) ** 2 - x**2 - 2 * sp.sqrt(3) * x - 2)
    assert not polynomial_identically_zero(sp.sqrt(8) * x - sp.sqrt(2) * x)
    assert not polynomial_identically_zero(sp.sqrt(2) * x**5 - sp.sqrt(3) * x**5)  # a top term only
    assert not polynomial_identically_zero(sp.log(2) * x)   # not a radical: no verdict
    # degree 40: exact coefficients, a difference of 1e-30 in one middle coefficient is seen
    big = (x + sp.sqrt(2)) ** 40 * (x - sp.sqrt(sp.Rational(3, 5))) ** 3
    assert polynomial_identically_zero(big - sp.expand(big))
    assert not polynomial_identically_zero(big - sp.expand(big) + sp.sqrt(6) * x**17 / 10**30)


def test_sums_are_added_up_as_written_out_would():
    """polynomial_identically_zero adds a sum up term by term with its index bound (no
    sympy expression written out): each case agrees with instances.written_out, and a
    difference of 1e-9 in one coefficient is seen."""
    k, j = sp.Symbol("k", integer=True), sp.Symbol("j", integer=True)
    cases = [
        sp.Sum(sp.binomial(4, k) * x**k * (1 - x) ** (4 - k) * sp.sqrt(k + 1), (k, 0, 4)),
        sp.Sum(sp.sqrt(3 - k) * x**k / sp.sqrt(k + 1), (k, 0, 3)),      # sqrt(0) at k = 3
        sp.Sum(x**k, (k, 3, 1)) + 1,                                        # an empty range
        sp.Product(1 + k * x, (k, 1, 3)),
        sp.Sum(k * sp.Sum(x ** (k + j), (j, 0, k)), (k, 0, 3)),             # a bound that is an index
        sp.Sum(sp.binomial(-3, k) * x**k + sp.factorial(k) * x**k / (k + 1), (k, 0, 4)),
    ]
    for e in cases:
        w = written_out(e)
        assert polynomial_identically_zero(e - w), e
        assert not polynomial_identically_zero(e - w + x**2 / 10**9), e
    # the root of a negative number at some index: imaginary, so no verdict here
    neg = sp.Sum(sp.sqrt(1 - k) * x**k, (k, 0, 2))
    assert not polynomial_identically_zero(neg - neg.doit())


def test_bernstein_adds_sums_up_as_written_out_would():
    """The Bernstein backend's polynomial of a finite sum, added up term by term with its
    index bound, has the coefficients of the written-out sum: powers of one base added up
    (k x^k / x), a term with a factor that is exactly 0 dropped (its 1/(1 - x) never
    evaluated), a bound that is an index, a binomial beyond its range; and a change of
    1e-9 in one coefficient is seen."""
    from verify_claims.backends.bernstein import poly_in_arb

    k, j = sp.Symbol("k", integer=True, nonnegative=True), sp.Symbol("j", integer=True)
    cases = [
        sp.Sum(sp.binomial(4, k) * x**k * (1 - x) ** (4 - k) * sp.sqrt(k + 1), (k, 0, 4)),
        sp.Sum(sp.sqrt(3 - k) * x**k / sp.sqrt(k + 1), (k, 0, 3)),      # sqrt(0) at k = 3
        sp.Sum(k * x**k / x + (3 - k) * x**k * (1 - x) ** (3 - k) / (1 - x), (k, 0, 3)),
        sp.Sum(x**k, (k, 3, 1)) + 1,                                        # an empty range
        sp.Sum(k * sp.Sum(x ** (k + j), (j, 0, k)), (k, 0, 3)),             # a bound that is an index
        sp.Sum(sp.binomial(3, k) * x**k, (k, 0, 5)) ** 2 - x,                # binomial(3, 5) = 0
        sp.Sum(sp.binomial(-3, k) * x**k + sp.factorial(k) * x**k / (k + 1), (k, 0, 4)),
    ]
    def same(p, q):
        return p.degree() == q.degree() and all((a - b).contains(0) for a, b in zip(p.coeffs(), q.coeffs()))

    for e in cases:
        w = written_out(e)
        got = poly_in_arb(e, x, 256)
        assert same(got, poly_in_arb(w, x, 256)), e
        assert not same(got, poly_in_arb(w + x**2 / 10**9, x, 256)), e
    rational = sp.Sum(sp.binomial(4, k) * x**k * (1 - x) ** (4 - k), (k, 0, 4))
    assert poly_in_arb(rational, x, 64, exact=True) == poly_in_arb(written_out(rational), x, 64, exact=True)
    # a true pole is not hidden: 1/x with a factor that is not 0
    assert BERNSTEIN.decide(Goal(sp.Sum(x**k / x, (k, 0, 2)), "positive", Domain({x: sp.Interval(0, 1)}),
                                 "t"), 2.0).verdict == "unknown"


def test_a_goal_over_g_is_certified_by_bernstein_without_writing_its_sums_out(monkeypatch):
    """P_G decreasing in x for G = 2..8: each value's derivative goes to the Bernstein
    backend with its sum as declared (never written out); claimed increasing, the first
    value's polynomial has the wrong sign."""
    import time

    from verify_claims.backends import instances as inst
    from verify_claims.engine.goals import none_check, solve_goal

    der = sp.diff(x1.PG_A, x1.x)
    dom = Domain({x1.x: sp.Interval.open(0, 1), x1.G: sp.Range(2, 9)})
    monkeypatch.setattr(inst, "written_out", lambda e: pytest.fail(f"written out: {e}"))
    method, detail, _ = solve_goal(Goal(der, "negative", dom, "t"), ["bernstein"], time.process_time() + 30,
                                   none_check)
    assert method == "bernstein" and "(7 values)" in detail, detail
    method, detail, _ = solve_goal(Goal(der, "positive", dom, "t"), ["bernstein"], time.process_time() + 30,
                                   none_check)
    assert method is None and "at G = 2" in detail and "mpmath did not confirm" in detail, detail
    at_5 = der.xreplace({x1.G: 5})
    assert BERNSTEIN.decide(Goal(at_5, "positive", Domain({x1.x: sp.Interval.open(0, 1)}), "t"),
                            2.0).verdict == "violated"


def test_other_backends_get_each_value_written_out():
    import time

    from verify_claims.engine.goals import none_check, solve_goal

    G, k, y = sp.Symbol("G", integer=True, positive=True), sp.Symbol("k", integer=True), sp.Symbol("y")
    dom = Domain({x: sp.Interval(0, 1), y: sp.Interval(0, 1), G: sp.Range(1, 4)})
    e = sp.Sum(x**k * y, (k, 0, G - 1))   # two variables: Bernstein declines, z3 decides
    method, detail, _ = solve_goal(Goal(e, "nonnegative", dom, "t"), ["bernstein", "smt"],
                                   time.process_time() + 30, none_check)
    assert method == "smt" and "(3 values)" in detail, detail
    method, _, _ = solve_goal(Goal(e - sp.Rational(1, 2), "nonnegative", dom, "t"), ["bernstein", "smt"],
                              time.process_time() + 30, none_check)
    assert method is None


def test_an_identity_over_g_is_proved_without_writing_its_sums_out(monkeypatch):
    from verify_claims.backends import instances as inst
    from verify_claims.kinds import identity

    G, k = sp.Symbol("G", integer=True, positive=True), sp.Symbol("k", integer=True, nonnegative=True)
    lhs = sp.Sum(sp.binomial(G, k) * x**k, (k, 0, G))
    dom = {x: sp.Interval(0, 1), G: sp.Range(1, 9)}
    monkeypatch.setattr(inst, "written_out", lambda e: pytest.fail("written out"))
    c = Identity(id="binom", title="t", ref=Ref("2.1"), lhs=lhs, rhs=(1 + x) ** G, domain=dom)
    got = identity._instances_exactly(c)
    assert got.status == "proved" and "exact polynomial arithmetic for 8 value(s)" in got.method
    # wrong at every G by a term of 1e-3: not proved this way (and refuted by the numbers)
    wrong = Identity(id="binom-wrong", title="t", ref=Ref("2.1"), lhs=lhs, rhs=(1 + x) ** G + x**G / 1000,
                     domain=dom)
    assert identity._instances_exactly(wrong) is None
    monkeypatch.undo()
    assert plain_verify(wrong, SETTINGS).status == "refuted"


def test_an_identity_wrong_at_one_value_is_not_proved():
    G, k = sp.Symbol("G", integer=True, positive=True), sp.Symbol("k", integer=True, nonnegative=True)
    lhs = sp.Sum(sp.binomial(G, k) * x**k, (k, 0, G))
    c = Identity(id="binom", title="t", ref=Ref("2.1"), lhs=lhs, rhs=(1 + x) ** G, domain={x: sp.Interval(0, 1),
                                                                                         G: sp.Range(1, 9)})
    assert plain_verify(c, SETTINGS).status == "proved"
    wrong = Identity(id="binom-wrong", title="t", ref=Ref("2.1"), lhs=lhs,
                     rhs=(1 + x) ** G + sp.Piecewise((x**3 / 1000, sp.Eq(G, 5)), (0, True)),
                     domain={x: sp.Interval(0, 1), G: sp.Range(1, 9)})
    assert plain_verify(wrong, SETTINGS).status == "refuted"


def test_written_out_terms_do_not_hide_a_singular_factor():
    # review finding: 0 * log(x) is simplified to 0 once k = 0 is written in; the sum as
    # declared is undefined at x = 0 (and at x = 1/3 below), so it must not be certified
    from verify_claims.backends.definedness import defined
    G, k = sp.Symbol("G", integer=True), sp.Symbol("k", integer=True)
    dom = Domain({x: sp.Interval(0, 1), G: sp.FiniteSet(0)})
    assert not defined(sp.Sum(k * sp.log(x), (k, 0, G)), dom, 2.0)
    summand = (k - 1) * (k - 2) / (3 * x - 1) + x
    assert not defined(sp.Sum(summand, (k, 1, G)), Domain({x: sp.Interval(0, 1), G: sp.FiniteSet(1, 2)}), 2.0)
    assert not defined(sp.Sum((G - 1 - k) * sp.sqrt(G - 2 - k) * x**k, (k, 0, G - 1)),
                       Domain({x: sp.Interval(0, 1), G: sp.FiniteSet(3, 4)}), 2.0)
    assert defined(sp.Sum((G - 1 - k) * sp.sqrt(G - 1 - k) * x**k, (k, 0, G - 1)),
                   Domain({x: sp.Interval(0, 1), G: sp.FiniteSet(3, 4)}), 2.0)
    for cid in ("Z3", "Z3b", "Z3x"):  # the verdict no longer depends on whether a sample hits x = 0
        c = Inequality(id=cid, title="t", ref=Ref("2.1"), lhs=sp.Sum(k * sp.log(x), (k, 0, G)), op="<=", rhs=0,
                       domain={x: sp.Interval(0, 1), G: sp.FiniteSet(0)})
        assert plain_verify(c, SETTINGS).status != "certified", cid


def test_a_sum_over_a_finite_parameter_is_shown_defined_without_writing_it_out():
    # the symbolic-index route: the summand over lo <= k <= hi, no value of G written out
    from verify_claims.backends.definedness import _defined_by_index, defined
    dom = Domain({x1.x: sp.Interval.open(0, 1), x1.G: sp.Range(2, 65)})
    assert defined(x1.PG_A, dom, 2.0) and defined(sp.diff(x1.PG_A, x1.x), dom, 2.0)
    assert "_instances" not in dom.__dict__  # nothing was split value by value
    closed = Domain({x1.x: sp.Interval(0, 1), x1.G: sp.Range(2, 64)})
    assert _defined_by_index(x1.q_sum(x1.G + 1), closed, 2.0)  # x**k with k >= 0: 0**0 = 1 at x = 0


def test_the_symbolic_index_route_refuses_every_undefined_sum():
    # each is undefined at some value of G or x: the route must not say defined (and
    # `defined` as a whole must not either)
    from verify_claims.backends.definedness import _defined_by_index, defined
    G, k = sp.Symbol("G", integer=True, positive=True), sp.Symbol("k", integer=True)
    unit = {x: sp.Interval(0, 1), G: sp.Range(2, 10)}
    wrong = {
        "a pole at k = 3": sp.Sum(x / (k - 3), (k, 0, G)),
        "sqrt(-1) at the last term": sp.Sum(sp.sqrt(G - 2 - k), (k, 0, G - 1)),
        "0**(-1) at x = 0, k = 0": sp.Sum(x ** (k - 1), (k, 0, G)),
        "log 0 at k = 0 (times 0, still undefined)": sp.Sum(k * sp.log(k), (k, 0, G)),
        "binomial of a non-integer": sp.Sum(sp.binomial(G * x, k), (k, 0, G)),
        "a log of the sum that may be 0": sp.log(sp.Sum(x ** k * (k - 1), (k, 0, G))),
        # found in review: each of these was said defined by a first version of the route
        "a limit pi: the numbers sum k = 3": x + sp.Sum(1 / (k - 3), (k, sp.pi, 5)),
        "a limit sqrt(2): k = 1": sp.Sum(x / (k - 1), (k, sp.sqrt(2), G)),
        "a limit -pi: int(-pi) = -3": x + sp.Sum(1 / (k + 3), (k, -5, -sp.pi)),
        "a limit E, split by G": sp.Sum(x / (k - 2), (k, sp.E, G)),
        "a complex summand: log of a negative square": sp.log(1 + sp.Sum(sp.I * x ** k, (k, 0, G)) ** 2),
        "I**k taken out as a real power": sp.log(1 + sp.Sum(2 * sp.I ** (2 * k + 1), (k, 0, G)) ** 2),
        "a power's own base undefined at x = 1/2": sp.Sum((1 + 1 / (x - sp.Rational(1, 2))) ** k, (k, 0, G)),
        "a half-integer exponent: (x - 1)**(k/2)": sp.Sum((x - 1) ** (k / 2), (k, 0, G)),
        "binomial(G/2, k): not of integers": sp.Sum(sp.binomial(G / 2, k) * sp.sqrt(x - 1), (k, 0, G)),
        "a product through 0 in a denominator": sp.Product(1 / (k - 2), (k, 0, G)),
    }
    for why, e in wrong.items():
        assert not _defined_by_index(e, Domain(dict(unit)), 2.0), why
        assert not defined(e, Domain(dict(unit)), 2.0), why
    # a reversed range (G < 5): sympy reads Sum(1/k, (k, 1, -3)) as -Sum(1/k, (k, -2, 0)), which
    # has 1/0; the numbers and the written-out terms read it as empty.  The route takes
    # neither reading: it needs hi >= lo - 1 on the whole domain
    assert not _defined_by_index(sp.Sum(1 / k, (k, 1, G - 5)), Domain(dict(unit)), 2.0)
    # a domain symbol named as the route's own: z3 names variables by name alone
    clash = sp.log(sp.Sum(x ** k * (k - 1), (k, 0, G)))
    assert not _defined_by_index(clash, Domain({**unit, sp.Symbol("k_value"): sp.Interval.open(0, 1)}), 2.0)
    assert not _defined_by_index(sp.Sum(x / k, (k, 0, G)), Domain({**unit, sp.Dummy("k_index"): sp.Interval(1, 2)}),
                                 2.0)
    # limits that are not integers: no exception, no verdict
    for lo, hi in ((0, 2.0), (0.0, G), (sp.Rational(1, 2), G)):
        assert not _defined_by_index(sp.Sum(x ** k, (k, lo, hi)), Domain(dict(unit)), 2.0)
    # and the same shapes where they are defined
    right = [sp.Sum(x / (k - 3 - G), (k, 0, G)), sp.Sum(sp.sqrt(G - 1 - k), (k, 0, G - 1)),
             sp.Sum(x ** k, (k, 0, G)), sp.Sum(1 / k, (k, 1, G - 1)),
             sp.Sum(sp.binomial(G, k) * x ** k * (1 - x) ** (G - k), (k, 0, G)),
             sp.log(1 + sp.Sum(x ** k, (k, 0, G)) ** 2), sp.Product(1 + x ** k, (k, 0, G)),
             sp.Sum((1 + 1 / (x + 1)) ** k, (k, 0, G)), sp.Sum(sp.binomial(2 * G + 1, k) * x ** k, (k, 0, G))]
    for e in right:
        assert _defined_by_index(e, Domain(dict(unit)), 2.0), e
    # an unbounded Range: decided symbolically (a first version iterated its values for ever)
    assert _defined_by_index(sp.Sum(x ** k, (k, 0, G)), Domain({x: sp.Interval(0, 1), G: sp.Range(1, sp.oo)}), 2.0)


def test_binomials_of_integers_have_sympys_values_in_floats_and_in_mpmath():
    # found in review: the float path said binomial(-3, 2) = 0 (sympy: 6) and mpmath's gamma
    # route binomial(-3, -5) = 6 (sympy: 0); the numbers must agree with the symbolic side
    import mpmath

    from verify_claims.backends.evaluate import compile_expr
    n, k = sp.symbols("n k", integer=True)
    prog = compile_expr(sp.binomial(n, k), [n, k])
    for a in range(-6, 7):
        for b in range(-6, 7):
            want = sp.binomial(a, b)
            assert prog.float_at([float(a), float(b)]) == float(want), (a, b)
            assert prog.mp_at([mpmath.mpf(a), mpmath.mpf(b)], 30) == int(want), (a, b)


def test_bernstein_declines_a_constant_without_a_real_value():
    d = _decide(x**2 + sp.sqrt(1 - sp.sqrt(3)), "positive", sp.Interval(0, 1))
    assert d.verdict == "unknown"
