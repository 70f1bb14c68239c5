"""Ball arithmetic (python-flint's arb): a *certified* method for log, exp, sqrt and asinh.

The ``ball`` backend decides a sign goal by the same branch-and-bound as ``interval``
(``interval.branch_and_bound``: boxes, the corner and monotone-tail arguments, exact zero
curves), with enclosures computed in arb balls:

- an expression is compiled once into a tree of closures over arb values; a box becomes
  one ball per coordinate, and every operation of arb rounds outward, so the result
  encloses every value the expression takes on the box;
- increasing functions (exp, log, sqrt, asinh, atan) are evaluated at the box's two ends
  and joined: arb's own ball evaluation of a wide ball is sound but loose
  (exp([2, 4]) comes out as [-54.6, 54.6]);
- a ball result that is not finite (a logarithm reaching 0, a division by a ball around 0,
  an infinite side of the box) is not an answer: that box is enclosed by mpmath's extended
  intervals instead (``interval.enclose``: 1/[0, a] = [1/a, +oo], log [0, a] = [-oo, ...]),
  which is what the ends where an expression tends to +-oo need.

Before splitting boxes, the backend tries the two reductions that make tight and
conditional goals decidable (``decide``):

- *touching*: if the search stops undecided, e is minimised exactly on a curve: for one
  variable x, e_x = 0 solved by sympy gives x = v(rest), and e = e_x = 0 there exactly
  (sympy) -- the goal is then re-run with that zero curve (order 2: boxes containing the
  curve are decided by e_xx >= 0 on them);
- *a where relation as a lower bound*: for e > 0 under a ``where`` relation W > 0, it
  suffices that e - W >= 0 without that relation (e = (e - W) + W > 0).

Precision is arb's default 53 bits (``flint.ctx.prec``, never changed here).
"""

from __future__ import annotations

import time

import mpmath
import sympy as sp

from . import Backend, Decision
from .interval import IV, Curve, branch_and_bound

__all__ = ["BallEncloser", "BALL", "BallBackend", "compile_ball", "FUNCTIONS", "arb_to_mpf"]


def _flint():
    import flint
    return flint


class _NotFinite(ArithmeticError):
    """arb gave a non-finite ball: the box is enclosed by extended intervals instead."""


def _arb_const(e):
    flint = _flint()
    if e.is_Integer:
        return flint.arb(int(e))
    if e.is_Rational:
        return flint.arb(flint.fmpq(int(e.p), int(e.q)))
    if e is sp.pi:
        return flint.arb.pi()
    if e is sp.E:
        return flint.arb.const_e()
    if e.is_Float:
        r = sp.Rational(e)
        return flint.arb(flint.fmpq(int(r.p), int(r.q)))
    return None


def _finite(r):
    if not r.is_finite():
        raise _NotFinite()
    return r


def _monotone(f):
    """An increasing function of one ball, by its values at the ball's two ends."""
    def g(x):
        if x.rad() == 0:
            return _finite(f(x))
        flint = _flint()
        return _finite(flint.arb.union(f(x.lower()), f(x.upper())))
    return g


# sympy function -> how to evaluate it on a ball (increasing functions by their ends)
FUNCTIONS = {
    sp.exp: _monotone(lambda x: x.exp()),
    sp.log: _monotone(lambda x: x.log()),
    sp.asinh: _monotone(lambda x: x.asinh()),
    sp.atan: _monotone(lambda x: x.atan()),
    sp.sinh: _monotone(lambda x: x.sinh()),
    sp.tanh: _monotone(lambda x: x.tanh()),
    sp.erf: _monotone(lambda x: x.erf()),
    sp.cosh: lambda x: _finite(x.cosh()),
    sp.sin: lambda x: _finite(x.sin()),
    sp.cos: lambda x: _finite(x.cos()),
}


def compile_ball(e, syms):
    """A function of a list of balls (in the order of `syms`) enclosing e, or None when e
    has a function arb is not asked to evaluate here.  Raises _NotFinite at run time."""
    index = {s: i for i, s in enumerate(syms)}
    try:
        return _compile(sp.sympify(e), index)
    except _Unsupported:
        return None


