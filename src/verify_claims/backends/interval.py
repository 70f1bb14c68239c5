"""Interval branch-and-bound with outward rounding (mpmath.iv): a *certified* method.

A sign goal "e >= 0 on the domain" is decided box by box.  The domain box (the closure
of the declared intervals; an infinite end stays infinite: mpmath's intervals are
extended) is split until every piece is decided:

- the enclosure of e over the box has the wanted sign: decided;
- e is monotone in every coordinate on the (closed) box -- the enclosures of its
  partial derivatives have a sign -- so its minimum is at one corner (a face for
  degenerate coordinates), which is evaluated, first by an enclosure and then exactly by
  sympy on the face.  This is how a bound that is tight at a point (x - log x - 1 at
  x = 1, 1/(1 + b^2) - (1 - b) at b = 0) is certified: rounding cannot decide it, the
  monotonicity argument does.  At an *excluded* (open) end the corner is a limit point:
  the corner value may be 0 for a strict goal if the derivative in that coordinate is
  strictly signed, because every domain point of the box then lies strictly above it;
- the enclosure over a domain point of the box (its midpoint) has the wrong sign: a
  counterexample candidate, which the caller re-checks with mpmath before using it.

Two evaluation modes keep this sound.  ``strict`` rejects any operation that might be
undefined on the box (a denominator enclosure containing 0, a log or root of an
enclosure reaching 0 or below): it is used for the corner argument, which needs e and
its derivatives defined and continuous on the whole closed box.  ``extended`` is used
for the plain enclosure once e is known to be defined at every *domain* point (the
caller proves those definedness conditions): 1/[0, a] is then [1/a, +inf], log [0, a]
is [-inf, log a], which enclose every value taken at domain points of the box.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mpmath
import sympy as sp
from mpmath import iv

__all__ = ["Undefined", "IntervalAnswer", "enclose", "branch_and_bound"]


class Undefined(ArithmeticError):
    """The expression may be undefined somewhere on the box (strict mode)."""


def _ivl(lo, hi=None):
    return iv.mpf([lo, lo if hi is None else hi])


def _bad(x):
    return mpmath.isnan(x.a) or mpmath.isnan(x.b)


def _const(e):
    """An outward-rounded enclosure of an exact constant (pi, sqrt(2), 1/3 ...)."""
    if e.is_Integer:
        return iv.mpf(int(e))
    if e.is_Rational:
        return iv.mpf(int(e.p)) / int(e.q)
    if e is sp.pi:
        return iv.pi
    if e is sp.E:
        return iv.e
    if e.is_Float:
        return iv.mpf(sp.Rational(e).p) / sp.Rational(e).q
    return None


def enclose(e, box: dict, strict: bool):
    """An interval containing e's value at every point of `box` (symbol -> iv.mpf)."""
    return _Enc(box, strict)(e)


class _Enc:
    def __init__(self, box, strict):
        self.box, self.strict, self.cache = box, strict, {}

    def __call__(self, e):
        r = self.cache.get(e)
        if r is None:
            r = self.ev(e)
            if _bad(r):
                if self.strict:
                    raise Undefined(f"{e}: nan")
                r = iv.mpf([-mpmath.inf, mpmath.inf])
            self.cache[e] = r
        return r

    def ev(self, e):
        if e.is_Symbol:
            return self.box[e]
        if e.is_number:
            c = _const(e)
            if c is not None:
                return c
        if isinstance(e, sp.Add):
            out = self(e.args[0])
            for a in e.args[1:]:
                out = out + self(a)
            return out
        if isinstance(e, sp.Mul):
            out = self(e.args[0])
            for a in e.args[1:]:
                out = out * self(a)
            return out
        if isinstance(e, sp.Pow):
            return self.pow(e)
        if isinstance(e, sp.log) and len(e.args) == 1:
            x = self(e.args[0])
            if x.a <= 0:
                if self.strict or x.b <= 0:
                    raise Undefined(f"log of {e.args[0]} reaching 0")
                return iv.mpf([-mpmath.inf, iv.log(_ivl(x.b)).b])
            return iv.log(x)
        if isinstance(e, sp.exp):
            return iv.exp(self(e.args[0]))
        if isinstance(e, (sp.Max, sp.Min)):
            vals = [self(a) for a in e.args]
            f = max if isinstance(e, sp.Max) else min
            return iv.mpf([f(v.a for v in vals), f(v.b for v in vals)])
        if isinstance(e, sp.Abs):
            x = self(e.args[0])
            if x.a >= 0:
                return x
            if x.b <= 0:
                return -x
            return iv.mpf([0, max(-x.a, x.b)])
        raise Undefined(f"{type(e).__name__} has no interval extension here")

    def pow(self, e):
        base, ex = e.base, e.exp
        x = self(base)
        if ex.is_Integer:
            n = int(ex)
            if n >= 0:
                return x ** n
            if x.a <= 0 <= x.b:
                if self.strict or (x.a == 0 and x.b == 0):
                    raise Undefined(f"division by {base}, which may vanish")
                if x.a < 0 < x.b:
                    return iv.mpf([-mpmath.inf, mpmath.inf])
                # one end touches 0: at domain points (where base != 0) 1/x^k is unbounded
                # on that side only; mpmath's extended division gives exactly that
            return 1 / (x ** (-n))
        if ex.is_Rational or ex.is_Float:
            q = _const(ex)
            if x.a < 0 or (x.a == 0 and ex < 0):
                if self.strict or x.b < 0 or (x.b == 0 and ex < 0):
                    raise Undefined(f"{e}: base may be negative or 0")
                # at domain points the base is >= 0 (> 0 for a negative power)
                x = iv.mpf([0, x.b])
                if ex < 0:
                    return iv.mpf([(iv.mpf(x.b) ** q).a, mpmath.inf])
            if ex == sp.S.Half:
                return iv.sqrt(x)
            return x ** q
        # symbolic exponent: exp(ex * log(base))
        xb = self(base)
        if xb.a <= 0:
            raise Undefined(f"{e}: symbolic power of a base reaching 0")
        return iv.exp(self(ex) * iv.log(xb))


