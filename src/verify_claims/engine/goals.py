"""Certification: a claim reduced to sign goals, each decided by the cheapest backend that can.

A *goal* says "e > 0 (or >= 0, < 0, <= 0, = 0) at every domain point".  Each kind says
which goals its claim amounts to (``kinds/*``); this module decides them:

1. backends are tried cheapest first (bernstein for a one-variable polynomial, smt where
   it can state the goal, symbolic, then ball, then interval only where ball declined); one that cannot apply (z3 and a
   logarithm, enclosures and an equality) is skipped before any work, and each gets a
   bounded slice of CPU time (METHOD_SECONDS);
2. after ball and before the interval method, one *monotone reduction* step: if e is
   monotone in a variable with a closed end where e is smallest, the goal at that end
   suffices (exact methods only);
3. a backend's "violated" answer is only a candidate: it becomes a counterexample after
   the claim itself is re-evaluated at that point with mpmath (the same
   stable-across-precision test as the spot-check) or exactly; an unconfirmed candidate,
   z3 ``unknown`` and a budget that runs out are all "undecided", with a one-line reason.

Deadlines are in CPU time of the process (time.process_time, like timebox.py), and z3
counts deterministic resource units: a loaded machine does not turn a certificate into
"no time left".  Which backend decided each goal is recorded in the claim's trace, so a
replay of the certificate runs only that backend.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import mpmath
import sympy as sp

from ..backends import METHODS, certification_backends
from ..backends.definedness import defined
from ..backends.instances import instances, written_once
from ..backends.sampling import contains, in_interval
from ..model.derivative import derivative
from ..model.domain import Domain

__all__ = ["Goal", "Certificate", "Found", "solve_goal", "certify_goals", "certify_claim", "methods_for", "open_interval",
           "domain_point", "none_check", "undecided", "short", "defined", "METHODS"]

# CPU seconds one method may spend on one goal while searching.  Measured on the bundled
# paper (2026-11-23): every goal decided took at most 0.46 s in sympy and 0.05 s in z3 (a
# 4x and 20x margin, so a machine whose hyperthreads are both busy still decides them),
# while a failing attempt ran until the claim's whole budget was gone.  Replaying a
# certificate runs only the recorded method, which may then use everything left.
# The ball backend (arb) decided every goal it certifies on the bundled paper in at most
# 1.5 s (2026-11-23); the mpmath interval method, its slower twin, runs only where ball
# declined.
# Bernstein coefficients decide a one-variable polynomial of degree 126 in 0.02 s
# (2026-11-23); a touching polynomial it cannot decide gets no more than a second.
METHOD_SECONDS = {"symbolic": 2.0, "smt": 1.0, "bernstein": 1.0, "ball": 6.0, "interval": 6.0, "monotone": 4.0}
# sympy's first pass at a goal, when a box method that takes the goal follows it: a sign
# analysis that wins mostly wins fast (from scratch on the bundled paper every goal it
# decided first took at most 0.33 s), while one that fails spends its whole slice (2 s on
# Appendix B's no-interior-stationary goal, which ball then decides).  One that runs out of
# this first slice gets its whole slice again, last, after the methods that follow failed;
# the first slice is only taken when the goal's time left holds all of their slices and that
# whole slice too, so a goal sympy decided before still is (later, never with less time).
SYMBOLIC_FIRST_SECONDS = 0.5


@dataclass
class Goal:
    expr: object
    want: str  # positive | nonnegative | negative | nonpositive | zero
    domain: Domain
    text: str
    extra: tuple = ()  # extra relations (z3 only), e.g. x != value
    curve: object = None  # interval.Curve: an exact zero curve of expr (box methods only)
    # "expr has the sign except on one curve x = v(parameters) where it touches 0", x this
    # variable (ball's touching search only): with the value a root, it is the only root in x
    off_curve: object = None
    # a finite parameter's instance whose sums are not written out yet (backends.instances):
    # a backend that does not add them up itself gets them written out
    sums_kept: bool = False


@dataclass
class Certificate:
    verdict: str  # "certified" | "refuted" | "undecided"
    method: str | None = None
    detail: str = ""
    seconds: float = 0.0
    boxes: int | None = None
    depth: int | None = None
    goals: list = field(default_factory=list)
    counterexample: dict | None = None
    reason: str = ""

    def to_json(self) -> dict:
        out = {"method": self.method, "detail": self.detail, "seconds": round(self.seconds, 4),
               "boxes": self.boxes, "depth": self.depth, "goals": self.goals}
        if self.reason:
            out["reason"] = self.reason
        return out


class Found(Exception):
    """A certification method's candidate, confirmed: the claim is refuted."""

    def __init__(self, cx):
        self.cx = cx