class _Unsupported(Exception):
    pass


def _compile(e, index):
    if e.is_Symbol:
        i = index.get(e)
        if i is None:
            raise _Unsupported(str(e))
        return lambda v: v[i]
    if e.is_number:
        c = _arb_const(e)
        if c is not None:
            return lambda v: c
        if e.is_Atom:
            raise _Unsupported(str(e))
    if isinstance(e, sp.Add):
        parts = [_compile(a, index) for a in e.args]

        def add(v):
            out = parts[0](v)
            for p in parts[1:]:
                out = out + p(v)
            return out
        return add
    if isinstance(e, sp.Mul):
        parts = [_compile(a, index) for a in e.args]

        def mul(v):
            out = parts[0](v)
            for p in parts[1:]:
                out = out * p(v)
            return out
        return mul
    if isinstance(e, sp.Pow):
        base, ex = _compile(e.base, index), e.exp
        if ex.is_Integer:
            n = int(ex)
            if n >= 0:
                return lambda v: base(v) ** n
            return lambda v: _finite(1 / (base(v) ** (-n)))
        if ex == sp.S.Half:
            sq = _monotone(lambda x: x.sqrt())
            return lambda v: sq(base(v))
        if ex == -sp.S.Half:
            sq = _monotone(lambda x: x.sqrt())
            return lambda v: _finite(1 / sq(base(v)))
        if ex.is_Rational:
            q = _arb_const(ex)
            lg = FUNCTIONS[sp.log]
            return lambda v: _finite((q * lg(base(v))).exp())
        power = _compile(ex, index)
        lg = FUNCTIONS[sp.log]
        return lambda v: _finite((power(v) * lg(base(v))).exp())
    f = FUNCTIONS.get(type(e))
    if f is not None and len(e.args) == 1:
        arg = _compile(e.args[0], index)
        return lambda v: f(arg(v))
    if isinstance(e, sp.Abs):
        arg = _compile(e.args[0], index)

        def ab(v):
            flint = _flint()
            x = arg(v)
            return flint.arb.union(x.abs_lower(), x.abs_upper())
        return ab
    if isinstance(e, (sp.Max, sp.Min)):
        parts = [_compile(a, index) for a in e.args]
        pick = "max" if isinstance(e, sp.Max) else "min"

        def mm(v):
            out = parts[0](v)
            for p in parts[1:]:
                out = getattr(out, pick)(p(v))
            return out
        return mm
    raise _Unsupported(type(e).__name__)


class _Ends:
    """An enclosure's two ends (exact arb points), compared like mpmath.iv's ``.a``/``.b``."""

    __slots__ = ("a", "b")

    def __init__(self, r):
        self.a, self.b = r.lower(), r.upper()


def _ball(lo, hi):
    flint = _flint()
    a = _exact(lo)
    return a if lo == hi else flint.arb.union(a, _exact(hi))


def _exact(x):
    flint = _flint()
    man, ex = mpmath.mpf(x).man_exp
    if ex >= 0:
        return flint.arb(int(man) * 2 ** int(ex))
    return flint.arb(flint.fmpq(int(man), 2 ** int(-ex)))


def arb_to_mpf(x):
    """An exact arb point (an enclosure's end) as an mpf, exactly."""
    if not x.is_finite():
        return mpmath.inf if x > 0 else -mpmath.inf
    man, ex = x.mid().man_exp()
    return mpmath.mpf((int(man), int(ex)))


class BallEncloser:
    """Enclosures in arb balls; mpmath's extended intervals where a ball cannot answer."""

    name = "arb"

    def __init__(self):
        self.compiled: dict = {}
        self.fallbacks = 0

    def enclose(self, e, bx: dict, strict: bool):
        syms = tuple(sorted(bx, key=str))
        if all(mpmath.isfinite(a) and mpmath.isfinite(b) for a, b in bx.values()):
            key = (e, syms)
            fn = self.compiled.get(key, False)
            if fn is False:
                if len(self.compiled) > 2048:
                    self.compiled.clear()
                fn = self.compiled[key] = compile_ball(e, syms)
            if fn is not None:
                try:
                    return _Ends(_finite(fn([_ball(*bx[s]) for s in syms])))
                except (_NotFinite, ZeroDivisionError, ValueError):
                    pass
        # an infinite side, a singular point on the box, or a function arb does not evaluate
        # here: mpmath's extended (strict: Undefined) enclosure
        self.fallbacks += 1
        return IV.enclose(e, bx, strict)


