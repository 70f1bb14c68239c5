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

from ..model.derivative import derivative
from . import Backend

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
        if isinstance(e, sp.asinh):
            # increasing: its values at the two ends, each by asinh(u) = log(u + sqrt(u^2 + 1))
            # for u >= 0 (odd symmetry below 0, where that form would cancel)
            x = self(e.args[0])
            return iv.mpf([_asinh_end(x.a).a, _asinh_end(x.b).b])
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


def _asinh_end(u):
    if mpmath.isinf(u):
        return iv.mpf([u, u])
    if u < 0:
        return -_asinh_end(-u)
    v = iv.mpf([u, u])
    return iv.log(v + iv.sqrt(v * v + 1))


class IvEncloser:
    """Enclosures by mpmath.iv: extended intervals (1/[0, a] = [1/a, +inf]), the slower
    default of the ``interval`` backend."""

    name = "mpmath.iv"

    def enclose(self, e, bx: dict, strict: bool):
        """bx: symbol -> (lo, hi) mpf ends (possibly infinite)."""
        return enclose(e, _as_iv(bx), strict)


IV = IvEncloser()


@dataclass
class Curve:
    """A curve x = value(parameters) on which the goal's expression e vanishes exactly
    (the caller proved it: a first-order condition, a touching point).  A box that contains
    the curve is decided by the sign of a derivative in x on the box:

    - order 1, the goal on one side of the curve (a ``where`` relation x < value or
      x > value): e(x) = -(integral of e_x from x to value), so e_x <= 0 on the box gives
      e >= 0 at its points left of the curve (e_x < 0: e > 0), and symmetrically;
    - order 2, e_x vanishes on the curve too (a touching inequality): e_xx >= 0 on the box
      gives e >= 0 on it (e_xx > 0: e > 0 off the curve, for a uniqueness goal).

    The derivative's sign is taken on the box widened in x to the curve (from a point of
    the box to the curve over the box's parameters), where every such segment lies."""

    var: object
    value: object
    order: int = 1
    side: str = ""  # order 1: "left" (goal on x < value) or "right"
    strict_off_curve: bool = False  # order 2: the goal is e > 0 at every point off the curve
    d1: object = None
    d2: object = None
    extended: bool = False  # d1, d2 shown defined at every domain point (no where relations)
    span: tuple = (-mpmath.inf, mpmath.inf)  # the variable's interval (the closure of its domain)


class _ShownDefined:
    """The coordinates whose partial derivative is shown defined at every domain point,
    worked out on first use (``in`` and ``len``), within a quarter of the search's budget."""

    def __init__(self, grads, domain, seconds, shown_defined):
        self._args = (grads, domain, seconds, shown_defined)
        self._set = None

    def _get(self):
        if self._set is None:
            grads, domain, seconds, shown_defined = self._args
            t0, self._set = time.process_time(), set()
            for s, g in grads.items():
                if time.process_time() - t0 < seconds / 4 and shown_defined(g, domain, min(0.5, seconds / 20)):
                    self._set.add(s)
        return self._set

    def __contains__(self, s):
        return s in self._get()

    def __len__(self):
        return len(self._get())


@dataclass
class IntervalAnswer:
    verdict: str  # "holds" | "violated" | "undecided"
    detail: str = ""
    boxes: int = 0
    depth: int = 0
    seconds: float = 0.0
    point: dict | None = None  # for violated: a domain point (symbol -> mpf) to re-check
    arguments: dict | None = None  # how many boxes each argument decided (monotone tail, curve, ...)


_SIGN_OK = {"positive": lambda lo, hi: lo > 0, "nonnegative": lambda lo, hi: lo >= 0,
            "negative": lambda lo, hi: hi < 0, "nonpositive": lambda lo, hi: hi <= 0}
_SIGN_BAD = {"positive": lambda lo, hi: hi <= 0, "nonnegative": lambda lo, hi: hi < 0,
             "negative": lambda lo, hi: lo >= 0, "nonpositive": lambda lo, hi: lo > 0}


