"""Finite sums over a group size G enclosed in balls along a ladder G = 10, 100, ..., 10^6.

The ``ladder+asymptotics`` method of limit claims (``kinds/limit.py``) is built on this.
A limit of a sum whose number of terms grows with G (S_G = sum_{k=0}^{G-1} ... -> S_inf
as G -> oo) has no sound automatic method here; what *can* be done rigorously is to
enclose every finite S_G in a ball and look at how the enclosures approach the claimed
limit.  That is evidence, never a proof: the status it supports is *checked*.

- **Enclosures** (python-flint's arb balls, outward rounding everywhere).  An expression
  is compiled once into a tree of arb operations; the parameters enter as balls around
  their exact binary values.  A value that is not a finite real ball (sqrt of a ball that
  reaches below 0, a division by a ball holding 0) is *not enclosed*: that rung is not
  used, never guessed.
- **Binomial sums**, a summand binomial(n, k) a^k b^(n - k) g(k) as in every group-size sum
  of the paper: the weights are walked out from the mode with the exact ratio
  w_{k+1}/w_k = (n - k) a / ((k + 1) b) (the mode's weight from arb's binomial), and each
  tail is enclosed, not dropped: the ratio is monotone in k, so a tail's weights sum to at
  most w/(1 - r) (a geometric series), times a bound on |g| over the tail's indices (g on a
  ball holding them).  At G = 10^6 that is about 15 000 terms instead of a million.
- **Other sums** are summed term by term; a summand free of G continues the partial sum of
  the rung before.
- **Budget.**  Work is counted in terms, so the same rungs are reached on any machine
  (deterministic), with a CPU-time safety net (``time.process_time``); a rung that does not
  fit is not computed, and the evidence says how far the ladder went.

``judge`` reads a ladder: whether S_G - S_inf tends to 0 and G (S_G - S_inf) settles on a
declared 1/G coefficient, or the ladder has clearly settled elsewhere (a counterexample), or
neither can be said (inconclusive).  Its tolerances are explained where they are defined.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import sympy as sp
from flint import arb, ctx, fmpq

__all__ = ["LADDER", "PREC", "TERMS", "SECONDS", "NotSupported", "NotEnclosed", "OutOfBudget", "Program",
           "Rung", "Run", "run_ladder", "judge", "Verdict", "ball_str", "g_str", "rational_ball", "sum_over"]

LADDER = (10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6)
PREC = 128            # bits of the balls (about 38 digits)
TERMS = 250_000       # terms summed per parameter point, the whole ladder (binomial sums need ~25 000)
SECONDS = 6.0         # CPU seconds per parameter point: only a safety net, the term count decides
# a weight this much below the mode's ends the walk (its tail is then enclosed, not dropped)
_TAIL = 2 ** -(PREC + 16)

# ---- how a ladder is judged (see judge)
SETTLE = 0.5        # the last step of the ladder at most this fraction of the one before
MARGIN = 3          # a mismatch must exceed MARGIN x the last step of the ladder
VALUE_FLOOR = 1e-12  # and, relative to the size of the sums, this much (S_G - S_inf)
RATE_FLOOR = 1e-9    # or this much (G (S_G - S_inf)), relative to the coefficient's size
MIN_RUNGS = 3


class NotSupported(Exception):
    """The expression has something the ball compiler does not know (a Piecewise, a sum
    nested inside a summand): the ladder method does not apply to the claim."""


class NotEnclosed(ArithmeticError):
    """No finite real ball for a value (undefined there, or the enclosure too wide)."""


class OutOfBudget(Exception):
    pass


def rational_ball(v) -> arb:
    """A ball around a number: a sympy Rational or Integer, an int, or an mpf (its exact
    binary value)."""
    from .shrink import rational_of
    r = rational_of(v) if not isinstance(v, (int, sp.Rational)) else sp.Rational(v)
    if r is None:
        raise NotEnclosed(f"{v} is not a finite number")
    return arb(fmpq(int(r.p), int(r.q)))


def ball_str(x: arb, digits: int = 8) -> str:
    """A ball's midpoint to `digits` digits ("[+/- 1e-30]" for a ball around 0 that the
    digits cannot separate from 0)."""
    if not x.is_finite():
        return "not enclosed"
    return x.str(digits, radius=False) if x.rel_accuracy_bits() > 4 * digits else x.str(max(2, digits // 2))


# ------------------------------------------------------------------ the ball compiler
_CONST = {sp.pi: lambda: arb.pi(), sp.E: lambda: arb.const_e(), sp.EulerGamma: lambda: arb.const_euler(),
          sp.Catalan: lambda: arb.const_catalan()}
_UNARY = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.atan: "atan",
          sp.asin: "asin", sp.acos: "acos", sp.asinh: "asinh", sp.acosh: "acosh", sp.atanh: "atanh",
          sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh", sp.erf: "erf", sp.erfc: "erfc",
          sp.gamma: "gamma", sp.loggamma: "lgamma", sp.zeta: "zeta"}


def _int_of(x: arb):
    """The integer a ball is exactly, or None."""
    if x.is_exact() and x.is_integer():
        return int(x.unique_fmpz())
    return None


def _pow(b: arb, e: arb) -> arb:
    n = _int_of(e)
    if n is not None:
        return b ** n
    if e > 0 and b.is_zero():
        return arb(0)  # 0^(1/4) = 0 (arb's exp(e log b) would say nan)
    return b ** e  # a real power: nan unless b > 0 (then not enclosed)


def _binom(n: arb, k: arb) -> arb:
    ni, ki = _int_of(n), _int_of(k)
    if ni is None or ki is None or ni < 0:
        raise NotEnclosed("binomial(n, k) away from integers 0 <= k <= n")
    if ki < 0 or ki > ni:
        return arb(0)
    return arb.bin_uiui(ni, ki)


def _apply(node, vals):
    if node.is_Add:
        s = vals[0]
        for v in vals[1:]:
            s = s + v
        return s
    if node.is_Mul:
        s = vals[0]
        for v in vals[1:]:
            s = s * v
        return s
    if node.is_Pow:
        return _pow(vals[0], vals[1])
    f = node.func
    if f in _UNARY:
        return getattr(vals[0], _UNARY[f])()
    if f is sp.Abs:
        return abs(vals[0])
    if f is sp.binomial:
        return _binom(vals[0], vals[1])
    if f is sp.factorial:
        return (vals[0] + 1).gamma()
    if f is sp.Max:
        return _fold(vals, "max")
    if f is sp.Min:
        return _fold(vals, "min")
    raise NotSupported(f"{f.__name__} has no ball enclosure here")


def _fold(vals, how):
    out = vals[0]
    for v in vals[1:]:
        out = getattr(out, how)(v)
    return out


def _leaf(node):
    if node.is_Integer:
        return arb(int(node))
    if node.is_Rational:
        return arb(fmpq(int(node.p), int(node.q)))
    if node.is_Float:
        return rational_ball(sp.Rational(node))
    if node in _CONST:
        return _CONST[node]()
    raise NotSupported(f"{node} has no ball value")


def check_supported(expr, var) -> None:
    """Raise NotSupported unless every node of `expr` has a ball enclosure here, each Sum
    has one index and its summand no Sum of its own."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Sum):
            if len(node.limits) != 1 or len(node.limits[0]) != 3:
                raise NotSupported("a Sum over several indices")
            if node.function.has(sp.Sum):
                raise NotSupported("a Sum nested inside a summand")
            continue
        if node.is_Atom:
            if node.is_Symbol or node.is_Number and node.is_finite or node in _CONST:
                continue
            raise NotSupported(f"{node} has no ball value")
        if node.is_Add or node.is_Mul or node.is_Pow or isinstance(node, sp.Tuple):
            continue
        if node.func in _UNARY and len(node.args) == 1 or node.func in (sp.Abs, sp.binomial, sp.factorial,
                                                                         sp.Max, sp.Min):
            continue
        raise NotSupported(f"{node.func.__name__} has no ball enclosure here")


