"""backends/rational.py: the zero test in flint agrees with sympy's cancel, and never says
0 of an expression that is not."""

import random

import pytest
import sympy as sp

from verify_claims.backends import rational
from verify_claims.backends import symbolic as S
from verify_claims.backends.rational import identically_zero, polynomial_identically_zero
from verify_claims.engine.context import Trace

x, y, a, b = sp.symbols("x y a b")


@pytest.mark.parametrize("e", [
    (x + y) ** 3 - (x ** 3 + 3 * x ** 2 * y + 3 * x * y ** 2 + y ** 3),
    (x ** 2 - 1) / (x - 1) - (x + 1),
    x / (x + y) + y / (x + y) - 1,
    1 / (x * (x + 1)) - 1 / x + 1 / (x + 1),
    x ** sp.Rational(3, 2) - x * sp.sqrt(x),          # sqrt(x)**3
    sp.exp(-x) * (1 + sp.exp(x)) - sp.exp(-x) - 1,    # exp(-x) is 1/exp(x)
    sp.exp(2 * a) - sp.exp(a) ** 2,
    x ** (-a) * (x ** a + 1) - 1 - x ** (-a),
    sp.log(x + 1) ** 2 / sp.log(x + 1) - sp.log(x + 1),
    x / sp.sqrt(x) - sp.sqrt(x),                      # x is sqrt(x)**2
    sp.sqrt(x) * x ** sp.Rational(1, 3) - x ** sp.Rational(5, 6),
    # a root's own relation, sqrt(b)**2 = b, once multiplied out
    (sp.sqrt(2) * x + 1) * (sp.sqrt(2) * x - 1) - 2 * x ** 2 + 1,
    x / sp.sqrt(x + 1) + 1 / sp.sqrt(x + 1) - sp.sqrt(x + 1),
    (1 + sp.sqrt(y * (1 - y))) ** 2 - 1 - 2 * sp.sqrt(y - y ** 2) - y + y ** 2,  # one base, two forms
])
def test_identities_are_zero(e):
    assert identically_zero(e) is True


@pytest.mark.parametrize("e", [
    # each a wrong variant of one of the identities above: a sign, a factor, a term
    (x + y) ** 3 - (x ** 3 + 3 * x ** 2 * y - 3 * x * y ** 2 + y ** 3),
    (x ** 2 - 1) / (x - 1) - (x - 1),
    x / (x + y) + y / (x + y) - 2,
    1 / (x * (x + 1)) - 1 / x - 1 / (x + 1),
    x ** sp.Rational(3, 2) - x ** 2 * sp.sqrt(x),
    sp.exp(-x) * (1 + sp.exp(x)) - sp.exp(x) - 1,
    # true, but not as a rational function of independent atoms: left to expand
    sp.exp(a + b) - sp.exp(a) * sp.exp(b),
    sp.log(x * y) - sp.log(x) - sp.log(y),
    (sp.sqrt(2) * x + 1) * (sp.sqrt(2) * x - 1) - 2 * x ** 2,  # the +1 missing
    x / sp.sqrt(x + 1) + 1 / sp.sqrt(x + 1) - 2 * sp.sqrt(x + 1),
])
def test_non_identities_are_not(e):
    assert identically_zero(e) is False


@pytest.mark.parametrize("e", [
    sp.Add(sp.Float(0.5) * x, -x / 2, evaluate=False),  # a float is not one half
    1 / (x * (x + 1) - x ** 2 - x) - 1,             # a denominator that is identically 0
    sp.Add(sp.Piecewise((sp.oo, x > 0), (1, True)), -sp.Piecewise((sp.oo, x > 0), (1, True)),
           evaluate=False),
    sp.Mul(sp.zoo, x, evaluate=False) - sp.Mul(sp.zoo, x, evaluate=False),
])
def test_floats_infinities_and_zero_denominators_are_not_decided(e):
    assert identically_zero(e) is None


def test_holes_found_in_review_are_closed():
    """Each of these was declared zero (or "exact") by a first version, and is not zero."""
    A, B = sp.symbols("A B", commutative=False)
    assert identically_zero(A * B - B * A) is None                 # matrices do not commute
    s = sp.sin(sp.oo)                                               # AccumBounds(-1, 1), not a number
    assert identically_zero(s * x * (y + 1) - s * x * y - s * x) is None
    # 0/0 once sqrt(x*(x + 1))*sqrt(x**2 + x) = x**2 + x is used: defined nowhere, not "0"
    d = sp.sqrt(x * (x + 1)) * sp.sqrt(x**2 + x) - x**2 - x
    assert identically_zero(sp.Mul(2 * d, sp.Pow(d, -1), evaluate=False) - 2) is None
    # a summation index with the variable's name: Sum(x, (x, 1, 3)) is 6, not 3*x
    assert polynomial_identically_zero(sp.Sum(x, (x, 1, 3)) - 3 * x) == ""
    assert polynomial_identically_zero(sp.Product(x, (x, 1, 3)) - x**3) == ""
    assert polynomial_identically_zero(sp.Sum(x, (x, 1, 3)) - 6) == "exact value"


