"""Numeric spot-checks: the evidence behind *checked* and every *refuted*.

A claim is evaluated at seeded random points of its domain (a quarter pressed against
boundaries).  Two modes share every rule below:

- ``screen`` (falsify first): each point is evaluated in machine floats; a point that is
  clearly fine by a wide margin is accepted, and every other point (a possible violation,
  a value floats cannot represent, a point whose distance to an end of its interval is
  lost in floats) is decided by mpmath exactly as in the full mode.  Cheap: it is how a
  wrong claim is refuted in well under a second.
- ``full``: every point at ``precision`` significant digits in mpmath (the evidence of a
  *checked* status).

A suspected violation is re-evaluated at ``2 * precision + 10`` digits and again at twice
that, and only a violation that is clear and stable across precisions is reported, so
rounding near a boundary never becomes a counterexample.  A point where an expression is
undefined (division by zero, complex value, infinity) is reported as such: the declared
domain failed to keep the claim well defined there.

A value can lose every digit to cancellation without anything looking wrong:
cosh(a)^2 - sinh(a)^2 at a = 100 is 0 at 30 and 70 digits (both squares round to the same
1e86), and 0 = 0 looks like an equality.  So every point decided in mpmath (not the ones
cleared in doubles) is also evaluated as an arb ball (``ball.compile_ball``, at about the
same number of bits), whose radius bounds the error rigorously.  Where the radius exceeds
what the decision assumed (``noise(precision)`` of the scale), or the ball is not finite
(a square root of a value whose ball reaches below 0), the point is decided again in
mpmath with enough more digits to cover the lost ones (at most ``8 * high``): an equality
or an order when it holds within that accuracy, a counterexample only when clear and
stable there and at twice the digits, otherwise unresolved.  Where arb cannot evaluate an
expression at all (a function it is not asked to handle, a point that is not finite), or
its ball is finite at no digits up to that cap (a power of a base of no known sign whose
ball straddles 0),
the decision stands as before.

All functions take the precision explicitly and use ``mpmath.workdps``; nothing here
changes mpmath's global context, and arb's (``flint.ctx.prec``) is restored after every use.
"""

from __future__ import annotations

import math
import random
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import sympy as sp

from ..model.status import NumericVerdict
from . import sampling
from .evaluate import Undefined, compile_expr

__all__ = ["NumericOutcome", "Evaluator", "Undefined", "fmt", "point_repr", "tol", "noise", "sample_points",
           "undefined_cx", "check_equal", "decide_order", "Diff", "check_order", "exactly_zero", "exact",
           "residual_of", "SCREEN_EQUAL", "SCREEN_MARGIN", "vanishing_guarded", "ball_greater", "ball_in_interval",
           "lost_note", "arb_point", "sign_violation"]

# a float value is trusted only where it is clearly fine: two sides equal to 1e-9 of their
# size, or a strict order by a margin of 1e-6 of the operands' size (rounding and mild
# cancellation in doubles stay far below both)
SCREEN_EQUAL = 1e-9
SCREEN_MARGIN = 1e-6


@dataclass
class NumericOutcome:
    verdict: NumericVerdict
    evidence: dict = field(default_factory=dict)
    counterexample: dict | None = None
    step: int | None = None  # for chains: index (1-based) of the first failing step
    step_verdicts: list | None = None
    # the counterexample's own point(s) at full precision, for shrinking it (the shown
    # point is rounded to 12 digits): {"point": {symbol: mpf}} and whatever else the kind
    # needs to re-check it there (a monotonicity pair, a maximiser's rival)
    witness: dict | None = None
    # the method behind the numbers when it is not the usual spot-check (a limit's
    # "ladder+asymptotics"): the result's method names it, checked or refuted
    method: str = ""

    def __post_init__(self):
        self.verdict = NumericVerdict(self.verdict)


def fmt(x, digits: int = 12) -> str:
    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return mpmath.nstr(x, digits)
    return str(x)


def point_repr(syms, pt):
    return {str(s): fmt(pt[s]) for s in syms}