class _Scope:
    """The values of one evaluation: symbols -> balls, and exact values (integers for sum
    bounds and binomials), the term meter and partial sums to continue."""

    def __init__(self, balls: dict, exact: dict, meter, partial: dict, var=None):
        self.balls, self.exact, self.meter, self.partial, self.var = balls, exact, meter, partial, var


def _value(e, scope: _Scope) -> arb:
    """The ball of an expression free of any summation index."""
    if e.is_Atom:
        if e.is_Symbol:
            try:
                return scope.balls[e]
            except KeyError:
                raise NotSupported(f"no value for {e}") from None
        return _leaf(e)
    if isinstance(e, sp.Sum):
        return sum_over(e, scope)
    return _apply(e, [_value(a, scope) for a in e.args])


def _closure(e, k, scope: _Scope):
    """f(kb) -> the ball of e with the index k at the ball kb (constant parts folded)."""
    if k not in e.free_symbols:
        c = _value(e, scope)
        return lambda kb: c
    if e == k:
        return lambda kb: kb
    if isinstance(e, sp.Sum):
        raise NotSupported("a Sum nested inside a summand")
    if e.is_Add or e.is_Mul:
        parts = [_closure(a, k, scope) for a in e.args if k in a.free_symbols]
        rest = [_value(a, scope) for a in e.args if k not in a.free_symbols]
        const = _apply(e, rest) if rest else None
        add = e.is_Add
        if len(parts) == 1:
            p = parts[0]
            if const is None:
                return p
            return (lambda kb: p(kb) + const) if add else (lambda kb: p(kb) * const)

        def many(kb):
            vals = [p(kb) for p in parts]
            s = vals[0]
            for v in vals[1:]:
                s = s + v if add else s * v
            return s if const is None else (s + const if add else s * const)
        return many
    if e.is_Pow:
        base, ex = e.args
        bf = _closure(base, k, scope)
        if k not in ex.free_symbols:
            if ex == sp.S.Half:
                return lambda kb: bf(kb).sqrt()
            if ex == -sp.S.Half:
                return lambda kb: bf(kb).rsqrt()
            if ex.is_Integer:
                n = int(ex)
                return lambda kb: bf(kb) ** n
        ef = _closure(ex, k, scope)
        return lambda kb: _pow(bf(kb), ef(kb))
    fs = [_closure(a, k, scope) for a in e.args]
    return lambda kb: _apply(e, [f(kb) for f in fs])


