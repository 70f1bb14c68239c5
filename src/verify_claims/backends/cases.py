"""Case splits: an identity with Min, Max, Abs, sign or Piecewise in it, proved branch by branch.

sympy's zero tests cannot see through a kink: Min(1 + eps, Max(x, 1 - eps)) - x is 0 on
the band |x - 1| <= eps but no rewriting of it is 0.  Here such an expression is split
into branches, each a conjunction of conditions under which every such function is one
of its arguments (Min(a, b) is a where a <= b, b where a > b; Abs(u) is u or -u; sign(u)
is 1, -1 or 0; a Piecewise is the value of its first true condition), until no kink is
left.  The branches cover the domain, so the identity holds when each branch is

- empty: one of its conditions is refuted by the others and the domain's relations
  (``Facts``: the negation of the condition proved from the slacks of the rest);
- or its difference, free of kinks, is exactly 0 (``symbolic.zero_by``, with the
  branch's conditions as facts);
- or its difference is both >= 0 and <= 0 by those facts (A (x - 1 - eps) is 0 where
  A >= 0, x > 1 + eps and A x <= A (1 + eps)).

A condition s > 0 (s < 0, ...) on a single symbol is folded into that symbol's
assumptions for the rest of the branch (then sign(s) is 1 and sqrt(s**2 u) is s sqrt(u)
to sympy), an equation s = v that is linear in a symbol is substituted, and a relation
a != b (of the domain, or a Piecewise's Not(Eq)) is split into a < b and a > b.  Every step
is exact: no point is sampled, so an identity shown this way is *proved*.  Used by the
identity kind (``kinds/identity.py``); on arXiv 2502.18548 it proves the clip of Eq. (1)
inside and outside its band (Sections 1 and 1.3), the pair advantage of Section 2.1 and
the large-G normalised advantage and objectives of Appendix B.1-B.2.

Guards, each added for a false identity an earlier version "proved" (tests/test_cases.py):
Min, Max, Abs, sign and a != b are split only for arguments shown to be real; only a
number sympy shows positive or negative has a sign; no substitution reaches a symbol
inside a sum, an integral, a derivative, Subs or a limit (xreplace does not stop at a
binder); a symbol is never re-typed when another symbol shares its name; a Piecewise
undefined somewhere must have that branch shown empty.
"""

from __future__ import annotations

import sympy as sp

from ..model.derivative import derivative
from .symbolic import FAST_STRATEGIES, SLOW_STRATEGIES, STRATEGY_SECONDS, Facts, exp_log_form, short, zero_by
from .timebox import TimeUp, time_limit

__all__ = ["KINKS", "has_kinks", "zero_by_cases"]

KINKS = (sp.Min, sp.Max, sp.Abs, sp.sign, sp.Piecewise)
MAX_BRANCHES = 64  # a case split beyond this many branches is left to the other methods
MAX_RELATIONS = 12  # nor is a Piecewise condition longer than this
# the whole split's CPU slice: on the bundled paper the largest took 1 s; a split that
# keeps finding conditions it cannot refute stops here rather than use the claim's budget
CASES_SECONDS = 2 * STRATEGY_SECONDS


def has_kinks(*exprs) -> bool:
    return any(sp.sympify(e).has(*KINKS) for e in exprs)


class _Undecided(Exception):
    """The split cannot go on (too many branches, a kink of a possibly non-real argument)."""


def zero_by_cases(expr, relations, trace=None, at: str = "zero"):
    """Is expr 0 wherever the relations hold?  expr and the relations are in the prover's
    assumption symbols (``symbolic.assume``).  Returns (how, None) when every branch is
    decided, else (None, why: the first branch left undecided, its conditions and residual)."""
    box = None
    try:
        with time_limit(CASES_SECONDS) as box:
            return _zero_by_cases(sp.sympify(expr), list(relations), trace, at)
    except TimeUp as exc:
        if exc.box is not box:
            raise  # the claim's own budget ran out
        return None, f"the case split ran out of its {CASES_SECONDS:g} s slice"
    except _Undecided as why:
        return None, str(why)
    except Exception as exc:  # noqa: BLE001 - a sympy failure means 'not this way', never a verdict
        return None, f"the case split failed: {type(exc).__name__}: {short(exc)}"


