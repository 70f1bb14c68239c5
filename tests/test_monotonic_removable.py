"""Monotonic claims with 0 log 0 = 0 at a closed end (issue 10), and a derivative that
vanishes at an end for every parameter value (the box methods' order-1 zero curve there).

The Piecewise((0, Eq(t, 1)), (g, True)) of the potential claims is the smooth branch g inside
the interval, continuous at the end: shared with the maximiser kind (removable_at_ends,
_continuity_at_end), which now also accepts a branch that depends on the parameters only
through the argument w of its log (w -> 0+ at the end for every parameter value).

Negatives: a genuine jump at the end, a Piecewise inside the interval, and a derivative that
dips below 0 next to the end where it vanishes are never certified, and are refuted.
"""

from __future__ import annotations

import sympy as sp

from verify_claims import Monotonic, Ref
from verify_claims.engine.verify import certify, verify
from verify_claims.kinds.maximiser import _continuity_at_end, _Stop
from verify_claims.model.domain import Domain
from verify_claims.run.settings import Settings

t, z = sp.symbols("t z")
S = Settings(samples=40)
OPEN = sp.Interval.open(0, 1)
UNIT = sp.Interval(0, 1)
W = (1 - t) * (1 - z)
XLOGX = sp.Piecewise((0, sp.Eq(t, 1)), (W * sp.log(W), True))


def mono(id_, expr, **kw):
    m = Monotonic(id=id_, title="t", ref=Ref("3"), expr=expr, var=t, direction="increasing",
                  domain=kw.pop("domain", {t: UNIT, z: OPEN}), **kw)
    m.validate()
    return m


def test_continuity_through_the_argument_of_the_log():
    rec = _continuity_at_end(XLOGX, t, "-", Domain({t: UNIT, z: OPEN}))
    assert rec["method"] == "symbolic" and "-> 0+" in rec["detail"]
    # without the domain (the sign of w unknown) a parameter still stops it
    try:
        _continuity_at_end(XLOGX, t, "-")
        raise AssertionError("continuity with parameters accepted without a domain")
    except _Stop:
        pass
    # a jump at the end: the limit 0 is not the value -1
    jump = sp.Piecewise((-1, sp.Eq(t, 1)), (W * sp.log(W), True))
    try:
        _continuity_at_end(jump, t, "-", Domain({t: UNIT, z: OPEN}))
        raise AssertionError("a jump was taken as continuous")
    except _Stop:
        pass


def test_zero_log_zero_at_the_closed_end_is_certified():
    # (1 - t)(1 - z) log((1 - t)(1 - z)) + 2 t (1 - z): derivative (1 - z)(1 - log((1 - t)(1 - z))) > 0
    # (z up to 1/2: at z = 1 the derivative tends to 0, which boxes cannot decide)
    half = {t: UNIT, z: sp.Interval.Lopen(0, sp.Rational(1, 2))}
    res = certify(mono("xlogx-increasing", XLOGX + 2 * t * (1 - z), domain=half), S, 20)
    assert res.verdict == "certified", res.reason
    assert "continuous at t = 1" in res.detail


def test_a_jump_at_the_closed_end_is_not_certified_and_is_refuted():
    jump = sp.Piecewise((-1, sp.Eq(t, 1)), (W * sp.log(W), True)) + 2 * t * (1 - z)
    c = mono("xlogx-jump", jump)
    res = certify(c, S, 20)
    assert res.verdict != "certified" and "continuity" in res.reason
    out = verify(c, S)
    assert out.status == "refuted" and out.counterexample


def test_a_piecewise_inside_the_interval_is_still_declined():
    inner = sp.Piecewise((t, t < sp.Rational(1, 2)), (t - sp.Rational(1, 100), True)) + z
    c = mono("inner-jump", inner)
    assert "not smooth" in certify(c, S, 10).reason
    assert verify(c, S).status == "refuted"


def test_a_derivative_vanishing_at_the_end_is_decided_next_to_it_by_the_zero_curve():
    # (1 + z)(t - log(1 + t)): the derivative (1 + z) t/(1 + t) is 0 at t = 0 for every z
    c = mono("touching-at-zero", (1 + z) * (t - sp.log(1 + t)), certify_with="ball")
    res = certify(c, S, 20)
    assert res.verdict == "certified", res.reason
    assert "exact zero curve" in res.detail


def test_a_derivative_that_dips_below_zero_next_to_the_end_is_refuted():
    # minus z t/10: the derivative is -z/10 < 0 at t = 0, so f decreases first
    c = mono("dips-at-zero", (1 + z) * (t - sp.log(1 + t)) - z * t / 10, certify_with="ball")
    assert certify(c, S, 10).verdict != "certified"
    out = verify(c, S)
    assert out.status == "refuted" and out.counterexample


def test_a_branch_undefined_at_the_other_closed_end_is_not_certified():
    # (1 - t) log(1 - t) + 2 t + log t: increasing inside, continuous at t = 1 (value 2), but the
    # branch is also the function at t = 0, where log t is undefined
    f = sp.Piecewise((2, sp.Eq(t, 1)), ((1 - t) * sp.log(1 - t) + 2 * t + sp.log(t), True))
    res = certify(mono("branch-undefined-at-0", f, domain={t: UNIT}), S, 10)
    assert res.verdict != "certified" and "branch" in res.reason
    # on (0, 1] it is fine
    ok = certify(mono("branch-on-lopen", f, domain={t: sp.Interval.Lopen(0, 1)}), S, 10)
    assert ok.verdict == "certified", ok.reason
