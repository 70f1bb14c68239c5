"""The ball backend (python-flint arb) and what it brings: enclosures of log/exp/sqrt/asinh,
unbounded ends (monotone tails), touching inequalities, roots and maximisers decided by
exact zero curves, a where relation used as a lower bound.

Every method has its negative: a plausible false variant (a slightly better constant, a
bound that fails only far out or only near the touching point, two close roots claimed to
be one, a local maximiser claimed global) is refuted with a confirmed counterexample and
never certified.
"""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp

from verify_claims import Inequality, Maximiser, Ref, Root
from verify_claims.backends import certification_backends
from verify_claims.backends.ball import BALL, compile_ball
from verify_claims.backends.interval import IV, branch_and_bound
from verify_claims.engine.goals import Goal
from verify_claims.engine.verify import certify, verify
from verify_claims.model.domain import Domain

x, b, r = sp.symbols("x beta ref_a")
REF = Ref("3")
POS = sp.Interval.open(0, sp.oo)
# Section 3's minimum of h over x (b2-large-g-h-min-closed-form): logit(ref) - 2 asinh(b) + 2 sqrt(b^2 + 1)/b
MIN_H = sp.log(r / (1 - r)) - 2 * sp.asinh(b) + 2 * sp.sqrt(b ** 2 + 1) / b


def ineq(id_, lhs, op, rhs, domain, **kw):
    c = Inequality(id=id_, title=id_, ref=REF, lhs=lhs, op=op, rhs=rhs, domain=domain, **kw)
    c.validate()
    return c


# ---------------------------------------------------------------- enclosures
@pytest.mark.parametrize("expr", [
    sp.log(x / (1 - x)) + 1 / (b * sp.sqrt(x * (1 - x))),
    sp.exp(-1 / (b * sp.sqrt(x * (1 - x)))) - sp.asinh(b * x),
    2 * sp.sqrt(b ** 2 + 1) / b - 2 * sp.asinh(b) + sp.Rational(1, 3) * x ** 3,
    sp.Abs(x - sp.Rational(1, 2)) * sp.Max(b, x) + sp.atan(b),
])
def test_ball_enclosures_contain_every_value(expr):
    """At 200 random points of random boxes the value (mpmath, 50 digits) lies in the
    enclosure: outward rounding, and increasing functions evaluated at both ends."""
    rng = random.Random(7)
    for i in range(40):
        xa = mpmath.mpf(rng.uniform(0.01, 0.9))
        xb = xa + mpmath.mpf(rng.uniform(1e-6, 0.09))
        # beta's boxes also below 0 and around it where the expression allows (the sign of a
        # negative end once got lost converting it to a ball)
        ba = mpmath.mpf(rng.uniform(0.05, 5) if i % 2 or expr.has(sp.log, sp.sqrt(b)) else rng.uniform(-5, 0.5))
        bb = ba + mpmath.mpf(rng.uniform(1e-6, 2))
        if ba <= 0 <= bb and (expr.has(1 / b) or any(isinstance(p, sp.Pow) and p.base.has(b) and p.exp < 0
                                                      for p in expr.atoms(sp.Pow))):
            continue
        enc = BALL.enclose(expr, {x: (xa, xb), b: (ba, bb)}, strict=True)
        f = sp.lambdify((x, b), expr, "mpmath")
        for _ in range(5):
            with mpmath.workdps(50):
                px = xa + (xb - xa) * mpmath.mpf(rng.random())
                pb = ba + (bb - ba) * mpmath.mpf(rng.random())
                val = f(px, pb)
            assert enc.a <= val <= enc.b


def test_negative_box_ends_keep_their_sign():
    """b - x^2 on b in [1/10, 1/2], x in [-1, 1] is [-9/10, 1/2]: with x's end -1 read as +1
    the enclosure came out [-0.9, -0.5], and a false uniqueness was certified."""
    enc = BALL.enclose(b - x ** 2, {b: (mpmath.mpf("0.1"), mpmath.mpf("0.5")), x: (mpmath.mpf(-1), mpmath.mpf(1))},
                       strict=True)
    assert enc.a <= -0.9 + 1e-12 and enc.b >= 0.5 - 1e-12
    from verify_claims.backends.interval import _rat
    from verify_claims.backends.numeric import exact
    assert _rat(mpmath.mpf(-0.75)) == (-3, 4) and exact(mpmath.mpf(-0.75)) == sp.Rational(-3, 4)
    # the claim it made certifiable: (b - x^2)^2 e^x has the roots +-sqrt(b) in (-1, 1)
    c = root("two-roots-in-a-parameter", sp.Eq((b - x ** 2) ** 2 * sp.exp(x), 0), sp.sqrt(b),
             {b: sp.Interval.open(sp.Rational(1, 10), sp.Rational(1, 2))}, interval=sp.Interval.open(-1, 1))
    assert certify(c, solved=True).verdict != "certified"