def tol(dps: int):
    """Relative tolerance at dps digits: two thirds of the digits must agree."""
    return mpmath.mpf(10) ** (-(2 * dps) // 3)


def noise(dps: int):
    """What rounding alone can plausibly produce at dps digits (with some cancellation)."""
    return mpmath.mpf(10) ** (-dps + 5)


class Evaluator:
    """Compiles named expressions over a fixed symbol tuple; evaluates them in floats
    (``screen``) or in mpmath at two precisions."""

    def __init__(self, symbols, exprs: dict, precision: int, *, screen: bool = False, domain=None):
        self.symbols = tuple(symbols)
        self.precision = precision
        self.high = 2 * precision + 10
        self.screen = screen
        self.domain = domain
        self.exprs = {k: sp.sympify(e) for k, e in exprs.items()}
        self.progs = {k: compile_expr(e, self.symbols, k) for k, e in self.exprs.items()}
        self._ends = None
        self._balls = {}  # name -> arb program (None: arb cannot evaluate it), compiled when first needed

    def at(self, name, pt, dps):
        """Value at a point; undefinedness is only believed if it survives more digits
        (a difference like (-1e20 + 1e-15) - (-1e20) is 0 at 30 digits, not at 70)."""
        try:
            return self._at(name, pt, dps)
        except Undefined:
            if dps >= 2 * self.high:
                raise
        dps = max(2 * self.high, 2 * dps)
        while True:
            try:
                return self._at(name, pt, dps)
            except Undefined as exc:
                # a complex value with a vanishing imaginary part is a cancellation more
                # digits may resolve (up to 8x the high precision); anything else is believed
                if not exc.near_real or dps >= 8 * self.high:
                    raise
                dps *= 2

    def _at(self, name, pt, dps):
        return self.progs[name].mp_at([pt[s] for s in self.symbols], dps)

    # ---------------------------------------------------------------- the accuracy guard
    def add_ball(self, name, expr):
        """An expression the guard evaluates only as a ball (never in mpmath or floats)."""
        self.exprs[name] = sp.sympify(expr)

    def ball_at(self, name, args):
        """ev[name] as an arb ball at arb's current precision, at a point given as exact
        balls (``arb_point``); None where arb cannot evaluate it (no program: a function it
        is not asked to handle, or a point that is not finite).  A program whose ball is not
        finite at this precision gives a non-finite ball, not None: sqrt(cosh(a)^2 -
        sinh(a)^2) has no finite ball at 30 digits for a = 100 (the argument's ball reaches
        below 0), and one at 130; the guard asks again with more digits."""
        prog = self._balls.get(name, False)
        if prog is False:
            # the program's constants (2/3, pi) are made when it is compiled: at the most digits
            # the guard uses, so that their radius never limits it
            with _arb_digits(GUARD_CAP * self.high):
                prog = self._balls[name] = _compile_ball(self.exprs[name], self.symbols)
        if prog is None or args is None:
            return None
        try:
            return prog(args)
        except (ArithmeticError, ValueError):  # ball._NotFinite, a division by a ball around 0
            return _flint().arb("nan")
        except TypeError:
            return None

    # ---------------------------------------------------------------- the float screen
    def float_at(self, name, pt):
        """In the screen: the value in doubles, or None where doubles cannot be trusted at
        this point.  (None always outside the screen.)"""
        return self.float_value(name, pt) if self.screen else None

    def float_value(self, name, pt):
        """The value in doubles at a point whose coordinates doubles represent faithfully
        (None otherwise): for a step that only needs a sign far from zero."""
        args = self.float_args(pt)
        return None if args is None else self.progs[name].float_at(args)

    def float_args(self, pt):
        """The point's coordinates as doubles, or None when doubles lose what matters about
        it: a coordinate's distance to a finite end of its interval (1 - 1e-20 is 1.0 in
        doubles), or a magnitude beyond the doubles' range."""
        if self._ends is None:
            ends = []
            if self.domain is not None:
                for s, st in self.domain.sets.items():
                    if isinstance(st, sp.Interval) and s in self.symbols:
                        for e in (st.start, st.end):
                            if e.is_finite:
                                ends.append((self.symbols.index(s), s, sampling.end_value(e), float(e)))
            self._ends = ends
        args = []
        for s in self.symbols:
            v = float(pt[s])
            if not (v == 0.0 or 1e-280 < abs(v) < 1e280):
                return None
            args.append(v)
        for i, s, e_mp, e_f in self._ends:
            vf = args[i]
            d = vf - e_f
            # the doubles' distance is within 1e-9 (relative) of the true one when it exceeds
            # the representation error of v and of the end (1.1e-16 of each) 1e9 times over
            if abs(d) > 2.3e-7 * (abs(vf) + abs(e_f)):
                continue
            if pt[s] != e_mp:  # not exactly at the end either: doubles lose the distance
                return None
        return args


def sample_points(domain, settings, rng, n=None, edges=True):
    """The claim's seeded points.  A claim is sampled by several passes (the screen, the
    proof's cross-check, the full check) from generators in the same state: the points
    and the generator's state after drawing them are kept on the domain, so each pass gets
    the same points (and the same later draws) without sampling again."""
    n = n or settings.samples
    state = rng.getstate()
    key = (n, settings.precision, edges, hash(state))
    cache = domain.__dict__.get("_samples")
    if cache is None:
        cache = {}
        object.__setattr__(domain, "_samples", cache)
    got = cache.get(key)
    if got is not None and got[0] == state:
        rng.setstate(got[2])
        return [dict(p) for p in got[1]]
    pts = sampling.sample(domain, n, rng, settings.precision + 20, edges=edges)
    if len(cache) > 128:  # a maximiser samples its feasible set once per parameter point
        cache.clear()
    cache[key] = (state, [dict(p) for p in pts], rng.getstate())
    return pts


def undefined_cx(syms, pt, exc):
    return {"type": "undefined", "point": point_repr(syms, pt), "cause": str(exc),
            "explanation": "the claim is not defined at this point of its declared domain"}


# --------------------------------------------------------------------------- the accuracy guard
# digits added beyond the ones a ball shows lost, and the most the guard spends (x ev.high)
GUARD_MARGIN = 10
GUARD_CAP = 8
# digits added when a ball is not finite at all (its radius says nothing of how many are lost)
NOT_FINITE_STEP = 40


def _flint():
    try:
        import flint
    except ImportError:  # pragma: no cover - python-flint is a dependency
        return None
    return flint


def _compile_ball(expr, syms):
    from .ball import compile_ball
    try:
        return compile_ball(expr, list(syms))
    except Exception:  # noqa: BLE001 - an expression arb cannot take: no guard, as before
        return None


@contextmanager
def _arb_digits(dps):
    """arb's working precision set to about dps digits (it is process-global: restored)."""
    flint = _flint()
    if flint is None:
        yield None
        return
    old = flint.ctx.prec
    flint.ctx.prec = mpmath.libmp.dps_to_prec(dps)
    try:
        yield flint
    finally:
        flint.ctx.prec = old


def arb_point(syms, pt):
    """The point's coordinates as exact arb balls (None if one is not a finite real)."""
    from .ball import exact_ball
    out = []
    for s in syms:
        v = pt[s]
        if isinstance(v, mpmath.mpf):
            sign, man, exp, _ = v._mpf_
            if not man and (sign, exp) != (0, 0):  # inf, -inf, nan (0 is (0, 0, 0, 0))
                return None
        elif isinstance(v, float):
            if not math.isfinite(v):
                return None
        elif not isinstance(v, int):
            return None
        out.append(exact_ball(v))
    return out


def _lost_digits(ball, allowed):
    """How many digits beyond the working ones a ball shows lost: 0 when its radius is within
    `allowed` (what the decision assumed), None when there is no ball."""
    if ball is None:
        return None
    if not ball.is_finite():
        return NOT_FINITE_STEP  # how many are lost is unknown: ask again with this many more
    rad = _arb_float(ball.rad())
    if rad <= allowed:
        return 0
    return max(1, math.ceil(float(mpmath.log10(rad / allowed))))


def _arb_float(x):
    from .ball import arb_to_mpf
    return arb_to_mpf(x.mid()) if x.is_finite() else mpmath.inf


def _guard(gap, dps, allowed, high, accept=None):
    """(q, ball): the digits q at which a point must be decided so that its values keep
    `allowed` (an absolute error), and the ball of the difference there.  q is dps when the
    ball at dps digits shows nothing lost, or there is no ball (the usual decision stands),
    or `accept` finds that the ball itself confirms the usual decision; else more (up to
    GUARD_CAP * high); None when even that does not cover the lost digits.  gap(flint) is
    the ball of the decided difference at arb's precision, or None."""
    cap = GUARD_CAP * high
    q, finite = dps, False
    while True:
        with _arb_digits(q) as flint:
            ball = gap(flint) if flint is not None else None
            lost = _lost_digits(ball, allowed)
            if lost and q == dps and accept is not None and accept(ball):
                return dps, ball
        if lost is None:
            return (dps, None) if q == dps else (None, None)  # no ball at q: the lost digits stay unaccounted for
        if lost == 0:
            return q, ball
        finite = finite or ball.is_finite()
        q = _more_digits(q, lost, cap)
        if q is None:
            # a ball that stayed finite but wide: unresolved; one that was never finite at
            # any digits says nothing (t**(3/2) with t's ball around 0 and t of no known sign:
            # no ball for such a power; a base >= 0 by its form is cut at 0, see ball.py), as
            # where arb has no program
            return (None, None) if finite else (dps, None)


def _more_digits(q, lost, cap):
    """The digits to ask at next, covering `lost` with a margin, and the cap itself once
    before giving up (a squared radius can ask for twice what the cap would give)."""
    if q >= cap:
        return None
    return min(q + lost + GUARD_MARGIN, cap)


# --------------------------------------------------------------------------- equalities
def check_equal(ev: Evaluator, a: str, b: str, pts, mult=None):
    """Check ev[a] == ev[b] (or ev[a] == ev[mult] * ev[b]) at every point."""
    syms = ev.symbols
    max_dev = mpmath.mpf(0)
    unresolved, screened, guarded = 0, 0, 0
    noise_p = noise(ev.precision)
    for pt in pts:
        try:
            if ev.screen:
                fa, fb = ev.float_at(a, pt), ev.float_at(b, pt)
                fm = ev.float_at(mult, pt) if mult is not None else 1.0
                if fa is not None and fb is not None and fm is not None:
                    fb = fm * fb
                    scale = max(1.0, abs(fa), abs(fb))
                    if abs(fa - fb) <= SCREEN_EQUAL * scale:
                        screened += 1
                        continue
            verdict, info, scale_p = _equal_point(ev, a, b, pt, ev.precision, mult, noise_p)
            # the guard: did the values at the working precision keep the digits the decision
            # assumed?  (noise(p) of the scale, as the acceptance at p does)
            allowed = noise_p * scale_p
            gap = lambda flint, pt=pt: _equal_gap(ev, flint, a, b, pt, mult)  # noqa: E731
            q, ball = _guard(gap, ev.precision, allowed, ev.high)
            if q is not None and q != ev.precision:
                # digits were lost, so the scale read at p may be lost too ((e^a + 1)^2 - e^2a -
                # 2 e^a reads 1e44, not 1, at a = 100): the tolerance comes from what the balls
                # show the sides' sizes to be at least, and the point is guarded again with it
                least = _least_scale(lambda flint, pt=pt: _equal_sides(ev, flint, a, b, pt, mult), ev.precision)
                if least is not None and noise_p * least < allowed:
                    allowed = noise_p * least
                    q, ball = _guard(gap, ev.precision, allowed, ev.high)
            if q != ev.precision:
                guarded += 1
                verdict, info = (("unresolved", None) if q is None else
                                 _equal_resolved(ev, a, b, pt, q, mult, allowed, ball))
            if verdict == "differ":
                dev, va, vb, scale = info
                cx = {"type": "values differ", "point": point_repr(syms, pt),
                      a: fmt(va), b if mult is None else f"{mult}*{b}": fmt(vb),
                      "difference": fmt(va - vb)}
                if q != ev.precision:
                    cx["cancellation"] = lost_note(ev.precision, q, f"{2 * q} digits")
                return NumericOutcome("counterexample", {"points": len(pts)}, cx, witness={"point": pt})
            if verdict == "unresolved":
                unresolved += 1
                continue
            dev, _, _, scale = info
            max_dev = max(max_dev, dev / scale)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, undefined_cx(syms, pt, exc),
                                  witness={"point": pt})
    evidence = {"points": len(pts), "digits": ev.precision, "max_relative_deviation": fmt(max_dev, 3),
                "unresolved_points": unresolved}
    if guarded:
        evidence["points_with_lost_digits"] = guarded
    if ev.screen:
        evidence["screened_in_floats"] = screened
    if unresolved == len(pts):
        return NumericOutcome("inconclusive", evidence)
    return NumericOutcome("consistent", evidence)


