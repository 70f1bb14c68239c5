"""Symbolic proofs with sympy: the evidence behind *proved* (and, for inequality-like
claims established by sign analysis over the whole domain, *certified*).

Soundness rests on two rules.  First, symbols are replaced by symbols carrying only
facts implied by their declared sets (sign, integrality): a proof under weaker
assumptions holds on the declared domain.  Second, only a definite answer counts:
a residual that simplifies to exactly 0, or a sign attribute that sympy's assumption
system reports as True.  ``expr.equals`` is never used (it samples numbers), and a
``None`` from sympy is "not established", never a pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sympy as sp

from .claims import Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Root, Stationary
from .domain import Domain
from .timebox import TimeUp, time_limit

__all__ = ["ProofOutcome", "prove", "zero_by", "prove_sign"]

PROVED, CERTIFIED = "proved", "certified"


@dataclass
class ProofOutcome:
    status: str | None  # "proved" | "certified" | None (not established symbolically)
    method: str = ""
    evidence: dict = field(default_factory=dict)
    step_statuses: list | None = None
    disagrees: str | None = None  # a symbolic result that contradicts the claim (e.g. a limit)


def _short(e, n=160):
    s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."


# ------------------------------------------------------------------ zero and sign tests
_SLACK_OPS = 60


class Facts:
    """What the prover may use beyond per-symbol assumptions: the slacks of the strict
    `where` relations (p1 + p2 < 1 gives 1 - p1 - p2 > 0) and of the non-strict ones."""

    def __init__(self, positive=(), nonnegative=()):
        self.positive = [sp.sympify(e) for e in positive]
        self.nonnegative = [sp.sympify(e) for e in nonnegative]

    @staticmethod
    def from_relations(relations, rep):
        pos, nonneg = [], []
        for rel in relations:
            lhs, rhs = rel.lhs.xreplace(rep), rel.rhs.xreplace(rep)
            if isinstance(rel, sp.StrictLessThan):
                pos.append(rhs - lhs)
            elif isinstance(rel, sp.StrictGreaterThan):
                pos.append(lhs - rhs)
            elif isinstance(rel, sp.LessThan):
                nonneg.append(rhs - lhs)
            elif isinstance(rel, sp.GreaterThan):
                nonneg.append(lhs - rhs)
        return Facts(pos, nonneg)

    def is_positive(self, e, depth=0) -> bool:
        """Sound but incomplete: True only if e > 0 follows from assumptions and slacks."""
        e = sp.sympify(e)
        if e.is_positive is True:
            return True
        if depth > 6:
            return False
        small = sp.count_ops(e) <= _SLACK_OPS
        for k in self.positive:
            # a slack can only explain a small expression that contains its symbols;
            # cancel() against a large one would eat the whole time slice
            if not small:
                break
            if k.free_symbols <= e.free_symbols and sp.cancel(e / k).is_positive is True:
                return True
            # e = slack + (something non-negative), e.g. 1 - p2 = (1 - p1 - p2) + p1
            if isinstance(e, sp.Add) and depth < 3:
                rest = sp.expand(e - k)
                if rest.is_nonnegative is True or (rest != e and self.is_nonnegative(rest, depth + 2)):
                    return True
        if isinstance(e, sp.Add):
            if all(self.is_nonnegative(t, depth + 1) for t in e.args) and any(
                    self.is_positive(t, depth + 1) for t in e.args):
                return True
            # an expanded sum may hide a positive grouping: ref1 e^a + (1 - ref1 - ref2) e^c ...
            atoms = list(e.atoms(sp.exp)) or list(e.atoms(sp.Pow))
            if atoms and depth < 3:
                grouped = sp.collect(e, atoms)
                if grouped != e and isinstance(grouped, sp.Add):
                    return self.is_positive(grouped, depth + 2)
            return False
        if isinstance(e, sp.Mul):
            # sign parity: factor() writes the slack 1 - p1 - p2 as -(p1 + p2 - 1)
            sign = 1
            for f in e.args:
                fs = self._factor_sign(f, depth + 1)
                if fs == 0:
                    return False
                sign *= fs
            return sign > 0
        if isinstance(e, sp.Pow):
            if self.is_positive(e.base, depth + 1) and e.exp.is_real:
                return True
            if e.exp.is_integer and e.exp.is_even and self._factor_sign(e.base, depth + 1) != 0:
                return True
        if isinstance(e, sp.exp) and e.args[0].is_real:
            return True
        return False

    def _factor_sign(self, f, depth) -> int:
        """+1 or -1 when the sign of a product's factor is provable, else 0.  Negativity
        is only derived for numbers, negative symbols and (powers of) sums, whose
        negation distributes, so this never recurses into the same product."""
        if f.is_number:
            return 1 if f.is_positive else (-1 if f.is_negative else 0)
        if self.is_positive(f, depth):
            return 1
        base, ex = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.S.One)
        if ex.is_integer and (base.is_negative is True
                              or isinstance(base, sp.Add) and self.is_positive(-base, depth)):
            return -1 if ex.is_odd else 1
        return 0

    def is_nonnegative(self, e, depth=0) -> bool:
        e = sp.sympify(e)
        if e.is_nonnegative is True or self.is_positive(e, depth):
            return True
        for k in self.nonnegative:
            if sp.count_ops(e) > _SLACK_OPS or not k.free_symbols <= e.free_symbols:
                continue
            if sp.cancel(e / k).is_nonnegative is True:
                return True
        if isinstance(e, sp.Add):
            return all(self.is_nonnegative(t, depth + 1) for t in e.args)
        if isinstance(e, sp.Mul):
            return all(self.is_nonnegative(f, depth + 1) for f in e.args)
        return False


NO_FACTS = Facts()


def _factors_positive(e, facts: Facts) -> bool:
    """Every multiplicative factor, down through powers' bases, is provably positive.
    (u*v > 0 for negative u, v, but expand_log would still split it into log u + log v.)"""
    for f in sp.Mul.make_args(e):
        base = f.base if isinstance(f, sp.Pow) else f
        if isinstance(base, sp.Mul):
            if not _factors_positive(base, facts):
                return False
        elif not (base.is_number and base.is_positive or facts.is_positive(base)):
            return False
    return True


def split_logs(expr, facts: Facts):
    """Expand log(a*b/c) into log a + log b - log c wherever every factor is provably
    positive: the identity holds then, so this is a sound rewrite (unlike force=True)."""
    reps = {}
    for lg in expr.atoms(sp.log):
        arg = sp.together(lg.args[0])
        num, den = sp.fraction(arg)
        if _factors_positive(num, facts) and _factors_positive(den, facts):
            # deep=False: only this log is split; logs nested inside its factors were
            # not checked and must not be rewritten by force
            reps[lg] = sp.expand_log(sp.log(arg), deep=False, force=True)
    return expr.xreplace(reps) if reps else expr


def _strategies():
    # cheapest first; simplify is the slow last resort
    return [
        ("exact", lambda e: e),
        ("expand", lambda e: sp.expand(e)),
        ("cancel", lambda e: sp.cancel(e)),
        ("together", lambda e: sp.expand(sp.together(sp.expand(e)))),
        ("simplify", sp.simplify),
        ("radsimp+simplify", lambda e: sp.simplify(sp.radsimp(sp.expand_log(e, force=False)))),
    ]


_MAX_OPS = 3000
STRATEGY_SECONDS = 2.0
SIGN_FORM_SECONDS = 1.0  # one strategy's slice of the claim's symbolic budget


def _timeboxed(thunk, seconds=STRATEGY_SECONDS):
    """thunk() or None if it fails or exceeds its slice (then the next strategy runs)."""
    box = None
    try:
        with time_limit(seconds) as box:
            return thunk()
    except TimeUp as exc:
        if exc.box is not box:
            raise  # the claim's whole budget ran out: stop the symbolic attempt
        return None
    except Exception:  # noqa: BLE001 - a sympy failure means 'not this way', never a verdict
        return None


def zero_by(expr, facts: Facts = NO_FACTS):
    """Return (strategy name, 0) if expr simplifies to exactly zero, else (None, residual)."""
    expr = sp.sympify(expr)
    if expr.has(sp.Sum, sp.Product):
        expr = expr.doit()
    if expr.has(sp.Piecewise):
        expr = sp.piecewise_fold(expr)
    residual = expr
    prefix = ""
    big = sp.count_ops(expr) > _MAX_OPS
    if expr.has(sp.log):
        # a sound rewrite (every split factor is provably positive), done once up front:
        # cancel/together on unsplit KL expressions is what makes sympy slow here
        split = split_logs(expr, facts)
        if not big:
            expanded = _timeboxed(lambda: sp.expand(split))
            if expanded is not None:
                split = split_logs(expanded, facts)
        if split != expr:
            expr, prefix = split, "split logs+"
            big = big or sp.count_ops(expr) > _MAX_OPS
    if big and prefix:
        # only the cheap strategies on a large split form (expand may finish the job)
        r = sp.expand(expr)
        return ("split logs+expand", sp.S.Zero) if r == 0 else (None, r)
    if big:
        return None, expr  # too large to simplify within budget: leave it to the numbers
    for name, f in _strategies():
        if big and name not in ("exact", "expand"):
            continue  # cancel/together/simplify on a huge expression would eat the budget
        name = prefix + name
        t0 = time.monotonic()
        r = _timeboxed(lambda: f(expr))
        if r is None:
            if time.monotonic() - t0 >= STRATEGY_SECONDS:
                break  # timed out: the strategies after this one are heavier still
            continue
        if r == 0:
            return name, sp.S.Zero
        if r.is_zero is True and not r.has(sp.Piecewise):
            return name + "+assumptions", sp.S.Zero
        residual = r
    return None, residual


_WANT = {"positive", "negative", "nonnegative", "nonpositive", "nonzero"}


def prove_sign(expr, want: str, facts: Facts = NO_FACTS):
    """True if expr's sign follows from the assumptions (and the `where` slacks)."""
    assert want in _WANT
    expr = sp.sympify(expr)
    forms = [lambda e: e, sp.together, sp.factor, lambda e: sp.factor(sp.together(e)), sp.cancel]
    if sp.count_ops(expr) < 80:  # simplify is the slow last resort: only on small expressions
        forms.append(sp.simplify)

    def decide(r):
        if getattr(r, f"is_{want}") is True:
            return True
        if want == "positive":
            return facts.is_positive(r)
        if want == "negative":
            return facts.is_positive(-r)
        if want == "nonnegative":
            return facts.is_nonnegative(r)
        if want == "nonpositive":
            return facts.is_nonnegative(-r)
        return facts.is_positive(r) or facts.is_positive(-r)  # nonzero

    for f in forms:
        t0 = time.monotonic()
        ok = _timeboxed(lambda: decide(f(expr)), SIGN_FORM_SECONDS)
        if ok:
            return True
        if ok is None and time.monotonic() - t0 >= SIGN_FORM_SECONDS:
            break  # timed out: the remaining forms are heavier
    return False