def test_the_curve_must_lie_in_the_interval():
    # x^3 - 3x^2 touches 0 at x = 0, outside (1, 2), where it is negative
    g = Goal(x ** 3 - 3 * x ** 2, "positive", Domain({x: sp.Interval.open(1, 2)}), "t", off_curve=x)
    assert certification_backends()["ball"].decide(g, 5).verdict != "holds"


def test_ball_is_tight_where_arb_alone_is_loose():
    # arb's own exp of the ball [2, 4] is [-54.6, 54.6]; by its ends it is [e^2, e^4]
    enc = BALL.enclose(sp.exp(x), {x: (mpmath.mpf(2), mpmath.mpf(4))}, strict=True)
    assert enc.a > 7.38 and enc.b < 54.6 + 1e-9


def test_a_singular_box_falls_back_to_extended_intervals():
    """log x on [0, 1] is not a finite ball: the extended enclosure [-oo, 0] answers (and
    strict mode refuses, as the corner argument needs)."""
    enc = BALL.enclose(-sp.log(x), {x: (mpmath.mpf(0), mpmath.mpf(1))}, strict=False)
    assert enc.a >= 0 and mpmath.isinf(enc.b)
    from verify_claims.backends.interval import Undefined
    with pytest.raises(Undefined):
        BALL.enclose(-sp.log(x), {x: (mpmath.mpf(0), mpmath.mpf(1))}, strict=True)
    assert compile_ball(sp.Piecewise((x, x > 0), (0, True)), (x,)) is None


def test_an_even_power_of_a_ball_around_zero_is_a_finite_enclosure():
    """python-flint's ``**`` is nan for a ball containing 0: (x - 1)^2 near x = 1 (the
    accuracy guard's maximiser objectives) had no ball at all."""
    import flint
    f = compile_ball((x - 1) ** 2, (x,))
    near_one = flint.arb(1, 1e-10)
    got = f([near_one])
    assert got.is_finite() and got.contains(0) and got.contains(flint.arb("1e-20")), got
    assert got.upper() <= 2e-20 and got.lower() >= -2e-20, got
    odd = compile_ball((x - 1) ** 3 + 1 / (x - 2) ** 2, (x,))([near_one])
    assert odd.is_finite() and odd.contains(1) and odd.rad() < 1e-9, odd
    with pytest.raises(ArithmeticError):  # 1/(x - 1)^2 at x around 1: no finite ball
        compile_ball(1 / (x - 1) ** 2, (x,))([near_one])


def test_a_root_of_a_base_nonnegative_by_its_form_has_a_ball_around_zero():
    """Max(0, t)^(3/2), sqrt(|t|), Max(0, t)^b near t = 0: arb's max(0, t) and |t| of a
    ball around 0 reach just below 0, where sqrt and exp(b log t) are nan at every
    precision, so the accuracy guard had nothing to decide with.  The base is >= 0 by its
    form: the ball is cut at 0, [0, hi^e], which encloses every value."""
    import flint
    around = flint.arb(0, 1e-20)
    # (the values over t in [-1e-20, 1e-20] fill [low, high])
    for expr, low, high in ((sp.Max(0, x) ** sp.Rational(3, 2), 0, 1e-30), (sp.sqrt(sp.Abs(x)), 0, 1e-10),
                            (sp.Max(0, x) ** b, 0, 1e-30), (1 + sp.sqrt(sp.Max(x, 0) + x ** 2), 1, 1 + 1e-10)):
        got = compile_ball(expr, (x, b))([around, flint.arb(1.5)])
        assert got.is_finite() and got.contains(low) and got.contains(low + 0.99 * (high - low)), (expr, got)
        assert got.upper() <= low + 1.01 * (high - low), (expr, got)
    # a base not known >= 0 is not cut: t^(3/2) of a ball around 0 has no ball (t may be < 0)
    with pytest.raises(ArithmeticError):
        compile_ball(x ** sp.Rational(3, 2), (x,))([around])
    # nor an exponent not certainly > 0 (0^b is 1 at b = 0 and infinite below)
    with pytest.raises(ArithmeticError):
        compile_ball(sp.Max(0, x) ** b, (x, b))([around, flint.arb(0, 1)])
    # where the base's ball lies above 0 nothing changes
    pos = flint.arb("0.25")
    assert compile_ball(sp.Max(0, x) ** sp.Rational(3, 2), (x,))([pos]).contains(flint.arb("0.125"))


