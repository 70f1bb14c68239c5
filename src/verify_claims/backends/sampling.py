"""Seeded sample points of a declared domain, for the numeric spot-checks.

A quarter of the points press one or more coordinates against a boundary (closed ends
exactly, open ends at distances 1e-3 ... 1e-20), because that is where the paper's
statements are delicate.  One in eight puts coordinates on simple numbers of their set
(0, 1, -1, 1/2, 2, ...): where conventions live (a tie r_i = r_j, 0 log 0) and where a
formula's branches meet (a ratio of 1 in the clipping band), which random points never
hit exactly -- the mutation run showed a tie convention and a clipping branch that no
random point tested.  Points are mpmath numbers at the requested precision, so a
point 1e-20 from an end is represented exactly enough to evaluate there.
"""

from __future__ import annotations

import random
from functools import lru_cache

import mpmath
import sympy as sp
from mpmath.libmp import fzero, from_float, from_int, mpf_add, mpf_mul, mpf_neg, mpf_pow, mpf_sub

from ..model.domain import DeclarationError, Domain
from .evaluate import Undefined, compile_expr

__all__ = ["sample", "contains", "where_values", "holds", "in_interval", "end_value"]


def sample(domain: Domain, n: int, rng: random.Random, dps: int, max_tries: int = 200, edges: bool = True):
    """Return up to n points (dicts symbol -> mpf) satisfying every `where` relation.

    Raises DeclarationError if the relations reject every candidate: the domain is then
    (numerically) empty."""
    syms = domain.symbols()
    checks = _where_programs(domain)
    kinds = [type(rel) for rel in domain.where]
    points, tries = [], 0
    # simple points come from their own generator, derived from (not drawn from) `rng`: the
    # ordinary points, and every later draw from `rng`, are what they were without them
    simple_rng = random.Random(repr(rng.getstate()))
    # arb at 53 bits, never finer than mpmath's working precision here (dps >= 15): a ball
    # that excludes 0 then excludes mpmath's rounding too (_decided)
    with mpmath.workdps(dps), _flint().ctx.workprec(ARB_BITS):
        draws = [(s, _drawer(domain.sets[s])) for s in syms]
        in_balls = _where_balls(domain) if checks else None
        while len(points) < n:
            edge = edges and len(points) % 4 == 3
            tries += 1
            if in_balls is None:
                pt = {s: draw(rng, edge and rng.random() < 0.7) for s, draw in draws}
                ok = _satisfies(pt, syms, kinds, checks, dps)
            else:
                # the candidate as balls first (the same draws of `rng`): a relation its balls
                # decide needs no mpmath, and a rejected candidate is never made in mpmath
                lazy = [draw.lazy(rng, edge and rng.random() < 0.7) for _, draw in draws]
                ok = _decided(in_balls, [d[0] for d in lazy])
                if ok is False:
                    pt = None
                else:
                    pt = {s: (d[2] if d[1] is None else d[1](d[2])) for s, d in zip(syms, lazy)}
                    if ok is None:
                        ok = _satisfies(pt, syms, kinds, checks, dps)
            if ok:
                points.append(pt)
            elif tries > max_tries + 20 * n and len(points) == 0:
                raise DeclarationError(
                    "domain appears empty: no sampled point satisfies "
                    + " and ".join(str(r) for r in domain.where))
            elif tries > 50 * n + max_tries:
                break
        if edges:
            _put_simple_points(points, domain, syms, kinds, checks, simple_rng, dps, dict(draws))
    return points


def _put_simple_points(points, domain, syms, kinds, checks, rng, dps, draws=None) -> None:
    """Every eighth point (from the second) replaced by one on simple numbers, when such a
    point satisfies `where` within a few tries.  `draws`: the sampler's drawer per symbol
    (_drawer), which gives an ordinary sample as _sample_set does, in less time."""
    draws = draws or {}
    for i in range(1, len(points), 8):
        for _ in range(20):
            pt = {s: _simple_or_sampled(domain.sets[s], rng, draws.get(s)) for s in syms}
            if _satisfies(pt, syms, kinds, checks, dps):
                points[i] = pt
                break


def _satisfies(pt, syms, kinds, checks, dps) -> bool:
    """Does the point satisfy every `where` relation (compiled: `checks`, of classes `kinds`)?
    Asked inside workdps(dps) (sample)."""
    if not checks:
        return True
    values = [pt[s] for s in syms]
    return all(holds(k, _value_here(f, values)) for k, f in zip(kinds, checks))


