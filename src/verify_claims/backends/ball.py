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

When the plain search stops undecided, the backend tries reductions that make tight and
conditional goals decidable (``decide``), each an equivalence or a sufficient condition:

- *probabilities by their logits*: e = A - B with A, B in (0, 1) (shown by sympy) has the
  sign of logit A - logit B, put in the exp/log normal form (Appendix B.2's F(p) > p is
  h(p) > 0);
- *a where relation as a lower bound*: for e > 0 under a ``where`` relation W > 0, it
  suffices that e - c W >= 0 without that relation, for c = 1 or a positive parameter
  (e = (e - c W) + c W > 0);
- *touching*: e is minimised exactly on a curve: for one variable x, e_x = 0 solved (as an
  exp-polynomial in w = exp(k x), else by sympy) gives x = v(rest), and e = e_x = 0 there
  exactly (sympy); then e_xx >= 0 at every point (sympy), or on every box containing the
  curve (order 2), gives e >= 0 -- and e > 0 off the curve where e_xx > 0, which is how a
  double root is shown to be the only one;
- *the logistic coordinate*: for x on (0, 1), the touching search again in u with
  x = 1/(1 + exp(-u)), where logit x = u and sqrt(x (1 - x)) = 1/(2 cosh(u/2)), so a curve
  running into a corner (x* -> 1 as beta -> oo) runs to infinity along u instead;
