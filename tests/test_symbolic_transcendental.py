"""The exp/log normal form of the exact zero test (backends/symbolic.py).

Each rewrite must prove true identities with log, exp, asinh and roots, and must NOT
prove a false near-variant: a sign flip, a missing factor, a log split over factors of
unknown sign, asinh of a different argument, log(exp(x)) = x for a complex x.
"""

import sympy as sp
from sympy import Interval, Rational, asinh, exp, log, sqrt

from verify_claims.backends import symbolic as S
from verify_claims.backends.symbolic import Facts, decide_sign_goal, zero_by
from verify_claims.engine.context import Trace
from verify_claims.engine.goals import Goal
from verify_claims.model.domain import Domain

beta = sp.Symbol("beta", positive=True)
x, y = sp.Symbol("x", real=True), sp.Symbol("y", positive=True)
a, b = sp.Symbol("a", real=True), sp.Symbol("b", real=True)
z = sp.Symbol("z", positive=True)
w = sp.Symbol("w")  # complex
s = sqrt(beta**2 + 1)

# b2-large-g-threshold-single-stationary: beta^3 + beta^2 s + beta + s = (beta + s)(beta^2 + 1)
ROOT_RESIDUAL = -log(beta + s) + log(beta**2 + 1) - log(beta**3 + beta**2 * s + beta + s) + 2 * asinh(beta)


def proved(expr, facts=S.NO_FACTS):
    S._SEARCHED.clear()  # every case searched afresh (no answer remembered from another test)
    return zero_by(expr, facts)[0]


def not_proved(expr, facts=S.NO_FACTS):
    return proved(expr, facts) is None


# ------------------------------------------------------------------ true identities
def test_threshold_root_residual_is_zero():
    assert proved(ROOT_RESIDUAL) in S._EXP_LOG_NAMES


def test_threshold_root_residual_as_the_claim_substitutes_it():
    # h(x*) at ref_c: the form the Root kind hands over (before any simplification)
    e = (-log((sqrt(1 - 1 / (beta**2 + 1)) / 2 + Rational(1, 2)) / (Rational(1, 2) - sqrt(1 - 1 / (beta**2 + 1)) / 2))
         + log(1 / ((1 - 1 / (exp(-2 * asinh(beta) + 2 * s / beta) + 1)) * (exp(-2 * asinh(beta) + 2 * s / beta) + 1)))
         + 1 / (beta * sqrt(Rational(1, 2) - sqrt(1 - 1 / (beta**2 + 1)) / 2)
                * sqrt(sqrt(1 - 1 / (beta**2 + 1)) / 2 + Rational(1, 2))))
    assert proved(e) in S._EXP_LOG_NAMES


def test_log_of_exp_times_positive():
    assert proved(log(exp(x) * y) - x - log(y))


def test_positive_factor_splits_off_any_real():
    # log(p q) = log p + log q for p > 0 whatever the sign of q: true, and proved
    assert proved(log(exp(x) * a) - x - log(a))


def test_exp_products_combine_for_complex_exponents():
    assert proved(exp(w) * exp(-w) - 1)
    assert proved(exp(w) * exp(2 * w) - exp(3 * w))


def test_logit_of_a_sigmoid():
    # log(ref/(1 - ref)) = u for ref = 1/(1 + e^-u), u real (the direct-KL stationary points)
    ref = 1 / (1 + exp(-x))
    assert proved(log(ref / (1 - ref)) - x)


def test_asinh_rewritten_as_log():
    assert proved(asinh(beta) - log(beta + sqrt(beta**2 + 1)))
    assert proved(asinh(x) - log(x + sqrt(x**2 + 1)))  # any real argument


def test_conjugate_pair_of_logs():
    # log(s - beta) + log(s + beta) = log(s^2 - beta^2) = 0: s - beta > 0 by squaring
    assert proved(log(s - beta) + log(s + beta))
    assert proved(sqrt(s - beta) * sqrt(s + beta) - 1)


def test_log_split_with_a_slack():
    # 1 - z > 0 only with the interval's end (z < 1) as a slack
    assert proved(log(z * (1 - z)) - log(z) - log(1 - z), Facts(positive=[1 - z]))
    assert proved(log(z * (1 - z)) - log(z) - log(1 - z), Facts(nonnegative=[Rational(99, 100) - z]))