def branch_and_bound(expr, want: str, domain, *, seconds: float, max_boxes: int = 20000,
                     defined: bool = False, max_depth: int = 60, derivative_ops: int = 400,
                     encloser=None, curve: Curve | None = None) -> IntervalAnswer:
    """Decide `expr want` on the domain by splitting its box.

    defined=True says the caller proved expr defined at every domain point (enables the
    extended enclosures).  Negative goals are flipped to positive ones on -expr.
    `encloser` computes the enclosures (mpmath.iv by default; ``ball.BALL`` is arb);
    `curve` is an exact zero curve of expr (see Curve)."""
    t0 = time.process_time()
    enc = encloser or IV
    if want in ("negative", "nonpositive"):
        expr, want = -expr, "positive" if want == "negative" else "nonnegative"
    if curve is not None:
        curve = Curve(curve.var, sp.sympify(curve.value), curve.order, curve.side, curve.strict_off_curve,
                      derivative(expr, curve.var), derivative(expr, curve.var, 2) if curve.order == 2 else None)
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
        # rounded outward: a box must contain every domain point (1/10 rounded to the nearest
        # double lies above 1/10, and the points between were never looked at)
        lo = _rational_end(st.start, "f") if st.start.is_finite else -mpmath.inf
        hi = _rational_end(st.end, "c") if st.end.is_finite else mpmath.inf
        if st.start.is_finite and not st.start.is_Rational or st.end.is_finite and not st.end.is_Rational:
            return IntervalAnswer("undecided", f"the interval of {s} has irrational ends")
        root[s] = (lo, hi)
        ends[s] = (st.left_open if st.start.is_finite else True, st.right_open if st.end.is_finite else True)
    try:
        grads = {}
        if sp.count_ops(expr) <= derivative_ops:
            for s in cont:
                grads[s] = derivative(expr, s)
                if sp.count_ops(grads[s]) > 4 * derivative_ops:
                    grads = {}
                    break
    except Exception:  # noqa: BLE001 - no derivative: no monotonicity argument
        grads = {}
    # a partial derivative shown defined at every domain point may be enclosed with
    # extended intervals in the corner argument (-1/x on (0, e] is [-oo, -1/e]: still a sign)
    # (only without `where` relations: the box's part in the domain must be a product of
    # intervals, so the segments of the mean value theorem stay where the derivative is)
    # Shown only when a box first needs it: most goals are decided by plain enclosures of
    # the first boxes, and each proof of definedness costs sympy or z3 time.
    from .definedness import defined as shown_defined
    grads_defined = _ShownDefined(grads if defined and not domain.where else {}, domain, seconds, shown_defined)
    if curve is not None and defined and not domain.where:
        # the same for the curve's derivatives: extended enclosures where they are defined
        curve.extended = all(shown_defined(d, domain, min(0.5, seconds / 20))
                             for d in (curve.d1, curve.d2) if d is not None)
    if curve is not None and curve.var in root:
        curve.span = root[curve.var]
    where = list(domain.where)
    face_cache: dict = {}
    stats = {"boxes": 0, "depth": 0, "arguments": {}}

    import itertools
    for combo in itertools.product(*choices) if disc else [()]:
        fixed = dict(zip(disc, combo))
        e = expr.xreplace(fixed) if fixed else expr
        gr = {s: g.xreplace(fixed) for s, g in grads.items()} if fixed else grads
        wh = [w.xreplace(fixed) for w in where] if fixed else where
        wh = [w for w in wh if w is not sp.true]
        if any(w is sp.false for w in wh):
            continue
        wgr = _relation_gradients(wh, cont)
        cv = curve
        if cv is not None and fixed:
            cv = Curve(cv.var, cv.value.xreplace(fixed), cv.order, cv.side, cv.strict_off_curve,
                       cv.d1.xreplace(fixed), cv.d2.xreplace(fixed) if cv.d2 is not None else None, cv.extended,
                       cv.span)
        stack = [(dict(root), 0)]
        while stack:
            if time.process_time() - t0 > seconds:
                # how far the search got before its CPU budget ran out depends on the machine:
                # no box count here, so the same inputs give the same words on any machine
                # nor the budget's size, which is what was left of a claim's CPU time
                return IntervalAnswer("undecided", "the box search's CPU budget ran out",
                                      seconds=round(time.process_time() - t0, 4))
            if stats["boxes"] >= max_boxes:
                return IntervalAnswer("undecided", f"gave up after {max_boxes} boxes (depth "
                                      f"{stats['depth']})", stats["boxes"], stats["depth"],
                                      round(time.process_time() - t0, 4))
            bx, depth = stack.pop()
            stats["boxes"] += 1
            stats["depth"] = max(stats["depth"], depth)
            res = _decide_box(e, want, strict_goal, bx, ends, root, gr, wh, defined, face_cache, fixed, enc, cv,
                              grads_defined, wgr)
            if isinstance(res, tuple):  # decided, by a named argument
                stats["arguments"][res[1]] = stats["arguments"].get(res[1], 0) + 1
                continue
            if res == "ok":
                continue
            if isinstance(res, dict):  # a violating domain point
                pt = {**{s: v for s, v in res.items()}, **{s: mpmath.mpf(sp.Float(v, 40)) for s, v in fixed.items()}}
                return IntervalAnswer("violated", "a box whose enclosure has the wrong sign", stats["boxes"],
                                      stats["depth"], round(time.process_time() - t0, 4), pt, stats["arguments"])
            if depth >= max_depth:
                return IntervalAnswer("undecided", f"a box is still undecided at depth {depth} near "
                                      + ", ".join(f"{s}={mpmath.nstr((a + b) / 2, 6) if mpmath.isfinite(a + b) else (a, b)}"
                                                  for s, (a, b) in bx.items()),
                                      stats["boxes"], stats["depth"], round(time.process_time() - t0, 4))
            for half in _split(bx, root):
                stack.append((half, depth + 1))
    how = "".join(f", {n} by {a}" for a, n in sorted(stats["arguments"].items()))
    return IntervalAnswer("holds", f"{stats['boxes']} boxes, depth {stats['depth']}{how}", stats["boxes"],
                          stats["depth"], round(time.process_time() - t0, 4), arguments=stats["arguments"])


