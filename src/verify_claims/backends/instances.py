"""A finite parameter that sets a summation bound: the expression value by value.

P_G of a binary question is a sum over the number of better answers among the other G - 1
outputs: Sum(..., (k, 0, G - 2)).  With G a symbol no sound backend can state it (no
polynomial, no box enclosure of an unevaluated sum), but each G of a finite domain
({2, ..., 64}) gives an explicit polynomial.  ``instances`` splits an expression and its
domain into those explicit cases, so that a goal is decided for every value and the
certificate says which method decided each ("certified per G").  A domain with more than
MAX_INSTANCES values is not split: the claim stays with the numbers.
"""

from __future__ import annotations

import sympy as sp

from ..model.domain import Domain

__all__ = ["instances", "written_out", "MAX_INSTANCES"]

MAX_INSTANCES = 128


def _bound_symbols(e) -> set:
    out = set()
    for node in e.atoms(sp.Sum, sp.Product):
        for lim in node.limits:
            for b in lim[1:]:
                out |= sp.sympify(b).free_symbols
    return out


def written_out(e):
    """Every sum and product with integer bounds written out term by term.  Term by term,
    not with doit(): each term simplifies on its own (k x^k / x is x^(k-1) once k is a
    number), where doit() may collect a common denominator and hide a polynomial."""
    def expand(node):
        if isinstance(node, (sp.Sum, sp.Product)) and len(node.limits) == 1:
            var, lo, hi = node.limits[0]
            if lo.is_Integer and hi.is_Integer:
                body = written_out(node.function)
                terms = [body.xreplace({var: sp.Integer(i)}) for i in range(int(lo), int(hi) + 1)]
                return sp.Add(*terms) if isinstance(node, sp.Sum) else sp.Mul(*terms)
        return node
    return e.replace(lambda n: isinstance(n, (sp.Sum, sp.Product)), expand)


def instances(e, domain: Domain):
    """(symbol, [(value, expression, domain)]) when `e` has a sum or product whose bounds
    depend on a symbol with a finite discrete domain (at most MAX_INSTANCES values): per
    value, `e` with the symbol replaced and the sums written out, on the domain of the
    other symbols.  None when there is nothing to split."""
    e = sp.sympify(e)
    if not e.has(sp.Sum, sp.Product):
        return None
    cands = sorted((s for s in _bound_symbols(e)
                    if isinstance(domain.sets.get(s), (sp.FiniteSet, sp.Range))), key=str)
    if not cands:
        return None
    s = cands[0]
    st = domain.sets[s]
    if isinstance(st, sp.Range) and not st.size.is_finite or len(st) > MAX_INSTANCES:
        return None
    out = []
    rest = {k: v for k, v in domain.sets.items() if k != s}
    for v in st:
        sub = {s: sp.sympify(v)}
        where = []
        empty = False
        for rel in domain.where:
            r = sp.sympify(rel).xreplace(sub)
            if r is sp.false:
                empty = True
            elif r is not sp.true:
                where.append(r)
        if empty:
            continue  # no domain point has this value
        ev = written_out(e.xreplace(sub))
        out.append((sub[s], ev, Domain(dict(rest), tuple(where))))
    return s, out
