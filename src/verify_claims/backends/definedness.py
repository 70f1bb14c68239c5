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
        ok = False
        box = None
        try:
            with time_limit(min(1.0, seconds)) as box:
                ok = b.is_number and (b != 0 if want == "nonzero" else None) or prove_sign(
                    b, want, facts, trace, at=at)
        except TimeUp as exc:
            if exc.box is not box:
                raise  # an outer budget ran out: not this check's to swallow
            ok = False
        if not ok and want != "nonzero":
            ok = smt.check_goal(base, want, domain, min(1.0, seconds)).verdict == "unsat"
        elif not ok:
            ok = smt.check_goal(base * base, "positive", domain, min(1.0, seconds)).verdict == "unsat"
        if not ok:
            return False
    return True
