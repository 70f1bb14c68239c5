"""Shrinking a confirmed counterexample towards the simplest point of the domain that still fails.

Like Hypothesis: once the engine has a confirmed counterexample (a random or edge point
such as epsilon = 0.00125779, x = 5.73609), each coordinate in turn is replaced by the
simplest values of its declared set -- small integers, simple fractions (1/2, 1/4, 3/2,
1/10), round decimals (the raw value to one or two significant digits), the closed ends
of its interval -- simplest first, and the first one at which the claim *still fails the
same way* (the same counterexample type, the same failing step of a chain) is kept.
Passes over all coordinates repeat until none changes.  Every accepted step is a
counterexample confirmed by the kind's own rule (the same re-evaluation at more digits,
stable across precisions, that confirmed the raw point), and, where the expressions allow,
decided exactly in rational arithmetic: a step that exact arithmetic contradicts is not
taken.  A claim false only at non-simple points keeps its raw point.

**Simplicity.**  A value v = p/q (in lowest terms) has complexity
``digits(|p|) + (digits(q) if q > 1 else 0) + (1 if v < 0 else 0)``: 0 to 9 count 1, 10
and 1/2 count 2, 1/10 and 3/20 count 3, -1/4 counts 3, a random double around 40.  Values
are ordered by (complexity, denominator, magnitude, negative after positive): 1/2 before
1/5, 2 before 7 (``simpler``).  A candidate replaces a coordinate only if it comes strictly
earlier in this order, so every coordinate of the shrunk point is at least as simple as the
raw one's, the point's complexity (the sum over its coordinates) never grows, and
shrinking ends (finitely many values precede any given one).

**Respecting the domain.**  Candidates come from each symbol's declared set: inside an
Interval (an open end is never a candidate, a closed one is), members of a FiniteSet or a
Range (integrality and step included); a point must satisfy the domain's ``where``
relations (and whatever else the kind requires, e.g. a maximiser's rival in its feasible
set) before it is evaluated.

**Bounded and deterministic.**  No randomness: candidates and their order depend only on
the raw point and the declared sets.  Work is bounded by a number of evaluations of the
claim (``EVALUATIONS``), which decides where shrinking stops, and by a CPU-time safety
net (``SECONDS``) for expressions that are slow to evaluate (the note says so when it
stopped shrinking).  Only the final result of a claim is shrunk (``engine.verify``), never
the mutation run's screening of mutants.

A kind says how to re-check its claim at one point (``Kind.shrink_target``, returning a
:class:`Target`); this module holds the search shared by all kinds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import sympy as sp

from .timebox import TimeUp, time_limit

__all__ = ["Coordinate", "Target", "Shrunk", "shrink", "shrink_counterexample", "complexity", "point_complexity",
           "candidates", "simpler", "show", "rational_of", "parse_point", "exact_sign", "EVALUATIONS", "SECONDS"]

# the evaluation budget decides where shrinking stops (deterministic); the CPU seconds are
# only a safety net for slow expressions
EVALUATIONS = 300
SECONDS = 3.0
PASSES = 4
# per coordinate: at most this many of the simplest candidates, besides the raw value's roundings
PER_COORDINATE = 24
EXACT_SECONDS = 0.5  # CPU seconds for one exact (rational) confirmation
SHOWN_EXACTLY = 8  # a value this simple is shown exactly (1, not 1.0)


@dataclass
class Coordinate:
    """One coordinate of a counterexample the shrinker may move.  `key`: what the kind's
    check is keyed by (a symbol); `paths`: where the counterexample dict shows its value
    ((("point", "x"),), or (("point", "x"), ("x (first)",)) for a monotonicity pair's first
    value); `interior`: closed ends are not candidates either (a limit's parameters)."""

    key: object
    paths: tuple
    set: sp.Set
    start: object  # the value shrinking starts from (mpf): the raw one, unless `raw` says otherwise
    interior: bool = False
    raw: object = None  # the raw counterexample's value, when it is not `start` (a later phase)


@dataclass
class Target:
    """What a kind gives the shrinker: its coordinates, a check at one point (the kind's
    counterexample dict there, confirmed by its own rule, or None), the exact confirmation
    at a rational point (True: violated exactly, False: exact arithmetic says it holds,
    None: not decidable exactly) and how the numeric confirmation is done (in words)."""

    coords: list
    check: Callable
    exactly: Callable | None = None
    admissible: Callable | None = None
    confirmation: str = ""
    dps: int = 200  # digits of the candidate values handed to `check`
    fixed: dict = field(default_factory=dict)  # values `check` needs that are not coordinates
    # a second phase once these coordinates are shrunk: given their values (and `fixed`),
    # the target for the coordinates that depend on them (a maximiser's rival, once its
    # parameters are simple), or None
    then: Callable | None = None


@dataclass
class Shrunk:
    point: dict                 # key -> sympy Rational (shrunk) or mpf (kept raw)
    counterexample: dict | None  # the kind's counterexample at the shrunk point (None: nothing simpler fails)
    exact: bool | None          # decided exactly at the shrunk point
    evaluations: int
    passes: int
    stopped: str = ""           # why shrinking stopped early, if it did
    changed: list = field(default_factory=list)


# ------------------------------------------------------------------------- simplicity
def rational_of(v):
    """The exact rational of a value: a sympy Rational as is, an mpf's exact binary rational."""
    if isinstance(v, sp.Rational):
        return v
    if isinstance(v, (int,)):
        return sp.Integer(v)
    if isinstance(v, sp.Basic):
        return v if v.is_Rational else None
    try:
        v = v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)
        if not mpmath.isfinite(v):
            return None
        p, q = mpmath.libmp.to_rational(v._mpf_)  # signed (man_exp drops the sign)
    except (TypeError, ValueError, AttributeError):
        return None
    return sp.Rational(int(p), int(q))