def short(e, n=80):
    s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."


def open_interval(iv: sp.Interval) -> sp.Interval:
    return sp.Interval(iv.start, iv.end, True, True)


def none_check(point):
    return None


def methods_for(claim):
    pick = getattr(claim, "certify_with", None)
    if pick == "none":
        return []
    if pick in METHODS:
        return [pick]
    return list(METHODS)


def undecided(t0, records, reason, boxes=0, depth=0):
    return Certificate("undecided", method=None, detail="", seconds=time.process_time() - t0,
                       boxes=boxes or None, depth=depth or None, goals=records, reason=reason[:400])


# ------------------------------------------------------------------ one goal
def _run_backend(name, goal, seconds, cx_check, trace):
    backend = certification_backends()[name]
    goal = _for_backend(backend, goal)
    why = backend.declines(goal)
    if why:
        return None, f"declined: {why}", {}
    dec = backend.decide(goal, seconds, trace)
    info = {k: v for k, v in (("boxes", dec.boxes), ("depth", dec.depth)) if v is not None}
    if dec.verdict == "holds":
        return "holds", dec.detail, info
    if dec.verdict == "violated":
        cx = cx_check(dec.point) if dec.point is not None else None
        if cx is None and getattr(cx_check, "exact", None) and dec.exact:
            cx = cx_check.exact(dec.exact)
        if cx is not None:
            raise Found(cx)
        if name == "smt":
            return None, "z3 sat, but its model is not confirmed by mpmath (not used)", info
        return None, "an enclosure had the wrong sign, but mpmath did not confirm it (not used)", info
    return None, dec.detail, info


def _for_backend(backend, goal):
    """The goal as `backend` takes it: its sums written out unless it adds them up itself."""
    return goal if backend.takes_sums else _written(goal)


def _written(goal):
    return replace(goal, expr=written_once(goal.expr), sums_kept=False) if goal.sums_kept else goal


def solve_goal(goal, methods, deadline, cx_check, trace=None, _reduce=True):
    """(method, detail, info) of the first method that holds, or (None, reasons, info)."""
    split = instances(goal.expr, goal.domain, written=False) \
        if goal.curve is None and goal.off_curve is None else None
    if split is not None:
        return _solve_instances(goal, split, methods, deadline, cx_check, trace, _reduce)
    tried = []
    info_all = {}
    options = list(methods)
    if "smt" in options and "symbolic" in options:
        # z3 first where it can state the goal: every goal it decided on the bundled paper
        # took under 0.02 s, while a failing sympy sign analysis spends its whole slice
        options.remove("smt")
        options.insert(options.index("symbolic"), "smt")
    if "bernstein" in options:
        # first of all where it applies (it declines anything but a one-variable polynomial
        # on a bounded interval at once): a long polynomial with algebraic coefficients
        # (finite group sizes) costs z3 and sympy their whole slices before it is reached
        options.remove("bernstein")
        options.insert(0, "bernstein")
    box_methods = [m for m in options if m in ("ball", "interval")]
    if _reduce and box_methods and "smt" in methods:
        # one monotone reduction step: after ball (on the bundled paper's 78 top-level goals,
        # from scratch, ball decided in 0.04-2.1 s several goals where the reduction first
        # spent 1-2 s failing, and failed in 0.4 s the one goal the reduction decided:
        # 14.8 s -> 12.4 s over those goals, the same winners), before the slower interval
        # method, which ball's failure leaves out anyway
        after = options.index("ball") + 1 if "ball" in options else options.index(box_methods[0])
        options.insert(after, "monotone")
    point = None
    if trace is not None:
        point = trace.point(f"goal:{goal.want}", goal.expr, goal.domain.sets, goal.domain.where, goal.extra)
        options = trace.options(point, options)
        if not options:
            return None, "not recorded in the certificate", {}
    replaying = trace is not None and trace.replaying
    ball_ran = False
    again = False  # sympy ran out of its first slice: a second pass, last (SYMBOLIC_FIRST_SECONDS)
    k = 0
    while k < len(options):
        m, k = options[k], k + 1
        if m == "monotone":
            until = deadline if replaying else min(deadline, time.process_time() + METHOD_SECONDS[m])
            red = _monotone_end(_written(goal), methods, until, trace)
            if red is not None:
                if trace is not None:
                    trace.won(point, m)
                return red[0], red[1], {}
            continue
        if m == "interval" and ball_ran and not replaying:
            # the same branch-and-bound over slower enclosures: not a second chance
            continue
        left = deadline - time.process_time()
        if left <= 0.05:
            tried.append(f"{m}: no time left")
            break
        share = left if replaying else min(left, METHOD_SECONDS[m])
        first = m == "symbolic" and not replaying and not again and _first_slice(goal, options[k:], left)
        if first:
            share = SYMBOLIC_FIRST_SECONDS
        started = time.process_time()
        status, detail, info = _run_backend(m, goal, share, cx_check, trace)
        if first and status != "holds" and time.process_time() - started >= 0.9 * share:
            again = True
            options.append(m)
            detail = f"first {share:g} s: {detail}"
        ball_ran = ball_ran or (m == "ball" and not detail.startswith("declined"))
        info_all.update(info)
        if status == "holds":
            if trace is not None:
                trace.won(point, m)
            return m, detail, info
        tried.append(f"{m}: {detail}")
    return None, "; ".join(tried), info_all


