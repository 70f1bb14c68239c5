"""A value mpmath computes as exactly 0 may have lost all its digits to cancellation.

cosh(a)^2 - sinh(a)^2 is 1, but for a in [100, 110] the two squares (about 1e86-1e95)
round to the same number at 30 and 70 digits, so their difference comes out as 0.  The
spot-check used to accept such a point as equal (a false identity *checked*) or as
satisfying an order (a false inequality *checked*); a true claim whose cancellation
survives 140 digits was refuted.  The numeric backend now asks arb balls how many digits a
value kept and, where it lost them, decides the point with enough digits.
"""

from __future__ import annotations

import sympy as sp

from verify_claims import Identity, Inequality
from verify_claims.engine.verify import claim_rng, verify
from verify_claims.kinds import kind_of
from verify_claims.run.settings import Settings

a = sp.Symbol("a")
ONE = sp.cosh(a) ** 2 - sp.sinh(a) ** 2  # = 1, computed as 0 at 30 and 70 digits for a in [100, 110]
BIG_A = {a: sp.Interval(100, 110)}
HUGE_A = {a: sp.Interval(1000, 1100)}  # beyond any precision the spot-check spends
S = Settings(timeout=20, prover_budget=3, certify_budget=3)
NOT_REFUTED = ("proved", "certified", "checked", "undecided")


def _identity(cid, lhs, rhs, domain=BIG_A):
    c = Identity(id=cid, title="t", ref="1", lhs=lhs, rhs=rhs, domain=domain)
    c.validate()
    return c


def _inequality(cid, lhs, op, rhs, domain=BIG_A):
    c = Inequality(id=cid, title="t", ref="1", lhs=lhs, op=op, rhs=rhs, domain=domain)
    c.validate()
    return c


def _spot(claim, screen=False):
    return kind_of(claim).spot_check(claim, S, claim_rng(S, claim.id), screen=screen)


def _num(text):
    return float(text)


# ---------------------------------------------------------------- identities

def test_false_identity_lost_to_cancellation_is_refuted_with_the_right_numbers():
    res = verify(_identity("cancel-false", ONE, sp.Integer(0)), S)
    assert res.status == "refuted", (res.status, res.evidence)
    cx = res.counterexample
    assert cx["type"] == "values differ"
    assert abs(_num(cx["lhs"]) - 1) < 1e-9 and _num(cx["rhs"]) == 0, cx
    raw = cx.get("raw", cx)  # the unshrunk point's numbers too
    assert abs(_num(raw["lhs"]) - 1) < 1e-9 and _num(raw["rhs"]) == 0, cx
    assert "cancellation" in cx, cx  # says the usual confirmation was not the one that counted
    if "shrunk" in cx and "raw" in cx:  # and the shrunk point's confirmation names those digits
        assert cx["confirmed"] == cx["cancellation"], cx


def test_false_identity_spot_check_finds_the_difference_in_both_modes():
    for screen in (False, True):
        out = _spot(_identity("cancel-false-spot", ONE, sp.Integer(0)), screen=screen)
        assert out.verdict == "counterexample", (screen, out.evidence)


def test_true_identity_with_the_same_cancellation_is_consistent_not_unresolved():
    claim = _identity("cancel-true", ONE, sp.Integer(1))
    for screen in (False, True):
        out = _spot(claim, screen=screen)
        assert out.verdict == "consistent", (screen, out.evidence)
        assert out.evidence["unresolved_points"] == 0, out.evidence
    assert verify(claim, S).status in NOT_REFUTED


def test_true_identity_beyond_the_precision_cap_is_not_refuted():
    # 0 = 1 at 70 and 140 digits alike ("stable"): no counterexample when the digits were lost
    claim = _identity("cancel-huge", ONE, sp.Integer(1), HUGE_A)
    out = _spot(claim)
    assert out.verdict != "counterexample", out.counterexample
    assert verify(claim, S).status in NOT_REFUTED