def _digits(n: int) -> int:
    return len(str(abs(int(n))))


def complexity(v) -> int:
    """Digits of |p| and of q (q > 1) of v = p/q in lowest terms, plus 1 when negative;
    a value that is not rational (an irrational member of a FiniteSet) counts 40."""
    r = rational_of(v)
    if r is None:
        return 40
    p, q = int(r.p), int(r.q)
    return _digits(p) + (_digits(q) if q > 1 else 0) + (1 if p < 0 else 0)


def simpler(a, b) -> bool:
    """Does value a come strictly before value b in the order of simplicity?"""
    return _order(a) < _order(b)


def point_complexity(values) -> int:
    return sum(complexity(v) for v in values)


def _order(v):
    r = rational_of(v)
    if r is None:
        return (complexity(v), math.inf, math.inf, False)
    try:
        size = abs(float(r))
    except OverflowError:
        size = math.inf
    return (complexity(v), int(r.q), size, bool(r < 0))


def show(v) -> str:
    """A shrunk value as text: an integer as is, a short exact decimal (1.5, 0.25, 0.001),
    else the fraction (1/3)."""
    r = rational_of(v)
    if r is None:
        return str(v)
    if r.q == 1:
        return str(r.p)
    q = int(r.q)
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q == 1:
        places = max(twos, fives)
        if places <= 6:
            s = f"{abs(int(r.p)) * 10 ** places // int(r.q):0{places + 1}d}"
            s = f"{'-' if r < 0 else ''}{s[:-places]}.{s[-places:]}"
            return s
    return f"{r.p}/{r.q}"


# ------------------------------------------------------------------------- candidates
def _pool():
    vals = set()
    for k in range(-10, 11):
        vals.add(sp.Integer(k))
    for k in (100, 1000, -100, -1000):
        vals.add(sp.Integer(k))
    for den in (2, 3, 4, 5, 10, 20, 100, 1000):
        for k in range(-19, 20):
            r = sp.Rational(k, den)
            if abs(r) < 10:
                vals.add(r)
    for k in range(4, 7):
        vals.add(sp.Rational(1, 10 ** k))
    return sorted(vals, key=_order)


_POOL = _pool()


def _round_sig(r, sig: int):
    """r rounded to `sig` significant decimal digits (an exact Rational)."""
    if r == 0:
        return sp.Integer(0)
    e = math.floor(math.log10(abs(float(r)))) if float(r) != 0 else 0
    scale = sp.Integer(10) ** (e - sig + 1)
    return sp.Rational(round(r / scale)) * scale


def _roundings(r) -> list:
    """The raw value to one and two significant digits, and its neighbouring integers."""
    if r is None:
        return []
    out = []
    try:
        out += [_round_sig(r, 1), _round_sig(r, 2)]
        if abs(r) < 10 ** 6:
            out += [sp.Integer(math.floor(r)), sp.Integer(math.ceil(r))]
    except (OverflowError, ValueError):
        return []
    return out


def _inside(v, st, interior: bool) -> bool:
    if isinstance(st, sp.Interval):
        lo, hi = st.start, st.end
        if lo.is_finite and (v < lo or (v == lo and (st.left_open or interior))):
            return False
        if hi.is_finite and (v > hi or (v == hi and (st.right_open or interior))):
            return False
        return True
    try:
        return bool(st.contains(v) == sp.true)
    except (TypeError, ValueError):
        return False


