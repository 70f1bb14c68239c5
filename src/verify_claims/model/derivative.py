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
# nodes remembered at most (then forgotten, and remembered again): the memory's bound
# even if it were left on (_free_symbols_remembered)
_KNOWN_MAX = 200_000


def _remembered_free_symbols(self):
    got = _known.get(id(self)) if _known is not None else None
    if got is None:
        symbols = set().union(*(a.free_symbols for a in self.args))  # as Basic.free_symbols
        if _known is not None:
            if len(_known) >= _KNOWN_MAX:
                _known.clear()
            _known[id(self)] = (self, symbols.copy())
        return symbols
    return got[1].copy()


_REMEMBERED = property(_remembered_free_symbols, doc=_PLAIN.__doc__)


def _forget() -> None:
    global _known
    _known = None  # first: a property left installed without a memory computes as sympy does
    Basic.free_symbols = _PLAIN


@contextmanager
def _free_symbols_remembered():
    """Within: Basic.free_symbols remembered.  A time limit's TimeUp (raised by a signal
    handler wherever Python checks for signals, and again every few milliseconds while the
    stack unwinds) must not leave it installed: set up inside the try, and forgotten twice
    over, so that a signal landing in the first restore does not stop the second.  Were it
    left installed all the same, the answers would still be sympy's, and the memory is
    bounded (_KNOWN_MAX)."""
    global _known
    if _known is not None:  # inside an outer call: its memory serves
        yield
        return
    try:
        _known = {}
        Basic.free_symbols = _REMEMBERED
        yield
    finally:
        try:
            _forget()
        finally:
            _forget()


def derivative(expr, *symbols):
    """sympy.diff(expr, *symbols), each node's free symbols collected once."""
    with _free_symbols_remembered():
        return sp.diff(expr, *symbols)


def hessian(expr, wrt):
    """sympy.hessian(expr, wrt), each node's free symbols collected once."""
    with _free_symbols_remembered():
        return sp.hessian(expr, wrt)