# ------------------------------------------------------------------ sums
def _binomial_form(summand, k):
    """(n, q, const, g) with summand = binomial(n, k) q^k const g(k), or None: the factors
    whose base is free of k and whose exponent is j k + e (j a non-zero integer, e free of
    k) make up q^k const, q the product of base^j and const that of base^e (so
    binomial(G - 1, k) p^k (1 - p)^(G - 1 - k) has q = p/(1 - p), const = (1 - p)^(G - 1))."""
    e = sp.factor_terms(summand) if summand.is_Add else summand
    factors = list(sp.Mul.make_args(e))
    idx = [i for i, f in enumerate(factors)
           if isinstance(f, sp.binomial) and f.args[1] == k and k not in f.args[0].free_symbols]
    if len(idx) != 1:
        return None
    n = factors[idx[0]].args[0]
    q, const, rest = [], [], []
    for i, f in enumerate(factors):
        if i == idx[0]:
            continue
        if f.is_Pow and k not in f.base.free_symbols and k in f.exp.free_symbols:
            ex = sp.expand(f.exp)
            j = ex.coeff(k)
            off = sp.expand(ex - j * k)
            if j.is_Integer and j != 0 and k not in off.free_symbols:
                q.append(sp.Pow(f.base, j))
                const.append(sp.Pow(f.base, off))
                continue
        rest.append(f)
    return n, sp.Mul(*q), sp.Mul(*const), sp.Mul(*rest)


_FORMS: dict = {}


def _form(s: sp.Sum):
    got = _FORMS.get(s)
    if got is None:
        k = s.limits[0][0]
        got = _FORMS[s] = (_binomial_form(s.function, k),)
        if len(_FORMS) > 256:
            _FORMS.clear()
    return got[0]


def _exact_int(e, scope: _Scope) -> int:
    v = sp.sympify(e).xreplace(scope.exact)
    if not v.is_Integer:
        raise NotSupported(f"the sum bound {e} is not an integer here")
    return int(v)


