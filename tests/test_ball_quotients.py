"""Difference quotients in the ball backend (issue 10): Appendix B.2's beta(z_1, z_2) =
(1/s_2 - 1/s_1)/(logit z_2 - logit z_1) and the second-order conditions of the potential
Phi at the two zeros of h, plus the centred exclusion of boxes outside a `where` relation.

Every route has its negative: a false variant (the mean compared with the wrong end, the
upper zero claimed a local maximiser of Phi, a point that is not a zero of h) is never
certified, and the numbers refute it with a counterexample.
"""

from __future__ import annotations

import mpmath
import sympy as sp

from verify_claims import Inequality, Maximiser, Ref
from verify_claims.backends import certification_backends
from verify_claims.backends.ball import BALL, _logit_interval, _quotient_candidates
from verify_claims.backends.interval import _outside, _relation_gradients
from verify_claims.engine.goals import Goal
from verify_claims.engine.verify import certify, verify
from verify_claims.model.domain import Domain
from verify_claims.run.settings import Settings

x, y, xx = sp.symbols("x y x_pot")
z1, z2 = sp.symbols("z_1 z_2", real=True)
REF = Ref("3")
S = Settings(samples=40)
BAND = Domain({x: sp.Interval(0, 1), y: sp.Interval(0, 1)}, (y - x >= sp.Rational(1, 100),))


def ball(goal, seconds=10):
    return certification_backends()["ball"].decide(goal, seconds)


# ---------------------------------------------------------------- recognising a quotient
def test_a_denominator_that_vanishes_on_the_diagonal_is_a_quotient_candidate():
    e = (sp.exp(y) - sp.exp(x)) / (y - x) - sp.exp(x)
    assert _quotient_candidates(e, BAND) == [(y - x, 1, x, y)]
    # without a relation that keeps the points off the diagonal there is none
    assert _quotient_candidates(e, Domain(dict(BAND.sets))) == []
    # y - x >= -1/100 does not keep y above x, nor does y >= x (the diagonal itself is in it)
    assert _quotient_candidates(e, Domain(dict(BAND.sets), (y - x >= -sp.Rational(1, 100),))) == []
    assert _quotient_candidates(e, Domain(dict(BAND.sets), (y >= x,))) == []
    assert _quotient_candidates(e, Domain(dict(BAND.sets), (x <= y,))) == []
    # while y > x and x < y do
    assert _quotient_candidates(e, Domain(dict(BAND.sets), (y > x,))) == [(y - x, 1, x, y)]
    assert _quotient_candidates(e, Domain(dict(BAND.sets), (x < y,))) == [(y - x, 1, x, y)]


def test_the_mean_of_an_increasing_function_exceeds_its_value_at_the_left_end():
    """(e^y - e^x)/(y - x) > e^x: near the diagonal numerator and denominator are both small
    and boxes overestimate; with the denominator cleared, N = e^y - e^x - e^x (y - x) has a
    double zero on y = x and N_yy = e^y > 0."""
    e = (sp.exp(y) - sp.exp(x)) / (y - x) - sp.exp(x)
    dec = ball(Goal(e, "positive", BAND, "mean > left end"))
    assert dec.verdict == "holds" and "numerator" in dec.detail and "N_y = 0 on y = x" in dec.detail


def test_the_mean_is_not_above_the_value_at_the_right_end():
    # the false variant: (e^y - e^x)/(y - x) > e^y fails everywhere
    e = (sp.exp(y) - sp.exp(x)) / (y - x) - sp.exp(y)
    dec = ball(Goal(e, "positive", BAND, "mean > right end"))
    assert dec.verdict != "holds"
    c = Inequality(id="mean-right", title="t", ref=REF, lhs=(sp.exp(y) - sp.exp(x)) / (y - x), op=">",
                   rhs=sp.exp(y), domain=dict(BAND.sets), where=BAND.where)
    c.validate()
    res = verify(c, S)
    assert res.status == "refuted" and res.counterexample


def test_logistic_coordinate_ends_are_rounded_outward():
    iv = _logit_interval(sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100)))
    lo, hi = float(iv.start), float(iv.end)
    assert lo < -mpmath.log(99) < lo + 1e-5 and hi - 1e-5 < mpmath.log(99) < hi
    assert not iv.left_open and not iv.right_open
    assert _logit_interval(sp.Interval.open(0, 1)) == sp.Interval(-sp.oo, sp.oo)
    assert _logit_interval(sp.Interval(0, 1)) is None  # x = 0 has no logit