def test_nonnegative_form():
    from verify_claims.backends.ball import nonnegative_form
    assert all(nonnegative_form(e) for e in (sp.Max(0, x), sp.Max(x, sp.Abs(b)), x ** 2, sp.exp(x) * (x - b) ** 4,
                                            sp.Min(sp.Abs(x), 3) + sp.sqrt(sp.Max(0, b)), sp.Integer(2)))
    assert not any(nonnegative_form(e) for e in (x, sp.Max(x, b), sp.Min(0, x), x ** 3, x - 1, -sp.Abs(x),
                                                 sp.log(x), sp.Integer(-1)))


@pytest.mark.parametrize("expr", [
    -(x - sp.cosh(r) ** 2 + sp.sinh(r) ** 2) ** 2,
    sp.log(x) + sp.sqrt(b) / x ** 3 - sp.exp(2) * x,
    sp.Max(x, b, 1) + sp.Abs(x - b) - sp.Min(x, 2),
    x ** sp.Rational(1, 3) + b ** x + 1 / sp.sqrt(x),
    (sp.log(1 + x) - sp.log(1 + x) ** 2) * (sp.log(1 + x) + b) / (1 + sp.log(1 + x)),  # shared terms
    sp.sqrt(2) * x + sp.pi + sp.E * sp.asinh(b) + sp.atan(x) * sp.tanh(b) + sp.erf(x) - sp.cos(b) * sp.sin(x),
])
def test_a_compiled_ball_encloses_the_value(expr):
    """The generated program (one temporary per distinct subexpression) encloses the exact
    value, and a wrong expression's value lies outside it."""
    import flint
    from verify_claims.backends.ball import exact_ball
    pt = {x: mpmath.mpf("0.75"), b: mpmath.mpf(2), r: mpmath.mpf(3)}
    syms = (x, b, r)
    got = compile_ball(expr, syms)([exact_ball(pt[s]) for s in syms])
    with mpmath.workdps(50):
        want = sp.N(expr.xreplace({s: sp.Rational(str(pt[s])) for s in syms}), 50)
    assert got.contains(flint.arb(str(want))) and got.rad() < 1e-12, (got, want)
    assert not got.contains(flint.arb(str(want)) + flint.arb("1e-6")), got


def test_exact_balls_of_numbers_and_points():
    """A point's coordinates become exact balls at any size; no ball for inf or nan."""
    import flint
    from verify_claims.backends.ball import exact_ball
    from verify_claims.backends.numeric import arb_point
    big = 2 ** 60 + 1  # mpf(big) at 15 digits would round it
    assert exact_ball(big).rad() == 0 and exact_ball(big) == flint.arb(big)
    assert exact_ball(mpmath.mpf(-0.75)) == flint.arb(-3) / 4 and exact_ball(mpmath.mpf(0)) == 0
    with mpmath.workdps(200):
        third = mpmath.mpf(1) / 3
    assert exact_ball(third).rad() == 0 and exact_ball(third).contains(flint.arb(1) / 3) is False
    for bad in (mpmath.inf, -mpmath.inf, mpmath.nan):
        with pytest.raises(ValueError):
            exact_ball(bad)
    huge = arb_point((x,), {x: 10 ** 400})[0]
    assert huge.rad() == 0 and huge == flint.arb(10 ** 400)
    assert arb_point((x,), {x: mpmath.inf}) is None and arb_point((x,), {x: float("nan")}) is None
    assert compile_ball(sp.Rational(1, 3), (x,))([flint.arb(5)]).contains(flint.arb(1) / 3)
    assert compile_ball(x, (x,))([flint.arb(5)]) == 5