# ------------------------------------------------------------------ per kind
def _assume(claim, extra: Domain | None = None):
    """Symbols with assumptions, and the facts implied by the `where` relations."""
    rep = claim.domain.assumption_symbols()
    relations = list(claim.domain.where)
    if extra is not None:
        rep.update(extra.assumption_symbols())
        relations += list(extra.where)
    return rep, Facts.from_relations(relations, rep)


def prove_identity(claim: Identity):
    rep, facts = _assume(claim)
    how, residual = zero_by(claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep), facts)
    if how:
        return ProofOutcome(PROVED, f"sympy ({how})", {"residual": "0", "strategy": how})
    return ProofOutcome(None, "sympy", {"residual": _short(residual)})


def _residual(e):
    return e.lhs - e.rhs if isinstance(e, sp.Equality) else e


def prove_chain(claim: Chain):
    rep, facts = _assume(claim)
    statuses, evidence = [], []
    for i in range(1, len(claim.steps)):
        prev, cur = claim.steps[i - 1], claim.steps[i]
        p, c = _residual(prev.expr).xreplace(rep), _residual(cur.expr).xreplace(rep)
        if cur.relation == "equals":
            how, res = zero_by(c - p, facts)
            ok = PROVED if how else None
            note = {"step": i + 1, "strategy": how, "residual": "0" if how else _short(res)}
        else:
            m = cur.multiply_by
            m = sp.cancel(c / p) if m is None else sp.sympify(m).xreplace(rep)
            how, res = zero_by(c - m * p, facts)
            ok = PROVED if how else None
            # residual = m * previous shows "previous = 0 => this = 0" only where m is
            # finite: a denominator vanishing on the previous equation's solutions
            # (m = (x**2 + 1)/(x - 1) for x = 1) would make any step "follow"
            den = sp.denom(sp.together(m))
            if ok and den.free_symbols and not (prove_sign(den, "positive", facts)
                                                or prove_sign(den, "negative", facts)):
                ok = None
                how = None
                note_den = f"the multiplier's denominator {_short(den)} is not shown non-zero"
            else:
                note_den = None
            note = {"step": i + 1, "strategy": how, "multiplier": _short(m),
                    "residual": "0" if how else _short(res)}
            if note_den:
                note["multiplier_poles"] = note_den
            if ok and cur.relation == "equivalent":
                nz = prove_sign(m, "nonzero", facts)
                note["multiplier_nonzero"] = bool(nz)
                # the multiplier's sign is an inequality over the domain: certified level
                ok = CERTIFIED if nz and m.free_symbols else (PROVED if nz else None)
        statuses.append(ok)
        evidence.append(note)
    status = _weakest(statuses)
    return ProofOutcome(status, "sympy, step by step", {"steps": evidence}, step_statuses=statuses)


