"""SMT over the reals (z3, nonlinear real arithmetic): one of the *certified* methods.

A sign goal "e > 0 on the domain" is certified when z3 answers ``unsat`` for the
domain together with the negation "e <= 0".  The translation from sympy is exact:

- + - * and integer powers are z3 arithmetic;
- a division a/b is a fresh variable q with q*b = 1 (only where b != 0), and
  "b != 0 on the domain" becomes a *definedness obligation*;
- a square root (any rational power x**(m/n)) is a fresh r >= 0 with r**n = x (only
  where x >= 0), with the obligation "x >= 0 on the domain" (x > 0 for a negative power);
- Max, Min, Abs, sign and Piecewise become z3 ``If``.

Every obligation is proved the same way (``unsat`` of its negation) before the goal's
answer counts: a fresh variable whose defining equation is unsatisfiable would
otherwise make any negation vacuously ``unsat``.  The defining equations are guarded
(Implies), so an undefined sub-expression in an untaken branch never constrains anything.

log, exp and other transcendental functions are not expressible: the method then
declines (the interval method takes over).  ``sat`` yields a model, which the caller
re-checks with mpmath before it becomes a counterexample; ``unknown`` or a timeout is
undecided, never a pass.  z3's own division by zero is total and arbitrary, which is why
no z3 division is ever emitted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mpmath
import sympy as sp

from . import Backend
from .timebox import slice_deadline

try:  # optional at import time, so that the rest of the engine works without it
    import z3
except ImportError:  # pragma: no cover - z3-solver is a declared dependency
    z3 = None

__all__ = ["NotExpressible", "SmtAnswer", "Translator", "check_goal", "available"]


def available() -> bool:
    return z3 is not None


class NotExpressible(Exception):
    """The expression uses something z3's real arithmetic cannot state exactly."""


@dataclass
class SmtAnswer:
    verdict: str  # "unsat" (goal holds) | "sat" (model) | "unknown" | "declined"
    detail: str = ""
    model: dict | None = None  # sympy symbol -> mpf (for sat)
    exact: dict | None = None  # sympy symbol -> sympy Rational, where the model value is rational
    obligations: int = 0
    constraints: int = 0
    seconds: float = 0.0
    failed_obligation: str = ""


