"""Counterexamples of Root and Maximiser claims rest on values confirmed at two precisions.

A value computed once (in doubles, or in mpmath at one precision) can be wrong by a
cancellation the terms of an expression do not show: cosh(a)^2 - sinh(a)^2 is 0, not 1,
at 50 digits for a = 100, and in doubles atan(cosh(40 x)^2 - sinh(40 x)^2 - 1) is anything
from -pi/2 to pi/2.  Each true claim below was refuted on such a value; each wrong variant
must still be refuted, with the numbers of its counterexample right.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from verify_claims import Identity, Maximiser, Ref, Root
from verify_claims.engine.verify import verify
from verify_claims.run.settings import Settings

x, a = sp.symbols("x a")
# small budgets: the statuses asked for are decided by the numbers (certification of the pole
# claim would spend its whole budget failing)
S = Settings(samples=8, precision=30, timeout=60, prover_budget=3, certify_budget=3)
NOT_REFUTED = ("proved", "certified", "checked", "undecided")
ONE = sp.cosh(a) ** 2 - sp.sinh(a) ** 2  # = 1; 0 at 30, 50 and 70 digits for a in [100, 110]
BIG_A = {a: sp.Interval(100, 110)}
# 0 exactly; anything from -pi/2 to pi/2 in doubles for x in (0, 1) (cosh(40 x)^2 reaches 1e34)
NOISE = sp.atan(sp.cosh(40 * x) ** 2 - sp.sinh(40 * x) ** 2 - 1)


def _root(cid, equation, value, interval, domain=None, unique=True):
    return Root(id=cid, title="t", ref="1", domain=domain or {a: sp.Interval(0, 1)}, equation=equation, var=x,
                value=value, interval=interval, unique=unique)


def _max(cid, at, over, objective=-(x - 1) ** 2):
    return Maximiser(id=cid, title="t", ref="1", objective=objective, wrt=x, at={x: at}, over={x: over},
                     domain=BIG_A)


def _near(text, want, eps=1e-9):
    return abs(float(text) - want) <= eps * max(1, abs(want))


def _refuted(res, kind):
    assert res.status == "refuted", (res.status, res.message)
    assert res.counterexample["type"] == kind, res.counterexample
    return res.counterexample


# ---------------------------------------------------------------- root: other roots

def test_root_float_sign_lost_in_a_function_argument_is_not_another_root():
    # the residual x - 1/2 (+ 0): its float sign is noise wherever cosh(40 x)^2 is large
    res = verify(_root("root-float-sign", (x - sp.Rational(1, 2)) + NOISE, sp.Rational(1, 2),
                       sp.Interval.open(0, 1)), S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_root_with_noise_and_a_real_second_root_is_refuted_at_that_root():
    res = verify(_root("root-float-sign-two", (x - sp.Rational(1, 2)) * (3 * x - 1) + NOISE, sp.Rational(1, 2),
                       sp.Interval.open(0, 1)), S)
    cx = _refuted(res, "another root in the interval")
    assert _near(cx["x (other)"], 1 / 3) and _near(cx["x (claimed)"], 0.5), cx


@pytest.mark.parametrize("other", [sp.Rational(4, 5), sp.Rational(7, 10)])
def test_root_where_the_residual_is_noisy_at_the_working_digits_is_still_a_root(other):
    """A second root is confirmed with more digits than it was found with, not fewer: at
    the working 30 digits the noise of atan(cosh(40 x)^2 - sinh(40 x)^2 - 1) near x = 0.8
    swamps the residual, and a confirmation there rejected a real root (a review found the
    false claim *checked*)."""
    res = verify(_root("noisy-second", (x - sp.Rational(1, 2)) * (x - other) + NOISE, sp.Rational(1, 2),
                       sp.Interval.open(0, 1)), S)
    cx = _refuted(res, "another root in the interval")
    assert _near(cx["x (other)"], other)


def test_root_sign_change_across_a_pole_is_not_another_root():
    # positive left of the pole 1/pi, negative between it and 1/2, positive after
    # (the numbers are the point here: the prover and certifier get a second each)
    res = verify(_root("root-pole", (sp.exp(x) - sp.exp(sp.Rational(1, 2))) / (x - 1 / sp.pi), sp.Rational(1, 2),
                       sp.Interval.open(0, 1)), replace(S, prover_budget=1, certify_budget=1))
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_root_beside_a_pole_with_a_real_second_root_is_refuted_at_that_root():
    res = verify(_root("root-pole-two", (sp.exp(x) - sp.exp(sp.Rational(1, 2))) * (x - sp.Rational(3, 4))
                       / (x - 1 / sp.pi), sp.Rational(1, 2), sp.Interval.open(0, 1)), S)
    cx = _refuted(res, "another root in the interval")
    assert _near(cx["x (other)"], 0.75), cx


def test_root_polynomial_coefficient_cancellation_is_not_another_root():
    # (x - 1)^2 at every a; at 50 digits the coefficients say x^2 (a double root at 0)
    res = verify(_root("root-poly-cancel", (x - 1) * (x - 3 + 2 * ONE), 1, sp.Interval.open(-1, 4), BIG_A), S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_root_polynomial_other_root_is_refuted():
    res = verify(_root("root-poly-two", (x - 1) * (x - 2 - a), 1, sp.Interval.open(-1, 4)), S)
    cx = _refuted(res, "another root in the interval")
    pt = float(cx["point"]["a"])
    assert _near(cx["x (other)"], 2 + pt) and _near(cx["x (claimed)"], 1), cx


# ---------------------------------------------------------------- root: the value

def test_root_value_cancelling_at_the_working_digits_is_not_outside():
    res = verify(_root("root-value-cancel", x - 1, ONE, sp.Interval.open(0, 2), BIG_A, unique=False), S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_root_value_truly_outside_is_refuted_with_its_accurate_value():
    # 3 (at 50 digits: 2, the open interval's end, outside too): the reported value is 3
    res = verify(_root("root-value-outside", x - 3, ONE + 2, sp.Interval.open(0, 2), BIG_A, unique=False), S)
    cx = _refuted(res, "root outside the interval")
    assert _near(cx["x"], 3), cx


def test_root_not_a_root_reports_the_recomputed_value():
    # the value is 1 (0 at 50 digits); the residual x - 2 there is -1
    res = verify(_root("root-value-not-root", x - 2, ONE, sp.Interval.open(0, 3), BIG_A, unique=False), S)
    cx = _refuted(res, "not a root")
    assert _near(cx["x"], 1) and _near(cx["residual"], -1, 1e-5), cx


# ---------------------------------------------------------------- maximiser

def test_maximiser_claimed_point_cancelling_is_not_beaten():
    res = verify(_max("max-cancel", ONE, sp.Interval(0, 2)), S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_maximiser_non_maximal_point_is_refuted_with_its_accurate_value():
    # the claimed point 3/2 (1/2 at 50 digits): objective -1/4 there, a rival does better
    res = verify(_max("max-not-max", ONE + sp.Rational(1, 2), sp.Interval(0, 2)), S)
    cx = _refuted(res, "a feasible point does better")
    xb = float(cx["better"]["x"])
    assert _near(cx["claimed"]["x"], 1.5) and _near(cx["objective(claimed)"], -0.25), cx
    assert _near(cx["objective(better)"], -(xb - 1) ** 2) and -(xb - 1) ** 2 > -0.25, cx


def test_maximiser_claimed_point_cancelling_is_not_infeasible():
    # 1 is feasible in [1/2, 2]; at 50 digits the claimed point is 0, outside
    res = verify(_max("max-cancel-feasible", ONE, sp.Interval(sp.Rational(1, 2), 2)), S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)


def test_maximiser_infeasible_point_is_refuted_with_its_accurate_value():
    # 7/2 (5/2 at 50 digits: outside [1/2, 2] too): the reported point is 7/2
    res = verify(_max("max-infeasible", ONE + sp.Rational(5, 2), sp.Interval(sp.Rational(1, 2), 2)), S)
    cx = _refuted(res, "claimed maximiser is infeasible")
    assert _near(cx["x"], 3.5), cx


# ---------------------------------------------------------------- maximiser: a rival accepted on lost digits
# -(x - 1)^2 written with ONE: at 30, 50 and 90 digits ONE is 0 for a in [100, 110], so every
# value agrees that x = 0 is the maximiser; the balls show the digits lost
LOST = -(x - ONE) ** 2
HUGE_A = {a: sp.Interval(1000, 1100)}  # ONE lost beyond any precision the check spends


def _spot(claim, screen):
    from verify_claims.engine.verify import claim_rng
    from verify_claims.kinds import kind_of
    return kind_of(claim).spot_check(claim, S, claim_rng(S, claim.id), screen=screen)


def test_maximiser_beaten_only_past_the_lost_digits_is_refuted_with_its_accurate_values():
    claim = _max("max-lost-false", sp.Integer(0), sp.Interval(-2, 2), objective=LOST)
    for screen in (True, False):
        out = _spot(claim, screen)
        assert out.verdict == "counterexample", (screen, out.evidence)
    cx = _refuted(verify(claim, S), "a feasible point does better")
    raw = cx.get("raw", cx)
    xb = float(raw["better"]["x"])
    assert _near(raw["claimed"]["x"], 0) and _near(raw["objective(claimed)"], -1), cx
    assert _near(raw["objective(better)"], -(xb - 1) ** 2, 1e-6) and -(xb - 1) ** 2 > -1, cx
    assert "cancellation" in raw, cx  # says the usual decision was not the one that counted


def test_maximiser_with_the_same_cancellation_at_its_true_point_is_consistent():
    claim = _max("max-lost-true", sp.Integer(1), sp.Interval(-2, 2), objective=LOST)
    for screen in (True, False):
        out = _spot(claim, screen)
        assert out.verdict == "consistent" and not out.evidence.get("unresolved_rivals"), (screen, out.evidence)
    assert verify(claim, S).status in NOT_REFUTED


def test_maximiser_past_the_guards_reach_is_undecided_not_checked():
    false = Maximiser(id="max-huge-false", title="t", ref="1", objective=LOST, wrt=x, at={x: 0},
                      over={x: sp.Interval(-2, 2)}, domain=HUGE_A)
    out = _spot(false, screen=False)
    assert out.verdict == "inconclusive" and out.evidence["unresolved_rivals"] > 0, out.evidence
    assert "cancellation" in out.evidence["inconclusive_at"]["explanation"], out.evidence
    assert verify(false, S).status == "undecided"
    true = Maximiser(id="max-huge-true", title="t", ref="1", objective=LOST, wrt=x, at={x: 1},
                     over={x: sp.Interval(-2, 2)}, domain=HUGE_A)
    assert verify(true, S).status in NOT_REFUTED


def test_maximiser_with_a_term_both_sides_share_is_refuted():
    # atan(ONE - 1) is 0, and its two balls (at the rival, at the claimed point) never cancel:
    # the difference is one expression, in which sympy drops the shared term
    claim = Maximiser(id="max-shared-term", title="t", ref="1", objective=-(x - 1) ** 2 + sp.atan(ONE - 1), wrt=x,
                      at={x: 0}, over={x: sp.Interval(-20, 20)}, domain=HUGE_A)
    cx = _refuted(verify(claim, S), "a feasible point does better")
    assert _near(cx.get("raw", cx)["objective(claimed)"], -1), cx


@pytest.mark.parametrize("at, holds", [(0, False), (1, True)])
def test_maximiser_without_a_finite_ball_at_the_working_digits(at, holds):
    # sqrt(ONE): the ball of ONE reaches below 0 at 30 digits, so sqrt has no finite ball
    # there; more digits give one (the false claim was checked, the true one refuted)
    claim = _max(f"max-sqrt-{at}", sp.Integer(at), sp.Interval(-2, 2), objective=-(x - sp.sqrt(ONE)) ** 2)
    res = verify(claim, S)
    if holds:
        assert res.status in NOT_REFUTED, (res.status, res.counterexample)
    else:
        _refuted(res, "a feasible point does better")


def test_maximiser_whose_guard_needs_the_cap_itself_is_decided():
    # for a in [600, 610] ONE needs about 520 digits; the squared radius asked for more than
    # the cap (560), which was given up instead of tried
    far = {a: sp.Interval(600, 610)}
    false = Maximiser(id="max-cap-false", title="t", ref="1", objective=LOST, wrt=x, at={x: 0},
                      over={x: sp.Interval(-2, 2)}, domain=far)
    _refuted(verify(false, S), "a feasible point does better")
    true = Maximiser(id="max-cap-true", title="t", ref="1", objective=LOST, wrt=x, at={x: 1},
                     over={x: sp.Interval(-2, 2)}, domain=far)
    out = _spot(true, screen=False)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence


def test_maximiser_rivals_where_the_objective_is_undefined_cannot_win():
    # -a x log x at the rival x = 0: undefined in mpmath, no finite ball at any digits
    claim = Maximiser(id="max-xlogx", title="t", ref="1", objective=-a * x * sp.log(x), wrt=x, at={x: sp.exp(-1)},
                      over={x: sp.Interval(0, 1)}, domain={a: sp.Interval(1, 2)})
    out = _spot(claim, screen=False)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence
    wrong = Maximiser(id="max-xlogx-half", title="t", ref="1", objective=-a * x * sp.log(x), wrt=x,
                      at={x: sp.Rational(1, 2)}, over={x: sp.Interval(0, 1)}, domain={a: sp.Interval(1, 2)})
    _refuted(verify(wrong, S), "a feasible point does better")


def test_maximiser_rivals_after_an_undecided_one_are_still_compared(monkeypatch):
    """A rival the balls cannot decide leaves its parameter point unresolved, but the rivals
    after it are still compared: any of them refutes the claim.  Here the first rival of
    every parameter point is made undecided; the search used to stop there."""
    import verify_claims.kinds.maximiser as maximiser

    decide, seen = maximiser.ball_greater, set()

    def first_undecided(ev, gap, q, size, dps):
        if q[a] not in seen:
            seen.add(q[a])
            return "unresolved", dps
        return decide(ev, gap, q, size, dps)
    monkeypatch.setattr(maximiser, "ball_greater", first_undecided)
    claim = Maximiser(id="max-first-undecided", title="t", ref="1", objective=-(x - a) ** 2, wrt=x, at={x: a / 2},
                      over={x: sp.Interval(0, 1)}, domain={a: sp.Interval(sp.Rational(1, 2), 1)})
    out = _spot(claim, screen=False)
    assert out.verdict == "counterexample", out.evidence
    assert out.counterexample["type"] == "a feasible point does better"


def test_maximiser_whose_first_rivals_came_out_undecided_at_a_zero_is_refuted():
    # at a = 0 the rival that beats the claimed point came after rivals the balls could not
    # decide, and the search stopped at the first of those: the false claim was checked
    r3 = a ** sp.Rational(1, 3)
    claim = Maximiser(id="max-after-undecided", title="t", ref="1", objective=-(x - sp.Rational(1, 2)) ** 2 - r3 * x,
                      wrt=x, at={x: sp.Rational(1, 2) - r3 / 2 + sp.Max(0, sp.Rational(1, 100) - 1000 * a)},
                      over={x: sp.Interval(0, 1)}, domain={a: sp.Interval(0, 1)})
    _refuted(verify(claim, replace(S, samples=100)), "a feasible point does better")


@pytest.mark.parametrize("at, holds", [(sp.exp(-1), True), (sp.Rational(37, 100), False)])
def test_maximiser_of_x_to_the_x_at_the_end_zero(at, holds):
    # x**x at the rival x = 0: a ball of exactly 0**0 = 1, not exp(0 log 0)
    claim = Maximiser(id=f"max-xx-{holds}", title="t", ref="1", objective=-x ** x, wrt=x, at={x: at},
                      over={x: sp.Interval(0, 1)})
    if holds:
        out = _spot(claim, screen=False)
        assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence
        assert verify(claim, S).status in NOT_REFUTED
    else:
        _refuted(verify(claim, S), "a feasible point does better")


# ---------------------------------------------------------------- root: a value accepted inside on lost digits
# ONE + 1/2 is 3/2, and 1/2 at 50, 90 and 180 digits for a in [100, 110]: inside [0, 1]
HALF_PAST = ONE + sp.Rational(1, 2)


def test_root_value_inside_only_on_lost_digits_is_refuted_with_its_accurate_value():
    claim = _root("root-lost-inside", x - HALF_PAST, HALF_PAST, sp.Interval(0, 1), BIG_A, unique=False)
    for screen in (False, True):
        assert _spot(claim, screen).verdict == "counterexample", screen
    cx = _refuted(verify(claim, S), "root outside the interval")
    raw = cx.get("raw", cx)
    assert _near(raw["x"], 1.5) and "cancellation" in raw, cx


def test_root_value_with_the_same_cancellation_inside_is_consistent():
    claim = _root("root-lost-true", x - HALF_PAST, HALF_PAST, sp.Interval(1, 2), BIG_A, unique=False)
    out = _spot(claim, screen=False)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence
    assert verify(claim, S).status in NOT_REFUTED


def test_root_value_past_the_guards_reach_is_not_checked():
    claim = _root("root-lost-huge", x - HALF_PAST, HALF_PAST, sp.Interval(0, 1), HUGE_A, unique=False)
    out = _spot(claim, screen=False)
    assert out.verdict == "inconclusive" and out.evidence["unresolved_points"] == out.evidence["points"], out.evidence
    assert verify(claim, S).status == "undecided"


def test_a_power_of_a_base_nonnegative_by_its_form_is_decided_by_its_ball():
    # Max(0, 1 - ONE)^(3/2) is 0; at 30 digits 1 - ONE is noise of either sign. Its ball had
    # no finite value at any digits (arb's max(0, t) of a ball around 0 reaches below 0), so
    # the values alone decided: now the ball, cut at 0, decides with the digits it needs
    claim = Identity(id="nonneg-base", title="t", ref=Ref("1"), lhs=sp.Max(0, 1 - ONE) ** sp.Rational(3, 2),
                     rhs=1, domain={a: sp.Interval(230, 240)})
    cx = _refuted(verify(claim, S), "values differ")
    raw = cx.get("raw", cx)
    assert _near(raw["lhs"], 0) and "arb ball" in raw.get("cancellation", ""), cx
    true = Identity(id="nonneg-base-true", title="t", ref=Ref("1"), lhs=sp.sqrt(sp.Abs(1 - ONE)) + a, rhs=a,
                    domain={a: sp.Interval(230, 240)})
    out = _spot(true, screen=False)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence


def test_root_uniqueness_is_checked_where_the_value_is_a_power_of_a_base_around_zero():
    # Max(0, ONE - 1)**(3/2): a power of a base whose ball lies around 0 (cut at 0, as it is
    # >= 0 by its form): the value's acceptance, and the search for another root
    v = sp.Rational(1, 2) + sp.Max(0, ONE - 1) ** sp.Rational(3, 2)  # = 1/2
    wide = {a: sp.Interval(0, 110)}
    false = _root("root-uniq-noball", (x - v) * (x - 2 + a / 50), v, sp.Interval(0, 1), wide)
    _refuted(verify(false, S), "another root in the interval")
    true = _root("root-uniq-noball-true", (x - v) * (x - 5), v, sp.Interval(0, 1), wide)
    assert verify(true, S).status in NOT_REFUTED


@pytest.mark.parametrize("end", [sp.Rational(1, 3), sp.pi, sp.Integer(1)])
def test_root_value_just_below_a_non_binary_end_is_outside(end):
    # 1e-18 below the end, 100 times the tolerance: the ends were kept at 15 digits (1/3 and pi
    # there lie further below than that), so the value counted as inside
    v = end - sp.Rational(1, 10 ** 18) * sp.sqrt(ONE)
    _refuted(verify(_root(f"root-below-{end}", x - v, v, sp.Interval(end, 4), BIG_A), S), "root outside the interval")


def test_root_at_an_irrational_closed_end_is_inside():
    # pi at the value's 50 digits against pi at 60: within rounding of the closed end
    claim = _root("root-pi", x - sp.pi, sp.pi, sp.Interval(0, sp.pi), {a: sp.Interval(0, 1)})
    out = _spot(claim, screen=False)
    assert out.verdict == "consistent", out.evidence
    assert verify(claim, S).status in NOT_REFUTED


@pytest.mark.parametrize("value, interval", [(HALF_PAST, sp.Interval(1, 2)),
                                             (ONE / 2, sp.Interval(sp.Rational(1, 4), 1))])
def test_root_value_outside_only_on_lost_digits_is_not_refuted(value, interval):
    # at a = 1000 the value's formula is 0 at 50 and 140 digits (outside); its ball places it
    # nowhere within the digits the check spends: unresolved, never a counterexample
    claim = _root(f"root-lost-outside-{interval}", x - value, value, interval, HUGE_A)
    out = _spot(claim, screen=False)
    assert out.verdict == "inconclusive" and out.evidence["unresolved_points"] == out.evidence["points"], out.evidence
    res = verify(claim, S)
    assert res.status in NOT_REFUTED, (res.status, res.counterexample)
    if res.status == "certified":  # the numbers' word on it, not "neither proved nor decided"
        assert res.message.startswith("numeric check inconclusive"), res.message


# ---------------------------------------------------------------- maximiser: a claimed point feasible on lost digits

def test_maximiser_claimed_point_feasible_only_on_lost_digits_is_refuted():
    # x maximised over [0, 1] at HALF_PAST = 3/2 (1/2 at 50 and 140 digits): outside, and
    # better than every rival, so only its feasibility refutes it
    claim = _max("max-feasible-lost", HALF_PAST, sp.Interval(0, 1), objective=x)
    for screen in (False, True):
        assert _spot(claim, screen).verdict == "counterexample", screen
    cx = _refuted(verify(claim, S), "claimed maximiser is infeasible")
    raw = cx.get("raw", cx)
    assert _near(raw["x"], 1.5) and "cancellation" in raw, cx
    true = _max("max-feasible-true", ONE, sp.Interval(0, 1), objective=x)  # 1, at the closed end
    out = _spot(true, screen=False)
    assert out.verdict == "consistent" and out.evidence["unresolved_points"] == 0, out.evidence


def test_maximiser_claimed_point_outside_a_where_relation_only_on_lost_digits_is_refuted():
    y = sp.Symbol("y")
    quarter = ONE / 2 + sp.Rational(1, 4)  # 3/4 (1/4 at 50 and 140 digits): x + y = 3/2 > 1
    claim = Maximiser(id="max-where-lost", title="t", ref="1", objective=x + y, wrt=[x, y], at={x: quarter, y: quarter},
                      over={x: sp.Interval(0, 1), y: sp.Interval(0, 1)}, over_where=[x + y <= 1], domain=BIG_A)
    _refuted(verify(claim, S), "claimed maximiser is infeasible")
    half = ONE / 2  # 1/2 each: on the relation's boundary, feasible
    true = Maximiser(id="max-where-true", title="t", ref="1", objective=x + y, wrt=[x, y], at={x: half, y: half},
                     over={x: sp.Interval(0, 1), y: sp.Interval(0, 1)}, over_where=[x + y <= 1], domain=BIG_A)
    assert verify(true, S).status in NOT_REFUTED


# ---------------------------------------------------------------- irrational interval ends

def test_irrational_interval_ends_are_taken_not_an_error():
    """An end such as sqrt(2) or log 2 was a TypeError (sympy's Float and mpmath's mpf take
    no such number) in the sampler, the feasibility test and the interval backend."""
    from verify_claims import Identity
    from verify_claims.backends.interval import _rational_end
    r2 = sp.sqrt(2)
    lo, hi = _rational_end(r2, "f"), _rational_end(r2, "c")
    assert lo < hi and lo ** 2 < 2 < hi ** 2
    ident = Identity(id="irr-identity", title="t", ref="1", lhs=(x + 1) ** 2, rhs=x ** 2 + 2 * x + 1,
                     domain={x: sp.Interval(0, r2)})
    assert verify(ident, S).status == "proved"
    root = _root("irr-root", x ** 2 - 2, r2, sp.Interval(0, r2), {a: sp.Interval(1, 2)})
    assert verify(root, S).status in NOT_REFUTED
    wrong_root = _root("irr-root-wrong", x ** 2 - 3, sp.sqrt(3), sp.Interval(0, r2), {a: sp.Interval(1, 2)})
    _refuted(verify(wrong_root, S), "root outside the interval")
    at_end = Maximiser(id="irr-max", title="t", ref="1", objective=a * x, wrt=x, at={x: r2},
                       over={x: sp.Interval(0, r2)}, domain={a: sp.Interval(1, 2)})
    assert verify(at_end, S).status in NOT_REFUTED
    # claimed at the lower end log 2 (within rounding of it): decided, and beaten by e
    wrong = Maximiser(id="irr-max-wrong", title="t", ref="1", objective=a * x, wrt=x, at={x: sp.log(2)},
                      over={x: sp.Interval(sp.log(2), sp.E)}, domain={a: sp.Interval(1, 2)})
    _refuted(verify(wrong, S), "a feasible point does better")