def _weakest(statuses):
    if any(s is None for s in statuses):
        return None
    if any(s == CERTIFIED for s in statuses):
        return CERTIFIED
    return PROVED


_SIGN_FOR = {"<": "negative", "<=": "nonpositive", ">": "positive", ">=": "nonnegative"}


def prove_inequality(claim: Inequality):
    rep, facts = _assume(claim)
    d = claim.lhs.xreplace(rep) - claim.rhs.xreplace(rep)
    want = _SIGN_FOR[claim.op]
    if prove_sign(d, want, facts):
        return ProofOutcome(CERTIFIED, "sympy sign analysis", {"difference": _short(sp.factor(d)),
                                                               "sign": want})
    if claim.op in ("<=", ">=") and zero_by(d, facts)[0]:
        return ProofOutcome(CERTIFIED, "sympy (difference is identically 0)", {"difference": "0"})
    return ProofOutcome(None, "sympy sign analysis", {"difference": _short(d), "sign": "not established"})


def prove_monotonic(claim: Monotonic):
    rep, facts = _assume(claim)
    x = rep[claim.var]
    if _nonsmooth(claim.expr):
        # a derivative ignores jumps: Piecewise((x, x < 1), (x - 1/100, True)) has f' = 1
        return ProofOutcome(None, "sympy sign of the derivative",
                            {"derivative": "not used: the expression is not smooth (Piecewise, sign, ...)"})
    der = sp.diff(claim.expr.xreplace(rep), x)
    want = ("positive" if claim.strict else "nonnegative") if claim.direction == "increasing" else (
        "negative" if claim.strict else "nonpositive")
    if prove_sign(der, want, facts):
        return ProofOutcome(CERTIFIED, "sympy sign of the derivative", {"derivative": _short(sp.factor(der)),
                                                                        "sign": want})
    return ProofOutcome(None, "sympy sign of the derivative", {"derivative": _short(der),
                                                               "sign": "not established"})


