"""Every claim kind, verified in-process with ``verify(claim, Settings(...))``.

For each kind: a true claim that is established (the exact status where the prover is
known to decide it), and deliberately wrong variants that must be refuted with a
numeric counterexample naming the point.  Then the rules that make a status
trustworthy: tight-but-true bounds are not refuted, undefined points are refuted,
expected-refuted claims, seeded determinism, and the engine-conflict rule.
"""

from __future__ import annotations

import json
import random

import mpmath
import pytest
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from verify_claims import (Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Root, Stationary, Step,
                           not_in_general, refuted)
from verify_claims.model.domain import DeclarationError, Domain
from verify_claims.model.result import ESTABLISHED, Result
from verify_claims.run.settings import Settings
from verify_claims.backends.numeric import NumericOutcome
from verify_claims.backends.symbolic import ProofOutcome
from verify_claims.backends import sampling
from verify_claims.kinds import KINDS
from verify_claims.engine.context import claim_rng
from verify_claims.engine.verify import verify

x, y, a = sp.symbols("x y a")
R = sp.Interval(-sp.oo, sp.oo)
UNIT = sp.Interval(0, 1)
SYM = sp.Interval(-1, 1)
POS = sp.Interval.open(0, sp.oo)
INTS = sp.FiniteSet(0, 1, 2, 3)

SETTINGS = Settings(samples=100, precision=30, timeout=60)



def patch_prove(monkeypatch, fn):
    """Every kind's prover replaced by fn(claim) (the engine calls kind.prove(claim, ctx))."""
    for k in KINDS.values():
        monkeypatch.setattr(k, "prove", lambda claim, ctx, fn=fn: fn(claim))


def pass_screen(monkeypatch):
    """The falsify-first float screen finds nothing, so a (fake) proof is attempted and the
    full-precision check afterwards is what contradicts it."""
    for k in KINDS.values():
        orig = k.spot_check
        monkeypatch.setattr(k, "spot_check", lambda c, s, r, screen=False, orig=orig:
                            NumericOutcome("consistent", {"points": 0}) if screen else orig(c, s, r, screen=False))

def run(claim, settings=SETTINGS) -> Result:
    claim.validate()
    return verify(claim, settings)


def meta(id_, **kw):
    return dict(id=id_, title=f"test claim {id_}", ref="1", **kw)


def assert_refuted(res: Result, cx_type: str | None = None) -> dict:
    assert res.status == "refuted", (res.status, res.message, res.counterexample)
    assert res.method == "numeric counterexample (mpmath)"
    cx = res.counterexample
    assert isinstance(cx, dict) and cx, cx
    assert "point" in cx and isinstance(cx["point"], dict)
    if cx_type is not None:
        assert cx["type"] == cx_type, cx
    assert res.as_expected is False  # these claims are declared as holding
    return cx


def num(s) -> float:
    return float(mpmath.mpf(s))


# ====================================================================== Identity
def test_identity_polynomial_is_proved():
    res = run(Identity(**meta("id-poly"), lhs=(x + y) ** 2, rhs=x ** 2 + 2 * x * y + y ** 2,
                       domain={x: R, y: R}))
    assert res.status == "proved"
    assert res.method.startswith("sympy")
    assert res.evidence["symbolic"]["residual"] == "0"
    assert res.evidence["numeric"]["verdict"] == "consistent"
    # falsify first: 100 points screened (floats, mpmath where floats cannot tell), then
    # the proof, then its cross-check: the first 10 points again, every one in mpmath
    assert res.evidence["numeric"]["screen"]["points"] == 100
    assert res.evidence["numeric"]["points"] == 10
    assert res.counterexample is None and res.as_expected is True


def test_identity_needing_domain_assumptions_is_proved():
    res = run(Identity(**meta("id-sqrt-pos"), lhs=sp.sqrt(x ** 2), rhs=x, domain={x: UNIT}))
    assert res.status == "proved"


def test_identity_only_numerically_established_is_checked():
    # 2 sin x cos x = sin 2x: true everywhere; whatever sympy manages, it must be established
    res = run(Identity(**meta("id-trig"), lhs=2 * sp.sin(x) * sp.cos(x), rhs=sp.sin(2 * x), domain={x: R}))
    assert res.status in ("proved", "checked")
    assert res.evidence["numeric"]["verdict"] == "consistent"


def test_identity_sign_flip_is_refuted():
    res = run(Identity(**meta("id-sign"), lhs=(x + y) ** 2, rhs=x ** 2 - 2 * x * y + y ** 2,
                       domain={x: R, y: R}))
    cx = assert_refuted(res, "values differ")
    px, py = num(cx["point"]["x"]), num(cx["point"]["y"])
    assert num(cx["difference"]) == pytest.approx(4 * px * py, rel=1e-6)
    assert res.evidence["symbolic"]["status"] == "not attempted"  # refuted first: no symbolic work


def test_identity_missing_factor_is_refuted():
    res = run(Identity(**meta("id-factor"), lhs=(x + y) ** 2, rhs=x ** 2 + x * y + y ** 2,
                       domain={x: R, y: R}))
    cx = assert_refuted(res, "values differ")
    assert set(cx["point"]) == {"x", "y"}
    assert num(cx["lhs"]) != pytest.approx(num(cx["rhs"]))


def test_identity_on_a_too_wide_domain_is_refuted():
    res = run(Identity(**meta("id-sqrt-wide"), lhs=sp.sqrt(x ** 2), rhs=x, domain={x: SYM}))
    cx = assert_refuted(res, "values differ")
    assert num(cx["point"]["x"]) < 0  # only negative x distinguish |x| from x


def test_integer_domain_identity():
    n, k = sp.Symbol("n", integer=True, positive=True), sp.Symbol("k", integer=True)
    res = run(Identity(**meta("id-gauss"), lhs=sp.Sum(k, (k, 1, n)), rhs=n * (n + 1) / 2,
                       domain={n: sp.Range(1, 30)}))
    assert res.status == "proved"
    bad = run(Identity(**meta("id-gauss-bad"), lhs=sp.Sum(k, (k, 1, n)), rhs=n ** 2 / 2,
                       domain={n: sp.Range(1, 30)}))
    cx = assert_refuted(bad, "values differ")
    pn = num(cx["point"]["n"])
    assert pn == int(pn) and num(cx["difference"]) == pytest.approx(pn / 2)


def test_sum_bounded_by_a_plain_symbol_with_range_domain():
    # the Sum's bound arrives as an mpf at numeric evaluation; it must still be summed exactly
    n, k = sp.Symbol("n"), sp.Symbol("k")
    res = run(Identity(**meta("id-gauss-plain"), lhs=sp.Sum(k, (k, 1, n)), rhs=n * (n + 1) / 2,
                       domain={n: sp.Range(1, 30)}))
    assert res.status == "proved", (res.status, res.message)
    assert res.evidence["numeric"]["verdict"] == "consistent"
    res = run(Identity(**meta("id-sum-frac"), lhs=sp.Sum(1 / (k * (k + 1)), (k, 1, n)), rhs=1 - 1 / (n + 1),
                       domain={n: sp.Range(1, 40)}))
    assert res.status in ("proved", "checked")
    assert num(res.evidence["numeric"]["max_relative_deviation"]) < 1e-25  # mpmath, not 53-bit floats