def test_sizes_are_bounded_before_flint_multiplies():
    """flint's C code cannot be interrupted by a CPU limit: what would take seconds or
    gigabytes is refused up front (each of these took seconds or aborted the process)."""
    k = sp.Symbol("k", integer=True)
    big = sp.Pow(x + 10**100, 2000)                                # 2000 terms of 200 000 bits
    assert identically_zero(sp.Add(big, -big, evaluate=False)) is None
    a, c = sp.symbols("a1:5"), sp.symbols("c1:5")
    b1 = (sum(a) + 1) / (sum(c) + 1)
    b2 = sp.expand(b1)
    assert identically_zero(b1 ** sp.Rational(79, 2) * sp.sqrt(b2) + b1 ** sp.Rational(39, 2) * sp.sqrt(b2)) is None
    assert polynomial_identically_zero(sp.Add(sp.Pow(x, 10**7), -sp.Pow(x, 10**7), evaluate=False)) == ""
    assert polynomial_identically_zero(sp.Sum(sp.factorial(k * 10**6), (k, 1, 1)) - 1) == ""
    deep = x
    for _ in range(600):
        deep = x * (1 + deep)
    assert identically_zero(sp.Add(deep, 1, evaluate=False)) in (None, False)  # no RecursionError escapes


def test_a_product_too_large_to_multiply_out_is_not_decided(monkeypatch):
    monkeypatch.setattr(rational, "MAX_TERMS", 50)
    big = sp.Add(*sp.symbols("u0:12"))
    assert identically_zero(big ** 2 - big ** 2 + big * (big + 1) - big ** 2 - big) is None
    monkeypatch.setattr(rational, "MAX_TERMS", 200_000)
    assert identically_zero(big * (big + 1) - big ** 2 - big) is True


def test_a_power_too_large_to_multiply_out_is_not_decided():
    big = sp.Pow(x + y + 1, 5000)       # about 12.5 million terms: never multiplied out
    assert identically_zero(sp.Add(big, -big, evaluate=False)) is None
    assert identically_zero(sp.Add(sp.Pow(x, 10 ** 6), -sp.Pow(x, 10 ** 6), evaluate=False)) is None
    # within the bounds: (x + 1)**500 has 501 terms
    assert identically_zero(sp.Add(sp.Pow(x + 1, 500), -sp.Pow(x + 1, 500), evaluate=False)) is True


def test_agrees_with_cancel_and_the_numbers_on_random_rational_expressions():
    rng = random.Random(2502)
    atoms = [x, y, sp.exp(a), sp.exp(-a), sp.sqrt(x), sp.log(y)]

    def term():
        e = sp.Integer(rng.randint(-3, 3))
        for _ in range(rng.randint(1, 3)):
            e *= rng.choice(atoms) ** rng.randint(-2, 2)
        return e

    def expr():
        return sp.Add(*(term() for _ in range(rng.randint(1, 4))))

    decided = 0
    for _ in range(60):
        p, q = expr(), expr()
        for e in (p * q - sp.expand(p * q), p * q - sp.expand(p * q) + term(),
                  p / (q + 3) - (p * (q + 3)) / (q + 3) ** 2):
            got = identically_zero(e)
            if got is None:
                continue
            decided += 1
            assert got == (sp.cancel(e) == 0), e
            if got:
                point = {x: sp.Rational(3, 7), y: sp.Rational(5, 3), a: sp.Rational(1, 2)}
                assert abs(sp.N(e.subs(point), 30)) < 1e-20, e
    assert decided >= 100


def test_a_strategy_of_zero_by_and_a_replay_of_it():
    e = x / (x + y) + y / (x + y) - 1
    S._SEARCHED.clear()
    trace = Trace()
    how, residual = S.zero_by(e, S.NO_FACTS, trace, at="t")
    assert (how, residual) == ("rational", 0)
    assert set(trace.record.values()) == {"rational"}
    S._SEARCHED.clear()
    assert S.zero_by(e, S.NO_FACTS, Trace(replay=trace.record), at="t")[0] == "rational"
    # a wrong variant with a forged record saying "rational" decided it: the replay
    # multiplies it out again and does not reach 0
    wrong = e + x
    forged = {Trace().point("t", wrong, S.NO_FACTS.key()): "rational"}
    S._SEARCHED.clear()
    assert S.zero_by(wrong, S.NO_FACTS, Trace(replay=forged), at="t")[0] is None


def test_shares_factor_is_the_gcd_of_the_numerators():
    x, y = sp.symbols("x y", real=True)
    assert rational.shares_factor((x - 1) * (y + 2), x - 1) is True
    assert rational.shares_factor((x ** 2 - 1) / y, (x + 1) / (y + 3)) is True
    assert rational.shares_factor(x * y + 1, x - 1) is False
    assert rational.shares_factor(1 / (x - 1), x - 1) is False  # (x - 1)**2 below the line
    assert rational.shares_factor(sp.sqrt(x) - 1, x - 1) is None  # sqrt(x)**2 = x: not seen by a gcd
    assert rational.shares_factor(sp.Float(0.5) * x, x) is None


def test_a_slack_that_cannot_divide_is_not_tried_with_cancel(monkeypatch):
    p1, p2, y = sp.symbols("p1 p2 y", positive=True)
    calls = []
    real_cancel = sp.cancel
    monkeypatch.setattr(S.sp, "cancel", lambda e, *a, **k: calls.append(e) or real_cancel(e, *a, **k))
    slack = 1 - p1 ** 2 - p2 ** 2  # linear in no symbol: the zero-point test cannot rule it out
    facts = S.Facts(positive=[slack])
    # a multiple of the slack: still shown, through cancel
    assert facts.is_positive(sp.expand(slack * (p1 + y)))
    assert calls
    calls.clear()
    # no common factor with the slack: cancel is not asked
    assert facts._slack_multiple(sp.expand(p1 * p2 - p2 + y)) is False
    assert calls == []