def _value_here(prog, values):
    try:
        return prog.mp_here(values)
    except Undefined:
        return None


def _value(prog, pt, syms, dps):
    try:
        return prog.mp_at([pt[s] for s in syms], dps)
    except Undefined:
        return None


def contains(domain: Domain, pt, dps: int) -> bool:
    """Does the point satisfy every `where` relation?  (Per-symbol sets are the sampler's
    business; this guards points built by moving one coordinate.)"""
    return all(holds(type(rel), v) for rel, v in zip(domain.where, where_values(domain, pt, dps)))


def where_values(domain: Domain, pt, dps: int) -> list:
    """lhs - rhs of every `where` relation at the point (None where undefined)."""
    syms = domain.symbols()
    return [_value(f, pt, syms, dps + 10) for f in _where_programs(domain)]


def _where_programs(domain: Domain):
    # compiled once per domain: contains() runs per monotonicity pair and per rival.  Named
    # by place, not by the relation's text: every caller takes an undefined value as "not
    # satisfied" and drops the message, and printing the relations cost 0.2 s of a fresh
    # clone's CPU
    progs = domain.__dict__.get("_where_programs")
    if progs is None:
        syms = domain.symbols()
        progs = [compile_expr(rel.lhs - rel.rhs, syms, f"where relation {i}")
                 for i, rel in enumerate(domain.where, 1)]
        object.__setattr__(domain, "_where_programs", progs)
    return progs


def holds(kind, value) -> bool:
    """Does a relation of this sympy class hold, given lhs - rhs?  (None: undefined.)"""
    if value is None or isinstance(value, mpmath.mpc):
        return False
    if kind is sp.StrictLessThan:
        return value < 0
    if kind is sp.LessThan:
        return value <= 0
    if kind is sp.StrictGreaterThan:
        return value > 0
    if kind is sp.GreaterThan:
        return value >= 0
    if kind is sp.Unequality:
        return value != 0
    if kind is sp.Equality:
        return value == 0
    raise DeclarationError(f"unsupported relation {kind.__name__} in `where`")


def in_interval(v, st: sp.Interval) -> bool:
    flo, fhi = _ends(st)
    if flo is not None and (v < flo or (v == flo and st.left_open)):
        return False
    if fhi is not None and (v > fhi or (v == fhi and st.right_open)):
        return False
    return True


_EDGE_GAPS = [mpmath.mpf(10) ** -k for k in (3, 6, 10, 15, 20)]
_ENDS: dict = {}


def _ends(st):
    """The finite ends of an interval as 60-digit mpf (None for an infinite end), made once
    per set: sympy Floats are slow to build, and a maximiser samples its feasible set once
    per parameter point."""
    got = _ENDS.get(st)
    if got is None:
        if len(_ENDS) > 4096:
            _ENDS.clear()
        got = _ENDS[st] = (end_value(st.start) if st.start.is_finite else None,
                           end_value(st.end) if st.end.is_finite else None)
    return got


@lru_cache(maxsize=4096)
def end_value(e):
    """A finite end of a declared set (or any real number sympy can evaluate) as an mpf of
    60 digits, whatever the caller's precision: mpf() rounds to the working one (an end of
    1/3 kept at 15 digits let 1/3 - 1e-18 count as inside [1/3, 4]), and sympy's Float
    takes no sqrt(2), log 2 or exp(1002) (a TypeError for such an end).  Kept per end: the
    feasibility of every rival asks again."""
    with mpmath.workdps(60):
        return mpmath.mpf(sp.N(e, 60))


_SIMPLE = [sp.Integer(0), sp.Integer(1), sp.Rational(1, 2), sp.Integer(2), sp.Integer(-1), sp.Rational(1, 4),
           sp.Rational(3, 4), sp.Rational(3, 2), sp.Rational(1, 10), sp.Integer(3), sp.Rational(-1, 2),
           sp.Integer(-2), sp.Integer(10)]


class _Exact:
    """A 50-digit value handed to mpmath.mpf as sympy's Float was (its _mpf_ rounded to the
    working precision), without building the sympy Float every time."""
    __slots__ = ("_mpf_",)

    def __init__(self, v):
        self._mpf_ = sp.Float(v, 50)._mpf_


_SIMPLE_EXACT = [_Exact(v) for v in _SIMPLE]
_INSIDE: dict = {}


