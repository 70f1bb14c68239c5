"""Numeric spot-checks with mpmath: the evidence behind *checked* and every *refuted*.

Each kind is evaluated at seeded random points of its domain (a quarter pressed
against boundaries) at ``precision`` significant digits.  A suspected violation is
re-evaluated at ``2 * precision + 10`` digits and only a violation that survives is
reported, so rounding near a boundary never becomes a counterexample.  A point where
an expression is undefined (division by zero, complex value, infinity) is reported
as such: the declared domain failed to keep the claim well defined there.

All functions take the precision explicitly and use ``mpmath.workdps``; nothing here
changes mpmath's global context.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from .claims import Chain, Identity, Inequality, Limit, Maximiser, Monotonic, Root, Stationary
from .domain import Domain, _holds

__all__ = ["NumericOutcome", "spot_check", "Undefined"]


class Undefined(ArithmeticError):
    """An expression has no real value at a point of the declared domain."""


@dataclass
class NumericOutcome:
    verdict: str  # "consistent" | "counterexample" | "inconclusive"
    evidence: dict = field(default_factory=dict)
    counterexample: dict | None = None
    step: int | None = None  # for chains: index (1-based) of the first failing step
    step_verdicts: list | None = None


# --------------------------------------------------------------------------- evaluation
def _mp_heaviside(x, h0=None):
    if x > 0:
        return mpmath.mpf(1)
    if x < 0:
        return mpmath.mpf(0)
    return mpmath.mpf("0.5") if h0 is None else h0


def _mp_range(a, b=None):
    """range() for lambdified Sums: accepts mpf bounds and yields mpf indices, so a
    body such as k/(G - k) is computed in mpmath, not as a 53-bit Python float."""
    lo, hi = (0, a) if b is None else (a, b)
    return (mpmath.mpf(i) for i in range(int(lo), int(hi)))


_MODULES = [{"Heaviside": _mp_heaviside, "sign": mpmath.sign, "Abs": mpmath.fabs}, "mpmath"]


def _outer_infinite_sums(expr) -> list:
    out = []

    def walk(e):
        if isinstance(e, sp.Sum) and any(b.is_infinite for lim in e.limits for b in lim[1:]):
            out.append(e)
            return  # sums inside are compiled with this one's body
        for a in e.args:
            walk(a)

    walk(expr)
    return list(dict.fromkeys(out))


def _compile_with_nsum(expr, symbols, sums):
    """Infinite series by mpmath.nsum (extrapolated: a spot-check, never a proof)."""
    holders = [sp.Dummy(f"series{i}") for i in range(len(sums))]
    parts = []
    for s in sums:
        if len(s.limits) != 1:
            raise NotImplementedError("an infinite sum over several indices")
        k, a, b = s.limits[0]
        parts.append((compile_expr(s.function, (k, *symbols)), compile_expr(a, symbols),
                      compile_expr(b, symbols)))
    outer = compile_expr(expr.xreplace(dict(zip(sums, holders))), (*symbols, *holders))

    def fn(*args):
        vals = [mpmath.nsum(lambda kk, body=body: body(kk, *args), [lo(*args), hi(*args)])
                for body, lo, hi in parts]
        return outer(*args, *vals)

    return fn


def compile_expr(expr, symbols):
    """lambdify for mpmath; Sum with concrete bounds is evaluated by direct summation."""
    # cse: the paper's expressions repeat normalisers (Z) and square roots many times;
    # not with a Sum, whose bound variable cse would hoist out of the generator
    expr = sp.sympify(expr)
    sums = _outer_infinite_sums(expr) if expr.has(sp.Sum) else []
    if sums:
        return _compile_with_nsum(expr, tuple(symbols), sums)
    fn = sp.lambdify(symbols, expr, modules=_MODULES, cse=not expr.has(sp.Sum))
    # lambdify drops module entries that are not sympy function names; its namespace
    # is private to this function, so installing the mpmath-safe range here is local
    fn.__globals__["range"] = _mp_range
    return fn


def _real(value, what: str):
    if isinstance(value, bool):
        return mpmath.mpf(int(value))
    if isinstance(value, (int, float)):
        value = mpmath.mpf(value)
    if isinstance(value, mpmath.mpc):
        if abs(value.imag) > mpmath.mpf(10) ** (-(2 * mpmath.mp.dps) // 3) * max(1, abs(value.real)):
            raise Undefined(f"{what} is complex ({mpmath.nstr(value, 8)})")
        value = value.real
    if not isinstance(value, mpmath.mpf):
        try:
            value = mpmath.mpf(value)
        except (TypeError, ValueError) as exc:
            raise Undefined(f"{what} did not evaluate to a number ({value!r})") from exc
    if mpmath.isnan(value):
        raise Undefined(f"{what} is not a number (nan)")
    if mpmath.isinf(value):
        raise Undefined(f"{what} is infinite")
    return value


def evaluate(fn, args, what: str):
    try:
        return _real(fn(*args), what)
    except ZeroDivisionError as exc:
        raise Undefined(f"{what}: division by zero") from exc
    except (ValueError, OverflowError) as exc:
        raise Undefined(f"{what}: {exc}") from exc


def fmt(x, digits: int = 12) -> str:
    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return mpmath.nstr(x, digits)
    return str(x)


def _point_repr(syms, pt):
    return {str(s): fmt(pt[s]) for s in syms}


def _tol(dps: int):
    """Relative tolerance at dps digits: two thirds of the digits must agree."""
    return mpmath.mpf(10) ** (-(2 * dps) // 3)


class _Evaluator:
    """Compiles expressions over a fixed symbol tuple; evaluates at two precisions."""

    def __init__(self, symbols, exprs: dict, precision: int):
        self.symbols = tuple(symbols)
        self.precision = precision
        self.high = 2 * precision + 10
        self.exprs = {k: sp.sympify(e) for k, e in exprs.items()}
        self.fns = {k: compile_expr(e, self.symbols) for k, e in exprs.items()}

    def at(self, name, pt, dps):
        """Value at a point; undefinedness is only believed if it survives more digits
        (a difference like (-1e20 + 1e-15) - (-1e20) is 0 at 30 digits, not at 70)."""
        try:
            return self._at(name, pt, dps)
        except Undefined:
            if dps >= 2 * self.high:
                raise
        return self._at(name, pt, max(2 * self.high, 2 * dps))

    def _at(self, name, pt, dps):
        with mpmath.workdps(dps):
            args = [self._arg(s, pt[s]) for s in self.symbols]
            return evaluate(self.fns[name], args, name)

    @staticmethod
    def _arg(sym, v):
        return mpmath.mpf(v) if not isinstance(v, mpmath.mpf) else +v


def _sample(domain: Domain, settings, rng, n=None, edges=True):
    return domain.sample(n or settings.samples, rng, settings.precision + 20, edges=edges)


def _undefined_cx(syms, pt, exc):
    return {"type": "undefined", "point": _point_repr(syms, pt), "cause": str(exc),
            "explanation": "the claim is not defined at this point of its declared domain"}


# --------------------------------------------------------------------------- per kind
def _check_equal(ev: _Evaluator, a: str, b: str, pts, mult=None):
    """Check ev[a] == ev[b] (or ev[a] == ev[mult] * ev[b]) at every point."""
    syms = ev.symbols
    max_dev = mpmath.mpf(0)
    unresolved = 0
    for pt in pts:
        try:
            dev, va, vb, scale = _deviation(ev, a, b, pt, ev.precision, mult)
            if dev > _noise(ev.precision) * scale:
                # more than rounding at this precision: decide with more digits.  A real
                # difference is stable across precisions; cancellation error shrinks.
                dev, va, vb, scale = _deviation(ev, a, b, pt, ev.high, mult)
                if dev > _tol(ev.high) * scale:
                    dev2, _, _, scale2 = _deviation(ev, a, b, pt, 2 * ev.high, mult)
                    if dev2 > _tol(2 * ev.high) * scale2 and abs(dev2 - dev) <= dev2 / 100:
                        cx = {"type": "values differ", "point": _point_repr(syms, pt),
                              a: fmt(va), b if mult is None else f"{mult}*{b}": fmt(vb),
                              "difference": fmt(va - vb)}
                        return NumericOutcome("counterexample", {"points": len(pts)}, cx)
                    unresolved += 1
                    continue
            max_dev = max(max_dev, dev / scale)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(syms, pt, exc))
    evidence = {"points": len(pts), "digits": ev.precision, "max_relative_deviation": fmt(max_dev, 3),
                "unresolved_points": unresolved}
    if unresolved == len(pts):
        return NumericOutcome("inconclusive", evidence)
    return NumericOutcome("consistent", evidence)


def _noise(dps: int):
    """What rounding alone can plausibly produce at dps digits (with some cancellation)."""
    return mpmath.mpf(10) ** (-dps + 5)


def _deviation(ev, a, b, pt, dps, mult=None):
    va = ev.at(a, pt, dps)
    vb = ev.at(b, pt, dps)
    with mpmath.workdps(dps):  # every arithmetic step at the working precision
        if mult is not None:
            vb = ev.at(mult, pt, dps) * vb
        scale = max(mpmath.mpf(1), abs(va), abs(vb))
        return abs(va - vb), va, vb, scale


def check_identity(claim: Identity, settings, rng):
    syms = claim.domain.symbols()
    ev = _Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision)
    return _check_equal(ev, "lhs", "rhs", _sample(claim.domain, settings, rng))


def check_chain(claim: Chain, settings, rng):
    syms = claim.domain.symbols()
    pts = _sample(claim.domain, settings, rng)
    verdicts = []
    for i in range(1, len(claim.steps)):
        prev, cur = claim.steps[i - 1], claim.steps[i]
        if cur.relation == "equals":
            exprs = {"previous": prev.expr, "step": cur.expr}
            if isinstance(cur.expr, sp.Equality):  # equation = equation: both sides equal
                exprs = {"previous": prev.expr.lhs - prev.expr.rhs, "step": cur.expr.lhs - cur.expr.rhs}
            out = _check_equal(_Evaluator(syms, exprs, settings.precision), "step", "previous", pts)
        else:
            mult = cur.multiply_by if cur.multiply_by is not None else sp.cancel(
                _residual(cur.expr) / _residual(prev.expr))
            ev = _Evaluator(syms, {"previous": _residual(prev.expr), "step": _residual(cur.expr),
                                   "multiplier": mult}, settings.precision)
            out = _check_equal(ev, "step", "previous", pts, mult="multiplier")
            if out.verdict == "consistent" and cur.relation == "equivalent":
                out = _check_nonzero(ev, "multiplier", pts) or out
            # what the relation means: where the previous equation holds, this one holds
            # (and conversely for "equivalent"); tested on solutions found numerically
            if out.verdict == "consistent":
                out = _check_on_solutions(ev, claim.domain, "previous", "step", pts, rng) or out
            if out.verdict == "consistent" and cur.relation == "equivalent":
                out = _check_on_solutions(ev, claim.domain, "step", "previous", pts, rng) or out
        verdicts.append(out.verdict)
        if out.verdict == "counterexample":
            out.step = i + 1
            out.counterexample["failing step"] = i + 1
            out.step_verdicts = verdicts
            return out
    return NumericOutcome("consistent", {"points": len(pts), "digits": settings.precision,
                                         "steps": len(claim.steps)}, step_verdicts=verdicts)


def _check_on_solutions(ev, domain: Domain, given: str, then: str, pts, rng, tries: int = 20):
    """At points where equation `given` holds (found by root-finding in one symbol),
    equation `then` must hold too.  Returns a counterexample outcome or None."""
    syms = ev.symbols
    movable = [s_ for s_ in syms if isinstance(domain.sets.get(s_), sp.Interval)
               and ev.exprs[given].has(s_)]
    if not movable:
        return None
    dps = ev.precision + 10
    for pt in pts[:tries]:
        s_ = rng.choice(movable)

        def g(t):
            q = dict(pt)
            q[s_] = t
            return ev.at(given, q, dps)
        try:
            with mpmath.workdps(dps):
                root = mpmath.findroot(g, pt[s_], tol=mpmath.mpf(10) ** (-(dps - 5)))
            root = _real(root, "root")
        except (Undefined, ValueError, ZeroDivisionError, TypeError):
            continue  # no solution found from here
        q = dict(pt)
        q[s_] = root
        if not _in_interval(root, domain.sets[s_]) or not domain.contains(q, ev.precision):
            continue
        try:
            gv = ev.at(given, q, ev.high)
            tv = ev.at(then, q, ev.high)
        except Undefined:
            continue
        # given holds to 2p/3 digits while `then` is clearly non-zero (above 10^(-p/3))
        if abs(gv) < _tol(ev.precision) and abs(tv) > mpmath.mpf(10) ** (-ev.precision // 3):
            return NumericOutcome("counterexample", {}, {
                "type": "does not follow", "point": _point_repr(syms, q),
                f"{given} residual": fmt(gv, 6), f"{then} residual": fmt(tv),
                "explanation": f"the {given} equation holds here but the {then} one does not"})
    return None


def _residual(e):
    return e.lhs - e.rhs if isinstance(e, sp.Equality) else e


def _check_nonzero(ev, name, pts):
    for pt in pts:
        try:
            v = ev.at(name, pt, ev.high)
        except Undefined as exc:
            return NumericOutcome("counterexample", {}, _undefined_cx(ev.symbols, pt, exc))
        if abs(v) <= _tol(ev.high):
            return NumericOutcome("counterexample", {"points": len(pts)}, {
                "type": "multiplier vanishes", "point": _point_repr(ev.symbols, pt),
                "multiplier": fmt(v),
                "explanation": "an 'equivalent' step multiplied the equation by zero here"})
    return None


_STRICT = {"<": True, "<=": False, ">": True, ">=": False}


def _exactly_zero(expr, syms, pt) -> bool:
    """Is expr exactly 0 at the (binary-rational) point?  Separates a true equality
    (x**2 at x = 0) from absorption (1 + exp(-1560) rounds to 1 at any sane precision)."""
    subs = {s_: _exact(pt[s_]) for s_ in syms}
    try:
        val = sp.sympify(expr).xreplace(subs)
        val = sp.simplify(val) if val.free_symbols == set() and not val.is_Number else val
        return val == 0
    except Exception:  # noqa: BLE001 - cannot decide exactly: not a confirmed equality
        return False


def _decide_order(op, diff_at, exact_zero):
    """Does lhs op rhs fail at a point?  True, False, or None (unresolved).

    diff_at(dps) -> (lhs - rhs, scale).  A violation must be clear at 2p+10 digits and
    stable at twice that; a strict claim fails on equality only if the equality is exact.
    """
    flip = op in (">", ">=")
    strict = _STRICT[op]

    def d_at(dps):
        d, scale = diff_at(dps)
        return (-d if flip else d), scale

    d, scale = d_at(diff_at.precision)
    if d < 0 and (not strict or d < -_noise(diff_at.precision) * scale):
        return False  # clearly satisfied (the claim is d < 0, or d <= 0)
    dh, sh = d_at(diff_at.high)
    if dh < -_tol(diff_at.high) * sh:
        return False
    if dh > _tol(diff_at.high) * sh:
        d2, s2 = d_at(2 * diff_at.high)
        if d2 > _tol(2 * diff_at.high) * s2 and abs(d2 - dh) <= d2 / 100:
            return True
        return None  # not stable across precisions: rounding, not a violation
    if dh <= 0 and not strict:
        return False
    if strict and exact_zero():
        return True
    return None


class _Diff:
    """ev[a] at point pa minus ev[b] at point pb, at any precision: lhs - rhs of an
    inequality (same point) or f(first) - f(second) of a monotonicity pair."""

    def __init__(self, ev, a, pa, b, pb):
        self.ev, self.a, self.pa, self.b, self.pb = ev, a, pa, b, pb
        self.precision, self.high = ev.precision, ev.high
        self.values = None  # (first, second) at the working precision

    def __call__(self, dps):
        va, vb = self.ev.at(self.a, self.pa, dps), self.ev.at(self.b, self.pb, dps)
        if self.values is None:
            self.values = (va, vb)
        with mpmath.workdps(dps):
            return va - vb, max(mpmath.mpf(1), abs(va), abs(vb))


def check_inequality(claim: Inequality, settings, rng):
    syms = claim.domain.symbols()
    ev = _Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision)
    pts = _sample(claim.domain, settings, rng)
    return _check_order(ev, claim.op, pts, syms)


def _check_order(ev, op, pts, syms, lhs="lhs", rhs="rhs"):
    tight, min_margin = 0, None
    for pt in pts:
        try:
            diff = _Diff(ev, lhs, pt, rhs, pt)
            verdict = _decide_order(op, diff, lambda: _exactly_zero(
                ev.exprs[lhs] - ev.exprs[rhs], syms, pt))
            va, vb = diff.values
            if verdict is True:
                with mpmath.workdps(ev.high):
                    d = ev.at(lhs, pt, ev.high) - ev.at(rhs, pt, ev.high)
                return NumericOutcome("counterexample", {"points": len(pts)}, {
                    "type": "inequality violated", "point": _point_repr(syms, pt),
                    lhs: fmt(va), rhs: fmt(vb), f"{lhs} - {rhs}": fmt(d, 6)})
            if verdict is None:
                tight += 1
            else:
                with mpmath.workdps(ev.precision):
                    m = abs(va - vb) / max(mpmath.mpf(1), abs(va), abs(vb))
                min_margin = m if min_margin is None else min(min_margin, m)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(syms, pt, exc))
    ev_ = {"points": len(pts), "digits": ev.precision, "tight_points": tight,
           "min_relative_margin": fmt(min_margin, 3) if min_margin is not None else None}
    if tight == len(pts):
        return NumericOutcome("inconclusive", ev_)
    return NumericOutcome("consistent", ev_)


def check_monotonic(claim: Monotonic, settings, rng):
    syms = claim.domain.symbols()
    x = claim.var
    ev = _Evaluator(syms, {"f": claim.expr}, settings.precision)
    st = claim.domain.sets[x]
    pts = _sample(claim.domain, settings, rng)
    sub = Domain({x: st})
    op = ("<" if claim.strict else "<=") if claim.direction == "increasing" else (
        ">" if claim.strict else ">=")
    tight, pairs = 0, 0
    breaks = _breakpoints(claim.expr, x)
    for pt in pts:
        # a second value of x in its interval: random, very close to the first, or a
        # pair straddling a breakpoint of a Piecewise/sign/Abs (where jumps hide)
        other = sub.sample(1, rng, settings.precision + 20)[0][x]
        if rng.random() < 0.3:
            with mpmath.workdps(settings.precision + 20):
                other = pt[x] + (mpmath.mpf(10) ** -rng.choice([4, 8])) * rng.choice([-1, 1])
            if not _in_interval(other, st):
                other = sub.sample(1, rng, settings.precision + 20)[0][x]
        if breaks and rng.random() < 0.5:
            b = _breakpoint_at(rng.choice(breaks), syms, pt, settings.precision + 20)
            if b is not None:
                h = mpmath.mpf(10) ** -rng.choice([3, 6, 9])
                lo_b, hi_b = (b - h, b) if rng.random() < 0.5 else (b, b + h)
                if _in_interval(lo_b, st) and _in_interval(hi_b, st):
                    pt = dict(pt)
                    pt[x], other = lo_b, hi_b
        if other == pt[x]:
            continue
        p1, p2 = dict(pt), dict(pt)
        p1[x], p2[x] = (pt[x], other) if pt[x] < other else (other, pt[x])
        if not (claim.domain.contains(p1, settings.precision) and claim.domain.contains(p2, settings.precision)):
            continue  # the second value of x left the domain through a `where` relation
        pairs += 1
        try:
            pair = _Diff(ev, "f", p1, "f", p2)
            res = _decide_order(op, pair, lambda: _exactly_zero(
                claim.expr.xreplace({x: _exact(p1[x])}) - claim.expr.xreplace({x: _exact(p2[x])}),
                [s_ for s_ in syms if s_ != x], pt))
            if res is True:
                f1, f2 = pair.values
                return NumericOutcome("counterexample", {"pairs": pairs}, {
                    "type": f"not {claim.direction}", "point": _point_repr(syms, p1),
                    f"{x} (first)": fmt(p1[x]), f"{x} (second)": fmt(p2[x]),
                    "f(first)": fmt(f1), "f(second)": fmt(f2)})
            if res is None:
                tight += 1
        except Undefined as exc:
            return NumericOutcome("counterexample", {"pairs": pairs}, _undefined_cx(syms, p1, exc))
    ev_ = {"pairs": pairs, "digits": settings.precision, "tight_pairs": tight}
    return NumericOutcome("inconclusive" if tight == pairs else "consistent", ev_)


def _breakpoints(expr, x):
    """Where a non-smooth expression may jump, as expressions in the other symbols:
    the solutions in x of Piecewise conditions and of sign/Abs/Heaviside arguments."""
    out = []
    for pw in expr.atoms(sp.Piecewise):
        for _, cond in pw.args:
            for rel in (cond.atoms(sp.core.relational.Relational) if cond not in (sp.true, sp.false) else ()):
                out += _solve_for(rel.lhs - rel.rhs, x)
    for f in expr.atoms(sp.sign, sp.Heaviside, sp.Abs):
        out += _solve_for(f.args[0], x)
    return out


def _solve_for(e, x):
    if not e.has(x):
        return []
    try:
        return [r for r in sp.solve(e, x) if r.is_real is not False]
    except Exception:  # noqa: BLE001 - no closed form: no breakpoint probing for it
        return []


def _breakpoint_at(bexpr, syms, pt, dps):
    try:
        with mpmath.workdps(dps):
            v = compile_expr(bexpr, syms)(*[pt[s_] for s_ in syms])
        return _real(v, "breakpoint")
    except Exception:  # noqa: BLE001
        return None


def _exact(v):
    """The exact binary rational of an mpf (mpf(v) would re-round to 15 digits)."""
    man, exp_ = (v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)).man_exp
    return sp.Integer(man) * sp.Integer(2) ** exp_


def _in_interval(v, st: sp.Interval) -> bool:
    lo, hi = st.start, st.end
    if lo.is_finite:
        flo = mpmath.mpf(sp.Float(lo, 60))
        if v < flo or (v == flo and st.left_open):
            return False
    if hi.is_finite:
        fhi = mpmath.mpf(sp.Float(hi, 60))
        if v > fhi or (v == fhi and st.right_open):
            return False
    return True


def _approach(point, direction, k, dps):
    with mpmath.workdps(dps):
        if point is sp.oo:
            return mpmath.mpf(10) ** k
        if point is -sp.oo:
            return -mpmath.mpf(10) ** k
        a = mpmath.mpf(sp.Float(point, dps))
        h = mpmath.mpf(10) ** (-k)
        return a + h if direction == "+" else a - h


def check_limit(claim: Limit, settings, rng):
    syms = claim.domain.symbols()
    x = claim.var
    allsyms = syms + (x,)
    has_sum = claim.expr.has(sp.Sum)
    ev = _Evaluator(allsyms, {"f": claim.expr, "value": claim.value}, settings.precision)
    point = sp.sympify(claim.point)
    integer_var = bool(x.is_integer)
    if point.is_infinite:
        # direct summation of a Sum costs O(x): a denser, shorter ladder for it
        ladder = [mpmath.log10(v) for v in (16, 64, 256, 1024)] if has_sum else [2, 4, 8, 16, 24]
    else:
        ladder = [2, 4, 8, 16, 24]
    directions = ["+", "-"] if claim.direction == "+-" else [claim.direction]
    if point.is_infinite:  # there is only one way to approach +-oo
        directions = ["-" if point is sp.oo else "+"]
    n = min(settings.samples, 8 if has_sum else 30)
    # a limit is pointwise in the parameters: a parameter pressed to 1e-20 (x**a with
    # a = 1e-20) converges far beyond any ladder, so parameters stay in the interior
    pts = _sample(claim.domain, settings, rng, n, edges=False) if syms else [{}]
    infinite_value = sp.sympify(claim.value).is_infinite
    # approaching 0 or oo by 10^k while parameters sit 1e-20 from their own ends can
    # cancel ~2k + 20 digits; the working precision grows with the ladder for that
    base_dps = settings.precision + 2 * int(max(ladder)) + 30
    worst = None
    for pt in pts:
        for dirn in directions:
            verdict, why, vals = _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var,
                                               infinite_value, claim.value, base_dps, allsyms)
            if verdict == "counterexample":  # confirm with twice the digits before reporting
                verdict, why, vals = _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var,
                                                   infinite_value, claim.value, 2 * base_dps, allsyms)
            if verdict == "undefined":
                return NumericOutcome("counterexample", {"points": len(pts)}, why)
            if verdict == "counterexample":
                cx = {"type": "limit differs", "point": _point_repr(syms, pt), "direction": dirn,
                      "approach": [{str(x): fmt(xv, 8), "f": fmt(fv)} for xv, fv in vals],
                      "claimed": str(claim.value), "explanation": why}
                return NumericOutcome("counterexample", {"points": len(pts)}, cx)
            if verdict == "inconclusive":
                worst = {"point": _point_repr(syms, pt), "direction": dirn, "explanation": why,
                         "approach": [{str(x): fmt(xv, 8), "f": fmt(fv)} for xv, fv in vals]}
    evidence = {"points": len(pts), "ladder": [fmt(v, 4) for v in ladder], "digits": settings.precision}
    if worst is not None:
        evidence["inconclusive_at"] = worst
        return NumericOutcome("inconclusive", evidence)
    return NumericOutcome("consistent", evidence)


def _limit_ladder(ev, pt, x, point, dirn, ladder, integer_var, infinite_value, value, dps, allsyms):
    errs, vals = [], []
    for k in ladder:
        xv = _approach(point, dirn, k, dps)
        if integer_var:
            xv = mpmath.mpf(int(mpmath.nint(xv)))
        p = dict(pt)
        p[x] = xv
        try:
            fv = ev.at("f", p, dps)
            lv = None if infinite_value else ev.at("value", p, dps)
        except Undefined as exc:
            return "undefined", _undefined_cx(allsyms, p, exc), vals
        vals.append((xv, fv))
        if not infinite_value:
            with mpmath.workdps(dps):
                errs.append(abs(fv - lv) / max(mpmath.mpf(1), abs(lv)))
    verdict, why = _judge_limit(errs, vals, value if infinite_value else None)
    return verdict, why, vals


def _judge_limit(errs, vals, infinite_value):
    """Decide from the errors |f(x_k) - L| along an approach ladder."""
    if infinite_value is not None:
        sign = 1 if infinite_value is sp.oo else -1
        fs = [sign * fv for _, fv in vals]
        if fs[-1] > 1e6 * max(1, abs(fs[0])) and all(b >= a for a, b in zip(fs, fs[1:])):
            return "consistent", ""
        if fs[-1] <= fs[-2] or fs[-1] < max(1, abs(fs[0])):
            return "counterexample", f"f does not grow towards {infinite_value}"
        return "inconclusive", "f grows, but not clearly without bound"
    last, first = errs[-1], errs[0]
    if last < 1e-12:
        return "consistent", ""
    decreasing = all(b <= a * 1.0000001 for a, b in zip(errs, errs[1:]))
    if decreasing and last <= first / 30:
        return "consistent", ""
    # converged elsewhere: the last two errors agree and are large
    if last > 1e-4 and abs(errs[-1] - errs[-2]) <= 0.1 * last:
        return "counterexample", f"f settles at a distance {fmt(last, 4)} (relative) from the claimed limit"
    if last > 1e-4 and not decreasing:
        return "counterexample", "the error does not decrease along the approach"
    return "inconclusive", "the error decreases, but too slowly to decide"


def check_root(claim: Root, settings, rng):
    syms = claim.domain.symbols()
    x = claim.var
    res = claim.residual()
    num = sp.numer(sp.together(res))
    allsyms = syms + (x,)
    exprs = {"residual": res, "value": claim.value,
             "terms": sp.Add(*[sp.Abs(t) for t in sp.Add.make_args(sp.expand(res))])}
    poly = None
    try:
        poly = sp.Poly(sp.expand(num), x)
        if any(c.has(x) for c in poly.all_coeffs()):
            poly = None
    except sp.PolynomialError:
        poly = None
    if poly is not None:
        for i, c in enumerate(poly.all_coeffs()):
            exprs[f"c{i}"] = c
    ev = _Evaluator(allsyms, exprs, settings.precision)
    iv = claim.interval
    pts = _sample(claim.domain, settings, rng)
    for pt in pts:
        p = dict(pt)
        p[x] = mpmath.mpf(0)
        try:
            v = ev.at("value", p, settings.precision + 20)
            p[x] = v
            r = ev.at("residual", p, settings.precision)
            scale = max(1, abs(v), ev.at("terms", p, settings.precision))
            if abs(r) > _tol(settings.precision) * scale:
                ph = dict(p)
                ph[x] = mpmath.mpf(0)
                ph[x] = ev.at("value", ph, 2 * ev.high)
                r = ev.at("residual", ph, 2 * ev.high)
                if abs(r) > _tol(settings.precision) * scale:
                    return NumericOutcome("counterexample", {"points": len(pts)}, {
                        "type": "not a root", "point": _point_repr(syms, pt), str(x): fmt(v),
                        "residual": fmt(r, 6)})
            if not _in_interval(v, iv) and not _near_interval(v, iv, settings.precision):
                return NumericOutcome("counterexample", {"points": len(pts)}, {
                    "type": "root outside the interval", "point": _point_repr(syms, pt),
                    str(x): fmt(v), "interval": str(iv)})
            if claim.unique:
                others = _roots_in(ev, poly, p, x, iv, settings)
                distinct = [o for o in others if abs(o - v) > mpmath.mpf(10) ** (-settings.precision // 3)
                            * max(1, abs(v))]
                if distinct:
                    return NumericOutcome("counterexample", {"points": len(pts)}, {
                        "type": "another root in the interval", "point": _point_repr(syms, pt),
                        f"{x} (claimed)": fmt(v), f"{x} (other)": fmt(distinct[0]),
                        "interval": str(iv)})
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(allsyms, p, exc))
    return NumericOutcome("consistent", {"points": len(pts), "digits": settings.precision,
                                         "uniqueness": "polynomial roots" if poly is not None else
                                         ("sign changes on a grid" if claim.unique else "not claimed")})


def _near_interval(v, iv, precision):
    eps = mpmath.mpf(10) ** (-(2 * precision) // 3)
    lo = mpmath.mpf(sp.Float(iv.start, 60)) if iv.start.is_finite else -mpmath.inf
    hi = mpmath.mpf(sp.Float(iv.end, 60)) if iv.end.is_finite else mpmath.inf
    return lo - eps <= v <= hi + eps and not (iv.left_open and abs(v - lo) <= eps) and not (
        iv.right_open and abs(v - hi) <= eps)


def _roots_in(ev, poly, p, x, iv, settings):
    """All real roots of the equation in the interval at parameter point p."""
    dps = settings.precision + 20
    if poly is not None:
        coeffs = [ev.at(f"c{i}", p, dps) for i in range(len(poly.all_coeffs()))]
        while coeffs and coeffs[0] == 0:
            coeffs.pop(0)
        if not coeffs:
            # the equation vanishes identically here: every point of the interval is a root
            lo = mpmath.mpf(sp.Float(iv.start, 60)) if iv.start.is_finite else mpmath.mpf(-1)
            hi = mpmath.mpf(sp.Float(iv.end, 60)) if iv.end.is_finite else lo + 2
            return [lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3]
        if len(coeffs) <= 1:
            return []
        roots = None
        # coefficients spread over many orders of magnitude (a parameter pressed to 1e20
        # against another at 1e-15): Durand-Kerner then needs more steps and digits
        for steps, extra in ((200, 2 * dps), (2000, 8 * dps)):
            try:
                with mpmath.workdps(dps):
                    roots = mpmath.polyroots(coeffs, maxsteps=steps, extraprec=extra)
                break
            except mpmath.libmp.NoConvergence:
                continue
        if roots is None:
            # clustered roots at an extreme point (e.g. 1e-15 beside 0): no numeric
            # uniqueness evidence here, which is not a counterexample either
            return []
        out = []
        for r in roots:
            if isinstance(r, mpmath.mpc):
                if abs(r.imag) > mpmath.mpf(10) ** (-settings.precision // 2):
                    continue
                r = r.real
            if _in_interval(r, iv):
                # the numerator's root must also be a root of the residual (not a pole)
                q = dict(p)
                q[x] = r
                try:
                    ev.at("residual", q, dps)
                except Undefined:
                    continue
                out.append(r)
        return out
    # generic: sign changes of the residual on a grid inside the interval
    lo = mpmath.mpf(sp.Float(iv.start, 60)) if iv.start.is_finite else mpmath.mpf(-1e6)
    hi = mpmath.mpf(sp.Float(iv.end, 60)) if iv.end.is_finite else mpmath.mpf(1e6)
    grid = [lo + (hi - lo) * mpmath.mpf(i) / 400 for i in range(1, 400)]
    out, prev = [], None
    for g in grid:
        q = dict(p)
        q[x] = g
        try:
            r = ev.at("residual", q, dps)
        except Undefined:
            prev = None
            continue
        if prev is not None and (prev[1] < 0 < r or prev[1] > 0 > r):
            out.append(_bisect(ev, p, x, prev[0], g, prev[1], dps))
        elif r == 0:
            out.append(g)
        prev = (g, r)
    return out


def _bisect(ev, p, x, lo, hi, flo, dps):
    """Refine a bracketed sign change to ~dps/2 digits (bisection cannot diverge)."""
    with mpmath.workdps(dps):
        for _ in range(int(dps * 3.4) // 2 + 10):
            mid = (lo + hi) / 2
            q = dict(p)
            q[x] = mid
            try:
                fm = ev.at("residual", q, dps)
            except Undefined:
                break
            if fm == 0:
                return mid
            if (fm < 0) == (flo < 0):
                lo, flo = mid, fm
            else:
                hi = mid
        return (lo + hi) / 2


def check_stationary(claim: Stationary, settings, rng):
    syms = claim.domain.symbols()
    residuals = claim.residuals()
    exprs = {f"residual[{i}]": r.subs(claim.at, simultaneous=True) for i, r in enumerate(residuals)}
    ev = _Evaluator(syms, exprs, settings.precision)
    pts = _sample(claim.domain, settings, rng)
    max_abs = mpmath.mpf(0)
    for pt in pts:
        for name in exprs:
            try:
                v = ev.at(name, pt, settings.precision)
                if abs(v) > _tol(settings.precision):
                    v = ev.at(name, pt, ev.high)
                    if abs(v) > _tol(settings.precision):
                        return NumericOutcome("counterexample", {"points": len(pts)}, {
                            "type": "gradient does not vanish", "point": _point_repr(syms, pt),
                            name: fmt(v)})
                max_abs = max(max_abs, abs(v))
            except Undefined as exc:
                return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(syms, pt, exc))
    return NumericOutcome("consistent", {"points": len(pts), "digits": settings.precision,
                                         "max_abs_residual": fmt(max_abs, 3)})


def check_maximiser(claim: Maximiser, settings, rng):
    params = claim.domain.symbols()
    wrt = claim.wrt
    obj = claim.objective.subs(claim.frozen, simultaneous=True) if claim.frozen else claim.objective
    allsyms = params + tuple(wrt)
    exprs = {"f": obj}
    for v in wrt:
        exprs[f"at[{v}]"] = claim.at[v]
    ev = _Evaluator(allsyms, exprs, settings.precision)
    feasible = claim.feasible()
    n_params = max(10, settings.samples // 4)
    n_cmp = 40
    pts = _sample(claim.domain, settings, rng, n_params) if params else [{}]
    compared, unresolved = 0, 0
    for pt in pts:
        star = dict(pt)
        try:
            for v in wrt:
                star[v] = mpmath.mpf(0)
            for v in wrt:
                star[v] = ev.at(f"at[{v}]", dict(star), settings.precision + 20)
            where = _feasibility(feasible, star, wrt, settings.precision)
            if where == "edge":
                # within rounding of the boundary (e.g. 1 - 1e-400000): not resolvable here
                unresolved += 1
                continue
            if where == "no":
                return NumericOutcome("counterexample", {"parameter_points": len(pts)}, {
                    "type": "claimed maximiser is infeasible", "point": _point_repr(params, pt),
                    **{str(v): fmt(star[v]) for v in wrt}})
            fstar = ev.at("f", star, settings.precision)
        except Undefined as exc:
            if _feasibility(feasible, star, wrt, settings.precision) == "edge":
                unresolved += 1
                continue
            return NumericOutcome("counterexample", {}, _undefined_cx(params, pt, exc))
        rivals = []
        if claim.scope == "global":
            for c in feasible.sample(n_cmp, rng, settings.precision + 20):
                r = dict(pt)
                r.update(c)
                rivals.append(r)
        for k in (3, 6, 9):  # small perturbations probe the local condition
            for _ in range(2):
                q = dict(star)
                for v in wrt:
                    with mpmath.workdps(settings.precision + 20):
                        q[v] = star[v] + (mpmath.mpf(10) ** -k) * rng.choice([-1, 1])
                if _feasibility(feasible, q, wrt, settings.precision) == "yes":
                    rivals.append(q)
        for q in rivals:
            q = {**pt, **{v: q[v] for v in wrt}}
            try:
                fq = ev.at("f", q, settings.precision)
                worse = fq - fstar
                if worse > _tol(settings.precision) * max(1, abs(fstar)):
                    fq = ev.at("f", q, ev.high)
                    fs = ev.at("f", star, ev.high)
                    with mpmath.workdps(ev.high):
                        worse = fq - fs
                    if worse > _tol(ev.high) * max(1, abs(fs)):
                        return NumericOutcome("counterexample", {"parameter_points": len(pts)}, {
                            "type": "a feasible point does better", "point": _point_repr(params, pt),
                            "claimed": {str(v): fmt(star[v]) for v in wrt},
                            "objective(claimed)": fmt(fs),
                            "better": {str(v): fmt(q[v]) for v in wrt}, "objective(better)": fmt(fq)})
                compared += 1
            except Undefined:
                continue  # the objective may be undefined at a rival; that rival cannot win
    evidence = {"parameter_points": len(pts), "comparisons": compared, "digits": settings.precision,
                "scope": claim.scope, "unresolved_points": unresolved}
    if unresolved == len(pts) or compared == 0:  # nothing was actually compared
        return NumericOutcome("inconclusive", evidence)
    return NumericOutcome("consistent", evidence)


def _feasibility(feasible: Domain, pt, wrt, precision) -> str:
    """'yes', 'no', or 'edge' when only rounding separates the point from the closure."""
    tol = mpmath.mpf(10) ** (-(2 * precision) // 3)
    edge = False
    for v in wrt:
        st = feasible.sets[v]
        if not isinstance(st, sp.Interval):
            members = list(st) if isinstance(st, sp.FiniteSet) or st.size.is_finite else None
            if members is not None:
                gaps = [abs(pt[v] - mpmath.mpf(sp.Float(m, 60))) for m in members]
                if min(gaps) > tol * max(1, abs(pt[v])):
                    return "no"
            elif not mpmath.isint(mpmath.nint(pt[v])) or abs(pt[v] - mpmath.nint(pt[v])) > tol:
                return "no"
            continue
        if isinstance(st, sp.Interval) and not _in_interval(pt[v], st):
            lo = mpmath.mpf(sp.Float(st.start, 60)) if st.start.is_finite else -mpmath.inf
            hi = mpmath.mpf(sp.Float(st.end, 60)) if st.end.is_finite else mpmath.inf
            if lo - tol * max(1, abs(lo)) <= pt[v] <= hi + tol * max(1, abs(hi)):
                edge = True
            else:
                return "no"
    for rel, val in zip(feasible.where, feasible.where_values(pt, precision)):
        if not _holds(type(rel), val):
            if isinstance(val, mpmath.mpf) and abs(val) <= tol:
                edge = True
            else:
                return "no"
    return "edge" if edge else "yes"


_CHECKERS = {"identity": check_identity, "chain": check_chain, "inequality": check_inequality,
             "limit": check_limit, "monotonic": check_monotonic, "root": check_root,
             "stationarity": check_stationary, "maximiser": check_maximiser}


def spot_check(claim, settings, rng: random.Random) -> NumericOutcome:
    """Numerically test a claim at seeded random points of its domain."""
    return _CHECKERS[claim.kind](claim, settings, rng)