def test_a_real_power_of_exactly_zero_is_a_ball():
    """exp(r log b) has no ball at b = 0 (log 0): 0**r is 0 for r > 0 and 1 for r = 0, as in
    mpmath; a negative exponent, or a base around 0 that is not exactly 0, has none."""
    import flint
    from verify_claims.backends.ball import real_power
    zero = flint.arb(0)
    assert compile_ball(x ** sp.Rational(3, 2), (x,))([zero]) == 0
    assert compile_ball(x ** x, (x,))([zero]) == 1
    assert compile_ball(b ** x + x ** sp.Rational(1, 3), (x, b))([zero, flint.arb(2)]) == 1
    for base, ex in ((zero, flint.arb(-1) / 2), (flint.arb(0, 1e-10), flint.arb(3) / 2), (flint.arb(-1), flint.arb(1) / 3)):
        with pytest.raises(ArithmeticError):
            real_power(base, ex)
    assert real_power(flint.arb(4), flint.arb(3) / 2).contains(8)
    # an exponent that is exactly an integer takes any base: (-1)**n at n = 3 (Range(1, 10, 2))
    assert compile_ball((-1) ** x, (x,))([flint.arb(3)]) == -1
    assert compile_ball(b ** x, (x, b))([flint.arb(-3), flint.arb(-2)]).contains(flint.arb(-1) / 8)


def test_what_arb_is_not_asked_to_evaluate_is_no_program():
    assert compile_ball(sp.acosh(x + 1), (x,)) is None
    assert compile_ball(x + b, (x,)) is None  # b is not an argument
    assert compile_ball(sp.gamma(x), (x,)) is None


def test_the_table_says_which_functions_each_backend_encloses():
    backends = certification_backends()
    g = Goal(sp.asinh(b) - b, "nonpositive", Domain({b: sp.Interval(0, 3)}), "asinh b <= b")
    assert backends["ball"].declines(g) is None
    assert backends["ball"].declines(Goal(sp.acosh(b + 1), "positive", g.domain, "")) is not None
    assert backends["smt"].declines(g) is not None


# ---------------------------------------------------------------- unbounded ends
def test_monotone_tail_certifies_an_unbounded_end():
    """Section 3's large-beta instance: min h < 0 for beta >= 2, ref <= 1/2.  On [M, +oo)
    the derivative in beta has a sign, so the tail's worst point is its finite end."""
    dom = Domain({b: sp.Interval(2, sp.oo), r: sp.Interval.Lopen(0, sp.Rational(1, 2))})
    ans = branch_and_bound(-MIN_H, "positive", dom, seconds=5, defined=True, encloser=BALL)
    assert ans.verdict == "holds" and ans.arguments.get("a monotone tail")
    c = ineq("large-beta", MIN_H, "<", 0, {b: sp.Interval(2, sp.oo), r: sp.Interval.Lopen(0, sp.Rational(1, 2))},
             certify_with="ball")
    cert = certify(c)
    assert cert.verdict == "certified" and cert.method == "ball" and "monotone tail" in cert.detail


def test_a_bound_failing_only_far_out_is_refuted_never_certified():
    # log(1 + x) <= 20 holds up to x = e^20 - 1 (about 4.9e8) and fails beyond
    c = ineq("log-bounded", sp.log(1 + x), "<=", 20, {x: sp.Interval(0, sp.oo)}, certify_with="ball")
    cert = certify(c)
    assert cert.verdict == "refuted"
    assert mpmath.mpf(cert.counterexample["point"]["x"]) > mpmath.exp(20) - 1
    res = verify(c)
    assert res.status == "refuted" and res.counterexample