def _equal_point(ev, a, b, pt, p, mult, noise_p):
    """The usual decision at one point: ("equal" | "differ" | "unresolved", the deviation
    and values that decided it, the scale at the working precision p)."""
    first = _deviation(ev, a, b, pt, p, mult)
    dev, _, _, scale_p = first
    if dev <= noise_p * scale_p:
        return "equal", first, scale_p
    # more than rounding at this precision: decide with more digits.  A real
    # difference is stable across precisions; cancellation error shrinks.
    high = _deviation(ev, a, b, pt, ev.high, mult)
    dev, _, _, scale = high
    if dev <= tol(ev.high) * scale:
        return "equal", high, scale_p
    dev2, _, _, scale2 = _deviation(ev, a, b, pt, 2 * ev.high, mult)
    if dev2 > tol(2 * ev.high) * scale2 and abs(dev2 - dev) <= dev2 / 100:
        return "differ", high, scale_p
    return "unresolved", high, scale_p


def _equal_resolved(ev, a, b, pt, q, mult, allowed, ball):
    """The decision at q digits, where the values keep an absolute error within `allowed`
    (what the working precision p was assumed to give), as the ball there shows: equal
    within it; different when the ball puts the difference beyond it (rigorously) and the
    difference is stable at 2q digits; else unresolved."""
    got = _deviation(ev, a, b, pt, q, mult)
    dev = got[0]
    if dev <= allowed:
        return "equal", got
    if _arb_float(ball.abs_lower()) > allowed:
        dev2 = _deviation(ev, a, b, pt, 2 * q, mult)[0]
        if abs(dev2 - dev) <= dev2 / 100:
            return "differ", got
    return "unresolved", None