def _phi(x):
    """[-oo, oo] -> [-1, 1], increasing: how wide a side of an unbounded coordinate is."""
    if mpmath.isinf(x):
        return mpmath.mpf(1 if x > 0 else -1)
    return x / (1 + abs(x))


def _width(s, a, b, root):
    """The side's width relative to the coordinate's whole range, so that a tail
    [M, +oo) does not take every split from the finite sides (they need splitting too)."""
    lo, hi = root[s] if root is not None else (a, b)
    if mpmath.isfinite(lo) and mpmath.isfinite(hi):
        return (b - a) / (hi - lo) if hi > lo else mpmath.mpf(0)
    return (_phi(b) - _phi(a)) / (_phi(hi) - _phi(lo))


def _rational_end(r, rounding: str):
    """An interval end as a double, rounded down ("f") or up ("c"): exactly from a rational
    end; outward from its arb ball for another real number (sqrt(2), log 2: the box then
    holds the declared set, and a little more)."""
    r = sp.sympify(r)
    if r.is_Rational:
        return mpmath.mpf(mpmath.libmp.from_rational(int(r.p), int(r.q), 53, rounding))
    from .ball import arb_to_mpf, compile_ball
    prog = compile_ball(r, ())
    if prog is None:
        raise Undefined(f"an interval end arb cannot enclose: {r}")
    ball = prog([])
    end = arb_to_mpf(ball.lower() if rounding == "f" else ball.upper())
    return mpmath.mpf(mpmath.libmp.mpf_pos(end._mpf_, 53, rounding))


def _split(bx, root=None):
    """Halve the widest side (relative to its coordinate's range); an infinite side is cut
    at a finite point first."""
    best, width = None, -1
    for s, (a, b) in bx.items():
        if a == b:
            continue
        w = _width(s, a, b, root)
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