def candidates(st, current, interior: bool = False) -> list:
    """Values of the set `st` simpler than `current` (``simpler``), simplest first: the simplest
    of the pool (small integers, simple fractions, round decimals), the closed ends, near
    an open end 10^-k away from it, the raw value's roundings; members of a FiniteSet or
    Range."""
    cur = _order(current)
    pool: list = []
    if isinstance(st, sp.FiniteSet):
        pool = list(st)
    elif isinstance(st, sp.Range):
        if st.size.is_finite and st.size <= 200:
            pool = list(st)
        else:
            start = st.inf if st.inf.is_finite else st.sup
            step = abs(st.step) if st.inf.is_finite else -abs(st.step)
            pool = [start + k * step for k in range(12)] + [v for v in _POOL if v.q == 1]
    else:
        pool = list(_POOL)
        if isinstance(st, sp.Interval):
            for end, open_ in ((st.start, st.left_open), (st.end, st.right_open)):
                if end.is_finite and end.is_Rational:
                    if not open_ and not interior:
                        pool.append(end)
                    for k in (1, 2, 3):
                        pool += [end + sp.Rational(1, 10 ** k), end - sp.Rational(1, 10 ** k)]
    rounded = _roundings(rational_of(current))
    if isinstance(st, (sp.FiniteSet, sp.Range)):
        rounded = [r for r in rounded if r.q == 1]
    seen, simple = set(), []
    for v in sorted(pool, key=_order):
        v = sp.sympify(v)
        if v in seen or _order(v) >= cur or not _inside(v, st, interior):
            continue
        seen.add(v)
        simple.append(v)
        if len(simple) >= PER_COORDINATE:
            break
    for v in rounded:
        if v not in seen and _order(v) < cur and _inside(v, st, interior):
            seen.add(v)
            simple.append(v)
    return sorted(simple, key=_order)


# ------------------------------------------------------------------------- the search
def _mpf(v, dps):
    r = rational_of(v)
    if r is None:
        return mpmath.mpf(sp.Float(v, dps))
    with mpmath.workdps(dps):
        return mpmath.mpf(int(r.p)) / int(r.q)


def _same_failure(raw: dict, cx: dict) -> bool:
    return cx.get("type") == raw.get("type") and cx.get("failing step") == raw.get("failing step")


def _exact(target: Target, values: dict, raw: dict):
    """The exact verdict at a point (True / False / None), within its CPU slice (an
    undefined value is left to the numbers: exact arithmetic would only say zoo)."""
    if target.exactly is None or raw.get("type") == "undefined":
        return None
    exact_pt = {k: rational_of(v) for k, v in {**target.fixed, **values}.items()}
    if any(v is None for v in exact_pt.values()):
        return None
    box = None
    try:
        with time_limit(EXACT_SECONDS) as box:
            return target.exactly(exact_pt)
    except TimeUp as exc:
        if exc.box is not box:
            raise
        return None
    except Exception:  # noqa: BLE001 - not decidable exactly: the numbers decide
        return None


def shrink(target: Target, raw: dict, *, evaluations: int = EVALUATIONS, seconds: float = SECONDS) -> Shrunk:
    """Greedy per coordinate, simplest candidate first (``counterexample`` None when no
    simpler point still fails)."""
    t0 = time.process_time()
    values = {c.key: c.start for c in target.coords}   # the current point: raw mpf or Rational
    best, exact, evals, passes, stopped, changed = None, None, 0, 0, "", []
    for passes in range(1, PASSES + 1):
        moved = False
        for c in target.coords:
            for v in candidates(c.set, values[c.key], c.interior):
                if evals >= evaluations:
                    stopped = f"the budget of {evaluations} evaluations was used"
                    break
                if time.process_time() - t0 > seconds:
                    stopped = f"stopped after {seconds:g} s of CPU"
                    break
                trial = dict(values)
                trial[c.key] = v
                pt = {k: _mpf(x, target.dps) if isinstance(x, sp.Basic) else x
                      for k, x in {**target.fixed, **trial}.items()}
                if target.admissible is not None and not target.admissible(pt):
                    continue
                evals += 1
                try:
                    cx = target.check(pt)
                except (ArithmeticError, ValueError, TypeError):
                    cx = None
                if cx is None or not _same_failure(raw, cx):
                    continue
                ex = _exact(target, trial, raw)
                if ex is False:
                    continue  # exact arithmetic says the claim holds here: not a counterexample
                values, best, exact, moved = trial, cx, ex, True
                if c.key not in changed:
                    changed.append(c.key)
                break
            if stopped:
                break
        if stopped or not moved:
            break
    return Shrunk(values, best, exact, evals, passes, stopped, changed)