# ---------------------------------------------------------------- where relations
def test_a_box_just_outside_a_where_relation_is_excluded_by_its_mean_value_form():
    # z_1 (1 - z_1) > z_2 (1 - z_2) is (z_2 - z_1)(z_1 + z_2 - 1) > 0: false on this box (z_1 + z_2 < 1),
    # by a margin smaller than the box, so the plain enclosure straddles 0
    w = [z1 * (1 - z1) > z2 * (1 - z2)]
    bx = {z1: (mpmath.mpf("0.30"), mpmath.mpf("0.304")), z2: (mpmath.mpf("0.69"), mpmath.mpf("0.694"))}
    plain = BALL.enclose(w[0].lhs - w[0].rhs, bx, strict=False)
    assert plain.a < 0 < plain.b
    assert _outside(w, bx, BALL, _relation_gradients(w, [z1, z2]))
    # and a box with domain points in it is never excluded
    inside = {z1: (mpmath.mpf("0.30"), mpmath.mpf("0.304")), z2: (mpmath.mpf("0.70"), mpmath.mpf("0.704"))}
    assert not _outside(w, inside, BALL, _relation_gradients(w, [z1, z2]))
    inside = {z1: (mpmath.mpf("0.30"), mpmath.mpf("0.304")), z2: (mpmath.mpf("0.71"), mpmath.mpf("0.714"))}
    assert not _outside(w, inside, BALL, _relation_gradients(w, [z1, z2]))


# ---------------------------------------------------------------- Appendix B.2's potential
_s1, _s2 = sp.sqrt(z1 * (1 - z1)), sp.sqrt(z2 * (1 - z2))
_logit = lambda p: sp.log(p / (1 - p))  # noqa: E731
BETA2 = (1 / _s2 - 1 / _s1) / (_logit(z2) - _logit(z1))
REF2 = 1 / (1 + sp.exp(-(_logit(z1) - 1 / (BETA2 * _s1))))
PHI = sp.asin(2 * xx - 1) - BETA2 * (xx * sp.log(xx / REF2) + (1 - xx) * sp.log((1 - xx) / (1 - REF2)))
LOCAL = {z1: sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100)),
         z2: sp.Interval(sp.Rational(1, 100), sp.Rational(99, 100))}
WHERE = (z2 - z1 >= sp.Rational(1, 100), z1 * (1 - z1) > z2 * (1 - z2))


def potential(id_, objective, at):
    m = Maximiser(id=id_, title="t", ref=REF, objective=objective, wrt=(xx,), at={xx: at},
                  over={xx: sp.Interval.open(0, 1)}, scope="local", domain=LOCAL, where=WHERE)
    m.validate()
    return m


def test_the_lower_zero_of_h_is_a_local_maximiser_of_the_potential():
    res = certify(potential("pot-lower", PHI, z1), S, 20, solved=True)
    assert res.verdict == "certified", res.reason
    assert "route C" in res.detail and "logistic" in res.detail


def test_the_upper_zero_of_h_is_a_local_minimiser_of_the_potential():
    res = certify(potential("pot-upper", -PHI, z2), S, 20, solved=True)
    assert res.verdict == "certified", res.reason


def test_the_upper_zero_is_not_a_local_maximiser_of_the_potential():
    # the second-order sign flipped: Phi''(z_2) > 0, so z_2 is a local minimum of Phi
    bad = potential("pot-upper-as-max", PHI, z2)
    assert certify(bad, S, 20, solved=True).verdict != "certified"
    res = verify(bad, S)
    assert res.status == "refuted" and res.counterexample["type"] == "a feasible point does better"


def test_a_point_between_the_zeros_is_not_a_local_maximiser():
    # the wrong zero: the midpoint of z_1 and z_2 is no stationary point of Phi
    bad = potential("pot-midpoint", PHI, (z1 + z2) / 2)
    assert certify(bad, S, 20).verdict != "certified"
    res = verify(bad, S)
    assert res.status == "refuted" and res.counterexample


def test_a_quotient_certificate_records_its_route_and_replays_it():
    c = potential("pot-lower-replay", PHI, z1)
    first = verify(c, S)
    assert first.status == "certified", first.message
    routes = [v for k, v in first.evidence["trace"].items() if k.startswith("ball route")]
    assert routes and all(r.startswith("quotient ") for r in routes)
    again = verify(c, S, certificate={"status": "certified", "decisions": first.evidence["trace"]})
    assert again.status == "certified" and again.evidence["replay"]["result"] == "replayed"
