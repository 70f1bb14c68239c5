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
from .domain import Domain

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


def compile_expr(expr, symbols):
    """lambdify for mpmath; Sum with concrete bounds is evaluated by direct summation."""
    # cse: the paper's expressions repeat normalisers (Z) and square roots many times;
    # not with a Sum, whose bound variable cse would hoist out of the generator
    expr = sp.sympify(expr)
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
        if abs(value.imag) > mpmath.mpf(10) ** (-(mpmath.mp.dps // 2)) * max(1, abs(value.real)):
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


def _sample(domain: Domain, settings, rng, n=None):
    return domain.sample(n or settings.samples, rng, settings.precision + 20)


def _undefined_cx(syms, pt, exc):
    return {"type": "undefined", "point": _point_repr(syms, pt), "cause": str(exc),
            "explanation": "the claim is not defined at this point of its declared domain"}


# --------------------------------------------------------------------------- per kind
def _check_equal(ev: _Evaluator, a: str, b: str, pts, mult=None):
    """Check ev[a] == ev[b] (or ev[a] == ev[mult] * ev[b]) at every point."""
    syms = ev.symbols
    max_dev = mpmath.mpf(0)
    for pt in pts:
        try:
            dev, va, vb, scale = _deviation(ev, a, b, pt, ev.precision, mult)
            if dev > _tol(ev.precision) * scale:
                dev, va, vb, scale = _deviation(ev, a, b, pt, ev.high, mult)
                if dev > _tol(ev.precision) * scale:
                    cx = {"type": "values differ", "point": _point_repr(syms, pt),
                          a: fmt(va), b if mult is None else f"{mult}*{b}": fmt(vb),
                          "difference": fmt(va - vb)}
                    return NumericOutcome("counterexample", {"points": len(pts)}, cx)
            max_dev = max(max_dev, dev / scale)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(syms, pt, exc))
    return NumericOutcome("consistent", {"points": len(pts), "digits": ev.precision,
                                         "max_relative_deviation": fmt(max_dev, 3)})


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
            exprs = {"previous": _side(prev.expr), "step": _side(cur.expr)}
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
        verdicts.append(out.verdict)
        if out.verdict == "counterexample":
            out.step = i + 1
            out.counterexample["failing step"] = i + 1
            out.step_verdicts = verdicts
            return out
    return NumericOutcome("consistent", {"points": len(pts), "digits": settings.precision,
                                         "steps": len(claim.steps)}, step_verdicts=verdicts)


def _side(e):
    return e


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


def _violates(op, d, scale, tol):
    """Does d = lhs - rhs violate `lhs op rhs`?  Returns True, False or None (tight)."""
    if op in (">", ">="):
        d = -d
    # now the claim is d < 0 (strict) or d <= 0
    if d > tol * scale:
        return True
    if d < -tol * scale:
        return False
    if _STRICT[op]:
        return True if d == 0 else None
    return False


def check_inequality(claim: Inequality, settings, rng):
    syms = claim.domain.symbols()
    ev = _Evaluator(syms, {"lhs": claim.lhs, "rhs": claim.rhs}, settings.precision)
    pts = _sample(claim.domain, settings, rng)
    return _check_order(ev, claim.op, pts, syms)


def _check_order(ev, op, pts, syms, lhs="lhs", rhs="rhs"):
    tight, min_margin = 0, None
    for pt in pts:
        try:
            verdict, d, va, vb = _order_at(ev, op, pt, ev.precision, lhs, rhs)
            if verdict is not False:  # suspicious or tight: decide at high precision
                verdict, d, va, vb = _order_at(ev, op, pt, ev.high, lhs, rhs)
            if verdict is True:
                return NumericOutcome("counterexample", {"points": len(pts)}, {
                    "type": "inequality violated", "point": _point_repr(syms, pt),
                    lhs: fmt(va), rhs: fmt(vb), f"{lhs} - {rhs}": fmt(d, 6)})
            if verdict is None:
                tight += 1
            else:
                with mpmath.workdps(ev.precision):
                    m = abs(d) / max(mpmath.mpf(1), abs(va), abs(vb))
                min_margin = m if min_margin is None else min(min_margin, m)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, _undefined_cx(syms, pt, exc))
    ev_ = {"points": len(pts), "digits": ev.precision, "tight_points": tight,
           "min_relative_margin": fmt(min_margin, 3) if min_margin is not None else None}
    if tight == len(pts):
        return NumericOutcome("inconclusive", ev_)
    return NumericOutcome("consistent", ev_)


