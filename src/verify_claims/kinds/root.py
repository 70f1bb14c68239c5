"""Root: a value solves an equation for a variable, lies in an interval, and (unique=True)
is the only root there.

Falsified at seeded parameter points: the residual at the value, the interval, and for
uniqueness every other root in the interval (polynomial roots, else sign changes on a
grid refined by bisection), each verdict confirmed at two precisions before it is
reported.  Proved by exact substitution and sign analysis (a quadratic's other root by
Vieta).  Certified as goals: the value in the interval, the equation
solved (exactly, by z3, or squared: A + K sqrt(B) = 0 iff A^2 = K^2 B and A K <= 0), and
uniqueness by z3 ("residual = 0, x in the interval, x != value" unsat) or by a strictly
signed derivative of the residual on each side of the value.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

import mpmath
import sympy as sp

from ..backends import smt
from ..backends.definedness import defined
from ..backends.numeric import (SCREEN_EQUAL, SCREEN_MARGIN, Evaluator, NumericOutcome, Undefined, ball_in_interval,
                                fmt, lost_note, point_repr, sample_points, tol, undefined_cx)
from ..backends.sampling import end_value, in_interval
from ..backends.symbolic import CERTIFIED, PROVED, ProofOutcome, assume, prove_sign, short, weakest, zero_by
from ..engine.goals import Found, Goal, certify_claim, domain_point, none_check, open_interval, solve_goal
from ..model.derivative import derivative
from ..model.domain import Domain
from .base import Kind, derived, point_target, start_point


class RootKind(Kind):
    name = "root"
    mutable_fields = ("equation", "value")
    sign_free = ("equation",)

    def mutants(self, claim):
        """Besides formula mistakes: the other root of a quadratic (every square root in the
        claimed value taken with the other sign)."""
        from dataclasses import replace
        from ..mutation import Mutant
        out = super().mutants(claim)
        value = sp.sympify(claim.value) if claim.value is not None else None
        if value is not None:
            roots = [r for r in sp.preorder_traversal(value) if isinstance(r, sp.Pow) and r.exp == sp.Rational(1, 2)]
            if roots:
                other = value.xreplace({r: -r for r in roots})
                if other != value:
                    try:
                        out.append(Mutant("value:other-root", "the other root (the square root's sign flipped)",
                                          replace(claim, value=other), value, other))
                    except Exception:  # noqa: BLE001 - a value the declaration rejects
                        pass
        return out

    cost = 3
    inequality_like = True
    certify_first = True

    def spot_check(self, claim, settings, rng, screen=False):
        syms = claim.domain.symbols()
        x = claim.var
        allsyms = syms + (x,)
        exprs, poly = derived(claim, "numeric expressions", lambda: _numeric_expressions(claim))
        ev = Evaluator(allsyms, exprs, settings.precision, screen=screen, domain=claim.domain)
        iv = claim.interval
        pts = sample_points(claim.domain, settings, rng)
        screened, unresolved = 0, 0
        for pt in pts:
            p = dict(pt)
            p[x] = mpmath.mpf(0)
            if screen and _screen_point(ev, claim, poly, p, x, iv):
                screened += 1
                continue
            cx = _root_cx(ev, claim, poly, pt, settings)
            if cx is UNRESOLVED:
                unresolved += 1
                continue
            if cx is not None:
                return NumericOutcome("counterexample", {"points": len(pts)}, cx, witness={"point": pt})
        evidence = {"points": len(pts), "digits": settings.precision,
                    "uniqueness": "polynomial roots" if poly is not None else
                    ("sign changes on a grid" if claim.unique else "not claimed"), "unresolved_points": unresolved}
        if screen:
            evidence["screened_in_floats"] = screened
        if unresolved == len(pts):
            why = "the claimed value lost more digits to cancellation than the check spends at every point (arb balls)"
            return NumericOutcome("inconclusive", {**evidence, "inconclusive_at": {"explanation": why}})
        return NumericOutcome("consistent", evidence)

    def shrink_target(self, claim, settings, cx, outcome):
        syms = claim.domain.symbols()
        x = claim.var
        allsyms = syms + (x,)
        exprs, poly = derived(claim, "numeric expressions", lambda: _numeric_expressions(claim))
        ev = Evaluator(allsyms, exprs, settings.precision, domain=claim.domain)

        def check(pt):
            got = _root_cx(ev, claim, poly, pt, settings)
            return None if got is UNRESOLVED else got

        def exactly(point):
            value = sp.sympify(claim.value).xreplace(point)
            if cx.get("type") == "not a root":
                r = claim.residual().xreplace({**point, x: value})
                return bool(r != 0) if r.is_Rational else None
            if cx.get("type") == "root outside the interval":
                return (not bool(claim.interval.contains(value))) if value.is_Rational else None
            return None  # another root: found numerically (a sign change or a polynomial root)
        high = ev.high
        how = {"not a root": f"the residual at {settings.precision} and {2 * high} digits",
               "root outside the interval": f"the value at {settings.precision + 20} and {2 * high} digits",
               "another root in the interval": f"the roots at {settings.precision + 20} digits, each a root "
                                               f"at {settings.precision} and {high} digits"
                                               + (f" and again at {2 * high}" if poly is not None else "")}
        return point_target(claim.domain, syms, start_point(cx, outcome, syms), check, exactly, settings,
                            how.get(cx.get("type")))

    def prove(self, claim, ctx):
        rep, facts = assume(claim)
        x = claim.var
        xr = Domain({x: claim.interval}).assumption_symbols()[x]
        rep[x] = xr
        res = claim.residual().xreplace(rep)
        v = sp.sympify(claim.value).xreplace(rep)
        parts, ev = [], {}
        how, r = zero_by(res.subs(xr, v), facts, ctx.trace, at="value solves")
        parts.append(PROVED if how else None)
        ev["solves"] = how or f"residual {short(r)}"
        ev["solves_proved"] = bool(how)
        iv = claim.interval
        for end, open_, want_cmp in ((iv.start, iv.left_open, "lo"), (iv.end, iv.right_open, "hi")):
            if not end.is_finite:
                continue
            d = (v - end) if want_cmp == "lo" else (end - v)
            ok = prove_sign(d, "positive" if open_ else "nonnegative", facts, ctx.trace, at=f"in interval {want_cmp}")
            parts.append(CERTIFIED if ok else None)
            ev[f"in_interval_{want_cmp}"] = bool(ok)
        if claim.unique:
            ok = _prove_unique(res, xr, v, iv, facts, ctx.trace)
            parts.append(CERTIFIED if ok else None)
            ev["unique"] = ok or "not established"
        return ProofOutcome(weakest(parts), "sympy (substitution, sign analysis)", ev)

    def goals(self, claim):
        v, iv = sp.sympify(claim.value), claim.interval
        out = []
        if iv.start.is_finite:
            out.append(Goal(v - iv.start, "positive" if iv.left_open else "nonnegative", claim.domain,
                            "value above the interval's lower end"))
        if iv.end.is_finite:
            out.append(Goal(iv.end - v, "positive" if iv.right_open else "nonnegative", claim.domain,
                            "value below the interval's upper end"))
        return out

    def certify_again(self, claim, proof):
        # the exact proof that the value solves the equation, which certification takes as given
        return bool(proof.evidence.get("solves_proved"))

    def certify(self, claim, ctx, proof, numeric, budget):
        solved = bool(proof.evidence.get("solves_proved"))

        def after(methods, deadline, records):
            return _root_rest(claim, methods, deadline, solved, records, ctx.settings, ctx.trace)

        return certify_claim(claim, self.goals(claim), recheck_root_value(claim, ctx.settings), budget, ctx.trace,
                             after=after)


# a parameter point whose claimed value the arb balls could not place (_root_cx_at)
UNRESOLVED = "unresolved"


def _root_cx(ev, claim, poly, pt, settings):
    """The counterexample at a parameter point (the value does not solve the equation, lies
    outside the interval, another root lies in it, or it is undefined), or None."""
    p = dict(pt)
    p[claim.var] = mpmath.mpf(0)
    try:
        return _root_cx_at(ev, claim, poly, pt, p, settings)
    except Undefined as exc:
        return undefined_cx(ev.symbols, p, exc)


def _root_cx_at(ev, claim, poly, pt, p, settings):
    """The value (at p + 20 digits) and everything that would refute the claim with it.  A
    value computed once can be wrong by a cancellation its terms do not show (cosh(a)^2 -
    sinh(a)^2 is 0 at 50 digits for a = 100): before "not a root" or "outside the interval"
    is reported, the value is computed again at 2 (2p + 10) digits, and the verdict must
    hold with it too; from then on (the uniqueness check, the report) the recomputed value
    stands.  A point where the first value already passes costs nothing more."""
    syms = claim.domain.symbols()
    x, iv = claim.var, claim.interval
    v = ev.at("value", p, settings.precision + 20)
    p[x] = v
    precise = False

    def recompute():
        q = dict(p)
        q[x] = mpmath.mpf(0)
        return ev.at("value", q, 2 * ev.high)

    r = ev.at("residual", p, settings.precision)
    scale = max(1, abs(v), ev.at("terms", p, settings.precision))
    if abs(r) > tol(settings.precision) * scale:
        v, precise = recompute(), True
        p[x] = v
        r = ev.at("residual", p, 2 * ev.high)
        scale = max(1, abs(v), ev.at("terms", p, 2 * ev.high))
        if abs(r) > tol(settings.precision) * scale:
            return {"type": "not a root", "point": point_repr(syms, pt), str(x): fmt(v), "residual": fmt(r, 6)}
    # the value's place as far as its arb ball shows: its formula can cancel at every
    # precision the values are computed at, inside (cosh(a)^2 - sinh(a)^2 + 1/2 is 1/2, in
    # [0, 1]) or outside (the same at a = 1000 is 0, outside [1, 2], where 3/2 lies)
    eps = tol(settings.precision)
    params_only = {**p, x: mpmath.mpf(0)}  # the value depends on the parameters alone
    if not in_interval(v, iv) and not _near_interval(v, iv, settings.precision):
        if not precise:
            v, precise = recompute(), True
            p[x] = v
        if not in_interval(v, iv) and not _near_interval(v, iv, settings.precision):
            where, _ = ball_in_interval(ev, "value", params_only, settings.precision, iv, eps)
            if where == "unresolved":
                return UNRESOLVED
            if where != "in":
                return {"type": "root outside the interval", "point": point_repr(syms, pt), str(x): fmt(v),
                        "interval": str(iv)}
            # inside by its ball: the values were wrong; the other roots are looked for as usual
    else:
        where, q = ball_in_interval(ev, "value", params_only, settings.precision, iv, eps)
        if where == "out":
            at = max(q, 2 * ev.high)
            v_at, again = ev.at("value", params_only, at), ev.at("value", params_only, 2 * at)
            if in_interval(v_at, iv) or _near_interval(v_at, iv, settings.precision) or \
                    abs(again - v_at) > abs(again) / 100:
                where = "unresolved"
            else:
                return {"type": "root outside the interval", "point": point_repr(syms, pt), str(x): fmt(v_at),
                        "interval": str(iv), "cancellation": lost_note(settings.precision, at, f"{2 * at} digits")}
        if where == "unresolved":
            # the value is not known well enough to tell another root from itself (a ball
            # that stays wide; one never finite leaves the acceptance as it was, None)
            return UNRESOLVED
    return _other_root_cx(ev, claim, poly, pt, p, v, settings)


def _other_root_cx(ev, claim, poly, pt, p, v, settings):
    """For a unique root: another root of the equation in the interval, confirmed, as a
    counterexample at the parameter point; else None."""
    syms = claim.domain.symbols()
    x, iv = claim.var, claim.interval
    if claim.unique:
        others = _roots_in(ev, poly, p, x, iv, settings)
        near = _same_root(settings.precision)
        for o in others:
            # only the roots the report would name pay for their confirmation
            if abs(o - v) > near * max(1, abs(v)) and _is_root(ev, poly, p, x, iv, o, settings):
                return {"type": "another root in the interval", "point": point_repr(syms, pt),
                        f"{x} (claimed)": fmt(v), f"{x} (other)": fmt(o), "interval": str(iv)}
    return None


def _same_root(precision):
    """How close (relative) two roots are to count as one: what bisection resolves."""
    return mpmath.mpf(10) ** (-precision // 3)


def _is_root(ev, poly, p, x, iv, o, settings):
    """Is the candidate o (a numerator's root found at p + 20 digits, or where a bisection of
    a sign change ended) a root of the residual: |residual| within 10^(-p/3) of its scale,
    both at 2p + 10 digits and at twice that (not at p: fewer digits than the root was found
    with, where a residual noisy at p -- a cancellation inside a function's argument --
    would reject a real root)?  A sign change across a pole or a jump ends its
    bisection where the residual is of the order of its scale or larger; a simple root
    bisected to ~(p + 20)/2 digits has a residual far below the tolerance.  A numerator's
    root must also be one of its roots again from coefficients at 2 (2p + 10) digits (as
    the value's recheck): coefficients computed once can be wrong by a cancellation, and
    the residual's terms, which carry that cancellation, then make any point look like
    a root (x (x - 3 + 2 (cosh(a)^2 - sinh(a)^2)) at x = 0 for a = 100: residual 1,
    terms 1e92)."""
    q = dict(p)
    q[x] = o
    near = _same_root(settings.precision)
    for dps in (ev.high, 2 * ev.high):
        try:
            r = ev.at("residual", q, dps)
            scale = max(1, abs(o), ev.at("terms", q, dps))
        except Undefined:
            return False
        if not abs(r) <= near * scale:
            return False
    if poly is None:
        return True
    try:
        again = _poly_roots(ev, poly, p, x, iv, settings, 2 * ev.high)
    except Undefined:
        return False
    return any(abs(o - r) <= near * max(1, abs(o)) for r in again)


def _numeric_expressions(claim):
    """The residual, the value, the size of the residual's terms (its scale) and, when the
    residual's numerator is a polynomial in the variable, its coefficients."""
    x = claim.var
    res = claim.residual()
    num = sp.numer(sp.together(res))
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
    return exprs, poly


def _screen_point(ev, claim, poly, p, x, iv) -> bool:
    """In doubles: is this parameter point clearly fine (the value solves the equation, lies
    inside the interval with room to spare, and no other root is anywhere near it)?"""
    fv = ev.float_at("value", p)
    if fv is None:
        return False
    q = dict(p)
    q[x] = mpmath.mpf(fv)
    fr, ft = ev.float_at("residual", q), ev.float_at("terms", q)
    if fr is None or ft is None or abs(fr) > SCREEN_EQUAL * max(1.0, abs(fv), ft):
        return False
    margin = SCREEN_MARGIN * max(1.0, abs(fv))
    lo = float(iv.start) if iv.start.is_finite else -math.inf
    hi = float(iv.end) if iv.end.is_finite else math.inf
    if not (lo + margin < fv < hi - margin):
        return False
    if not claim.unique:
        return True
    if poly is not None:
        coeffs = [ev.float_at(f"c{i}", p) for i in range(len(poly.all_coeffs()))]
        if any(c is None for c in coeffs):
            return False
        while coeffs and coeffs[0] == 0:
            coeffs.pop(0)
        if len(coeffs) == 2:
            return True  # linear: the value is its only root
        if len(coeffs) != 3:
            return False
        a, b, c = coeffs
        disc = b * b - 4 * a * c
        scale = max(abs(b * b), abs(4 * a * c), 1e-300)
        if disc < -SCREEN_MARGIN * scale:
            return False  # complex roots, yet the value solves it: leave it to mpmath
        if abs(disc) <= SCREEN_MARGIN * scale:
            return False  # a (near) double root
        r = math.sqrt(disc)
        roots = [(-b + r) / (2 * a), (-b - r) / (2 * a)]
        other = max(roots, key=lambda t: abs(t - fv))
        if abs(other - fv) <= SCREEN_MARGIN * max(1.0, abs(fv)):
            return False
        m = SCREEN_MARGIN * max(1.0, abs(other))
        if lo - m <= other <= hi + m:
            return False  # the other root is (maybe) in the interval: mpmath decides
        # the numerator's other root outside the interval: no other root of the residual
        return True
    # generic: sign changes of the residual on the grid, away from the value
    glo = lo if math.isfinite(lo) else -1e6
    ghi = hi if math.isfinite(hi) else 1e6
    args = ev.float_args(q)
    if args is None:
        return False
    xi = ev.symbols.index(x)
    residual = ev.progs["residual"]
    prev = None
    for i in range(1, 400):
        g = glo + (ghi - glo) * i / 400
        args[xi] = g
        r = residual.float_at(args)
        if r is None or abs(r) <= SCREEN_EQUAL:
            return False
        if prev is not None and (prev[1] < 0) != (r < 0) and not (prev[0] - margin <= fv <= g + margin):
            return False  # a sign change away from the value: mpmath decides
        prev = (g, r)
    return True


def _near_interval(v, iv, precision):
    # at the value's own digits: at mpmath's default 15, lo - eps and hi + eps round to the
    # ends rounded to 15 digits (an integer end had no tolerance, and pi rounded there lies
    # below pi at the value's 50 digits: a true root refuted as outside [0, pi])
    with mpmath.workdps(2 * precision + 20):
        eps = tol(precision)
        lo = end_value(iv.start) if iv.start.is_finite else -mpmath.inf
        hi = end_value(iv.end) if iv.end.is_finite else mpmath.inf
        return lo - eps <= v <= hi + eps and not (iv.left_open and abs(v - lo) <= eps) and not (
            iv.right_open and abs(v - hi) <= eps)


def _roots_in(ev, poly, p, x, iv, settings):
    """The real roots of the equation in the interval at parameter point p (p[x] is the
    claimed value), as candidates: the numerator's roots from coefficients computed once,
    the ends of bisected sign changes.  One the caller reports is confirmed first (_is_root)."""
    dps = settings.precision + 20
    if poly is not None:
        return _poly_roots(ev, poly, p, x, iv, settings, dps)
    # generic: sign changes of the residual on a grid inside the interval.  Only the sign
    # matters there: doubles give it wherever the value is far from 0 against the size of
    # its terms, mpmath decides the rest, and every sign change is refined in mpmath.  The
    # terms do not see a cancellation inside a function's argument (atan(cosh(40 x)^2 -
    # sinh(40 x)^2 - 1) is noise in doubles): a sign change that rests on a float sign is
    # confirmed in mpmath at both ends before it is bisected (the claimed value's own
    # bracket excepted: whatever its bisection gives is compared with the value, and
    # confirmed by the caller if it is distinct from it).  Every point returned is only a
    # candidate: the caller confirms it as a root (_is_root) before reporting it
    grid, grid_floats = _grid(iv, *mpmath.mp._prec_rounding)
    args = ev.float_args({**p, x: grid[0]})
    xi = ev.symbols.index(x)
    residual, terms = ev.progs["residual"], ev.progs["terms"]
    v = p.get(x)
    out, prev = [], None  # prev: (grid point, residual there, read in floats?)
    for g, gf in zip(grid, grid_floats):
        r, in_floats = None, False
        if args is not None:
            args[xi] = gf
            rf = residual.float_at(args)
            if rf is not None:
                tf = terms.float_at(args)
                if tf is not None and abs(rf) > SCREEN_EQUAL * max(1.0, tf):
                    r, in_floats = rf, True
        try:
            if r is None:
                r = _residual_at(ev, p, x, g, dps)
            if (prev is not None and (prev[1] < 0 < r or prev[1] > 0 > r) and (prev[2] or in_floats)
                    and not (v is not None and prev[0] <= v <= g)):
                if prev[2]:
                    prev = (prev[0], _residual_at(ev, p, x, prev[0], dps), False)
                if in_floats:
                    r, in_floats = _residual_at(ev, p, x, g, dps), False
        except Undefined:
            prev = None
            continue
        if prev is not None and (prev[1] < 0 < r or prev[1] > 0 > r):
            out.append(_bisect(ev, p, x, prev[0], g, prev[1], dps))
        elif r == 0:
            out.append(g)
        prev = (g, r, in_floats)
    return out


@lru_cache(maxsize=256)
def _grid(iv, prec, rounding):
    """The 399 inner points of the interval's grid (of [-1e6, 1e6] where it is unbounded) in
    the working context, which the key names (prec, rounding: what mpf arithmetic depends
    on), and as doubles: the same for every parameter point, so made once (making them was
    a fifth of the grid search's time).  Read only."""
    lo = end_value(iv.start) if iv.start.is_finite else mpmath.mpf(-1e6)
    hi = end_value(iv.end) if iv.end.is_finite else mpmath.mpf(1e6)
    grid = tuple(lo + (hi - lo) * mpmath.mpf(i) / 400 for i in range(1, 400))
    return grid, tuple(float(g) for g in grid)


def _poly_roots(ev, poly, p, x, iv, settings, dps):
    """The numerator's real roots in the interval, from its coefficients at dps digits."""
    coeffs = [ev.at(f"c{i}", p, dps) for i in range(len(poly.all_coeffs()))]
    while coeffs and coeffs[0] == 0:
        coeffs.pop(0)
    if not coeffs:
        # the equation vanishes identically here: every point of the interval is a root
        lo = end_value(iv.start) if iv.start.is_finite else mpmath.mpf(-1)
        hi = end_value(iv.end) if iv.end.is_finite else lo + 2
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
        if in_interval(r, iv):
            # the numerator's root must also be a root of the residual (not a pole)
            q = dict(p)
            q[x] = r
            try:
                ev.at("residual", q, dps)
            except Undefined:
                continue
            out.append(r)
    return out


def _residual_at(ev, p, x, g, dps):
    q = dict(p)
    q[x] = g
    return ev.at("residual", q, dps)


def _bisect(ev, p, x, lo, hi, flo, dps):
    """Refine a bracketed sign change to ~dps/2 digits (bisection cannot diverge).  The
    point it ends at is a root only if the residual is continuous there: a pole or a jump
    ends it too (the caller checks the residual there, _is_root)."""
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


def _prove_unique(res, x, v, iv, facts, trace=None):
    num = sp.numer(sp.together(res))
    try:
        poly = sp.Poly(sp.expand(num), x)
    except sp.PolynomialError:
        return False
    if any(c.has(x) for c in poly.all_coeffs()):
        return False
    deg = poly.degree()
    if deg == 1:
        a = poly.all_coeffs()[0]
        nz = prove_sign(a, "nonzero", facts, trace, at="unique slope")
        return "linear numerator with a non-zero slope: one root" if nz else False
    if deg != 2:
        return False
    a, b, _ = poly.all_coeffs()
    if not prove_sign(a, "nonzero", facts, trace, at="unique leading"):
        return False
    other = -b / a - v  # Vieta: the sum of the two roots is -b/a
    if zero_by(other - v, facts, trace, at="double root")[0]:
        return "double root"
    below = iv.start.is_finite and prove_sign(other - iv.start, "negative" if not iv.left_open else "nonpositive", facts,
                                                 trace, at="other root below")
    above = iv.end.is_finite and prove_sign(other - iv.end, "positive" if not iv.right_open else "nonnegative", facts,
                                               trace, at="other root above")
    if below or above:
        return "quadratic: the other root (Vieta) lies outside the interval"
    return False


def recheck_root_value(claim, settings):
    syms = claim.domain.symbols()
    ev = Evaluator(syms, {"value": claim.value}, settings.precision)
    iv = claim.interval

    def check(point):
        pt = domain_point(claim.domain, point, syms, settings)
        if pt is None:
            return None
        try:
            v1 = ev.at("value", pt, ev.high)
            v2 = ev.at("value", pt, 2 * ev.high)
        except ArithmeticError:
            return None
        lo = mpmath.mpf(sp.Float(iv.start, 80)) if iv.start.is_finite else -mpmath.inf
        hi = mpmath.mpf(sp.Float(iv.end, 80)) if iv.end.is_finite else mpmath.inf
        margin = tol(ev.high) * max(1, abs(v2))
        if (v1 < lo - margin and v2 < lo - margin) or (v1 > hi + margin and v2 > hi + margin) or (
                iv.left_open and v2 == lo and v1 == lo) or (iv.right_open and v2 == hi and v1 == hi):
            return {"type": "root outside the interval", "point": point_repr(syms, pt),
                    str(claim.var): fmt(v2), "interval": str(iv)}
        return None
    return check


def _recheck_other_root(claim, settings):
    """A z3 model of "another root": confirmed by a sign change of the residual in a
    bracket around it, strictly inside the interval and away from the claimed value."""
    syms = claim.domain.symbols()
    x = claim.var
    ev = Evaluator(syms + (x,), {"r": claim.residual(), "value": claim.value}, settings.precision)

    def check(point):
        pt = domain_point(claim.domain, point, syms, settings)
        if pt is None or x not in point:
            return None
        xr = mpmath.mpf(point[x])
        try:
            q = dict(pt)
            q[x] = mpmath.mpf(0)
            v = ev.at("value", q, ev.high)
            for k in (10, 15, 20):
                eps = mpmath.mpf(10) ** -k
                if abs(xr - v) <= 1000 * eps:
                    continue
                a, b = dict(q), dict(q)
                a[x], b[x] = xr - eps, xr + eps
                if not (in_interval(a[x], claim.interval) and in_interval(b[x], claim.interval)):
                    continue
                ra, rb = ev.at("r", a, ev.high), ev.at("r", b, ev.high)
                if ra * rb < 0:
                    return {"type": "another root in the interval", "point": point_repr(syms, pt),
                            f"{x} (claimed)": fmt(v), f"{x} (other)": fmt(xr), "interval": str(claim.interval),
                            "residual sign change": f"{fmt(ra, 4)} at {x}-{fmt(eps, 2)}, {fmt(rb, 4)} at {x}+{fmt(eps, 2)}"}
        except ArithmeticError:
            return None
        return None
    return check


def _exact_other_root(claim, exact, settings):
    """A rational model: the residual is evaluated exactly there (sympy rationals); a
    root at an interval end (x = 0 of x^2 - u x = 0) has no sign-change bracket inside."""
    x = claim.var
    syms = claim.domain.symbols()
    if any(s not in exact for s in syms) or x not in exact:
        return None
    pt = {s: exact[s] for s in syms}
    if not claim.interval.contains(exact[x]) or not all(
            claim.domain.sets[s].contains(pt[s]) is sp.true for s in syms):
        return None
    if any(sp.sympify(rel).xreplace(pt) is not sp.true for rel in claim.domain.where):
        return None
    try:
        r = sp.expand(claim.residual().xreplace({**pt, x: exact[x]}))
        v = sp.sympify(claim.value).xreplace(pt)
        if r != 0 or zero_by(v - exact[x])[0] is not None or sp.N(abs(v - exact[x]), 30) < sp.Float(1e-20):
            return None
    except Exception:  # noqa: BLE001
        return None
    return {"type": "another root in the interval",
            "point": point_repr(syms, {s: mpmath.mpf(sp.Float(pt[s], 40)) for s in syms}),
            f"{x} (claimed)": fmt(mpmath.mpf(sp.Float(v, 40))), f"{x} (other)": str(exact[x]),
            "interval": str(claim.interval), "residual": "exactly 0 (rational arithmetic)"}


def _root_rest(claim, methods, deadline, solved, records, settings, trace=None):
    """Solving (unless the prover showed it) and uniqueness of a Root claim."""
    x, v, iv = claim.var, sp.sympify(claim.value), claim.interval
    res = claim.residual()
    used = []
    if not solved:
        g = Goal(res.xreplace({x: v}), "zero", claim.domain, "value solves the equation")
        sq = _squared_form(res, x, v, claim.domain)
        m = None
        how = trace.point("root solves") if trace is not None else None
        routes = ["squared", "plain"] if sq is not None else ["plain"]
        routes = trace.options(how, routes) if trace is not None else routes
        if "squared" in routes:
            # A + K sqrt(B) = 0 at the value iff A^2 = K^2 B and A K <= 0 there (K a
            # non-zero number): sqrt(B) = |A/K| and the signs make K sqrt(B) = -A
            zero_g, sign_g = sq
            n = len(records)
            mz, dz, _ = solve_goal(zero_g, [m for m in methods if m != "interval"], deadline, none_check, trace)
            ms, ds, _ = solve_goal(sign_g, methods, deadline, none_check, trace) if mz else (None, "", {})
            if mz and ms and defined(zero_g.expr, claim.domain, max(0.2, (deadline - time.process_time()) / 4), trace,
                                     at="squared defined"):
                if trace is not None:
                    trace.won(how, "squared")
                records.append({"goal": g.text, "method": f"{mz}+{ms}",
                                "detail": f"squared: {zero_g.text}: {dz}; {sign_g.text}: {ds}"})
                used += [mz, ms]
                m = mz
            del records[n + (1 if m else 0):]
        if m is None and "plain" in routes:
            m, detail, _ = solve_goal(g, [m for m in methods if m != "interval"], deadline, none_check, trace)
            records.append({"goal": g.text, "method": m, "detail": detail})
            if m is None:
                return None, f"{g.text}: {detail}"
            if trace is not None:
                trace.won(how, "plain")
            used.append(m)
        if m is None:
            return None, f"{g.text}: not recorded in the certificate"
    if not claim.unique:
        return used, ""
    sets = dict(claim.domain.sets)
    sets[x] = iv
    dom = Domain(sets, claim.domain.where)
    tried = []
    upoint = trace.point("root unique") if trace is not None else None
    uroutes = ["smt", "monotone sides", "signed sides", "touching"]
    if trace is not None:
        uroutes = trace.options(upoint, uroutes)
    if "smt" in methods and "smt" in uroutes:
        ans = _smt_other_root(claim, dom, deadline, settings)
        if ans[0] == "holds":
            records.append({"goal": "no other root in the interval", "method": "smt", "detail": ans[1]})
            if trace is not None:
                trace.won(upoint, "smt")
            return used + ["smt"], ""
        if ans[0] == "violated":
            raise Found(ans[1])
        tried.append(f"smt: {ans[1]}")
    # a double root (the residual's derivative also 0 at the value, exactly) is most often
    # unique by touching: that route first then, the derivative-sign routes after it
    order = ["monotone sides", "signed sides", "touching"]
    if "ball" in methods and "touching" in uroutes and _double_root(claim, res, x, v, trace):
        order = ["touching", "monotone sides", "signed sides"]
    for route in order:
        if route not in uroutes or route != "monotone sides" and "ball" not in methods:
            continue
        if route == "monotone sides":
            won = _monotone_sides(claim, res, x, v, iv, sets, dom, methods, deadline, records, used, tried, trace)
        elif route == "signed sides":
            won = _signed_sides(claim, res, x, v, iv, sets, dom, deadline, records, used, tried, trace)
        else:
            won = _touching_root(claim, res, x, iv, sets, deadline, records, used, tried, trace)
        if won is not None:
            if trace is not None:
                trace.won(upoint, route)
            return won, ""
    return None, "uniqueness not established (" + ("; ".join(tried) or "not recorded in the certificate") + ")"


def _double_root(claim, res, x, v, trace) -> bool:
    """Does the residual's derivative vanish at the value too, exactly (under the domain's
    assumptions and interval ends)?  Asked once per claim."""
    from ..backends.symbolic import Facts, with_ends

    def ask():
        rep = claim.domain.assumption_symbols()
        facts = Facts.from_relations(with_ends(claim.domain), rep)
        der = derivative(res, x).xreplace({x: v}).xreplace(rep)
        return zero_by(der, facts, trace, at="root double")[0] is not None
    return derived(claim, "double root", ask)


def _touching_root(claim, res, x, iv, sets, deadline, records, used, tried, trace):
    """A double root: the residual has one sign except on one curve where it touches 0 (its
    second derivative strictly signed around it); the value is a root, so it is that curve,
    and the only root."""
    d2 = Domain({**sets, x: open_interval(iv)}, tuple(claim.domain.where))
    for want in ("positive", "negative"):
        g = Goal(res, want, d2, f"residual {want} except where it touches 0", off_curve=x)
        m, detail, _ = solve_goal(g, ["ball"], deadline, none_check, trace)
        if m is not None:
            records.append({"goal": "no other root in the interval", "method": m,
                            "detail": f"the residual is {want} except on one curve where it touches 0 "
                                      f"(a double root): {detail}"})
            return used + [m]
    tried.append("touching: no touching curve found")
    return None


def _signed_sides(claim, res, x, v, iv, sets, dom, deadline, records, used, tried, trace):
    """The residual (0 at the value, exactly) has a strict sign on each side of the value:
    no other root.  Boxes away from the value are decided by enclosures of the residual,
    boxes around it by the sign of its derivative there (a simple root, interval.Curve of
    order 1), or of its second derivative when the first also vanishes exactly at the value
    (a double root, order 2): the ball backend's root isolation, with parameters."""
    from ..backends.interval import Curve
    orders = [1]
    if _double_root(claim, res, x, v, trace):
        orders = [2]  # a double root: the first derivative cannot have a sign around it
    sides = []
    for rel, side, txt in ((x < v, "left", "below"), (x > v, "right", "above")):
        if (side == "left" and iv.start.is_finite and sp.sympify(v - iv.start) == 0
                or side == "right" and iv.end.is_finite and sp.sympify(iv.end - v) == 0):
            continue  # the value is that end of the interval: nothing on this side
        d2 = Domain({**sets, x: open_interval(iv)}, tuple(claim.domain.where) + (rel,))
        ok = None
        for want in ("positive", "negative"):
            for order in orders:
                g = Goal(res, want, d2, f"residual {want} {txt} the value",
                         curve=Curve(x, v, order=order, side=side, strict_off_curve=True))
                m, detail, _ = solve_goal(g, ["ball"], deadline, none_check, trace)
                if m is not None:
                    ok = (m, f"residual {want} {txt} the value: {detail}")
                    break
            if ok is not None:
                break
        if ok is None:
            tried.append(f"signed sides: not established {txt} the value")
            return None
        sides.append(ok)
    if not sides:
        return None
    for m, d in sides:
        records.append({"goal": "no other root in the interval", "method": m, "detail": d})
        used.append(m)
    return used


def _monotone_sides(claim, res, x, v, iv, sets, dom, methods, deadline, records, used, tried, trace):
    """A strictly signed derivative on each side of the value: no second zero."""
    der = derivative(res, x)
    sides = []
    for rel, txt in ((x < v, "below"), (x > v, "above")):
        d2 = Domain({**sets, x: open_interval(iv)}, tuple(claim.domain.where) + (rel,))
        ok = None
        for want in ("positive", "negative"):
            m, detail, _ = solve_goal(Goal(der, want, d2, f"residual strictly monotone {txt} the value"),
                                       [m for m in methods if m != "smt"] or methods, deadline, none_check, trace)
            if m is not None:
                ok = (m, f"d(residual)/d{x} {want} {txt} the value: {detail}")
                break
        if ok is None:
            tried.append(f"monotone sides: not established {txt} the value")
            return None
        sides.append(ok)
    if not defined(res, dom, max(0.2, (deadline - time.process_time()) / 2), trace, at="residual defined"):
        tried.append("monotone sides: the residual is not shown defined (continuous) on the interval")
        return None
    for m, d in sides:
        records.append({"goal": "no other root in the interval", "method": m, "detail": d})
        used.append(m)
    return used


def _squared_form(res, x, v, domain):
    """(A^2 - K^2 B at the value: zero, A K at the value: nonpositive) when the residual
    is A + K sqrt(B) with a single square root of an x-dependent B and K a non-zero number."""
    roots = [p for p in sp.sympify(res).atoms(sp.Pow) if p.exp == sp.S.Half and p.base.has(x)]
    if len(roots) != 1:
        return None
    q = roots[0]
    d = sp.Dummy("q")
    lin = sp.expand(sp.sympify(res).xreplace({q: d}))
    K = lin.coeff(d)
    A = sp.expand(lin - K * d)
    if A.has(d) or not K.is_number or K == 0 or A.has(q):
        return None
    at = {x: v}
    B = q.base
    return (Goal(sp.expand((A ** 2 - K ** 2 * B).xreplace(at)), "zero", domain,
                 "squared equation A^2 = K^2 B at the value"),
            Goal((A * K).xreplace(at), "nonpositive", domain, "A K <= 0 at the value (signs agree)"))


def _smt_other_root(claim, dom, deadline, settings):
    """z3: residual(x) = 0, x in the interval, x != value -- unsat means unique."""
    if not smt.available():
        return None, "z3 not installed"
    import z3
    x, v = claim.var, sp.sympify(claim.value)
    tr = smt.Translator()
    try:
        cons = tr.domain(dom)
        val = tr.expr(v)  # the value's definedness stays an obligation (proved below)
        n_obl = len(tr.obligations)
        r = tr.expr(claim.residual())
        # another root is a point where the residual is *defined* and 0: its definedness
        # conditions (x != 0 for a pole at an end of [0, 1]) are constraints of the
        # query, not obligations over the whole interval
        defined_at = [cond for cond, _ in tr.obligations[n_obl:]]
        tr.obligations = tr.obligations[:n_obl]
    except smt.NotExpressible as exc:
        return None, f"declined: {exc}"
    except (TypeError, ValueError) as exc:
        return None, f"declined: {exc}"
    for cond, text in tr.obligations:
        s = smt.new_solver(deadline)
        s.add(*cons, *tr.aux, z3.Not(cond))
        if smt.cpu_check(s, deadline) != z3.unsat:
            return None, f"could not show {text} on the domain"
    s = smt.new_solver(deadline)
    s.add(*cons, *tr.aux, *defined_at, r == 0, tr.vars[x] != val)
    ans = smt.cpu_check(s, deadline)
    if ans == z3.unsat:
        return "holds", (f"z3 unsat of 'residual defined and = 0, {x} in the interval, {x} != value' "
                         f"({len(cons) + len(tr.aux) + 2} constraints, {len(tr.obligations)} obligations)")
    if ans == z3.sat:
        m = s.model()
        point, exact = {}, {}
        for sym, zv in tr.vars.items():
            val = m.eval(zv, model_completion=True)
            point[sym] = smt._mpf_of(val, 60)
            exact[sym] = smt.exact_of(val)
        cx = _recheck_other_root(claim, settings)(point)
        if cx is None and all(v is not None for v in exact.values()):
            cx = _exact_other_root(claim, exact, settings)
        if cx is not None:
            return "violated", cx
        return None, "z3 found another root, not confirmed by a sign change (not used)"
    return None, f"z3 {ans}: {s.reason_unknown()}"


KIND = RootKind()