def sum_over(s: sp.Sum, scope: _Scope) -> arb:
    """The ball of a finite Sum at the scope's values."""
    k, lo_e, hi_e = s.limits[0]
    lo, hi = _exact_int(lo_e, scope), _exact_int(hi_e, scope)
    if hi < lo:
        return arb(0)
    form = _form(s)
    if form is not None:
        n_e, q_e, c_e, g_e = form
        n = _exact_int(n_e, scope)
        q = _value(q_e, scope)
        if n >= 0 and abs(q) > 0 and q.is_finite():
            if max(lo, 0) > min(hi, n):
                return arb(0)  # binomial(n, k) = 0 for every k of the range
            return _value(c_e, scope) * _binomial_sum(n, q, _closure(g_e, k, scope), max(lo, 0), min(hi, n),
                                                      scope.meter)
    f = _closure(s.function, k, scope)
    key = None
    if scope.var is not None and scope.var not in s.function.free_symbols and not lo_e.free_symbols:
        key = (s, lo)  # a summand free of G: continue the partial sum of the rung before
    start, total = lo, arb(0)
    if key is not None and key in scope.partial and scope.partial[key][0] <= hi:
        done, total = scope.partial[key]
        start = done + 1
    meter = scope.meter
    for j in range(start, hi + 1):
        meter.tick()
        total = total + f(arb(j))
    if key is not None:
        scope.partial[key] = (hi, total)
    return total


def _sup_abs(g, lo: int, hi: int) -> arb:
    """An upper bound of |g(j)| over the integers lo <= j <= hi: g at both ends exactly and
    on a ball holding the ones between (its rounding stays well inside (lo, hi))."""
    vals = [g(arb(lo)), g(arb(hi))]
    if hi - lo >= 2:
        vals.append(g(arb(lo + 1).union(arb(hi - 1))))
    out = arb(0)
    for v in vals:
        if not v.is_finite():
            return v
        out = out.max(v.abs_upper())
    return out


def _tail(w: arb, r: arb, g, lo: int, hi: int):
    """A ball around 0 holding sum_{j in tail} w_j g(j), for a tail whose first weight is w
    and whose successive weight ratios are all at most r < 1; None when g has no bound."""
    bound = _sup_abs(g, lo, hi)
    if not bound.is_finite():
        return None
    rad = (w / (1 - r) * bound).abs_upper()
    return arb(0, rad) if rad.is_finite() else None


def _binomial_sum(n, q, g, lo, hi, meter) -> arb:
    """sum_{k=lo}^{hi} binomial(n, k) q^k g(k), 0 <= lo <= hi <= n, q != 0 (of either sign:
    the walk and the tails use |q|)."""
    aq = abs(q)
    qf = float(aq.mid())
    m = min(max(int((n + 1) * qf / (1 + qf)), lo), hi)
    wm = arb.bin_uiui(n, m) * q ** m
    if not (wm.is_finite() and abs(wm) > 0):
        raise NotEnclosed("the largest binomial weight")
    eps = abs(wm) * _TAIL
    total = wm * g(arb(m))
    meter.tick()
    # upwards: w_{k+1} = w_k q (n - k)/(k + 1); |ratio| = |q| (n - k)/(k + 1) decreases in k
    w, k, tails = wm, m, True
    while k < hi:
        w = w * q * (n - k) / (k + 1)
        k += 1
        if tails and abs(w) < eps:
            r = aq * (n - k) / (k + 1)  # bounds |ratio| from here on
            if r < 1:
                t = _tail(abs(w), r, g, k, hi)
                if t is not None:
                    total = total + t
                    break
                tails = False  # g has no bound on the tail: sum it term by term
        meter.tick()
        total = total + w * g(arb(k))
    # downwards: w_{k-1} = w_k k / ((n - k + 1) q); |ratio| increases in k
    w, k, tails = wm, m, True
    while k > lo:
        w = w * k / ((n - k + 1) * q)
        k -= 1
        if tails and abs(w) < eps:
            s = k / ((n - k + 1) * aq)  # bounds |ratio| from here down
            if s < 1:
                t = _tail(abs(w), s, g, lo, k)
                if t is not None:
                    total = total + t
                    break
                tails = False
        meter.tick()
        total = total + w * g(arb(k))
    return total