def test_root_of_a_product_with_a_slack():
    # sqrt(1 - (2z - 1)^2) = 2 sqrt(z) sqrt(1 - z) (the derivative of asin(2z - 1))
    assert proved(sqrt(1 - (2 * z - 1)**2) - 2 * sqrt(z) * sqrt(1 - z), Facts(positive=[1 - z]))


# ------------------------------------------------------------------ false near-variants
def test_sign_flip_is_not_zero():
    assert not_proved(-log(beta + s) + log(beta**2 + 1) - log(beta**3 + beta**2 * s + beta + s) - 2 * asinh(beta))


def test_missing_factor_is_not_zero():
    assert not_proved(-log(beta + s) - log(beta**3 + beta**2 * s + beta + s) + 2 * asinh(beta))
    assert not_proved(log(exp(x) * y) - x)
    assert not_proved(log(exp(x) * y) - log(y))
    assert not_proved(log(beta**3 + beta**2 * s + beta + s) - log(beta + s) - log(beta**2 + 2))


def test_log_of_a_product_of_reals_of_unknown_sign_is_not_split():
    assert not_proved(log(a * b) - log(a) - log(b))
    assert not_proved(log(a**2) - 2 * log(a))  # 2 log(a) = log(a**2) + 2 i pi for a < 0
    assert not_proved(log(exp(w) * a) - w - log(a))
    assert not_proved(sqrt(a * b) - sqrt(a) * sqrt(b))
    assert not_proved((a * b)**Rational(1, 3) - a**Rational(1, 3) * b**Rational(1, 3))


def test_log_split_without_the_slack_is_not_done():
    # z > 0 only: for z > 1 both logs of negatives pick up i*pi and the identity fails
    assert not_proved(log(z / (1 - z)) - log(z) + log(1 - z))
    assert not_proved(log((1 - z)**2) - 2 * log(1 - z))
    assert not_proved(log((1 - z)**3 * (2 - z)) - 3 * log(1 - z) - log(2 - z), Facts(positive=[2 - z]))
    assert proved(log((1 - z)**2) - 2 * log(1 - z), Facts(positive=[1 - z]))
    # a non-strict end does not make 1 - z positive
    assert not Facts(nonnegative=[1 - z]).is_positive(1 - z)
    assert Facts(nonnegative=[Rational(99, 100) - z]).is_positive(1 - z)


def test_asinh_with_a_wrong_argument_is_not_zero():
    assert not_proved(asinh(2 * beta) - log(beta + sqrt(beta**2 + 1)))
    assert not_proved(asinh(beta) - log(beta + sqrt(beta**2 + 2)))
    assert not_proved(ROOT_RESIDUAL.subs(asinh(beta), asinh(beta + 1)))


def test_log_of_exp_of_a_complex_argument_is_not_simplified():
    assert not_proved(log(exp(w)) - w)
    assert not_proved(log(exp(w) * y) - w - log(y))
    assert not_proved(log(exp(x * w)) - x * w)
    assert not_proved(exp(w)**Rational(1, 2) - exp(w / 2))


def test_conjugate_false_variants():
    assert not_proved(log(sqrt(beta**2 + 2) - beta) + log(s + beta))
    assert not_proved(sqrt(s - beta) * sqrt(s + beta) - 2)


# ------------------------------------------------------------------ Facts
def test_facts_realness_needs_the_slack():
    assert not Facts().is_real(sqrt(1 - z))
    assert Facts(positive=[1 - z]).is_real(sqrt(1 - z))
    assert Facts(positive=[1 - z]).is_real(log(1 - z) / sqrt(z * (1 - z)))
    assert not Facts().is_real(log(w))
    assert not Facts().is_real(log(a))


def test_facts_positivity_by_squares():
    assert Facts().is_positive(sqrt(beta**2 + 1) - beta)
    assert not Facts().is_positive(beta - sqrt(beta**2 + 1))
    assert not Facts().is_positive(sqrt(beta**2 + 1) - 2 * beta)  # negative for beta > 1/sqrt(3)
    assert not Facts().is_positive(sqrt(beta**2 - 1) - beta)


