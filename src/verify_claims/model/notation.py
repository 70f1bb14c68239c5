"""The paper's notation: how a symbol, or a named quantity, is displayed.

A derivation names its symbols for the engine (``pi_a``, ``ref_a``) and, once and next to
the declaration, says how the paper writes them::

    NOTATION = Notation()
    x = NOTATION.symbol("pi_a", r"\\pi_\\theta(a \\mid q)")     # a plain sympy Symbol
    J = NOTATION.define(grpo_objective(...), r"J_{\\mathrm{GRPO}}(\\pi_\\theta)")

The loader hands the module's ``NOTATION`` to its claims; every statement, chain step,
counterexample and figure label is then printed with it.  ``define`` abbreviates an
expression the paper names: wherever that exact expression (structural equality, the
same test as ``==``) occurs in a statement, its name is printed; the expansion, which is
what was verified, stays available beside it.  Notation is description only: it never
enters a claim's key, so editing it re-verifies nothing.

Symbols without a display form print as sympy prints them, except that letters outside
ASCII (a symbol named ``β``) become LaTeX commands, so every output can typeset them.
"""

from __future__ import annotations

import hashlib
import json

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["Notation", "as_notation", "latex", "math_safe_symbol"]


class Notation:
    """Display forms (LaTeX) of symbols, by name, and of named expressions.

    ``Notation(a, b)`` starts from the forms of ``a`` and ``b`` (a helper module's notation
    shared by several sections); later declarations win."""

    def __init__(self, *include: "Notation"):
        self.symbols: dict = {}    # symbol name -> LaTeX
        self.named: dict = {}      # sympy expression -> LaTeX
        self._digest = None        # cached: asked per claim
        self._printed = {}         # (abbreviate, subexpression) -> (LaTeX, used a name): see _Printer
        for other in include:
            self.update(other)

    def update(self, other) -> "Notation":
        other = as_notation(other)
        self.symbols.update(other.symbols)
        self.named.update(other.named)
        self._changed()
        return self

    def symbol(self, name: str, latex: str | None = None, **assumptions) -> sp.Symbol:
        """A plain sympy Symbol ``name``; the paper writes it as ``latex``."""
        s = sp.Symbol(name, **assumptions)
        if latex is not None:
            self.display(s, latex)
        return s

    def display(self, sym, latex: str) -> None:
        """Give an existing symbol (or symbol name) its display form."""
        name = sym.name if isinstance(sym, sp.Symbol) else str(sym)
        _check_latex(latex, f"the display form of {name}")
        self.symbols[name] = latex
        self._changed()

    def define(self, expr, latex: str):
        """Return ``expr`` unchanged; statements print ``latex`` where it occurs."""
        expr = sp.sympify(expr)
        _check_latex(latex, lambda: f"the name of {sp.sstr(expr)[:60]}")  # printed only on an error
        if not (isinstance(expr, sp.Symbol) or expr.is_Number):  # naming a number or symbol hides nothing
            self.named[expr] = latex
            self._changed()
        return expr

    def _changed(self) -> None:
        self._digest = None
        self._printed = {}

    def __bool__(self) -> bool:
        return bool(self.symbols or self.named)

    def digest(self, expr_digest) -> str:
        """Changes whenever a display form does (statements rendered with it are then stale).
        `expr_digest(e)` is a stable digest (bytes) of a sympy expression: the store's
        content hash (run.keys), linear in the size of a named quantity where srepr's
        ordering of every sum made this 3 s per run of the bundled paper."""
        if self._digest is not None:
            return self._digest
        h = hashlib.sha256(json.dumps(self.symbols, sort_keys=True).encode())
        for e, tex in sorted((expr_digest(e).hex(), t) for e, t in self.named.items()):
            h.update(f"|{e}={tex}".encode())
        self._digest = h.hexdigest()[:16]
        return self._digest


def as_notation(value) -> Notation:
    """A Notation, or a plain {symbol or name: LaTeX} dict (both accepted as NOTATION)."""
    if value is None:
        return Notation()
    if isinstance(value, Notation):
        return value
    if isinstance(value, dict):
        out = Notation()
        for k, v in value.items():
            if not isinstance(v, str):
                raise TypeError(f"NOTATION maps symbols to LaTeX strings; {k!r} maps to {type(v).__name__}")
            out.display(k, v)
        return out
    raise TypeError(f"NOTATION must be a verify_claims.Notation or a dict of symbol -> LaTeX, "
                    f"not {type(value).__name__}")


def _check_latex(latex, what) -> None:
    """Refuse an empty or unbalanced LaTeX string; `what` (a string, or a function giving one)
    names it in the error."""
    from .domain import DeclarationError
    if isinstance(latex, str) and latex.strip() and latex.count("{") == latex.count("}"):
        return
    what = what() if callable(what) else what
    if not isinstance(latex, str) or not latex.strip():
        raise DeclarationError(f"{what} must be a non-empty LaTeX string")
    if latex.count("{") != latex.count("}"):
        raise DeclarationError(f"{what} has unbalanced braces: {latex!r}")