@dataclass
class IntervalAnswer:
    verdict: str  # "holds" | "violated" | "undecided"
    detail: str = ""
    boxes: int = 0
    depth: int = 0
    seconds: float = 0.0
    point: dict | None = None  # for violated: a domain point (symbol -> mpf) to re-check


_SIGN_OK = {"positive": lambda lo, hi: lo > 0, "nonnegative": lambda lo, hi: lo >= 0,
            "negative": lambda lo, hi: hi < 0, "nonpositive": lambda lo, hi: hi <= 0}
_SIGN_BAD = {"positive": lambda lo, hi: hi <= 0, "nonnegative": lambda lo, hi: hi < 0,
             "negative": lambda lo, hi: lo >= 0, "nonpositive": lambda lo, hi: lo > 0}


def branch_and_bound(expr, want: str, domain, *, seconds: float, max_boxes: int = 20000,
                     defined: bool = False, max_depth: int = 60, derivative_ops: int = 400) -> IntervalAnswer:
    """Decide `expr want` on the domain by splitting its box.

    defined=True says the caller proved expr defined at every domain point (enables the
    extended enclosures).  Negative goals are flipped to positive ones on -expr."""
    t0 = time.process_time()
    if want in ("negative", "nonpositive"):
        expr, want = -expr, "positive" if want == "negative" else "nonnegative"
    strict_goal = want == "positive"
    syms = list(domain.symbols())
    cont = [s for s in syms if isinstance(domain.sets[s], sp.Interval)]
    disc = [s for s in syms if s not in cont]
    choices = []
    for s in disc:
        st = domain.sets[s]
        if isinstance(st, sp.Range) and not st.size.is_finite or len(st) > 32:
            return IntervalAnswer("undecided", f"{s} ranges over an infinite or large set")
        choices.append([sp.sympify(m) for m in st])
    # open ends of each continuous coordinate (the box is their closure)
    ends = {}
    root = {}
    for s in cont:
        st = domain.sets[s]
        lo = mpmath.mpf(sp.Float(st.start, 30)) if st.start.is_finite else -mpmath.inf
        hi = mpmath.mpf(sp.Float(st.end, 30)) if st.end.is_finite else mpmath.inf
        if st.start.is_finite and not st.start.is_Rational or st.end.is_finite and not st.end.is_Rational:
            return IntervalAnswer("undecided", f"the interval of {s} has irrational ends")
        root[s] = (lo, hi)
        ends[s] = (st.left_open if st.start.is_finite else True, st.right_open if st.end.is_finite else True)
    try:
        grads = {}
        if sp.count_ops(expr) <= derivative_ops:
            for s in cont:
                grads[s] = sp.diff(expr, s)
                if sp.count_ops(grads[s]) > 4 * derivative_ops:
                    grads = {}
                    break
    except Exception:  # noqa: BLE001 - no derivative: no monotonicity argument
        grads = {}
    where = list(domain.where)
    face_cache: dict = {}
    stats = {"boxes": 0, "depth": 0}

    import itertools
    for combo in itertools.product(*choices) if disc else [()]:
        fixed = dict(zip(disc, combo))
        e = expr.xreplace(fixed) if fixed else expr
        gr = {s: g.xreplace(fixed) for s, g in grads.items()} if fixed else grads
        wh = [w.xreplace(fixed) for w in where] if fixed else where
        wh = [w for w in wh if w is not sp.true]
        if any(w is sp.false for w in wh):
            continue
        stack = [(dict(root), 0)]
        while stack:
            if time.process_time() - t0 > seconds:
                # how far the search got before its CPU budget ran out depends on the machine:
                # no box count here, so the same inputs give the same words on any machine
                return IntervalAnswer("undecided", f"interval budget of {seconds:g} s ran out",
                                      seconds=round(time.process_time() - t0, 4))
            if stats["boxes"] >= max_boxes:
                return IntervalAnswer("undecided", f"gave up after {max_boxes} boxes (depth "
                                      f"{stats['depth']})", stats["boxes"], stats["depth"],
                                      round(time.process_time() - t0, 4))
            bx, depth = stack.pop()
            stats["boxes"] += 1
            stats["depth"] = max(stats["depth"], depth)
            res = _decide_box(e, want, strict_goal, bx, ends, root, gr, wh, defined, face_cache, fixed)
            if res == "ok":
                continue
            if isinstance(res, dict):  # a violating domain point
                pt = {**{s: v for s, v in res.items()}, **{s: mpmath.mpf(sp.Float(v, 40)) for s, v in fixed.items()}}
                return IntervalAnswer("violated", "a box whose enclosure has the wrong sign", stats["boxes"],
                                      stats["depth"], round(time.process_time() - t0, 4), pt)
            if depth >= max_depth:
                return IntervalAnswer("undecided", f"a box is still undecided at depth {depth} near "
                                      + ", ".join(f"{s}={mpmath.nstr((a + b) / 2, 6) if mpmath.isfinite(a + b) else (a, b)}"
                                                  for s, (a, b) in bx.items()),
                                      stats["boxes"], stats["depth"], round(time.process_time() - t0, 4))
            for half in _split(bx):
                stack.append((half, depth + 1))
    return IntervalAnswer("holds", f"{stats['boxes']} boxes, depth {stats['depth']}", stats["boxes"],
                          stats["depth"], round(time.process_time() - t0, 4))