def _simple_or_sampled(st, rng: random.Random, draw=None):
    """A simple number of the set (most of the time; the simplest ones, 0 1 1/2 2, half
    of those times), else an ordinary sample (by `draw`, the set's _drawer, when given:
    the same number from the same draws of `rng`)."""
    if rng.random() < 0.8:
        inside = _INSIDE.get(st)
        if inside is None:
            if len(_INSIDE) > 4096:
                _INSIDE.clear()
            inside = _INSIDE[st] = [e for v, e in zip(_SIMPLE, _SIMPLE_EXACT) if _simple_in(v, st)]
        if inside:
            pool = inside[:2] if rng.random() < 0.5 else inside
            return mpmath.mpf(rng.choice(pool))
    return draw(rng, False) if draw is not None else _sample_set(st, rng, False)


def _simple_in(v, st) -> bool:
    if isinstance(st, sp.Interval):
        return in_interval(mpmath.mpf(sp.Float(v, 50)), st)
    return bool(st.contains(v) == sp.true)


def _drawer(st):
    """draw(rng, edge) -> _sample_set(st, rng, edge), at the working precision, with the
    set's ends and width worked out once: the same numbers from the same draws of `rng`
    (the ordinary points of an interval, most of all points, in mpmath's own low-level
    arithmetic; every other case by _sample_set itself).

    ``draw.lazy(rng, edge)`` makes the same draws of `rng` and returns (ball, make, arg):
    an arb ball that holds the number draw would give, and the number itself, ``arg`` when
    ``make`` is None, else ``make(arg)``: made only for a candidate the `where` relations'
    balls do not reject (sample)."""
    flint = _flint()
    if not isinstance(st, sp.Interval):
        def other(rng, edge):
            return _sample_set(st, rng, edge)

        def other_lazy(rng, edge):
            v = _sample_set(st, rng, edge)
            return _working_ball(v), None, v
        other.lazy = other_lazy
        return other
    prec, rnd = mpmath.mp._prec_rounding
    flo, fhi = _ends(st)
    make = mpmath.mp.make_mpf
    edge_draw = _edge_drawer(st, flo, fhi)

    def edge_lazy(rng):
        v = edge_draw(rng)
        return _working_ball(v), None, v
    if flo is not None and fhi is not None:
        # flo + (fhi - flo) * mpf(u), each operation rounded as mpf's operators round it
        flo_, fhi_ = flo._mpf_, fhi._mpf_
        width_ = mpf_sub(fhi_, flo_, prec, rnd)
        lo_open, hi_open = bool(st.left_open), bool(st.right_open)

        def exactly(u):
            x_ = mpf_add(flo_, mpf_mul(width_, from_float(u), prec, rnd), prec, rnd)
            if x_ == flo_ and lo_open or x_ == fhi_ and hi_open:  # normalised: equal values, equal tuples
                return (flo + fhi) / 2
            return make(x_)

        def draw(rng, edge):
            if edge:
                return edge_draw(rng)
            return exactly(rng.random())
        # the ball: flo + width u in arb, widened by the two roundings at the working
        # precision (each at most 2^-prec of a value no larger than |flo| + |width|)
        lo_b, width_b = _exact_ball(flo), _exact_ball(make(width_))
        hi_b = _exact_ball(fhi)
        slack = _around_zero((abs(lo_b) + abs(hi_b) + abs(width_b)) * flint.arb(2) ** (2 - prec))

        def lazy(rng, edge):
            if edge:
                return edge_lazy(rng)
            u = rng.random()
            b = lo_b + width_b * flint.arb(u) + slack
            if u == 0.0 or b.overlaps(lo_b) or b.overlaps(hi_b):  # where draw moves an open end's point
                v = exactly(u)
                return _working_ball(v), None, v
            return b, exactly, u
        draw.lazy = lazy
        return draw

    def magnitude(pow_, v):
        if pow_:
            mag_ = mpf_pow(_TEN, from_float(v), prec, rnd)
        else:
            mag_ = from_float(v)
        return _HALF if mag_ == fzero else mag_

    def unbounded(args):
        pow_, v, negative = args
        mag_ = magnitude(pow_, v)
        if flo is not None:
            return make(mpf_add(flo._mpf_, mag_, prec, rnd))
        if fhi is not None:
            return make(mpf_sub(fhi._mpf_, mag_, prec, rnd))
        return make(mpf_neg(mag_)) if negative else make(mag_)

    def unbounded_draws(rng):
        """(a power of ten?, its exponent or the magnitude, negative?): the draws of `rng`
        an ordinary point of an unbounded interval takes, in their order (draw and lazy)."""
        pow_ = rng.random() < 0.5
        v = rng.uniform(-4, 4) if pow_ else rng.uniform(0, 10)
        return pow_, v, flo is None and fhi is None and not rng.random() < 0.5

    def draw_unbounded(rng, edge):
        if edge:
            return edge_draw(rng)
        return unbounded(unbounded_draws(rng))
    # the ball: 10^v in arb, widened by mpf_pow's error at the working precision (a few units
    # in the last place of at most 10^4), then the end's sum, widened by its rounding
    end_b = _exact_ball(flo if flo is not None else fhi) if flo is not None or fhi is not None else None
    ten = flint.arb(10)
    pow_slack = _around_zero(flint.arb(2) ** (4 - prec) * 10 ** 4)
    sum_slack = _around_zero(flint.arb(2) ** (2 - prec) * ((abs(end_b) if end_b is not None else 0) + 10 ** 4))

    def lazy_unbounded(rng, edge):
        if edge:
            return edge_lazy(rng)
        pow_, v, negative = unbounded_draws(rng)
        if v == 0.0:  # a magnitude of 0 is moved to 1/2 (_HALF), as draw does
            x = unbounded((pow_, v, negative))
            return _working_ball(x), None, x
        m = ten ** flint.arb(v) + pow_slack if pow_ else flint.arb(v)
        if end_b is None:
            b = -m if negative else m
        else:
            b = (end_b + m if flo is not None else end_b - m) + sum_slack
        return b, unbounded, (pow_, v, negative)
    draw_unbounded.lazy = lazy_unbounded
    return draw_unbounded