def _name(path: tuple) -> str:
    return str(path[-1]) if path[0] == "point" else " ".join(map(str, path))


def _set_at(cx: dict, path: tuple, text: str) -> None:
    d = cx
    for p in path[:-1]:
        if not isinstance(d.get(p), dict):
            return
        d = d[p]
    if path[-1] in d:
        d[path[-1]] = text


def shrink_counterexample(target: Target | None, raw: dict, **budget) -> dict:
    """The counterexample to report: the shrunk one first (its point and the values the
    kind reports, recomputed there; how it was confirmed; a note), the raw one under
    "raw"; or the raw one with a note when no simpler point still fails."""
    if target is None or not target.coords:
        return raw
    t0 = time.process_time()
    evaluations, seconds = budget.get("evaluations", EVALUATIONS), budget.get("seconds", SECONDS)
    res = shrink(target, raw, evaluations=evaluations, seconds=seconds)
    coords = list(target.coords)
    nxt = target.then({**target.fixed, **res.point}) if target.then is not None and not res.stopped else None
    if nxt is not None and nxt.coords:
        more = shrink(nxt, raw, evaluations=evaluations - res.evaluations,
                      seconds=max(0.0, seconds - (time.process_time() - t0)))
        coords += nxt.coords
        found = more.counterexample is not None
        res = Shrunk({**res.point, **more.point}, more.counterexample if found else res.counterexample,
                     more.exact if found else res.exact, res.evaluations + more.evaluations,
                     res.passes + more.passes, more.stopped, res.changed + more.changed)
    tried = f"{res.evaluations} candidate point{'s' if res.evaluations != 1 else ''} tried"
    if res.counterexample is None:
        note = "no simpler point of the domain still fails" + (f" ({tried})" if res.evaluations else "")
        if res.stopped:
            note += f"; {res.stopped}"
        return {**raw, "shrunk": note}
    cx = dict(res.counterexample)
    for k in {p[0] for c in coords for p in c.paths if len(p) > 1}:
        if isinstance(cx.get(k), dict):
            cx[k] = dict(cx[k])
    for c in coords:
        # shrunk values, and raw ones that are simple already (a closed end, 1 rather than 1.0),
        # exactly; the others as the kind shows them
        v = res.point[c.key]
        if isinstance(v, sp.Basic) or complexity(v) <= SHOWN_EXACTLY:
            for p in c.paths:
                _set_at(cx, p, show(v))
    before = point_complexity(rational_of(c.start if c.raw is None else c.raw) for c in coords)
    after = point_complexity(res.point[c.key] for c in coords)
    if raw.get("type") == "undefined":
        confirmed = "no real value there, with more digits too (as at the raw point)"
    else:
        confirmed = "exactly (rational arithmetic)" if res.exact else (target.confirmation or "numerically")
        if not res.exact and cx.get("cancellation"):
            # decided past digits lost to cancellation (backends/numeric.py's guard): at those digits
            confirmed = cx["cancellation"]
    names = ", ".join(_name(c.paths[0]) for c in coords if c.key in res.changed)
    note = (f"{names} simplified from the raw point (complexity {before} -> {after}; {tried}, "
            f"{res.passes} pass{'es' if res.passes != 1 else ''})")
    if res.stopped:
        note += f"; {res.stopped}"
    out = {k: v for k, v in cx.items() if k not in ("shrunk", "raw", "confirmed")}
    out["confirmed"] = confirmed
    out["shrunk"] = note
    out["raw"] = raw
    return out


# ------------------------------------------------------------------------- helpers for kinds
def parse_point(cx: dict, syms, key: str = "point") -> dict | None:
    """A counterexample's shown point back as mpf values (its "exact point" when there is
    one): for counterexamples that come without the engine's own point (certification)."""
    src = cx.get("exact point") if key == "point" and isinstance(cx.get("exact point"), dict) else cx.get(key)
    if not isinstance(src, dict):
        return None
    out = {}
    for s in syms:
        text = src.get(str(s))
        if text is None:
            return None
        try:
            r = sp.Rational(str(text))
        except (TypeError, ValueError, SyntaxError):
            return None
        out[s] = _mpf(r, 60)
    return out


def exact_sign(expr, point: dict):
    """The exact sign (-1, 0, 1) of expr at a rational point, or None when the value is not
    a rational number (a logarithm, a square root: decided at high precision instead)."""
    v = sp.sympify(expr).xreplace(point)
    if not v.is_Rational:
        return None
    return int(bool(v > 0)) - int(bool(v < 0))