def test_facts_exp_of_a_real_by_slack_is_positive():
    facts = Facts(positive=[1 - z])
    assert facts.is_positive(exp(sqrt(1 - z)))
    assert not Facts().is_positive(exp(sqrt(1 - z)))
    assert facts.is_positive(z + (1 - z) * exp(log(z) / sqrt(1 - z)))


# ------------------------------------------------------------------ goals and certificates
def test_zero_goal_uses_the_intervals_ends():
    e = log(z / (1 - z)) - log(z) + log(1 - z)
    S._SEARCHED.clear()
    assert decide_sign_goal(Goal(e, "zero", Domain({z: Interval.open(0, 1)}), "t"), 10.0)
    S._SEARCHED.clear()
    assert not decide_sign_goal(Goal(e, "zero", Domain({z: Interval.open(0, sp.oo)}), "t"), 10.0)


def test_new_strategies_keep_the_old_names_and_replay():
    # a committed certificate names its strategy: the old names must stay
    old = ("exact", "expand", "cancel", "together", "simplify", "radsimp+simplify")
    assert [n for n in S._CLASSIC_NAMES if n in old] == list(old)
    assert "exp-log+together" in S._EXP_LOG_NAMES and "exp-log+cancel" in S._EXP_LOG_NAMES
    assert all(n in S._STRATEGY_NAMES[len(S._CLASSIC_NAMES):] for n in S._EXP_LOG_NAMES)
    S._SEARCHED.clear()
    trace = Trace()
    how, _ = zero_by(ROOT_RESIDUAL, S.NO_FACTS, trace, at="value solves")
    assert how in S._EXP_LOG_NAMES
    assert set(trace.record.values()) == {how}
    # a replay runs only the recorded strategy, and proves it again
    S._SEARCHED.clear()
    replay = Trace(replay=trace.record)
    assert zero_by(ROOT_RESIDUAL, S.NO_FACTS, replay, at="value solves")[0] == how
    # a replay of a false variant at the same decision point name finds no record
    S._SEARCHED.clear()
    bad = ROOT_RESIDUAL + 1
    assert zero_by(bad, S.NO_FACTS, Trace(replay=trace.record), at="value solves")[0] is None


def test_nothing_under_a_binder_is_rewritten():
    # the facts are about the free x: the integration variable of the same name is another
    # quantity (2 - x < 0 on (2, 3)), so the normal form leaves the integral alone
    xp = sp.Symbol("x", positive=True)
    integral = sp.Integral(log((2 - xp)**2), (xp, 0, 3))
    assert S.exp_log_form(integral, Facts(positive=[2 - xp])) == integral


def test_logs_under_an_integral_are_not_split_by_the_domains_facts():
    """The x bound by the integral is not the domain's x: 2 - x > 0 says nothing about it, and
    log((2 - x)**2) = 2 log(2 - x) is false for x in (2, 3]."""
    import sympy as sp
    from verify_claims.backends.symbolic import FAST_STRATEGIES, Facts, zero_by
    x = sp.Symbol("x")
    e = sp.Integral(sp.log((2 - x) ** 2), (x, 0, 3)) - sp.Integral(2 * sp.log(2 - x), (x, 0, 3))
    facts = Facts(positive=(2 - x,))
    # the strategies that split logs by the facts (the exp/log normal forms) and the rational
    # ones; the cancel-based and slow ones spend their whole 4 s slices on an Integral here
    # and prove nothing either way
    quick = tuple(s for s in FAST_STRATEGIES if "cancel" not in s)
    assert any(s.startswith("exp-log") for s in quick)
    assert zero_by(e, facts, strategies=quick)[0] is None


# ------------------------------------------------------------------ monotone pairing
# KL(x || y) + KL(y || x) = sum_o (x(o) - y(o))(log x(o) - log y(o)) > 0 for x != y
# (nlhf-fixed-points-coincide-3): each term >= 0 because log increases; strict where some
# x(o) != y(o).  Wrong variants must not be certified and must be refuted by the numbers.
_X1, _X2, _Y1, _Y2 = sp.symbols("x1 x2 y1 y2")
_OPEN = Interval.open(0, 1)
_SIMPLEX = (_X1 + _X2 < 1, _Y1 + _Y2 < 1)
_DISTINCT = ((_X1 - _Y1) ** 2 + (_X2 - _Y2) ** 2 > 0,)