BALL = BallEncloser()


def _declines(goal):
    if goal.want == "zero" or goal.extra:
        return "equalities are not decided by enclosures"
    from .functions import info
    for node in sp.preorder_traversal(sp.sympify(goal.expr)):
        if node.is_Atom:
            continue
        fi = info(type(node))
        if fi is None or not fi.ball:
            return f"{type(node).__name__} has no ball enclosure here"
    return None


class BallBackend(Backend):
    """Branch-and-bound over arb balls, with the touching and where-relation reductions."""

    name = "ball"

    def declines(self, goal):
        return _declines(goal)

    def decide(self, goal, seconds, trace=None):
        """Plain branch-and-bound, else a where relation as a lower bound, else a touching
        curve.  Which of these decided the goal is recorded in the trace (a route name:
        "plain", "where <i>: touching <x> <k>", "touching <x> <k>"), and a replay runs only
        that route: the same boxes, the same curve (the k-th solution of e_x = 0), no search."""
        from .definedness import defined
        t0 = time.process_time()
        deadline = t0 + seconds
        e = sp.sympify(goal.expr)
        point = trace.point("ball route", e, goal.want, goal.domain.sets, goal.domain.where) \
            if trace is not None else None
        replay = trace.replay.get(point) if trace is not None and trace.replaying else None
        if trace is not None and trace.replaying and replay is None:
            return Decision("unknown", "ball: no route recorded in the certificate")
        ok = defined(e, goal.domain, seconds / 4)
        curve = getattr(goal, "curve", None)
        ans = None
        if replay in (None, "plain"):
            # without a curve, half the slice: the reductions below need the rest
            share = deadline - time.process_time()
            ans = branch_and_bound(e, goal.want, goal.domain, defined=ok, encloser=BALL, curve=curve,
                                   seconds=max(0.05, share if curve is not None or replay else share / 2))
            if ans.verdict != "undecided" or curve is not None or replay == "plain":
                if ans.verdict == "holds" and trace is not None:
                    trace.won(point, "plain")
                return _decision(ans, "" if ok else " (strict enclosures)")
        if deadline - time.process_time() > 0.2 or replay:
            more = _reductions(goal, e, deadline, replay)
            if more is not None:
                decision, route = more
                if trace is not None:
                    trace.won(point, route)
                return decision
        if ans is None:
            return Decision("unknown", f"ball: the recorded route {replay!r} did not decide the goal")
        return _decision(ans, "" if ok else " (strict enclosures)")


def _decision(ans, note="", how=""):
    if ans.verdict == "holds":
        return Decision("holds", f"ball branch-and-bound{how}: {ans.detail}{note}", boxes=ans.boxes, depth=ans.depth)
    if ans.verdict == "violated":
        return Decision("violated", "a box whose enclosure has the wrong sign", point=ans.point,
                        boxes=ans.boxes, depth=ans.depth)
    return Decision("unknown", f"ball: {ans.detail}", boxes=ans.boxes, depth=ans.depth)


