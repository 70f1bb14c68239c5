"""Shrunk counterexamples (``backends.shrink``): a refuted claim reports the simplest point
of its domain that still fails, re-checked here independently (sympy / mpmath), with the
raw point kept under "raw".

The measure of simplicity (documented in ``backends.shrink``): a value p/q in lowest terms
has complexity digits(|p|) + digits(q) (when q > 1) + 1 (when negative); values are ordered
by (complexity, denominator, magnitude, sign).  The shrunk point must have no larger total
complexity than the raw one (or the same, when the raw point was one of the sampler's simple
points already), every coordinate at least as simple as the raw one's and one simpler.
"""

from __future__ import annotations

import json

import mpmath
import pytest
import sympy as sp

from verify_claims import Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Root, Stationary, Step
from verify_claims.backends.shrink import candidates, complexity, point_complexity, show, simpler
from verify_claims.engine.verify import verify
from verify_claims.model.result import Result, counterexample_lines
from verify_claims.run.settings import Settings

x, y, a, p, q, n = sp.symbols("x y a p q n")
R = sp.Interval(-sp.oo, sp.oo)
OPEN_UNIT = sp.Interval.open(0, 1)
SETTINGS = Settings(samples=100, precision=30)


def meta(id_):
    return dict(id=id_, title=f"shrink {id_}", ref="1")


def refute(claim, settings=SETTINGS) -> dict:
    claim.validate()
    res = verify(claim, settings)
    assert res.status == "refuted", (res.status, res.message, res.counterexample)
    return res.counterexample


def value(text):
    """A shown value back as an exact rational (shrunk values are exact: 2, 1.5, 1/3)."""
    return sp.Rational(str(text))


def exact_point(cx, syms):
    return {s: value(cx["point"][str(s)]) for s in syms}


def assert_simpler(cx, syms):
    """The shrunk point is simpler than the raw one by the documented measure."""
    assert "raw" in cx and cx["raw"]["type"] == cx["type"], cx
    shrunk = [value(cx["point"][str(s)]) for s in syms]
    raw = [mpmath.mpf(cx["raw"]["point"][str(s)]) for s in syms]
    assert point_complexity(shrunk) <= point_complexity(raw), (shrunk, raw)
    for s_, r in zip(shrunk, raw):
        assert not simpler(r, s_), (s_, r)  # no coordinate got less simple
    assert any(simpler(s_, r) for s_, r in zip(shrunk, raw))  # and one got simpler
    assert cx["shrunk"] and cx["confirmed"]


# ------------------------------------------------------------------ the measure itself
def test_complexity_and_order():
    assert [complexity(v) for v in (0, 7, 10, sp.Rational(1, 2), sp.Rational(1, 10), sp.Rational(-1, 4))] == \
        [1, 1, 2, 2, 3, 3]
    assert complexity(mpmath.mpf("0.1")) > 30  # a double's binary rational is not 1/10
    assert simpler(sp.Rational(1, 2), sp.Rational(1, 5)) and simpler(2, 7) and simpler(3, -3)
    assert [show(v) for v in (sp.Integer(3), sp.Rational(3, 2), sp.Rational(1, 1000), sp.Rational(-1, 3))] == \
        ["3", "1.5", "0.001", "-1/3"]


def test_candidates_respect_the_declared_set():
    c = candidates(OPEN_UNIT, mpmath.mpf("0.637"))
    assert c and all(0 < v < 1 for v in c)               # open ends are never candidates
    assert sp.Rational(1, 2) == c[0]
    assert candidates(sp.Interval(0, 1), mpmath.mpf("0.637"))[0] == 0  # a closed end is
    assert all(v in (1, 3, 5, 7, 9) for v in candidates(sp.Range(1, 10, 2), 9))
    assert candidates(sp.FiniteSet(2, 3, 4), 4) == [2, 3]
    assert candidates(R, 0) == []                          # nothing is simpler than 0
    # the raw value's roundings are candidates too: 5.73609 -> 6, 5.7
    c = candidates(sp.Interval(5.5, 5.9), mpmath.mpf("5.73609"))
    assert sp.Rational(57, 10) in c


# ------------------------------------------------------------------ one false claim per kind
def test_identity_sign_flip():
    cx = refute(Identity(**meta("flip"), lhs=x - y, rhs=y - x, domain={x: R, y: R}))
    assert_simpler(cx, (x, y))
    pt = exact_point(cx, (x, y))
    assert ((x - y) - (y - x)).xreplace(pt) != 0          # independently: still a counterexample
    assert cx["confirmed"] == "exactly (rational arithmetic)"
    assert point_complexity(pt.values()) <= 2              # e.g. x = 1, y = 0


def test_inequality_wrong_constant():
    # x^2 + 1 >= 3x is false on ((3 - sqrt 5)/2, (3 + sqrt 5)/2), about (0.38, 2.62)
    cx = refute(Inequality(**meta("const"), lhs=x ** 2 + 1, op=">=", rhs=3 * x, domain={x: sp.Interval.open(0, sp.oo)}))
    assert_simpler(cx, (x,))
    pt = exact_point(cx, (x,))
    assert pt[x] == 1 and not (pt[x] ** 2 + 1 >= 3 * pt[x])
    assert cx["confirmed"] == "exactly (rational arithmetic)"