def _relation_gradients(where, cont):
    """For each `where` relation, the partial derivatives of lhs - rhs in the continuous
    coordinates (None when it has none worth taking: a large expression), for the centred
    enclosure that excludes boxes outside the domain (``_outside``)."""
    out = []
    for w in where:
        d = None
        try:
            g = sp.sympify(w.lhs - w.rhs)
            if sp.count_ops(g) <= 200:
                d = {s: derivative(g, s) for s in cont if g.has(s)}
        except Exception:  # noqa: BLE001 - no derivative: the plain enclosure only
            d = None
        out.append(d)
    return out


def _excludes(w, lo, hi) -> bool:
    """Every value in [lo, hi] of lhs - rhs violates the relation w."""
    return isinstance(w, sp.StrictLessThan) and lo >= 0 or isinstance(w, sp.LessThan) and lo > 0 \
        or isinstance(w, sp.StrictGreaterThan) and hi <= 0 or isinstance(w, sp.GreaterThan) and hi < 0


def _outside(where, bx, enc, where_grads=None) -> bool:
    """No point of the box satisfies every `where` relation: a relation's enclosure over the
    box is on the wrong side of 0.  First the plain enclosure, then (with the relation's
    gradient) its mean value form, which is tight where a plain enclosure of a relation
    such as z_1 (1 - z_1) > z_2 (1 - z_2) overestimates (the dependency problem: a box of
    width w outside the domain by less than w is otherwise never excluded)."""
    for i, w in enumerate(where):
        try:
            d = enc.enclose(w.lhs - w.rhs, bx, strict=False)
        except Undefined:
            continue
        if _excludes(w, d.a, d.b):
            return True
        grads = where_grads[i] if where_grads else None
        if grads:
            total = _centred(w.lhs - w.rhs, bx, grads, enc)
            if total is not None and _excludes(w, total.a, total.b):
                return True
    return False


def _decide_box(e, want, strict_goal, bx, ends, root, grads, where, defined, face_cache, fixed, enc=IV,
                curve=None, grads_defined=frozenset(), where_grads=None):
    # where-relations: a box entirely outside the domain needs nothing
    if where and _outside(where, bx, enc, where_grads):
        return "ok"
    try:
        v = enc.enclose(e, bx, strict=not defined)
        if _SIGN_OK[want](v.a, v.b):
            return "ok"
    except Undefined:
        v = None
    # a violation candidate: the enclosure at one domain point of the box
    mid = _interior_point(bx, ends, root)
    if mid is not None:
        try:
            vm = enc.enclose(e, {s: (x, x) for s, x in mid.items()}, strict=True)
            if _SIGN_BAD[want](vm.a, vm.b) and (not where or _where_holds(where, mid, enc)):
                return mid
        except Undefined:
            pass
    if curve is not None and _curve_argument(want, bx, curve, enc):
        return ("ok", f"the exact zero curve {curve.var} = value (order {curve.order})")
    if grads:
        how = _corner_argument(e, want, strict_goal, bx, ends, root, grads, face_cache, fixed, enc,
                               defined, grads_defined)
        if isinstance(how, dict):
            return how if not where or _where_holds(where, how, enc) else None
        if how:
            return "ok" if how is True else ("ok", how)
        if _mean_value_form(e, want, bx, grads, enc, grads_defined if defined and not where else ()):
            return ("ok", "the mean value form")
    return None


def _mean_value_form(e, want, bx, grads, enc, extended=()) -> bool:
    """e(x) = e(m) + grad e(xi) . (x - m) for xi between x and the box's centre m (the mean
    value theorem on the convex box): the enclosure e(m) + sum of grad_i(box) * (side_i - m_i)
    is much tighter than a plain enclosure on small boxes, where a quotient whose numerator and
    denominator both vary (Appendix B.2's beta of the two zeros) overestimates.  The gradient
    must be defined on the whole box (strict enclosures), or at every domain point of a box
    without where relations (`extended`)."""
    total = _centred(e, bx, grads, enc, extended)
    return total is not None and _SIGN_OK[want](total.a, total.b)