class _Leaves(list):
    """The undecided branches found so far, how many branches were looked at, and the names
    of the symbols bound by a sum, an integral, ... anywhere in the question."""
    nodes = 0
    bound: frozenset = frozenset()
    shared: frozenset = frozenset()


def _zero_by_cases(expr, relations, trace, at):
    leaves = _Leaves()
    leaves.bound = _bound_names([expr, *relations])
    leaves.shared = _shared_names([expr, *relations])
    _split(expr, [], relations, leaves, ())
    used = {}
    for i, (e, conds, rels, said) in enumerate(leaves):
        how = _decide_branch(e, conds, rels, trace, f"{at} [branch {i + 1} of {len(leaves)}]")
        if how is None:
            shown = " and ".join(said) or "no condition"
            return None, f"the branch where {shown}: {short(e)}"
        used[how] = used.get(how, 0) + 1
    parts = ", ".join(f"{n} {how}" for how, n in used.items())
    return f"case split into {len(leaves)} branch(es): {parts}", None


# ------------------------------------------------------------------ splitting
def _split(e, conds, rels, leaves, said):
    """Branch on the first kink (or relation a != b) until none is left; every branch that
    is not shown empty on the way is appended to leaves as (expr, its conditions, the
    domain's relations, all in the branch's symbols; the conditions as they were stated,
    for the report, including those folded into assumptions)."""
    _count(leaves)
    ne = next((r for r in rels if isinstance(r, sp.Ne) and _real_sides(r, rels)), None)
    if ne is not None:
        rest = [r for r in rels if r is not ne]
        for c in (ne.lhs < ne.rhs, ne.lhs > ne.rhs):
            _branch(e, conds, rest, [c], leaves, said)
        return
    node = _innermost_kink([e, *conds, *rels])
    if node is None:
        leaves.append((e, conds, rels, said))
        return
    for new, value in _cases(node, rels):
        if value is None:
            # no condition of a Piecewise holds there: it is undefined, and the branch must
            # be shown empty (a leaf of nan is never decided)
            if any(c.has(node) for c in conds + rels):
                raise _Undecided(f"{short(node)} is undefined where it is also a condition")
            _branch(sp.nan, conds, rels, new, leaves, said)
            continue
        ee, cc, rr, _, _ = _substitute(e, conds, rels, {node: value}, None, leaves)
        _branch(ee, cc, rr, new, leaves, said)


def _branch(e, conds, rels, new, leaves, said):
    """Add the conditions `new` (a boolean formula's conjunctions are split into branches),
    fold sign conditions on a symbol into its assumptions, and go on splitting unless the
    branch is shown empty."""
    for conj in _conjunctions(sp.And(*new)):
        ne = next((c for c in conj if isinstance(c, sp.Ne) and _real_sides(c, rels)), None)
        if ne is not None:
            # a != b (the negation of a Piecewise's a = b) is a < b or a > b: two branches
            _count(leaves)
            rest = [c for c in conj if c is not ne]
            for side in (ne.lhs < ne.rhs, ne.lhs > ne.rhs):
                _branch(e, conds, rels, [*rest, side], leaves, said)
            continue
        ee, cc, rr = e, list(conds), list(rels)
        known = len(cc)
        empty = False
        stated = said + tuple(str(c) for c in conj if str(c) not in said)
        pending = list(conj)
        while pending:
            ee, cc, rr, c, done = _fold(ee, cc, rr, pending.pop(0), leaves)
            if done:
                # the conditions still to come speak of the new symbol (or the value) too
                pending = [p.xreplace(done) for p in pending]
            if c is sp.false:
                empty = True
                break
            if c is not sp.true:
                cc.append(c)
        if empty or any(c is sp.false for c in cc + rr) or _refuted(cc, rr, known):
            continue
        cc = [c for c in cc if c is not sp.true]
        rr = [r for r in rr if r is not sp.true]
        _split(ee, cc, rr, leaves, stated)


def _count(leaves):
    leaves.nodes += 1
    if len(leaves) > MAX_BRANCHES or leaves.nodes > 4 * MAX_BRANCHES:
        raise _Undecided(f"more than {MAX_BRANCHES} branches")