def test_the_slightly_better_constant_is_refuted():
    # min h >= 2 sqrt(2) - 2 asinh(1) on beta <= 1, ref >= 1/2 holds with equality at
    # (1, 1/2); the constant raised by 1e-9 fails there
    good = 2 * sp.sqrt(2) - 2 * sp.asinh(1)
    dom = {b: sp.Interval.Lopen(0, 1), r: sp.Interval.Ropen(sp.Rational(1, 2), 1)}
    ok = certify(ineq("small-beta", MIN_H, ">", 0, dom, certify_with="ball"))
    assert ok.verdict == "certified"
    worse = ineq("small-beta-better-constant", MIN_H, ">=", good + sp.Rational(1, 10 ** 9), dom, certify_with="ball")
    cert = certify(worse)
    assert cert.verdict == "refuted" and cert.counterexample
    assert verify(worse).status == "refuted"


# ---------------------------------------------------------------- touching inequalities
def test_a_touching_inequality_is_certified_by_its_exact_zero():
    """log x <= x - 1 touches at x = 1: e = e' = 0 there exactly, e'' > 0 around it."""
    c = ineq("log-tangent", sp.log(x), "<=", x - 1, {x: sp.Interval.open(0, 4)}, certify_with="ball")
    cert = certify(c)
    assert cert.verdict == "certified" and cert.method == "ball"


def test_failing_within_a_billionth_of_the_touching_point_is_refuted():
    c = ineq("log-tangent-shifted", sp.log(x), "<=", x - 1 - sp.Rational(1, 10 ** 9), {x: sp.Interval.open(0, 4)},
             certify_with="ball")
    cert = certify(c)
    assert cert.verdict == "refuted"
    assert abs(mpmath.mpf(cert.counterexample["point"]["x"]) - 1) < 1e-3
    assert verify(c).status == "refuted"


def test_a_where_relation_is_used_as_a_lower_bound():
    """e > 0 where W > 0, because e - W >= 0 (touching along a curve): h(x) > 0 wherever
    its minimum over x is positive (Appendix B.2), on a bounded box of beta."""
    h = sp.log(r / (1 - r)) - sp.log(x / (1 - x)) + 1 / (b * sp.sqrt(x * (1 - x)))
    dom = Domain({x: sp.Interval.open(0, 1), b: sp.Interval(sp.Rational(1, 2), 2), r: sp.Interval.open(0, 1)},
                 (MIN_H > 0,))
    dec = certification_backends()["ball"].decide(Goal(h, "positive", dom, "h > 0"), 20)
    assert dec.verdict == "holds" and "lower bound" in dec.detail
    # without the relation the claim is false (h < 0 for ref small): never certified
    free = Domain(dict(dom.sets))
    assert certification_backends()["ball"].decide(Goal(h, "positive", free, "h > 0"), 5).verdict != "holds"


# ---------------------------------------------------------------- roots
def root(id_, eq, value, dom, interval=sp.Interval.open(0, 5)):
    c = Root(id=id_, title=id_, ref=REF, equation=eq, var=x, value=value, interval=interval, unique=True,
             domain=dom, certify_with="ball")
    c.validate()
    return c


def test_a_simple_transcendental_root_is_unique():
    c = root("exp-root", sp.Eq(sp.exp(b * x) - sp.exp(b) + x - 1, 0), 1, {b: sp.Interval(1, 3)})
    assert certify(c, solved=True).verdict == "certified"


def test_a_double_root_is_unique_by_the_second_derivative():
    c = root("double-root", sp.Eq(x - 1 - sp.log(x), 0), 1, {})
    cert = certify(c, solved=True)
    # by the touching route (x - 1 - log x is convex with e = e' = 0 at 1), a second-order argument
    assert cert.verdict == "certified" and "touches 0" in cert.detail and "convex" in cert.detail


def test_two_close_roots_claimed_one_are_refuted_never_certified():
    # log(x)^2 = 1e-12 has the roots exp(-1e-6) and exp(1e-6), 2e-6 apart
    c = root("two-close-roots", sp.Eq(sp.log(x) ** 2 - sp.Rational(1, 10 ** 12), 0), sp.exp(sp.Rational(1, 10 ** 6)), {})
    assert certify(c, solved=True).verdict != "certified"
    res = verify(c)
    assert res.status == "refuted" and res.counterexample["type"] == "another root in the interval"


# ---------------------------------------------------------------- maximisers
def maximiser(id_, f, value, dom, over=sp.Interval.open(0, 3)):
    c = Maximiser(id=id_, title=id_, ref=REF, objective=f, wrt=(x,), at={x: value}, over={x: over}, domain=dom)
    c.validate()
    return c