# ------------------------------------------------------------------ a ladder
class _Meter:
    def __init__(self, terms: int, deadline: float):
        self.used, self.limit, self.deadline = 0, terms, deadline

    def tick(self):
        self.used += 1
        if self.used > self.limit:
            raise OutOfBudget(f"the budget of {self.limit} terms")
        if not self.used & 4095 and time.process_time() > self.deadline:
            raise OutOfBudget("the CPU-time safety net")


@dataclass
class Rung:
    G: int
    S: arb       # the ball of S_G
    terms: int   # terms summed for it


@dataclass
class Run:
    rungs: list = field(default_factory=list)
    limit: arb | None = None   # S_inf at the point
    rate: arb | None = None    # the declared 1/G coefficient at the point
    stopped: str = ""          # why the ladder ended before its last rung
    failed_at: int | None = None  # the G at which a value was not enclosed


class Program:
    """A limit's expression, value and coefficient, ready for balls (NotSupported if not)."""

    def __init__(self, expr, var, value, rate=None):
        self.expr, self.var = sp.sympify(expr), var
        self.value = sp.sympify(value)
        self.rate = None if rate is None else sp.sympify(rate)
        for e in (self.expr, self.value) + (() if self.rate is None else (self.rate,)):
            check_supported(e, var)
        if self.value.has(sp.Sum) or self.value.has(var) or self.rate is not None and (
                self.rate.has(sp.Sum) or self.rate.has(var)):
            raise NotSupported("a limit value or coefficient with a sum or the limit variable")

    def run(self, point: dict, rungs=LADDER, terms: int | None = None, seconds: float | None = None) -> Run:
        """S_G at each rung for the parameter point (symbol -> number); the ladder ends at the
        first rung that does not fit the budget (TERMS, SECONDS by default) or cannot be
        enclosed."""
        terms = TERMS if terms is None else terms
        seconds = SECONDS if seconds is None else seconds
        with ctx.workprec(PREC):
            balls = {s: rational_ball(v) for s, v in point.items()}
            exact = {s: _exact(v) for s, v in point.items()}
            scope = _Scope(balls, exact, None, {}, self.var)
            out = Run(limit=_value(self.value, scope),
                      rate=None if self.rate is None else _value(self.rate, scope))
            meter = _Meter(terms, time.process_time() + seconds)
            for G in rungs:
                scope.balls = {**balls, self.var: arb(G)}
                scope.exact = {**exact, self.var: sp.Integer(G)}
                scope.meter = meter
                used = meter.used
                try:
                    S = _value(self.expr, scope)
                except OutOfBudget as exc:
                    out.stopped = f"stopped before {self.var} = {G}: {exc} per point was used"
                    break
                except (NotEnclosed, ZeroDivisionError, ValueError) as exc:
                    out.stopped, out.failed_at = f"not enclosed at {self.var} = {G} ({exc})", G
                    break
                if not S.is_finite():
                    out.stopped, out.failed_at = f"not enclosed at {self.var} = {G}", G
                    break
                if not _usable(S, out.limit):
                    out.stopped = (f"stopped at {self.var} = {g_str(G)}: its ball is too wide to use "
                                   f"(cancellation beyond {PREC} bits)")
                    break
                out.rungs.append(Rung(G, S, meter.used - used))
            return out


def _usable(S: arb, L: arb) -> bool:
    """A ball narrow enough to judge with: radius below 2^-32 of the values' size (or
    below 2^-100 outright, for sums that are themselves that small)."""
    rad = arb(S.rad())
    return bool(rad <= arb(2) ** -100) or bool(rad <= arb(2) ** -32 * abs(S).abs_lower().max(abs(L).abs_lower()))


def _exact(v):
    from .shrink import rational_of
    r = rational_of(v) if not isinstance(v, (int, sp.Rational)) else sp.Rational(v)
    return r


def run_ladder(expr, var, value, point, rate=None, **kw) -> Run:
    return Program(expr, var, value, rate).run(point, **kw)