class Translator:
    """sympy -> z3, collecting auxiliary definitions and definedness obligations."""

    def __init__(self):
        self.vars: dict = {}       # sympy Symbol -> z3 Real
        self.aux: list = []        # guarded defining constraints of fresh variables
        self.obligations: list = []  # (z3 bool, text): must hold at every domain point
        self._cache: dict = {}
        self._n = 0

    def var(self, s):
        if s not in self.vars:
            self.vars[s] = z3.Real(s.name)
        return self.vars[s]

    def fresh(self, stem):
        self._n += 1
        return z3.Real(f"_{stem}{self._n}")

    # ---------------------------------------------------------------- expressions
    def expr(self, e):
        e = sp.sympify(e)
        if e in self._cache:
            return self._cache[e]
        out = self._expr(e)
        self._cache[e] = out
        return out

    def _expr(self, e):
        if e.is_Symbol:
            if e.is_integer:
                # integers are fine as reals only with a finite set of values (the domain
                # constrains them); z3 Int/Real mixing in NRA is not attempted
                return self.var(e)
            return self.var(e)
        if e.is_Integer or e.is_Rational:
            return z3.RealVal(f"{e.p}/{e.q}") if e.q != 1 else z3.RealVal(int(e.p))
        if e.is_Float:
            r = sp.Rational(e)
            return z3.RealVal(f"{r.p}/{r.q}")
        if e is sp.S.Half:
            return z3.RealVal("1/2")
        if isinstance(e, sp.Add):
            return z3.Sum([self.expr(a) for a in e.args])
        if isinstance(e, sp.Mul):
            out = None
            for a in e.args:
                t = self.expr(a)
                out = t if out is None else out * t
            return out
        if isinstance(e, sp.Pow):
            return self._pow(e.base, e.exp)
        if isinstance(e, (sp.Max, sp.Min)):
            args = [self.expr(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = z3.If(a > out, a, out) if isinstance(e, sp.Max) else z3.If(a < out, a, out)
            return out
        if isinstance(e, sp.Abs):
            a = self.expr(e.args[0])
            return z3.If(a >= 0, a, -a)
        if isinstance(e, sp.sign):
            a = self.expr(e.args[0])
            return z3.If(a > 0, z3.RealVal(1), z3.If(a < 0, z3.RealVal(-1), z3.RealVal(0)))
        if isinstance(e, sp.Piecewise):
            out = None
            for val, cond in reversed(e.args):
                v = self.expr(val)
                if out is None:
                    if cond is not sp.true:
                        # no otherwise-branch: undefined where no condition holds
                        self.obligations.append((self.cond(cond), f"some branch of {e} applies"))
                    out = v
                else:
                    out = z3.If(self.cond(cond), v, out)
            return out
        raise NotExpressible(f"{type(e).__name__} is not expressible in real arithmetic")

    def _pow(self, base, ex):
        b = self.expr(base)
        if ex.is_Integer:
            n = int(ex)
            if n == 0:
                return z3.RealVal(1)
            mag = b
            for _ in range(abs(n) - 1):
                mag = mag * b
            if n > 0:
                return mag
            return self._inverse(mag, base ** (-n))
        if ex.is_Rational:
            p, q = int(ex.p), int(ex.q)
            r = self.fresh("root")
            # the principal real q-th root of a non-negative number; sympy's x**(1/3) is
            # complex for x < 0, so every rational power needs base >= 0 (> 0 if p < 0)
            rq = r
            for _ in range(q - 1):
                rq = rq * r
            self.aux.append(z3.Implies(b >= 0, z3.And(r >= 0, rq == b)))
            self.obligations.append((b > 0 if p < 0 else b >= 0,
                                     f"{base} {'>' if p < 0 else '>='} 0"))
            mag = r
            for _ in range(abs(p) - 1):
                mag = mag * r
            return mag if p > 0 else self._inverse(mag, None)
        raise NotExpressible(f"power with exponent {ex}")

    def _inverse(self, d, text_of):
        q = self.fresh("inv")
        self.aux.append(z3.Implies(d != 0, q * d == 1))
        self.obligations.append((d != 0, f"{text_of if text_of is not None else d} != 0"))
        return q

    def cond(self, c):
        if c is sp.true:
            return z3.BoolVal(True)
        if c is sp.false:
            return z3.BoolVal(False)
        if isinstance(c, sp.And):
            return z3.And([self.cond(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or([self.cond(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.cond(c.args[0]))
        if isinstance(c, sp.core.relational.Relational):
            a, b = self.expr(c.lhs), self.expr(c.rhs)
            ops = {sp.StrictLessThan: lambda: a < b, sp.LessThan: lambda: a <= b,
                   sp.StrictGreaterThan: lambda: a > b, sp.GreaterThan: lambda: a >= b,
                   sp.Equality: lambda: a == b, sp.Unequality: lambda: a != b}
            for k, f in ops.items():
                if isinstance(c, k):
                    return f()
        raise NotExpressible(f"condition {c}")

    # ---------------------------------------------------------------- domains
    def domain(self, domain) -> list:
        out = []
        for s, st in domain.sets.items():
            v = self.var(s)
            if isinstance(st, sp.Interval):
                if st.start.is_finite:
                    lo = self.expr(st.start)
                    out.append(v > lo if st.left_open else v >= lo)
                if st.end.is_finite:
                    hi = self.expr(st.end)
                    out.append(v < hi if st.right_open else v <= hi)
            elif isinstance(st, sp.FiniteSet) or (isinstance(st, sp.Range) and st.size.is_finite
                                                  and st.size <= 64):
                out.append(z3.Or([v == self.expr(sp.sympify(m)) for m in st]))
            else:
                raise NotExpressible(f"the set {st} of {s}")
        for rel in domain.where:
            out.append(self.cond(rel))
        return out


def exact_of(val):
    """An exact z3 rational as a sympy Rational (None for algebraic numbers)."""
    if z3.is_rational_value(val):
        return sp.Rational(val.numerator_as_long(), val.denominator_as_long())
    return None


def _mpf_of(val, dps: int):
    """An exact z3 number (rational or algebraic) as an mpf at dps digits."""
    if z3.is_rational_value(val):
        return mpmath.mpf(val.numerator_as_long()) / val.denominator_as_long()
    if z3.is_algebraic_value(val):
        a = val.approx(dps + 5)
        return mpmath.mpf(a.numerator_as_long()) / a.denominator_as_long()
    raise ValueError(f"z3 value {val} is not a number")


_NEGATE = {"positive": lambda e: e <= 0, "nonnegative": lambda e: e < 0,
           "negative": lambda e: e >= 0, "nonpositive": lambda e: e > 0,
           "zero": lambda e: e != 0}


# z3 runs inside this process, in native code, where the CPU-time signals of timebox.py
# are not seen until it returns.  A watchdog thread reads the process's CPU time and
# interrupts z3 when the budget is spent: the limit counts CPU, not wall time, so a
# loaded machine gives z3 the same amount of work as a quiet one.  z3's own wall-clock
# timeout is only a far looser safety net.
_WATCH_STEP = 0.02


def new_solver(deadline: float):
    """A z3 solver whose check() should run under cpu_check (see the comment above)."""
    s = z3.Solver()
    s.set("timeout", max(1000, int(10 * max(deadline - time.process_time(), 0.1) * 1000)))
    return s


def cpu_check(solver, deadline: float):
    """solver.check(), interrupted once this process's CPU time reaches `deadline`."""
    import threading

    if time.process_time() >= deadline:
        return z3.unknown
    done = threading.Event()

    def watch():
        while not done.wait(_WATCH_STEP):
            if time.process_time() >= deadline:
                solver.ctx.interrupt()
                return

    t = threading.Thread(target=watch, name="z3-cpu-watchdog", daemon=True)
    t.start()
    try:
        return solver.check()
    finally:
        done.set()
        t.join()


def check_goal(expr, want: str, domain, timeout: float, dps: int = 50, extra=()) -> SmtAnswer:
    """Is `want` (positive, nonnegative, negative, nonpositive, zero) true of expr at
    every point of `domain`?  unsat of the negation (after every obligation) says yes."""
    t0 = time.process_time()
    # stretched inside a replay, never past the limits around this call (backends/timebox.py)
    deadline = slice_deadline(timeout)
    if z3 is None:
        return SmtAnswer("declined", "z3-solver is not installed")
    tr = Translator()
    try:
        dom = tr.domain(domain) + [tr.cond(c) for c in extra]
        goal = tr.expr(expr)
    except NotExpressible as exc:
        return SmtAnswer("declined", str(exc), seconds=round(time.process_time() - t0, 4))
    except (TypeError, ValueError, RecursionError) as exc:  # sympy shapes we do not translate
        return SmtAnswer("declined", f"{type(exc).__name__}: {exc}"[:200],
                         seconds=round(time.process_time() - t0, 4))

    def solve(neg):
        s = new_solver(deadline)
        s.add(*dom, *tr.aux, neg)
        return s, cpu_check(s, deadline)

    n_obl = 0
    for cond, text in tr.obligations:
        n_obl += 1
        if time.process_time() >= deadline:
            return SmtAnswer("unknown", "timeout while proving definedness obligations", obligations=n_obl,
                             seconds=round(time.process_time() - t0, 4))
        s, r = solve(z3.Not(cond))
        if r == z3.sat:
            return SmtAnswer("unknown", f"could not show {text} on the domain (z3 found a point)",
                             obligations=n_obl, failed_obligation=text,
                             seconds=round(time.process_time() - t0, 4))
        if r != z3.unsat:
            return SmtAnswer("unknown", f"z3 {r} on the obligation {text}: {s.reason_unknown()}",
                             obligations=n_obl, seconds=round(time.process_time() - t0, 4))
    s, r = solve(_NEGATE[want](goal))
    n = len(dom) + len(tr.aux) + 1
    secs = round(time.process_time() - t0, 4)
    if r == z3.unsat:
        return SmtAnswer("unsat", f"z3 unsat of the negation ({n} constraints, {n_obl} definedness "
                                  f"obligations)", obligations=n_obl, constraints=n, seconds=secs)
    if r == z3.sat:
        m = s.model()
        point, exact = {}, {}
        for sym, v in tr.vars.items():
            val = m.eval(v, model_completion=True)
            try:
                point[sym] = _mpf_of(val, dps)
            except ValueError:
                return SmtAnswer("unknown", f"z3 model value {val} is not a number", seconds=secs)
            exact[sym] = exact_of(val)
        return SmtAnswer("sat", "z3 sat: a model of the negation", model=point, exact=exact, obligations=n_obl,
                         constraints=n, seconds=secs)
    return SmtAnswer("unknown", f"z3 {r}: {s.reason_unknown()}", obligations=n_obl, constraints=n,
                     seconds=secs)


class SmtBackend(Backend):
    """z3 nonlinear real arithmetic: unsat of the negation certifies; a model is a candidate."""

    name = "smt"

    def declines(self, goal):
        if z3 is None:
            return "z3-solver is not installed"
        from .functions import smt_declines
        return smt_declines(goal.expr)

    def decide(self, goal, seconds, trace=None):
        from . import Decision
        ans = check_goal(goal.expr, goal.want, goal.domain, seconds, extra=goal.extra)
        if ans.verdict == "unsat":
            return Decision("holds", ans.detail)
        if ans.verdict == "sat":
            return Decision("violated", ans.detail, point=ans.model, exact=ans.exact)
        return Decision("unknown", ("declined: " if ans.verdict == "declined" else "z3 ") + ans.detail)


SMT = SmtBackend()