# ====================================================================== Chain
def test_chain_all_steps_proved():
    res = run(Chain(**meta("chain-ok"), steps=[Step((x + 1) ** 2 - 1), Step(x ** 2 + 2 * x, because="expand"),
                                               Step(x * (x + 2), because="factor")], domain={x: R}))
    assert res.status == "proved"
    assert [s["relation"] for s in res.steps] == ["start", "equals", "equals"]
    assert [s.get("status") for s in res.steps] == [None, "proved", "proved"]
    assert res.steps[1]["because"] == "expand"


def test_chain_third_step_wrong_names_step_3():
    res = run(Chain(**meta("chain-bad3"), steps=[(x + 1) ** 2 - 1, x ** 2 + 2 * x, x * (x + 3), x ** 2 + 3 * x],
                    domain={x: R}))
    cx = assert_refuted(res, "values differ")
    assert cx["failing step"] == 3
    assert res.message == "counterexample at step 3"
    # falsify first: the refuted chain gets no symbolic attempt, so the steps before the
    # failing one are numerically checked and the ones after it are not reached
    assert res.steps[1]["status"] == "checked"
    assert res.steps[2]["status"] == "refuted"
    assert res.steps[3]["status"] == "not-reached"
    assert num(cx["difference"]) == pytest.approx(num(cx["point"]["x"]), rel=1e-9)  # x(x+3) - (x^2+2x) = x


def test_chain_counterexample_reports_the_failing_steps_value():
    res = run(Chain(**meta("chain-bad-value"), steps=[(x + 1) ** 2 - 1, x ** 2 + 2 * x, x * (x + 3)],
                    domain={x: R}))
    cx = assert_refuted(res)
    px = num(cx["point"]["x"])
    step_value = px * (px + 3)
    reported = [num(v) for k, v in cx.items() if isinstance(v, str) and k not in ("type",)
                and _is_number(v)]
    assert any(v == pytest.approx(step_value, rel=1e-9) for v in reported), cx


def _is_number(s):
    try:
        float(mpmath.mpf(s))
        return True
    except (ValueError, TypeError):
        return False


def test_chain_implies_step_on_integers_is_proved():
    # integer-valued points keep the multiplier product exact (see the xfail below)
    res = run(Chain(**meta("chain-implies"), steps=[sp.Eq(x, y), Step(sp.Eq(x * y, y ** 2), relation="implies",
                                                                     multiply_by=y)],
                    domain={x: INTS, y: INTS}))
    assert res.status == "proved"


def test_chain_equivalent_step_with_vanishing_multiplier_is_refuted():
    res = run(Chain(**meta("chain-eqv-zero"), steps=[sp.Eq(x, y), Step(sp.Eq(x * y, y ** 2),
                                                                       relation="equivalent", multiply_by=y)],
                    domain={x: INTS, y: INTS}))
    cx = assert_refuted(res, "multiplier vanishes")
    assert cx["failing step"] == 2 and num(cx["point"]["y"]) == 0
    assert res.evidence["symbolic"]["status"] == "not attempted"


def test_chain_equivalent_step_on_reals_is_proved():
    res = run(Chain(**meta("chain-eqv-real"), steps=[sp.Eq(3 * x, 6), Step(sp.Eq(6 * x, 12), relation="equivalent",
                                                                           multiply_by=2)],
                    domain={x: R}))
    assert res.status == "proved", (res.status, res.message, res.counterexample)


def test_true_equivalent_step_is_not_refuted_without_a_proof(monkeypatch):
    patch_prove(monkeypatch, lambda claim: ProofOutcome(None, "sympy"))
    res = run(Chain(**meta("chain-eqv-np"), steps=[sp.Eq(x, 2), Step(sp.Eq(x / 3, sp.Rational(2, 3)),
                                                                     relation="equivalent",
                                                                     multiply_by=sp.Rational(1, 3))],
                    domain={x: R}))
    assert res.status == "checked", (res.status, res.counterexample)


# ====================================================================== Inequality
def test_inequality_tight_at_interior_point_is_certified():
    # x (1 - x) <= 1/4 on [0, 1], with equality at x = 1/2
    res = run(Inequality(**meta("ineq-amgm"), lhs=x * (1 - x), op="<=", rhs=sp.Rational(1, 4), domain={x: UNIT}))
    assert res.status == "certified"
    # certification comes first for an inequality (tests/test_certify_first.py): Bernstein
    # coefficients of 1/4 - x (1 - x) = (x - 1/2)^2, all non-negative
    assert res.method == "certified (bernstein)"


def test_inequality_tight_at_a_point_not_refuted():
    # 1 - x <= exp(-x) on the reals, with equality at x = 0
    res = run(Inequality(**meta("ineq-exp"), lhs=1 - x, op="<=", rhs=sp.exp(-x), domain={x: R}))
    assert res.status in ESTABLISHED
    assert res.counterexample is None


def test_inequality_tight_at_closed_boundary_not_refuted():
    # x^2 <= x on [0, 1]: equality exactly at both closed ends, which are sampled
    res = run(Inequality(**meta("ineq-ends"), lhs=x ** 2, op="<=", rhs=x, domain={x: UNIT}))
    assert res.status in ESTABLISHED
    # a closed end was hit exactly (the screen sees every point; the proof's cross-check ten)
    assert res.evidence["numeric"]["screen"]["min_relative_margin"] == "0.0"


def test_strict_inequality_failing_exactly_at_closed_end_is_refuted():
    res = run(Inequality(**meta("ineq-strict-end"), lhs=x ** 2, op="<", rhs=x, domain={x: sp.Interval.Lopen(0, 1)}))
    cx = assert_refuted(res, "inequality violated")
    assert num(cx["point"]["x"]) == 1


def test_strict_inequality_on_open_interval_holds():
    res = run(Inequality(**meta("ineq-strict-open"), lhs=x ** 2, op="<", rhs=x, domain={x: sp.Interval.open(0, 1)}))
    assert res.status in ESTABLISHED


def test_inequality_slightly_stronger_constant_is_refuted():
    res = run(Inequality(**meta("ineq-strong"), lhs=x * (1 - x), op="<=", rhs=sp.Rational(6, 25), domain={x: UNIT}))
    cx = assert_refuted(res, "inequality violated")
    px = num(cx["point"]["x"])
    assert px * (1 - px) > 0.24
    assert num(cx["lhs - rhs"]) > 0


