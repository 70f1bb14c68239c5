"""Replay hints of the sign analysis: which alternative proved a sum positive.

``Facts`` proves e > 0 by trying alternatives in a fixed order; for a sum, first e minus
each strict slack (1 - p2 = (1 - p1 - p2) + p1), then the rest of its structural rules.
A certificate records which strategy reduced a residual to 0 or which sign form decided
a goal, but a replay then ran the sign analysis under that form from the start, and the
slacks subtracted in vain before the winning rule were most of its cost: 2.6 s of a fresh
clone's 37 s of claim CPU on the bundled paper, in 46 sums.

So a decision point of ``zero_by`` or ``prove_sign`` also records, for every sum whose
proof did not use the first alternative, which one it used (a slack's index, or "rest"),
named by a digest of the sum, its depth and the slacks.  A replay tries that alternative
first.  A hint only reorders: every alternative is still the same sound rule executed in
full, and one that fails (a hint from an edited declaration, a corrupt file, a digest
collision) falls back to the usual order.  So a hint cannot make the analysis prove what it
would not; at worst it costs time (and a replay that runs out of it is searched again).

The hints of a node are kept with its memoised answer (``Facts._remember``) and with a
decision point's memoised search, so what a point records does not depend on what this
process computed before it (which claims ran before in the same worker).
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from contextvars import ContextVar

import sympy as sp

from ..run.keys import Hasher

__all__ = ["collecting", "given", "found", "note", "hint_for", "encode", "decode", "SUFFIX"]

# the trace point of a decision point's hints is the point's name and this suffix
SUFFIX = " hints"

# hints found so far by the innermost node or decision point (None: nobody collects)
_FOUND: ContextVar[dict | None] = ContextVar("sign hints found", default=None)
# hints read from a certificate for the decision point being replayed
_GIVEN: ContextVar[dict | None] = ContextVar("sign hints given", default=None)


class _NodeHasher(Hasher):
    """Digests of the sums hints name.  A Dummy is hashed by its name alone, not by its
    order of first appearance in this hasher (the declaration keys' convention): a key must
    not depend on which nodes were hashed before it, and a collision only costs time."""

    def _node(self, node) -> bytes:
        if isinstance(node, sp.Dummy):
            return hashlib.sha256(f"Dummy|{node.name}".encode()).digest()
        return super()._node(node)


_HASHER = _NodeHasher()


def _key(e, depth: int, slacks=()) -> str:
    """A node's name: the sum, its depth and the slacks it is analysed with (the same sum
    can be proved by different alternatives under other facts)."""
    if len(_HASHER.memo) > 50_000:  # a long-lived worker: the memo only saves time
        _HASHER.memo.clear()
    h = hashlib.sha256(_HASHER.expr(e))
    for k in slacks:
        h.update(_HASHER.expr(k))
    return f"{depth}:{h.hexdigest()[:12]}"


@contextmanager
def collecting():
    """Collect the hints found inside into a new dict (yielded); the enclosing collector
    does not see them (the caller merges them when the work they belong to succeeded)."""
    token = None
    try:  # set inside the try: a time limit's signal may arrive at any bytecode
        token = _FOUND.set({})
        yield _FOUND.get()
    finally:
        if token is not None:
            _FOUND.reset(token)


def found(hints) -> None:
    """Pass hints of a finished piece of work (a memoised node) to the enclosing collector."""
    outer = _FOUND.get()
    if outer is not None and hints:
        outer.update(hints)


@contextmanager
def given(hints: dict | None):
    """The hints a certificate gives for the decision point replayed inside."""
    token = None
    try:
        token = _GIVEN.set(hints or None)
        yield
    finally:
        if token is not None:
            _GIVEN.reset(token)


def hint_for(e, depth: int, slacks=()):
    """(the given label for this node or None, its key or None when nothing is given)."""
    hints = _GIVEN.get()
    if hints is None:
        return None, None
    key = _key(e, depth, slacks)
    return hints.get(key), key


def note(e, depth: int, label: str, key: str | None = None, slacks=()) -> None:
    """Record that node (e, depth) was proved by alternative `label`.  (A replay records
    the hint it was given when that alternative proves the node: a hint that names an
    alternative the usual order would not have reached first stays in the record until a
    search writes it again, ``--no-certificates --update-certificates``; it costs time,
    never an answer.)"""
    outer = _FOUND.get()
    if outer is None:
        return
    outer[key or _key(e, depth, slacks)] = label


def encode(hints: dict) -> str:
    """A trace value: "key=label key=label ..." in key order (stable across runs)."""
    return " ".join(f"{k}={v}" for k, v in sorted(hints.items()))


def decode(text) -> dict:
    """The hints of a trace value; anything malformed is dropped (a hint is never trusted)."""
    out = {}
    if isinstance(text, str):
        for part in text.split():
            k, sep, v = part.partition("=")
            if sep and k and v:
                out[k] = v
    return out