- *difference quotients* (tried first, where they apply): a denominator C(x, y) that
  vanishes on the diagonal y = x, on a domain a where relation keeps above it (Appendix
  B.2's beta(z_1, z_2) = (1/s_2 - 1/s_1)/(logit z_2 - logit z_1)): C's sign by boxes with the
  diagonal as an order-1 zero curve, then the numerator N = e C^k, whose double zero on the
  diagonal is an exact order-2 zero curve -- in the logistic coordinates of x and y when both
  lie in (0, 1) (N becomes a sum of exponentials there), else in x and y;
- *a slope split at a face* (for a goal with an order-1 zero curve t = a, a number, whose
  slope e_t holds such a quotient q): e has the sign of e_t (mean value theorem), and
  e_t = A + B q has the sign of E = +-(A/B + q) = [E - E(a)] + E(a): the first part is 0 on
  the face and free of q (its slope's sign, or boxes), the second free of t (the quotient
  route) -- the Cauchy mean value argument of Section 3's potential reading.

The route that decided a goal is recorded in the trace and a replay runs only that route.

Precision is arb's default 53 bits (``flint.ctx.prec``, never changed here).
"""

from __future__ import annotations

import time

import mpmath
import sympy as sp

from ..model.derivative import derivative
from . import Backend, Decision
from ..model.domain import Domain
from .interval import IV, Curve, box_declines, branch_and_bound

__all__ = ["BallEncloser", "BALL", "BallBackend", "compile_ball", "FUNCTIONS", "arb_to_mpf", "exact_ball"]


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


def power_of(x, n: int):
    """x**n for a ball x and an integer n >= 0.  python-flint's ``**`` goes through a real
    power, which is nan for a ball that contains 0 ((x - 1)**2 near x = 1): there the power
    is formed by products, of |x| for an even n, which enclose it as tightly."""
    r = x ** n
    if r.is_finite() or n < 2 or not x.is_finite():
        return r
    if n % 2:
        return x * power_of(x, n - 1)
    flint = _flint()
    base, out = flint.arb.union(x.abs_lower(), x.abs_upper()), None
    while n:
        if n & 1:
            out = base if out is None else out * base
        n >>= 1
        if n:
            base = base * base
    return out


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
    has a function arb is not asked to evaluate here.  Raises _NotFinite at run time.

    Compiled to Python source with one temporary per distinct subexpression, as the mpmath
    programs are (evaluate.py): the bundled paper's objectives repeat their terms, and a
    tree walked node by node evaluated each repetition again (the accuracy guard evaluates
    every rival of a maximiser).  The same arb operations in the same order: the balls are
    the ones the tree gave wherever it gave a finite one (power_of and real_power give balls
    where it gave none)."""
    try:
        return _BallGen(syms).program(sp.sympify(e))
    except _Unsupported:
        return None


class _Unsupported(Exception):
    pass


def _abs_ball(x):
    return _flint().arb.union(x.abs_lower(), x.abs_upper())


def _min_max(pick):
    def mm(first, *rest):
        out = first
        for r in rest:
            out = getattr(out, pick)(r)
        return out
    return mm


_SQRT = _monotone(lambda x: x.sqrt())


def real_power(b, e):
    """b**e for a real exponent ball e (not an integer constant), as exp(e log b): a base
    that is not certainly positive has no such ball.  Except where the power is defined at
    every precision and that formula is not: an exponent that is exactly an integer ((-1)**n
    at n = 3), and a base of exactly 0, which the sampler draws at a closed end (x**(3/2),
    x**x at x = 0; 0**e is 0 for e > 0 and 1 for e = 0, as in mpmath)."""
    if b > 0:
        return _finite((e * FUNCTIONS[sp.log](b)).exp())
    if e.is_integer():  # exactly an integer, as (-1)**n at an integer n: a product, any base
        man, exp = e.mid().man_exp()
        n = int(man) << int(exp) if exp >= 0 else int(man) >> -int(exp)
        return power_of(b, n) if n >= 0 else _finite(1 / power_of(b, -n))
    if b == 0 and e.is_finite():  # an arb equality holds only for the exact point
        if e > 0:
            return _flint().arb(0)
        if e == 0:
            return _flint().arb(1)
    raise _NotFinite()


def _nonnegative_part(b):
    """For a ball b enclosing a value known to be >= 0 by the expression's form (Max(0, t),
    |t|, t^2): b's end above 0, or None when b lies wholly at or above 0 (nothing to cut).
    The cut is sound because every value b stands for that the expression can take is >= 0;
    arb's own max(0, t) and |t| of a ball around 0 reach just below 0 (a radius rounded up),
    where a square root or a real power is nan at every precision."""
    if b >= 0:
        return None
    if not b.is_finite() or b.upper() < 0:
        raise _NotFinite()  # a ball wholly below 0 for a value >= 0: arb lost it, no enclosure
    return b.upper()


def sqrt_nonnegative(b):
    """sqrt(b) for a base known >= 0 (see _nonnegative_part): [0, sqrt(upper end)] where b
    reaches below 0."""
    hi = _nonnegative_part(b)
    if hi is None:
        return _SQRT(b)
    return _finite(_flint().arb.union(_flint().arb(0), hi.sqrt()))


def power_nonnegative(b, e):
    """b**e for a base known >= 0 and a real exponent (see _nonnegative_part): for e > 0,
    v**e lies between 0 and hi**e for every v in [0, hi] (increasing in v), at every e of its
    ball; an exponent not certainly above 0 has no such bound near a base of 0."""
    hi = _nonnegative_part(b)
    if hi is None:
        return real_power(b, e)
    if not e > 0:
        raise _NotFinite()
    flint = _flint()
    top = real_power(hi, e) if hi > 0 else flint.arb(0)
    return _finite(flint.arb.union(flint.arb(0), top))


def nonnegative_form(e) -> bool:
    """Is e >= 0 at every real point by its form alone (not by what its symbols are
    assumed to be): Max with a nonnegative argument, Min, sums and products of nonnegative
    parts, |t|, even powers, exp, sqrt, nonnegative numbers."""
    if e.is_number:
        return bool(e.is_real and e.is_nonnegative)
    if isinstance(e, sp.Abs):
        return True
    if isinstance(e, sp.Max):
        return any(nonnegative_form(a) for a in e.args)
    if isinstance(e, (sp.Min, sp.Add, sp.Mul)):
        return all(nonnegative_form(a) for a in e.args)
    if isinstance(e, sp.exp):
        return True
    if isinstance(e, sp.Pow):
        ex = e.exp
        if ex.is_Integer and int(ex) % 2 == 0:
            return True
        return nonnegative_form(e.base)
    return False


_HELPERS = {"P": power_of, "FIN": _finite, "SQ": _SQRT, "RP": real_power, "AB": _abs_ball,
            "SQN": sqrt_nonnegative, "RPN": power_nonnegative,
            "MAX": _min_max("max"), "MIN": _min_max("min")}


class _BallGen:
    """Post-order generation of a ball program: ``def f(v)`` over the list of balls v."""

    def __init__(self, syms):
        self.index = {s: i for i, s in enumerate(syms)}
        self.consts: list = []
        self.const_names: dict = {}
        self.funcs: list = []
        self.lines: list = []
        self.temps: dict = {}

    def program(self, root):
        out = self.eager(root)
        if not self.lines:  # a symbol or a constant: no code to generate (bernstein asks per constant)
            if out.startswith("C["):
                c = self.consts[-1]
                return lambda v: c
            i = self.index[root]
            return lambda v: v[i]
        src = "def f(v):\n" + "".join(f"    {ln}\n" for ln in self.lines) + f"    return {out}\n"
        ns = {"C": self.consts, "F": self.funcs, **_HELPERS}
        try:
            exec(compile(src, "<verify_claims:ball>", "exec"), ns)
        except (RecursionError, SyntaxError, MemoryError) as exc:
            raise _Unsupported(f"too large to compile: {type(exc).__name__}") from exc
        return ns["f"]

    def leaf(self, e):
        """Code of e if it is a symbol or a constant arb makes; None for a composite node."""
        if e.is_Symbol:
            i = self.index.get(e)
            if i is None:
                raise _Unsupported(str(e))
            return f"v[{i}]"
        if e.is_number:
            if e in self.const_names:
                return self.const_names[e]
            c = _arb_const(e)
            if c is not None:
                self.consts.append(c)
                name = self.const_names[e] = f"C[{len(self.consts) - 1}]"
                return name
            if e.is_Atom:
                raise _Unsupported(str(e))
        return None

    def eager(self, root) -> str:
        got = self.leaf(root)
        if got is not None:
            return got
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if e in self.temps or self.leaf(e) is not None:
                continue
            kids = self.children(e)
            if not ready:
                stack.append((e, True))
                stack.extend((k, False) for k in kids if k not in self.temps and self.leaf(k) is None)
                continue
            parts = [self.temps.get(k) or self.leaf(k) for k in kids]
            name = f"t{len(self.temps)}"
            self.lines.append(f"{name} = {self.node(e, parts)}")
            self.temps[e] = name
        return self.temps[root]

    def children(self, e) -> tuple:
        if isinstance(e, sp.Pow):
            ex = e.exp
            if ex.is_Integer or ex in (sp.S.Half, -sp.S.Half):
                return (e.base,)
            if ex.is_Rational:
                return (e.base, ex)
            return (e.base, ex)
        if isinstance(e, (sp.Add, sp.Mul, sp.Max, sp.Min)):
            return e.args
        if (FUNCTIONS.get(type(e)) is not None and len(e.args) == 1) or isinstance(e, sp.Abs):
            return e.args
        raise _Unsupported(type(e).__name__)

    def node(self, e, parts) -> str:
        if isinstance(e, sp.Add):
            return " + ".join(parts)
        if isinstance(e, sp.Mul):
            return " * ".join(parts)
        if isinstance(e, sp.Pow):
            ex, b = e.exp, parts[0]
            if ex.is_Integer:
                n = int(ex)
                return f"P({b}, {n})" if n >= 0 else f"FIN(1 / P({b}, {-n}))"
            # a base >= 0 by its form (Max(0, t)**(3/2)) is cut at 0 where its ball reaches
            # below it: otherwise such a power has no finite ball at any digits near 0
            sq, rp = ("SQN", "RPN") if nonnegative_form(e.base) else ("SQ", "RP")
            if ex == sp.S.Half:
                return f"{sq}({b})"
            if ex == -sp.S.Half:
                return f"FIN(1 / {sq}({b}))"
            return f"{rp}({b}, {parts[1]})"
        if isinstance(e, sp.Abs):
            return f"AB({parts[0]})"
        if isinstance(e, (sp.Max, sp.Min)):
            return ("MAX(" if isinstance(e, sp.Max) else "MIN(") + ", ".join(parts) + ")"
        self.funcs.append(FUNCTIONS[type(e)])
        return f"F[{len(self.funcs) - 1}]({parts[0]})"


class _Ends:
    """An enclosure's two ends (exact arb points), compared like mpmath.iv's ``.a``/``.b``."""

    __slots__ = ("a", "b")

    def __init__(self, r):
        self.a, self.b = r.lower(), r.upper()


def _ball(lo, hi):
    flint = _flint()
    a = exact_ball(lo)
    return a if lo == hi else flint.arb.union(a, exact_ball(hi))


def exact_ball(x):
    """An mpf (or a number mpmath takes) as an arb ball: exact for a binary fraction, as
    every mpf is."""
    flint = _flint()
    if isinstance(x, int):
        return flint.arb(x)  # exact at any size (mpf(x) would round it to mpmath's precision)
    raw = (x if isinstance(x, mpmath.mpf) else mpmath.mpf(x))._mpf_
    sign, man, exp, _ = raw
    if not man and raw != mpmath.libmp.fzero:
        raise ValueError(f"no ball for {x}: not a finite number")
    if man:
        # a binary fraction made exactly from its mantissa and exponent (an arf is exact, and
        # so is the arb made from it); with its sign, which mpf.man_exp drops
        return flint.arb(flint.arf((-man if sign else man, exp)))
    p, q = mpmath.libmp.to_rational(raw)
    p, q = int(p), int(q)
    if q & (q - 1) == 0:
        return flint.arb(p) / q  # a dyadic rational: exact (q a power of two)
    return flint.arb(flint.fmpq(p, q))  # an enclosure


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


# a sign goal for -e, or for e on the other side of a face
_FLIP = {"positive": "negative", "negative": "positive", "nonnegative": "nonpositive", "nonpositive": "nonnegative"}


class BallBackend(Backend):
    """Branch-and-bound over arb balls, with the touching and where-relation reductions."""

    name = "ball"

    def declines(self, goal):
        return box_declines(goal, "ball", "no ball enclosure here")

    def decide(self, goal, seconds, trace=None):
        """A difference quotient's numerator first (where one applies), then plain
        branch-and-bound, else a where relation as a lower bound, else a touching curve.
        Which of these decided the goal is recorded in the trace (a route name: "quotient <i>:
        logistic curve <x>", "plain", "where <i>: touching <x> <k>", "touching <x> <k>"), and a replay runs only
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
        goal = _without_redundant_relations(goal)
        curve = getattr(goal, "curve", None)
        if getattr(goal, "off_curve", None) is not None:
            return self._off_curve(goal, e, deadline, replay, trace, point)
        ans = None
        # routes tried before plain boxes where they apply, because boxes cannot decide their
        # goals: a difference quotient (boxes run out where its denominator is small), and an
        # order-1 face whose slope holds one (the same, one derivative down: see _slope_face)
        early = (("quotient ", curve is None,
                  lambda: _difference_quotient(goal, e, deadline - (deadline - time.process_time()) / 3, replay)),
                 ("slope ", curve is not None,
                  lambda: _slope_face(goal, e, curve, deadline - (deadline - time.process_time()) / 6, replay, trace)))
        for prefix, applies, attempt in early:
            if not applies or replay is not None and not replay.startswith(prefix):
                continue
            more = attempt()
            if more is not None:
                decision, route = more
                if trace is not None:
                    trace.won(point, route)
                return decision
            if replay is not None:
                return Decision("unknown", f"ball: the recorded route {replay!r} did not decide the goal")
        ok = defined(e, goal.domain, seconds / 4)
        if replay in (None, "plain"):
            # without a curve, a third of the slice: the reductions below need the rest (the
            # logit comparison of two sigmoids takes 0.01 s where boxes run out of precision)
            share = deadline - time.process_time()
            ans = branch_and_bound(e, goal.want, goal.domain, defined=ok, encloser=BALL, curve=curve,
                                   seconds=max(0.05, share if curve is not None or replay else share / 3))
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


    def _off_curve(self, goal, e, deadline, replay, trace, point):
        """A goal "e > 0 (< 0) except on one curve where e touches 0": only a touching curve
        with a strictly signed second derivative around it decides it."""
        if goal.want in ("negative", "nonpositive"):
            e = -e
        # only a curve in the goal's own variable says "one root in it" (a curve b = w(x) in
        # a parameter would not)
        sub = _touching(e, "positive", goal.domain, deadline, plain=False, replay=replay, off_curve=True,
                        only=goal.off_curve)
        if sub is None or sub[0].verdict != "holds":
            return Decision("unknown", "ball: no exact touching curve with a strict second derivative found")
        if trace is not None:
            trace.won(point, sub[1])
        return sub[0]


def _without_redundant_relations(goal):
    """The goal without `where` relations its intervals already imply (x < 1 for x in (0, 1),
    which route A adds for a maximiser at 1): such a relation would keep a curve's variable
    from counting as free."""
    from dataclasses import replace

    from ..model.domain import Domain
    keep = []
    for w in goal.domain.where:
        w = sp.sympify(w)
        st = goal.domain.sets.get(w.lhs) if isinstance(w, sp.core.relational.Relational) else None
        if isinstance(st, sp.Interval) and w.rhs.is_number:
            implied = {sp.StrictLessThan: st.sup < w.rhs or st.sup == w.rhs and st.right_open,
                       sp.LessThan: st.sup <= w.rhs,
                       sp.StrictGreaterThan: st.inf > w.rhs or st.inf == w.rhs and st.left_open,
                       sp.GreaterThan: st.inf >= w.rhs}.get(type(w))
            if implied is True or implied is sp.true:
                continue
        keep.append(w)
    if len(keep) == len(goal.domain.where):
        return goal
    return replace(goal, domain=Domain(dict(goal.domain.sets), tuple(keep)))


def _above_diagonal(domain, x, y) -> bool:
    """Every domain point has y > x: a `where` relation y - x >= c with c > 0, or y - x > c
    with c >= 0 (read off exactly: (lhs - rhs) - (y - x) is a constant)."""
    for w in domain.where:
        w = sp.sympify(w)
        if isinstance(w, (sp.GreaterThan, sp.StrictGreaterThan)):
            d = w.lhs - w.rhs
        elif isinstance(w, (sp.LessThan, sp.StrictLessThan)):
            d = w.rhs - w.lhs
        else:
            continue
        c = sp.expand(-(d - (y - x)))
        if not c.is_number or not c.is_real:
            continue
        strict = isinstance(w, (sp.StrictGreaterThan, sp.StrictLessThan))
        if bool(c > 0) or strict and bool(c >= 0):
            return True
    return False


def _quotient_candidates(e, domain):
    """[(C, k, x, y)]: a denominator factor C**-k (k >= 1) of a term of e that depends on two
    coordinates x, y of the domain with y > x at every domain point (``_above_diagonal``),
    in a fixed order (a certificate names one by its index)."""
    coords = [s for s in sorted(domain.sets, key=str) if isinstance(domain.sets[s], sp.Interval)]
    found = {}
    for t in sp.Add.make_args(e):
        for f in sp.Mul.make_args(t):
            if isinstance(f, sp.Pow) and f.exp.is_Integer and f.exp < 0 and isinstance(f.base, sp.Add):
                c = f.base
                found[c] = max(found.get(c, 0), int(-f.exp))
    out = []
    for c in sp.ordered(found):
        syms = [s for s in coords if c.has(s)]
        if len(syms) != 2 or c.free_symbols - set(syms):
            continue
        for x, y in (tuple(syms), tuple(reversed(syms))):
            if _above_diagonal(domain, x, y):
                out.append((c, found[c], x, y))
    return out


def _difference_quotient(goal, e, deadline, replay=None):
    """A quotient whose denominator C(x, y) vanishes on the diagonal y = x of two coordinates
    (a difference G(y) - G(x): Appendix B.2's beta(z_1, z_2) = (1/s_2 - 1/s_1)/(logit z_2 -
    logit z_1)), on a domain that lies on one side of the diagonal (a `where` relation
    y - x >= c > 0).  Boxes cannot decide such a goal near the diagonal (numerator and
    denominator are both small, and their enclosures are not), so:

    1. C = 0 on the diagonal exactly (sympy), and C has a strict sign on the domain, by boxes
       with the diagonal as an exact zero curve of order 1 (C(y) = the integral of C_y from
       x to y: the sign of C_y on the box widened to the diagonal decides it);
    2. then e has the sign of N = e * C**k (C**k's sign known; the product formed by sympy's
       exact power arithmetic, which cancels C's powers), and N has no small denominator.
       Where N and N_y both vanish on the diagonal (sympy, exactly) -- a difference
       quotient of a function against its derivative, as here -- the diagonal is an order-2
       zero curve of N: N_yy of a strict sign on a box widened to the diagonal decides it
       (N = 0 only on the diagonal, which the domain excludes).

    Route "quotient <i>: curve <v>" or "quotient <i>: plain" (i: the candidate's index, v:
    the curve's variable); None when this does not apply or does not decide."""
    from .symbolic import Facts, with_ends, zero_by
    want = goal.want
    if want not in ("positive", "nonnegative", "negative", "nonpositive"):
        return None
    dom = goal.domain
    cands = _quotient_candidates(e, dom)
    if not cands:
        return None
    rep = dom.assumption_symbols()
    facts = Facts.from_relations(with_ends(dom), rep)
    for i, (c, k, x, y) in enumerate(cands):
        tag = f"quotient {i}:"
        if replay is not None and not replay.startswith(tag):
            continue
        if deadline - time.process_time() < 0.2:
            return None
        cr = c.xreplace(rep)
        if zero_by(cr.xreplace({rep.get(y, y): rep.get(x, x)}), facts)[0] is None:
            continue
        sign = _quotient_sign(c, dom, x, y, deadline)
        if sign is None:
            continue
        n = sp.Add(*[t * c ** k for t in sp.Add.make_args(e)])
        if any(isinstance(f, sp.Pow) and f.base == c for t in sp.Add.make_args(n) for f in sp.Mul.make_args(t)):
            continue  # C not cancelled everywhere
        nwant = want if sign == "positive" or k % 2 == 0 else _FLIP[want]
        ok = False  # strict enclosures: N has no pole left where boxes need it
        nr = n.xreplace(rep)
        # the curve's variable: first the one the terms without C do not depend on (e = A(x) -
        # B/C: N = A C - B is then a difference in that variable against a fixed point)
        rest = [t for t in sp.Add.make_args(e) if not t.has(c)]
        pairs = sorted(((y, x), (x, y)), key=lambda p: any(t.has(p[0]) for t in rest))
        if replay is None or replay.startswith(f"{tag} logistic "):
            sub = _quotient_logistic(n, nwant, dom, x, y, pairs, deadline, replay, tag)
            if sub is not None:
                ans, route, v, val = sub
                dec = _decision(ans, how=f", of the numerator N = e * ({c})**{k} ({c} {sign}: it vanishes on "
                                          f"{y} = {x} only), with {x}, {y} = 1/(1 + exp(-u)) (u real: the "
                                          f"logistic coordinates) and N = N_{v} = 0 on {v} = {val} exactly")
                return dec, route
        for v, val in pairs:
            route = f"{tag} curve {v}"
            if replay is not None and replay != route:
                continue
            vr, valr = rep.get(v, v), rep.get(val, val)
            if zero_by(nr.xreplace({vr: valr}), facts)[0] is None or \
                    zero_by(derivative(nr, vr).xreplace({vr: valr}), facts)[0] is None:
                continue
            # N = N_v = 0 on the diagonal; N = 0 nowhere else once N_vv is strictly signed
            share = deadline - time.process_time()
            ans = branch_and_bound(n, nwant, dom, encloser=BALL, defined=ok,
                                   seconds=max(0.05, share if replay or v is pairs[-1][0] else 2 * share / 3),
                                   curve=Curve(v, val, order=2, strict_off_curve=True))
            if ans.verdict == "holds":
                dec = _decision(ans, how=f", of the numerator N = e * ({c})**{k} ({c} {sign}: it vanishes on "
                                          f"{y} = {x} only), with N = N_{v} = 0 on {v} = {val} exactly")
                return dec, route
        if replay in (None, f"{tag} plain"):
            ans = branch_and_bound(n, nwant, dom, encloser=BALL, defined=ok,
                                   seconds=max(0.05, deadline - time.process_time()))
            if ans.verdict == "holds":
                return _decision(ans, how=f", of the numerator N = e * ({c})**{k} ({c} {sign})"), f"{tag} plain"
    return None


def _slope_face(goal, e, curve, deadline, replay=None, trace=None):
    """e vanishes exactly on the face t = a of t's interval (an order-1 zero curve with a
    numeric value: a Monotonic claim's derivative at an end where it is 0, Appendix B.2's
    Phi' = beta h at the upper zero z_2 of h).  By the mean value theorem e(t) = e(a) +
    (t - a) e_t(xi) = (t - a) e_t(xi), xi between a and t, so e has the goal's sign at every
    point on that side when e is continuous up to the face (e defined there) and e_t has
    the sign at every point of the domain.  The slope e_t is then split at the same face
    against the difference quotient it holds (``_face_split``).  Route "slope <t>: <route>";
    None when this does not apply or does not decide."""
    from ..model.domain import Domain
    from .definedness import defined
    t, a = curve.var, sp.sympify(curve.value)
    want = goal.want
    if curve.order != 1 or not (a.is_number and a.is_finite) or want not in _FLIP:
        return None
    if replay is not None and not replay.startswith(f"slope {t}: "):
        return None
    st = goal.domain.sets.get(t)
    if not isinstance(st, sp.Interval) or a not in (st.start, st.end) or \
            any(sp.sympify(w).has(t) for w in goal.domain.where):
        return None
    if want in ("positive", "negative") and not (st.left_open if a == st.start else st.right_open):
        return None  # e(a) = 0: a strict goal holds only off the face
    try:
        et = derivative(e, t)
    except Exception:  # noqa: BLE001 - no slope: not this way
        return None
    if not _quotient_candidates(et, goal.domain):
        return None  # no difference quotient in the slope: the plain boxes' order-1 curve is the route
    # the slope's sign gives e's on the side of the face where the goal lives: t > a at the
    # lower end, t < a at the upper one (there e(t) = -(a - t) e_t(xi))
    slope_want = want if a == st.start else _FLIP[want]
    e0, et0 = e, et
    if want in ("negative", "nonpositive"):
        e, et, want = -e, -et, _FLIP[want]
    swant = want if a == st.start else _FLIP[want]
    dom_closed = Domain({**goal.domain.sets, t: _closed_at(st, a)}, goal.domain.where)
    if not defined(e, dom_closed, min(4.0, max(0.1, (deadline - time.process_time()) / 2)), trace,
                   at=f"defined up to {t} = {a}"):
        return None  # not shown continuous up to the face
    sub = _face_split(et, swant, goal.domain, t, a, deadline, replay.split(": ", 1)[1] if replay else None)
    if sub is None:
        return None
    dec, route = sub
    shown = "it" if et is et0 else f"-({et0}) (the goal negated)"
    return (Decision("holds", f"ball: e = {e0} is 0 at {t} = {a} exactly and defined up to it, so e({t}) = "
                     f"({t} - {a}) e_{t}(xi) for some xi between (mean value theorem), and its slope e_{t} = {et0} is "
                     f"{slope_want}; shown for {shown}: {dec.detail}",
                     boxes=dec.boxes, depth=dec.depth), f"slope {t}: {route}")


def _closed_at(st, a):
    """The interval st with its end a (a face) included: the mean value step needs the
    expression continuous up to it."""
    return sp.Interval(st.start, st.end, a != st.start and st.left_open, a != st.end and st.right_open)


def _face_split(f, want, dom, t, a, deadline, replay=None):
    """f want (positive or nonnegative, or their negatives) where f = A + B q holds a
    difference quotient q free of t (the t-free factors of the terms with a denominator C
    of ``_quotient_candidates``; Appendix B.2's slope of Phi' is (1 - z_2)^2/(x (1 - x)) (u(x)
    - beta) with x = z_2 + t (1 - z_2), u(x) = (2x - 1)/(2 sqrt(x (1 - x))), q = -beta) and a
    cofactor B of one strict sign (sympy, else boxes).  With r = A/B and s the sign of B, f
    has the sign of E = s (r + q), and E = s (r - r|_{t=a}) + s (r|_{t=a} + q):

    1. the first part is 0 on the face t = a exactly and is shown of the weak sign by boxes
       with the face as an order-1 zero curve (q is gone from it: u(x) - u(z_2) >= 0);
    2. the second part is free of t and is shown of the goal's sign by the difference
       quotient route (u(z_2) - beta > 0: the Cauchy mean value theorem in the logistic
       coordinates).

    Route "face <i>: <quotient route>" (i: the candidate's index); None when this does not
    apply or does not decide."""
    from ..model.domain import Domain
    from ..engine.goals import Goal
    if want in ("negative", "nonpositive"):
        f, want = -f, _FLIP[want]
    st = dom.sets[t]
    rest = Domain({s_: v for s_, v in dom.sets.items() if s_ != t}, dom.where)
    rep = dom.assumption_symbols()
    for i, (c, _k, _x, _y) in enumerate(_quotient_candidates(f, dom)):
        tag = f"face {i}:"
        if replay is not None and not replay.startswith(tag):
            continue
        if deadline - time.process_time() < 0.2:
            return None
        qs, bs, others = set(), [], []
        for term in sp.Add.make_args(f):
            if not term.has(c):
                others.append(term)
                continue
            coeff, rest_term = term.as_coeff_Mul()
            factors = sp.Mul.make_args(rest_term)
            qs.add(sp.Mul(*[g for g in factors if not g.has(t)]))
            bs.append(coeff * sp.Mul(*[g for g in factors if g.has(t)]))
        if len(qs) != 1 or not others:
            continue  # no single quotient factor q to split off
        q = qs.pop()
        if not q.has(c) or q.has(t):
            continue
        b, A = sp.Add(*bs), sp.Add(*others)
        if b == 0:
            continue
        bsign = next((w for w in ("positive", "negative") if _exact_sign(b, w, dom, deadline)), None)
        if bsign is None:
            for w in ("positive", "negative"):
                if branch_and_bound(b, w, dom, encloser=BALL,
                                    seconds=max(0.05, (deadline - time.process_time()) / 8)).verdict == "holds":
                    bsign = w
                    break
        if bsign is None:
            continue
        sgn = 1 if bsign == "positive" else -1
        try:
            r = _cancelled(A / b, rep, deadline)
            r_a = r.xreplace({t: a})
        except Exception:  # noqa: BLE001 - no value on the face: not this way
            continue
        if r_a.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            continue
        part = sgn * (r - r_a)
        if replay is None:
            # the t-part first: cheap, and without it the quotient part is not worth its time
            p_how = _face_part(part, t, a, st, dom, deadline)
            if p_how is None:
                continue
        face = sgn * (r_a + q)
        sub = _difference_quotient(Goal(face, want, rest, f"at {t} = {a}"), face, deadline,
                                   replay.split(": ", 1)[1] if replay else None)
        if sub is None:
            continue
        qdec, qroute = sub
        if replay is not None:
            # the t-part after the quotient part on replay: the same two facts, in the order
            # that lets a replay stop at the first one that fails
            p_how = _face_part(part, t, a, st, dom, deadline)
            if p_how is None:
                return None
        p_detail, p_boxes, p_depth = p_how
        how = (f"{f} = A + B q with q = {q} free of {t} and B = {b} {bsign}, so it has the sign of "
               f"E = {'' if sgn == 1 else '-'}(A/B + q) = P + Q: P = E - E|_{{{t}={a}}} = {part} >= 0 "
               f"({p_detail}), and Q = E|_{{{t}={a}}} {want}: {qdec.detail}")
        return Decision("holds", how, boxes=p_boxes + (qdec.boxes or 0),
                        depth=max(p_depth, qdec.depth or 0)), f"{tag} {qroute}"
    return None


def _face_part(part, t, a, st, dom, deadline):
    """part >= 0 on the domain, where part = 0 on the face t = a exactly: part(t) is the
    integral of part_t from a, so part_t >= 0 (on the side t > a; <= 0 on t < a) decides it
    -- first exactly (z3, else sympy) on part_t in its lowest terms, over part's own
    variables, then by boxes with the face as an order-1 zero curve.  (detail, boxes,
    depth) or None."""
    from ..model.domain import Domain
    from .definedness import defined
    lower = a == st.start
    own = _own_domain(part, dom)
    if own.sets.get(t) is None:
        return None
    try:
        slope = _cancelled(derivative(part, t), own.assumption_symbols(), deadline)
    except Exception:  # noqa: BLE001 - no slope: the boxes alone
        slope = None
    # part(t) = part(a) + (t - a) part_t(xi) needs part continuous up to the face: defined there
    if slope is not None and defined(part, Domain({**own.sets, t: _closed_at(st, a)}, own.where),
                                     min(1.0, max(0.1, (deadline - time.process_time()) / 6))) \
            and _exact_sign(slope, "nonnegative" if lower else "nonpositive", own, deadline):
        return (f"0 at {t} = {a} and defined up to it, and its slope {slope} is {'>=' if lower else '<='} 0 "
                "(exactly)", 0, 0)
    ans = branch_and_bound(part, "nonnegative", own, encloser=BALL,
                           seconds=max(0.05, (deadline - time.process_time()) / 3),
                           curve=Curve(t, a, order=1, side="right" if lower else "left"))
    if ans.verdict != "holds":
        return None
    return (f"by boxes with {t} = {a} as an exact zero curve of order 1: {ans.detail}", ans.boxes or 0,
            ans.depth or 0)


def _own_domain(e, dom):
    """The domain of e's own variables, with only the where relations among them: fewer
    hypotheses (still sound for a sign of e), and no splitting or search over variables e
    does not have."""
    from ..model.domain import Domain
    syms = e.free_symbols
    return Domain({s_: v for s_, v in dom.sets.items() if s_ in syms},
                  tuple(w for w in dom.where if sp.sympify(w).free_symbols <= syms))


def _exact_sign(e, want, dom, deadline) -> bool:
    """e's sign on the domain (of e's own variables) shown exactly: z3 where it can state e
    (0.05 s on an algebraic expression of two variables), else sympy's sign analysis."""
    from . import smt
    from .functions import smt_declines
    from .symbolic import Facts, _timeboxed, prove_sign, with_ends
    own = _own_domain(e, dom)
    seconds = min(2.0, max(0.1, (deadline - time.process_time()) / 6))
    if smt.available() and not smt_declines(e):
        if smt.check_goal(e, want, own, seconds).verdict == "unsat":
            return True
    rep = own.assumption_symbols()
    return bool(_timeboxed(lambda: prove_sign(e.xreplace(rep), want, Facts.from_relations(with_ends(own), rep)),
                           seconds))


def _cancelled(e, rep, deadline):
    """e as one fraction with its common factors cancelled (sympy's together, cancel, factor
    under the domain's assumptions: identities), which keeps boxes from enclosing 0/0 where
    numerator and denominator vanish together; e itself when that does not finish."""
    from .symbolic import _timeboxed
    out = _timeboxed(lambda: sp.factor(sp.cancel(sp.together(e.xreplace(rep)))).xreplace({v: k for k, v in rep.items()}),
                     min(1.0, max(0.1, (deadline - time.process_time()) / 8)))
    return e if out is None else out


def _quotient_sign(c, dom, x, y, deadline):
    """C's sign ("positive" or "negative") on a domain where y > x, C = 0 on the diagonal: by
    boxes with the diagonal as an exact zero curve of order 1 (C(y) is the integral of C_y
    from x to y), first in the logistic coordinates of x and y when both lie in (0, 1) -- a
    difference of logits is u_y - u_x there, while in x, y its derivative 1/(y (1 - y)) is
    unbounded at the corner (1, 1) of the open square (Appendix B.2's beta over all pairs of
    zeros) -- then in x and y.  None when neither decides it."""
    from .symbolic import zero_by
    sub = _to_logistic(c, dom, x, y, deadline)
    tries = []
    if sub is not None:
        cu, udom, us = sub
        # the diagonal is a zero curve of C_u too (simplify keeps identities; shown again)
        if zero_by(cu.xreplace({us[y]: us[x]}))[0] is not None:
            tries.append((cu, udom, Curve(us[y], us[x], order=1, side="right")))
    tries.append((c, dom, Curve(y, x, order=1, side="right")))
    for expr, d, curve in tries:
        for cw in ("positive", "negative"):
            ans = branch_and_bound(expr, cw, d, encloser=BALL, curve=curve,
                                   seconds=max(0.05, (deadline - time.process_time()) / 8))
            if ans.verdict == "holds":
                return cw
    return None


def _to_logistic(n, dom, x, y, deadline):
    """n with x = 1/(1 + exp(-u_x)), y = 1/(1 + exp(-u_y)) (both coordinates in (0, 1)),
    rewritten by identities for real u (logit x is u_x, sqrt(x (1 - x)) is 1/(2 cosh(u_x/2))),
    over the u-domain (its ends rounded outward, so a superset) with the where relations
    substituted: (n_u, u-domain, {x: u_x, y: u_y}), or None when that does not apply or does
    not finish in its slice.

    The rewrite goes through w = exp(u/2) > 0, x = w^2/(1 + w^2), 1 - x = 1/(1 + w^2): every
    base of a root and every log argument is a rational function of the w, which factor
    splits into positive factors (sqrt(x (1 - x)) = w/(1 + w^2)) and expand_log, without
    force, only where they are positive (log(x/(1 - x)) = 2 log w = u).  sympy's simplify
    finds the same form eight times slower, and half of a slice is a margin a machine twice
    as slow used up (Appendix B.2's potential came out checked under load)."""
    from ..model.domain import Domain
    from .symbolic import _timeboxed
    iu = {s: _logit_interval(dom.sets[s]) for s in (x, y)}
    if any(v is None for v in iu.values()):
        return None
    us = {s: sp.Symbol(f"u_{s}", real=True) for s in (x, y)}
    sig = {s: 1 / (1 + sp.exp(-us[s])) for s in (x, y)}
    rep = dom.assumption_symbols()
    back = {v: k for k, v in rep.items()}

    def rewrite():
        ws = {s: sp.Dummy(f"w_{s}", positive=True) for s in (x, y)}
        e = n.xreplace(rep).xreplace({rep.get(s, s): ws[s] ** 2 / (1 + ws[s] ** 2) for s in (x, y)})
        e = e.replace(lambda a: a.is_Pow and not a.exp.is_Integer,
                      lambda a: sp.factor(sp.cancel(a.base)) ** a.exp)
        e = e.replace(lambda a: isinstance(a, sp.log), lambda a: sp.expand_log(sp.log(sp.factor(sp.cancel(a.args[0])))))
        e = sp.expand(sp.cancel(sp.together(e.xreplace({sp.log(ws[s]): us[s] / 2 for s in (x, y)}))))
        return e.xreplace({ws[s]: sp.exp(us[s] / 2) for s in (x, y)}).xreplace(back)

    nu = _timeboxed(rewrite, min(2.0, max(0.1, (deadline - time.process_time()) / 4)))
    if nu is None or nu.has(x) or nu.has(y):
        return None
    sets = {s: st for s, st in dom.sets.items() if s not in (x, y)}
    sets.update({us[s]: iu[s] for s in (x, y)})
    return nu, Domain(sets, tuple(sp.sympify(w).xreplace(sig) for w in dom.where)), us


def _logit_interval(st):
    """The interval of u = logit x for x in `st` (inside [0, 1]), its irrational ends rounded
    outward to rationals and then closed (a superset: every x of st has its u in it); an open
    end 0 or 1 is -oo or +oo.  None when st is not such an interval (x = 0 or 1 included)."""
    if not isinstance(st, sp.Interval) or st.start < 0 or st.end > 1:
        return None
    ends = []
    for end, open_, down in ((st.start, st.left_open, True), (st.end, st.right_open, False)):
        if end == 0 or end == 1:
            if not open_:
                return None
            ends.append((-sp.oo if end == 0 else sp.oo, True))
            continue
        if not end.is_Rational:
            return None
        with mpmath.workdps(40):
            v = mpmath.log(mpmath.mpf(int(end.p)) / (int(end.q) - int(end.p)))
            scale = 2 ** 20
            m = int(mpmath.floor(v * scale)) - 1 if down else int(mpmath.ceil(v * scale)) + 1
        ends.append((sp.Rational(m, scale), False))
    (lo, lo_open), (hi, hi_open) = ends
    return sp.Interval(lo, hi, lo_open, hi_open)


def _quotient_logistic(n, want, dom, x, y, pairs, deadline, replay, tag):
    """N(x, y) > 0 over the domain, shown in the logistic coordinates x = 1/(1 + exp(-u_x)),
    y = 1/(1 + exp(-u_y)) (both coordinates in (0, 1)): increasing bijections, so the goal
    over the (rounded outward, so larger) u-domain with the where relations substituted
    implies it over x, y.  There logit x is u_x and sqrt(x (1 - x)) is 1/(2 cosh(u_x/2)), so
    after the rewrite of _to_logistic (identities for real u) N is a sum of exponentials
    without the poles at x = 0, 1 that defeat boxes in x.  The diagonal u_y = u_x is an exact
    order-2 zero curve of it (N = N_u = 0 there, sympy).  (answer, route, v, value) or None."""
    from .symbolic import zero_by
    sub = _to_logistic(n, dom, x, y, deadline)
    if sub is None:
        return None
    nu, udom, us = sub
    for v, val in pairs:
        route = f"{tag} logistic curve {v}"
        if replay is not None and replay != route:
            continue
        uv, uval = us[v], us[val]
        if deadline - time.process_time() < 0.1:
            return None
        if zero_by(nu.xreplace({uv: uval}))[0] is None or zero_by(derivative(nu, uv).xreplace({uv: uval}))[0] is None:
            continue
        share = deadline - time.process_time()
        # half of what is left (the other pair's curve gets the rest): a third was 4.7 times
        # what the box search takes, and it ran out under a 3x slower interpreter
        ans = branch_and_bound(nu, want, udom, encloser=BALL, seconds=max(0.05, share if replay else share / 2),
                               curve=Curve(uv, uval, order=2, strict_off_curve=True))
        if ans.verdict == "holds":
            return ans, route, v, val
    return None


def _decision(ans, note="", how=""):
    if ans.verdict == "holds":
        return Decision("holds", f"ball branch-and-bound{how}: {ans.detail}{note}", boxes=ans.boxes, depth=ans.depth)
    if ans.verdict == "violated":
        return Decision("violated", "a box whose enclosure has the wrong sign", point=ans.point,
                        boxes=ans.boxes, depth=ans.depth)
    return Decision("unknown", f"ball: {ans.detail}", boxes=ans.boxes, depth=ans.depth)


def _reductions(goal, e, deadline, replay=None, logit=True):
    """(Decision, route) by the where-relation bound or the touching curve (see the module
    docstring), or None.  `replay`: the one route to run."""
    from ..model.domain import Domain
    want = goal.want
    if want in ("negative", "nonpositive"):
        e, want = -e, "positive" if want == "negative" else "nonnegative"
    dom = goal.domain
    if logit and (replay is None or replay.startswith("logit: ")):
        sub = _logit_comparison(goal, e, want, deadline, replay)
        if sub is not None or replay is not None:
            return sub
    # e > 0 (>= 0) where W > 0 (W >= 0): e - c W >= 0 suffices, for c = 1 or a positive
    # parameter of the domain (Appendix B.2: Phi' = beta h against min h, so c = beta)
    scales = [sp.S.One] + [s for s in sorted(dom.sets, key=str) if e.has(s) and _positive_coordinate(dom.sets[s])]
    bounds = []
    for i, w in enumerate(dom.where):
        if not isinstance(w, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
            continue
        lower = w.lhs - w.rhs if isinstance(w, (sp.StrictGreaterThan, sp.GreaterThan)) else w.rhs - w.lhs
        strict_w = isinstance(w, (sp.StrictGreaterThan, sp.StrictLessThan))
        if want == "positive" and not strict_w:
            continue
        rest = Domain(dict(dom.sets), tuple(r for r in dom.where if r is not w))
        for c in scales:
            tag = f"where {i}:" if c == 1 else f"where {i} x {c}:"
            if replay is not None and not replay.startswith(tag):
                continue
            diff = _normal_form(e - c * lower, rest, deadline)
            if diff.free_symbols:
                bounds.append((w, lower, c, tag, rest, diff))
    # the bound that cancels the most first (Appendix B.2: Phi' - beta min h loses pi_ref
    # altogether, Phi' - min h keeps it and fails after 3 s of touching-curve search); a
    # failing attempt can use the rest of the slice, so the likeliest goes first
    bounds.sort(key=lambda b: (len(b[5].free_symbols), sp.count_ops(b[5])))
    for w, lower, c, tag, rest, diff in bounds:
        if deadline - time.process_time() < 0.2:
            break
        sub = _touching(diff, "nonnegative", rest, deadline, replay=replay.split(": ", 1)[1] if replay else None)
        if sub is not None and sub[0].verdict == "holds":
            scaled = "" if c == 1 else f"{c} * "
            return (Decision("holds", f"ball, the where relation {w} as a lower bound (e - {scaled}({lower}) >= 0,"
                             f"{'' if c == 1 else f' {c} > 0'}): " + sub[0].detail, boxes=sub[0].boxes,
                             depth=sub[0].depth), f"{tag} {sub[1]}")
    if replay is not None and not replay.startswith(("touching ", "logistic ")):
        return None
    sub = _touching(e, want, dom, deadline, plain=False, replay=replay)
    return sub if sub is not None and sub[0].verdict == "holds" else None


def _logit_comparison(goal, e, want, deadline, replay=None):
    """e = A - B with A and B probabilities (in (0, 1) at every domain point, shown by sympy):
    A > B exactly when logit A > logit B, logit being increasing on (0, 1).  The logits are
    put in the exp/log normal form (each rewrite proven under the domain's facts), which turns
    Appendix B.2's best response F(p) = 1/(1 + (1 - ref)/ref e^{-1/(beta s(p))}) into
    logit ref + 1/(beta s(p)): F(p) > p becomes h(p) > 0.  Route "logit: <route>"."""
    from .symbolic import Facts, exp_log_form, prove_sign, short, with_ends
    from .timebox import TimeUp, time_limit
    pos = [t for t in sp.Add.make_args(e) if not t.could_extract_minus_sign()]
    neg = [-t for t in sp.Add.make_args(e) if t.could_extract_minus_sign()]
    if not pos or not neg or deadline - time.process_time() < 1.0:
        return None
    a, b = sp.Add(*pos), sp.Add(*neg)
    rep = goal.domain.assumption_symbols()
    back = {v: k for k, v in rep.items()}
    facts = Facts.from_relations(with_ends(goal.domain), rep)
    box = None
    try:
        with time_limit(min(3.0, (deadline - time.process_time()) / 3)) as box:
            ar, br = a.xreplace(rep), b.xreplace(rep)
            for p in (ar, br):
                if not (prove_sign(p, "positive", facts) and prove_sign(sp.together(1 - p), "positive", facts)):
                    return None
            la = exp_log_form(sp.log(sp.together(ar / (1 - ar))), facts)
            lb = exp_log_form(sp.log(sp.together(br / (1 - br))), facts)
            d = sp.expand(la - lb).xreplace(back)
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return None
    except Exception:  # noqa: BLE001 - not this way
        return None
    from . import HOLDS
    from ..engine.goals import Goal
    g = Goal(d, want, goal.domain, f"logit({short(a, 60)}) - logit({short(b, 60)})")
    sub_replay = replay.split(": ", 1)[1] if replay else None
    if sub_replay in (None, "plain"):
        ok = _defined_quick(d, goal.domain, deadline)
        ans = branch_and_bound(d, want, goal.domain, defined=ok, encloser=BALL,
                               seconds=max(0.05, (deadline - time.process_time()) / 3))
        if ans.verdict == "holds":
            dec = _decision(ans)
            return (Decision(HOLDS, f"ball, A > B as logit A > logit B (both in (0, 1)): {dec.detail}",
                             boxes=dec.boxes, depth=dec.depth), "logit: plain")
        if sub_replay == "plain":
            return None
    more = _reductions(g, d, deadline, sub_replay, logit=False)
    if more is None:
        return None
    dec, route = more
    return (Decision(HOLDS, f"ball, A > B as logit A > logit B (both in (0, 1)): {dec.detail}",
                     boxes=dec.boxes, depth=dec.depth), f"logit: {route}")


def _normal_form(e, domain, deadline):
    """e in the exp/log normal form under the domain's facts and interval ends (identities
    only, each proven where it is used), expanded: terms of e and of a where relation that
    cancel (log ref - log(1 - ref) against log(ref/(1 - ref))) are gone.  e itself when
    that does not finish in its slice."""
    from .symbolic import Facts, exp_log_form, with_ends
    from .timebox import TimeUp, time_limit
    rep = domain.assumption_symbols()
    box = None
    try:
        with time_limit(min(2.0, max(0.1, (deadline - time.process_time()) / 6))) as box:
            facts = Facts.from_relations(with_ends(domain), rep)
            out = sp.expand(exp_log_form(e.xreplace(rep), facts))
            return out.xreplace({v: k for k, v in rep.items()})
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return e
    except Exception:  # noqa: BLE001 - no normal form: the expression as it is
        return e


def _positive_coordinate(st) -> bool:
    """A coordinate whose interval lies in (0, oo): a positive scale for a where relation."""
    return isinstance(st, sp.Interval) and (st.start > 0 or st.start == 0 and st.left_open)


def _defined_quick(e, domain, deadline):
    from .definedness import defined
    return defined(e, domain, min(1.0, max(0.1, (deadline - time.process_time()) / 6)))


def _touching(e, want, domain, deadline, plain=True, replay=None, substitute=True, off_curve=False, only=None):
    """(Decision, route) for `e want` on the domain, if need be with an exact touching curve
    of e (route "touching <x> <k>": the k-th solution of e_x = 0), or None."""
    from ..model.domain import Domain
    from .definedness import defined
    from .symbolic import Facts, with_ends, zero_by

    ok = defined(e, domain, min(1.0, (deadline - time.process_time()) / 4))
    if plain and replay in (None, "plain"):
        ans = branch_and_bound(e, want, domain, seconds=max(0.05, (deadline - time.process_time()) / 3),
                               defined=ok, encloser=BALL)
        if ans.verdict != "undecided" or replay == "plain":
            return _decision(ans), "plain"
    # off_curve: "e > 0 except on one curve where it touches 0" (a double root's uniqueness)
    if want != ("positive" if off_curve else "nonnegative"):
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
    er = _hyperbolic_as_exp(e.xreplace(rep))
    if substitute and (replay is None or replay.startswith("logistic ")):
        # first: in the logistic coordinate the curve can be followed to infinity
        sub = _logistic(e, want, domain, deadline, replay, off_curve, only)
        if sub is not None or replay is not None:
            return sub
    for x in sorted((s for s, st in domain.sets.items() if isinstance(st, sp.Interval) and e.has(s)), key=str):
        if replay is not None and not replay.startswith(f"touching {x} ") or only is not None and x != only:
            continue
        if deadline - time.process_time() < 0.3 and replay is None:
            return None
        if substitute and replay is None and domain.sets[x] == sp.Interval.open(0, 1):
            continue  # its logistic coordinate was tried above: the same curve, easier to follow
        xr = rep.get(x, x)
        ex = derivative(er, xr)
        for k, v in enumerate(_candidates(ex, xr, deadline)):
            if replay is not None and replay != f"touching {x} {k}":
                continue
            if v.has(xr) or v.is_real is False:
                continue
            # the exact zero test is costly (seconds per failing candidate): only candidates
            # that vanish numerically at a few points get it (a filter, never a verdict)
            if not _vanishes_numerically((er.xreplace({xr: v}), ex.xreplace({xr: v})), domain, rep):
                continue
            if zero_by(er.xreplace({xr: v}), facts)[0] is None or zero_by(ex.xreplace({xr: v}), facts)[0] is None:
                continue
            # e_xx of one sign at every point (sympy, under the domain's assumptions), x ranging
            # over an interval no where relation cuts: e(., p) is convex with e = e_x = 0 at
            # v(p), so e >= 0, and e > 0 off the curve when e_xx > 0 -- no boxes needed
            if not any(sp.sympify(w).has(x) for w in domain.where) and \
                    _on_interval(v.xreplace(back), x, domain, facts, back, deadline) and _convex(ex, xr, off_curve, facts):
                d = Decision("holds", f"ball: touching at {x} = {v.xreplace(back)} (e = e_{x} = 0 there exactly) "
                             f"and e_{x}{x} {'> 0' if off_curve else '>= 0'} everywhere (sympy): convex in {x}")
                return d, f"touching {x} {k}"
            v = v.xreplace(back)
            ans = branch_and_bound(e, want, domain, seconds=max(0.05, deadline - time.process_time()),
                                   defined=ok, encloser=BALL, curve=Curve(x, v, order=2, strict_off_curve=off_curve))
            if ans.verdict == "holds":
                return (_decision(ans, how=f", touching at {x} = {v} (e = e_{x} = 0 there exactly)"),
                        f"touching {x} {k}")
    return None


def _on_interval(v, x, domain, facts, back, deadline) -> bool:
    """The curve x = v(p) is real and inside x's interval at every domain point: v defined
    there (its side conditions proved), and v above / below the interval's finite ends (sympy,
    with z3 behind it).  The convexity argument needs it: e = e_x = 0 at a point outside the
    interval says nothing about the interval."""
    from .definedness import defined
    from .symbolic import prove_sign
    from .timebox import TimeUp, time_limit
    rest = Domain({s: st for s, st in domain.sets.items() if s != x},
                  tuple(w for w in domain.where if not sp.sympify(w).has(x)))
    if v.has(sp.I) or not defined(v, rest, min(1.0, max(0.1, (deadline - time.process_time()) / 6))):
        return False
    st = domain.sets[x]
    rep = {k: b for b, k in back.items()}
    vr = v.xreplace(rep)
    box = None
    try:
        with time_limit(min(2.0, max(0.1, (deadline - time.process_time()) / 4))) as box:
            if st.start.is_finite and not prove_sign(vr - st.start, "positive" if st.left_open else "nonnegative",
                                                     facts):
                return False
            if st.end.is_finite and not prove_sign(st.end - vr, "positive" if st.right_open else "nonnegative",
                                                   facts):
                return False
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return False
    return True


def _convex(ex, x, strict, facts) -> bool:
    """The second derivative's sign proved by sympy (1 s): positive, or nonnegative."""
    from .symbolic import prove_sign
    from .timebox import TimeUp, time_limit
    box = None
    try:
        with time_limit(1.0) as box:
            return bool(prove_sign(derivative(ex, x), "positive" if strict else "nonnegative", facts))
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return False
    except Exception:  # noqa: BLE001 - not shown
        return False


def _vanishes_numerically(exprs, domain, rep) -> bool:
    """Are all of exprs about 0 (30 digits) at three fixed interior points of the domain?"""
    fractions = (mpmath.mpf("0.3183"), mpmath.mpf("0.5772"), mpmath.mpf("0.8414"))
    with mpmath.workdps(30):
        for f in fractions:
            pt = {}
            for s, st in domain.sets.items():
                if not isinstance(st, sp.Interval):
                    return True  # a discrete coordinate: no filter
                lo, hi = st.start, st.end
                if lo.is_finite and hi.is_finite:
                    val = sp.Float(lo, 30) + (sp.Float(hi, 30) - sp.Float(lo, 30)) * sp.Float(f, 30)
                elif lo.is_finite:
                    val = sp.Float(lo, 30) + sp.Float(f, 30) * 3
                elif hi.is_finite:
                    val = sp.Float(hi, 30) - sp.Float(f, 30) * 3
                else:
                    val = sp.Float(f, 30) * 3 - 1
                pt[rep.get(s, s)] = val
            for e in exprs:
                try:
                    v = sp.N(e.xreplace(pt), 30)
                except Exception:  # noqa: BLE001 - not evaluable: let the exact test decide
                    return True
                if not v.is_number or v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
                    return True  # not evaluable here: let the exact test decide
                if v.is_real is False or abs(v) > sp.Float("1e-15"):
                    return False
    return True


def _candidates(ex, x, deadline):
    """Solutions of ex = 0 for x, cheapest first: those of an exp-polynomial (w = exp(k x)),
    then, only if the caller asks for more, sympy's solve (seconds on a large expression).
    The order is fixed, so a certificate names a curve by its index."""
    from .timebox import TimeUp, time_limit
    for solver in (_exp_solutions, lambda e, v: list(sp.solve(e, v, check=False))[:4]):
        box = None
        try:
            with time_limit(min(2.0, max(0.1, (deadline - time.process_time()) / 3))) as box:
                found = solver(ex, x)
        except TimeUp as exc:
            if exc.box is not box:
                raise
            found = []
        except Exception:  # noqa: BLE001 - sympy cannot solve it: no curve this way
            found = []
        if found is None:
            continue  # not an exp-polynomial: sympy's solve next
        yield from found
        if solver is _exp_solutions:
            return  # an exp-polynomial's roots in w are all its roots: solve would find no others


def _hyperbolic_as_exp(e):
    """sinh, cosh, tanh as exponentials (identities): the zero test knows exp(log w) = w, not
    cosh(log w) = (w + 1/w)/2."""
    hyper = {h: h.rewrite(sp.exp) for h in e.atoms(sp.sinh, sp.cosh, sp.tanh)}
    return e.xreplace(hyper) if hyper else e


def _exp_solutions(ex, x):
    """Solutions of ex = 0 when ex is a rational function of w = exp(k x): solved for w > 0,
    then x = log(w)/k (None: ex is not such a function).  sympy's own solve returns log(2 b^2 + 2 b sqrt(b^2 + 1) + 1) where this
    gives 2 log(b + sqrt(b^2 + 1)), a form the zero test can show to be exact."""
    # cosh(u/2) and its kin (the logistic coordinate's simplify makes them) as exponentials
    ex = _hyperbolic_as_exp(ex)
    exps = [a for a in ex.atoms(sp.exp) if a.has(x)]
    coeffs = []
    for a in exps:
        c = derivative(a.args[0], x)
        if c.has(x) or not c.is_Rational or c == 0:
            return None
        coeffs.append(c)
    if not coeffs:
        return None
    k = coeffs[0]
    for c in coeffs[1:]:
        k = sp.gcd(k, c)
    w = sp.Symbol("w_exp", positive=True)
    reps = {a: sp.exp(a.args[0] - derivative(a.args[0], x) * x) * w ** (derivative(a.args[0], x) / k) for a in exps}
    ew = sp.simplify(ex.xreplace(reps))
    if ew.has(x):
        return None  # x also outside the exponentials: not an exp-polynomial
    return [sp.log(r) / k for r in sp.solve(ew, w, check=False)[:4] if r.is_positive is not False]


def _logistic(e, want, domain, deadline, replay=None, off_curve=False, only=None):
    """The touching search again after x = 1/(1 + exp(-u)) for a coordinate x on (0, 1): a
    bijection onto u in R, so the goal over x is the goal over u.  In u, logit x is u and
    sqrt(x (1 - x)) is 1/(2 cosh(u/2)): Appendix B.2's h becomes convex, and the curve where
    it touches 0 (x* -> 1 as beta -> oo) becomes u* = 2 asinh(beta), which boxes can follow
    out to infinity.  Route "logistic <x>: touching u_<x> <k>"."""
    from ..model.domain import Domain
    from .timebox import TimeUp, time_limit
    for x in sorted(domain.sets, key=str):
        st = domain.sets[x]
        if not (isinstance(st, sp.Interval) and st == sp.Interval.open(0, 1) and e.has(x)):
            continue
        if only is not None and x != only:
            continue
        if replay is not None and not replay.startswith(f"logistic {x}: "):
            continue
        if deadline - time.process_time() < 0.5:
            return None
        u = sp.Symbol(f"u_{x}", real=True)
        to_u = {x: 1 / (1 + sp.exp(-u))}
        box = None
        try:
            with time_limit(min(3.0, (deadline - time.process_time()) / 3)) as box:
                # under the domain's assumptions (log(exp(t)) = t needs t real)
                rep = domain.assumption_symbols()
                eu = sp.simplify(e.xreplace(rep).xreplace({rep.get(x, x): to_u[x]}))
                eu = eu.xreplace({v: k for k, v in rep.items()})
        except TimeUp as exc:
            if exc.box is not box:
                raise
            continue
        except Exception:  # noqa: BLE001 - not simplified: not this way
            continue
        sets = {(u if s == x else s): (sp.Interval(-sp.oo, sp.oo) if s == x else t) for s, t in domain.sets.items()}
        dom = Domain(sets, tuple(sp.sympify(w).xreplace(to_u) for w in domain.where))
        sub = _touching(eu, want, dom, deadline, plain=False, substitute=False, off_curve=off_curve,
                        only=u if only is not None else None,
                        replay=replay.split(": ", 1)[1] if replay else None)
        if sub is not None and sub[0].verdict == "holds":
            d = sub[0]
            return (Decision("holds", f"ball, with {x} = 1/(1 + exp(-{u})), {u} in R: " + d.detail,
                             boxes=d.boxes, depth=d.depth), f"logistic {x}: {sub[1]}")
    return None


BALL_BACKEND = BallBackend()