def _split(bx):
    """Halve the widest side; an infinite side is cut at a finite point first."""
    best, width = None, -1
    for s, (a, b) in bx.items():
        if a == b:
            continue
        w = mpmath.inf if not (mpmath.isfinite(a) and mpmath.isfinite(b)) else b - a
        if w > width:
            best, width = s, w
    if best is None:
        return []
    a, b = bx[best]
    if mpmath.isinf(b) and mpmath.isinf(a):
        m = mpmath.mpf(0)
    elif mpmath.isinf(b):
        m = a + max(mpmath.mpf(1), 3 * abs(a))
    elif mpmath.isinf(a):
        m = b - max(mpmath.mpf(1), 3 * abs(b))
    else:
        m = (a + b) / 2
    left, right = dict(bx), dict(bx)
    left[best], right[best] = (a, m), (m, b)
    return [left, right]


def _as_iv(bx):
    return {s: iv.mpf([a, b]) for s, (a, b) in bx.items()}


def _decide_box(e, want, strict_goal, bx, ends, root, grads, where, defined, face_cache, fixed):
    box = _as_iv(bx)
    # where-relations: a box entirely outside the domain needs nothing
    for w in where:
        try:
            d = enclose(w.lhs - w.rhs, box, strict=False)
        except Undefined:
            continue
        if isinstance(w, sp.StrictLessThan) and d.a >= 0 or isinstance(w, sp.LessThan) and d.a > 0 \
                or isinstance(w, sp.StrictGreaterThan) and d.b <= 0 or isinstance(w, sp.GreaterThan) and d.b < 0:
            return "ok"
    try:
        v = enclose(e, box, strict=not defined)
        if _SIGN_OK[want](v.a, v.b):
            return "ok"
    except Undefined:
        v = None
    # a violation candidate: the enclosure at one domain point of the box
    mid = _interior_point(bx, ends, root)
    if mid is not None:
        try:
            vm = enclose(e, _as_iv({s: (x, x) for s, x in mid.items()}), strict=True)
            if _SIGN_BAD[want](vm.a, vm.b) and (not where or _where_holds(where, mid)):
                return mid
        except Undefined:
            pass
    if grads and all(mpmath.isfinite(a) and mpmath.isfinite(b) for a, b in bx.values()):
        if _corner_argument(e, want, strict_goal, bx, box, ends, root, grads, face_cache, fixed):
            return "ok"
    return None


