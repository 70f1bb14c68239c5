"""Content keys: what a verdict depends on, hashed.

A claim's *declaration key* changes whenever anything that can change its verdict
changes: its kind, id (the seed of its sample points), expressions, domain and `where`
relations, kind parameters and expectation; a simulation's run (and target) function by
the source of its defining package (``fingerprint.function_fingerprint``; the versions of
numpy and the other libraries are in every store key through the engine fingerprint).  Descriptive fields (title, paper
reference, note, the module it lives in, `uses`, a step's `because`, the explanations of
harmless mutants, the paper's display form, a declared narrowing) are not part of it:
editing a title does not re-verify a proof.

Expressions are hashed as Merkle trees over sympy's structure (type, then the hashes of
the arguments), with a memo per node, so a shared subexpression is hashed once and the
cost is linear in the size of the declaration.  Symbols are hashed with their name and
the assumptions they were declared with; Dummy symbols by their name and order of first
appearance (their process-local index would make every key new in every run).
"""

from __future__ import annotations

import dataclasses
import hashlib
import types

import sympy as sp

__all__ = ["Hasher", "declaration_key"]

# harmless_mutants: prose about the mutation score, never about a verdict
# narrowed / paper_domain: what the paper states beside what is verified (the reports show it,
# taken from today's declaration even for a stored result); no verdict depends on them
DESCRIPTIVE = frozenset({"title", "ref", "note", "source", "uses", "because", "harmless_mutants", "display",
                         "narrowed", "paper_domain"})
# optional fields added to a claim kind after its keys were in use (Limit.rate): hashed
# only when set, so a claim that leaves them unset keeps its key (and its certificate)
UNSET_UNHASHED = frozenset({"rate"})


class Hasher:
    """Stable sha256 digests of sympy expressions and plain Python values."""

    def __init__(self):
        self.memo: dict = {}
        self.dummies: dict = {}

    def expr(self, e) -> bytes:
        got = self.memo.get(e)
        if got is not None:
            return got
        # iterative post-order: declarations can be deep (a 20,000-term sum)
        stack = [(e, False)]
        while stack:
            node, ready = stack.pop()
            if node in self.memo:
                continue
            if not ready and node.args and not isinstance(node, (sp.Symbol, sp.Number)):
                stack.append((node, True))
                stack.extend((a, False) for a in node.args if isinstance(a, sp.Basic) and a not in self.memo)
                continue
            self.memo[node] = self._node(node)
        return self.memo[e]

    def _node(self, node) -> bytes:
        h = hashlib.sha256()
        h.update(type(node).__name__.encode())
        if isinstance(node, sp.Dummy):
            idx = self.dummies.setdefault(node, len(self.dummies))
            h.update(f"|{node.name}|{idx}".encode())
        elif isinstance(node, sp.Symbol):
            # the closure of the assumptions, as sympy's own equality has it: Symbol("p",
            # positive=True) == Symbol("p", positive=True, real=True), and which of the two
            # objects an expression holds depends on sympy's caches, i.e. on what the process
            # built before (the assumptions as given made a decision point's digest differ
            # between the search and the replay of a certificate)
            closure = getattr(node, "_assumptions0", None)
            if closure is None:
                closure = tuple(sorted(node.assumptions0.items()))
            h.update(f"|{node.name}|{closure}".encode())
        elif isinstance(node, sp.Float):
            h.update(f"|{node._mpf_}|{node._prec}".encode())
        elif isinstance(node, sp.Rational):
            h.update(f"|{node.p}/{node.q}".encode())
        elif node.is_Atom:
            h.update(f"|{node!s}".encode())
        for a in node.args:
            h.update(b"(")
            h.update(self.expr(a) if isinstance(a, sp.Basic) else self.value(a))
            h.update(b")")
        return h.digest()

    def value(self, v) -> bytes:
        """Any declaration value: sympy objects, numbers, strings, containers, dataclasses."""
        if isinstance(v, sp.Basic):
            return self.expr(v)
        h = hashlib.sha256()
        if v is None or isinstance(v, (bool, int, float, str)):
            h.update(f"{type(v).__name__}|{v!r}".encode())
        elif isinstance(v, (list, tuple)):
            h.update(b"seq")
            for x in v:
                h.update(self.value(x))
        elif isinstance(v, dict):
            h.update(b"map")
            items = sorted((self.value(k), self.value(x)) for k, x in v.items())
            for k, x in items:
                h.update(k + x)
        elif dataclasses.is_dataclass(v):
            h.update(type(v).__name__.encode())
            for f in dataclasses.fields(v):
                if f.name in DESCRIPTIVE:
                    continue
                h.update(f.name.encode())
                h.update(self.value(getattr(v, f.name)))
        elif isinstance(v, types.FunctionType):
            # a simulation's run or target function: by its defining package's source
            # (run.fingerprint.function_fingerprint), never by repr, which holds a memory
            # address that differs in every process; numpy's version is in every store key
            # through the engine fingerprint
            from .fingerprint import function_fingerprint
            h.update(b"function|" + function_fingerprint(v).encode())
        elif hasattr(v, "sets") and hasattr(v, "where"):  # a Domain built by hand
            h.update(b"domain")
            h.update(self.value(dict(v.sets)))
            h.update(self.value(tuple(v.where)))
        else:
            h.update(f"{type(v).__name__}|{v!r}".encode())
        return h.digest()


def declaration_key(claim) -> str:
    """The hex digest of everything in a claim's declaration that can change its verdict.
    (One Hasher per claim: Dummy symbols are numbered by first appearance in the claim.)"""
    hasher = Hasher()
    h = hashlib.sha256()
    h.update(f"kind={claim.kind}|id={claim.id}".encode())
    for f in dataclasses.fields(claim):
        if f.name in DESCRIPTIVE or f.name in ("id",):
            continue
        val = getattr(claim, f.name)
        if val is None and f.name in UNSET_UNHASHED:
            continue
        if f.name == "expect":  # the reason is prose; what is expected is not
            val = (val.holds, val.paper_error)
        h.update(f.name.encode())
        h.update(hasher.value(val))
    return h.hexdigest()