# ------------------------------------------------------------------ judging a ladder
@dataclass
class Verdict:
    verdict: str            # consistent | counterexample | inconclusive
    kind: str = ""          # for a counterexample: "limit differs" | "rate differs"
    why: str = ""


def _gt(x: arb, y: arb) -> bool:
    return bool(x > y)


def g_str(G: int) -> str:
    """10, 100, 1000, 10^4, ...: a rung as the evidence shows it."""
    e = len(str(G)) - 1
    return f"10^{e}" if G == 10 ** e and e >= 4 else str(G)


def _grows(x1: arb, x2: arb, x3: arb, floor: arb) -> bool:
    """|x| at least doubles from rung to rung over the last three, beyond the floor: a
    sequence that moves away from the claim, not towards it."""
    a1, a2, a3 = abs(x1), abs(x2), abs(x3)
    return bool(a2.abs_lower() >= 2 * a1.abs_upper()) and bool(a3.abs_lower() >= 2 * a2.abs_upper()) \
        and bool(a3.abs_lower() > floor)


def _settled(s1: arb, s2: arb, s3: arb, x2: arb, x3: arb, floor: arb):
    """(settled, tolerance, last step, step before, clearly away from 0) of a quantity X
    whose last three rungs step as s1, s2, s3 (X itself, or X plus a constant) and whose last
    two values are x2, x3.  Settled: the last step at most SETTLE of the one before (or below
    the floor); clearly away: settled, and x2 and x3 beyond MARGIN x the last step (and the
    floor), with one sign."""
    u = (s3 - s2).abs_upper()
    u_prev = (s2 - s1).abs_lower()
    settled = bool(u <= SETTLE * u_prev) or bool(u <= floor)
    tol = (MARGIN * u).max(floor)
    away = settled and _gt(abs(x3).abs_lower(), tol) and _gt(abs(x2).abs_lower(), tol) and \
        ((x3 > 0 and x2 > 0) or (x3 < 0 and x2 < 0))
    return settled, tol, u, u_prev, away