def _kl(p, q):
    return sum(pi * log(pi / qi) for pi, qi in zip(p, q))


_XV = (_X1, _X2, 1 - _X1 - _X2)
_YV = (_Y1, _Y2, 1 - _Y1 - _Y2)
JEFFREYS = _kl(_XV, _YV) + _kl(_YV, _XV)


def _pairing(expr, want, where):
    S._SEARCHED.clear()
    dom = Domain({s_: _OPEN for s_ in (_X1, _X2, _Y1, _Y2)}, where)
    rep = dom.assumption_symbols()
    facts = Facts.from_relations(S.with_ends(dom), rep)
    return S._monotone_pairing(sp.sympify(expr).xreplace(rep), want, facts, rep, dom, 2.0)


def test_symmetrised_kl_is_positive_for_distinct_policies():
    got = _pairing(JEFFREYS, "positive", _SIMPLEX + _DISTINCT)
    assert got and "3 terms" in got and "z3" in got
    dom = Domain({s_: _OPEN for s_ in (_X1, _X2, _Y1, _Y2)}, _SIMPLEX + _DISTINCT)
    assert decide_sign_goal(Goal(JEFFREYS, "positive", dom, "jeffreys"), 5.0)


def test_symmetrised_kl_is_only_nonnegative_where_the_policies_may_coincide():
    assert _pairing(JEFFREYS, "nonnegative", _SIMPLEX)
    assert _pairing(JEFFREYS, "positive", _SIMPLEX) is None   # x = y is in the domain: 0 there


def test_wrong_pairings_are_not_certified():
    assert _pairing(-JEFFREYS, "positive", _SIMPLEX + _DISTINCT) is None            # sign flipped
    assert _pairing(_kl(_XV, _YV) - _kl(_YV, _XV), "positive", _SIMPLEX + _DISTINCT) is None  # not symmetric
    assert _pairing(JEFFREYS - _X1 * log(_X1 / _Y1), "nonnegative", _SIMPLEX) is None  # a term missing
    # a coefficient that is not (A - B) times a non-negative factor: (x1 - 2 y1)(log x1 - log y1)
    assert _pairing((_X1 - 2 * _Y1) * (log(_X1) - log(_Y1)), "nonnegative", ()) is None
    # a base that may be negative: the product rule, and the log itself, fail there
    dom = Domain({a: Interval(-1, 1), b: Interval(-1, 1)}, ())
    rep = dom.assumption_symbols()
    e = ((a - b) * (log(a) - log(b))).xreplace(rep)
    assert S._monotone_pairing(e, "nonnegative", Facts.from_relations(S.with_ends(dom), rep), rep, dom, 2.0) is None


def test_wrong_pairings_are_refuted_with_a_counterexample():
    from verify_claims import Inequality, Ref
    from verify_claims.engine.verify import verify
    from verify_claims.run.settings import Settings

    dom = {s_: _OPEN for s_ in (_X1, _X2, _Y1, _Y2)}
    for i, lhs in enumerate((-JEFFREYS, _kl(_XV, _YV) - _kl(_YV, _XV))):
        c = Inequality(id=f"wrong-jeffreys-{i}", title="t", ref=Ref("1.1"), lhs=lhs, op=">", rhs=0,
                       domain=dom, where=_SIMPLEX + _DISTINCT)
        res = verify(c, Settings(seed=0, samples=40))
        assert res.status == "refuted" and res.counterexample
    right = Inequality(id="jeffreys", title="t", ref=Ref("1.1"), lhs=JEFFREYS, op=">", rhs=0, domain=dom,
                       where=_SIMPLEX + _DISTINCT)
    res = verify(right, Settings(seed=0, samples=40))
    assert res.status == "certified" and "log is strictly increasing" in res.evidence["certificate"]["detail"]


# ------------------------------------------------------------------ identities with the intervals' ends
# log((x - 1)/(r - 1)) = log(1 - x) - log(1 - r) needs x < 1 and r < 1: facts the Identity
# kind's second try takes from the intervals (b2-large-g-derivative and its kin)
_x, _r = sp.Symbol("x"), sp.Symbol("r")