def test_inequality_failing_only_near_a_boundary_is_refuted():
    # x - 1000 x^2 <= 0 fails only on (0, 1/1000): uniform sampling alone rarely finds it
    res = run(Inequality(**meta("ineq-edge"), lhs=x - 1000 * x ** 2, op="<=", rhs=sp.S(0), domain={x: UNIT}))
    cx = assert_refuted(res, "inequality violated")
    assert 0 < num(cx["point"]["x"]) < 1e-3


def test_inequality_undefined_at_closed_end_is_refuted_as_undefined():
    res = run(Inequality(**meta("ineq-undef"), lhs=1 / x, op=">=", rhs=sp.S(1), domain={x: UNIT}))
    cx = assert_refuted(res, "undefined")
    assert num(cx["point"]["x"]) == 0
    assert "division by zero" in cx["cause"]


def test_inequality_reversed_ops():
    ok = run(Inequality(**meta("ineq-ge"), lhs=sp.exp(x), op=">", rhs=x, domain={x: R}))
    assert ok.status in ESTABLISHED
    bad = run(Inequality(**meta("ineq-ge-bad"), lhs=x, op=">=", rhs=x ** 2, domain={x: sp.Interval(0, 2)}))
    cx = assert_refuted(bad, "inequality violated")
    assert num(cx["point"]["x"]) > 1


def test_inequality_with_python_int_rhs():
    res = run(Inequality(**meta("ineq-int-rhs"), lhs=x ** 2, op=">=", rhs=0, domain={x: R}))
    assert res.status == "certified", (res.status, res.message)


# ====================================================================== Limit
def test_limit_proved():
    res = run(Limit(**meta("lim-sinc"), expr=sp.sin(x) / x, var=x, point=0, value=1))
    assert res.status == "proved" and res.method == "sympy.limit"
    # the digits shown are the ones the approach ladder used (x = 1e-24 beside 0 needs more
    # than the working precision of the other kinds), not the settings' 30
    assert res.evidence["numeric"]["digits"] > SETTINGS.precision


def test_limit_with_parameter_at_infinity_proved():
    res = run(Limit(**meta("lim-e"), expr=(1 + a / x) ** x, var=x, point=sp.oo, value=sp.exp(a), direction="-",
                    domain={a: sp.Interval(-2, 2)}))
    assert res.status == "proved"


def test_limit_wrong_value_is_refuted():
    res = run(Limit(**meta("lim-bad"), expr=sp.sin(x) / x, var=x, point=0, value=2))
    cx = assert_refuted(res, "limit differs")
    assert cx["claimed"] == "2"
    assert num(cx["approach"][-1]["f"]) == pytest.approx(1.0)


def test_limit_wrong_parametric_value_is_refuted():
    res = run(Limit(**meta("lim-e-bad"), expr=(1 + a / x) ** x, var=x, point=sp.oo, value=sp.exp(2 * a),
                    direction="-", domain={a: sp.Interval(1, 2)}))
    cx = assert_refuted(res, "limit differs")
    pa = num(cx["point"]["a"])
    assert num(cx["approach"][-1]["f"]) == pytest.approx(float(mpmath.exp(pa)), rel=1e-6)


def test_limit_one_sided_holds_two_sided_refuted():
    ok = run(Limit(**meta("lim-right"), expr=sp.Abs(x) / x, var=x, point=0, value=1, direction="+"))
    assert ok.status == "proved"
    bad = run(Limit(**meta("lim-both"), expr=sp.Abs(x) / x, var=x, point=0, value=1, direction="+-"))
    cx = assert_refuted(bad, "limit differs")
    assert cx["direction"] == "-"


def test_limit_infinite_value():
    res = run(Limit(**meta("lim-inf"), expr=1 / x ** 2, var=x, point=0, value=sp.oo))
    assert res.status == "proved"
    bad = run(Limit(**meta("lim-inf-bad"), expr=-1 / x ** 2, var=x, point=0, value=sp.oo))
    assert_refuted(bad, "limit differs")


# ====================================================================== Monotonic
def test_monotonic_certified():
    res = run(Monotonic(**meta("mono-exp"), expr=sp.exp(x), var=x, direction="increasing", domain={x: R}))
    assert res.status == "certified"
    res = run(Monotonic(**meta("mono-log"), expr=sp.log(x) + a * x, var=x, direction="increasing",
                        domain={x: POS, a: UNIT}))
    assert res.status == "certified"


def test_monotonic_wrong_direction_is_refuted():
    res = run(Monotonic(**meta("mono-exp-dec"), expr=sp.exp(x), var=x, direction="decreasing", domain={x: R}))
    cx = assert_refuted(res, "not decreasing")
    assert num(cx["x (first)"]) < num(cx["x (second)"])
    assert num(cx["f(first)"]) < num(cx["f(second)"])


def test_monotonic_on_too_wide_interval_is_refuted():
    res = run(Monotonic(**meta("mono-sq"), expr=x ** 2, var=x, direction="increasing", domain={x: SYM}))
    cx = assert_refuted(res, "not increasing")
    assert num(cx["x (first)"]) < 0


def test_weakly_monotonic_constant_is_not_refuted_but_strict_is():
    weak = run(Monotonic(**meta("mono-const-weak"), expr=sp.S(0) * x + 3, var=x, strict=False, domain={x: UNIT}))
    assert weak.status in ESTABLISHED + ("undecided",)
    assert weak.status != "refuted"
    strict = run(Monotonic(**meta("mono-const-strict"), expr=sp.floor(x), var=x, strict=True,
                           domain={x: sp.Interval(0, sp.Rational(1, 2))}))
    assert_refuted(strict, "not increasing")


# ====================================================================== Root
QUAD = sp.Eq(x ** 2 - 3 * x + 2, 0)  # roots 1 and 2


def test_root_unique_certified():
    claim = Root(**meta("root-2"), equation=QUAD, var=x, value=sp.S(2), interval=sp.Interval(sp.Rational(3, 2), 3),
                 unique=True)
    res = run(claim)
    assert res.status == "certified"
    # certification comes first for a root: z3 shows that no other root lies in the interval
    assert res.evidence["certificate"]["goals"][-1] == {
        "goal": "no other root in the interval", "method": "smt",
        "detail": "z3 unsat of 'residual defined and = 0, x in the interval, x != value' (4 constraints, 0 obligations)"}
    # the prover, which runs where certification decides nothing, knows the quadratic's other root
    from verify_claims.engine.context import Context
    proof = KINDS["root"].prove(claim, Context(SETTINGS))
    assert proof.status == "certified"
    assert proof.evidence["unique"] == "quadratic: the other root (Vieta) lies outside the interval"


def test_root_with_parameter_established():
    res = run(Root(**meta("root-a"), equation=x ** 2 - (a + 1) * x + a, var=x, value=a, interval=sp.Interval(2, 5),
                   unique=True, domain={a: sp.Interval(2, 5)}))
    assert res.status in ESTABLISHED