# ---------------------------------------------------------------- inequalities

def test_false_inequality_lost_to_cancellation_is_refuted():
    # lhs is 0; computed as -1 (the squares cancel to 0), which is <= -1/2
    res = verify(_inequality("ineq-false", ONE - 1, "<=", sp.Rational(-1, 2)), S)
    assert res.status == "refuted", (res.status, res.evidence)
    cx = res.counterexample
    assert cx["type"] == "inequality violated"
    assert abs(_num(cx["lhs"])) < 1e-9 and _num(cx["rhs"]) == -0.5, cx


def test_false_strict_inequality_on_a_wiped_out_value_is_not_checked():
    res = verify(_inequality("ineq-false-strict", ONE, "<", sp.Integer(1)), S)
    assert res.status == "refuted", (res.status, res.evidence)


def test_brief_false_inequality_stays_refuted_with_the_right_numbers():
    res = verify(_inequality("ineq-false-ge", ONE - 1, ">=", sp.Integer(1)), S)
    assert res.status == "refuted", (res.status, res.evidence)
    cx = res.counterexample
    assert abs(_num(cx["lhs"])) < 1e-9 and _num(cx["rhs"]) == 1, cx


def test_true_inequalities_with_the_same_cancellation_are_consistent():
    for cid, lhs, op, rhs in (("ineq-true", ONE - 1, ">=", sp.Rational(-1, 2)),
                              ("ineq-true-le", ONE - 1, "<=", sp.Rational(1, 2)),
                              ("ineq-true-tight", ONE, ">=", sp.Integer(1))):
        claim = _inequality(cid, lhs, op, rhs)
        out = _spot(claim)
        assert out.verdict == "consistent", (cid, out.evidence)
        if cid != "ineq-true-tight":
            assert out.evidence["tight_points"] == 0, (cid, out.evidence)
        assert verify(claim, S).status in NOT_REFUTED, cid


def test_true_inequality_beyond_the_precision_cap_is_not_refuted():
    claim = _inequality("ineq-huge", ONE, ">=", sp.Integer(1), HUGE_A)
    assert _spot(claim).verdict != "counterexample"
    assert verify(claim, S).status in NOT_REFUTED


# ---------------------------------------------------------------- arb's global precision

def test_arb_precision_is_restored_after_a_check():
    import flint
    before = flint.ctx.prec
    _spot(_identity("prec-eq", ONE, sp.Integer(1)))
    _spot(_identity("prec-eq-false", ONE, sp.Integer(0)))
    _spot(_inequality("prec-ineq", ONE - 1, "<=", sp.Rational(-1, 2)))
    assert flint.ctx.prec == before


def test_ordinary_claims_are_unaffected():
    x = sp.Symbol("x")
    good = _identity("plain-true", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), {x: sp.Interval(-5, 5)})
    out = _spot(good)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence
    bad = _identity("plain-false", sp.exp(x), 1 + x, {x: sp.Interval(1, 2)})
    assert _spot(bad).verdict == "counterexample"


# ---------------------------------------------------------------- a scale lost with the digits
# (e^a + 1)^2 - e^2a - 2 e^a = 1 reads about 1e44 at 30 digits (not 0) for a in [100, 110]: the
# scale the usual rules compute from it is lost too, and a tolerance made of it accepted
# anything (a review found these false claims *checked*)
LEFTOVER = (sp.exp(a) + 1) ** 2 - sp.exp(2 * a) - 2 * sp.exp(a)


def test_false_identity_with_a_lost_scale_is_refuted_with_the_right_numbers():
    for rhs in (2, 1000):
        res = verify(_identity(f"leftover-{rhs}", LEFTOVER, sp.Integer(rhs)), S)
        assert res.status == "refuted", (res.status, res.evidence.get("numeric"))
        assert abs(_num(res.counterexample["lhs"]) - 1) < 1e-9 and _num(res.counterexample["rhs"]) == rhs