def _equal_sides(ev, flint, a, b, pt, mult):
    """The arb balls (ev[a], ev[mult] * ev[b]) at the point (None where arb cannot)."""
    args = arb_point(ev.symbols, pt)
    va, vb = ev.ball_at(a, args), ev.ball_at(b, args)
    if va is None or vb is None:
        return None
    if mult is not None:
        vm = ev.ball_at(mult, args)
        if vm is None:
            return None
        vb = vm * vb
    return va, vb


def _equal_gap(ev, flint, a, b, pt, mult):
    """The arb ball of ev[a] - ev[mult] * ev[b] at the point (None where arb cannot)."""
    sides = _equal_sides(ev, flint, a, b, pt, mult)
    if sides is None:
        return None
    return sides[0] - sides[1]  # not finite: the guard asks again with more digits


def _least_scale(sides, dps):
    """max(1, |first|, |second|) as far as the balls of the two sides at dps digits show it
    at least (a rigorous lower bound of the scale the usual rules compute), or None."""
    with _arb_digits(dps) as flint:
        got = sides(flint) if flint is not None else None
        if got is None:
            return None
        return max([mpmath.mpf(1)] + [_arb_float(v.abs_lower()) for v in got if v.is_finite()])


def _deviation(ev, a, b, pt, dps, mult=None):
    va = ev.at(a, pt, dps)
    vb = ev.at(b, pt, dps)
    with mpmath.workdps(dps):  # every arithmetic step at the working precision
        if mult is not None:
            vb = ev.at(mult, pt, dps) * vb
        scale = max(mpmath.mpf(1), abs(va), abs(vb))
        return abs(va - vb), va, vb, scale