def test_the_other_root_is_refuted():
    res = run(Root(**meta("root-other"), equation=QUAD, var=x, value=sp.S(1),
                   interval=sp.Interval(sp.Rational(3, 2), 3)))
    cx = assert_refuted(res, "root outside the interval")
    assert num(cx["x"]) == 1


def test_a_non_root_is_refuted():
    res = run(Root(**meta("root-wrong"), equation=x ** 2 - (a + 1) * x + a, var=x, value=a + 1,
                   interval=sp.Interval(0, 10), domain={a: sp.Interval(2, 5)}))
    cx = assert_refuted(res, "not a root")
    assert num(cx["x"]) == pytest.approx(num(cx["point"]["a"]) + 1)


def test_non_unique_root_is_refuted():
    res = run(Root(**meta("root-nonunique"), equation=QUAD, var=x, value=sp.S(2), interval=sp.Interval(0, 3),
                   unique=True))
    cx = assert_refuted(res, "another root in the interval")
    assert num(cx["x (other)"]) == pytest.approx(1.0)


def test_non_polynomial_root_without_uniqueness():
    ok = run(Root(**meta("root-cos"), equation=sp.cos(x), var=x, value=sp.pi / 2, interval=sp.Interval(0, 3)))
    assert ok.status in ESTABLISHED
    bad = run(Root(**meta("root-cos-bad"), equation=sp.cos(x), var=x, value=sp.pi / 3, interval=sp.Interval(0, 3)))
    cx = assert_refuted(bad, "not a root")
    assert num(cx["residual"]) == pytest.approx(0.5)


def test_non_polynomial_unique_root_by_grid():
    ok = run(Root(**meta("root-cos-unique"), equation=sp.cos(x), var=x, value=sp.pi / 2,
                  interval=sp.Interval(0, 3), unique=True))
    assert ok.status in ESTABLISHED, ok.counterexample
    bad = run(Root(**meta("root-cos-unique-bad"), equation=sp.cos(x), var=x, value=sp.pi / 2,
                   interval=sp.Interval(0, 6), unique=True))
    cx = assert_refuted(bad, "another root in the interval")
    assert num(cx["x (other)"]) == pytest.approx(3 * float(sp.pi) / 2, abs=0.05)


# ====================================================================== Stationary
def test_stationary_proved():
    res = run(Stationary(**meta("stat-ok"), objective=-(x - a) ** 2, wrt=x, at={x: a}, domain={a: R}))
    assert res.status == "proved"


def test_stationary_simplex_proved():
    res = run(Stationary(**meta("stat-simplex"), objective=sp.log(x) + sp.log(y), wrt=(x, y),
                         at={x: sp.Rational(1, 2), y: sp.Rational(1, 2)}, simplex=True))
    assert res.status == "proved"


def test_stationary_frozen_substitution():
    # d/dx [x log(x/z)] = log(x/z) + 1 vanishes at x = z/e (z frozen, then substituted)
    z = sp.Symbol("z")
    res = run(Stationary(**meta("stat-frozen"), objective=x * sp.log(x / z), wrt=x, at={x: a / sp.E},
                         frozen={z: a}, domain={a: POS}))
    assert res.status in ("proved", "checked")


def test_stationary_screen_counts_points_not_residuals():
    """Two residuals per point: the screen's counts are of points, as every other kind's
    (before, 100 points cleared in doubles were reported as 200 -- and 50 points with one
    unresolved residual each would have made the whole check "inconclusive")."""
    b = sp.Symbol("b")
    claim = Stationary(**meta("stat-two"), objective=-(x - a) ** 2 - (y - b) ** 2, wrt=(x, y), at={x: a, y: b},
                       domain={a: SYM, b: SYM})
    claim.validate()
    out = KINDS["stationarity"].spot_check(claim, SETTINGS, claim_rng(SETTINGS, claim.id), screen=True)
    assert out.verdict == "consistent"
    # (a point pressed 1e-15 against an end goes to mpmath: doubles lose its distance)
    assert out.evidence["points"] == 100 and 50 < out.evidence["screened_in_floats"] <= 100


def test_non_vanishing_gradient_is_refuted():
    res = run(Stationary(**meta("stat-bad"), objective=-(x - a) ** 2, wrt=x, at={x: 2 * a}, domain={a: sp.Interval(1, 2)}))
    cx = assert_refuted(res, "gradient does not vanish")
    assert num(cx["residual[0]"]) == pytest.approx(-2 * num(cx["point"]["a"]), rel=1e-9)


# ====================================================================== Maximiser
def test_maximiser_of_concave_objective_certified():
    res = run(Maximiser(**meta("max-ok"), objective=-(x - a) ** 2, wrt=x, at={x: a}, over={x: R},
                        domain={a: SYM}))
    assert res.status == "certified"


def test_local_maximiser_certified():
    res = run(Maximiser(**meta("max-local"), objective=x ** 3 - 3 * x, wrt=x, at={x: -1}, over={x: sp.Interval(-3, 3)},
                        scope="local"))
    assert res.status == "certified"


def test_a_minimiser_is_not_a_maximiser():
    res = run(Maximiser(**meta("max-min"), objective=(x - a) ** 2, wrt=x, at={x: a}, over={x: sp.Interval(-2, 2)},
                        domain={a: SYM}))
    cx = assert_refuted(res, "a feasible point does better")
    assert num(cx["objective(better)"]) > num(cx["objective(claimed)"])


def test_stationary_but_not_global_maximiser_is_refuted():
    # x^3 - 3x has a local maximum 2 at x = -1 but reaches 18 at x = 3
    res = run(Maximiser(**meta("max-nonglobal"), objective=x ** 3 - 3 * x, wrt=x, at={x: -1},
                        over={x: sp.Interval(-3, 3)}, scope="global"))
    cx = assert_refuted(res, "a feasible point does better")
    assert num(cx["better"]["x"]) > 2
    assert num(cx["objective(claimed)"]) == pytest.approx(2.0)


def test_infeasible_maximiser_is_refuted():
    # a local maximiser outside the feasible range; the prover cannot certify it globally
    res = run(Maximiser(**meta("max-infeasible"), objective=x ** 3 - 3 * x, wrt=x, at={x: -1},
                        over={x: sp.Interval(0, 3)}, scope="global"))
    cx = assert_refuted(res, "claimed maximiser is infeasible")
    assert num(cx["x"]) == -1


def test_infeasible_maximiser_of_concave_objective_is_refuted():
    res = run(Maximiser(**meta("max-infeasible-concave"), objective=-(x - 5) ** 2, wrt=x, at={x: 5},
                        over={x: UNIT}))
    assert_refuted(res, "claimed maximiser is infeasible")


# ====================================================================== undefined points
# ====================================================================== what the float screen decided
_SCREENED = {
    "maximiser": lambda: Maximiser(**meta("max-screened"), objective=-(x - a) ** 2, wrt=x, at={x: a}, over={x: R},
                                   domain={a: SYM}),
    "monotonic": lambda: Monotonic(**meta("mono-screened"), expr=sp.exp(x), var=x, direction="increasing",
                                   domain={x: sp.Interval(-2, 2)}),
}