def _where_holds(where, pt):
    box = _as_iv({s: (x, x) for s, x in pt.items()})
    for w in where:
        try:
            d = enclose(w.lhs - w.rhs, box, strict=True)
        except Undefined:
            return False
        if not ((isinstance(w, sp.StrictLessThan) and d.b < 0) or (isinstance(w, sp.LessThan) and d.b <= 0)
                or (isinstance(w, sp.StrictGreaterThan) and d.a > 0) or (isinstance(w, sp.GreaterThan) and d.a >= 0)):
            return False
    return True


def _interior_point(bx, ends, root):
    """The box's midpoint (finite sides), a domain point of the declared intervals."""
    out = {}
    for s, (a, b) in bx.items():
        if mpmath.isinf(a) and mpmath.isinf(b):
            out[s] = mpmath.mpf(0)
        elif mpmath.isinf(b):
            out[s] = a + 1
        elif mpmath.isinf(a):
            out[s] = b - 1
        else:
            out[s] = (a + b) / 2
        lo, hi = root[s]
        if out[s] == lo and ends[s][0] or out[s] == hi and ends[s][1]:
            return None
    return out


def _corner_argument(e, want, strict_goal, bx, box, ends, root, grads, face_cache, fixed):
    """e monotone in every coordinate on the closed box: its minimum is at a corner."""
    corner, strict_open = {}, False
    try:
        for s, g in grads.items():
            a, b = bx[s]
            if a == b:
                corner[s] = (a, b)
                continue
            d = enclose(g, box, strict=True)
            if d.a >= 0:
                corner[s] = (a, a)  # non-decreasing: the minimum is at the low end
                at_open = a == root[s][0] and ends[s][0]
                strict_open = strict_open or (d.a > 0 and at_open)
            elif d.b <= 0:
                corner[s] = (b, b)
                at_open = b == root[s][1] and ends[s][1]
                strict_open = strict_open or (d.b < 0 and at_open)
            else:
                return False
        # e must be defined and continuous on the whole closed box for this argument
        enclose(e, box, strict=True)
        c = enclose(e, _as_iv(corner), strict=True)
    except Undefined:
        return False
    # every domain point of the box is >= e(corner), and > it if a strictly monotone
    # coordinate sits at an excluded end (the corner itself is then not a domain point)
    need_strict = strict_goal and not strict_open
    if c.a > 0 or (c.a >= 0 and not need_strict):
        return True
    # rounding cannot show e(corner) >= 0 when it is exactly 0: ask sympy at the corner
    key = tuple(sorted((str(s), str(v)) for s, v in corner.items()))
    if key not in face_cache:
        from .symbolic import zero_by
        sub = {s: sp.Rational(*_rat(a)) for s, (a, _) in corner.items()}
        try:
            val = e.xreplace(sub)
            face_cache[key] = zero_by(val)[0] is not None
        except Exception:  # noqa: BLE001 - not decided exactly
            face_cache[key] = False
    return face_cache[key] and not need_strict


def _rat(x):
    man, ex = mpmath.mpf(x).man_exp
    r = sp.Integer(man) * sp.Integer(2) ** ex
    return (r.p, r.q)


class IntervalBackend:
    """Branch-and-bound with outward rounding (mpmath.iv)."""

    name = "interval"

    def declines(self, goal):
        if goal.want == "zero" or goal.extra:
            return "equalities are not decided by enclosures"
        from .functions import info
        for node in sp.preorder_traversal(sp.sympify(goal.expr)):
            if node.is_Atom:
                continue
            fi = info(type(node))
            if fi is None or not fi.interval:
                return f"{type(node).__name__} has no interval extension here"
        return None

    def decide(self, goal, seconds, trace=None):
        from . import Decision
        from .definedness import defined
        ok = defined(goal.expr, goal.domain, seconds / 4)
        ans = branch_and_bound(sp.sympify(goal.expr), goal.want, goal.domain, seconds=seconds, defined=ok)
        if ans.verdict == "holds":
            return Decision("holds", f"interval branch-and-bound: {ans.detail}" + ("" if ok else " (strict enclosures)"),
                            boxes=ans.boxes, depth=ans.depth)
        if ans.verdict == "violated":
            return Decision("violated", "a box whose enclosure has the wrong sign", point=ans.point,
                            boxes=ans.boxes, depth=ans.depth)
        return Decision("unknown", f"interval: {ans.detail}", boxes=ans.boxes, depth=ans.depth)


INTERVAL = IntervalBackend()
