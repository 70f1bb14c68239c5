"""Difference quotients in the ball backend (issue 10): Appendix B.2's beta(z_1, z_2) =
(1/s_2 - 1/s_1)/(logit z_2 - logit z_1) and the second-order conditions of the potential
Phi at the two zeros of h, plus the centred exclusion of boxes outside a `where` relation.

Every route has its negative: a false variant (the mean compared with the wrong end, the
upper zero claimed a local maximiser of Phi, a point that is not a zero of h) is never
certified, and the numbers refute it with a counterexample.
"""

from __future__ import annotations

from pathlib import Path

import mpmath
import sympy as sp

from verify_claims import Inequality, Maximiser, Monotonic, Ref
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


# a false goal keeps the box search going until its budget runs out: the wrong twins get 3 s,
# over ten times what their true twins need to be decided (0.08 s at the face, 0.21 s for beta < u(z_2))
WRONG_TWIN_SECONDS = 3


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


# ---------------------------------------------------------------- a quotient over the whole open square
SQUARE = {z1: sp.Interval.open(0, 1), z2: sp.Interval.open(0, 1)}
TWO_WHERE = (z1 < z2, z1 * (1 - z1) > z2 * (1 - z2))
U = lambda p: (2 * p - 1) / (2 * sp.sqrt(p * (1 - p)))  # noqa: E731 - u = (1/s)'/logit', increasing


def test_beta_is_below_u_at_the_upper_zero_over_every_pair_of_zeros():
    """beta = (1/s_2 - 1/s_1)/(logit z_2 - logit z_1) = u(xi) for some xi in (z_1, z_2) (Cauchy),
    so beta < u(z_2).  The denominator's sign needs the logistic coordinates here: in z_1, z_2
    its slope 1/(z_2 (1 - z_2)) is unbounded at the corner (1, 1) of the open square."""
    dec = ball(Goal(U(z2) - BETA2, "positive", Domain(SQUARE, TWO_WHERE), "beta < u(z_2)"))
    assert dec.verdict == "holds", dec.detail
    assert "logistic" in dec.detail


def test_beta_is_not_below_u_at_the_lower_zero():
    # the wrong end: beta = u(xi) > u(z_1)
    dec = ball(Goal(U(z1) - BETA2, "positive", Domain(SQUARE, TWO_WHERE), "beta < u(z_1)"), WRONG_TWIN_SECONDS)
    assert dec.verdict != "holds"
    c = Inequality(id="beta-below-u-lower", title="t", ref=REF, lhs=BETA2, op="<", rhs=U(z1),
                   domain=SQUARE, where=TWO_WHERE)
    c.validate()
    res = verify(c, S)
    assert res.status == "refuted" and res.counterexample


# ---------------------------------------------------------------- a slope split at a face
t = sp.Symbol("t")
Q = (sp.exp(y) - sp.exp(x)) / (y - x)  # the mean of exp over [x, y]: e^x < Q < e^y
FACE = Domain({t: sp.Interval.open(0, 1), **BAND.sets}, BAND.where)


def face_goal(e):
    from verify_claims.backends.interval import Curve
    assert sp.simplify(e.subs(t, 0)) == 0  # the face t = 0 is an exact zero of e
    return Goal(e, "positive", FACE, "e > 0 off the face", curve=Curve(t, 0, order=1, side="right"))


def test_a_slope_holding_a_quotient_is_split_at_the_face():
    """e = e^(y + t) - e^y - t Q vanishes at t = 0, and its slope e^(y + t) - Q is
    (e^(y + t) - e^y) + (e^y - Q): a part 0 on the face and increasing, plus the quotient
    part at the face, which the difference-quotient route decides."""
    from verify_claims.engine.context import Trace
    goal = face_goal(sp.exp(y + t) - sp.exp(y) - t * Q)
    trace = Trace()
    dec = certification_backends()["ball"].decide(goal, 10, trace)
    assert dec.verdict == "holds", dec.detail
    routes = [v for k, v in trace.record.items() if k.startswith("ball route")]
    assert routes == ["slope t: face 0: quotient 0: curve x"]
    assert "mean value theorem" in dec.detail and "E|_{t=0}" in dec.detail
    # the route replays with no search, and a replay of another route does not decide
    assert certification_backends()["ball"].decide(goal, 10, Trace(trace.record)).verdict == "holds"
    wrong = {k: ("slope t: face 1: quotient 0: curve x" if k.startswith("ball route") else v)
             for k, v in trace.record.items()}
    assert certification_backends()["ball"].decide(goal, 10, Trace(wrong)).verdict != "holds"
    inner = {k: ("slope t: face 0: quotient 1: curve x" if k.startswith("ball route") else v)
             for k, v in trace.record.items()}  # a quotient candidate that is not there
    assert certification_backends()["ball"].decide(goal, 10, Trace(inner)).verdict != "holds"


