"""Mutants: plausible editing mistakes made to a claim's own formulas.

A mutant is the claim with one mistake in it -- a sign flipped, a term dropped, a constant
doubled, two symbols of the same domain swapped, a function replaced by a plausible
neighbour, an inequality or a monotonicity reversed, the other root of a quadratic, a
maximiser moved to a nearby point.  The gate is sensitive to a claim when it refutes
its mutants: a claim checked on too narrow a domain, or only at a few instances, lets
them through as silently as it passes itself.

Expression mistakes are generated here, for any sympy expression; which fields of a
claim carry expressions, and the mistakes particular to a kind (a reversed direction, the
other root), are the kinds' (``Kind.mutants``).  Every mutant has a stable label
(``field:operator@position``) so that a claim can explain why a surviving one is
harmless (``Claim.harmless_mutants``), and the choice is deterministic under the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import sympy as sp

from .model.short_text import short_str

__all__ = ["Mutant", "Candidate", "expression_mutants", "claim_mutants", "MAX_PER_CLAIM"]

MAX_PER_CLAIM = 24   # a few dozen at most: plausible mistakes, not every tree edit
_MAX_NODES = 4000    # larger expressions: mutate only near the root (the first nodes in preorder)


@dataclass(frozen=True)
class Mutant:
    """One mistake: a stable label, a readable description, the mutated claim, and the
    pair (original, mutated) of the expression it changed (None for a changed relation,
    which cannot be equivalent to the original)."""

    label: str
    description: str
    claim: object
    original: object = None
    mutated: object = None


# -------------------------------------------------------------- expression mistakes
def _preorder(expr, limit=_MAX_NODES):
    """(path, node) for the nodes of `expr`, root first; paths index into .args."""
    out, stack = [], [((), expr)]
    while stack and len(out) < limit:
        path, node = stack.pop()
        out.append((path, node))
        args = node.args if isinstance(node, sp.Basic) and not node.is_Atom else ()
        for i in range(len(args) - 1, -1, -1):
            stack.append((path + (i,), args[i]))
    return out


def _replace_at(expr, path, new):
    if not path:
        return new
    i = path[0]
    args = list(expr.args)
    args[i] = _replace_at(args[i], path[1:], new)
    return expr.func(*args)


def _constant_changes(c):
    """x2, /2, +1 of a number (the issue's "change a numeric constant")."""
    outs = [("double", c * 2), ("halve", c / 2), ("plus-one", c + 1)]
    return [(n, v) for n, v in outs if v != c]


def _neighbours(node):
    """Plausible wrong functions for a node: sqrt(u) -> u, exp(u) -> 1 + u,
    log(u) -> -log(u) (log(a/b) for log(b/a)), min <-> max."""
    out = []
    if isinstance(node, sp.Pow) and node.exp == sp.Rational(1, 2):
        out.append(("sqrt-to-identity", node.base))
    if isinstance(node, sp.Pow) and node.exp == sp.Rational(-1, 2):
        out.append(("rsqrt-to-reciprocal", 1 / node.base))
    if isinstance(node, sp.exp):
        out.append(("exp-to-linear", 1 + node.args[0]))
    if isinstance(node, sp.log):
        out.append(("log-inverted", -node))
    if isinstance(node, sp.Min):
        out.append(("min-to-max", sp.Max(*node.args)))
    if isinstance(node, sp.Max):
        out.append(("max-to-min", sp.Min(*node.args)))
    return out


def expression_mutants(expr, domain_groups=()) -> list:
    """Candidate mistakes in `expr`: (operator@position, describe, build) where describe()
    returns the readable description and build() the mutated expression.  Nothing is
    built or printed here: a claim keeps only a few dozen of its candidates, and building
    or printing costs as much as the expression is large.

    `domain_groups`: tuples of symbols that share a domain (swapping two of them is a
    plausible mistake: pi_a for pi_b)."""
    expr = sp.sympify(expr)
    if not isinstance(expr, sp.Expr):
        return []
    out = []

    def add(op, path, desc, new_node):
        where = ".".join(map(str, path)) or "root"
        out.append((f"{op}@{where}", desc, lambda: _replace_at(expr, path, new_node())))

    if expr != 0:
        add("negate", (), lambda: "the whole side negated (sign flip)", lambda: -expr)
    for path, node in _preorder(expr, limit=_MAX_NODES):
        if isinstance(node, sp.Add):
            for i, term in enumerate(node.args):
                add(f"term-sign-{i}", path + (i,), lambda term=term: f"the sign of the term {_short(term)} flipped "
                    "(+ for -)", lambda term=term: -term)
                rest = node.args[:i] + node.args[i + 1:]
                add(f"drop-term-{i}", path, lambda term=term: f"the term {_short(term)} dropped",
                    lambda rest=rest: sp.Add(*rest))
        elif isinstance(node, sp.Number) and node != sp.S.NegativeOne:
            for name, v in _constant_changes(node):
                add(f"const-{name}", path, lambda node=node, v=v: f"the constant {node} changed to {v}", lambda v=v: v)
        for name, new in _neighbours(node):
            add(name, path, lambda node=node, new=new: f"{_short(node)} replaced by {_short(new)}", lambda new=new: new)
    for group in domain_groups:
        syms = [s for s in group if expr.has(s)]
        for a_i in range(len(syms)):
            for b_i in range(a_i + 1, len(syms)):
                a, b = syms[a_i], syms[b_i]
                out.append((f"swap-{a}-{b}", lambda a=a, b=b: f"{a} and {b} swapped",
                            lambda a=a, b=b: expr.xreplace({a: b, b: a})))
    return out


def _short(e, n=60) -> str:
    return short_str(e, n)


def domain_groups(claim) -> list:
    """Symbols of the claim's domain grouped by their interval (same range, same role)."""
    groups: dict = {}
    try:
        items = list(claim.domain.sets.items())
    except AttributeError:
        return []
    for sym, interval in items:
        groups.setdefault(sp.srepr(interval), []).append(sym)
    return [tuple(sorted(g, key=sp.default_sort_key)) for g in groups.values() if len(g) > 1]


def field_mutants(claim, field_name: str, expr, groups, rebuild=None) -> list:
    """Candidate mutants of one expression field of a claim (built lazily: see Mutant.build);
    `rebuild(new_expr)` gives the mutated claim (default: the field replaced)."""
    rebuild = rebuild or (lambda new: replace(claim, **{field_name: new}))
    out = []
    for op, describe, build in expression_mutants(expr, groups):
        out.append(Candidate(f"{field_name}:{op}", lambda field=field_name, describe=describe: f"{field}: {describe()}",
                             expr, build, rebuild))
    return out


@dataclass(frozen=True)
class Candidate:
    """A mutant not built yet: its label, how to describe it and how to build it (a
    claim's expressions give thousands of candidates, of which a few dozen are chosen)."""

    label: str
    describe: object  # () -> the readable description
    original: object
    build_expr: object
    rebuild: object

    @property
    def description(self) -> str:
        return self.describe()

    def build(self):
        """The Mutant, or None when the mistake changes nothing, makes the formula
        meaningless (zoo, nan) or is rejected by the declaration."""
        try:
            new = self.build_expr()
            if new == self.original or (isinstance(new, sp.Basic) and new.has(sp.zoo, sp.nan)):
                return None
            return Mutant(self.label, self.description, self.rebuild(new), self.original, new)
        except Exception:  # noqa: BLE001 - a mistake the declaration itself rejects is no mutant
            return None


def at_mutants(claim) -> list:
    """Mistakes in a claimed point (``at`` of a stationarity or maximiser claim): each
    coordinate's formula mutated."""
    groups = domain_groups(claim)
    out = []
    for var, value in claim.at.items():
        def rebuild(new, var=var):
            return replace(claim, at={**claim.at, var: new})
        for m in field_mutants(claim, f"at[{var}]", value, groups, rebuild):
            out.append(m)
    return out


def nearby_point_mutants(claim) -> list:
    """The claimed maximiser moved to a nearby point: each coordinate 10% up and down."""
    out = []
    for var, value in claim.at.items():
        value = sp.sympify(value)
        for name, new in (("up-10pc", value * sp.Rational(11, 10)), ("down-10pc", value * sp.Rational(9, 10))):
            if new == value:
                continue
            try:
                mutated = replace(claim, at={**claim.at, var: new})
            except Exception:  # noqa: BLE001
                continue
            out.append(Mutant(f"at[{var}]:nearby-{name}", f"the claimed {var} moved {name.replace('pc', '%')}",
                              mutated, value, new))
    return out


def choose(candidates, seed, claim_id, limit=MAX_PER_CLAIM) -> list:
    """At most `limit` mutants, chosen deterministically under the seed: every kind of
    mistake (operator) is represented before a second of the same kind, and a candidate
    that builds to nothing (or to a mutant already chosen) gives way to the next."""
    rng = random.Random(f"mutants:{seed}:{claim_id}")
    by_op: dict = {}
    for c in candidates:
        op = c.label.split(":", 1)[1].split("@", 1)[0].rstrip("-0123456789")
        by_op.setdefault(op, []).append(c)
    for cs in by_op.values():
        rng.shuffle(cs)
    order = {id(c): i for i, c in enumerate(candidates)}
    chosen, seen = [], set()
    while len(chosen) < limit and any(by_op.values()):
        for op in sorted(by_op):
            if not by_op[op] or len(chosen) >= limit:
                continue
            c = by_op[op].pop()
            m = c.build() if isinstance(c, Candidate) else c
            if m is None:
                continue
            key = (m.label.split(":", 1)[0], m.mutated)
            if m.mutated is not None and key in seen:
                continue
            seen.add(key)
            chosen.append((order[id(c)], m))
    return [m for _, m in sorted(chosen, key=lambda x: x[0])]


def claim_mutants(claim, seed: int) -> list:
    """The mutants of a claim (its kind decides which fields and which kind mistakes)."""
    from .kinds import kind_of
    kind = kind_of(claim)
    return choose(kind.mutants(claim), seed, claim.id)
