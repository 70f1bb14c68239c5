"""Is an expression defined at every point of a domain?  Its side conditions (from the one
function table) proved symbolically, else by z3.  The mean value theorem, the corner
argument of the interval backend and the maximiser routes all need this."""

from __future__ import annotations

import time

import sympy as sp
from sympy import Product, Sum

from . import smt
from ..model.domain import Domain
from .functions import side_conditions
from .symbolic import Facts, prove_sign, with_ends
from .timebox import TimeUp, time_limit

__all__ = ["defined"]


def defined(e, domain, seconds: float, trace=None, at: str = "defined") -> bool:
    """Every side condition of e proven on the domain (symbolically, else by z3); a sum
    whose bound is a finite parameter, value by value (backends.instances)."""
    from .instances import instances, summands
    e = sp.sympify(e)
    if e.has(sp.nan, sp.zoo):
        # a term written out to nan (a Piecewise whose every condition is false there) or zoo
        return False
    if e.has(Sum, Product) and _defined_by_index(e, domain, seconds):
        return True
    split = instances(e, domain)
    if split is not None:
        # written out, a term 0 * log(x) is 0: each summand is checked over its index range
        # too, so that a sum undefined somewhere is not defined by its simplified terms
        sym, cases = split
        return all(all(f is not None and defined(f, dom_k, seconds, trace, at) for f, dom_k in summands(e, sym, v, dom))
                   and defined(ev, dom, seconds, trace, at) for v, ev, dom in cases)
    rep = domain.assumption_symbols()
    facts = Facts.from_relations(with_ends(domain), rep)
    for base, want in side_conditions(e):
        b = base.xreplace(rep)
        if b.is_number and want == "nonzero":
            ok = b != 0
        elif _polynomial(base):
            # sympy briefly, then z3, which decides polynomial signs at once (1 - (2x - 1)^2 > 0
            # took sympy its whole 1 s slice, z3 0.05 s), then sympy with its whole slice
            ok = _signed(b, want, facts, trace, at, min(0.1, seconds)) or _by_z3(base, want, domain, seconds) \
                or _signed(b, want, facts, trace, at, min(1.0, seconds))
        else:
            ok = _signed(b, want, facts, trace, at, min(1.0, seconds)) or _by_z3(base, want, domain, seconds)
        if not ok:
            return False
    return True


def _polynomial(base) -> bool:
    """A polynomial in its symbols (z3's real arithmetic states it exactly)."""
    syms = base.free_symbols
    return bool(syms) and base.is_polynomial(*syms)


def _signed(b, want, facts, trace, at, seconds) -> bool:
    """b's sign by sympy's sign analysis within `seconds` of CPU."""
    box = None
    try:
        with time_limit(seconds) as box:
            return bool(prove_sign(b, want, facts, trace, at=at))
    except TimeUp as exc:
        if exc.box is not box:
            raise  # an outer budget ran out: not this check's to swallow
        return False


def _by_z3(base, want, domain, seconds) -> bool:
    if want == "nonzero":
        return smt.check_goal(base * base, "positive", domain, min(1.0, seconds)).verdict == "unsat"
    return smt.check_goal(base, want, domain, min(1.0, seconds)).verdict == "unsat"


def _defined_by_index(e, domain, seconds: float) -> bool:
    """Every sum and product of e shown defined for a symbolic index, then e with each of
    them as an opaque real number: nothing is written out (the 63 values of G written out
    term by term, twice per claim, were most of the cost of the finite group sizes).

    The index k of Sum(f, (k, lo, hi)) is relaxed to a real number with lo <= k <= hi, once
    hi >= lo - 1 is shown (a range, possibly empty: sympy reads a reversed one as a negated
    sum over other indices) and lo, hi are integer polynomials of integer-valued symbols (a
    limit pi would sum k = 3 by the numbers' range(int(lo), ...), outside [pi, ...]): f's
    side conditions shown there hold at every integer index.  binomial(a, b) with
    integer-valued a and b is an integer (sympy defines it for all integers) and stands as an
    opaque real; u**n with n integer-valued needs n >= 0 or u != 0.  A summand with I in it
    is refused (the sum stands as a real number).  What this cannot show is left to the
    value-by-value split, so a failure decides nothing, and so does an exception on a shape
    this does not expect.  Untraced: the conditions are linear or of low degree and need no
    recorded route."""
    try:
        return _by_index(e, domain, seconds)
    except (TimeUp, KeyboardInterrupt):
        raise
    except Exception:  # noqa: BLE001 - an unexpected shape: the value-by-value route decides
        return False


