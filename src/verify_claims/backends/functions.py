"""The one table of functions the engine understands, and what each backend may do with them.

Every other module asks this table instead of keeping its own list: which functions are
smooth (a derivative argument is sound), which are defined on the whole real line, what
side conditions make a function defined (log u needs u > 0), which z3's real arithmetic
can state exactly, and which the interval backend can enclose.  Before this table the
engine had four such lists, and they had started to disagree (one knew ``frac``, another
did not).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["FunctionInfo", "TABLE", "info", "nonsmooth", "side_conditions", "smt_declines", "NONSMOOTH"]


@dataclass(frozen=True)
class FunctionInfo:
    smooth: bool      # differentiable wherever defined: a derivative's sign means something
    total: bool       # defined at every real argument
    smt: bool         # expressible exactly in z3's nonlinear real arithmetic
    interval: bool    # the interval backend (mpmath.iv) has an outward-rounded enclosure for it
    ball: bool = False  # the ball backend (arb) encloses it (ball.FUNCTIONS, or arithmetic)


_S, _N = True, False
TABLE: dict = {
    # arithmetic (Pow's side conditions depend on its exponent: see side_conditions)
    sp.Add: FunctionInfo(_S, True, True, True, True),
    sp.Mul: FunctionInfo(_S, True, True, True, True),
    sp.Pow: FunctionInfo(_S, False, True, True, True),
    # elementary transcendental functions
    sp.exp: FunctionInfo(_S, True, False, True, True),
    sp.log: FunctionInfo(_S, False, False, True, True),
    sp.asinh: FunctionInfo(_S, True, False, True, True),  # mpmath.iv by log(u + sqrt(u^2 + 1))
    sp.asin: FunctionInfo(_S, False, False, False),
    sp.acos: FunctionInfo(_S, False, False, False),
    sp.atanh: FunctionInfo(_S, False, False, False),
    sp.acosh: FunctionInfo(_S, False, False, False),
    sp.atan: FunctionInfo(_S, True, False, False, True),
    sp.sin: FunctionInfo(_S, True, False, False, True),
    sp.cos: FunctionInfo(_S, True, False, False, True),
    sp.sinh: FunctionInfo(_S, True, False, False, True),
    sp.cosh: FunctionInfo(_S, True, False, False, True),
    sp.tanh: FunctionInfo(_S, True, False, False, True),
    sp.erf: FunctionInfo(_S, True, False, False, True),
    # not smooth: a derivative ignores their jumps and kinks
    sp.Abs: FunctionInfo(_N, True, True, True, True),
    sp.Max: FunctionInfo(_N, True, True, True, True),
    sp.Min: FunctionInfo(_N, True, True, True, True),
    sp.sign: FunctionInfo(_N, True, True, False),
    sp.Heaviside: FunctionInfo(_N, True, False, False),
    sp.Piecewise: FunctionInfo(_N, True, True, False),
    sp.floor: FunctionInfo(_N, True, False, False),
    sp.ceiling: FunctionInfo(_N, True, False, False),
    sp.frac: FunctionInfo(_N, True, False, False),
}

NONSMOOTH = tuple(k for k, v in TABLE.items() if not v.smooth)


def info(func) -> FunctionInfo | None:
    """What the table says about a sympy class (None: unknown to the engine)."""
    for k, v in TABLE.items():
        if func is k or (isinstance(func, type) and issubclass(func, k)):
            return v
    return None


def nonsmooth(expr) -> bool:
    """Does expr contain a function whose derivative would ignore a jump or a kink?"""
    return sp.sympify(expr).has(*NONSMOOTH)


def smt_declines(expr) -> str | None:
    """Why z3's real arithmetic cannot state expr exactly (None: it can)."""
    for node in sp.preorder_traversal(sp.sympify(expr)):
        if node.is_Atom or isinstance(node, (sp.core.relational.Relational, sp.logic.boolalg.BooleanFunction,
                                             sp.functions.elementary.piecewise.ExprCondPair, sp.Tuple)):
            continue
        fi = info(type(node))
        if fi is None or not fi.smt:
            return f"{type(node).__name__} is not expressible in real arithmetic"
        if isinstance(node, sp.Pow) and not node.exp.is_Rational:
            return f"power with exponent {node.exp}"
    return None


def _total(fn) -> bool:
    """Defined for every real argument (no side condition), as the table says."""
    fi = info(type(fn))
    return fi is not None and fi.total


def side_conditions(e) -> list:
    """(expr, want) pairs that make e defined: denominators non-zero, log arguments
    positive, bases of fractional powers non-negative (positive for negative powers),
    arguments of asin/acos/atanh/acosh in range.  A function the table does not know is
    never shown defined (an impossible condition -1 >= 0)."""
    out = []
    e = sp.sympify(e)
    # sp.ordered: a set's iteration order follows the process's hash seed, and the order of
    # these conditions names decisions in a replayable certificate.  What sets no condition
    # (p**k with k a natural number, a total function) is left out before ordering: ordering
    # is slow on the thousands of powers of a sum written out term by term, and the order of
    # the rest is the same either way.
    for p in sp.ordered([p for p in e.atoms(sp.Pow) if not (p.exp.is_Integer and p.exp >= 0)]):
        if p.exp.is_Integer and p.exp < 0:
            out.append((p.base, "nonzero"))
        elif p.exp.is_Rational and not p.exp.is_Integer:
            out.append((p.base, "positive" if p.exp < 0 else "nonnegative"))
        elif not p.exp.is_number:
            out.append((p.base, "positive"))
    for lg in sp.ordered(e.atoms(sp.log)):
        out.append((lg.args[0], "positive"))
    if any(pw.args[-1].cond is not sp.true for pw in e.atoms(sp.Piecewise)):
        # no otherwise-branch: undefined (nan) where no condition holds, which is not a
        # condition on one expression's sign
        out.append((sp.S.NegativeOne, "nonnegative"))
    for fn in sp.ordered([fn for fn in e.atoms(sp.Function) if not _total(fn)]):
        if isinstance(fn, (sp.asin, sp.acos)):
            out.append((1 - fn.args[0] ** 2, "nonnegative"))
        elif isinstance(fn, sp.atanh):
            out.append((1 - fn.args[0] ** 2, "positive"))
        elif isinstance(fn, sp.acosh):
            out.append((fn.args[0] - 1, "nonnegative"))
        elif not isinstance(fn, sp.log):  # a log's condition is above; anything else is unknown
            out.append((sp.S.NegativeOne, "nonnegative"))
    return out
