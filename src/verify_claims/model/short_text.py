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
changes only text next to the marker, past what is kept.
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.str import StrPrinter

__all__ = ["short_str"]

_MARK = "\x00"
_MARGIN = 40  # characters between the last kept one and the first marker allowed


# (text, characters of its leaves) of subexpressions printed whole: the mutants of one
# claim share most of their subexpressions, and a subexpression's text is its own (the
# printer has no state but its settings, which are sstr's here)
_PRINTED: dict = {}
_PRINTED_MAX = 20_000


class _PrefixPrinter(StrPrinter):
    def __init__(self, stop: int):
        super().__init__()
        self._stop = stop
        self._leaves = 0

    def _print(self, expr, **kwargs):
        if self._leaves > self._stop:
            return _MARK
        known = _PRINTED.get(expr) if not kwargs and isinstance(expr, sp.Basic) else None
        if known is not None:
            self._leaves += known[1]
            return known[0]
        before = self._leaves
        text = super()._print(expr, **kwargs)
        if not getattr(expr, "args", None):  # a leaf's text appears once, where it is printed
            self._leaves += len(text)
        if not kwargs and isinstance(expr, sp.Basic) and _MARK not in text:
            if len(_PRINTED) >= _PRINTED_MAX:
                _PRINTED.clear()
            _PRINTED[expr] = (text, self._leaves - before)
        return text


def short_str(expr, n: int) -> str:
    """sstr(expr) if it has at most n characters, else its first n - 3 and "..."."""
    text = _PrefixPrinter(n + 2 * _MARGIN).doprint(expr)
    mark = text.find(_MARK)
    if mark != -1 and mark < n + _MARGIN:
        text = sp.sstr(expr)  # a child printed before one shown earlier (see the module)
    return text if len(text) <= n else text[: n - 3] + "..."