def prove_limit(claim: Limit):
    rep, facts = _assume(claim)
    expr = claim.expr.xreplace(rep)
    value = sp.sympify(claim.value).xreplace(rep)
    results = {}
    dirs = ["+", "-"] if claim.direction == "+-" and not sp.sympify(claim.point).is_infinite else [
        claim.direction if not sp.sympify(claim.point).is_infinite else "+"]
    for d in dirs:
        try:
            if sp.sympify(claim.point).is_infinite:
                L = sp.limit(expr, claim.var, claim.point)
            else:
                L = sp.limit(expr, claim.var, claim.point, dir=d)
        except Exception as exc:  # noqa: BLE001 - sympy could not: not established
            return ProofOutcome(None, "sympy.limit", {"error": _short(exc)})
        if isinstance(L, sp.Limit) or L.has(sp.Limit) or L is sp.nan or isinstance(L, sp.AccumBounds):
            return ProofOutcome(None, "sympy.limit", {"limit": _short(L)})
        results[d] = L
        if value.is_infinite or L.is_infinite:
            same = L == value
        else:
            same = zero_by(L - value, facts)[0] is not None
        if not same:
            return ProofOutcome(None, "sympy.limit", {"limit": _short(L)},
                                disagrees=f"sympy.limit gives {_short(L)}")
    return ProofOutcome(PROVED, "sympy.limit", {"limit": {k: _short(v) for k, v in results.items()}})


