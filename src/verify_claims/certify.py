"""Certification: inequality-like claims shown over their *whole* domain (issue 4).

A claim is reduced to sign goals "e > 0 (or >= 0, < 0, <= 0, = 0) at every domain
point", and each goal is decided by the cheapest sound method that can:

1. ``symbolic``: sympy sign analysis under the domain's assumptions (prove_sign), and
   for goals with logarithms the tangent bounds 1 - 1/u <= log u <= u - 1 (u > 0):
   c*log u is replaced by its lower bound for the proven sign of c, and the log-free
   remainder is proved by sign analysis, exactly (zero_by) or by z3;
2. ``smt``: z3 nonlinear real arithmetic (see smt.py): unsat of the negation;
3. ``interval``: branch-and-bound with outward rounding (see interval.py).

What each kind becomes:
- Inequality lhs op rhs: (lhs - rhs) op 0; a Max on the large side or a Min on the small
  side is split into one goal per argument (x >= max(a, b) iff x >= a and x >= b).
- Monotonic: the derivative's sign on the domain with the variable's interval opened
  (the mean value theorem needs f continuous on the closed interval: f is shown defined
  there, and every expression the methods accept is continuous where defined).
- Root: the value lies in the interval (two inequality goals); it solves the equation
  (the prover's exact substitution, or a z3 zero goal); uniqueness by z3 (no other root:
  unsat of "residual(x) = 0, x in the interval, x != value"), or by a strictly signed
  derivative of the residual on each side of the value.

A method's "violated" answer is only a candidate: it becomes a counterexample after the
claim itself is re-evaluated at that point with mpmath (the same stable-across-precision
test as the spot-check).  An unconfirmed candidate, z3 ``unknown`` and a budget that runs
out are all "undecided", recorded with a one-line reason.

Deadlines are in CPU time of the process (time.process_time, like timebox.py): on a
loaded machine a certificate does not turn into "no time left"; z3's own timeout is set
from the CPU time left (z3 runs in this thread, so its work is counted).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from . import interval as ivm
from . import smt
from .claims import Inequality, Monotonic, Root
from .domain import Domain
from .timebox import TimeUp, time_limit

__all__ = ["Certificate", "Goal", "certify", "METHODS", "CERTIFIABLE"]

METHODS = ("symbolic", "smt", "interval")
CERTIFIABLE = ("inequality", "monotonic", "root", "maximiser")


@dataclass
class Goal:
    expr: object
    want: str  # positive | nonnegative | negative | nonpositive | zero
    domain: Domain
    text: str
    extra: tuple = ()  # extra relations (z3 only), e.g. x != value


@dataclass
class Certificate:
    verdict: str  # "certified" | "refuted" | "undecided"
    method: str | None = None
    detail: str = ""
    seconds: float = 0.0
    boxes: int | None = None
    depth: int | None = None
    goals: list = field(default_factory=list)
    counterexample: dict | None = None
    reason: str = ""

    def to_json(self) -> dict:
        out = {"method": self.method, "detail": self.detail, "seconds": round(self.seconds, 4),
               "boxes": self.boxes, "depth": self.depth, "goals": self.goals}
        if self.reason:
            out["reason"] = self.reason
        return out


class _Found(Exception):
    def __init__(self, cx):
        self.cx = cx


# ------------------------------------------------------------------ goals per kind
_SIGN = {"<": "negative", "<=": "nonpositive", ">": "positive", ">=": "nonnegative"}


def _ineq_goals(lhs, op, rhs, domain, text="") -> list:
    big, small = (lhs, rhs) if op in (">", ">=") else (rhs, lhs)
    want = "positive" if op in ("<", ">") else "nonnegative"
    if isinstance(small, sp.Max):
        return [g for a in small.args for g in _ineq_goals(big, ">" if want == "positive" else ">=", a, domain,
                                                              f"{text}vs {a}: ")]
    if isinstance(big, sp.Min):
        return [g for a in big.args for g in _ineq_goals(a, ">" if want == "positive" else ">=", small, domain,
                                                            f"{text}{a} vs: ")]
    return [Goal(sp.sympify(big) - sp.sympify(small), want, domain, f"{text}{_short(big)} - ({_short(small)}) "
                 f"{'> 0' if want == 'positive' else '>= 0'}")]


def _short(e, n=80):
    s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."


def _open(iv: sp.Interval) -> sp.Interval:
    return sp.Interval(iv.start, iv.end, True, True)


def goals_for(claim):
    """The sign goals whose conjunction is the claim (plus what they were made from)."""
    if isinstance(claim, Inequality):
        return _ineq_goals(claim.lhs, claim.op, claim.rhs, claim.domain)
    if isinstance(claim, Monotonic):
        x = claim.var
        sets = dict(claim.domain.sets)
        sets[x] = _open(sets[x])
        der = sp.diff(claim.expr, x)
        inc = claim.direction == "increasing"
        want = ("positive" if claim.strict else "nonnegative") if inc else (
            "negative" if claim.strict else "nonpositive")
        return [Goal(der, want, Domain(sets, claim.domain.where), f"d/d{x} is {want} inside the interval")]
    if isinstance(claim, Root):
        x, v, iv = claim.var, sp.sympify(claim.value), claim.interval
        out = []
        if iv.start.is_finite:
            out.append(Goal(v - iv.start, "positive" if iv.left_open else "nonnegative", claim.domain,
                            "value above the interval's lower end"))
        if iv.end.is_finite:
            out.append(Goal(iv.end - v, "positive" if iv.right_open else "nonnegative", claim.domain,
                            "value below the interval's upper end"))
        return out
    return []


# ------------------------------------------------------------------ definedness
def side_conditions(e) -> list:
    """(expr, want) that make e defined: denominators non-zero, log arguments positive,
    bases of fractional powers non-negative (positive for negative powers)."""
    out = []
    for p in sp.sympify(e).atoms(sp.Pow):
        if p.exp.is_Integer and p.exp < 0:
            out.append((p.base, "nonzero"))
        elif p.exp.is_Rational and not p.exp.is_Integer:
            out.append((p.base, "positive" if p.exp < 0 else "nonnegative"))
        elif not p.exp.is_number:
            out.append((p.base, "positive"))
    for lg in sp.sympify(e).atoms(sp.log):
        out.append((lg.args[0], "positive"))
    for fn in sp.sympify(e).atoms(sp.Function):
        if isinstance(fn, (sp.asin, sp.acos)):
            out.append((1 - fn.args[0] ** 2, "nonnegative"))
        elif isinstance(fn, sp.atanh):
            out.append((1 - fn.args[0] ** 2, "positive"))
        elif isinstance(fn, sp.acosh):
            out.append((fn.args[0] - 1, "nonnegative"))
        elif not isinstance(fn, _TOTAL):
            # a function whose domain is not described here: never shown defined
            out.append((sp.S.NegativeOne, "nonnegative"))
    return out


# real functions defined on the whole real line (log and powers are handled above)
_TOTAL = (sp.log, sp.exp, sp.sin, sp.cos, sp.atan, sp.asinh, sp.sinh, sp.cosh, sp.tanh, sp.Abs,
          sp.Max, sp.Min, sp.sign, sp.Heaviside, sp.floor, sp.ceiling, sp.Piecewise, sp.erf)


# ------------------------------------------------------------------ methods
def _with_ends(domain) -> list:
    """The domain's relations plus its intervals' finite ends as relations (ref < 1 for
    ref in (0, 1)): sympy's per-symbol assumptions keep only the sign, the slack 1 - ref
    > 0 is what sign analysis of (1 - ref) e^{-c} + ref e^{c} needs."""
    out = list(domain.where)
    for s, st in domain.sets.items():
        if not isinstance(st, sp.Interval):
            continue
        if st.end.is_finite:
            out.append(s < st.end if st.right_open else s <= st.end)
        if st.start.is_finite and st.start != 0:
            out.append(s > st.start if st.left_open else s >= st.start)
    return out


def _symbolic(goal: Goal, seconds: float):
    """'holds' or None; never a refutation."""
    from .symbolic import Facts, prove_sign, zero_by
    rep = goal.domain.assumption_symbols()
    facts = Facts.from_relations(goal.domain.where, rep)
    ends = _with_ends(goal.domain)
    # the interval ends as extra slacks: a second try only (more slacks make the log
    # relaxation's positivity checks slower, and it does not need them)
    facts_ends = Facts.from_relations(ends, rep) if len(ends) > len(goal.domain.where) else None
    e = sp.sympify(goal.expr).xreplace(rep)
    box = None
    try:
        with time_limit(seconds) as box:
            if goal.want == "zero":
                how = zero_by(e, facts)[0]
                if how:
                    return "holds", f"sympy ({how})"
                # an identity for every positive value of sqrt(p (1 - p)) holds for its actual
                # value; as a positive symbol, log(exp(c/beta)) = c/beta is sympy's to see
                ab = _abstract_positive(e, facts_ends or facts, exps=False)
                if ab != e:
                    how = zero_by(ab, facts)[0]
                    if how:
                        return "holds", f"sympy ({how}; roots of positive bases as positive symbols)"
                return None
            if not e.has(sp.log) and prove_sign(e, goal.want, facts):
                return "holds", "sympy sign analysis"
            if facts_ends is not None and not e.has(sp.log) and prove_sign(e, goal.want, facts_ends):
                return "holds", "sympy sign analysis (with the intervals' ends)"
            if goal.want != "zero" and e.has(sp.exp, sp.Pow):
                ff = facts_ends or facts
                ab = _abstract_positive(e, ff)
                if ab != e and not ab.has(sp.log) and prove_sign(ab, goal.want, ff):
                    return "holds", ("sympy sign analysis, exp(real) and roots of positive bases "
                                     "replaced by positive symbols")
            if goal.want in ("positive", "nonnegative", "negative", "nonpositive"):
                how = _affine_ends(sp.sympify(goal.expr), goal.want, goal.domain)
                if how:
                    return "holds", how
            if e.has(sp.log) and goal.want in ("positive", "nonnegative"):
                relaxed = _relax_logs(e, facts)
                if relaxed is not None:
                    if zero_by(relaxed, facts)[0] and goal.want == "nonnegative":
                        return "holds", "log u <= u - 1 / log u >= 1 - 1/u; the bound is identically 0"
                    if prove_sign(relaxed, goal.want, facts):
                        return "holds", "log u <= u - 1 / log u >= 1 - 1/u; the bound's sign by sympy"
                    inv = {v: k for k, v in rep.items()}
                    ans = smt.check_goal(relaxed.xreplace(inv), goal.want, goal.domain,
                                         max(0.5, seconds / 2))
                    if ans.verdict == "unsat":
                        return "holds", "log u <= u - 1 / log u >= 1 - 1/u; the bound by z3 (unsat)"
    except TimeUp as exc:
        if exc.box is not box:
            raise
    except Exception:  # noqa: BLE001 - a sympy failure is 'not this way'
        return None
    return None


def _abstract_positive(e, facts, exps=True):
    """e with every exp(u) of a real u, and every non-integer power of a base proven
    positive, replaced by a fresh positive symbol (equal sub-terms by the same one).  A
    sign that holds for *all* positive values of those symbols holds for e: the
    abstraction forgets relations (exp(a) exp(-a) = 1), never invents one."""
    memo = {}

    def walk(node):
        if node.is_Atom:
            return node
        if node in memo:
            return memo[node]
        args = [walk(a) for a in node.args]
        new = node.func(*args) if any(a is not b for a, b in zip(args, node.args)) else node
        out = new
        if exps and isinstance(new, sp.exp) and new.args[0].is_real is True:
            out = sp.Dummy("E", positive=True)
        elif isinstance(new, sp.Pow) and not new.exp.is_Integer and new.exp.is_real is True and (
                new.base.is_positive is True or facts.is_positive(new.base)):
            out = sp.Dummy("R", positive=True)
        memo[node] = out
        return out

    return walk(sp.sympify(e))


def _affine_ends(e, want, domain, depth=0):
    """e affine in a variable s ranging over a bounded interval [lo, hi] takes its extreme
    values at the ends: e has the wanted sign on the interval if it has it at s = lo and at
    s = hi (both ends included or not: a convex combination of two values of that sign).
    The ends are substituted exactly; relations that mention s are dropped (a superset)."""
    from .symbolic import Facts, prove_sign
    if depth > 1:
        return None
    for s, st in domain.sets.items():
        if not (isinstance(st, sp.Interval) and st.start.is_finite and st.end.is_finite) or not e.has(s):
            continue
        try:
            poly = sp.Poly(e, s)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1 or any(c.has(s) for c in poly.all_coeffs()):
            continue
        sets = {k: v for k, v in domain.sets.items() if k != s}
        sub = Domain(sets, tuple(r for r in domain.where if not r.has(s)))
        rep = sub.assumption_symbols()
        facts = Facts.from_relations(_with_ends(sub), rep)
        ok = True
        for end in (st.start, st.end):
            val = e.xreplace({s: end})
            if not (prove_sign(val.xreplace(rep), want, facts) or _affine_ends(val, want, sub, depth + 1)):
                ok = False
                break
        if ok:
            return f"affine in {s} on [{st.start}, {st.end}]: the sign at both ends by sympy"
    return None


def _relax_logs(e, facts):
    """A log-free lower bound of e, or None: e = r + sum c_k log u_k with every u_k > 0
    and every c_k of proven sign; c log u >= c (1 - 1/u) if c >= 0, >= c (u - 1) if c <= 0."""
    # log=False: expanding log(a/b) into log a - log b would separate terms whose
    # tangent bounds only cancel together (KL's p log(p/q) >= p - q)
    e = sp.expand(e, log=False)
    logs = list(e.atoms(sp.log))
    if not logs:
        return None
    out = e
    for lg in logs:
        if not facts.is_positive(lg.args[0]):
            from .symbolic import prove_sign
            if not prove_sign(lg.args[0], "positive", facts):
                return None
    dummies = {lg: sp.Dummy() for lg in logs}
    poly_e = e.xreplace(dummies)
    for lg, d in dummies.items():
        c = poly_e.coeff(d)
        if c.has(*dummies.values()) or sp.expand(poly_e - c * d).has(d):
            return None  # not linear in the logs
        u = lg.args[0]
        from .symbolic import prove_sign
        if c.is_nonnegative or prove_sign(c, "nonnegative", facts):
            bound = c * (1 - 1 / u)
        elif c.is_nonpositive or prove_sign(c, "nonpositive", facts):
            bound = c * (u - 1)
        else:
            return None
        poly_e = sp.expand(poly_e - c * d, log=False) + bound
    out = poly_e
    return None if out.has(sp.log) else out


def _smt(goal: Goal, seconds: float, cx_check):
    ans = smt.check_goal(goal.expr, goal.want, goal.domain, seconds, extra=goal.extra)
    if ans.verdict == "unsat":
        return "holds", ans.detail, {}
    if ans.verdict == "sat":
        cx = cx_check(ans.model)
        if cx is None and getattr(cx_check, "exact", None) and ans.exact:
            cx = cx_check.exact(ans.exact)
        if cx is not None:
            raise _Found(cx)
        return None, "z3 sat, but its model is not confirmed by mpmath (not used)", {}
    return None, ("declined: " if ans.verdict == "declined" else "z3 ") + ans.detail, {}


def _defined(e, domain, seconds):
    """Every side condition of e proven on the domain (symbolically, else by z3)."""
    from .symbolic import Facts, prove_sign
    rep = domain.assumption_symbols()
    facts = Facts.from_relations(_with_ends(domain), rep)
    for base, want in side_conditions(e):
        b = base.xreplace(rep)
        ok = False
        try:
            with time_limit(min(1.0, seconds)):
                ok = b.is_number and (b != 0 if want == "nonzero" else None) or prove_sign(b, want, facts)
        except TimeUp:
            ok = False
        if not ok and want != "nonzero":
            ok = smt.check_goal(base, want, domain, min(1.0, seconds)).verdict == "unsat"
        elif not ok:
            ok = smt.check_goal(base * base, "positive", domain, min(1.0, seconds)).verdict == "unsat"
        if not ok:
            return False
    return True


def _interval(goal: Goal, seconds: float, cx_check):
    if goal.want == "zero" or goal.extra:
        return None, "declined: equalities are not decided by enclosures", {}
    defined = _defined(goal.expr, goal.domain, seconds / 4)
    ans = ivm.branch_and_bound(sp.sympify(goal.expr), goal.want, goal.domain,
                               seconds=seconds, defined=defined)
    info = {"boxes": ans.boxes, "depth": ans.depth}
    if ans.verdict == "holds":
        return "holds", f"interval branch-and-bound: {ans.detail}" + (
            "" if defined else " (strict enclosures)"), info
    if ans.verdict == "violated":
        cx = cx_check(ans.point)
        if cx is not None:
            raise _Found(cx)
        return None, "an enclosure had the wrong sign, but mpmath did not confirm it (not used)", info
    return None, f"interval: {ans.detail}", info


_RUNNERS = {"symbolic": lambda g, s, cx: (lambda r: (r[0], r[1], {}) if r else (None, "not established", {}))(
    _symbolic(g, s)), "smt": _smt, "interval": _interval}


def _monotone_end(goal, methods, deadline, depth=0):
    """Reduce a sign goal by one variable: if e is monotone in s on s's interval (its
    derivative's sign certified on the interior, e defined on the whole interval) and the
    interval has a closed finite end where e is smallest (for a lower-bound goal), then
    e >= e(end) at every domain point, and it suffices to certify the goal at s = end
    over the other variables.  Variables named in `where` relations are not reduced (their
    slice need not be that interval).  Exact methods only (symbolic, smt), one level.
    Returns (method, detail) or None."""
    if goal.want not in ("positive", "nonnegative", "negative", "nonpositive") or goal.extra:
        return None
    sub_methods = [m for m in methods if m in ("symbolic", "smt")]
    if not sub_methods:
        return None
    lower = goal.want in ("positive", "nonnegative")  # e is bounded below: its minimum matters
    cont = [s for s, st in goal.domain.sets.items() if isinstance(st, sp.Interval)]
    if len(cont) < 2:
        return None
    e = sp.sympify(goal.expr)
    for s in cont:
        st = goal.domain.sets[s]
        if not e.has(s) or any(sp.sympify(r).has(s) for r in goal.domain.where):
            continue
        if deadline - time.process_time() < 0.5:
            return None
        try:
            der = sp.diff(e, s)
        except Exception:  # noqa: BLE001
            continue
        inner = Domain({**goal.domain.sets, s: _open(st)}, goal.domain.where)
        for dwant, end, closed in (("nonnegative", st.start, not st.left_open),
                                   ("nonpositive", st.end, not st.right_open)):
            # e non-decreasing in s: smallest at the lower end; non-increasing: at the upper
            if not lower:
                end, closed = (st.end, not st.right_open) if dwant == "nonnegative" else (st.start, not st.left_open)
            if not (end.is_finite and closed):
                continue
            left = deadline - time.process_time()
            m1, d1, _ = _solve_goal(Goal(der, dwant, inner, f"d/d{s} {dwant}"), sub_methods,
                                    time.process_time() + min(left / 3, 5.0), _none_check)
            if m1 is None:
                continue
            if not _defined(e, goal.domain, min(1.0, left / 6)):
                break
            rest = Domain({k: v for k, v in goal.domain.sets.items() if k != s}, goal.domain.where)
            reduced = Goal(e.xreplace({s: end}), goal.want, rest, f"at {s} = {end}")
            m2, d2, _ = _solve_goal(reduced, sub_methods, time.process_time() + min(
                (deadline - time.process_time()) / 2, 10.0), _none_check)
            if m2 is None:
                break
            return ("+".join(dict.fromkeys((m1, m2))),
                    f"monotone in {s} (d/d{s} {dwant}: {d1}); at the worst end {s} = {end}: {d2}")
    return None


def _solve_goal(goal, methods, deadline, cx_check, _reduce=True):
    """(method, detail, info) of the first method that holds, or (None, reasons, info)."""
    tried = []
    info_all = {}
    for m in methods:
        if m == "interval" and _reduce and "smt" in methods:
            # before the (budget-hungry) interval method: one monotone reduction step
            red = _monotone_end(goal, methods, deadline)
            if red is not None:
                return red[0], red[1], {}
        left = deadline - time.process_time()
        if left <= 0.05:
            tried.append(f"{m}: no time left")
            break
        share = left if m == "interval" else min(left, max(1.0, left / 3))
        status, detail, info = _RUNNERS[m](goal, share, cx_check)
        info_all.update(info)
        if status == "holds":
            return m, detail, info
        tried.append(f"{m}: {detail}")
    return None, "; ".join(tried), info_all


# ------------------------------------------------------------------ re-checking candidates
def _recheck_inequality(claim, settings):
    from .numeric import _Evaluator, _check_order
    syms = claim.domain.symbols()
    ev = _Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision)

    def check(point):
        pt = _domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        out = _check_order(ev, claim.op, [pt], syms)
        return out.counterexample if out.verdict == "counterexample" else None

    def exact(point):
        """A rational z3 model and a rational difference: the sign is exact.  (mpmath
        cannot confirm a violation far below 1 in absolute size: 1e-61 < 0 is noise to
        its scale-1 tolerance.)"""
        if any(point.get(s) is None for s in syms):
            return None
        pt = {s: point[s] for s in syms}
        if not all(claim.domain.sets[s].contains(pt[s]) is sp.true for s in syms) or any(
                sp.sympify(rel).xreplace(pt) is not sp.true for rel in claim.domain.where):
            return None
        try:
            d = sp.sympify(claim.lhs).xreplace(pt) - sp.sympify(claim.rhs).xreplace(pt)  # exact, never nsimplify (it rounds tiny values to 0)
        except Exception:  # noqa: BLE001
            return None
        if not d.is_Rational:
            return None
        holds = {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0}[claim.op]
        if holds:
            return None
        from .numeric import _point_repr
        return {"type": "inequality violated",
                "point": _point_repr(syms, {s: mpmath.mpf(sp.Float(pt[s], 40)) for s in syms}),
                "exact point": {str(s): str(pt[s]) for s in syms}, "lhs - rhs": str(d) if len(str(d)) < 80
                else mpmath.nstr(mpmath.mpf(sp.Float(d, 30)), 8),
                "explanation": "exact rational arithmetic at a rational point"}
    check.exact = exact
    return check


def _domain_point(domain, point, syms, settings):
    from .numeric import _in_interval
    if any(s not in point for s in syms):
        return None
    pt = {s: mpmath.mpf(point[s]) for s in syms}
    for s in syms:
        st = domain.sets[s]
        if isinstance(st, sp.Interval) and not _in_interval(pt[s], st):
            return None
    if not domain.contains(pt, settings.precision):
        return None
    return pt


def _recheck_monotonic(claim, settings):
    from .numeric import _Diff, _Evaluator, _decide_order, _exactly_zero, _in_interval, _point_repr
    syms = claim.domain.symbols()
    x = claim.var
    ev = _Evaluator(syms, {"f": claim.expr}, settings.precision)
    op = ("<" if claim.strict else "<=") if claim.direction == "increasing" else (">" if claim.strict else ">=")

    def check(point):
        pt = _domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        for k in (2, 4, 6, 8, 10, 12):
            h = mpmath.mpf(10) ** -k
            for a, b in ((pt[x], pt[x] + h), (pt[x] - h, pt[x])):
                if not (_in_interval(a, claim.domain.sets[x]) and _in_interval(b, claim.domain.sets[x])):
                    continue
                p1, p2 = dict(pt), dict(pt)
                p1[x], p2[x] = a, b
                if not (claim.domain.contains(p1, settings.precision) and claim.domain.contains(p2, settings.precision)):
                    continue
                pair = _Diff(ev, "f", p1, "f", p2)
                try:
                    res = _decide_order(op, pair, lambda: _exactly_zero(
                        claim.expr.xreplace({x: _exact(p1[x])}) - claim.expr.xreplace({x: _exact(p2[x])}),
                        [s_ for s_ in syms if s_ != x], pt))
                except ArithmeticError:
                    continue
                if res is True:
                    f1, f2 = pair.values
                    return {"type": f"not {claim.direction}", "point": _point_repr(syms, p1),
                            f"{x} (first)": mpmath.nstr(a, 12), f"{x} (second)": mpmath.nstr(b, 12),
                            "f(first)": mpmath.nstr(f1, 12), "f(second)": mpmath.nstr(f2, 12)}
        return None
    return check


def _exact(v):
    from .numeric import _exact as ex
    return ex(v)


def _recheck_root_value(claim, settings):
    from .numeric import _Evaluator, _point_repr, _tol, fmt
    syms = claim.domain.symbols()
    ev = _Evaluator(syms, {"value": claim.value}, settings.precision)
    iv = claim.interval

    def check(point):
        pt = _domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        try:
            v1 = ev.at("value", pt, ev.high)
            v2 = ev.at("value", pt, 2 * ev.high)
        except ArithmeticError:
            return None
        lo = mpmath.mpf(sp.Float(iv.start, 80)) if iv.start.is_finite else -mpmath.inf
        hi = mpmath.mpf(sp.Float(iv.end, 80)) if iv.end.is_finite else mpmath.inf
        margin = _tol(ev.high) * max(1, abs(v2))
        if (v1 < lo - margin and v2 < lo - margin) or (v1 > hi + margin and v2 > hi + margin) or (
                iv.left_open and v2 == lo and v1 == lo) or (iv.right_open and v2 == hi and v1 == hi):
            return {"type": "root outside the interval", "point": _point_repr(syms, pt),
                    str(claim.var): fmt(v2), "interval": str(iv)}
        return None
    return check


def _recheck_other_root(claim, settings):
    """A z3 model of "another root": confirmed by a sign change of the residual in a
    bracket around it, strictly inside the interval and away from the claimed value."""
    from .numeric import _Evaluator, _in_interval, _point_repr, fmt
    syms = claim.domain.symbols()
    x = claim.var
    ev = _Evaluator(syms + (x,), {"r": claim.residual(), "value": claim.value}, settings.precision)

    def check(point):
        pt = _domain_point(claim.domain, point, syms, settings)
        if pt is None or x not in point:
            return None
        xr = mpmath.mpf(point[x])
        try:
            q = dict(pt)
            q[x] = mpmath.mpf(0)
            v = ev.at("value", q, ev.high)
            for k in (10, 15, 20):
                eps = mpmath.mpf(10) ** -k
                if abs(xr - v) <= 1000 * eps:
                    continue
                a, b = dict(q), dict(q)
                a[x], b[x] = xr - eps, xr + eps
                if not (_in_interval(a[x], claim.interval) and _in_interval(b[x], claim.interval)):
                    continue
                ra, rb = ev.at("r", a, ev.high), ev.at("r", b, ev.high)
                if ra * rb < 0:
                    return {"type": "another root in the interval", "point": _point_repr(syms, pt),
                            f"{x} (claimed)": fmt(v), f"{x} (other)": fmt(xr), "interval": str(claim.interval),
                            "residual sign change": f"{fmt(ra, 4)} at {x}-{fmt(eps, 2)}, {fmt(rb, 4)} at {x}+{fmt(eps, 2)}"}
        except ArithmeticError:
            return None
        return None
    return check


def _exact_other_root(claim, exact, settings):
    """A rational model: the residual is evaluated exactly there (sympy rationals); a
    root at an interval end (x = 0 of x^2 - u x = 0) has no sign-change bracket inside."""
    from .numeric import _point_repr, fmt
    from .symbolic import zero_by
    x = claim.var
    syms = claim.domain.symbols()
    if any(s not in exact for s in syms) or x not in exact:
        return None
    pt = {s: exact[s] for s in syms}
    if not claim.interval.contains(exact[x]) or not all(
            claim.domain.sets[s].contains(pt[s]) is sp.true for s in syms):
        return None
    if any(sp.sympify(rel).xreplace(pt) is not sp.true for rel in claim.domain.where):
        return None
    try:
        r = sp.expand(claim.residual().xreplace({**pt, x: exact[x]}))
        v = sp.sympify(claim.value).xreplace(pt)
        if r != 0 or zero_by(v - exact[x])[0] is not None or sp.N(abs(v - exact[x]), 30) < sp.Float(1e-20):
            return None
    except Exception:  # noqa: BLE001
        return None
    return {"type": "another root in the interval",
            "point": _point_repr(syms, {s: mpmath.mpf(sp.Float(pt[s], 40)) for s in syms}),
            f"{x} (claimed)": fmt(mpmath.mpf(sp.Float(v, 40))), f"{x} (other)": str(exact[x]),
            "interval": str(claim.interval), "residual": "exactly 0 (rational arithmetic)"}


def _none_check(point):
    return None


# ------------------------------------------------------------------ the driver
def _methods_for(claim):
    pick = getattr(claim, "certify_with", None)
    if pick == "none":
        return []
    if pick in METHODS:
        return [pick]
    return list(METHODS)


def certify(claim, settings, budget: float, solved: bool | None = None) -> Certificate:
    """Certify an inequality-like claim over its whole domain, refute it with a
    confirmed counterexample, or say why neither was possible.  `solved` (roots): the
    prover already showed that the value solves the equation."""
    t0 = time.process_time()
    deadline = t0 + budget
    methods = _methods_for(claim)
    if not methods:
        return Certificate("undecided", reason="certification switched off for this claim (certify_with='none')")
    if claim.kind not in CERTIFIABLE:
        return Certificate("undecided", reason=f"no certification method for {claim.kind} claims")
    if claim.kind == "maximiser":
        return _certify_maximiser(claim, methods, t0, deadline, bool(solved))
    if claim.kind == "monotonic" and claim.expr.has(sp.Piecewise, sp.Max, sp.Min, sp.Abs, sp.sign,
                                                    sp.Heaviside, sp.floor, sp.ceiling):
        return Certificate("undecided", reason="not smooth (Piecewise/Max/...): a derivative ignores jumps")
    if claim.kind == "inequality":
        check = _recheck_inequality(claim, settings)
    elif claim.kind == "monotonic":
        check = _recheck_monotonic(claim, settings)
    else:
        check = _recheck_root_value(claim, settings)
    goals = [(g, check) for g in goals_for(claim)]
    records, used, boxes, depth = [], [], 0, 0
    try:
        if claim.kind == "monotonic":
            # f must be defined on the closed interval (continuity for the mean value theorem)
            if not _defined(claim.expr, claim.domain, max(0.5, (deadline - time.process_time()) / 4)):
                return _undecided(t0, records, "could not show the function defined on the whole "
                                  "interval (needed for the mean value theorem)")
        for g, chk in goals:
            m, detail, info = _solve_goal(g, methods, deadline, chk)
            boxes += info.get("boxes") or 0
            depth = max(depth, info.get("depth") or 0)
            records.append({"goal": g.text, "method": m, "detail": detail})
            if m is None:
                return _undecided(t0, records, f"{g.text}: {detail}", boxes, depth)
            used.append(m)
        if claim.kind == "root":
            ok, how = _root_rest(claim, methods, deadline, solved, records, settings)
            if ok is None:
                return _undecided(t0, records, how, boxes, depth)
            used += ok
    except _Found as found:
        return Certificate("refuted", method=None, detail="counterexample found by a certification method "
                           "and confirmed by mpmath", seconds=time.process_time() - t0, goals=records,
                           counterexample=found.cx, boxes=boxes or None, depth=depth or None)
    method = "+".join(dict.fromkeys(used)) or None
    detail = "; ".join(f"{r['goal']}: {r['detail']}" for r in records)
    return Certificate("certified", method=method, detail=detail, seconds=time.process_time() - t0,
                       boxes=boxes or None, depth=depth or None, goals=records)


def _undecided(t0, records, reason, boxes=0, depth=0):
    return Certificate("undecided", method=None, detail="", seconds=time.process_time() - t0,
                       boxes=boxes or None, depth=depth or None, goals=records, reason=reason[:400])


def _root_rest(claim, methods, deadline, solved, records, settings):
    """Solving (unless the prover showed it) and uniqueness of a Root claim."""
    x, v, iv = claim.var, sp.sympify(claim.value), claim.interval
    res = claim.residual()
    used = []
    if not solved:
        g = Goal(res.xreplace({x: v}), "zero", claim.domain, "value solves the equation")
        sq = _squared_form(res, x, v, claim.domain)
        m = None
        if sq is not None:
            # A + K sqrt(B) = 0 at the value iff A^2 = K^2 B and A K <= 0 there (K a
            # non-zero number): sqrt(B) = |A/K| and the signs make K sqrt(B) = -A
            zero_g, sign_g = sq
            n = len(records)
            mz, dz, _ = _solve_goal(zero_g, [m for m in methods if m != "interval"], deadline, _none_check)
            ms, ds, _ = _solve_goal(sign_g, methods, deadline, _none_check) if mz else (None, "", {})
            if mz and ms and _defined(zero_g.expr, claim.domain, max(0.2, (deadline - time.process_time()) / 4)):
                records.append({"goal": g.text, "method": f"{mz}+{ms}",
                                "detail": f"squared: {zero_g.text}: {dz}; {sign_g.text}: {ds}"})
                used += [mz, ms]
                m = mz
            del records[n + (1 if m else 0):]
        if m is None:
            m, detail, _ = _solve_goal(g, [m for m in methods if m != "interval"], deadline, _none_check)
            records.append({"goal": g.text, "method": m, "detail": detail})
            if m is None:
                return None, f"{g.text}: {detail}"
            used.append(m)
    if not claim.unique:
        return used, ""
    sets = dict(claim.domain.sets)
    sets[x] = iv
    dom = Domain(sets, claim.domain.where)
    tried = []
    if "smt" in methods:
        ans = _smt_other_root(claim, dom, deadline, settings)
        if ans[0] == "holds":
            records.append({"goal": "no other root in the interval", "method": "smt", "detail": ans[1]})
            return used + ["smt"], ""
        if ans[0] == "violated":
            raise _Found(ans[1])
        tried.append(f"smt: {ans[1]}")
    # a strictly signed derivative on each side of the value: no second zero
    der = sp.diff(res, x)
    sides = []
    for rel, txt in ((x < v, "below"), (x > v, "above")):
        d2 = Domain({**sets, x: _open(iv)}, tuple(claim.domain.where) + (rel,))
        ok = None
        for want in ("positive", "negative"):
            m, detail, _ = _solve_goal(Goal(der, want, d2, f"residual strictly monotone {txt} the value"),
                                       [m for m in methods if m != "smt"] or methods, deadline, _none_check)
            if m is not None:
                ok = (m, f"d(residual)/d{x} {want} {txt} the value: {detail}")
                break
        if ok is None:
            tried.append(f"monotone sides: not established {txt} the value")
            return None, "uniqueness not established (" + "; ".join(tried) + ")"
        sides.append(ok)
    if not _defined(res, dom, max(0.2, (deadline - time.process_time()) / 2)):
        return None, "uniqueness: the residual is not shown defined (continuous) on the interval"
    for m, d in sides:
        records.append({"goal": "no other root in the interval", "method": m, "detail": d})
        used.append(m)
    return used, ""


def _squared_form(res, x, v, domain):
    """(A^2 - K^2 B at the value: zero, A K at the value: nonpositive) when the residual
    is A + K sqrt(B) with a single square root of an x-dependent B and K a non-zero number."""
    roots = [p for p in sp.sympify(res).atoms(sp.Pow) if p.exp == sp.S.Half and p.base.has(x)]
    if len(roots) != 1:
        return None
    q = roots[0]
    d = sp.Dummy("q")
    lin = sp.expand(sp.sympify(res).xreplace({q: d}))
    K = lin.coeff(d)
    A = sp.expand(lin - K * d)
    if A.has(d) or not K.is_number or K == 0 or A.has(q):
        return None
    at = {x: v}
    B = q.base
    return (Goal(sp.expand((A ** 2 - K ** 2 * B).xreplace(at)), "zero", domain,
                 "squared equation A^2 = K^2 B at the value"),
            Goal((A * K).xreplace(at), "nonpositive", domain, "A K <= 0 at the value (signs agree)"))


def _smt_other_root(claim, dom, deadline, settings):
    """z3: residual(x) = 0, x in the interval, x != value -- unsat means unique."""
    if not smt.available():
        return None, "z3 not installed"
    import z3
    x, v = claim.var, sp.sympify(claim.value)
    tr = smt.Translator()
    try:
        cons = tr.domain(dom)
        val = tr.expr(v)  # the value's definedness stays an obligation (proved below)
        n_obl = len(tr.obligations)
        r = tr.expr(claim.residual())
        # another root is a point where the residual is *defined* and 0: its definedness
        # conditions (x != 0 for a pole at an end of [0, 1]) are constraints of the
        # query, not obligations over the whole interval
        defined_at = [cond for cond, _ in tr.obligations[n_obl:]]
        tr.obligations = tr.obligations[:n_obl]
    except smt.NotExpressible as exc:
        return None, f"declined: {exc}"
    except (TypeError, ValueError) as exc:
        return None, f"declined: {exc}"
    t0 = time.process_time()
    for cond, text in tr.obligations:
        s = z3.Solver()
        s.set("timeout", max(1, int((deadline - time.process_time()) * 1000)))
        s.add(*cons, *tr.aux, z3.Not(cond))
        if s.check() != z3.unsat:
            return None, f"could not show {text} on the domain"
    s = z3.Solver()
    s.set("timeout", max(1, int((deadline - time.process_time()) * 1000)))
    s.add(*cons, *tr.aux, *defined_at, r == 0, tr.vars[x] != val)
    ans = s.check()
    if ans == z3.unsat:
        return "holds", (f"z3 unsat of 'residual defined and = 0, {x} in the interval, {x} != value' "
                         f"({len(cons) + len(tr.aux) + 2} constraints, {len(tr.obligations)} obligations, "
                         f"{time.process_time() - t0:.3f} s)")
    if ans == z3.sat:
        m = s.model()
        point, exact = {}, {}
        for sym, zv in tr.vars.items():
            val = m.eval(zv, model_completion=True)
            point[sym] = smt._mpf_of(val, 60)
            exact[sym] = smt.exact_of(val)
        cx = _recheck_other_root(claim, settings)(point)
        if cx is None and all(v is not None for v in exact.values()):
            cx = _exact_other_root(claim, exact, settings)
        if cx is not None:
            return "violated", cx
        return None, "z3 found another root, not confirmed by a sign change (not used)"
    return None, f"z3 {ans}: {s.reason_unknown()}"


# ------------------------------------------------------------------ maximisers
class _Stop(Exception):
    """A goal of a maximiser route was not established (the reason says which)."""


_NONSMOOTH = (sp.Piecewise, sp.Max, sp.Min, sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling)


def _feasibility_goals(claim, at, feas):
    """The point lies in the feasible set: in each variable's interval (or finite set)
    and on the right side of every over_where relation, at every parameter point."""
    out = []
    for k in claim.wrt:
        st, v = feas.sets[k], at[k]
        if not isinstance(st, sp.Interval):
            raise _Stop(f"the feasible set of {k} is not an interval")
        if st.start.is_finite:
            out.append(Goal(v - st.start, "positive" if st.left_open else "nonnegative", claim.domain,
                            f"point: {k} above the lower end"))
        if st.end.is_finite:
            out.append(Goal(st.end - v, "positive" if st.right_open else "nonnegative", claim.domain,
                            f"point: {k} below the upper end"))
    for rel in feas.where:
        d = (rel.rhs - rel.lhs) if isinstance(rel, (sp.StrictLessThan, sp.LessThan)) else (rel.lhs - rel.rhs)
        strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
        if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
            raise _Stop(f"feasible-set relation {rel} is not an inequality")
        out.append(Goal(sp.sympify(d).subs(at, simultaneous=True), "positive" if strict else "nonnegative",
                        claim.domain, f"point satisfies {rel}"))
    return out


def _certify_maximiser(claim, methods, t0, deadline, first_order_proved):
    """A Maximiser claim over its whole parameter domain (Section 1.3's stationary
    policies, the maximisers of Sections 2.3 and 3).  Three sound routes:

    A. one variable, global: the point is feasible, f is defined (continuous) on the
       feasible interval I, and f' >= 0 on I's interior left of the point, f' <= 0 right
       of it.  By the mean value theorem f(y) <= f(point) for every y in I.  No
       stationarity is needed, so a maximiser at an end of I is covered.
    B. global: the point is feasible, the gradient vanishes there (the prover's exact
       identity, else a z3 zero goal), the feasible set is convex (intervals cut by
       linear relations) and the Hessian is negative definite on all of it (leading
       minors of alternating sign): f is strictly concave, so the point is its maximum.
    C. local: feasible, zero gradient, Hessian negative definite at the point (its
       leading minors' signs as goals over the parameter domain): a strict local max.

    Sign goals are never turned into counterexamples here: f' < 0 somewhere left of the
    point does not by itself refute a global maximum (the numbers decide refutation)."""
    records, used = [], []
    f = sp.sympify(claim.objective)
    if claim.frozen:
        f = f.subs(claim.frozen, simultaneous=True)
    wrt = list(claim.wrt)
    at = {k: sp.sympify(v) for k, v in claim.at.items()}
    feas = claim.feasible()

    def need(goal, allowed=None, until=None):
        ms = [m for m in methods if allowed is None or m in allowed] or methods
        m, detail, _ = _solve_goal(goal, ms, min(deadline, until or deadline), _none_check)
        records.append({"goal": goal.text, "method": m, "detail": detail})
        if m is None:
            raise _Stop(f"{goal.text}: {detail}")
        used.append(m)

    def done(route):
        return Certificate("certified", method="+".join(dict.fromkeys(used)) or None,
                           detail=route + "; " + "; ".join(f"{r['goal']}: {r['detail']}" for r in records),
                           seconds=time.process_time() - t0, goals=records)

    try:
        if f.has(*_NONSMOOTH):
            raise _Stop("objective not smooth (Piecewise/Max/...): no derivative argument")
        for g in _feasibility_goals(claim, at, feas):
            need(g)
    except _Stop as stop:
        return _undecided(t0, records, f"maximiser: {stop}")
    params = dict(claim.domain.sets)
    why = []
    if claim.scope == "global" and len(wrt) == 1 and not any(
            sp.sympify(r).has(wrt[0]) for r in feas.where):
        n = len(records)
        # route A gets half of what is left: route B must not be starved by an interval search
        until = time.process_time() + (deadline - time.process_time()) / 2
        try:
            x, v, iv = wrt[0], at[wrt[0]], feas.sets[wrt[0]]
            whole = Domain({**params, x: iv}, tuple(claim.domain.where))
            if not _defined(f, whole, max(0.5, (deadline - time.process_time()) / 6)):
                raise _Stop("the objective is not shown defined on the whole feasible interval")
            der = sp.diff(f, x)
            for rel, want, side in ((x < v, "nonnegative", "left of"), (x > v, "nonpositive", "right of")):
                if side == "right of" and iv.end.is_finite and sp.sympify(iv.end - v) == 0 or \
                        side == "left of" and iv.start.is_finite and sp.sympify(v - iv.start) == 0:
                    continue  # the point is that end of the interval: nothing on this side
                dom = Domain({**params, x: _open(iv)}, tuple(claim.domain.where) + (rel,))
                need(Goal(der, want, dom, f"d/d{x} {want} {side} the point"), until=until)
                if not _defined(der, dom, max(0.5, (deadline - time.process_time()) / 6)):
                    raise _Stop(f"d/d{x} not shown defined {side} the point")
            return done("route A: f' >= 0 left of the point and <= 0 right of it on the feasible "
                        "interval (mean value theorem): a global maximiser")
        except _Stop as stop:
            why.append(f"route A: {stop}")
            del records[n:]
    try:
        if not first_order_proved:
            for k in wrt:
                need(Goal(sp.diff(f, k).subs(at, simultaneous=True), "zero", claim.domain,
                          f"d/d{k} vanishes at the point"), allowed=("symbolic", "smt"))
        else:
            records.append({"goal": "gradient vanishes at the point", "method": "symbolic",
                            "detail": "the prover's exact identity"})
            used.append("symbolic")
        hess = sp.hessian(f, wrt)
        wants = ["negative" if k % 2 else "positive" for k in range(1, len(wrt) + 1)]
        if claim.scope == "global":
            convex = all(_linear_in(r.lhs - r.rhs, wrt) for r in feas.where)
            if not convex:
                raise _Stop("feasible set not shown convex (a non-linear relation)")
            whole = Domain({**params, **feas.sets}, tuple(claim.domain.where) + tuple(feas.where))
            # the concavity inequality f(y) <= f(point) + grad f(point) (y - point) needs f
            # itself defined on the feasible set (log x has the derivative 1/x also at x < 0)
            if not _defined(f, whole, max(0.5, (deadline - time.process_time()) / 6)):
                raise _Stop("the objective is not shown defined on the whole feasible set")
            for k, w in zip(range(1, len(wrt) + 1), wants):
                need(Goal(hess[:k, :k].det(), w, whole, f"leading minor {k} of the Hessian {w} on the "
                          "feasible set"))
            return done("route B: zero gradient at a feasible point of a strictly concave objective on a "
                        "convex set: the global maximiser")
        for k, w in zip(range(1, len(wrt) + 1), wants):
            need(Goal(hess[:k, :k].det().subs(at, simultaneous=True), w, claim.domain,
                      f"leading minor {k} of the Hessian {w} at the point"))
        return done("route C: zero gradient and negative definite Hessian at the point: a strict local "
                    "maximiser")
    except _Stop as stop:
        why.append(f"route {'B' if claim.scope == 'global' else 'C'}: {stop}")
    return _undecided(t0, records, "maximiser: " + "; ".join(why))


def _linear_in(e, syms) -> bool:
    try:
        return sp.Poly(sp.expand(e), *syms).total_degree() <= 1
    except sp.PolynomialError:
        return False


# ------------------------------------------------------------------ limits (reason only)
def limit_reason(claim, symbolic_evidence: dict, numeric_evidence: dict) -> str:
    """One line: why a limit that sympy.limit did not establish stays checked.  No
    certification method here handles limits; a limit of a sum whose number of terms
    grows with the limit variable (a symbolic group size G) would need a proof by another
    route (dominated convergence / a CLT argument), which this engine does not attempt."""
    x = claim.var
    ladder = []
    for v in numeric_evidence.get("ladder", []) or []:
        try:
            ladder.append(10 ** float(v))
        except (TypeError, ValueError):
            pass
    top = max(ladder) if ladder else None
    if top is not None:  # the ladder is reported as rounded log10 values: 3.01 is 2^10
        import math
        p2 = 2 ** round(math.log2(top))
        top = p2 if abs(top - p2) <= 0.01 * p2 else round(top)
    reach = f" up to {x} = {top:d}" if top is not None else ""
    sums = [s for s in sp.sympify(claim.expr).atoms(sp.Sum)
            if any(sp.sympify(b).has(x) for lim in s.limits for b in lim[1:])]
    if sums:
        return (f"limit of a sum over a symbolic group size {x}: no sound method here (sympy.limit cannot "
                f"take it); checked by a summation ladder{reach}")
    why = symbolic_evidence.get("limit") or symbolic_evidence.get("error") or symbolic_evidence.get("stopped") \
        or "not established"
    return f"limit: sympy.limit did not establish it ({_short(why, 100)}); checked numerically{reach}"