_GREEK = None


def math_safe_symbol(name: str) -> str:
    """sympy's LaTeX for a symbol name, with letters outside ASCII as LaTeX commands
    (β -> \\beta; an unknown letter -> \\text{U+XXXX}), so pdflatex can typeset it."""
    global _GREEK
    if name.isascii():
        return sp.latex(sp.Symbol(name))
    if _GREEK is None:
        from sympy.printing.pretty.pretty_symbology import greek_unicode
        _GREEK = {u: "\\" + n for n, u in greek_unicode.items() if isinstance(u, str) and len(u) == 1}
        _GREEK.update({"ε": r"\varepsilon", "ϵ": r"\epsilon", "ϕ": r"\phi", "φ": r"\varphi", "ℓ": r"\ell"})
    # print an ASCII stand-in with sympy (subscripts, primes), then put the letters back
    table, ascii_name = {}, []
    for ch in name:
        if ch.isascii():
            ascii_name.append(ch)
        else:
            key = f"QX{len(table)}QX"
            table[key] = _GREEK.get(ch, r"\text{U+%04X}" % ord(ch)) + " "
            ascii_name.append(key)
    out = sp.latex(sp.Symbol("".join(ascii_name)))
    for key, tex in table.items():
        out = out.replace(key, "{" + tex.strip() + "}")
    return out


_PRINTED_MAX = 50000  # subexpressions kept per notation (the bundled paper prints about 7000)


class _Printer(LatexPrinter):
    """sympy's LaTeX printer, printing named expressions by their name.

    A subexpression's LaTeX is kept on the notation (`printed`): a claim's statement written
    out in full repeats the named quantities of its module, which many claims share, and 95 %
    of the bundled paper's printing was of subexpressions printed before.  Sound because the
    LaTeX of a subexpression depends only on it and on the notation: the symbols' display
    forms are the notation's, by name, and the brackets around it are its parent's
    business (parenthesize prints it first, then decides)."""

    def __init__(self, named: dict, settings: dict, printed: dict | None = None, by_name: dict | None = None):
        super().__init__(settings)
        self._named = named
        self._kept = printed
        self._by_name = by_name or {}  # symbol name -> LaTeX (Notation.symbols)
        self.abbreviated = False

    def _print(self, expr, **kwargs):
        if self._named:
            name = self._named.get(expr)
            if name is not None:
                self.abbreviated = True
                return name
        kept = self._kept
        if kept is None or kwargs or not isinstance(expr, sp.Basic):
            return super()._print(expr, **kwargs)
        got = kept.get(expr)
        if got is None:
            before, self.abbreviated = self.abbreviated, False
            try:
                got = (super()._print(expr), self.abbreviated)
            finally:
                self.abbreviated = before or self.abbreviated
            if len(kept) >= _PRINTED_MAX:
                kept.clear()
            kept[expr] = got
        elif got[1]:
            self.abbreviated = True
        return got[0]

    def parenthesize(self, item, level, is_neg=False, strict=False):
        if self._named and item in self._named:  # a name is one symbol to the reader
            self.abbreviated = True
            return self._named[item]
        return super().parenthesize(item, level, is_neg=is_neg, strict=strict)

    # a name is one symbol to the reader: never bracketed as the sum it stands for
    def _needs_brackets(self, expr):
        return False if self._named and expr in self._named else super()._needs_brackets(expr)

    def _needs_mul_brackets(self, expr, first=False, last=False):
        if self._named and expr in self._named:
            return False
        return super()._needs_mul_brackets(expr, first=first, last=last)

    def _needs_add_brackets(self, expr):
        return False if self._named and expr in self._named else super()._needs_add_brackets(expr)

    def _print_Symbol(self, expr, style="plain"):
        if expr in self._settings["symbol_names"]:
            return self._settings["symbol_names"][expr]
        # the notation's form, as symbol_names filled from the expression's symbols gave it
        # (a Symbol's: sympy prints a MatrixSymbol through here too)
        by_name = self._by_name.get(expr.name) if isinstance(expr, sp.Symbol) else None
        if by_name is not None:
            return by_name
        if not expr.name.isascii():
            return math_safe_symbol(expr.name)
        return super()._print_Symbol(expr, style=style)


def latex(expr, notation: Notation | None = None, *, abbreviate: bool = True, record: list | None = None) -> str:
    """LaTeX of ``expr`` in the paper's notation.  ``abbreviate=False`` prints named
    expressions expanded.  If ``record`` is a list, True is appended when a name was used."""
    expr = sp.sympify(expr)
    # each symbol's form is looked up by its name as it is printed (_print_Symbol): collecting
    # the expression's symbols first walked the whole tree, a quarter of the printing's time
    printed = notation._printed.setdefault(bool(abbreviate), {}) if notation is not None else None
    p = _Printer(notation.named if (notation is not None and abbreviate) else {}, {}, printed,
                 notation.symbols if notation is not None else None)
    out = p.doprint(expr)
    if record is not None and p.abbreviated:
        record.append(True)
    return out
