"""The domain of a claim: one set per symbol, plus optional relations between symbols.

A derivation declares domains with plain sympy sets (``Interval.open(0, oo)``,
``Interval(0, 1)``, ``Interval.Lopen(0, 1)``, ``FiniteSet(2, 3, 4)``, ``Range(2, 9)``)
and, where symbols are coupled (probabilities summing to at most one), with sympy
relations in ``where``.  The engine derives two things from it: sympy assumptions
for the prover (a symbol on ``(0, oo)`` becomes ``positive``) and seeded sample points
for the numeric checker, including points pressed against every boundary.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import mpmath
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

    # ------------------------------------------------------------------ numeric side
    def sample(self, n: int, rng: random.Random, dps: int, max_tries: int = 200, edges: bool = True):
        """Return up to n points (dicts symbol -> mpf) satisfying every `where` relation.

        A quarter of the points press one or more coordinates against a boundary
        (closed ends exactly, open ends at distances 1e-3 ... 1e-20), because that is
        where the paper's statements are delicate.  Raises DeclarationError if the
        relations reject every candidate: the domain is then (numerically) empty.
        """
        syms = self.symbols()
        checks = self._where_fns()
        kinds = [type(rel) for rel in self.where]
        points, tries = [], 0
        with mpmath.workdps(dps):
            while len(points) < n:
                edge = edges and len(points) % 4 == 3
                pt = {s: _sample_set(self.sets[s], rng, edge and rng.random() < 0.7) for s in syms}
                tries += 1
                if all(_holds(k, f(*[pt[s] for s in syms])) for k, f in zip(kinds, checks)):
                    points.append(pt)
                elif tries > max_tries + 20 * n and len(points) == 0:
                    raise DeclarationError(
                        "domain appears empty: no sampled point satisfies "
                        + " and ".join(str(r) for r in self.where))
                elif tries > 50 * n + max_tries:
                    break
        return points

    def contains(self, pt, dps: int) -> bool:
        """Does the point satisfy every `where` relation?  (Per-symbol sets are the
        sampler's business; this guards points built by moving one coordinate.)"""
        return all(_holds(type(rel), v) for rel, v in zip(self.where, self.where_values(pt, dps)))

    def where_values(self, pt, dps: int) -> list:
        """lhs - rhs of every `where` relation at the point."""
        syms = self.symbols()
        with mpmath.workdps(dps + 10):
            return [f(*[pt[s] for s in syms]) for f in self._where_fns()]

    def _where_fns(self):
        # compiled once per domain: contains() runs per monotonicity pair and per rival
        fns = self.__dict__.get("_compiled_where")
        if fns is None:
            syms = self.symbols()
            fns = [sp.lambdify(syms, rel.lhs - rel.rhs, modules="mpmath") for rel in self.where]
            object.__setattr__(self, "_compiled_where", fns)
        return fns


def _holds(kind, value) -> bool:
    if isinstance(value, mpmath.mpc):
        return False
    if kind is sp.StrictLessThan:
        return value < 0
    if kind is sp.LessThan:
        return value <= 0
    if kind is sp.StrictGreaterThan:
        return value > 0
    if kind is sp.GreaterThan:
        return value >= 0
    if kind is sp.Unequality:
        return value != 0
    if kind is sp.Equality:
        return value == 0
    raise DeclarationError(f"unsupported relation {kind.__name__} in `where`")


_EDGE_GAPS = [mpmath.mpf(10) ** -k for k in (3, 6, 10, 15, 20)]


def _sample_set(st, rng: random.Random, edge: bool):
    """One number from a sympy set; with edge=True, one pressed against an end."""
    if isinstance(st, sp.FiniteSet):
        return mpmath.mpf(sp.Float(rng.choice(list(st)), 50)) if not edge else mpmath.mpf(
            sp.Float(rng.choice([min(st), max(st)]), 50))
    if isinstance(st, sp.Range):
        # respect the step: Range(1, 10, 2) is {1, 3, 5, 7, 9}
        if st.size.is_finite:
            k = rng.choice([0, int(st.size) - 1]) if edge else rng.randrange(int(st.size))
            return mpmath.mpf(int(st[k]))
        start = st.inf if st.inf.is_finite else st.sup
        step = abs(st.step) if st.inf.is_finite else -abs(st.step)
        k = rng.choice([0, 1, 1000]) if edge else rng.randrange(1000)
        return mpmath.mpf(int(start + k * step))
    lo, hi = st.start, st.end
    flo = mpmath.mpf(sp.Float(lo, 60)) if lo.is_finite else None
    fhi = mpmath.mpf(sp.Float(hi, 60)) if hi.is_finite else None
    if edge:
        side = rng.choice(["lo", "hi"])
        gap = rng.choice(_EDGE_GAPS)
        if side == "lo" and flo is not None:
            if not st.left_open and rng.random() < 0.3:
                return flo
            width = (fhi - flo) if fhi is not None else mpmath.mpf(1)
            return flo + gap * min(width, 1)
        if side == "hi" and fhi is not None:
            if not st.right_open and rng.random() < 0.3:
                return fhi
            width = (fhi - flo) if flo is not None else mpmath.mpf(1)
            return fhi - gap * min(width, 1)
        # an infinite end: press towards it with a large magnitude beyond the finite end
        big = 1 / gap
        if side == "hi" or flo is not None:
            return (flo if flo is not None else 0) + big
        return (fhi if fhi is not None else 0) - big
    if flo is not None and fhi is not None:
        x = flo + (fhi - flo) * mpmath.mpf(rng.random())
        if x == flo and st.left_open or x == fhi and st.right_open:
            x = (flo + fhi) / 2
        return x
    # unbounded: mix of moderate values and log-spread magnitudes
    mag = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-4, 4)) if rng.random() < 0.5 else mpmath.mpf(
        rng.uniform(0, 10))
    if mag == 0:
        mag = mpmath.mpf("0.5")
    if flo is not None:
        return flo + mag
    if fhi is not None:
        return fhi - mag
    return mag if rng.random() < 0.5 else -mag


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