@pytest.mark.parametrize("kind", sorted(_SCREENED))
def test_the_float_screen_counts_what_it_decided_in_doubles(kind):
    """A comparison the screen settles in doubles is counted as such: the count is what tells
    the engine that the screen was not a full check in mpmath (engine/verify.py)."""
    claim = _SCREENED[kind]()
    claim.validate()
    out = KINDS[kind].spot_check(claim, SETTINGS, claim_rng(SETTINGS, claim.id), screen=True)
    assert out.verdict == "consistent"
    assert out.evidence["screened_in_floats"] > 0, out.evidence
    # outside the screen nothing is decided in doubles, and nothing says so
    full = KINDS[kind].spot_check(claim, SETTINGS, claim_rng(SETTINGS, claim.id), screen=False)
    assert full.verdict == "consistent" and "screened_in_floats" not in full.evidence


@pytest.mark.parametrize("kind", sorted(_SCREENED))
def test_a_proof_is_cross_checked_in_mpmath_after_a_screen_in_doubles(kind):
    """The cross-check of a certificate is a pass of its own in mpmath (CROSS_CHECK_SAMPLES
    points), not the float screen relabelled: before, a maximiser's and a monotonic claim's
    screen reported 0 points in doubles and stood in for it."""
    res = run(_SCREENED[kind]())
    assert res.status in ESTABLISHED
    numeric = res.evidence["numeric"]
    assert numeric["screen"]["screened_in_floats"] > 0
    assert "screened_in_floats" not in numeric  # the mpmath pass, not the screen
    size = "parameter_points" if kind == "maximiser" else "pairs"
    assert numeric[size] < numeric["screen"][size]  # the first CROSS_CHECK_SAMPLES points of the screen's


@pytest.mark.parametrize("kind", sorted(_SCREENED))
def test_checked_rests_on_mpmath_at_every_point(kind, monkeypatch):
    """With no proof and no certificate, *checked* means every point in mpmath: the full
    pass runs after a screen that decided comparisons in doubles."""
    patch_prove(monkeypatch, lambda claim: ProofOutcome(None, "sympy"))
    from verify_claims.engine.goals import Certificate
    for k in KINDS.values():
        monkeypatch.setattr(k, "certify", lambda *a_, **k_: Certificate("undecided", reason="test"))
        monkeypatch.setattr(k, "certify_before_proof", lambda *a_, **k_: None)
    res = run(_SCREENED[kind]())
    assert res.status == "checked", (res.status, res.message)
    numeric = res.evidence["numeric"]
    assert numeric["screen"]["screened_in_floats"] > 0
    assert "screened_in_floats" not in numeric
    size = "parameter_points" if kind == "maximiser" else "pairs"
    assert numeric[size] == numeric["screen"][size]


def test_undefined_at_closed_end_in_monotonic_is_refuted():
    res = run(Monotonic(**meta("mono-undef"), expr=-1 / x, var=x, direction="increasing", domain={x: UNIT}))
    cx = assert_refuted(res, "undefined")
    assert num(cx["point"]["x"]) == 0


def test_open_end_keeps_the_claim_defined():
    res = run(Inequality(**meta("ineq-open"), lhs=1 / x, op=">=", rhs=sp.S(1), domain={x: sp.Interval.Lopen(0, 1)}))
    assert res.status in ESTABLISHED


def test_identity_undefined_at_closed_end_is_refuted():
    res = run(Identity(**meta("id-undef"), lhs=1 / x, rhs=(1 + x) / x - 1, domain={x: UNIT}))
    assert_refuted(res, "undefined")


# ====================================================================== expectations
def test_expected_refuted_claim_that_is_refuted_is_as_expected():
    c = Identity(**meta("xfail-ok"), lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: R, y: R},
                 expect=refuted("the paper drops the cross term"))
    res = run(c)
    assert res.status == "refuted" and res.as_expected is True
    assert res.expected == "refuted" and res.expected_reason == "the paper drops the cross term"
    assert res.paper_error is True
    assert res.counterexample and "point" in res.counterexample


def test_expected_refuted_claim_that_holds_is_not_as_expected():
    res = run(Identity(**meta("xfail-holds"), lhs=(x + y) ** 2, rhs=x ** 2 + 2 * x * y + y ** 2,
                       domain={x: R, y: R}, expect=refuted("wrongly believed false")))
    assert res.status == "proved" and res.as_expected is False


def test_not_in_general_is_an_expected_refutation_not_a_paper_error():
    res = run(Identity(**meta("nig"), lhs=sp.sqrt(x ** 2), rhs=x, domain={x: SYM},
                       expect=not_in_general("the paper notes it needs x >= 0")))
    assert res.status == "refuted" and res.as_expected is True and res.paper_error is False


@pytest.mark.parametrize("status,holds,expected", [
    ("proved", True, True), ("certified", True, True), ("checked", True, True), ("refuted", True, False),
    ("undecided", True, False), ("error", True, False), ("timeout", True, False),
    ("refuted", False, True), ("proved", False, False), ("checked", False, False), ("error", False, False),
    ("timeout", False, False), ("undecided", False, False)])
def test_judge(status, holds, expected):
    assert Result.judge(status, holds) is expected


# ====================================================================== determinism
def _without_seconds(obj):
    """Drop every 'seconds' entry (timings) at any depth."""
    if isinstance(obj, dict):
        return {k: _without_seconds(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [_without_seconds(v) for v in obj]
    return obj


def _json_without_seconds(res):
    return _without_seconds(json.loads(json.dumps(res.to_json(), default=str)))


def test_same_seed_gives_identical_results():
    def claims():
        return [Identity(**meta("det-bad"), lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: SYM, y: SYM}),
                Inequality(**meta("det-checked"), lhs=1 - x, op="<=", rhs=sp.exp(-x), domain={x: R}),
                Monotonic(**meta("det-mono"), expr=x ** 2, var=x, domain={x: SYM})]
    s = Settings(seed=7, samples=30)
    first = [_json_without_seconds(run(c, s)) for c in claims()]
    second = [_json_without_seconds(run(c, s)) for c in claims()]
    assert first == second
    assert first[0]["status"] == "refuted" and first[2]["status"] == "refuted"


def test_different_seeds_choose_different_points():
    """The seed chooses the points (the raw counterexample); shrinking then finds the same
    simplest failing point from each of them."""
    def cx(seed):
        c = Identity(**meta("det-seed"), lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: SYM, y: SYM})
        return run(c, Settings(seed=seed, samples=20)).counterexample
    assert cx(1) == cx(1)
    assert len({json.dumps(cx(s)["raw"]["point"], sort_keys=True) for s in (1, 2, 3)}) == 3
    assert len({json.dumps(cx(s)["point"], sort_keys=True) for s in (1, 2, 3)}) == 1


