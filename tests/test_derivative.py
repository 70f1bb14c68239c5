"""model/derivative.py: sympy's derivatives, each node's free symbols collected once."""

from __future__ import annotations

import sys
import types

import pytest
import sympy as sp
from sympy.core.cache import clear_cache
from sympy.core.basic import Basic

from verify_claims.model import derivative as D
from verify_claims.model.derivative import derivative, hessian

x, y, z, n = sp.symbols("x y z n")
f = sp.Function("f")
PLAIN = Basic.__dict__["free_symbols"]

EXPRESSIONS = [
    x ** 3 * sp.log(1 + x * y) - sp.exp(-y / x),
    sp.sqrt(1 - x - y) * sp.atan(x * y) + sp.Abs(x - y),
    sp.Piecewise((x ** 2, x < y), (sp.log(y), True)),
    f(x * y) * sp.cos(x) + sp.Derivative(f(x), x),
    sp.Sum(x ** n / sp.factorial(n), (n, 0, 5)) + sp.Integral(x * z, (z, 0, y)),
    sp.Max(x, y) - sp.Min(x * y, 1) + sp.asinh(x) ** 2,
]


@pytest.mark.parametrize("e", EXPRESSIONS, ids=range(len(EXPRESSIONS)))
def test_the_same_expressions_as_sympys_and_free_symbols_restored(e):
    # sympy's cache cleared before each side: it remembers the derivatives of sums and
    # products, and would hand the second side the first one's answer
    def fresh(f, *a):
        clear_cache()
        return f(*a)
    for args in ((x,), (y,), (x, 2), (x, y), (z,)):
        assert sp.srepr(fresh(derivative, e, *args)) == sp.srepr(fresh(sp.diff, e, *args))
    assert fresh(hessian, e, [x, y]) == fresh(sp.hessian, e, [x, y])
    assert Basic.__dict__["free_symbols"] is PLAIN and D._known is None
    # outside, the answer is sympy's own and a fresh set each time (a caller may change it)
    s = e.free_symbols
    s.add(sp.Symbol("other"))
    assert sp.Symbol("other") not in e.free_symbols


def test_restored_when_differentiation_raises():
    with pytest.raises(ValueError):
        derivative(x ** 2, 1)  # "Can't calculate derivative wrt 1"
    assert Basic.__dict__["free_symbols"] is PLAIN and D._known is None


def test_restored_when_a_timeout_lands_in_the_setup_or_the_cleanup():
    # a time limit's TimeUp is raised by a signal handler wherever Python checks for
    # signals, and its timer signals again (milliseconds later) while the stack unwinds,
    # which may be in the restore: a TimeUp at each line of the setup and of the restores
    # in turn (not at a bare try: or finally:, which runs nothing that checks); afterwards
    # the memo is off, and the next derivative remembers again
    import linecache

    from verify_claims.backends.timebox import TimeUp
    codes = {D._free_symbols_remembered.__wrapped__.__code__, D._forget.__code__}
    deep = x
    for _ in range(8):
        deep = sp.log(1 + x * deep)
    clear_cache()
    plain = _free_symbol_steps(lambda: sp.diff(deep, x))
    n = 0
    while True:
        seen = [0]

        def tracer(frame, event, _arg):
            if frame.f_code in codes:
                frame.f_trace_lines = True
                text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
                if event == "line" and text not in ("try:", "finally:"):
                    seen[0] += 1
                    if seen[0] == n:
                        raise TimeUp(None)
                return tracer
            return None

        sys.settrace(tracer)
        try:
            derivative(sp.log(1 + x * y), x)
        except TimeUp:
            pass
        finally:
            sys.settrace(None)
        assert Basic.__dict__["free_symbols"] is PLAIN and D._known is None, (n, seen)
        clear_cache()
        assert _free_symbol_steps(lambda: derivative(deep, x)) * 5 < plain, n
        if n > seen[0]:
            break
        n += 1
    assert n > 5


def test_the_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(D, "_KNOWN_MAX", 5)
    e = x
    for _ in range(8):
        e = sp.log(1 + x * e)
    seen = []
    plain_forget = D._forget
    monkeypatch.setattr(D, "_forget", lambda: seen.append(len(D._known or ())) or plain_forget())
    clear_cache()
    assert derivative(e, x) == sp.diff(e, x)
    assert seen and 0 < seen[0] <= 5


def _free_symbol_steps(thunk) -> int:
    """How many steps the collection of free symbols took while thunk ran: each step
    reads one argument of a node whose free symbols are being collected (Basic's
    generator, or the remembering one's on a node not yet remembered)."""
    targets = {c for fn in (PLAIN.fget, D._remembered_free_symbols)
               for c in fn.__code__.co_consts if isinstance(c, types.CodeType)}
    assert len(targets) == 2
    count = [0]

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code in targets:
            count[0] += 1

    sys.setprofile(profile)
    try:
        thunk()
    finally:
        sys.setprofile(None)
    return count[0]


def test_each_node_is_walked_once_not_once_per_level_above_it():
    # log(1 + log(1 + ... x)): sympy's Derivative collects the free symbols of the
    # subtree at each level of the chain rule, so a node 25 levels down is walked about
    # 25 times over; remembered, once
    e = x
    for _ in range(25):
        e = sp.log(1 + x * e)
    clear_cache()  # (sympy's cache remembers derivatives of products and sums)
    plain = _free_symbol_steps(lambda: sp.diff(e, x))
    clear_cache()
    remembered = _free_symbol_steps(lambda: derivative(e, x))
    assert derivative(e, x) == sp.diff(e, x)
    assert remembered * 20 < plain, (remembered, plain)