def test_wrong_root():
    cx = refute(Root(**meta("root"), equation=x ** 2 - a, var=x, value=a / 2, interval=sp.Interval(0, sp.oo),
                     domain={a: sp.Interval.open(0, 10)}))
    assert cx["type"] == "not a root"
    assert_simpler(cx, (a,))
    av = exact_point(cx, (a,))[a]
    assert (av / 2) ** 2 - av != 0 and av == 1


def test_monotonicity_reversed():
    cx = refute(Monotonic(**meta("mono"), expr=x ** 2, var=x, direction="decreasing", domain={x: sp.Interval(0, 5)}))
    assert cx["type"] == "not decreasing"
    first, second = value(cx["x (first)"]), value(cx["x (second)"])
    assert first == value(cx["point"]["x"]) and 0 <= first < second <= 5
    assert second ** 2 > first ** 2                        # f increases: not decreasing
    raw = [mpmath.mpf(cx["raw"]["x (first)"]), mpmath.mpf(cx["raw"]["x (second)"])]
    assert point_complexity([first, second]) < point_complexity(raw)
    assert (first, second) == (0, 1)


def test_chain_step():
    cx = refute(Chain(**meta("chain"), steps=[Step((x + 1) ** 2), Step(x ** 2 + 2 * x + 1), Step(x ** 2 + x + 1)],
                      domain={x: R}))
    assert cx["failing step"] == 3 and cx["raw"]["failing step"] == 3
    assert_simpler(cx, (x,))
    xv = exact_point(cx, (x,))[x]
    assert xv ** 2 + xv + 1 != xv ** 2 + 2 * xv + 1 and xv == 1


def test_stationarity():
    cx = refute(Stationary(**meta("stat"), objective=-(x - a) ** 2, wrt=[x], at={x: a + 1},
                           domain={a: sp.Interval(-3, 3)}))
    assert cx["type"] == "gradient does not vanish"
    assert_simpler(cx, (a,))
    assert exact_point(cx, (a,))[a] == 0


def test_maximiser_rival_shrinks_inside_the_feasible_set():
    cx = refute(Maximiser(**meta("max"), objective=-(x - a) ** 2, wrt=[x], at={x: a / 2}, over={x: sp.Interval(0, 1)},
                          domain={a: sp.Interval.open(0, 1)}))
    assert cx["type"] == "a feasible point does better"
    av, better = value(cx["point"]["a"]), value(cx["better"]["x"])
    assert 0 < av < 1 and 0 <= better <= 1
    assert -(better - av) ** 2 > -(av / 2 - av) ** 2      # the rival does better, exactly
    assert av == sp.Rational(1, 2) and better == sp.Rational(1, 2)


def test_limit_parameters_shrink_inside_their_interval():
    cx = refute(Limit(**meta("lim"), expr=sp.sin(a * x) / x, var=x, point=0, value=1,
                      domain={a: sp.Interval(0, 5)}))
    assert cx["type"] == "limit differs"
    av = value(cx["point"]["a"])
    assert 0 < av < 5 and av != 1 and av == 2             # the limit is a: 1 would hold; ends excluded
    assert "approach ladder" in cx["confirmed"]


# ------------------------------------------------------------------ the domain is respected
def test_open_ends_and_where_relation():
    # p q <= 1/20 is false at p = q = 0.3; p, q in (0, 1) with p + q < 1
    cx = refute(Inequality(**meta("where"), lhs=p * q, op="<=", rhs=sp.Rational(1, 20),
                           domain={p: OPEN_UNIT, q: OPEN_UNIT}, where=(p + q < 1,)))
    assert_simpler(cx, (p, q))
    pt = exact_point(cx, (p, q))
    assert 0 < pt[p] < 1 and 0 < pt[q] < 1 and pt[p] + pt[q] < 1
    assert pt[p] * pt[q] > sp.Rational(1, 20)


def test_integer_range_with_a_step():
    # 2^n >= n^3 fails for n = 2..9; over odd n the simplest failure is 3, not 2
    cx = refute(Inequality(**meta("range"), lhs=2 ** n, op=">=", rhs=n ** 3, domain={n: sp.Range(1, 100, 2)}))
    nv = value(cx["point"]["n"])
    assert nv == 3 and 2 ** nv < nv ** 3
    if "raw" in cx:  # (the sample may have found 3 itself)
        assert int(mpmath.mpf(cx["raw"]["point"]["n"])) % 2 == 1