def residual_of(e):
    return e.lhs - e.rhs if isinstance(e, sp.Equality) else e


# --------------------------------------------------------------------------- orders
_STRICT = {"<": True, "<=": False, ">": True, ">=": False}


def exactly_zero(expr, syms, pt) -> bool:
    """Is expr exactly 0 at the (binary-rational) point?  Separates a true equality
    (x**2 at x = 0) from absorption (1 + exp(-1560) rounds to 1 at any sane precision)."""
    subs = {s_: exact(pt[s_]) for s_ in syms}
    try:
        val = sp.sympify(expr).xreplace(subs)
        val = sp.simplify(val) if val.free_symbols == set() and not val.is_Number else val
        return val == 0
    except Exception:  # noqa: BLE001 - cannot decide exactly: not a confirmed equality
        return False


def exact(v):
    """The exact binary rational of an mpf (mpf(v) would re-round to 15 digits).  Not by
    mpf.man_exp: it drops the sign (mpf(-0.75).man_exp is (3, -2))."""
    p, q = mpmath.libmp.to_rational((v if isinstance(v, mpmath.mpf) else mpmath.mpf(v))._mpf_)
    return sp.Rational(int(p), int(q))


def screen_order(op, fa, fb) -> bool:
    """In doubles: is `fa op fb` clearly true, by a margin no rounding can erase?"""
    if fa is None or fb is None:
        return False
    d = fa - fb if op in ("<", "<=") else fb - fa   # the claim is d < 0 (or <= 0)
    return d < -SCREEN_MARGIN * max(1.0, abs(fa), abs(fb))


def decide_order(op, diff_at, exact_zero):
    """Does lhs op rhs fail at a point?  True, False, or None (unresolved).

    diff_at(dps) -> (lhs - rhs, scale).  A violation must be clear at 2p+10 digits and
    stable at twice that; a strict claim fails on equality only if the equality is exact.
    Where diff_at has a ``ball(flint)`` (a ``Diff``), the decision is guarded against
    digits lost to cancellation (see the module's docstring).
    """
    flip = op in (">", ">=")
    strict = _STRICT[op]

    def d_at(dps):
        d, scale = diff_at(dps)
        return (-d if flip else d), scale

    p = diff_at.precision
    d, scale_p = d_at(p)
    verdict, exact_ = _order_rules(d, scale_p, d_at, diff_at, strict, exact_zero)
    gap = getattr(diff_at, "ball", None)
    if gap is None or exact_:
        return verdict
    allowed = noise(p) * scale_p

    def confirms(ball):
        # the ball alone settles the usual verdict (its sign is rigorous): no digits needed
        b = -ball if flip else ball
        if verdict is False:
            return b.upper() < 0 if strict else b.upper() <= 0
        return verdict is True and b.lower() > 0

    q, ball = _guard(gap, p, allowed, diff_at.high, confirms)
    if q is not None and q != p:  # (None: the cap did not cover them; a smaller tolerance needs more)
        # digits were lost, so the scale read at p may be lost too: the tolerance comes from
        # what the balls show the sides' sizes to be at least (as check_equal's)
        least = _least_scale(diff_at.sides, p) if hasattr(diff_at, "sides") else None
        if least is not None and noise(p) * least < allowed:
            allowed = noise(p) * least
            q, ball = _guard(gap, p, allowed, diff_at.high, confirms)
    if q == p:
        return verdict
    if q is None:
        return None
    # decided at q digits, where the values keep `allowed` (what p was assumed to give); the
    # ball there gives the sign where it excludes 0 (rigorously)
    dq, _ = d_at(q)
    if getattr(diff_at, "last", None) is not None:
        # the values shown (a counterexample's, a margin's) are q's
        diff_at.values, diff_at.values_dps = diff_at.last, diff_at.last_dps
    b = -ball if flip else ball
    if b.upper() < 0:
        return False
    if b.lower() > 0:
        d2, _ = d_at(2 * q)
        if dq > 0 and abs(d2 - dq) <= d2 / 100:
            diff_at.guard_note = lost_note(p, q, f"{2 * q} digits")
            return True
        return None
    # a tie at q digits' resolution: as the usual rules decide a tie
    if strict:
        if exact_zero():
            diff_at.guard_note = lost_note(p, q, "exactly (an equality, where the claim is strict)")
            return True
        return None
    return False if dq <= 0 else None