def test_claim_rng_depends_on_seed_and_id_only():
    s = Settings(seed=11)
    assert claim_rng(s, "a").random() == claim_rng(Settings(seed=11, samples=500), "a").random()
    assert claim_rng(s, "a").random() != claim_rng(s, "b").random()
    assert claim_rng(s, "a").random() != claim_rng(Settings(seed=12), "a").random()


# ====================================================================== sampling
def test_sampling_presses_against_boundaries():
    d = Domain({x: UNIT, y: sp.Interval.open(0, 1)})
    pts = sampling.sample(d, 200, random.Random(3), 50)
    assert len(pts) == 200
    xs, ys = [p[x] for p in pts], [p[y] for p in pts]
    assert 0 in xs and 1 in xs  # closed ends exactly
    assert all(0 < v < 1 for v in ys)  # open ends never
    assert min(ys) < 1e-9 and max(ys) > 1 - 1e-9  # but very close
    assert all(0 <= v <= 1 for v in xs)


def test_sampling_respects_where_relations():
    d = Domain({x: UNIT, y: UNIT}, (x + y < 1,))
    pts = sampling.sample(d, 100, random.Random(5), 50)
    assert len(pts) == 100 and all(p[x] + p[y] < 1 for p in pts)


@pytest.mark.parametrize("st", [sp.Interval(0, 1), sp.Interval.open(0, 1), sp.Interval.Lopen(-3, sp.Rational(1, 3)),
                                sp.Interval(sp.Rational(1, 10), 7), sp.Interval.open(0, sp.oo), sp.Interval(2, sp.oo),
                                sp.Interval.open(-sp.oo, 1), sp.Interval(-sp.oo, sp.oo), sp.FiniteSet(0, 1, 3)],
                         ids=str)
@pytest.mark.parametrize("dps", [15, 50, 71])
def test_a_lazy_draw_holds_the_number_in_its_ball(st, dps):
    """draw.lazy (sampling._drawer) makes the draws of `rng` that draw makes, and its ball
    holds the very number draw gives, at every precision: a candidate the `where` balls
    reject is never made in mpmath, so the ball must be right about it."""
    import flint

    from verify_claims.backends.ball import exact_ball
    plain, lazy = random.Random(dps), random.Random(dps)
    with mpmath.workdps(dps):
        draw = sampling._drawer(st)
        made_later = 0
        for i in range(600):
            edge = i % 3 == 0
            v = draw(plain, edge)
            ball, make, arg = draw.lazy(lazy, edge)
            w = arg if make is None else make(arg)
            made_later += make is not None
            assert w._mpf_ == v._mpf_, (i, v, w)
            # the ball holds the number as mpmath evaluates `where` at it: rounded to the
            # working precision (an end kept at 60 digits), made here exactly at 1000 bits
            at = v if v._mpf_[3] <= mpmath.mp.prec else +v
            with flint.ctx.workprec(1000):
                assert ball.contains(exact_ball(at)), (i, v, ball)
        assert made_later > 0 or not isinstance(st, sp.Interval)  # ordinary points wait to be made
    assert plain.random() == lazy.random()


@pytest.mark.parametrize("st", [sp.Interval.open(0, 1), sp.Interval(sp.Rational(1, 10), 7), sp.Interval.open(0, sp.oo),
                                sp.Interval(-sp.oo, sp.oo), sp.FiniteSet(0, 1, 3)], ids=str)
def test_a_simple_points_ordinary_sample_comes_from_the_drawer(st):
    """_put_simple_points falls back to an ordinary sample one time in five; drawn by the
    set's _drawer, it is the number _sample_set gives, with the same later draws."""
    with mpmath.workdps(50):
        draw = sampling._drawer(st)
        fast, ref = random.Random(8), random.Random(8)
        for _ in range(400):
            a, b = sampling._simple_or_sampled(st, fast, draw), sampling._simple_or_sampled(st, ref)
            assert a._mpf_ == b._mpf_
    assert fast.random() == ref.random()


_WHERE_DOMAINS = [
    Domain({x: UNIT, y: UNIT}, (x + y < 1,)),
    Domain({x: sp.Interval.open(0, 1), y: sp.Interval.open(0, 1)}, (x + y <= 1, x * (1 - x) > y * (1 - y))),
    Domain({x: sp.Interval.open(0, sp.oo), y: sp.Interval(-sp.oo, sp.oo)}, (x ** 2 > 2, sp.Ne(y, 0))),
    Domain({x: sp.Interval.open(0, 1), y: sp.Interval.open(0, 2)},
           (sp.log(x / (1 - x)) - 2 * sp.asinh(y) + 2 * sp.sqrt(y ** 2 + 1) / y > 0,)),
    Domain({x: sp.Interval(-1, 1), y: sp.Interval(-1, 1)}, (sp.sqrt(x) < y, sp.Abs(x - y) <= sp.Rational(1, 2))),
]


@pytest.mark.parametrize("dom", _WHERE_DOMAINS, ids=lambda d: " and ".join(map(str, d.where)))
@pytest.mark.parametrize("dps", [15, 50])
def test_the_where_balls_give_the_points_mpmath_gives(dom, dps, monkeypatch):
    """The sampler asks a candidate's balls about the `where` relations first, and mpmath
    only where a ball straddles 0 (edge points 1e-20 from a boundary, sqrt of a negative,
    an equality): the same points, bit for bit, as asking mpmath about every candidate."""
    decided = []
    real = sampling._decided
    monkeypatch.setattr(sampling, "_decided", lambda b, v: decided.append(real(b, v)) or decided[-1])
    with_balls = sampling.sample(dom, 120, random.Random(11), dps)
    assert decided.count(None) < len(decided) and (True in decided or False in decided)
    monkeypatch.setattr(sampling, "_where_balls", lambda d: None)  # mpmath alone, as before the balls
    without = sampling.sample(dom, 120, random.Random(11), dps)
    assert [{s: v._mpf_ for s, v in p.items()} for p in with_balls] == \
        [{s: v._mpf_ for s, v in p.items()} for p in without]