def test_false_only_at_non_simple_points_keeps_the_raw_point():
    # false only within 1e-4 of pi: no simple number of [3.1414, 3.1418] (its ends, the
    # raw value's roundings) fails, so the raw counterexample is what is reported
    claim = Inequality(**meta("pi"), lhs=(x - sp.pi) ** 2, op=">=", rhs=sp.Rational(1, 10 ** 8),
                       domain={x: sp.Interval(sp.Rational(31414, 10000), sp.Rational(31418, 10000))})
    cx = refute(claim)
    assert "raw" not in cx and cx["shrunk"].startswith("no simpler point")
    xv = mpmath.mpf(cx["point"]["x"])
    with mpmath.workdps(50):
        assert (xv - mpmath.pi) ** 2 < mpmath.mpf(10) ** -8  # still a genuine counterexample


# ------------------------------------------------------------------ determinism and output
def test_same_seed_same_shrunk_point():
    def cx(seed):
        return refute(Identity(**meta("det"), lhs=sp.exp(x) * y, rhs=y + x * y, domain={x: R, y: R}),
                      Settings(seed=seed, samples=30))
    one, two = cx(5), cx(5)
    assert one == two
    assert json.dumps(cx(6)["raw"], sort_keys=True) != json.dumps(one["raw"], sort_keys=True)


def test_raw_point_in_json_and_console_prints_shrunk_first():
    claim = Identity(**meta("json"), lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain={x: R, y: R})
    claim.validate()
    res = verify(claim, SETTINGS)
    data = json.loads(json.dumps(res.to_json(), default=str))
    cx = data["counterexample"]
    assert set(cx["raw"]) >= {"type", "point", "lhs", "rhs", "difference"}
    assert cx["raw"]["point"] != cx["point"]
    assert Result.from_json(data).counterexample == cx
    lines = counterexample_lines(cx)
    shrunk_at = next(i for i, line in enumerate(lines) if line.startswith("  at x = 1, y = 1"))
    raw_at = next(i for i, line in enumerate(lines) if "raw counterexample" in line)
    assert shrunk_at < raw_at
    assert f"x = {cx['raw']['point']['x']}" in "\n".join(lines[raw_at:])


def test_a_shrink_step_that_no_longer_fails_is_not_taken(monkeypatch):
    """The search accepts only points the kind confirms: with a check that never confirms,
    nothing is shrunk and the raw point stays."""
    from verify_claims.kinds import KINDS
    ident = KINDS["identity"]
    orig = ident.shrink_target

    def never(claim, settings, cx, outcome):
        t = orig(claim, settings, cx, outcome)
        t.check = lambda pt: None
        return t
    monkeypatch.setattr(ident, "shrink_target", never)
    cx = refute(Identity(**meta("never"), lhs=x + 1, rhs=x, domain={x: R}))
    assert "raw" not in cx and cx["shrunk"].startswith("no simpler point")


@pytest.mark.parametrize("op", ["<", ">="])
def test_exact_arithmetic_overrules_the_numbers(monkeypatch, op):
    """A step that the numbers accept but exact arithmetic shows to hold is not taken."""
    from verify_claims.kinds import KINDS
    kind = KINDS["inequality"]
    orig = kind.shrink_target

    def lying(claim, settings, cx, outcome):
        t = orig(claim, settings, cx, outcome)
        real = t.check
        t.check = lambda pt: real(pt) or {**cx, "point": {"x": "0"}}  # the numbers "confirm" everything
        return t
    monkeypatch.setattr(kind, "shrink_target", lying)
    # x < 1/3 (or x >= 1/3) on [0, 1]: false on one side; exact arithmetic decides the other
    cx = refute(Inequality(**meta("exact-" + {"<": "lt", ">=": "ge"}[op]), lhs=x, op=op, rhs=sp.Rational(1, 3), domain={x: sp.Interval(0, 1)}))
    xv = value(cx["point"]["x"])
    assert not {"<": xv < sp.Rational(1, 3), ">=": xv >= sp.Rational(1, 3)}[op]
    assert xv == {"<": 1, ">=": 0}[op]  # for "<": 0 was offered first, and exact arithmetic refused it


def test_the_mutation_run_never_shrinks(monkeypatch):
    """Only a claim's final result is shrunk: classifying mutants (the screen, then the
    prover) never calls the shrinker, so the mutation run does not get slower."""
    from verify_claims.backends import shrink as shrink_module
    from verify_claims.engine import verify as verify_module
    from verify_claims.run.mutation import mutate_claim
    calls = []

    def spy(*args, **kw):
        calls.append(args)
        return shrink_module.shrink_counterexample(*args, **kw)
    monkeypatch.setattr(verify_module, "shrink_counterexample", spy)
    claim = Identity(**meta("mutated"), lhs=(x + y) ** 2, rhs=x ** 2 + 2 * x * y + y ** 2, domain={x: R, y: R})
    claim.validate()
    record = mutate_claim(claim, Settings(samples=30)).evidence["mutation"]
    assert record["counts"]["killed"] > 0 and calls == []
    # the spy does see a refuted claim's final result
    refute(Identity(**meta("spied"), lhs=x + 1, rhs=x, domain={x: R}))
    assert len(calls) == 1