def vanishing_guarded(ev: Evaluator, name: str, pt, dps: int, allowed):
    """For ev[name] accepted as within `allowed` of 0 at `dps` digits: the accuracy guard
    (see the module's docstring) on that acceptance.  ("zero", None) when its ball shows no
    digits lost, or at the digits that cover them the value is within `allowed`; ("nonzero",
    (value, note)) when the ball there excludes [-allowed, allowed] and the value is stable
    at twice the digits; ("unresolved", None) otherwise."""
    def gap(flint):
        return ev.ball_at(name, arb_point(ev.symbols, pt))
    q, ball = _guard(gap, dps, allowed, ev.high)
    if q == dps:
        return "zero", None
    if q is None:
        return "unresolved", None
    vq = ev.at(name, pt, q)
    if abs(vq) <= allowed:
        return "zero", None
    if _arb_float(ball.abs_lower()) > allowed:
        v2 = ev.at(name, pt, 2 * q)
        if abs(v2 - vq) <= abs(v2) / 100:
            return "nonzero", (v2, lost_note(dps, q, f"{2 * q} digits"))
    return "unresolved", None


def ball_greater(ev: Evaluator, gap_name: str, pt, size, dps: int):
    """Is ev[gap_name] at `pt`, a difference u - v, above tol(dps) of max(1, |v|)?  Decided
    by arb balls alone, at dps digits or at as many more as cover the digits they show lost
    (see the module's docstring): what a maximiser asks of each rival, the difference
    between the objective there and at the claimed point.  The claimed point's value comes
    from a formula that can cancel as the rival's value does, so that values computed once
    in mpmath can agree on a wrong answer (-(x - (cosh(a)^2 - sinh(a)^2))^2 peaks at 0, not
    1, at 50 and 90 digits for a = 100).  The difference is one expression, so that a term
    both sides share cancels in sympy before any ball is formed (two balls of atan(cosh(a)^2
    - sinh(a)^2 - 1) never would).

    size() -> the arb ball of v at arb's current precision (None where arb cannot), read
    only for the tolerance's scale: 1 where it is not finite.  Returns (answer, q): "no"
    when the ball of the difference lies below the tolerance (read off v's ball's lower
    bound, never off lost values), or is accurate (its radius within noise(dps) of the
    scale) and does not lie wholly above it: a tie at that resolution, as the usual rules
    decide one; "yes" when an accurate ball lies wholly above it; None when arb cannot
    evaluate the difference (no program, or no finite ball at any digits up to the cap: the
    caller's usual decision stands, as everywhere); "unresolved" when even GUARD_CAP * high
    digits leave a finite ball too wide.  q: the digits at which the ball decided."""
    args = arb_point(ev.symbols, pt)
    q, cap, finite = dps, GUARD_CAP * ev.high, False
    tol_dps, noise_dps = _tolerances(dps)
    while True:
        with _arb_digits(q) as flint:
            gap = ev.ball_at(gap_name, args) if flint is not None else None
            if gap is None:
                return None, q
            # in arb, not mpmath: this runs for every rival (an arb comparison is True only
            # where it holds for every point of both balls)
            theirs = size()
            least = theirs.abs_lower() if theirs is not None and theirs.is_finite() else None
            scale = least if least is not None and least > 1 else flint.arb(1)
            limit = tol_dps * scale
            if gap.is_finite():
                finite = True
                if gap.upper() <= limit:
                    return "no", q
                allowed = noise_dps * scale
                if gap.rad() <= allowed:
                    return ("yes" if gap.lower() > limit else "no"), q
                lost = _lost_digits(gap, _arb_float(allowed.lower()))
            else:
                lost = NOT_FINITE_STEP
        q = _more_digits(q, lost, cap)
        if q is None:
            return ("unresolved", cap) if finite else (None, dps)  # never finite: as no ball (see _guard)


# points at which a sign a prover is about to attempt is first tried against the numbers
SIGN_PROBE_POINTS = 60