def test_a_maximiser_with_a_transcendental_gradient_is_certified():
    """Route A with the point's exact first-order condition: boxes around x = asinh(beta)
    are decided by f'' < 0 there, the rest by enclosures of f'."""
    c = maximiser("asinh-max", -(x - sp.asinh(b)) ** 2 * sp.exp(x), sp.asinh(b), {b: sp.Interval(sp.Rational(1, 2), 2)})
    res = verify(c)
    assert res.status == "certified"
    assert "exact zero curve" in res.evidence["certificate"]["detail"]


def test_a_local_maximiser_claimed_global_is_refuted():
    # the same local maximum, but exp(3 (x - 3)) lifts the far end above it
    c = maximiser("local-not-global", -(x - sp.asinh(b)) ** 2 * sp.exp(-x) + sp.exp(3 * (x - 3)), sp.asinh(b),
                  {b: sp.Interval(sp.Rational(1, 2), 2)})
    res = verify(c)
    assert res.status == "refuted" and res.counterexample["type"] == "a feasible point does better"


# ---------------------------------------------------------------- replay
def test_a_ball_certificate_replays_without_search():
    """The recorded decisions name the ball backend; a replay runs only it."""
    from verify_claims.engine.context import Trace
    c = ineq("small-beta-replay", MIN_H, ">", 0, {b: sp.Interval.Lopen(0, 1), r: sp.Interval.Ropen(sp.Rational(1, 2), 1)})
    first = verify(c)
    assert first.status == "certified" and "ball" in first.method
    again = verify(c, certificate={"status": "certified", "decisions": first.evidence["trace"]})
    assert again.status == "certified" and again.evidence["replay"]["result"] == "replayed"
    assert set(first.evidence["trace"].values()) >= {"ball"}
    assert Trace  # the record is the trace of the first run


def test_a_touching_certificate_records_its_curve_and_replays_it():
    c = ineq("log-tangent-replay", sp.log(x), "<=", x - 1, {x: sp.Interval.open(0, 4)}, certify_with="ball")
    first = verify(c)
    assert first.status == "certified"
    routes = [v for k, v in first.evidence["trace"].items() if k.startswith("ball route")]
    assert routes == ["touching x 0"]
    again = verify(c, certificate={"status": "certified", "decisions": first.evidence["trace"]})
    assert again.status == "certified" and again.evidence["replay"]["result"] == "replayed"
    # a certificate naming another curve does not replay: the claim is searched again, loudly
    forged = {k: ("touching x 3" if k.startswith("ball route") else v) for k, v in first.evidence["trace"].items()}
    bad = verify(c, certificate={"status": "certified", "decisions": forged})
    assert bad.status == "certified" and bad.evidence["replay"]["result"] == "failed"
    assert "CERTIFICATE DID NOT REPLAY" in bad.message


def test_the_interval_backend_still_answers_alone():
    # mpmath.iv with asinh by log(u + sqrt(u^2 + 1)): slower, same verdict
    dom = Domain({b: sp.Interval(2, sp.oo), r: sp.Interval.Lopen(0, sp.Rational(1, 2))})
    assert branch_and_bound(-MIN_H, "positive", dom, seconds=5, defined=True, encloser=IV).verdict == "holds"


# ---------------------------------------------------------------- the mean value form
def test_the_mean_value_form_decides_where_the_plain_enclosure_cannot():
    from verify_claims.backends.interval import _mean_value_form
    e = x ** 2 - x + sp.Rational(26, 100)  # (x - 1/2)^2 + 1/100, expanded: x^2 and x vary together
    bx = {x: (mpmath.mpf("0.45"), mpmath.mpf("0.55"))}
    plain = BALL.enclose(e, bx, strict=True)
    assert plain.a < 0  # the plain enclosure straddles 0
    assert _mean_value_form(e, "positive", bx, {x: sp.diff(e, x)}, BALL)
    # and never for a false goal: e - 1/50 is negative at x = 1/2
    assert not _mean_value_form(e - sp.Rational(1, 50), "positive", bx, {x: sp.diff(e, x)}, BALL)


