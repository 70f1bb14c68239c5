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

__all__ = ["instances", "instance_values", "written_out", "written_once", "summands", "MAX_INSTANCES", "MAX_TERMS"]

MAX_INSTANCES = 128
MAX_TERMS = 20000  # a longer sum is left as it is (the backends then decline it)


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
            if lo.is_Integer and hi.is_Integer and int(hi) - int(lo) + 1 <= MAX_TERMS:
                body = written_out(node.function)
                terms = [body.xreplace({var: sp.Integer(i)}) for i in range(int(lo), int(hi) + 1)]
                return sp.Add(*terms) if isinstance(node, sp.Sum) else sp.Mul(*terms)
        return node
    return e.replace(lambda n: isinstance(n, (sp.Sum, sp.Product)), expand)


def summands(e, sym, value, domain: Domain):
    """[(expression, domain)] whose definedness definedness must check for e at sym = value,
    besides the written-out e: written out, a term 0 * log(x) is simplified to 0 and its
    singular factor is lost.  Per sum or product, the functions and powers of its summand
    (each substituted alone, for every index value, so nothing is multiplied by 0), as one
    sum of those pieces; a sum that is not written out is returned as it stands; None for a
    piece that is not real (sqrt(-1) at some index), which no domain point makes defined."""
    out = []
    for node in sp.ordered(sp.sympify(e).xreplace({sym: value}).atoms(sp.Sum, sp.Product)):
        if len(node.limits) != 1:
            out.append((node, domain))
            continue
        var, lo, hi = node.limits[0]
        if not (lo.is_Integer and hi.is_Integer) or int(hi) - int(lo) + 1 > MAX_TERMS:
            out.append((node, domain))
            continue
        pieces = [a for a in node.function.atoms(sp.Pow, sp.Function) if a.has(var)]
        if any(p.has(sp.Sum, sp.Product) for p in pieces):
            out.append((node, domain))
            continue
        subs = {p.xreplace({var: sp.Integer(i)}) for p in pieces for i in range(int(lo), int(hi) + 1)}
        if any(p.is_number and p.is_extended_real is False for p in subs):
            out.append((None, domain))  # sqrt(-1) in some term: not defined, whatever multiplies it
            continue
        subs |= {a for a in node.function.atoms(sp.Pow, sp.Function) if not a.has(var)}
        if subs:
            out.append((sp.Add(*sp.ordered(subs)), domain))
    return out


def instances(e, domain: Domain, written: bool = True):
    """(symbol, [(value, expression, domain)]) when `e` has a sum or product whose bounds
    depend on a symbol with a finite discrete domain (at most MAX_INSTANCES values): per
    value, `e` with the symbol replaced and (`written`) the sums written out, on the domain
    of the other symbols.  None when there is nothing to split.  Not written out, each
    value's sums have integer bounds: a backend that adds them up itself (Bernstein) is
    spared writing out 63 sums as sympy expressions, the others get ``written_once``.

    Kept on the domain per expression: a claim's goal, its definedness and its identity
    split the same expression (63 values written out) several times."""
    e = sp.sympify(e)
    memo = domain.__dict__.get("_instances")
    if memo is None:
        memo = {}
        object.__setattr__(domain, "_instances", memo)
    if (e, written) not in memo:
        memo[(e, written)] = _instances(e, domain, written)
    got = memo[(e, written)]
    return None if got is None else (got[0], list(got[1]))


_WRITTEN: dict = {}


def written_once(e):
    """written_out(e), kept for the next backend that asks for the same instance."""
    got = _WRITTEN.get(e)
    if got is None:
        if len(_WRITTEN) > 512:
            _WRITTEN.clear()
        got = _WRITTEN[e] = written_out(e)
    return got


def instance_values(e, domain: Domain):
    """(symbol, [(value, domain of the other symbols)]) for the finite parameter that sets
    a summation bound of `e` (see ``instances``), nothing written out; None when there is
    nothing to split."""
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
        out.append((sub[s], Domain(dict(rest), tuple(where))))
    return s, out


def _instances(e, domain: Domain, written: bool):
    split = instance_values(e, domain)
    if split is None:
        return None
    s, values = split
    return s, [(v, written_once(e.xreplace({s: v})) if written else e.xreplace({s: v}), dom) for v, dom in values]