def _conjunctions(cond):
    """cond as a list of conjunctions (each a list of relations) covering it."""
    if cond is sp.true:
        return [[]]
    if cond is sp.false:
        return []
    if len(cond.atoms(sp.core.relational.Relational)) > MAX_RELATIONS:
        # distributing a long condition into its conjunctions is exponential in its length
        raise _Undecided(f"a condition of more than {MAX_RELATIONS} relations")
    dnf = sp.to_dnf(cond)
    terms = dnf.args if isinstance(dnf, sp.Or) else (dnf,)
    out = []
    for t in terms:
        out.append(list(t.args) if isinstance(t, sp.And) else [t])
    return out


def _innermost_kink(exprs):
    """A kink none of whose arguments has a kink (so its cases are kink-free), the first
    in a fixed order; None if there is none."""
    found = []

    def walk(node):
        if isinstance(node, _BINDERS):
            return  # a kink in |k - n| summed over k is no single condition on the free symbols
        if isinstance(node, KINKS) and not any(a.has(*KINKS) for a in _arguments(node)):
            found.append(node)
            return
        for a in node.args:
            walk(a)

    for x in exprs:
        walk(x)
    # srepr tells apart symbols of one name with different assumptions: a fixed order
    return min(found, key=lambda n: (sp.default_sort_key(n), sp.srepr(n))) if found else None


_BINDERS = (sp.Sum, sp.Product, sp.Integral, sp.Lambda, sp.Subs, sp.Derivative, sp.Limit)


def _bound_names(exprs) -> frozenset:
    """Names of every symbol inside a binder in exprs (k of a sum over k, and also n in its
    limits: a variable may be bound and free in one binder, Integral(x y, (x, 0, x)), and
    Derivative(f, x) binds an x that is free in it).  More than the bound ones, so sound."""
    names = set()
    for x in exprs:
        for node in sp.preorder_traversal(x):
            if isinstance(node, _BINDERS):
                names |= {a.name for a in node.atoms(sp.Symbol)}
    return frozenset(names)


def _shared_names(exprs) -> frozenset:
    """Names carried by more than one distinct symbol (x real and x positive): such a
    symbol is never given a new assumption, which would make it the other one."""
    seen: dict = {}
    for x in exprs:
        for a in x.atoms(sp.Symbol):
            seen.setdefault(a.name, set()).add(a)
    return frozenset(n for n, syms in seen.items() if len(syms) > 1)


def _real_sides(rel, rels) -> bool:
    """Are both sides of a relation real (so a != b is a < b or a > b)?"""
    facts = _facts(rels)
    return all(side.is_extended_real or facts.is_real(side) for side in (rel.lhs, rel.rhs))


def _arguments(node):
    if isinstance(node, sp.Piecewise):
        return [x for pair in node.args for x in (pair.expr, pair.cond)]
    return list(node.args)


def _cases(node, rels):
    """[(conditions, value)] covering every real point where node is defined (value None:
    the conditions say where it is not)."""
    if not isinstance(node, sp.Piecewise):
        # Min(a, b) is a or b, Abs(u) is u or -u, only for real arguments
        facts = _facts(rels)
        for a in node.args:
            if not (a.is_extended_real or facts.is_real(a)):
                raise _Undecided(f"{short(node)}: {short(a)} is not shown to be real")
    if isinstance(node, (sp.Min, sp.Max)):
        args = list(node.args)
        better = (lambda a, b: a < b) if isinstance(node, sp.Min) else (lambda a, b: a > b)
        out = []
        for i, a in enumerate(args):
            # a is the value where it beats every earlier argument strictly and no later one beats it
            conds = [better(a, b) for b in args[:i]] + [sp.Not(better(b, a)) for b in args[i + 1:]]
            out.append((conds, a))
        return out
    if isinstance(node, sp.Abs):
        u = node.args[0]
        return [([u >= 0], u), ([u < 0], -u)]
    if isinstance(node, sp.sign):
        u = node.args[0]
        return [([u > 0], sp.S.One), ([u < 0], sp.S.NegativeOne), ([sp.Eq(u, 0)], sp.S.Zero)]
    # Piecewise: the first true condition's value
    out, earlier = [], []
    for pair in node.args:
        out.append(([*earlier, pair.cond], pair.expr))
        earlier.append(sp.Not(pair.cond))
        if pair.cond is sp.true:
            return out
    out.append((earlier, None))
    return out