# ---------------------------------------------------------------- the logistic coordinate
def test_appendix_b2_h_positive_where_its_minimum_is_for_every_beta():
    """beta over all of (0, oo): in x the touching curve x* -> 1 as beta -> oo defeats boxes;
    with x = 1/(1 + exp(-u)) the difference h - min h is convex in u (sympy) with a double
    zero at u = 2 asinh(beta)."""
    h = sp.log(r / (1 - r)) - sp.log(x / (1 - x)) + 1 / (b * sp.sqrt(x * (1 - x)))
    dom = Domain({x: sp.Interval.open(0, 1), b: POS, r: sp.Interval.open(0, 1)}, (MIN_H > 0,))
    dec = certification_backends()["ball"].decide(Goal(h, "positive", dom, "h > 0"), 20)
    assert dec.verdict == "holds" and "1/(1 + exp(-u_x))" in dec.detail and "convex" in dec.detail
    # a where relation that is too weak (min h > -1/10) does not make h positive: not certified
    weak = Domain(dict(dom.sets), (MIN_H > -sp.Rational(1, 10),))
    assert certification_backends()["ball"].decide(Goal(h, "positive", weak, "h > 0"), 3).verdict != "holds"


def test_a_double_root_with_another_root_is_not_unique():
    # (x - 1/2)^2 (x - 9/10) touches 0 at 1/2 and crosses it at 9/10: claimed unique at 1/2
    c = root("double-and-simple", sp.Eq((x - sp.Rational(1, 2)) ** 2 * (x - sp.Rational(9, 10)) * sp.exp(x), 0),
             sp.Rational(1, 2), {}, interval=sp.Interval.open(0, 1))
    assert certify(c, solved=True).verdict != "certified"
    assert verify(c).status == "refuted"
    # the double root alone is unique, by the touching route
    one = root("double-alone", sp.Eq((x - sp.Rational(1, 2)) ** 2 * sp.exp(x), 0), sp.Rational(1, 2), {},
               interval=sp.Interval.open(0, 1))
    assert certify(one, solved=True).verdict == "certified"


def test_a_root_whose_residual_is_not_monotone_is_unique_by_its_signs():
    """(x - 1)(2 + sin 5x): its derivative changes sign on both sides of 1, the residual does
    not: negative below, positive above (boxes away from 1, the curve's order 1 around it)."""
    c = root("signed-sides", sp.Eq((x - 1) * (2 + sp.sin(5 * x)), 0), 1, {}, interval=sp.Interval.open(0, 3))
    cert = certify(c, solved=True)
    assert cert.verdict == "certified"
    assert "residual negative below the value" in cert.detail and "residual positive above the value" in cert.detail
    # moved root: (x - 1)(2 + sin 5x) claimed to vanish only at 1 on an interval that also holds
    # a second root of a variant is refuted
    wrong = root("signed-sides-two-roots", sp.Eq((x - 1) * (sp.Rational(1, 2) + sp.sin(5 * x)), 0), 1, {},
                 interval=sp.Interval.open(0, 3))
    assert certify(wrong, solved=True).verdict != "certified"
    assert verify(wrong).status == "refuted"


# ---------------------------------------------------------------- probabilities compared by their logits
def test_probabilities_are_compared_by_their_logits():
    """A > B for A, B in (0, 1) is logit A > logit B: Appendix B.2's best response F(p) > p
    becomes h(p) > 0 (the where relation min h > 0 as its lower bound, the logistic coordinate)."""
    p = sp.Symbol("p_old")
    F = 1 / (1 + (1 - r) * sp.exp(-1 / (b * sp.sqrt(p * (1 - p)))) / r)
    dom = Domain({p: sp.Interval.open(0, 1), b: POS, r: sp.Interval.open(0, 1)}, (MIN_H > 0,))
    dec = certification_backends()["ball"].decide(Goal(F - p, "positive", dom, "F(p) > p"), 20)
    assert dec.verdict == "holds" and "logit A > logit B" in dec.detail
    # without the where relation F(p) < p somewhere (ref small): never certified, and refuted
    c = ineq("best-response-above-p-always", F, ">", p, {p: sp.Interval.open(0, 1), b: POS, r: sp.Interval.open(0, 1)},
             certify_with="ball")
    assert certify(c).verdict != "certified"
    assert verify(c).status == "refuted"