def test_a_face_at_the_upper_end_flips_the_slope():
    """At the upper end e(t) = -(1 - t) e_t(xi): e = e^(y + 1 - t) - e^y - (1 - t) Q falls to 0
    at t = 1 (its slope Q - e^(y + 1 - t) < 0), so e > 0 before it; with x for y the slope
    is Q - e^x > 0 next to the face and e < 0 there."""
    from verify_claims.backends.interval import Curve

    def upper(e, want="positive"):
        assert sp.simplify(e.subs(t, 1)) == 0
        return Goal(e, want, FACE, "e off the face t = 1", curve=Curve(t, 1, order=1, side="left"))

    good = sp.exp(y + 1 - t) - sp.exp(y) - (1 - t) * Q
    dec = ball(upper(good))
    assert dec.verdict == "holds" and "mean value theorem" in dec.detail, dec.detail
    bad = sp.exp(x + 1 - t) - sp.exp(x) - (1 - t) * Q
    assert ball(upper(bad)).verdict != "holds"
    assert ball(upper(bad, "nonnegative")).verdict != "holds"


def test_negated_and_weak_goals_go_through_the_same_split():
    good = sp.exp(y + t) - sp.exp(y) - t * Q
    for e, want in ((-good, "negative"), (-good, "nonpositive"), (good, "nonnegative")):
        goal = face_goal(e)
        goal.want = want
        assert ball(goal).verdict == "holds", (want, e)
    goal = face_goal(-good)  # -e > 0 is false everywhere off the face
    assert ball(goal).verdict != "holds"


def test_a_strict_goal_is_not_split_on_an_interval_that_holds_the_face():
    # e(0) = 0, so e > 0 is false on t in [0, 1): the route must not apply there
    from verify_claims.backends.ball import _slope_face
    from verify_claims.backends.interval import Curve
    closed = Domain({**FACE.sets, t: sp.Interval.Ropen(0, 1)}, FACE.where)
    goal = Goal(sp.exp(y + t) - sp.exp(y) - t * Q, "positive", closed, "e > 0 with the face",
                curve=Curve(t, 0, order=1, side="right"))
    assert _slope_face(goal, goal.expr, goal.curve, __import__("time").process_time() + 10) is None


def test_the_split_declines_a_cofactor_of_both_signs_or_two_quotients():
    import time as _time
    from verify_claims.backends.ball import _face_split
    # B = -(t - 1/2) changes sign in t: E = A/B + q is not the slope's sign
    f = sp.exp(y + t) - (t - sp.Rational(1, 2)) * Q
    assert _face_split(f, "positive", FACE, t, 0, _time.process_time() + 10) is None
    # two quotient terms whose t-free factors differ (e^x Q and Q): no single q
    f = sp.exp(y + t) - Q - t * sp.exp(x) * Q
    assert _face_split(f, "positive", FACE, t, 0, _time.process_time() + 10) is None


def test_the_face_split_needs_the_quotient_part_at_the_face():
    # e^(x + t) - e^x - t Q: the slope at the face is e^x - Q < 0, so e < 0 next to the face
    dec = ball(face_goal(sp.exp(x + t) - sp.exp(x) - t * Q), WRONG_TWIN_SECONDS)
    assert dec.verdict != "holds"


def test_the_face_split_needs_the_part_that_is_zero_on_the_face():
    # slope e^(y - 3t) - Q: positive at the face (e^y > Q) but falling below Q further in, and e
    # itself goes negative at t = 1 when x is close to y
    e = (sp.exp(y) - sp.exp(y - 3 * t)) / 3 - t * Q
    dec = ball(face_goal(e))
    assert dec.verdict != "holds"
    f = sp.integrate(e, (t, 0, t))  # a Monotonic claim whose derivative is e
    m = Monotonic(id="face-part-fails", title="t", ref=REF, expr=f, var=t, direction="increasing",
                  domain={t: sp.Interval(0, 1), **BAND.sets}, where=BAND.where)
    m.validate()
    res = verify(m, S)
    assert res.status == "refuted" and res.counterexample


