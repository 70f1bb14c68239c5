"""The sympy backend: exact zero tests and sign analysis, the evidence behind *proved*
(and, for statements over a whole domain established by sign analysis, *certified*).

Soundness rests on two rules.  First, symbols are replaced by symbols carrying only
facts implied by their declared sets (sign, integrality): a proof under weaker
assumptions holds on the declared domain.  Second, only a definite answer counts:
a residual that simplifies to exactly 0, or a sign attribute that sympy's assumption
system reports as True.  ``expr.equals`` is never used (it samples numbers), and a
``None`` from sympy is "not established", never a pass.

Sign goals with logarithms use the tangent bounds 1 - 1/u <= log u <= u - 1 (u > 0):
c*log u is replaced by its lower bound for the proven sign of c, and the log-free bound
is shown exactly 0, positive, or by z3.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sympy as sp

from ..model.domain import Domain
from . import smt
from .functions import nonsmooth
from .timebox import TimeUp, time_limit

__all__ = ["ProofOutcome", "Facts", "NO_FACTS", "zero_by", "prove_sign", "split_logs", "assume", "weakest",
           "short", "is_linear", "with_ends", "decide_sign_goal", "PROVED", "CERTIFIED", "nonsmooth"]

PROVED, CERTIFIED = "proved", "certified"


@dataclass
class ProofOutcome:
    status: str | None  # "proved" | "certified" | None (not established symbolically)
    method: str = ""
    evidence: dict = field(default_factory=dict)
    step_statuses: list | None = None
    disagrees: str | None = None  # a symbolic result that contradicts the claim (e.g. a limit)


def short(e, n=160):
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
        # answers already worked out: the same factors are asked about again and again
        # (split_logs before and after expanding, every strategy of zero_by, every sign form)
        self._memo: dict = {}

    def key(self) -> tuple:
        """What these facts are (for naming a decision point that depends on them)."""
        return (tuple(self.positive), tuple(self.nonnegative))

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
        key = ("positive", e, depth)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._is_positive(e, depth)
        return got

    def _is_positive(self, e, depth) -> bool:
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
            atoms = list(sp.ordered(e.atoms(sp.exp))) or list(sp.ordered(e.atoms(sp.Pow)))
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
        key = ("nonnegative", e, depth)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._is_nonnegative(e, depth)
        return got

    def _is_nonnegative(self, e, depth) -> bool:
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
    for lg in sp.ordered(expr.atoms(sp.log)):
        arg = sp.together(lg.args[0])
        num, den = sp.fraction(arg)
        if _factors_positive(num, facts) and _factors_positive(den, facts):
            # deep=False: only this log is split; logs nested inside its factors were
            # not checked and must not be rewritten by force
            reps[lg] = sp.expand_log(sp.log(arg), deep=False, force=True)
    return expr.xreplace(reps) if reps else expr


_STRATEGY_NAMES = ("exact", "expand", "cancel", "together", "simplify", "radsimp+simplify")


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
# replaying a certificate runs only the strategy that succeeded before: it may use the
# claim's whole budget (a slow machine must not lose a proof it only has to re-check)
REPLAY_SECONDS = 30.0


def _timeboxed(thunk, seconds=None):
    """thunk() or None if it fails or exceeds its slice (then the next strategy runs)."""
    box = None
    try:
        with time_limit(STRATEGY_SECONDS if seconds is None else seconds) as box:
            return thunk()
    except TimeUp as exc:
        if exc.box is not box:
            raise  # the claim's whole budget ran out: stop the symbolic attempt
        return None
    except Exception:  # noqa: BLE001 - a sympy failure means 'not this way', never a verdict
        return None


def zero_by(expr, facts: Facts = NO_FACTS, trace=None, at: str = "zero"):
    """Return (strategy name, 0) if expr simplifies to exactly zero, else (None, residual).

    With a trace, the strategies tried are the trace's options at this decision point
    (all of them when searching, only the recorded one when replaying a certificate), and
    the winner is recorded."""
    expr = sp.sympify(expr)
    point = trace.point(at, expr, facts.key()) if trace is not None else None
    options = trace.options(point, _STRATEGY_NAMES) if trace is not None else list(_STRATEGY_NAMES)
    if not options:
        return None, expr
    memo_key = ("zero", expr, facts.key(), tuple(options))
    if memo_key in _SEARCHED:
        # the same search ran before in this process (the prover's first-order condition is
        # also a certification goal): its answer, and its winner recorded again
        label, name, residual = _SEARCHED[memo_key]
        if name is not None and trace is not None:
            trace.won(point, name)
        return label, residual
    label, name, residual = _zero_by(expr, facts, options, trace is not None and trace.replaying)
    if len(_SEARCHED) > 4096:
        _SEARCHED.clear()
    _SEARCHED[memo_key] = (label, name, residual)
    if name is not None and trace is not None:
        trace.won(point, name)
    return label, residual


# answers of zero_by / prove_sign already worked out in this process, by their inputs
_SEARCHED: dict = {}


def _zero_by(expr, facts, options, replay):
    """(label, winning strategy, residual): label is None when no strategy gets to 0."""
    # a replayed strategy is known to succeed: it gets the whole remaining budget, not a slice
    seconds = STRATEGY_SECONDS if not replay else REPLAY_SECONDS
    if expr.has(sp.Sum, sp.Product):
        # sympy's symbolic summation can run for ever on a sum over a symbolic group size
        # (telescoping attempts): evaluating it gets one strategy's slice, like a strategy
        done = _timeboxed(lambda: expr.doit(), seconds)
        if done is None:
            return None, None, expr
        expr = done
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
            expanded = _timeboxed(lambda: sp.expand(split), seconds)
            if expanded is not None:
                split = split_logs(expanded, facts)
        if split != expr:
            expr, prefix = split, "split logs+"
            big = big or sp.count_ops(expr) > _MAX_OPS
    if big and prefix:
        # only the cheap strategies on a large split form (expand may finish the job)
        if "expand" not in options:
            return None, None, expr
        r = sp.expand(expr)
        if r == 0:
            return "split logs+expand", "expand", sp.S.Zero
        return None, None, r
    if big:
        return None, None, expr  # too large to simplify within budget: leave it to the numbers
    for name, f in _strategies():
        if name not in options:
            continue
        label = prefix + name
        t0 = time.process_time()
        r = _timeboxed(lambda: f(expr), seconds)
        if r is None:
            if time.process_time() - t0 >= seconds:
                break  # timed out: the strategies after this one are heavier still
            continue
        if r == 0:
            return label, name, sp.S.Zero
        if r.is_zero is True and not r.has(sp.Piecewise):
            return label + "+assumptions", name, sp.S.Zero
        residual = r
    return None, None, residual


_WANT = {"positive", "negative", "nonnegative", "nonpositive", "nonzero"}


_SIGN_FORMS = ("as is", "together", "factor", "factor(together)", "cancel", "simplify")


def _sign_form(name):
    return {"as is": lambda e: e, "together": sp.together, "factor": sp.factor,
            "factor(together)": lambda e: sp.factor(sp.together(e)), "cancel": sp.cancel,
            "simplify": sp.simplify}[name]


def prove_sign(expr, want: str, facts: Facts = NO_FACTS, trace=None, at: str = "sign"):
    """True if expr's sign follows from the assumptions (and the `where` slacks).  With a
    trace, the forms tried are its options at this decision point (see zero_by)."""
    assert want in _WANT
    expr = sp.sympify(expr)
    forms = list(_SIGN_FORMS[:-1])
    if sp.count_ops(expr) < 80:  # simplify is the slow last resort: only on small expressions
        forms.append("simplify")
    point = None
    if trace is not None:
        point = trace.point(f"{at}:{want}", expr, facts.key())
        forms = trace.options(point, forms)
    memo_key = ("sign", want, expr, facts.key(), tuple(forms))
    if memo_key in _SEARCHED:
        name = _SEARCHED[memo_key]
        if name is not None and trace is not None:
            trace.won(point, name)
        return name is not None
    name = _prove_sign(expr, want, facts, forms, trace is not None and trace.replaying)
    if len(_SEARCHED) > 4096:
        _SEARCHED.clear()
    _SEARCHED[memo_key] = name
    if name is not None and trace is not None:
        trace.won(point, name)
    return name is not None


def _prove_sign(expr, want, facts, forms, replay):
    """The name of the first form whose sign sympy decides, or None."""
    seconds = SIGN_FORM_SECONDS if not replay else REPLAY_SECONDS

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

    for name in forms:
        f = _sign_form(name)
        t0 = time.process_time()
        ok = _timeboxed(lambda: decide(f(expr)), seconds)
        if ok:
            return name
        if ok is None and time.process_time() - t0 >= seconds:
            break  # timed out: the remaining forms are heavier
    return None


def assume(claim, extra: Domain | None = None):
    """Symbols with assumptions, and the facts implied by the `where` relations."""
    rep = claim.domain.assumption_symbols()
    relations = list(claim.domain.where)
    if extra is not None:
        rep.update(extra.assumption_symbols())
        relations += list(extra.where)
    return rep, Facts.from_relations(relations, rep)


def weakest(statuses):
    if any(s is None for s in statuses):
        return None
    if any(s == CERTIFIED for s in statuses):
        return CERTIFIED
    return PROVED


def is_linear(e, syms) -> bool:
    try:
        return sp.Poly(sp.expand(e), *syms).total_degree() <= 1
    except sp.PolynomialError:
        return False


# ------------------------------------------------------------------ methods
def with_ends(domain) -> list:
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


_ZERO_ROUTES = ("zero", "zero, roots as symbols")
_SIGN_ROUTES = ("sign", "sign with the ends", "exp and roots as symbols", "affine ends", "log bounds")


def decide_sign_goal(goal, seconds: float, trace=None):
    """(detail) if the goal holds by sympy, else None; never a refutation.  The routes are
    tried cheapest first; with a trace, only its options at this goal (one when replaying)."""
    rep = goal.domain.assumption_symbols()
    facts = Facts.from_relations(goal.domain.where, rep)
    ends = with_ends(goal.domain)
    # the interval ends as extra slacks: a second try only (more slacks make the log
    # relaxation's positivity checks slower, and it does not need them)
    facts_ends = Facts.from_relations(ends, rep) if len(ends) > len(goal.domain.where) else None
    e = sp.sympify(goal.expr).xreplace(rep)
    routes = _ZERO_ROUTES if goal.want == "zero" else _SIGN_ROUTES
    point = None
    if trace is not None:
        point = trace.point(f"symbolic:{goal.want}", goal.expr, goal.domain.sets, goal.domain.where)
        routes = trace.options(point, routes)
    box = None
    try:
        with time_limit(seconds) as box:
            for route in routes:
                detail = _route(route, goal, e, rep, facts, facts_ends, seconds, trace)
                if detail:
                    if trace is not None:
                        trace.won(point, route)
                    return detail
    except TimeUp as exc:
        if exc.box is not box:
            raise
    except Exception:  # noqa: BLE001 - a sympy failure is 'not this way'
        return None
    return None


def _route(route, goal, e, rep, facts, facts_ends, seconds, trace):
    if route == "zero":
        how = zero_by(e, facts, trace, at="goal zero")[0]
        return f"sympy ({how})" if how else None
    if route == "zero, roots as symbols":
        # an identity for every positive value of sqrt(p (1 - p)) holds for its actual
        # value; as a positive symbol, log(exp(c/beta)) = c/beta is sympy's to see
        ab = _abstract_positive(e, facts_ends or facts, exps=False)
        if ab != e:
            how = zero_by(ab, facts, trace, at="goal zero, abstracted")[0]
            if how:
                return f"sympy ({how}; roots of positive bases as positive symbols)"
        return None
    if route == "sign":
        if not e.has(sp.log) and prove_sign(e, goal.want, facts, trace, at="goal sign"):
            return "sympy sign analysis"
        return None
    if route == "sign with the ends":
        if facts_ends is not None and not e.has(sp.log) and prove_sign(e, goal.want, facts_ends, trace,
                                                                        at="goal sign, ends"):
            return "sympy sign analysis (with the intervals' ends)"
        return None
    if route == "exp and roots as symbols":
        if e.has(sp.exp, sp.Pow):
            ff = facts_ends or facts
            ab = _abstract_positive(e, ff)
            if ab != e and not ab.has(sp.log) and prove_sign(ab, goal.want, ff, trace, at="goal sign, abstracted"):
                return ("sympy sign analysis, exp(real) and roots of positive bases "
                        "replaced by positive symbols")
        return None
    if route == "affine ends":
        return _affine_ends(sp.sympify(goal.expr), goal.want, goal.domain)
    if route == "log bounds":
        if e.has(sp.log) and goal.want in ("positive", "nonnegative"):
            relaxed = _relax_logs(e, facts)
            if relaxed is not None:
                if goal.want == "nonnegative" and zero_by(relaxed, facts, trace, at="log bound zero")[0]:
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound is identically 0"
                if prove_sign(relaxed, goal.want, facts, trace, at="log bound sign"):
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound's sign by sympy"
                inv = {v: k for k, v in rep.items()}
                ans = smt.check_goal(relaxed.xreplace(inv), goal.want, goal.domain, max(0.5, seconds / 2))
                if ans.verdict == "unsat":
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound by z3 (unsat)"
        return None
    raise ValueError(f"unknown symbolic route {route!r}")


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
        facts = Facts.from_relations(with_ends(sub), rep)
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
    logs = list(sp.ordered(e.atoms(sp.log)))
    if not logs:
        return None
    out = e
    for lg in logs:
        if not facts.is_positive(lg.args[0]):
            if not prove_sign(lg.args[0], "positive", facts):
                return None
    dummies = {lg: sp.Dummy() for lg in logs}
    poly_e = e.xreplace(dummies)
    for lg, d in dummies.items():
        c = poly_e.coeff(d)
        if c.has(*dummies.values()) or sp.expand(poly_e - c * d).has(d):
            return None  # not linear in the logs
        u = lg.args[0]
        if c.is_nonnegative or prove_sign(c, "nonnegative", facts):
            bound = c * (1 - 1 / u)
        elif c.is_nonpositive or prove_sign(c, "nonpositive", facts):
            bound = c * (u - 1)
        else:
            return None
        poly_e = sp.expand(poly_e - c * d, log=False) + bound
    out = poly_e
    return None if out.has(sp.log) else out


class SymbolicBackend:
    """sympy sign analysis (never a refutation: a failed proof is only "unknown")."""

    name = "symbolic"

    def declines(self, goal):
        return None

    def decide(self, goal, seconds, trace=None):
        from . import Decision
        detail = decide_sign_goal(goal, seconds, trace)
        if detail:
            return Decision("holds", detail)
        return Decision("unknown", "not established")


SYMBOLIC = SymbolicBackend()
