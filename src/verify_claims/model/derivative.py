"""Derivatives of large expressions, with each node's free symbols collected once.

``derivative(expr, *symbols)`` is ``sympy.diff(expr, *symbols)`` and ``hessian(expr, wrt)``
is ``sympy.hessian(expr, wrt)``: the same expressions, built the same way.  What differs
is the cost on large trees.  sympy's ``Derivative(expr, x)`` asks for ``expr.free_symbols``
two or three times before it differentiates, and differentiating a sum or a product
differentiates each of its terms the same way, so the checks recur down the tree; and
``Basic.free_symbols`` is not remembered: each request walks the whole subtree below it.
A node at depth d is walked about 3 d times.  The mutation run differentiates every
mutated objective of a claim (the screen of a stationary point, the equivalence forms,
the prover): for the 22 mutated objectives of ``kkt-eq11-stationary-g3``, written out for
three outputs (9839 operations), the 66 partial derivatives took 4.9 s, and 0.4 s as
here (sympy's cache cleared before each; the same expressions).

While one of these functions runs, ``Basic.free_symbols`` (the union of the arguments'
free symbols, which every sum, product, power and function inherits) is remembered per
node: computed once, kept until the outermost call returns.  A node is remembered by its
identity (its id, with a reference that keeps the id from being reused), so no
expression is hashed or compared; each request gets its own copy of the set, as from
sympy.  Classes with their own ``free_symbols`` (symbols, derivatives, sums, integrals:
bound variables) are untouched.
"""

from __future__ import annotations

from contextlib import contextmanager

import sympy as sp
from sympy.core.basic import Basic

__all__ = ["derivative", "hessian"]

_PLAIN = Basic.__dict__["free_symbols"]
_known: dict | None = None  # id(node) -> (node, its free symbols), while remembering


def _remembered_free_symbols(self):
    got = _known.get(id(self)) if _known is not None else None
    if got is None:
        symbols = set().union(*(a.free_symbols for a in self.args))  # as Basic.free_symbols
        if _known is not None:
            _known[id(self)] = (self, frozenset(symbols))
        return symbols
    return set(got[1])


_REMEMBERED = property(_remembered_free_symbols, doc=_PLAIN.__doc__)


@contextmanager
def _free_symbols_remembered():
    global _known
    if _known is not None:  # inside an outer call: its memory serves
        yield
        return
    _known = {}
    Basic.free_symbols = _REMEMBERED
    try:
        yield
    finally:
        Basic.free_symbols = _PLAIN
        _known = None


def derivative(expr, *symbols):
    """sympy.diff(expr, *symbols), each node's free symbols collected once."""
    with _free_symbols_remembered():
        return sp.diff(expr, *symbols)


def hessian(expr, wrt):
    """sympy.hessian(expr, wrt), each node's free symbols collected once."""
    with _free_symbols_remembered():
        return sp.hessian(expr, wrt)