def _first_slice(goal, after, left) -> bool:
    """Does sympy take a short first slice (SYMBOLIC_FIRST_SECONDS) at this goal?  Only when
    ball or the interval method, among the methods `after` it, takes the goal (a box method
    that declines it would not spend the time saved), and when the `left` seconds hold the
    first slice, every later method's slice and sympy's whole slice after them."""
    boxes = [b for b in after if b in ("ball", "interval")]
    needed = SYMBOLIC_FIRST_SECONDS + METHOD_SECONDS["symbolic"] + sum(METHOD_SECONDS[b] for b in after)
    if not boxes or left < needed:
        return False
    backends = certification_backends()
    return any(not backends[b].declines(_for_backend(backends[b], goal)) for b in boxes)


def _solve_instances(goal, split, methods, deadline, cx_check, trace, _reduce):
    """A goal over a finite parameter that sets a summation bound, decided value by value
    (backends.instances): it holds when every value's goal holds; a candidate point of one
    value is confirmed with that value filled in."""
    s, cases = split
    if not cases:
        return None, f"no value of {s} is in the domain", {}
    used, boxes, depth = {}, 0, 0
    for v, ev, dom in cases:
        def check(point, v=v):
            return cx_check({**point, s: mpmath.mpf(int(v)) if v.is_Integer else mpmath.mpf(sp.Float(v, 40))})
        exact = getattr(cx_check, "exact", None)
        if exact is not None:
            check.exact = lambda point, v=v: exact({**point, s: v})
        sub = Goal(ev, goal.want, dom, f"{goal.text} [{s} = {v}]", extra=tuple(
            sp.sympify(r).xreplace({s: v}) for r in goal.extra), sums_kept=True)
        m, detail, info = solve_goal(sub, methods, deadline, check, trace, _reduce)
        boxes += info.get("boxes") or 0
        depth = max(depth, info.get("depth") or 0)
        if m is None:
            return None, f"at {s} = {v}: {detail}", {"boxes": boxes or None, "depth": depth or None}
        used.setdefault(m, []).append(v)
    if not defined(goal.expr, goal.domain, max(0.5, min(10.0, deadline - time.process_time()))):
        # a written-out term may have lost a singular factor (0 * log x is 0): the sum as
        # declared must be defined at every domain point for the goal to hold there
        return None, f"could not show every term of the sums defined for each {s}", {}
    values = [v for v, _, _ in cases]
    how = "; ".join(f"{m} for {len(vs)} value(s)" for m, vs in used.items())
    info = {k: val for k, val in (("boxes", boxes or None), ("depth", depth or None)) if val is not None}
    return ("+".join(used), f"value by value over {s} in {{{values[0]}, ..., {values[-1]}}} ({len(values)} values): "
            f"{how}", info)


