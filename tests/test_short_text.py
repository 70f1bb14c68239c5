"""short_str: sstr's text cut to a length, printed only as far as it is kept."""

from __future__ import annotations

import random

import sympy as sp

from verify_claims.model import short_text
from verify_claims.model.short_text import short_str

x, y, z, b = sp.symbols("x y z beta", positive=True)
G, k = sp.symbols("G k", integer=True, positive=True)


def _cut(expr, n):
    s = sp.sstr(expr)
    return s if len(s) <= n else s[: n - 3] + "..."


def _random_expr(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([x, y, z, b, sp.Integer(rng.randint(-9, 9)), sp.Rational(rng.randint(1, 9), rng.randint(2, 9)),
                           sp.pi])
    op = rng.randrange(9)
    a, c = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    return [lambda: a + c, lambda: a - c, lambda: a * c, lambda: a / (c ** 2 + 3), lambda: (a + 1) ** rng.randint(-3, 3),
            lambda: sp.sqrt(a ** 2 + 1), lambda: sp.exp(a) * sp.log(c ** 2 + 2), lambda: sp.Max(a, c),
            lambda: sp.Piecewise((a, x > y), (c, True))][op]()


def test_the_same_text_as_sstr_cut_for_many_expressions_and_lengths():
    rng = random.Random(1)
    exprs = [_random_expr(rng, 6) for _ in range(300)]
    exprs += [sum((x + k) ** i / (i + 1) for i in range(40)).subs(k, 3),  # a long sum
              sp.expand((x + y + z + 1) ** 6),
              sp.Sum(sp.binomial(G, k) * x ** k * (1 - x) ** (G - k) / sp.sqrt(k + 1), (k, 0, G)),
              -b * sp.exp((x * (1 - y) + y / 2) / b) / (x * sp.exp(y / b) + (1 - x) * sp.exp(z / b)),
              sp.Integer(0), x, sp.Rational(-7, 3)]
    for e in exprs:
        for n in (20, 60, 160, 300, 2000):
            assert short_str(e, n) == _cut(e, n), (e, n)


def test_a_child_printed_before_the_text_it_follows_falls_back_to_the_whole_text(monkeypatch):
    """A power prints its exponent before its base: with a long exponent, the base would
    get the marker before the kept prefix ends.  The whole text is printed then, so the
    answer is still sstr's."""
    long_exponent = sp.Add(*[x ** i * y for i in range(1, 60)])
    e = (x + 2 * y + 3) ** long_exponent
    want = _cut(e, 60)
    calls = []
    real = sp.sstr
    monkeypatch.setattr(short_text.sp, "sstr", lambda expr, **kw: calls.append(expr) or real(expr, **kw))
    assert short_str(e, 60) == want
    assert calls == [e]  # the fallback ran, and only for this expression


def test_long_expressions_are_not_printed_whole(monkeypatch):
    """What the module is for: the printer stops (a term far past the kept text is never
    printed) and reuses what it printed for an earlier expression."""
    late = sp.Add(*[y ** i for i in range(2, 50)])  # the last term of the sum, inside its last factor
    e = sp.Add(*[x ** i / (i + 1) for i in range(1, 200)]) + sp.exp(z) * late
    want, want_more = _cut(e, 100), _cut(e + 1, 100)
    printed = []
    real = short_text.StrPrinter._print

    def spy(self, expr, **kw):
        printed.append(expr)
        return real(self, expr, **kw)
    monkeypatch.setattr(short_text.StrPrinter, "_print", spy)
    short_text._PRINTED.clear()
    assert short_str(e, 100) == want
    assert late not in printed and printed
    first = [p for p in printed if p in e.args]
    printed.clear()
    assert short_str(e + 1, 100) == want_more
    assert first and not any(p in printed for p in first)  # the terms came from the first printing


def test_what_prints_otherwise_in_another_place_is_not_taken_from_the_memo():
    """A Float keeps its trailing zeros only printed alone; Subs and Lambda are equal to
    their renamings, which print otherwise; a matrix pads each column to its widest entry
    (a later entry widens an earlier one).  Each gives sstr's text in any order."""
    f = sp.Function("f")
    u, v = sp.symbols("u v")
    big = sp.Add(*[x ** j * y / (j + 1) for j in range(1, 80)])
    cases = [[sp.Float(1.5), x + sp.Float(1.5), sp.Float(1.5)],
             [sp.Subs(f(u), u, 0), sp.Subs(f(v), v, 0)],
             [sp.Tuple(sp.Subs(f(u), u, 0), 1), sp.Tuple(sp.Subs(f(v), v, 0), 1)],
             [sp.Tuple(sp.Lambda(u, u), 1), sp.Tuple(sp.Lambda(v, v), 1)],
             [sp.ImmutableMatrix([[big, 1], [x, 2], [2 * big, 3]])]]
    for group in cases:
        for order in (group, group[::-1]):
            short_text._PRINTED.clear()
            for e in order:
                for n in (60, 300):
                    assert short_str(e, n) == _cut(e, n), (e, n)