def _centred(e, bx, grads, enc, extended=()):
    """The mean value form of e over the box, e(m) + sum of grad_i(box) * (side_i - m_i), as
    an mpmath interval enclosing e at every point of the box (None: not available).  The
    gradient is enclosed strictly (defined on the whole box) except for the coordinates in
    `extended`."""
    if not all(mpmath.isfinite(a) and mpmath.isfinite(b) for a, b in bx.values()):
        return None
    m = {s: (a + b) / 2 for s, (a, b) in bx.items()}
    try:
        c = enc.enclose(e, {s: (v, v) for s, v in m.items()}, strict=True)
        total = iv.mpf([_mpf_end(c.a), _mpf_end(c.b)])
        for s, g in grads.items():
            a, b = bx[s]
            if a == b:
                continue
            d = enc.enclose(g, bx, strict=s not in extended)
            total = total + iv.mpf([_mpf_end(d.a), _mpf_end(d.b)]) * iv.mpf([a - m[s], b - m[s]])
    except Undefined:
        return None
    if _bad(total):
        return None
    return total


def _curve_argument(want, bx, curve, enc) -> bool:
    """The box contains the zero curve and the derivative in its variable has the sign that
    decides the goal on the box (see Curve)."""
    x = curve.var
    xa, xb = bx[x]
    strict = not curve.extended
    try:
        # the curve's points over the box's parameters; value is defined there: strict.
        # Sides may be infinite (u in R, beta -> oo): a point and its curve point are finite,
        # and the segment between them lies in the widened box
        v = enc.enclose(curve.value, {s: r for s, r in bx.items() if s != x}, strict=True)
        va, vb = _mpf_end(v.a), _mpf_end(v.b)
        # extended enclosures only bound the derivatives at domain points: only while every
        # segment from a point to the curve stays in the variable's interval
        if strict is False and not (va >= curve.span[0] and vb <= curve.span[1]):
            strict = True
        # widened so that the segment from any point of the box (on the goal's side) to the
        # curve lies in it
        lo = xa if curve.order == 1 and curve.side == "left" else min(xa, va)
        hi = xb if curve.order == 1 and curve.side == "right" else max(xb, vb)
        if curve.side == "left" and vb < xa or curve.side == "right" and va > xb:
            return False  # the box is on the other side of the curve: not this argument
        bx = {**bx, x: (lo, hi)}
        if curve.order == 1:
            d = enc.enclose(curve.d1, bx, strict=strict)
            strict = want == "positive"
            if curve.side == "left":   # points x < value: e(x) = -int_x^value e_x
                return d.b < 0 if strict else d.b <= 0
            if curve.side == "right":  # points x > value: e(x) = int_value^x e_x
                return d.a > 0 if strict else d.a >= 0
            return False
        d2 = enc.enclose(curve.d2, bx, strict=strict)
        enc.enclose(curve.d1, bx, strict=strict)  # e_x defined on the box (Taylor's remainder)
        if want == "positive":
            # e > 0 off the curve; on it e = 0, which the goal's domain must exclude
            return curve.strict_off_curve and d2.a > 0
        return d2.a >= 0
    except Undefined:
        return False


def _mpf_end(x):
    """An enclosure's end (mpmath or an exact arb point) as an mpf, exactly."""
    if isinstance(x, mpmath.ctx_iv.ivmpf):  # a point interval (an end of an iv enclosure)
        return mpmath.mpf(x._mpi_[0])
    if isinstance(x, mpmath.mpf):
        return x
    from .ball import arb_to_mpf
    return arb_to_mpf(x)


def _where_holds(where, pt, enc=IV):
    box = {s: (x, x) for s, x in pt.items()}
    for w in where:
        try:
            d = enc.enclose(w.lhs - w.rhs, box, strict=True)
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