def test_a_sigmoid_shifted_by_a_millionth_is_ordered_and_the_reverse_is_refuted():
    s = lambda t: 1 / (1 + sp.exp(-t))  # noqa: E731
    dom = {x: sp.Interval(-50, 50)}
    assert certify(ineq("sigmoid-shift", s(x + sp.Rational(1, 10 ** 6)), ">", s(x), dom, certify_with="ball")).verdict \
        == "certified"
    wrong = ineq("sigmoid-shift-reversed", s(x), ">", s(x + sp.Rational(1, 10 ** 6)), dom, certify_with="ball")
    assert certify(wrong).verdict != "certified"
    assert verify(wrong).status == "refuted"


# ---------------------------------------------------------------- 0 log 0 = 0
def test_a_maximiser_whose_objective_fixes_0_log_0_is_certified_by_continuity():
    """Piecewise((0, Eq(x, 0)), (x log x, True)) is x log x inside [0, 1] and continuous at 0
    (sympy.limit): route A on the smooth branch.  With a wrong value at the end (1 instead of
    0) the objective jumps there: never certified."""
    g = b * x - (sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(x), True))
                 + sp.Piecewise((0, sp.Eq(x, 1)), ((1 - x) * sp.log(1 - x), True)))
    v = sp.exp(b) / (1 + sp.exp(b))
    ok = Maximiser(id="entropy-max", title="t", ref=REF, objective=g, wrt=(x,), at={x: v}, over={x: sp.Interval(0, 1)},
                   domain={b: sp.Interval(-2, 2)})
    ok.validate()
    res = verify(ok)
    assert res.status == "certified" and "continuous at x = 0" in res.evidence["certificate"]["detail"]
    jump = Maximiser(id="entropy-max-jump", title="t", ref=REF, wrt=(x,), at={x: v}, over={x: sp.Interval(0, 1)},
                     objective=g.xreplace({sp.Piecewise((0, sp.Eq(x, 0)), (x * sp.log(x), True)):
                                           sp.Piecewise((-1, sp.Eq(x, 0)), (x * sp.log(x), True))}),
                     domain={b: sp.Interval(-2, 2)})
    jump.validate()
    assert verify(jump).status != "certified"


# ---------------------------------------------------------------- found in review: false variants never certified
def test_a_piecewise_maximiser_whose_slope_is_not_zero_is_not_certified():
    """The prover's derivative of Piecewise((c, Eq(x, 1)), (g, True)) is 0 at 1 whatever g'(1)
    is: that must not become the zero slope of a curve.  g = x - x^2/(2k), k = 1 - 10^-20, is
    largest at k < 1, not at the claimed 1."""
    a = sp.Symbol("a")
    k = 1 - sp.Rational(1, 10 ** 20)
    g = x - x ** 2 / (2 * k)
    c = Maximiser(id="piecewise-nonzero-slope", title="t", ref=REF, objective=sp.Piecewise((g.subs(x, 1), sp.Eq(x, 1)),
                                                                                          (g, True)),
                  wrt=(x,), at={x: 1}, over={x: sp.Interval(0, 1)}, domain={a: sp.Interval(0, 1)})
    c.validate()
    assert verify(c).status != "certified"


@pytest.mark.parametrize("encloser", [IV, BALL], ids=["interval", "ball"])
def test_box_methods_round_the_domain_outward_and_key_exact_corners_by_the_discrete_values(encloser):
    # x >= c fails just above 1/10 when c is the double nearest 1/10 (which lies above it)
    c = sp.Rational(3602879701896397, 2 ** 55)
    dom = Domain({x: sp.Interval.open(sp.Rational(1, 10), 1)})
    assert branch_and_bound(x - c, "nonnegative", dom, seconds=3, defined=True, encloser=encloser).verdict != "holds"
    # exactly 0 at the corner x = 0 for n = 0, about -5e-61 there for n = 1
    n, t = sp.symbols("n t")
    e = x + sp.log(2) + sp.log(3) - sp.log(6) + n * (sp.exp(t) - 1 - t - t ** 2)
    e = e.xreplace({t: sp.Rational(1, 10 ** 30)})
    dom = Domain({x: sp.Interval(0, 1), n: sp.FiniteSet(0, 1)})
    assert branch_and_bound(e, "nonnegative", dom, seconds=3, defined=True, encloser=encloser).verdict != "holds"
