"""The domain of a claim: one set per symbol, plus optional relations between symbols.

A derivation declares domains with plain sympy sets (``Interval.open(0, oo)``,
``Interval(0, 1)``, ``Interval.Lopen(0, 1)``, ``FiniteSet(2, 3, 4)``, ``Range(2, 9)``)
and, where symbols are coupled (probabilities summing to at most one), with sympy
relations in ``where``.  The engine derives two things from it: sympy assumptions
for the prover (a symbol on ``(0, oo)`` becomes ``positive``, here) and seeded sample
points for the numeric checker (``backends.sampling``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Domain", "DeclarationError", "as_domain"]


class DeclarationError(ValueError):
    """A claim or derivation module is malformed (names the claim and the cause)."""


_SUPPORTED_SETS = (sp.Interval, sp.FiniteSet, sp.Range)


@dataclass(frozen=True)
class Domain:
    """Sets per symbol and relations that every point of the domain satisfies."""

    sets: dict = field(default_factory=dict)
    where: tuple = ()

    def symbols(self):
        return tuple(sorted(self.sets, key=lambda s: s.name))

    def validate(self, claim_id: str, free_symbols) -> None:
        """Raise DeclarationError unless every free symbol has a usable, non-empty set."""
        for sym, st in self.sets.items():
            if not isinstance(sym, sp.Symbol):
                raise DeclarationError(f"claim {claim_id!r}: domain key {sym!r} is not a sympy Symbol")
            if st is sp.S.EmptySet or not isinstance(st, _SUPPORTED_SETS):
                if st is sp.S.EmptySet or (isinstance(st, sp.Set) and st.is_empty):
                    raise DeclarationError(
                        f"claim {claim_id!r}: the domain of {sym} is empty; check the interval ends")
                raise DeclarationError(
                    f"claim {claim_id!r}: the domain of {sym} is {st!r}; use sympy Interval, "
                    "FiniteSet or Range")
            if isinstance(st, sp.Interval) and (st.start.is_extended_real is False or st.end.is_extended_real is False):
                raise DeclarationError(f"claim {claim_id!r}: the interval of {sym} has non-real ends")
            if len(st.free_symbols) > 0:
                raise DeclarationError(
                    f"claim {claim_id!r}: the set of {sym} depends on {sorted(map(str, st.free_symbols))};"
                    " express coupled symbols with `where=` relations instead")
        missing = sorted(str(s) for s in free_symbols if s not in self.sets)
        if missing:
            raise DeclarationError(
                f"claim {claim_id!r}: symbol(s) {', '.join(missing)} have no domain; "
                "add them to `domain=`")
        for rel in self.where:
            if not isinstance(rel, sp.core.relational.Relational):
                raise DeclarationError(
                    f"claim {claim_id!r}: `where` entry {rel!r} is not a sympy relation "
                    "(such as p1 + p2 < 1)")
            unknown = sorted(str(s) for s in rel.free_symbols if s not in self.sets)
            if unknown:
                raise DeclarationError(
                    f"claim {claim_id!r}: `where` relation {rel} uses {', '.join(unknown)} with no domain")

    # ------------------------------------------------------------------ prover side
    def assumption_symbols(self) -> dict:
        """Map each declared symbol to a fresh symbol carrying what its set implies.

        sympy can only use per-symbol facts (sign, integrality), so an interval such
        as [0, 1] becomes ``nonnegative``; the upper end is lost, which is why a failed
        simplification is never a refutation, only a fall-back to the numeric check.
        """
        out = {}
        for sym, st in self.sets.items():
            assumptions = {"real": True}
            if isinstance(st, sp.Interval):
                lo, hi = st.start, st.end
                if lo.is_finite and (lo > 0 or (lo == 0 and st.left_open)):
                    assumptions = {"positive": True}
                elif lo.is_finite and lo >= 0:
                    assumptions = {"nonnegative": True}
                elif hi.is_finite and (hi < 0 or (hi == 0 and st.right_open)):
                    assumptions = {"negative": True}
                elif hi.is_finite and hi <= 0:
                    assumptions = {"nonpositive": True}
            else:  # FiniteSet / Range of numbers
                elems = list(st) if isinstance(st, sp.FiniteSet) else [st.inf, st.sup]
                if all(sp.sympify(e).is_integer for e in elems if sp.sympify(e).is_finite):
                    assumptions = {"integer": True}
                finite = [sp.sympify(e) for e in elems if sp.sympify(e).is_finite]
                if finite and min(finite) > 0:
                    assumptions["positive"] = True
                elif finite and min(finite) >= 0:
                    assumptions["nonnegative"] = True
            out[sym] = sp.Symbol(sym.name, **assumptions)
        return out

def as_domain(domain, where=()) -> Domain:
    """Accept a Domain or a plain {symbol: set} mapping (the usual declaration)."""
    if isinstance(domain, Domain):
        if where:
            return Domain(dict(domain.sets), tuple(domain.where) + tuple(where))
        return domain
    if domain is None:
        domain = {}
    if not isinstance(domain, dict):
        raise DeclarationError(f"domain must be a dict of symbol -> sympy set, got {type(domain).__name__}")
    return Domain(dict(domain), tuple(where))