def _identity(lhs, rhs, xset):
    from verify_claims import Identity, Ref
    from verify_claims.engine.verify import verify
    from verify_claims.run.settings import Settings

    c = Identity(id="logit-split", title="t", ref=Ref("3"), lhs=lhs, rhs=rhs,
                 domain={_x: xset, _r: Interval.open(0, 1)})
    return verify(c, Settings(seed=0, samples=40))


def test_log_of_a_quotient_of_negatives_splits_with_the_ends():
    res = _identity(log((_x - 1) / (_r - 1)), log(1 - _x) - log(1 - _r), Interval.open(0, 1))
    assert res.status == "proved" and "intervals' ends" in res.method


def test_log_split_with_the_ends_wrong_variants():
    # a sign flipped: refuted with a counterexample, never proved
    res = _identity(log((_x - 1) / (_r - 1)), log(1 - _x) + log(1 - _r), Interval.open(0, 1))
    assert res.status == "refuted" and res.counterexample
    # the wrong domain: for x in (1, 2) the left side is log of a negative number (not real),
    # and nothing may be split on the ends of (0, 2)
    res = _identity(log((_x - 1) / (_r - 1)), log(1 - _x) - log(1 - _r), Interval.open(0, 2))
    assert res.status != "proved" and res.status == "refuted"


def test_chain_multiplier_nonzero_from_the_ends_and_not_beyond():
    # Eq((x - c)(2 - x), 0) <=> Eq(x, c): multiplied by 1/(2 - x), non-zero on (0, 1) only
    # knowing x < 1 (an interval end); on (0, 3) it has a pole at x = 2, where the first
    # equation holds and the second does not
    from verify_claims import Chain, Ref, Step
    from verify_claims.engine.verify import verify
    from verify_claims.run.settings import Settings

    c_ = sp.Symbol("c")
    steps = [sp.Eq((_x - c_) * (2 - _x), 0), Step(sp.Eq(_x, c_), relation="equivalent", multiply_by=1 / (2 - _x))]
    ok = Chain(id="mult-ends", title="t", ref=Ref("2"), steps=steps,
               domain={_x: Interval.open(0, 1), c_: Interval.open(0, 1)})
    res = verify(ok, Settings(seed=0, samples=40))
    assert res.status == "certified", (res.status, res.evidence["symbolic"])
    wide = Chain(id="mult-wide", title="t", ref=Ref("2"), steps=steps,
                 domain={_x: Interval.open(0, 3), c_: Interval.open(0, 1)})
    res = verify(wide, Settings(seed=0, samples=40))
    assert res.status == "refuted" and res.counterexample


# ------------------------------------------------------------------ slacks as factors
def test_a_slack_that_cannot_be_a_factor_is_not_cancelled(monkeypatch):
    """Facts tries each slack k of a `where` relation as a factor (e = k q with q > 0);
    cancel(e/k) is only worth its time when k can divide e's numerator.  A point where
    k = 0 and e is a finite non-zero number shows it cannot: cancel() is skipped there, and
    still run (and still proves) where k is a factor."""
    p, q = sp.symbols("p q", positive=True)
    slack = 1 - p - q
    facts = Facts(positive=[slack])
    calls = []
    real = sp.cancel
    monkeypatch.setattr(S.sp, "cancel", lambda e, *a, **k: calls.append(e) or real(e, *a, **k))
    # a factor: proved through cancel, rational and with exp in the cofactor
    assert facts.is_positive(sp.expand(slack * p * (1 + q))) and calls
    calls.clear()
    assert facts.is_positive(slack * exp(p) * q + slack * q) and len(calls) >= 1
    # not a factor (non-zero at p = 1 - q, or a pole there over a numerator that is not 0):
    # no cancel, and the answer it would have given
    for e in (p * q - p ** 2 + 3 * q, exp(p) * q - p * exp(q), log(p) + q - p ** 3, p / slack - q):
        calls.clear()
        assert not Facts(positive=[slack]).is_positive(e)
        assert not any(slack in c.free_symbols or (c.free_symbols >= {p, q} and c.has(slack)) for c in calls), e
        assert real(e / slack).is_positive is not True  # what cancel would have said
    # undecidable by the point (k linear in no symbol; k a factor of the numerator over a
    # common denominator): cancel decides, as before
    for k, e in ((1 - p ** 2 - q ** 2, (1 - p ** 2 - q ** 2) * p), (slack, slack * p / (1 - p) + slack / q)):
        f = Facts(positive=[k])
        assert not f._not_a_factor(e, k)