@pytest.mark.parametrize("arb_bits", [53, 300])
def test_the_where_balls_agree_with_mpmath_whatever_arbs_precision(arb_bits, monkeypatch):
    """flint's precision is global, and other code raises it for a while: the sampler's
    balls work at their own 53 bits, and a ball decides only where mpmath's rounding cannot
    change the sign, so a point mpmath rejects is never taken (x and y equal at 15 digits but
    not at the ends' 60; a square root that mpmath rounds to x) and the points are mpmath's."""
    import flint
    monkeypatch.setattr(flint.ctx, "prec", arb_bits)
    third = sp.Rational(1, 3)
    ne = Domain({x: sp.Interval(third, 1), y: sp.Interval(0, third + sp.Rational(1, 10 ** 50))}, (sp.Ne(x, y),))
    pts = sampling.sample(ne, 200, random.Random(0), 15)
    with mpmath.workdps(15):
        progs = sampling._where_programs(ne)
        assert all(sampling._satisfies(p, ne.symbols(), [sp.Unequality], progs, 15) for p in pts)
    monkeypatch.setattr(sampling, "_where_balls", lambda d: None)
    assert [{s: v._mpf_ for s, v in p.items()} for p in sampling.sample(ne, 200, random.Random(0), 15)] == \
        [{s: v._mpf_ for s, v in p.items()} for p in pts]
    monkeypatch.undo()
    monkeypatch.setattr(flint.ctx, "prec", arb_bits)
    rounded = Domain({x: sp.FiniteSet(1, 2), y: UNIT}, (sp.sqrt(x ** 2 + sp.Rational(1, 10 ** 40)) - x > 0,))
    with pytest.raises(DeclarationError, match="domain appears empty"):  # in mpmath at 15 digits, as before
        sampling.sample(rounded, 20, random.Random(0), 15)
    assert flint.ctx.prec == arb_bits  # the caller's precision, restored


@pytest.mark.parametrize("st", [sp.Interval(0, 1), sp.Interval.open(0, 1), sp.Interval.Lopen(-3, sp.Rational(1, 3)),
                                sp.Interval(sp.Rational(1, 10), 7), sp.Interval.open(0, sp.oo),
                                sp.Interval(2, sp.oo), sp.Interval.open(-sp.oo, 1), sp.Interval(-sp.oo, sp.oo)],
                         ids=str)
@pytest.mark.parametrize("dps", [15, 50, 71])
def test_an_intervals_fast_drawer_gives_the_reference_numbers(st, dps):
    """The sampler draws an interval's points with mpmath's low-level arithmetic
    (sampling._drawer): the same numbers, bit for bit, and the same later draws as the
    plain mpf expressions of sampling._sample_set, at any precision and for edge points."""
    fast, ref = random.Random(dps), random.Random(dps)
    with mpmath.workdps(dps):
        draw = sampling._drawer(st)
        for i in range(600):
            edge = i % 3 == 0  # 200 edge points: every side and gap, closed ends taken or not
            a, b = draw(fast, edge), sampling._sample_set(st, ref, edge)
            assert type(a) is type(b) and a._mpf_ == b._mpf_, (i, a, b)
    assert fast.random() == ref.random()


@pytest.mark.parametrize("st", [sp.Interval(0, 1), sp.Interval.Lopen(-3, sp.Rational(1, 3)), sp.Interval(2, sp.oo),
                                sp.Interval.open(-sp.oo, 1), sp.Interval(-sp.oo, sp.oo), sp.Interval(5, 5.25)],
                         ids=str)
def test_edge_points_are_the_gaps_inside_each_end(st):
    """An edge point is an end itself (a closed one) or gap * min(width, 1) inside it, gap
    in 1e-3 ... 1e-20; beyond an infinite end, 1/gap past the finite end (or 0): worked
    out here independently of the sampler's table, at the precision it draws at."""
    with mpmath.workdps(60):  # the ends are kept at 60 digits whatever the sampling precision
        lo = mpmath.mpf(sp.N(st.start, 60)) if st.start.is_finite else None
        hi = mpmath.mpf(sp.N(st.end, 60)) if st.end.is_finite else None
    with mpmath.workdps(50):
        gaps = [mpmath.mpf(g) for g in (1e-3, 1e-6, 1e-10, 1e-15, 1e-20)]  # the doubles nearest
        width = min(hi - lo, 1) if lo is not None and hi is not None else mpmath.mpf(1)
        expected = set()
        for gap in gaps:
            expected.add((lo + gap * width) if lo is not None else ((hi if hi is not None else 0) - 1 / gap))
            expected.add((hi - gap * width) if hi is not None else ((lo if lo is not None else 0) + 1 / gap))
        expected |= {e for e, closed in ((lo, not st.left_open), (hi, not st.right_open)) if e is not None and closed}
        draw = sampling._drawer(st)
        rng = random.Random(3)
        seen = {draw(rng, True) for _ in range(600)}
    assert {v._mpf_ for v in seen} == {v._mpf_ for v in expected}


def test_where_relations_are_asked_at_the_sampling_precision():
    """mp_here (the sampler's question to a `where` relation) rounds an argument given with
    more digits than the working precision, as mp_at does: a closed end kept at 60 digits
    is asked about at the working precision, not at its own."""
    from verify_claims.backends.evaluate import compile_expr

    prog = compile_expr(x - sp.Rational(1, 3), (x,), "third")
    third = mpmath.mpf(1) / 3
    with mpmath.workdps(60):
        long_third = mpmath.mpf(1) / 3
    with mpmath.workdps(20):
        assert prog.mp_here([long_third]) == prog.mp_at([long_third], 20) == 0
        assert prog.mp_here([2]) == prog.mp_at([2], 20)
    assert prog.mp_at([third], 15) == 0


def test_a_constant_beyond_the_doubles_range_is_evaluated_in_mpmath_only():
    """10**800/3 has no double: the float screen leaves such an expression to mpmath (it
    was an OverflowError, and the claim an error), and a wrong variant is still refuted."""
    from verify_claims.backends.evaluate import compile_expr

    huge = sp.Rational(10 ** 800, 3)
    prog = compile_expr(x * huge, (x,), "huge")
    assert prog.float_at([0.5]) is None
    with mpmath.workdps(30):
        assert abs(prog.mp_at([mpmath.mpf(3)], 30) / mpmath.mpf(10) ** 800 - 1) < 1e-25
    true = run(Identity(**meta("huge-true"), lhs=x * huge / x, rhs=huge, domain={x: UNIT}), Settings())
    assert true.status == "proved", (true.status, true.message)
    wrong = run(Identity(**meta("huge-wrong"), lhs=sp.exp(x) * huge, rhs=(1 + x) * huge, domain={x: UNIT}),
                Settings())
    assert wrong.status == "refuted" and wrong.counterexample["type"] == "values differ", wrong.message


def test_default_settings_use_100_points_at_30_digits():
    s = Settings()
    assert (s.samples, s.precision) == (100, 30)
    res = run(Identity(**meta("pts"), lhs=x, rhs=x, domain={x: UNIT}), s)
    assert res.evidence["numeric"]["screen"]["points"] == 100 and res.evidence["numeric"]["digits"] == 30


def test_rounding_near_a_boundary_is_not_a_counterexample():
    # log(1 + x) - x + x^2/2 - x^3/3 is O(x^4): catastrophic cancellation near 0 at 30 digits
    res = run(Inequality(**meta("ineq-cancel"), lhs=sp.log(1 + x), op="<=", rhs=x - x ** 2 / 2 + x ** 3 / 3,
                         domain={x: sp.Interval.Lopen(0, 1)}))
    assert res.status in ESTABLISHED


