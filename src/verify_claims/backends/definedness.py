"""Is an expression defined at every point of a domain?  Its side conditions (from the one
function table) proved symbolically, else by z3.  The mean value theorem, the corner
argument of the interval backend and the maximiser routes all need this."""

from __future__ import annotations

from . import smt
from .functions import side_conditions
from .symbolic import Facts, prove_sign, with_ends
from .timebox import TimeUp, time_limit

__all__ = ["defined"]


def defined(e, domain, seconds: float, trace=None, at: str = "defined") -> bool:
    """Every side condition of e proven on the domain (symbolically, else by z3); a sum
    whose bound is a finite parameter, value by value (backends.instances)."""
    from .instances import instances, summands
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