def _monotone_end(goal, methods, deadline, trace=None):
    """Reduce a sign goal by one variable: if e is monotone in s on s's interval (its
    derivative's sign certified on the interior, e defined on the whole interval) and the
    interval has a closed finite end where e is smallest (for a lower-bound goal), then
    e >= e(end) at every domain point, and it suffices to certify the goal at s = end
    over the other variables.  Variables named in `where` relations are not reduced (their
    slice need not be that interval).  Exact methods only (symbolic, smt), one level.
    Returns (method, detail) or None."""
    if goal.want not in ("positive", "nonnegative", "negative", "nonpositive") or goal.extra:
        return None
    sub_methods = [m for m in methods if m in ("symbolic", "smt")]
    if not sub_methods:
        return None
    lower = goal.want in ("positive", "nonnegative")  # e is bounded below: its minimum matters
    cont = [s for s, st in goal.domain.sets.items() if isinstance(st, sp.Interval)]
    if len(cont) < 2:
        return None
    e = sp.sympify(goal.expr)
    for s in cont:
        st = goal.domain.sets[s]
        if not e.has(s) or any(sp.sympify(r).has(s) for r in goal.domain.where):
            continue
        if deadline - time.process_time() < 0.5:
            return None
        try:
            der = derivative(e, s)
        except Exception:  # noqa: BLE001
            continue
        inner = Domain({**goal.domain.sets, s: open_interval(st)}, goal.domain.where)
        for dwant, end, closed in (("nonnegative", st.start, not st.left_open),
                                   ("nonpositive", st.end, not st.right_open)):
            # e non-decreasing in s: smallest at the lower end; non-increasing: at the upper
            if not lower:
                end, closed = (st.end, not st.right_open) if dwant == "nonnegative" else (st.start, not st.left_open)
            if not (end.is_finite and closed):
                continue
            left = deadline - time.process_time()
            m1, d1, _ = solve_goal(Goal(der, dwant, inner, f"d/d{s} {dwant}"), sub_methods,
                                   time.process_time() + min(left / 3, 5.0), none_check, trace)
            if m1 is None:
                continue
            if not defined(e, goal.domain, min(1.0, left / 6), trace, at=f"monotone {s} defined"):
                break
            rest = Domain({k: v for k, v in goal.domain.sets.items() if k != s}, goal.domain.where)
            reduced = Goal(e.xreplace({s: end}), goal.want, rest, f"at {s} = {end}")
            m2, d2, _ = solve_goal(reduced, sub_methods, time.process_time() + min(
                (deadline - time.process_time()) / 2, 10.0), none_check, trace)
            if m2 is None:
                break
            return ("+".join(dict.fromkeys((m1, m2))),
                    f"monotone in {s} (d/d{s} {dwant}: {d1}); at the worst end {s} = {end}: {d2}")
    return None


def certify_goals(goals, methods, deadline, t0, trace=None, records=None):
    """Decide a list of (goal, cx_check); returns (Certificate or None when all hold,
    methods used, boxes, depth).  A confirmed counterexample raises Found."""
    records = records if records is not None else []
    used, boxes, depth = [], 0, 0
    for g, chk in goals:
        m, detail, info = solve_goal(g, methods, deadline, chk, trace)
        boxes += info.get("boxes") or 0
        depth = max(depth, info.get("depth") or 0)
        records.append({"goal": g.text, "method": m, "detail": detail})
        if m is None:
            return undecided(t0, records, f"{g.text}: {detail}", boxes, depth), used, boxes, depth
        used.append(m)
    return None, used, boxes, depth


def domain_point(domain, point, syms, settings):
    """A backend's candidate point as a domain point at full precision, or None if it is
    outside the declared domain."""
    if any(s not in point for s in syms):
        return None
    pt = {s: mpmath.mpf(point[s]) for s in syms}
    for s in syms:
        st = domain.sets[s]
        if isinstance(st, sp.Interval) and not in_interval(pt[s], st):
            return None
    if not contains(domain, pt, settings.precision):
        return None
    return pt


def certify_claim(claim, goals, check, budget: float, trace=None, *, before=None, after=None) -> Certificate:
    """Certify a claim that amounts to `goals` (each re-checked by `check` when a backend
    finds a candidate), refute it with a confirmed counterexample, or say why neither was
    possible.  `before(methods, deadline)` may return a reason to stop first (a function
    not shown defined); `after(methods, deadline, records)` adds what the goals do not
    cover (a root's uniqueness) and returns (methods used or None, reason)."""
    t0 = time.process_time()
    deadline = t0 + budget
    methods = methods_for(claim)
    if not methods:
        return Certificate("undecided", reason="certification switched off for this claim (certify_with='none')")
    records, used, boxes, depth = [], [], 0, 0
    try:
        if before is not None:
            why = before(methods, deadline)
            if why:
                return undecided(t0, records, why)
        stop, used, boxes, depth = certify_goals([(g, check) for g in goals], methods, deadline, t0, trace,
                                                 records)
        if stop is not None:
            return stop
        if after is not None:
            more, how = after(methods, deadline, records)
            if more is None:
                return undecided(t0, records, how, boxes, depth)
            used += more
    except Found as found:
        return Certificate("refuted", method=None, detail="counterexample found by a certification method "
                           "and confirmed by mpmath", seconds=time.process_time() - t0, goals=records,
                           counterexample=found.cx, boxes=boxes or None, depth=depth or None)
    method = "+".join(dict.fromkeys(used)) or None
    detail = "; ".join(f"{r['goal']}: {r['detail']}" for r in records)
    return Certificate("certified", method=method, detail=detail, seconds=time.process_time() - t0,
                       boxes=boxes or None, depth=depth or None, goals=records)