def test_the_zero_point_lies_on_the_slack():
    p, q, r = sp.symbols("p q r", positive=True)
    f = Facts()
    for k in (1 - p - q, 2 * p - 3 * q * r + 1, 1 - p * q ** 2 - q, q + 1 - p * r ** 2 - 2 * p):
        pt = f._zero_point(k, {p, q, r})
        assert pt is not None and k.xreplace(pt) == 0 and set(pt) == {p, q, r}, (k, pt)
    # linear in no symbol outside exp, or only with a coefficient that is not rational there
    assert f._zero_point(p * exp(p) - q ** 2, {p, q}) is None and f._zero_point(p * exp(q) - 1, {p, q}) is None
    # only points the symbols' assumptions allow (p, q > 0): where k = 0 needs a negative one, none
    assert f._zero_point(p + 2 * q + 1, {p, q}) is None
    assert S._certainly_nonzero(exp(Rational(1, 3)) - 1) and not S._certainly_nonzero(exp(log(2)) - 2)
    assert not S._certainly_nonzero(sp.zoo) and not S._certainly_nonzero(sp.I + 1)


# ------------------------------------------------------------------ the order of trying
def _spy_stages(monkeypatch):
    """Record which stage of _zero_by runs, with which strategies."""
    ran = []
    classic, exp_log = S._zero_by_classic, S._zero_by_exp_log

    def spy_classic(expr, facts, options, seconds, prepared):
        ran.append(("classic", tuple(options)))
        return classic(expr, facts, options, seconds, prepared)

    def spy_exp_log(expr, facts, options, seconds, prepared):
        ran.append(("exp-log", tuple(options)))
        return exp_log(expr, facts, options, seconds, prepared)
    monkeypatch.setattr(S, "_zero_by_classic", spy_classic)
    monkeypatch.setattr(S, "_zero_by_exp_log", spy_exp_log)
    return ran


def test_the_exp_log_zero_test_comes_before_cancel_and_simplify(monkeypatch):
    # a transcendental identity the exp/log form decides: cancel, together and simplify are
    # never reached (on the bundled paper cancel spent a whole 4 s slice failing first)
    ran = _spy_stages(monkeypatch)
    assert proved(ROOT_RESIDUAL) == "exp-log+rational"
    assert ran == [("classic", ("exact", "rational", "expand")), ("exp-log", ("exp-log+rational",))]


def test_simplify_is_the_last_resort_and_still_proves(monkeypatch):
    # sin^2 + cos^2 - 1: no rational form, no log or exp; only simplify shows it is 0
    ran = _spy_stages(monkeypatch)
    assert proved(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) == "simplify"
    assert ran[-1] == ("classic", S._SLOW_NAMES)
    assert [r for r in ran if r[0] == "exp-log"] == []  # no log or exp: that form is skipped
    # its wrong variant (a sign flip) is not proved by any stage
    assert not_proved(sp.sin(x) ** 2 - sp.cos(x) ** 2 - 1)


def _cancel_runs_out(monkeypatch):
    """cancel burns more CPU than a (shortened) strategy slice: it runs out of it.  The slice
    stays well above what a cold simplify of _TRIG_ZERO costs (0.16 s of CPU here, more on a
    busy machine), which the tests replay under it."""
    import time as _time

    def burn(e):
        t = _time.process_time()
        while _time.process_time() - t < 3.0:
            pass
        return e
    plain = S._strategies
    monkeypatch.setattr(S, "_strategies", lambda: [(n, burn if n == "cancel" else f) for n, f in plain()])
    monkeypatch.setattr(S, "STRATEGY_SECONDS", 0.6)


_TRIG_ZERO = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1  # 0, shown by simplify alone