def prove_root(claim: Root):
    rep, facts = _assume(claim)
    x = claim.var
    xr = Domain({x: claim.interval}).assumption_symbols()[x]
    rep[x] = xr
    res = claim.residual().xreplace(rep)
    v = sp.sympify(claim.value).xreplace(rep)
    parts, ev = [], {}
    how, r = zero_by(res.subs(xr, v), facts)
    parts.append(PROVED if how else None)
    ev["solves"] = how or f"residual {_short(r)}"
    ev["solves_proved"] = bool(how)
    iv = claim.interval
    for end, open_, want_cmp in ((iv.start, iv.left_open, "lo"), (iv.end, iv.right_open, "hi")):
        if not end.is_finite:
            continue
        d = (v - end) if want_cmp == "lo" else (end - v)
        ok = prove_sign(d, "positive" if open_ else "nonnegative", facts)
        parts.append(CERTIFIED if ok else None)
        ev[f"in_interval_{want_cmp}"] = bool(ok)
    if claim.unique:
        ok = _prove_unique(res, xr, v, iv, facts)
        parts.append(CERTIFIED if ok else None)
        ev["unique"] = ok or "not established"
    return ProofOutcome(_weakest(parts), "sympy (substitution, sign analysis)", ev)


def _prove_unique(res, x, v, iv, facts):
    num = sp.numer(sp.together(res))
    try:
        poly = sp.Poly(sp.expand(num), x)
    except sp.PolynomialError:
        return False
    if any(c.has(x) for c in poly.all_coeffs()):
        return False
    deg = poly.degree()
    if deg == 1:
        a = poly.all_coeffs()[0]
        nz = prove_sign(a, "nonzero", facts)
        return "linear numerator with a non-zero slope: one root" if nz else False
    if deg != 2:
        return False
    a, b, _ = poly.all_coeffs()
    if not prove_sign(a, "nonzero", facts):
        return False
    other = -b / a - v  # Vieta: the sum of the two roots is -b/a
    if zero_by(other - v, facts)[0]:
        return "double root"
    below = iv.start.is_finite and prove_sign(other - iv.start, "negative" if not iv.left_open else "nonpositive", facts)
    above = iv.end.is_finite and prove_sign(other - iv.end, "positive" if not iv.right_open else "nonnegative", facts)
    if below or above:
        return "quadratic: the other root (Vieta) lies outside the interval"
    return False


def prove_stationary(claim: Stationary):
    rep, facts = _assume(claim)
    residuals = claim.residuals()
    out = []
    for r in residuals:
        how, res = zero_by(r.subs(claim.at, simultaneous=True).xreplace(rep), facts)
        if not how:
            return ProofOutcome(None, "sympy", {"residual": _short(res)})
        out.append(how)
    return ProofOutcome(PROVED, "sympy (gradient at the point)", {"strategies": out})