def _reductions(goal, e, deadline, replay=None):
    """(Decision, route) by the where-relation bound or the touching curve (see the module
    docstring), or None.  `replay`: the one route to run."""
    from ..model.domain import Domain
    want = goal.want
    if want in ("negative", "nonpositive"):
        e, want = -e, "positive" if want == "negative" else "nonnegative"
    dom = goal.domain
    # e > 0 (>= 0) where W > 0 (W >= 0): e - W >= 0 suffices
    for i, w in enumerate(dom.where):
        if replay is not None and not replay.startswith(f"where {i}:"):
            continue
        if isinstance(w, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
            lower = w.lhs - w.rhs if isinstance(w, (sp.StrictGreaterThan, sp.GreaterThan)) else w.rhs - w.lhs
            strict_w = isinstance(w, (sp.StrictGreaterThan, sp.StrictLessThan))
            if want == "positive" and not strict_w:
                continue
            rest = Domain(dict(dom.sets), tuple(r for r in dom.where if r is not w))
            diff = e - lower
            if not diff.free_symbols or deadline - time.process_time() < 0.2:
                continue
            sub = _touching(diff, "nonnegative", rest, deadline, replay=replay.split(": ", 1)[1] if replay else None)
            if sub is not None and sub[0].verdict == "holds":
                return (Decision("holds", f"ball, the where relation {w} as a lower bound (e - ({lower}) >= 0): "
                                 + sub[0].detail, boxes=sub[0].boxes, depth=sub[0].depth), f"where {i}: {sub[1]}")
    if replay is not None and not replay.startswith("touching "):
        return None
    sub = _touching(e, want, dom, deadline, plain=False, replay=replay)
    return sub if sub is not None and sub[0].verdict == "holds" else None


def _touching(e, want, domain, deadline, plain=True, replay=None):
    """(Decision, route) for `e want` on the domain, if need be with an exact touching curve
    of e (route "touching <x> <k>": the k-th solution of e_x = 0), or None."""
    from ..model.domain import Domain
    from .definedness import defined
    from .symbolic import Facts, with_ends, zero_by
    from .timebox import TimeUp, time_limit
    ok = defined(e, domain, min(1.0, (deadline - time.process_time()) / 4))
    if plain and replay in (None, "plain"):
        ans = branch_and_bound(e, want, domain, seconds=max(0.05, (deadline - time.process_time()) / 3),
                               defined=ok, encloser=BALL)
        if ans.verdict != "undecided" or replay == "plain":
            return _decision(ans), "plain"
    if want != "nonnegative":
        return None
    # only the coordinates e depends on (and those its where relations name) are split
    keep = set(e.free_symbols) | {s for r in domain.where for s in sp.sympify(r).free_symbols}
    if set(domain.sets) - keep:
        domain = Domain({s: st for s, st in domain.sets.items() if s in keep}, domain.where)
    # solved and checked with the domain's assumptions (positive symbols, the intervals' ends
    # as facts): sqrt(1/(b^2 + 1)) is 1/sqrt(b^2 + 1) only for real b
    rep = domain.assumption_symbols()
    back = {v: k for k, v in rep.items()}
    facts = Facts.from_relations(with_ends(domain), rep)
    er = e.xreplace(rep)
    for x in sorted((s for s, st in domain.sets.items() if isinstance(st, sp.Interval) and e.has(s)), key=str):
        if replay is not None and not replay.startswith(f"touching {x} "):
            continue
        if deadline - time.process_time() < 0.3 and replay is None:
            return None
        xr = rep.get(x, x)
        box = None
        try:
            with time_limit(min(2.0, (deadline - time.process_time()) / 3)) as box:
                ex = sp.diff(er, xr)
                sols = sp.solve(ex, xr)
        except TimeUp as exc:
            if exc.box is not box:
                raise
            continue
        except Exception:  # noqa: BLE001 - sympy cannot solve it: no curve this way
            continue
        for k, v in enumerate(sols[:4]):
            if replay is not None and replay != f"touching {x} {k}":
                continue
            if v.has(xr) or v.is_real is False:
                continue
            if zero_by(er.xreplace({xr: v}), facts)[0] is None or zero_by(ex.xreplace({xr: v}), facts)[0] is None:
                continue
            v = v.xreplace(back)
            ans = branch_and_bound(e, want, domain, seconds=max(0.05, deadline - time.process_time()),
                                   defined=ok, encloser=BALL, curve=Curve(x, v, order=2))
            if ans.verdict == "holds":
                return (_decision(ans, how=f", touching at {x} = {v} (e = e_{x} = 0 there exactly)"),
                        f"touching {x} {k}")
    return None


BALL_BACKEND = BallBackend()