def test_a_strategy_out_of_its_slice_skips_the_slower_ones(monkeypatch):
    # a classic strategy that runs out of its slice: the heavier classic ones (simplify)
    # would only run out too, and are not tried; the other stages still are
    _cancel_runs_out(monkeypatch)
    ran = _spy_stages(monkeypatch)
    S._SEARCHED.clear()
    assert zero_by(_TRIG_ZERO)[0] is None
    assert ("classic", S._SLOW_NAMES) not in ran
    ran.clear()
    S._SEARCHED.clear()
    e = log(2 * y) - log(y) - log(2) + _TRIG_ZERO  # with a log: the exp/log stages follow cancel
    assert zero_by(e)[0] is None
    stages = [r[0] for r in ran]
    assert ("classic", S._SLOW_NAMES) not in ran and stages.index("exp-log", stages.index("classic", 1)) > 0
    # zero_by_then_ends does not try simplify on its own either
    ran.clear()
    S._SEARCHED.clear()
    dom = Domain({x: Interval.open(0, 1)})
    assert S.zero_by_then_ends(_TRIG_ZERO, S.NO_FACTS, dom, {}, None, at="t")[0] is None
    assert ("classic", S._SLOW_NAMES) not in ran


def test_a_timed_out_search_does_not_stop_another_claims_replay(monkeypatch):
    # workers are reused across claims: a search that ran out of its slices on an
    # expression must not keep a later replay of the same expression from running its
    # recorded simplify (the answer belongs to that search, not to the expression)
    dom = Domain({x: Interval.open(0, 1)})
    rep = dom.assumption_symbols()
    e = _TRIG_ZERO.xreplace(rep)
    S._SEARCHED.clear()
    trace = Trace()
    assert S.zero_by_then_ends(e, S.NO_FACTS, dom, rep, trace, at="lhs - rhs")[0] == "simplify"
    _cancel_runs_out(monkeypatch)
    S._SEARCHED.clear()
    assert S.zero_by_then_ends(e, S.NO_FACTS, dom, rep, Trace(), at="lhs - rhs")[0] is None  # ran out
    assert S.zero_by_then_ends(e, S.NO_FACTS, dom, rep, Trace(replay=trace.record), at="lhs - rhs")[0] == "simplify"


def test_the_same_search_with_other_facts_gives_the_same_answer(monkeypatch):
    # without logs, exponentials or nested roots the facts change nothing: a search with
    # other facts reuses the first one's answer, and whether its slices ran out with it
    # (the result must not depend on which of the two a worker met first)
    _cancel_runs_out(monkeypatch)
    ran = _spy_stages(monkeypatch)
    dom = Domain({x: Interval.open(0, 1)})
    other = Facts(positive=[1 - x])
    for first, second in ((S.NO_FACTS, other), (other, S.NO_FACTS)):
        S._SEARCHED.clear()
        ran.clear()
        assert S.zero_by_then_ends(_TRIG_ZERO, first, dom, {}, None, at="t")[0] is None
        assert S.zero_by_then_ends(_TRIG_ZERO, second, dom, {}, None, at="t")[0] is None
        assert ("classic", S._SLOW_NAMES) not in ran


def test_the_ends_come_before_simplify(monkeypatch):
    # zero_by_then_ends: the tries with the intervals' ends before simplify without them
    calls = []
    plain = S._zero_search

    def spy(expr, facts, trace, at, strategies):
        calls.append((at, S._STRATEGY_NAMES if strategies is None else tuple(strategies)))
        return plain(expr, facts, trace, at, strategies)
    monkeypatch.setattr(S, "_zero_search", spy)
    S._SEARCHED.clear()
    dom = Domain({_x: Interval.open(0, 1), _r: Interval.open(0, 1)})
    rep, facts = dom.assumption_symbols(), S.NO_FACTS
    e = (log((_x - 1) / (_r - 1)) - log(1 - _x) + log(1 - _r)).xreplace(rep)
    how, _ = S.zero_by_then_ends(e, facts, dom, rep, None, at="t")
    assert how and "intervals' ends" in how
    assert [c[0] for c in calls] == ["t", "t, with the ends"]
    assert not set(S._SLOW_NAMES) & set(calls[0][1])
    # a wrong variant: every try fails, simplify last of all, nothing proved
    calls.clear()
    S._SEARCHED.clear()
    bad = (log((_x - 1) / (_r - 1)) - log(1 - _x) - log(1 - _r)).xreplace(rep)
    assert S.zero_by_then_ends(bad, facts, dom, rep, None, at="t")[0] is None
    assert [c[0] for c in calls] == ["t", "t, with the ends", "t"] and calls[-1][1] == S._SLOW_NAMES