def sign_violation(expr, want: str, domain, settings, key: str):
    """A point of `domain` where expr certainly lacks the sign `want` ("positive",
    "negative", "nonnegative", "nonpositive"): its arb ball lies wholly on the wrong side of
    0 (or on 0, for a strict sign).  No proof of that sign can then exist, and none needs to
    be attempted: falsify first, as for the claims themselves, here for a sufficient
    condition a kind tries on the way (a maximiser's Hessian minors over its whole feasible
    set, where the claim is only a local one).  Only the balls decide, never rounded values,
    so a true sign is never given up; a ball that straddles 0, or one arb cannot form, says
    nothing.  SIGN_PROBE_POINTS seeded points (from the settings' seed and `key`, apart from
    the claim's own draws), at the working precision.  None where no point shows it."""
    syms = tuple(sorted(expr.free_symbols, key=str))
    if any(s not in domain.sets for s in syms):
        return None
    prog = _compile_ball(expr, syms)
    if prog is None:
        return None
    try:
        pts = sampling.sample(domain, SIGN_PROBE_POINTS, random.Random(f"{settings.seed}:{key}"),
                              settings.precision + 20)
    except Exception:  # noqa: BLE001 - an empty or unsamplable domain: no evidence either way
        return None
    wrong = {"positive": lambda b: b <= 0, "nonnegative": lambda b: b < 0,
             "negative": lambda b: b >= 0, "nonpositive": lambda b: b > 0}[want]
    # the sampler keeps a point within about 10^-(precision + 20) of a closed end that is not
    # a binary fraction (1/3), possibly just outside it; the balls, at `precision` digits,
    # carry such an end's constants with a wider radius, so a weak sign that holds up to the
    # end is not falsified by that rounding
    with _arb_digits(settings.precision):
        for pt in pts:
            args = arb_point(syms, pt)
            if args is None:
                continue
            try:
                ball = prog(args)
            except (ArithmeticError, ValueError, TypeError):
                continue
            if ball.is_finite() and wrong(ball):
                return pt
    return None


def ball_in_interval(ev: Evaluator, name: str, pt, dps: int, interval, eps):
    """Does ev[name] at `pt` lie in `interval` as a Root's acceptance asks (a closed end
    within eps, an open end strictly), as far as its arb ball shows, whatever its values at
    `dps` digits said?  What a Root asks of its claimed value: the value's formula can
    cancel (cosh(a)^2 - sinh(a)^2 + 1/2 is 1/2 at 50, 90 and 180 digits for a = 100, inside
    [0, 1]; it is 3/2).  Returns
    (answer, q): "in" when the ball lies where the acceptance asks, or is accurate (its
    radius within noise(dps) of its size) and straddles an end (a tie at that resolution,
    as the acceptance decides one); "out" when the ball lies wholly where the acceptance
    fails; None when arb cannot evaluate it (no program, or no finite ball at any digits up to
    the cap: the acceptance stands); "unresolved" when GUARD_CAP * high digits leave a
    finite ball too wide.  q: the digits at which the ball decided."""
    from .ball import compile_ball, exact_ball
    args = arb_point(ev.symbols, pt)
    q, cap, finite = dps, GUARD_CAP * ev.high, False
    ends = [(e, open_, side) for e, open_, side in ((interval.start, interval.left_open, -1),
                                                     (interval.end, interval.right_open, 1)) if e.is_finite]
    with _arb_digits(cap):  # an end's constants (1/3, pi) made at the most digits asked, as ball_at's
        programs = [compile_ball(e, ()) for e, _, _ in ends]
    if any(f is None for f in programs):
        return None, q
    while True:
        with _arb_digits(q) as flint:
            ball = ev.ball_at(name, args) if flint is not None else None
            if ball is None:
                return None, q
            lost = NOT_FINITE_STEP
            if ball.is_finite():
                finite = True
                slack = exact_ball(eps)
                inside, outside = True, False
                for (_, open_, side), f in zip(ends, programs):
                    end = f([])
                    # the acceptance: v > end (open) or v >= end - eps (closed), mirrored at the top
                    lo = ball if side < 0 else -ball
                    bound = (end if side < 0 else -end) - (0 if open_ else slack)
                    if not (lo > bound if open_ else lo >= bound):
                        inside = False
                    if (lo <= bound) if open_ else (lo < bound):
                        outside = True
                if inside:
                    return "in", q
                if outside:
                    return "out", q
                allowed = noise(dps) * max(mpmath.mpf(1), _arb_float(ball.abs_lower()))
                lost = _lost_digits(ball, allowed)
                if lost == 0:
                    return "in", q
        q = _more_digits(q, lost, cap)
        if q is None:
            return ("unresolved", cap) if finite else (None, dps)  # never finite: as no ball (see _guard)


@lru_cache(maxsize=64)
def _tolerances(dps):
    """(tol(dps), noise(dps)) as exact arb values, made once per precision."""
    from .ball import exact_ball
    return exact_ball(tol(dps)), exact_ball(noise(dps))


def lost_note(p, q, then):
    """A counterexample decided by the guard says so (its confirmation at 2p+10 and twice
    that digits was not the one that counted)."""
    return f"the values at {p} digits lost digits to cancellation (arb ball): decided at {q} digits and {then}"