def _flint():
    import flint
    return flint


def _exact_ball(v):
    """An mpf as the arb ball of exactly its value (backends.ball.exact_ball), kept for
    the few numbers every draw of edge points and simple numbers repeats."""
    got = _BALLS.get(v._mpf_) if isinstance(v, mpmath.mpf) else None
    if got is None:
        from .ball import exact_ball
        got = exact_ball(v)
        if isinstance(v, mpmath.mpf):
            if len(_BALLS) > 4096:
                _BALLS.clear()
            _BALLS[v._mpf_] = got
    return got


_BALLS: dict = {}

# the bits of arb's arithmetic while sampling (sample): no more than mpmath's at any
# sampling precision, so its roundings cover mpmath's
ARB_BITS = 53


def _working_ball(v):
    """The ball of exactly the number mpmath evaluates a `where` relation at: v rounded to
    the working precision (Program.mp_here rounds every argument so: an end kept at 60
    digits is asked about at the working precision)."""
    if isinstance(v, mpmath.mpf) and v._mpf_[3] > mpmath.mp.prec:
        v = +v
    return _exact_ball(v)


def _around_zero(bound):
    """The ball [-b, b] for the upper end b of |bound|."""
    b = abs(bound).upper() if hasattr(bound, "upper") else abs(bound)
    return _flint().arb.union(-b, b)


def _where_balls(domain):
    """Per `where` relation, (its sympy class, an arb program of lhs - rhs or None where
    arb does not evaluate it), compiled once per domain; None when no relation has one."""
    got = domain.__dict__.get("_where_balls", False)
    if got is False:
        from .ball import compile_ball
        syms = domain.symbols()
        got = [(type(rel), compile_ball(rel.lhs - rel.rhs, syms)) for rel in domain.where]
        if all(prog is None for _, prog in got):
            got = None
        object.__setattr__(domain, "_where_balls", got)
    return got


def _decided(in_balls, balls):
    """Do the balls of a candidate satisfy every `where` relation: True, False, or None when
    some relation's ball does not tell (then mpmath decides, as it always did).  A relation
    is decided only where its ball of lhs - rhs lies wholly on one side of 0, or is exactly
    0: the sign mpmath gives the candidate's numbers there, the balls holding them."""
    verdict = True
    flint_arb = _flint().arb
    for kind, prog in in_balls:
        if prog is None:
            verdict = None
            continue
        try:
            b = prog(balls)
        except Exception:  # noqa: BLE001 - undefined, or not finite: mpmath decides
            verdict = None
            continue
        # decided only where 0 lies outside the ball widened to twice its radius: then the
        # exact value is farther from 0 than arb's roundings, which (at ARB_BITS, no finer than
        # mpmath's working precision) bound mpmath's own, so mpmath's value has its sign
        wide = b if b.is_exact() else flint_arb(b.mid(), 2 * b.rad())
        if wide < 0:
            sign = -1
        elif wide > 0:
            sign = 1
        elif b.is_zero() and b.is_exact():
            sign = 0
        else:
            verdict = None
            continue
        if not holds(kind, sign):
            return False
    return verdict