def test_a_simplify_certificate_replays_through_the_passes():
    # a certificate whose winner is simplify (recorded at the decision point without the
    # ends) replays: the first passes find no recorded choice, the last runs simplify only
    dom = Domain({x: Interval.open(0, 1)})
    rep = dom.assumption_symbols()
    e = (sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1).xreplace(rep)
    S._SEARCHED.clear()
    trace = Trace()
    assert S.zero_by_then_ends(e, S.NO_FACTS, dom, rep, trace, at="lhs - rhs")[0] == "simplify"
    assert list(trace.record.values()) == ["simplify"]
    S._SEARCHED.clear()
    assert S.zero_by_then_ends(e, S.NO_FACTS, dom, rep, Trace(replay=trace.record), at="lhs - rhs")[0] == "simplify"
    S._SEARCHED.clear()
    # an edited expression (a term added) finds no recorded choice at its decision point
    # (the point's name digests the expression): nothing is tried, nothing proved
    wrong = e + sp.sin(x)
    assert S.zero_by_then_ends(wrong, S.NO_FACTS, dom, rep, Trace(replay=trace.record), at="lhs - rhs")[0] is None
    # and simplify itself does not prove it: a search finds no strategy either
    S._SEARCHED.clear()
    assert S.zero_by_then_ends(wrong, S.NO_FACTS, dom, rep, Trace(), at="lhs - rhs")[0] is None


def test_split_logs_then_rational_does_not_size_the_expression(monkeypatch):
    # (y + 1) log(2 y) - (y + 1) log y - (y + 1) log 2 is 0 once the logs are split: the
    # exact test decides, and count_ops (as costly as that test on a large expression) is
    # never asked; a search that goes on to the other strategies still sizes it
    asked = []
    plain = S.count_ops
    monkeypatch.setattr(S, "count_ops", lambda e: asked.append(e) or plain(e))
    S._SEARCHED.clear()
    e = (y + 1) * log(2 * y) - y * log(y) - log(y) - (y + 1) * log(2)
    assert zero_by(e, strategies=("rational",))[0] == "split logs+rational"
    assert asked == []
    S._SEARCHED.clear()
    assert zero_by(e + log(2), strategies=("rational", "expand"))[0] is None  # a missing term
    assert asked


def _spy_radsimp(monkeypatch):
    """Record the expressions radsimp+simplify is asked about."""
    asked = []
    plain = S._strategies
    monkeypatch.setattr(S, "_strategies", lambda: [
        (n, (lambda e, f=f: asked.append(e) or f(e)) if n == "radsimp+simplify" else f) for n, f in plain()])
    return asked


def test_radsimp_simplify_is_not_simplify_again(monkeypatch):
    # simplify failed on an expression radsimp and expand_log leave as it is: radsimp+simplify
    # would be the same simplify call again, and is not made
    asked = _spy_radsimp(monkeypatch)
    S._SEARCHED.clear()
    wrong = sp.sin(x) ** 2 - sp.cos(x) ** 2 - 1  # a sign flip of sin^2 + cos^2 = 1
    assert zero_by(wrong, strategies=("simplify", "radsimp+simplify"))[0] is None
    assert asked == []
    # a root in a denominator is rationalised: then it is another question, and asked
    S._SEARCHED.clear()
    assert zero_by(1 / (1 + sqrt(y)) + wrong, strategies=("simplify", "radsimp+simplify"))[0] is None
    assert len(asked) == 1
    # a replay of radsimp+simplify alone (simplify did not run in this search) runs it
    S._SEARCHED.clear()
    assert zero_by(wrong, strategies=("radsimp+simplify",))[0] is None
    assert len(asked) == 2