def prove_maximiser(claim: Maximiser):
    feas = claim.feasible()
    rep, facts = _assume(claim, feas)
    obj = claim.objective.subs(claim.frozen, simultaneous=True) if claim.frozen else claim.objective
    obj = obj.xreplace(rep)
    wrt = [rep[v] for v in claim.wrt]
    at = {rep[k]: sp.sympify(v).xreplace(rep) for k, v in claim.at.items()}
    ev = {}
    for v in wrt:
        how, res = zero_by(sp.diff(obj, v).subs(at, simultaneous=True), facts)
        if not how:
            ev["first_order"] = f"not established ({_short(res)})"
            return ProofOutcome(None, "sympy", ev)
    ev["first_order"] = "gradient vanishes (proved)"
    # the point must also be feasible before any optimality argument means anything
    for k in claim.wrt:
        iv, val = feas.sets[k], at[rep[k]]
        if not isinstance(iv, sp.Interval):
            # a finite set: the point must be one of its members, exactly
            members = list(iv) if isinstance(iv, sp.FiniteSet) else None
            if members is None or not any(zero_by(val - sp.sympify(m), facts)[0] for m in members):
                ev["feasible"] = f"not established for {k}"
                return ProofOutcome(None, "sympy", ev)
            continue
        if isinstance(iv, sp.Interval):
            ends = [(val - iv.start, iv.left_open), (iv.end - val, iv.right_open)]
            for d, open_ in ends:
                if d.is_finite is False or d.has(sp.oo, -sp.oo):
                    continue
                if not prove_sign(d, "positive" if open_ else "nonnegative", facts):
                    ev["feasible"] = f"not established for {k}"
                    return ProofOutcome(None, "sympy", ev)
    for rel in feas.where:
        d = (rel.rhs - rel.lhs) if isinstance(rel, (sp.StrictLessThan, sp.LessThan)) else (rel.lhs - rel.rhs)
        d = d.xreplace(rep).subs(at, simultaneous=True)
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        if not prove_sign(d, "positive" if strict else "nonnegative", facts):
            ev["feasible"] = f"not established for {rel}"
            return ProofOutcome(None, "sympy", ev)
    ev["feasible"] = "proved"
    # concavity gives a global maximum only on a convex feasible set: intervals cut by
    # linear relations (a polytope); a discrete or non-convex set is left to the numbers
    convex = all(isinstance(feas.sets[k], sp.Interval) for k in claim.wrt) and all(
        _is_linear(rel.lhs - rel.rhs, claim.wrt) for rel in feas.where)
    if not convex or _nonsmooth(obj):
        ev["second_order"] = "not attempted (feasible set not convex, or objective not smooth)"
        return ProofOutcome(None, "sympy", ev)
    hess = sp.hessian(obj, wrt)
    minors = [hess[:k, :k].det() for k in range(1, len(wrt) + 1)]
    # negative definite iff the k-th leading minor has sign (-1)^k
    wants = ["negative" if k % 2 else "positive" for k in range(1, len(wrt) + 1)]
    if all(prove_sign(m, w, facts) for m, w in zip(minors, wants)):
        ev["second_order"] = "Hessian negative definite on the whole feasible set (strictly concave)"
        return ProofOutcome(CERTIFIED, "sympy (stationary point of a strictly concave objective)", ev)
    if claim.scope == "local":
        at_pt = [m.subs(at, simultaneous=True) for m in minors]
        if all(prove_sign(m, w, facts) for m, w in zip(at_pt, wants)):
            ev["second_order"] = "Hessian negative definite at the point"
            return ProofOutcome(CERTIFIED, "sympy (first and second order conditions)", ev)
    ev["second_order"] = "not established"
    return ProofOutcome(None, "sympy", ev)


_NONSMOOTH = (sp.Piecewise, sp.sign, sp.Heaviside, sp.Abs, sp.Min, sp.Max, sp.floor, sp.ceiling,
              sp.frac)


def _nonsmooth(e) -> bool:
    return sp.sympify(e).has(*_NONSMOOTH)


def _is_linear(e, syms) -> bool:
    try:
        return sp.Poly(sp.expand(e), *syms).total_degree() <= 1
    except sp.PolynomialError:
        return False


_PROVERS = {"identity": prove_identity, "chain": prove_chain, "inequality": prove_inequality,
            "limit": prove_limit, "monotonic": prove_monotonic, "root": prove_root,
            "stationarity": prove_stationary, "maximiser": prove_maximiser}


def prove(claim) -> ProofOutcome:
    """Try to establish the claim symbolically; never returns a refutation."""
    return _PROVERS[claim.kind](claim)