def judge(run: Run, var="G") -> Verdict:
    """What a ladder shows, by these rules (E_G = S_G - S_inf, D_G = G E_G, the rungs 10x
    apart, the last three rungs G1 < G2 < G3 used):

    - *settled*: the last step |X(G3) - X(G2)| is at most SETTLE (1/2) of the one before.
      If X(G) = X_inf + d/G + O(1/G^2) (the Voronovskaya form) the ratio is 1/10; as slowly
      as G^(-1/2) it is 0.32; a sequence that creeps (1/log G: 0.6) is not settled.  When
      settled with ratio q <= 1/2, the distance from X(G3) to X_inf is at most about
      U q/(1 - q) <= U, U the last step.
    - a mismatch is *clear* when both X(G2) and X(G3) differ from the claim by more than
      MARGIN x U = 3U (and a floor far above the balls' radii, relative to the size of the
      sums), with the same sign: then X_inf itself differs from the claim by more than 2U.
    - **counterexample** ("limit differs"): E settled and clearly away from 0, or |E| at
      least doubling from rung to rung over the last three (moving away from the claim, as
      a divergent sum does).  With a declared coefficient c, **counterexample** ("rate
      differs"): E consistent with 0 and D settled clearly away from c, or |D - c| at least
      doubling per rung (S_G approaches S_inf more slowly than 1/G: no c describes it).
    - **consistent**: |E(G3)| within the tolerance of 0 and |E| decreasing; with c, also D
      settled and |D(G3) - c| within its tolerance.
    - anything else (fewer than three rungs, a ladder that has not settled) is
      **inconclusive**: never a counterexample.
    """
    rs = run.rungs
    if len(rs) < MIN_RUNGS:
        return Verdict("inconclusive", why=f"only {len(rs)} rung{'s' if len(rs) != 1 else ''} of the ladder "
                       f"({run.stopped or 'none computed'}): too few to judge a trend")
    with ctx.workprec(PREC):
        L = run.limit
        E = [r.S - L for r in rs]
        scale = abs(L).abs_upper()
        for r in rs:
            scale = scale.max(abs(r.S).abs_upper())
        floor_v = scale * arb(VALUE_FLOOR)
        e1, e2, e3 = E[-3:]
        settled, tol, u, u_prev, away = _settled(e1, e2, e3, e2, e3, floor_v)
        G2, G3 = g_str(rs[-2].G), g_str(rs[-1].G)
        if away:
            return Verdict("counterexample", "limit differs",
                           f"S_{var} - S_inf has settled away from 0: {ball_str(e2, 6)} at {var} = {G2}, "
                           f"{ball_str(e3, 6)} at {var} = {G3}, both beyond the tolerance {ball_str(tol, 3)} "
                           f"({MARGIN} x the last step {ball_str(u, 3)}, which is at most {SETTLE} of the step "
                           f"before)")
        if _grows(e1, e2, e3, floor_v):
            return Verdict("counterexample", "limit differs",
                           f"S_{var} - S_inf grows along the ladder, at least doubling per rung: "
                           f"{ball_str(e1, 6)}, {ball_str(e2, 6)}, {ball_str(e3, 6)} at {var} = "
                           f"{g_str(rs[-3].G)}, {G2}, {G3}")
        value_ok = bool(abs(e3).abs_upper() <= tol) and bool(abs(e3).abs_upper() <= abs(e1).abs_lower())
        if not value_ok and not bool(abs(e3).abs_upper() <= floor_v):
            return Verdict("inconclusive", why=f"S_{var} - S_inf = {ball_str(e3, 6)} at {var} = {G3} is neither "
                           f"within the tolerance of 0 nor settled away from it (last step {ball_str(u, 3)}, "
                           f"step before {ball_str(u_prev, 3)})")
        if run.rate is None:
            return Verdict("consistent", why=f"S_{var} - S_inf = {ball_str(e3, 6)} at {var} = {G3}, decreasing "
                           f"along the ladder (no 1/{var} coefficient declared)")
        c = run.rate
        D = [r.G * e for r, e in zip(rs, E)]
        d1, d2, d3 = D[-3:]
        M1, M2, M3 = d1 - c, d2 - c, d3 - c
        dscale = abs(c).abs_upper().max(abs(d3).abs_upper()).max(abs(d2).abs_upper())
        floor_c = dscale * arb(RATE_FLOOR)
        dsettled, tol_c, ud, ud_prev, daway = _settled(d1, d2, d3, M2, M3, floor_c)
        if daway:
            return Verdict("counterexample", "rate differs",
                           f"{var} (S_{var} - S_inf) has settled on {ball_str(d3, 8)}, not on the declared "
                           f"coefficient c = {ball_str(c, 8)}: it differs from c by {ball_str(M2, 4)} at "
                           f"{var} = {G2} and {ball_str(M3, 4)} at {var} = {G3}, both beyond the tolerance "
                           f"{ball_str(tol_c, 3)} ({MARGIN} x the last step {ball_str(ud, 3)}, which is at most "
                           f"{SETTLE} of the step before)")
        if _grows(M1, M2, M3, floor_c):
            return Verdict("counterexample", "rate differs",
                           f"{var} (S_{var} - S_inf) grows along the ladder, at least doubling per rung "
                           f"({ball_str(d1, 6)}, {ball_str(d2, 6)}, {ball_str(d3, 6)} at {var} = "
                           f"{g_str(rs[-3].G)}, {G2}, {G3}): S_{var} approaches S_inf more slowly than 1/{var}, "
                           f"so no coefficient c (declared: {ball_str(c, 8)}) describes it")
        if dsettled and bool(abs(M3).abs_upper() <= tol_c):
            return Verdict("consistent", why=f"{var} (S_{var} - S_inf) settles on the declared coefficient: "
                           f"|{var} (S_{var} - S_inf) - c| = {ball_str(abs(M3), 3)} at {var} = {G3}, within the "
                           f"tolerance {ball_str(tol_c, 3)}")
        return Verdict("inconclusive", why=f"{var} (S_{var} - S_inf) has not settled: {ball_str(d2, 8)} at "
                       f"{var} = {G2}, {ball_str(d3, 8)} at {var} = {G3} (declared c = {ball_str(c, 8)}; last "
                       f"step {ball_str(ud, 3)}, step before {ball_str(ud_prev, 3)})")
