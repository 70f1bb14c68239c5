"""No silent narrowing: a claim verified on a narrower domain than the paper states says so.

A claim may be declared on fewer cases than the paper's statement covers: a few instances
of a parameter (beta in {1/10, 1, 10} for "every beta > 0"), an interval cut short for the
numbers (mu in [1/10, 9/10] for "mu in (0, 1)"), a fixed group size (G = 3 for every G).
Its verdict is then a verdict on the narrower statement, and the claim declares it:

    narrowed=Narrowed(paper="every beta > 0", verified="beta in {1/10, 1, 10}",
                      reason="a closed form is only available at these instances")

The declaration is description (never part of a claim's key: a verdict does not depend on
it); every report prints it next to the verdict and counts such claims.

A guard (:func:`undeclared_restrictions`) looks for what is easy to forget: a claim
expected to hold whose domain gives a symbol only finitely many values (a FiniteSet, a
finite Range), an interval with an end other than 0, 1 or -1 (a cut, [2, oo) or
[1/10, 9/10]), or a `where` relation bounding one symbol by such a number (beta <= 10).  Such a claim must declare ``narrowed=`` or say that the set *is* the
paper's own domain, ``paper_domain={G: "Section 2.3.1 treats groups of two"}``.  A claim
expected to be refuted needs neither (a counterexample at an instance refutes a "for
all").  The guard cannot know what the paper states: a domain that is narrower without
looking cut (beta in (0, 1] for every beta > 0, a formula written for three outputs) is
found by reading the paper, and declared the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .domain import DeclarationError

__all__ = ["Narrowed", "undeclared_restrictions", "narrowing_json", "paper_domain_json", "validate_narrowing",
           "restriction_of"]

_FIELDS = {
    "paper": "the domain (or statement) the paper gives, e.g. 'every beta > 0' or 'any group size G'",
    "verified": "what is verified instead, e.g. 'beta in {1/10, 1, 10}' or 'G = 3'",
    "reason": "why the claim is verified on less, e.g. 'the expectation is a finite sum only for a fixed G'",
}


@dataclass(frozen=True)
class Narrowed:
    """The claim is verified on a narrower domain than the paper states.

    ``paper``: the paper's domain (LaTeX in $...$ or prose); ``verified``: what is verified
    instead; ``reason``: why.  All three are required and non-empty."""

    paper: str
    verified: str
    reason: str

    def to_json(self) -> dict:
        return {"declared": True, "paper": self.paper, "verified": self.verified, "reason": self.reason}


def _nice(st) -> str:
    """A set in plain words: {1/10, 1, 10}, {2, 3, ..., 40}, [1/10, 9/10], (0, 1/25]."""
    if isinstance(st, sp.FiniteSet):
        return "{" + ", ".join(str(e) for e in sorted(st, key=lambda e: float(e) if e.is_real else 0)) + "}"
    if isinstance(st, sp.Range):
        lo, hi, step = st.inf, st.sup, st.step
        if st.size is not sp.oo and st.size <= 4:
            return "{" + ", ".join(str(e) for e in st) + "}"
        hi_s = "..." if hi is sp.oo else f"..., {hi}"
        return "{" + f"{lo}, {lo + abs(step)}, {hi_s}" + "}"
    if isinstance(st, sp.Interval):
        left = "(" if st.left_open or st.start.is_infinite else "["
        right = ")" if st.right_open or st.end.is_infinite else "]"
        return f"{left}{st.start}, {st.end}{right}".replace("oo", "∞")
    return str(st)


_PLAIN_ENDS = (sp.Integer(0), sp.Integer(1), sp.Integer(-1))


def restriction_of(st) -> str | None:
    """Why a symbol's set looks narrower than a "for all" (None when it does not): finitely
    many values, or an interval with an end other than 0, 1, -1 or infinity."""
    if isinstance(st, sp.FiniteSet):
        return f"only the value{'s' if len(st) > 1 else ''} {_nice(st)} (instances)"
    if isinstance(st, sp.Range):
        if st.size is sp.oo or (st.size.is_finite is False):
            return None
        return f"only the values {_nice(st)} (finitely many instances)"
    if isinstance(st, sp.Interval):
        ends = [e for e in (st.start, st.end) if e.is_finite and e not in _PLAIN_ENDS]
        if ends:
            return f"the interval {_nice(st)}, cut at {', '.join(str(e) for e in ends)}"
    return None


def undeclared_restrictions(claim) -> list:
    """[(symbol name, what is verified in words, why)] for every symbol of a claim expected to
    hold whose set (or a `where` bound on it alone) looks narrower than a "for all" and that
    neither ``narrowed=`` nor ``paper_domain=`` accounts for.  Empty for claims expected to be
    refuted and for summaries."""
    if not claim.expect.holds or claim.kind == "summary" or getattr(claim, "narrowed", None) is not None:
        return []
    own = {str(k) for k in (getattr(claim, "paper_domain", None) or {})}
    out = []
    for sym, st in sorted(claim.domain.sets.items(), key=lambda kv: str(kv[0])):
        why = restriction_of(st)
        if why and str(sym) not in own:
            out.append((str(sym), f"{sym} in {_nice(st)}", why))
    for rel in claim.domain.where:  # a `where` bound on one symbol cuts its range as an interval would
        cut = _where_cut(rel)
        if cut and cut[0] not in own and cut[0] not in {s for s, _, _ in out}:
            out.append(cut)
    return out


def _where_cut(rel):
    """(symbol, relation, why) for a `where` relation that bounds a single symbol linearly by a
    number other than 0, 1 or -1 (beta <= 10, 2*p >= 1); None for couplings of symbols
    (p1 + p2 < 1) and for anything that is not such a bound."""
    if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    free = rel.free_symbols
    if len(free) != 1:
        return None
    (sym,) = free
    try:
        d = sp.expand(rel.lhs - rel.rhs)
        slope = d.diff(sym)
        if slope.free_symbols or slope == 0:  # not linear in the symbol: not a plain bound
            return None
        end = sp.nsimplify(-d.subs(sym, 0) / slope)
    except Exception:  # noqa: BLE001 - description must never fail a declaration
        return None
    if not end.is_finite or end in _PLAIN_ENDS:
        return None
    return (str(sym), str(rel), f"the relation {rel} in `where`, cut at {end}")


def guard_message(claim, found) -> str:
    """What to write, for an undeclared restriction (file, claim, symbol, the fix)."""
    syms = ", ".join(f"{s} ({why})" for s, _, why in found)
    first = found[0][0]
    return (f"{claim.source or '?'} [{claim.id}]: the domain gives {syms}, and the claim does not say whether "
            "this is narrower than the paper's statement. Add narrowed=Narrowed(paper=\"<the paper's domain>\", "
            "verified=\"<what is verified instead>\", reason=\"<why>\") if the paper states more, or "
            f"paper_domain={{{first}: \"<where the paper restricts {first} so>\"}} if this is the paper's own domain")


def validate_narrowing(claim) -> None:
    """DeclarationError for a malformed ``narrowed=`` or ``paper_domain=``, naming the claim
    and what to write."""
    n = claim.narrowed
    if isinstance(n, dict):
        extra = sorted(set(n) - set(_FIELDS))
        if extra:
            raise DeclarationError(f"claim {claim.id!r}: narrowed= has unknown key(s) {', '.join(extra)}; "
                                   "use Narrowed(paper=..., verified=..., reason=...)")
        n = claim.narrowed = Narrowed(**{k: n.get(k, "") for k in _FIELDS})
    if n is not None:
        if not isinstance(n, Narrowed):
            raise DeclarationError(
                f"claim {claim.id!r}: narrowed= is a {type(n).__name__}; use verify_claims.Narrowed(paper=..., "
                "verified=..., reason=...)")
        for name, what in _FIELDS.items():
            v = getattr(n, name)
            if not isinstance(v, str) or not v.strip():
                raise DeclarationError(f"claim {claim.id!r}: narrowed= needs a non-empty {name}=: {what}")
        claim.narrowed = Narrowed(**{k: getattr(n, k).strip() for k in _FIELDS})
    pd = claim.paper_domain
    if not isinstance(pd, dict):
        raise DeclarationError(f"claim {claim.id!r}: paper_domain= must be a dict {{symbol: \"where the paper "
                               "restricts it so\"}}")
    names = {str(s): st for s, st in claim.domain.sets.items()}
    for k, v in pd.items():
        name = str(k)
        if not isinstance(k, (sp.Symbol, str)) or name not in names:
            raise DeclarationError(f"claim {claim.id!r}: paper_domain= names {k!r}, which is not a symbol of "
                                   "the claim's domain")
        if not isinstance(v, str) or not v.strip():
            raise DeclarationError(f"claim {claim.id!r}: paper_domain[{name}] needs a non-empty reason: where the "
                                   f"paper restricts {name} to {_nice(names[name])}")


def narrowing_json(claim) -> dict | None:
    """The claim's narrowing as claims.json records it: the declaration, or what the guard
    found undeclared (``declared: false``), or None."""
    n = getattr(claim, "narrowed", None)
    if isinstance(n, Narrowed):
        return n.to_json()
    try:
        found = undeclared_restrictions(claim)
    except Exception:  # noqa: BLE001 - description must never decide a verdict
        found = []
    if not found:
        return None
    return {"declared": False, "paper": "",
            "verified": "; ".join(text for _, text, _ in found),
            "reason": "not declared: " + guard_message(claim, found)}


def paper_domain_json(claim) -> dict:
    """{symbol name: where the paper restricts it so} for the sets declared as the paper's own."""
    pd = getattr(claim, "paper_domain", None) or {}
    names = {str(s): st for s, st in claim.domain.sets.items()} if hasattr(claim, "domain") else {}
    return {str(k): {"set": _nice(names[str(k)]) if str(k) in names else "", "reason": str(v)}
            for k, v in sorted(pd.items(), key=lambda kv: str(kv[0]))}