# ------------------------------------------------------------------ one condition
def _fold(e, conds, rels, c, leaves):
    """Take the condition c into the branch: an equation linear in a symbol is
    substituted, a sign condition on a symbol becomes that symbol's assumption; returns
    (expr, conditions, relations, c as it stays: sp.true once folded, the replacement
    made or None)."""
    if not isinstance(c, sp.core.relational.Relational):
        return e, conds, rels, c, None
    d = c.lhs - c.rhs
    if isinstance(c, sp.Eq):
        for s in sorted(d.free_symbols, key=lambda s: (s.name, sp.srepr(s))):
            a = derivative(d, s)
            if a.is_number and a.is_zero is False:
                value = s - d / a
                return _substitute(e, conds, rels, {s: sp.expand(value)}, sp.true, leaves)
        return e, conds, rels, c, None
    sign = _symbol_sign(c)
    if sign is not None and sign[0].name in leaves.shared:
        sign = None  # a new symbol of this name would merge it with another of the same name
    if sign is not None:
        s, assumption = sign
        old = s.assumptions0
        if (assumption == "positive" and s.is_positive) or (assumption == "negative" and s.is_negative) or \
                (assumption == "nonnegative" and s.is_nonnegative) or (assumption == "nonpositive" and s.is_nonpositive):
            return e, conds, rels, sp.true, None
        if (assumption in ("positive", "nonnegative") and s.is_negative) or \
                (assumption in ("negative", "nonpositive") and s.is_positive):
            return e, conds, rels, sp.false, None
        if old.get("real") and not old.get("integer"):
            new = sp.Symbol(s.name, **{assumption: True})
            return _substitute(e, conds, rels, {s: new}, sp.true, leaves)
    return e, conds, rels, c, None


def _symbol_sign(c):
    """(s, 'positive' | 'negative' | 'nonnegative' | 'nonpositive') when c says only that
    of a single symbol s (s > 0, 0 > s, -s <= 0, ...), else None."""
    if not isinstance(c, _INEQUALITIES):
        return None  # a != b says nothing of a sign
    d = sp.expand(c.lhs - c.rhs)  # c is d > 0, d >= 0, d < 0 or d <= 0
    flip = 1
    if isinstance(d, sp.Mul) and len(d.args) == 2 and d.args[0] == -1:
        d, flip = d.args[1], -1
    if not isinstance(d, sp.Symbol):
        return None
    strict = isinstance(c, (sp.StrictGreaterThan, sp.StrictLessThan))
    up = isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)) == (flip == 1)
    if up:
        return d, ("positive" if strict else "nonnegative")
    return d, ("negative" if strict else "nonpositive")


_INEQUALITIES = (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)


def _substitute(e, conds, rels, rep, c, leaves):
    """rep applied everywhere; refused (the split stops) where it would reach a symbol a sum
    or an integral binds: xreplace does not stop at a binder."""
    if leaves.bound and any(s.name in leaves.bound for k in rep for s in k.free_symbols):
        raise _Undecided("a substitution would reach a variable bound by a sum or an integral")
    return (e.xreplace(rep), [x.xreplace(rep) for x in conds], [r.xreplace(rep) for r in rels], c, rep)


# ------------------------------------------------------------------ deciding a branch
def _slack(r):
    """(d, strict) with r saying d > 0 (strict) or d >= 0; None for an equation or anything
    else.  A positive denominator is cleared (pi/pi_old - 1 + eps >= 0 becomes
    pi - pi_old + eps pi_old >= 0): the facts compare slacks by their sums and quotients,
    which a denominator hides."""
    if isinstance(r, (sp.StrictGreaterThan, sp.GreaterThan)):
        d = r.lhs - r.rhs
    elif isinstance(r, (sp.StrictLessThan, sp.LessThan)):
        d = r.rhs - r.lhs
    else:
        return None
    return _cleared(d), isinstance(r, (sp.StrictGreaterThan, sp.StrictLessThan))


def _cleared(d):
    num, den = sp.fraction(sp.together(d))
    if den != 1 and den.is_positive is True:
        return sp.expand(num)
    return d


