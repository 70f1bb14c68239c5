"""An expression's text cut to a length, without printing what is cut.

``short_str(expr, n)`` is ``sstr(expr)`` when that has at most n characters, else its first
n - 3 followed by "...": the mutation run describes thousands of mutants this way (the
mistake, and the mutated formula), and printing each whole expression to keep 300 of its
characters was about a tenth of that run's CPU (a Stationary objective written out for
three outputs prints to tens of thousands of characters).

How: sympy's string printer builds an expression's text from its children's texts, and
prints the children in the order their texts appear (an Add's terms in turn, a Mul's
numerator before its denominator).  The printer below counts the characters of the
leaves it has printed; once that count is well past n, everything printed after it lies
past n in the text as well, and it prints a marker instead (one character, which sympy's
printer never produces).  Where a printer prints a child out of order (a power's exponent
before its base) the marker can land before n: the text is then printed whole, as
sstr does.  A marker is only ever accepted beyond n + _MARGIN, so a parent's decision
that reads a marked child's text (an Add's sign taken from its term's first character)
changes only text next to the marker, past what is kept; a matrix, which pads every
entry to the widest of its column, is printed whole.
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices import MatrixBase
from sympy.printing.str import StrPrinter

__all__ = ["short_str"]

_MARK = "\x00"
_MARGIN = 40  # characters between the last kept one and the first marker allowed


# (text, characters of its leaves) of subexpressions printed whole, inside another one: the
# mutants of one claim share most of their subexpressions, and such a text is the
# subexpression's own (the printer has no state but its settings, which are sstr's here,
# and its depth, which only a Float reads: printed alone it keeps its trailing zeros)
_PRINTED: dict = {}
_PRINTED_MAX = 20_000
# equal (==, same hash) to an object that prints otherwise: their bound variables are
# compared up to renaming.  An expression holding one is printed without the memo
_RENAMING = (sp.Subs, sp.Lambda)


class _Whole(Exception):
    """Printed text whose early characters depend on later ones (a matrix pads each
    column to its widest entry): sstr prints it."""


class _PrefixPrinter(StrPrinter):
    def __init__(self, stop: int):
        super().__init__()
        self._stop = stop
        self._leaves = 0
        self._memo = True

    def _print(self, expr, **kwargs):
        if self._leaves > self._stop:
            return _MARK
        if isinstance(expr, MatrixBase):
            raise _Whole
        if isinstance(expr, _RENAMING):
            self._memo = False
        nested = self._print_level > 0 and not kwargs and isinstance(expr, sp.Basic)
        known = _PRINTED.get(expr) if nested and self._memo else None
        if known is not None:
            self._leaves += known[1]
            return known[0]
        before = self._leaves
        text = super()._print(expr, **kwargs)
        if not getattr(expr, "args", None):  # a leaf's text appears once, where it is printed
            self._leaves += len(text)
        if nested and self._memo and _MARK not in text:
            if len(_PRINTED) >= _PRINTED_MAX:
                _PRINTED.clear()
            _PRINTED[expr] = (text, self._leaves - before)
        return text


def short_str(expr, n: int) -> str:
    """sstr(expr) if it has at most n characters, else its first n - 3 and "..."."""
    try:
        text = _PrefixPrinter(n + 2 * _MARGIN).doprint(expr)
    except _Whole:
        text = _MARK
    mark = text.find(_MARK)
    if mark != -1 and mark < n + _MARGIN:
        text = sp.sstr(expr)  # a child printed before one shown earlier (see the module)
    return text if len(text) <= n else text[: n - 3] + "..."