_TEN, _HALF = from_int(10), from_float(0.5)
_SIDES = ("lo", "hi")
# rng.choice over these indices draws what rng.choice(_EDGE_GAPS) draws (choice takes
# _randbelow(len(seq))), and names the gap by its place in the table below
_GAP_AT = tuple(range(len(_EDGE_GAPS)))


def _edge_drawer(st, flo, fhi):
    """draw(rng) -> _sample_set(st, rng, True) for an interval: the point pressed against
    an end, from the same draws of `rng`.  The ten points it can be (an end's side by a
    gap, _edge_point) are worked out once per interval and working precision (and
    rounding, which mpmath leaves at nearest): a quarter
    of all points are edge points, and their arithmetic in mpmath's high-level numbers
    was most of the sampler's time on them."""
    lo_points, hi_points = _edge_table(st, *mpmath.mp._prec_rounding)
    lo_closed, hi_closed = not st.left_open, not st.right_open

    def draw(rng):
        side = rng.choice(_SIDES)
        at = rng.choice(_GAP_AT)
        if side == "lo":
            if flo is not None and lo_closed and rng.random() < 0.3:
                return flo
            return lo_points[at]
        if fhi is not None and hi_closed and rng.random() < 0.3:
            return fhi
        return hi_points[at]
    return draw


@lru_cache(maxsize=4096)
def _edge_table(st, prec, rounding):
    """Per side, the points at each gap, computed in the working context, which the key
    names (prec, rounding: what mpf arithmetic depends on)."""
    flo, fhi = _ends(st)
    return tuple(tuple(_edge_point(side, gap, flo, fhi) for gap in _EDGE_GAPS) for side in _SIDES)


def _edge_point(side, gap, flo, fhi):
    """The point `gap` inside the end on `side` (of the interval's width, at most 1), or,
    for an infinite end, 1/gap beyond the finite end (or 0) towards it."""
    if side == "lo" and flo is not None:
        width = (fhi - flo) if fhi is not None else mpmath.mpf(1)
        return flo + gap * min(width, 1)
    if side == "hi" and fhi is not None:
        width = (fhi - flo) if flo is not None else mpmath.mpf(1)
        return fhi - gap * min(width, 1)
    big = 1 / gap
    if side == "hi" or flo is not None:
        return (flo if flo is not None else 0) + big
    return (fhi if fhi is not None else 0) - big


def _sample_set(st, rng: random.Random, edge: bool):
    """One number from a sympy set; with edge=True, one pressed against an end."""
    if isinstance(st, sp.FiniteSet):
        return mpmath.mpf(sp.Float(rng.choice(list(st)), 50)) if not edge else mpmath.mpf(
            sp.Float(rng.choice([min(st), max(st)]), 50))
    if isinstance(st, sp.Range):
        # respect the step: Range(1, 10, 2) is {1, 3, 5, 7, 9}
        if st.size.is_finite:
            k = rng.choice([0, int(st.size) - 1]) if edge else rng.randrange(int(st.size))
            return mpmath.mpf(int(st[k]))
        start = st.inf if st.inf.is_finite else st.sup
        step = abs(st.step) if st.inf.is_finite else -abs(st.step)
        k = rng.choice([0, 1, 1000]) if edge else rng.randrange(1000)
        return mpmath.mpf(int(start + k * step))
    flo, fhi = _ends(st)
    if edge:
        side = rng.choice(_SIDES)
        gap = _EDGE_GAPS[rng.choice(_GAP_AT)]
        if side == "lo" and flo is not None and not st.left_open and rng.random() < 0.3:
            return flo
        if side == "hi" and fhi is not None and not st.right_open and rng.random() < 0.3:
            return fhi
        return _edge_point(side, gap, flo, fhi)
    if flo is not None and fhi is not None:
        x = flo + (fhi - flo) * mpmath.mpf(rng.random())
        if x == flo and st.left_open or x == fhi and st.right_open:
            x = (flo + fhi) / 2
        return x
    # unbounded: mix of moderate values and log-spread magnitudes
    mag = mpmath.mpf(10) ** mpmath.mpf(rng.uniform(-4, 4)) if rng.random() < 0.5 else mpmath.mpf(
        rng.uniform(0, 10))
    if mag == 0:
        mag = mpmath.mpf("0.5")
    if flo is not None:
        return flo + mag
    if fhi is not None:
        return fhi - mag
    return mag if rng.random() < 0.5 else -mag