def test_phi_increases_from_the_upper_zero_to_one_over_every_pair_of_zeros():
    """Section 3's potential reading: Phi(z_2 + t (1 - z_2)) increases on [0, 1], so 1 is the
    second local maximiser.  Its derivative vanishes at t = 0 (z_2 is a zero of h); its slope
    has the sign of u(x) - beta = (u(x) - u(z_2)) + (u(z_2) - beta), both parts certified.

    The bundled claim's committed certificate is replayed (its search needs about 4 s of the
    ball's 6 s slice on a quiet 2-core machine, too close to the edge for a test that shares
    the machine with another worker; the synthetic splits above are searched)."""
    from verify_claims.run.certificates import Certificates
    from verify_claims.run.collect import load_derivations
    from verify_claims.run.keys import declaration_key
    ddir = Path(__file__).resolve().parents[1] / "derivations"
    claim = next(c for c in load_derivations(ddir).claims if c.id == "direct-kl-large-g-potential-increasing-to-one")
    certs = Certificates.load(ddir)
    assert certs.state(claim.id, declaration_key(claim)) == "current"
    record = certs.records[claim.id]
    assert record["status"] == "certified"
    routes = [v for k, v in record["decisions"].items() if k.startswith("ball route")]
    assert routes and routes[0].startswith("slope t: face 0: quotient 0: logistic")
    again = verify(claim, Settings(), certificate=record)
    assert again.status == "certified" and again.evidence["replay"]["result"] == "replayed", again.message
    assert "mean value theorem" in again.evidence["certificate"]["detail"]


def test_phi_does_not_increase_between_the_two_zeros():
    # Phi' = beta h < 0 between z_1 and z_2: the wrong interval is refuted with its numbers
    tt = sp.Symbol("t")
    xt = z1 + tt * (z2 - z1)
    expr = sp.asin(2 * xt - 1) - BETA2 * (xt * sp.log(xt / REF2) + (1 - xt) * sp.log((1 - xt) / (1 - REF2)))
    m = Monotonic(id="phi-increasing-between", title="t", ref=REF, expr=expr, var=tt, direction="increasing",
                  domain={tt: sp.Interval(0, 1), **SQUARE}, where=TWO_WHERE)
    m.validate()
    assert certify(m, S, 20).verdict != "certified"
    res = verify(m, S)
    assert res.status == "refuted" and res.counterexample


# ---------------------------------------------------------------- the logistic rewrite
def test_the_logistic_rewrite_is_an_identity_on_the_open_square():
    """_to_logistic writes x = 1/(1 + exp(-u_x)) through w = exp(u/2): logit x = u and
    sqrt(x (1 - x)) = w/(1 + w^2) by factors that are positive, and a log of a product
    is split only where its factors are: log((2x - 1)(2y - 1)) has two negative factors
    at x, y < 1/2, where log(2x - 1) + log(2y - 1) would not be real."""
    import time

    from verify_claims.backends.ball import _to_logistic
    square = Domain(dict(SQUARE), TWO_WHERE)
    cases = [_logit(z2) - _logit(z1), BETA2, U(z2) - BETA2,
             sp.log((2 * z1 - 1) * (2 * z2 - 1)) + sp.sqrt(z1 * (1 - z1)) * z2,
             (1 - (2 * z1 - 1) ** 2) ** sp.Rational(3, 2) / sp.sqrt(z2 * (1 - z2))]
    sig = lambda u: 1 / (1 + mpmath.exp(-u))  # noqa: E731
    for n in cases:
        nu, udom, us = _to_logistic(n, square, z1, z2, time.process_time() + 20)
        assert not nu.has(z1) and not nu.has(z2) and udom.sets[us[z1]] == sp.Interval(-sp.oo, sp.oo)
        f, g = sp.lambdify((z1, z2), n, "mpmath"), sp.lambdify((us[z1], us[z2]), nu, "mpmath")
        with mpmath.workdps(30):
            for a, b in ((-1.5, -0.25), (-3, 2), (0.5, 4), (1, 1.5)):
                a, b = mpmath.mpf(a), mpmath.mpf(b)
                want, got = f(sig(a), sig(b)), g(a, b)
                assert abs(want - got) <= mpmath.mpf(10) ** -20 * (1 + abs(want)), (n, a, b, want, got)