def test_true_identity_with_a_lost_scale_is_not_refuted():
    res = verify(_identity("leftover-true", LEFTOVER, sp.Integer(1)), S)
    assert res.status in ("proved", "certified", "checked"), (res.status, res.message)


def test_false_inequalities_with_a_lost_scale_are_refuted_with_the_right_numbers():
    for k, (op, rhs) in enumerate((("<=", 0), (">=", 2), (">", 1000))):
        res = verify(_inequality(f"leftover-order-{k}", LEFTOVER, op, sp.Integer(rhs)), S)
        assert res.status == "refuted", (op, rhs, res.status, res.evidence.get("numeric"))
        assert abs(_num(res.counterexample["lhs"]) - 1) < 1e-9, res.counterexample


# ---------------------------------------------------------------- a stationarity residual
def test_false_stationary_point_with_a_wiped_out_gradient_is_refuted():
    """The gradient cosh(a)^2 - sinh(a)^2 (= 1) is 0 at 30 and 70 digits for a in [100, 110]:
    the residual's acceptance as 0 is guarded like an equality's (it was *checked*)."""
    from verify_claims import Stationary

    x = sp.Symbol("x")
    res = verify(Stationary(id="stat-wiped", title="t", ref="1", objective=x * ONE, wrt=x,
                            at={x: sp.Rational(1, 2)}, domain=BIG_A), S)
    assert res.status == "refuted", (res.status, res.evidence.get("numeric"))
    cx = res.counterexample
    assert cx["type"] == "gradient does not vanish" and abs(_num(cx["residual[0]"]) - 1) < 1e-9, cx
    assert "cancellation" in cx
    # the true twin: its gradient cosh(a)^2 - sinh(a)^2 - 1 is 0
    ok = verify(Stationary(id="stat-wiped-true", title="t", ref="1", objective=x * (ONE - 1), wrt=x,
                           at={x: sp.Rational(1, 2)}, domain=BIG_A), S)
    assert ok.status in ("proved", "certified", "checked"), (ok.status, ok.message)


# ---------------------------------------------------------------- no finite ball at the working digits

def test_a_side_without_a_finite_ball_is_decided_with_more_digits():
    """sqrt(ONE): ONE's ball reaches below 0 at 30 digits, so sqrt has no finite ball there,
    and the guard used to let the values at 30 digits decide (sqrt(0) = 0: a false identity
    and a false inequality *checked*).  With more digits the ball is finite."""
    root = sp.sqrt(ONE)
    assert verify(_identity("sqrt-false", root, sp.Integer(0)), S).status == "refuted"
    assert verify(_inequality("sqrt-false-lt", root, "<", sp.Rational(1, 2)), S).status == "refuted"
    true_identity = _identity("sqrt-true", root, sp.Integer(1))
    assert _spot(true_identity).evidence["unresolved_points"] == 0
    assert verify(true_identity, S).status in NOT_REFUTED
    assert verify(_inequality("sqrt-true-gt", root, ">", sp.Rational(1, 2)), S).status in NOT_REFUTED


def test_powers_at_an_exact_zero_are_decided_there():
    """x**(3/2) and x**(1/3) at the sampled end x = 0 have balls (0), not exp(r log 0): the
    points there were unresolved, and a claim false only at x = 0 passed the spot-check."""
    x = sp.Symbol("x")
    unit = {x: sp.Interval(0, 1)}
    true = _identity("pow-zero-true", (x ** sp.Rational(3, 2) + x) ** 2, x ** 3 + 2 * x ** sp.Rational(5, 2) + x ** 2,
                     unit)
    for screen in (False, True):
        out = _spot(true, screen=screen)
        assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence
    false = _inequality("pow-zero-false", x ** sp.Rational(1, 3), ">=", (1 - 2 * x) / 10 ** 8, unit)
    for screen in (False, True):
        out = _spot(false, screen=screen)
        assert out.verdict == "counterexample", (screen, out.evidence)