def _by_index(e, domain, seconds: float) -> bool:
    # the route as a whole within `seconds` of CPU: a failure costs no more than that before
    # the value-by-value split is tried
    deadline = time.process_time() + seconds

    def shown(alternatives, dom) -> bool:
        left = deadline - time.process_time()
        return left > 0 and _shown(alternatives, dom, left)

    # a Range holds integers only (sympy refuses anything else), and may be infinite: its
    # values are not iterated
    integral = {s for s, st in domain.sets.items() if isinstance(st, sp.Range) or (
        isinstance(st, sp.FiniteSet) and all(sp.sympify(v).is_integer for v in st))}
    # z3 names a variable by its name alone: every symbol introduced here gets a name that
    # nothing in e or the domain has
    taken = {s.name for s in e.atoms(sp.Symbol) | set(domain.sets)}

    def fresh(stem):
        name = stem
        while name in taken:
            name += "_"
        taken.add(name)
        return sp.Symbol(name, real=True)

    opaque = {}
    for node in sp.ordered(e.atoms(Sum, Product)):
        if len(node.limits) != 1 or node.function.has(Sum, Product) or node.function.has(sp.I):
            return False
        var, lo, hi = node.limits[0]
        if not (_integer_valued(lo, integral) and _integer_valued(hi, integral)):
            return False
        k = fresh(f"{var.name}_index")
        inner = Domain({**domain.sets, k: sp.Interval(-sp.oo, sp.oo)}, tuple(domain.where) + (k >= lo, k <= hi))
        conds = _index_conditions(node.function.xreplace({var: k}), integral | {k}, fresh)
        if conds is None or not shown([(hi - lo + 1, "nonnegative")], domain) \
                or not all(shown(alternatives, inner) for alternatives in conds):
            return False
        opaque[node] = fresh(f"{var.name}_value")
    rest = e.xreplace(opaque)
    return all(shown([cond], domain) for cond in side_conditions(rest))


def _integer_valued(a, integral) -> bool:
    """An integer, or a polynomial with integer coefficients in integer-valued symbols (a
    constant such as pi or sqrt(2) is neither: sympy would make it its own generator)."""
    a = sp.sympify(a)
    if a.is_Integer:
        return True
    syms = a.free_symbols
    if not syms or not syms <= integral:
        return False
    try:
        poly = sp.Poly(a, *sorted(syms, key=str))
    except sp.PolynomialError:
        return False
    return set(poly.gens) <= integral and all(c.is_Integer for c in poly.coeffs())


def _index_conditions(f, integral, fresh):
    """The side conditions of a summand f over a real-relaxed index, each a list of
    alternatives (base, want) of which one must be shown; None when f has a piece this
    route does not handle.  Integer powers and binomials of integers are taken out first:
    the one table would ask a base to be positive, or not know binomial."""
    conds, pieces, inside = [], {}, []
    for node in sp.preorder_traversal(f):
        if isinstance(node, sp.binomial):
            if not all(_integer_valued(a, integral) for a in node.args):
                return None
            pieces[node] = fresh("binomial")
            inside.extend(node.args)
        elif isinstance(node, sp.Pow) and not node.exp.is_number and _integer_valued(node.exp, integral):
            conds.append([(node.exp, "nonnegative"), (node.base, "nonzero")])  # 0**0 = 1
            pieces[node] = fresh("power")
            inside.append(node.base)
    for part in [f.xreplace(pieces)] + inside:
        conds.extend([cond] for cond in side_conditions(part))
    return conds


def _shown(alternatives, domain, seconds) -> bool:
    """One of (base, want) shown on the domain: z3 first (mostly linear in the index here:
    it decides at once, either way), then a short sympy sign analysis."""
    for base, want in alternatives:
        b = sp.sympify(base)
        if b.is_number:
            if (b.is_nonzero if want == "nonzero" else getattr(b, f"is_{want}")) is True:
                return True
            continue
        if _by_z3(b, want, domain, min(1.0, seconds)):
            return True
        rep = domain.assumption_symbols()
        if _signed(b.xreplace(rep), want, Facts.from_relations(with_ends(domain), rep), None, "index",
                   min(0.5, seconds)):
            return True
    return False