def _order_rules(d, scale, d_at, diff_at, strict, exact_zero):
    """The usual decision from d (at the working precision): (verdict, whether a True rests
    on an exact equality)."""
    if d < 0 and (not strict or d < -noise(diff_at.precision) * scale):
        return False, False  # clearly satisfied (the claim is d < 0, or d <= 0)
    dh, sh = d_at(diff_at.high)
    if dh < -tol(diff_at.high) * sh:
        return False, False
    if dh > tol(diff_at.high) * sh:
        d2, s2 = d_at(2 * diff_at.high)
        if d2 > tol(2 * diff_at.high) * s2 and abs(d2 - dh) <= d2 / 100:
            return True, False
        return None, False  # not stable across precisions: rounding, not a violation
    if dh <= 0 and not strict:
        return False, False
    if strict and exact_zero():
        return True, True
    return None, False


class Diff:
    """ev[a] at point pa minus ev[b] at point pb, at any precision: lhs - rhs of an
    inequality (same point) or f(first) - f(second) of a monotonicity pair."""

    def __init__(self, ev, a, pa, b, pb):
        self.ev, self.a, self.pa, self.b, self.pb = ev, a, pa, b, pb
        self.precision, self.high = ev.precision, ev.high
        self.values = None  # (first, second) at the working precision (or where the guard decided)
        self.last = None  # (first, second) at the latest precision asked
        self.values_dps = self.last_dps = None
        self.guard_note = None  # how the guard decided a violation, when it did

    def __call__(self, dps):
        va, vb = self.ev.at(self.a, self.pa, dps), self.ev.at(self.b, self.pb, dps)
        self.last, self.last_dps = (va, vb), dps
        if self.values is None:
            self.values, self.values_dps = (va, vb), dps
        with mpmath.workdps(dps):
            return va - vb, max(mpmath.mpf(1), abs(va), abs(vb))

    def sides(self, flint):
        """The arb balls of the two sides at arb's current precision (None where arb cannot)."""
        ev = self.ev
        va = ev.ball_at(self.a, arb_point(ev.symbols, self.pa))
        if va is None:
            return None
        vb = ev.ball_at(self.b, arb_point(ev.symbols, self.pb))
        if vb is None:
            return None
        return va, vb

    def ball(self, flint):
        """The arb ball of the difference at arb's current precision (None where arb cannot)."""
        got = self.sides(flint)
        if got is None:
            return None
        return got[0] - got[1]  # not finite: the guard asks again with more digits


def check_order(ev, op, pts, syms, lhs="lhs", rhs="rhs"):
    tight, min_margin, screened = 0, None, 0
    min_float_margin = None
    for pt in pts:
        try:
            if ev.screen:
                fa, fb = ev.float_at(lhs, pt), ev.float_at(rhs, pt)
                if screen_order(op, fa, fb):
                    screened += 1
                    m = abs(fa - fb) / max(1.0, abs(fa), abs(fb))
                    min_float_margin = m if min_float_margin is None else min(min_float_margin, m)
                    continue
            diff = Diff(ev, lhs, pt, rhs, pt)
            verdict = decide_order(op, diff, lambda: exactly_zero(
                ev.exprs[lhs] - ev.exprs[rhs], syms, pt))
            va, vb = diff.values
            if verdict is True:
                dps = max(ev.high, diff.values_dps)  # more when the guard found digits lost
                with mpmath.workdps(dps):
                    d = ev.at(lhs, pt, dps) - ev.at(rhs, pt, dps)
                cx = {"type": "inequality violated", "point": point_repr(syms, pt),
                      lhs: fmt(va), rhs: fmt(vb), f"{lhs} - {rhs}": fmt(d, 6)}
                if diff.guard_note:
                    cx["cancellation"] = diff.guard_note
                return NumericOutcome("counterexample", {"points": len(pts)}, cx, witness={"point": pt})
            if verdict is None:
                tight += 1
            else:
                with mpmath.workdps(ev.precision):
                    m = abs(va - vb) / max(mpmath.mpf(1), abs(va), abs(vb))
                min_margin = m if min_margin is None else min(min_margin, m)
        except Undefined as exc:
            return NumericOutcome("counterexample", {"points": len(pts)}, undefined_cx(syms, pt, exc),
                                  witness={"point": pt})
    if min_float_margin is not None:
        fm = mpmath.mpf(min_float_margin)
        min_margin = fm if min_margin is None else min(min_margin, fm)
    ev_ = {"points": len(pts), "digits": ev.precision, "tight_points": tight,
           "min_relative_margin": fmt(min_margin, 3) if min_margin is not None else None}
    if ev.screen:
        ev_["screened_in_floats"] = screened
    if tight == len(pts):
        return NumericOutcome("inconclusive", ev_)
    return NumericOutcome("consistent", ev_)