def _facts(relations):
    """Facts from relations already in the branch's symbols (an equation a = b is the two
    slacks a - b >= 0 and b - a >= 0)."""
    pos, nonneg = [], []
    for r in relations:
        if isinstance(r, sp.Eq):
            d = _cleared(r.lhs - r.rhs)
            nonneg += [d, -d]
            continue
        got = _slack(r)
        if got is not None:
            (pos if got[1] else nonneg).append(got[0])
    return Facts(pos, nonneg)


def _sign_holds(d, facts: Facts, strict: bool) -> bool:
    """d > 0 (strict) or d >= 0 by the facts: as it is, then as a product of factors of
    known signs (A (1 - eps - x) >= 0 for A >= 0 and x < 1 - eps)."""
    if (facts.is_positive(d) if strict else facts.is_nonnegative(d)):
        return True
    f = sp.factor(d)
    if not isinstance(f, sp.Mul):
        return False
    negative = 0
    for x in f.args:
        if x.is_number:
            if x.is_zero:
                return not strict
            if x.is_positive:
                continue
            if not x.is_negative:
                return False  # 1 + I, zoo, or a number sympy cannot sign (log 6 - log 2 - log 3)
            negative += 1
        elif isinstance(x, sp.Pow) and x.exp.is_integer and x.exp.is_even and not strict and (
                x.base.is_extended_real or facts.is_real(x.base)):
            continue
        elif (facts.is_positive(x) if strict else facts.is_nonnegative(x)):
            continue
        elif (facts.is_positive(-x) if strict else facts.is_nonnegative(-x)):
            negative += 1
        else:
            return False
    return negative % 2 == 0


def _negation_proved(c, facts: Facts) -> bool:
    if isinstance(c, sp.Eq):
        d = _cleared(c.lhs - c.rhs)
        return _sign_holds(d, facts, True) or _sign_holds(-d, facts, True)
    got = _slack(c)
    if got is None:
        return False
    d, strict = got
    # not (d > 0) is -d >= 0; not (d >= 0) is -d > 0
    return _sign_holds(-d, facts, not strict)


def _refuted(conds, rels, known=0) -> bool:
    """Is some new branch condition (from index `known` on) false wherever the others and
    the relations hold?  The earlier ones were asked when they were added (asking them
    all again at every level made a deep split quadratic in its conditions)."""
    for i, c in enumerate(conds):
        if i < known:
            continue
        if not isinstance(c, sp.core.relational.Relational):
            continue
        if _negation_proved(c, _facts(_relevant(c, conds[:i] + conds[i + 1:] + rels))):
            return True
    return False


def _relevant(target, relations) -> list:
    """The relations linked to target's symbols through shared symbols (x < 1 - eps links
    eps to x): the others cannot bear on its sign, and every slack costs the facts a try."""
    symbols = set(target.free_symbols)
    left = [r for r in relations if isinstance(r, sp.core.relational.Relational)]
    out = []
    grew = True
    while grew:
        grew = False
        for r in list(left):
            if r.free_symbols & symbols:
                out.append(r)
                left.remove(r)
                symbols |= r.free_symbols
                grew = True
    return out


def _decide_branch(e, conds, rels, trace, at):
    """How e = 0 holds on this branch (a short label), or None."""
    if e == 0:
        return "0 as it stands"
    if e.has(*KINKS, sp.nan, sp.zoo, sp.oo, -sp.oo) or any(
            not isinstance(c, sp.core.relational.Relational) for c in conds):
        return None
    facts = _facts(_relevant(e, conds + rels))
    how, _ = zero_by(e, facts, trace, at=at, strategies=FAST_STRATEGIES)
    if how:
        return f"by {how}"
    # sqrt(-1/(a - 1)) is 1/sqrt(1 - a) only where a < 1, a condition sympy's assumptions
    # cannot carry but the facts can (zero_by uses this form only with log or exp around)
    form = exp_log_form(e, facts)
    if form != e:
        how, _ = zero_by(form, facts, trace, at=at + ", exp/log form", strategies=FAST_STRATEGIES)
        if how:
            return f"by the exp/log form and {how}"
    if facts.is_real(e) and _sign_holds(e, facts, False) and _sign_holds(-e, facts, False):
        return "0 by its signs"
    how, _ = zero_by(e, facts, trace, at=at, strategies=SLOW_STRATEGIES)
    if how:
        return f"by {how}"
    return None