def _order_at(ev, op, pt, dps, lhs, rhs):
    va, vb = ev.at(lhs, pt, dps), ev.at(rhs, pt, dps)
    with mpmath.workdps(dps):
        d = va - vb
        scale = max(mpmath.mpf(1), abs(va), abs(vb))
        return _violates(op, d, scale, _tol(dps) if dps > ev.precision else _tol(ev.precision)), d, va, vb


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
    for pt in pts:
        # a second value of x in its interval: random, or very close to the first
        other = sub.sample(1, rng, settings.precision + 20)[0][x]
        if rng.random() < 0.3:
            with mpmath.workdps(settings.precision + 20):
                other = pt[x] + (mpmath.mpf(10) ** -rng.choice([4, 8])) * rng.choice([-1, 1])
            if not _in_interval(other, st):
                other = sub.sample(1, rng, settings.precision + 20)[0][x]
        if other == pt[x]:
            continue
        p1, p2 = dict(pt), dict(pt)
        p1[x], p2[x] = (pt[x], other) if pt[x] < other else (other, pt[x])
        if not (claim.domain.contains(p1, settings.precision) and claim.domain.contains(p2, settings.precision)):
            continue  # the second value of x left the domain through a `where` relation
        pairs += 1
        try:
            res = None
            for dps in (settings.precision, ev.high):
                f1, f2 = ev.at("f", p1, dps), ev.at("f", p2, dps)
                with mpmath.workdps(dps):
                    d = f1 - f2
                    scale = max(mpmath.mpf(1), abs(f1), abs(f2))
                    res = _violates(op, d, scale, _tol(dps))
                if res is False:
                    break
            if res is True:
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
        ladder = [1, 2, 3] if has_sum else [2, 4, 8, 16, 24]
        if has_sum:  # direct summation costs O(x): use a denser, shorter ladder
            ladder = [mpmath.log10(v) for v in (16, 64, 256, 1024)]
    else:
        ladder = [2, 4, 8, 16, 24]
    directions = ["+", "-"] if claim.direction == "+-" else [claim.direction]
    if point.is_infinite:  # there is only one way to approach +-oo
        directions = ["-" if point is sp.oo else "+"]
    n = min(settings.samples, 8 if has_sum else 30)
    pts = _sample(claim.domain, settings, rng, n) if syms else [{}]
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
        if len(coeffs) <= 1:
            return []
        with mpmath.workdps(dps):
            roots = mpmath.polyroots(coeffs, maxsteps=200, extraprec=2 * dps)
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


def _gradient(objective, wrt, frozen, simplex):
    grads = [sp.diff(objective, v) for v in wrt]
    if frozen:
        grads = [g.subs(frozen, simultaneous=True) for g in grads]
    if simplex:
        return [g - grads[0] for g in grads[1:]]
    return grads


def check_stationary(claim: Stationary, settings, rng):
    syms = claim.domain.symbols()
    residuals = _gradient(claim.objective, claim.wrt, claim.frozen, claim.simplex)
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
    if unresolved == len(pts):
        return NumericOutcome("inconclusive", evidence)
    return NumericOutcome("consistent", evidence)


def _feasibility(feasible: Domain, pt, wrt, precision) -> str:
    """'yes', 'no', or 'edge' when only rounding separates the point from the closure."""
    from .domain import _holds
    tol = mpmath.mpf(10) ** (-(2 * precision) // 3)
    edge = False
    for v in wrt:
        st = feasible.sets[v]
        if isinstance(st, sp.Interval) and not _in_interval(pt[v], st):
            lo = mpmath.mpf(sp.Float(st.start, 60)) if st.start.is_finite else -mpmath.inf
            hi = mpmath.mpf(sp.Float(st.end, 60)) if st.end.is_finite else mpmath.inf
            if lo - tol * max(1, abs(lo)) <= pt[v] <= hi + tol * max(1, abs(hi)):
                edge = True
            else:
                return "no"
    for rel in feasible.where:
        f = compile_expr(rel.lhs - rel.rhs, tuple(wrt))
        with mpmath.workdps(precision + 10):
            val = f(*[pt[v] for v in wrt])
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