# ====================================================================== combination rule
def test_engine_conflict_is_an_error(monkeypatch):
    pass_screen(monkeypatch)
    patch_prove(monkeypatch, lambda claim: ProofOutcome("proved", "fake prover"))
    res = run(Identity(**meta("conflict"), lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: R, y: R}))
    assert res.status == "error"
    assert res.method == "engine conflict"
    assert "ENGINE CONFLICT" in res.message and "proved" in res.message
    assert res.counterexample and "point" in res.counterexample
    assert res.as_expected is False


def test_a_claim_refuted_first_is_never_proved(monkeypatch):
    # falsify first: the cheap numeric screen refutes the sign flip, and the prover (which
    # would say "proved") is never asked, so no symbolic work is spent on a wrong claim
    calls = []
    patch_prove(monkeypatch, lambda claim: calls.append(claim.id) or ProofOutcome("proved", "fake prover"))
    res = run(Identity(**meta("refuted-first"), lhs=(x + y) ** 2, rhs=x ** 2 - 2 * x * y + y ** 2,
                       domain={x: R, y: R}))
    assert res.status == "refuted" and calls == []
    assert res.evidence["symbolic"]["status"] == "not attempted"
    assert res.counterexample["type"] == "values differ"


def test_engine_conflict_is_an_error_even_for_expected_refuted(monkeypatch):
    pass_screen(monkeypatch)
    patch_prove(monkeypatch, lambda claim: ProofOutcome("certified", "fake prover"))
    # certification, which comes before the prover for an inequality, decides nothing here:
    # the fake proof is what the numbers then contradict
    from verify_claims.engine.goals import Certificate
    monkeypatch.setattr(KINDS["inequality"], "certify", lambda *a: Certificate("undecided", reason="test"))
    res = run(Inequality(**meta("conflict-xfail"), lhs=x, op="<=", rhs=sp.S(0), domain={x: UNIT},
                         expect=refuted("positive x")))
    assert res.status == "error" and res.as_expected is False


def test_prover_disagreeing_with_numbers_is_undecided(monkeypatch):
    patch_prove(monkeypatch, lambda claim: ProofOutcome(None, "sympy", disagrees="sympy.limit gives 3"))
    res = run(Identity(**meta("disagree"), lhs=x, rhs=x, domain={x: UNIT}))
    assert res.status == "undecided" and res.method == "conflicting evidence"
    assert "sympy.limit gives 3" in res.message


def test_inconclusive_numbers_keep_the_proof_or_are_undecided(monkeypatch):
    # 1/log x -> 0 as x -> oo: the error decreases too slowly for the numeric ladder
    claim = dict(expr=1 / sp.log(x), var=x, point=sp.oo, value=0, direction="-")
    res = run(Limit(**meta("lim-slow"), **claim))
    assert res.status == "proved"
    assert res.message.startswith("numeric check inconclusive")
    patch_prove(monkeypatch, lambda c: ProofOutcome(None, "sympy"))
    res = run(Limit(**meta("lim-slow-np"), **claim))
    assert res.status == "undecided"
    assert res.message.startswith("neither proved nor decided numerically")


def test_a_claim_that_raises_is_an_error():
    boom = implemented_function("boom", lambda v: (_ for _ in ()).throw(RuntimeError("kaboom")))
    res = run(Identity(**meta("raises"), lhs=boom(x), rhs=x, domain={x: UNIT}))
    assert res.status == "error"
    assert res.message == "RuntimeError: kaboom"
    assert res.as_expected is False


def test_prover_budget_stops_a_slow_simplification(monkeypatch):
    import time

    def slow(claim):  # budgets count CPU time: a slow proof computes, it does not sleep
        end = time.monotonic() + 30
        while time.monotonic() < end:
            pass
        return ProofOutcome("proved", "too late")

    patch_prove(monkeypatch, slow)
    t0 = time.perf_counter()
    res = run(Identity(**meta("budget"), lhs=x, rhs=x, domain={x: UNIT}), Settings(samples=20, prover_budget=0.5))
    assert time.perf_counter() - t0 < 10
    assert res.status == "checked"
    assert "stopped" in res.evidence["symbolic"]


def test_monotonic_second_point_respects_where_relations():
    # -sqrt(1 - x - y) increases in x where x + y < 1 and is complex beyond it: moving x
    # alone must not leave the declared domain and manufacture an "undefined" counterexample
    res = run(Monotonic(**meta("mono-coupled"), expr=-sp.sqrt(1 - x - y), var=x, direction="increasing",
                        domain={x: sp.Interval.open(0, 1), y: sp.Interval.open(0, 1)}, where=(x + y < 1,)))
    assert res.status in ("certified", "checked"), (res.status, res.counterexample)


def test_infinite_series_is_evaluated_not_called_undefined():
    """A convergent series is summed numerically (mpmath.nsum); a wrong value is refuted."""
    import sympy as sp
    from verify_claims import Identity, Ref
    from verify_claims.engine.verify import verify
    from verify_claims.run.settings import Settings

    k, t = sp.Symbol("k", integer=True, positive=True), sp.Symbol("t")
    series = sp.Sum(t ** k / sp.factorial(k), (k, 0, sp.oo))
    good = Identity(id="exp-series", title="exp series", ref=Ref("1"), lhs=series, rhs=sp.exp(t),
                    domain={t: sp.Interval(-2, 2)})
    bad = Identity(id="exp-series-wrong", title="exp series, wrong", ref=Ref("1"), lhs=series,
                   rhs=sp.exp(t) + t ** 2 / 1000, domain={t: sp.Interval(-2, 2)})
    s = Settings(samples=20)
    assert verify(good, s).status in ("proved", "checked")
    r = verify(bad, s)
    assert r.status == "refuted" and r.counterexample["type"] == "values differ"


def test_chain_is_not_refuted_by_a_residual_that_only_tends_to_zero_at_an_excluded_end():
    # x (1 - x)(x - c) = 0  <=>  x = c on the open (0, 1): the first residual tends to 0 as
    # x -> 1, where root finding lands at x = 1 - 1e-40 (residual 1e-40, "holds to 20
    # digits") although no root is there; on (0, 2) the root x = 1 is real and refutes
    x_, c_ = sp.Symbol("x"), sp.Symbol("c")
    steps = [sp.Eq(x_ ** 2 * (1 - x_), c_ * x_ * (1 - x_)),
             Step(sp.Eq(x_, c_), relation="equivalent", multiply_by=1 / (x_ * (1 - x_)))]
    ok = Chain(id="boundary-pseudo-root", title="t", ref="2", steps=steps,
               domain={x_: sp.Interval.open(0, 1), c_: sp.Interval.open(0, 1)})
    assert verify(ok, Settings(seed=0, samples=40)).status == "certified"
    wide = Chain(id="interior-root", title="t", ref="2", steps=steps,
                 domain={x_: sp.Interval.open(0, 2), c_: sp.Interval.open(0, 1)})
    res = verify(wide, Settings(seed=0, samples=40))
    assert res.status == "refuted" and abs(float(res.counterexample["point"]["x"]) - 1) < 1e-9