def _corner_argument(e, want, strict_goal, bx, ends, root, grads, face_cache, fixed, enc=IV, defined=False,
                     grads_defined=frozenset()):
    """e monotone in every coordinate on the closed box: its minimum is at a corner.

    A side may be infinite (a tail [M, +oo) of an unbounded coordinate) when e is monotone
    along it with its minimum at the finite end: the *monotone-tail* argument.  Returns
    False, True, or the name of the argument when a tail was used.

    With e and a partial derivative shown defined at every domain point (`defined`,
    `grads_defined`), their enclosures are the extended ones: the mean value theorem
    only needs the derivative at domain points, and e continuous there."""
    corner, strict_open, tail = {}, False, False
    try:
        for s, g in grads.items():
            a, b = bx[s]
            if a == b:
                corner[s] = (a, b)
                continue
            d = enc.enclose(g, bx, strict=s not in grads_defined)
            if d.a >= 0:
                if not mpmath.isfinite(a):
                    return False  # the minimum would be the limit at -oo
                tail = tail or not mpmath.isfinite(b)
                corner[s] = (a, a)  # non-decreasing: the minimum is at the low end
                at_open = a == root[s][0] and ends[s][0]
                strict_open = strict_open or (d.a > 0 and at_open)
            elif d.b <= 0:
                if not mpmath.isfinite(b):
                    return False
                tail = tail or not mpmath.isfinite(a)
                corner[s] = (b, b)
                at_open = b == root[s][1] and ends[s][1]
                strict_open = strict_open or (d.b < 0 and at_open)
            else:
                return False
        # e must be defined and continuous on the whole closed box for this argument
        if not (defined and len(grads_defined) == len(grads)):
            enc.enclose(e, bx, strict=True)
        c = enc.enclose(e, corner, strict=True)
    except Undefined:
        return False
    name = "a monotone tail" if tail else True
    # every domain point of the box is >= e(corner), and > it if a strictly monotone
    # coordinate sits at an excluded end (the corner itself is then not a domain point)
    need_strict = strict_goal and not strict_open
    if c.a > 0 or (c.a >= 0 and not need_strict):
        return name
    if _SIGN_BAD[want](c.a, c.b) and not any(
            v[0] == root[s][0] and ends[s][0] or v[0] == root[s][1] and ends[s][1] for s, v in corner.items()):
        # the worst point of the box is a domain point (no excluded end) with the wrong sign:
        # a candidate counterexample (the caller checks the where relations, and mpmath
        # confirms it before it counts)
        return {s: v[0] for s, v in corner.items()}
    # rounding cannot show e(corner) >= 0 when it is exactly 0: ask sympy at the corner
    # the fixed values of the discrete coordinates are part of e: part of the key too
    key = tuple(sorted((str(s), str(v)) for s, v in corner.items())) + tuple(
        sorted((str(s), str(v)) for s, v in (fixed or {}).items()))
    if key not in face_cache:
        from .symbolic import zero_by
        from .timebox import TimeUp, time_limit
        sub = {s: sp.Rational(*_rat(a)) for s, (a, _) in corner.items()}
        box = None
        try:
            # half a second of CPU: the tight corners that need it (x - log x - 1 at 1) take
            # milliseconds, while exp(50) at a rational corner sent cancel() off for 6 s
            with time_limit(0.5) as box:
                val = e.xreplace(sub)
                face_cache[key] = zero_by(val)[0] is not None
        except TimeUp as exc:
            if exc.box is not box:
                raise
            face_cache[key] = False
        except Exception:  # noqa: BLE001 - not decided exactly
            face_cache[key] = False
    return name if face_cache[key] and not need_strict else False


def _rat(x):
    """(p, q) of an mpf, exactly and with its sign (mpf.man_exp drops the sign)."""
    p, q = mpmath.libmp.to_rational(mpmath.mpf(x)._mpf_)
    return (int(p), int(q))


def box_declines(goal, capability: str, missing: str) -> str | None:
    """Why a box method cannot decide the goal: an equality, or a function the table
    (``functions.TABLE``) does not give this `capability` ("interval" or "ball")."""
    if goal.want == "zero" or goal.extra:
        return "equalities are not decided by enclosures"
    from .functions import info
    for node in sp.preorder_traversal(sp.sympify(goal.expr)):
        if node.is_Atom:
            continue
        fi = info(type(node))
        if fi is None or not getattr(fi, capability):
            return f"{type(node).__name__} has {missing}"
    return None


class IntervalBackend(Backend):
    """Branch-and-bound with outward rounding (mpmath.iv)."""

    name = "interval"

    def declines(self, goal):
        return box_declines(goal, "interval", "no interval extension here")

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
