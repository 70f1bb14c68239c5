"""Figures of the paper, reproduced as evidence (declared as ``model.figures.Figure``).

The engine (:func:`compute_figure`) samples the closed form for the
curves and, at a few overlay abscissae, finds every root y of F in the open interval by
sign-change scanning and bracketed refinement in mpmath -- never by evaluating the closed form -- so
the figure shows the closed form *and* an independent numerical solution on top of it.
The largest |closed form - root| is reported; a figure whose points disagree (or whose
stationarity condition has no root, or several, at an overlay abscissa) is flagged.

A figure declared with ``closed_form=None`` has no closed form to check: each curve is
computed on a grid of abscissae as the root of the stationarity condition (the same
sign-change scan and bisection, vectorised over the grid in double precision with numpy;
sums with parameter-set bounds written out term by term) and drawn as a line through the
roots.  It is flagged where the condition has no root or several at a grid abscissa, and
where a reference line declared to match a curve (``Reference.matches``) differs from it.

Reference lines (closed forms for comparison) are sampled like closed forms and drawn dashed.

Drawing the data is ``report/plots.py``'s (matplotlib only: the report renderers import
it without sympy or mpmath).
"""

from __future__ import annotations

import math
import time

import mpmath
import sympy as sp

from ..model.figures import TOLERANCE, Curve, Figure, Reference
from ..model.notation import latex

__all__ = ["TOLERANCE", "Curve", "Figure", "Reference", "compute_figure"]


def _label(curve: Curve) -> str:
    if curve.label:
        return curve.label
    return "$" + ",\\ ".join(f"{sp.latex(k)} = {sp.latex(sp.nsimplify(v))}"
                             for k, v in sorted(curve.params.items(), key=lambda kv: str(kv[0]))) + "$"


def _roots(F, lo, hi, digits: int, scan: int = 64, F_float=None) -> list:
    """Every root of F in the open interval (lo, hi): sign changes on a scan grid (ends
    pushed in by 1e-12), each refined in mpmath to ~digits.  Points where F is not a
    finite real number are skipped, so poles do not pass for roots (a pole's sign change
    is rejected below because |F| does not shrink there).

    `F_float` (F in machine doubles, optional) scans the grid cheaply: a grid value that is
    not a finite double, or too close to 0 beside the grid's largest for its sign to be
    trusted, is evaluated in mpmath instead, so the sign changes are mpmath's.  Each bracket
    is then narrowed in mpmath by false position (Illinois), with a bisection step whenever
    an end stalls: the bracket always holds the sign change, as with plain bisection, in a
    fraction of the evaluations."""
    with mpmath.workdps(digits):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        eps = mpmath.mpf("1e-12")
        grid = [lo + eps] + [lo + (hi - lo) * j / scan for j in range(1, scan)] + [hi - eps]

        def val(t):
            try:
                v = F(t)
            except (ZeroDivisionError, ValueError, OverflowError):
                return None
            if isinstance(v, mpmath.mpc):
                if abs(v.imag) > mpmath.mpf(10) ** (-digits // 2):
                    return None
                v = v.real
            v = mpmath.mpf(v)
            return v if mpmath.isfinite(v) else None

        vals = _scan(grid, val, F_float)
        roots = []
        tol = (hi - lo) * mpmath.mpf(10) ** (-digits)
        scale = max((abs(v) for v in vals if v is not None), default=0) or 1
        for (a, fa), (b, fb) in zip(zip(grid, vals), zip(grid[1:], vals[1:])):
            if fa is None or fb is None:
                continue
            if fa == 0:
                roots.append(a)
                continue
            if fb == 0 or (fa < 0) == (fb < 0):  # a zero at b is counted as the next pair's a
                continue
            r = _narrow(val, a, fa, b, fb, tol, int(digits * 3.4) + 8)
            if r is None:
                continue
            fr = val(r)
            if fr is not None and abs(fr) <= scale * mpmath.mpf(10) ** (-digits // 3):
                roots.append(r)
        if vals[-1] == 0:
            roots.append(grid[-1])
        return roots


def _scan(grid, val, F_float) -> list:
    """val at every grid point; in doubles first where F_float is given (see _roots)."""
    if F_float is None:
        return [val(t) for t in grid]
    floats = []
    for t in grid:
        try:
            v = complex(F_float(float(t)))
            v = v.real if abs(v.imag) <= 1e-12 * max(1.0, abs(v.real)) and math.isfinite(v.real) else None
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, NameError):
            v = None
        floats.append(v)
    sizes = sorted(abs(v) for v in floats if v is not None)
    # a double's sign is trusted where the value is far above the rounding of a typical one
    # (the median: poles at the ends make the largest meaningless as a scale)
    trust = sizes[len(sizes) // 2] * 1e-9 if sizes else 0.0
    n = len(grid) - 1
    # the two ends (1e-12 inside the interval) in mpmath: 1 - t loses most of its digits there
    out = [mpmath.mpf(v) if 0 < i < n and v is not None and abs(v) > trust else val(t)
           for i, (t, v) in enumerate(zip(grid, floats))]
    # doubles that cancel catastrophically can be wrong everywhere at once: a few points are
    # compared with mpmath, and any disagreement puts the whole scan in mpmath
    for i in (n // 4, n // 2, 3 * n // 4):
        if floats[i] is None or abs(floats[i]) <= trust:
            continue  # already evaluated in mpmath
        exact = val(grid[i])
        if exact is None or abs(out[i] - exact) > 1e-6 * abs(exact):
            return [val(t) for t in grid]
    return out


def _narrow(val, a, fa, b, fb, tol, bisections: int):
    """A point of [a, b] within tol of the sign change of val (fa, fb of opposite signs),
    or None where val is undefined inside.  Illinois false position (an end left in place
    twice has its value halved); whenever three steps have not halved the bracket, a
    bisection step, so every four steps halve it at least once: 4 * bisections steps narrow
    it at least as far as `bisections` halvings."""
    side = 0
    since, width = 0, b - a
    for _ in range(4 * bisections):
        if b - a <= tol:
            break
        since += 1
        if since > 3:  # false position crawled: halve the bracket as bisection would
            m = (a + b) / 2
        else:
            m = (a * fb - b * fa) / (fb - fa)
            if not a < m < b:
                m = (a + b) / 2
        fm = val(m)
        if fm is None:
            return None
        if fm == 0:
            return m
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
            if side == -1:
                fb /= 2
            side = -1
        else:
            b, fb = m, fm
            if side == 1:
                fa /= 2
            side = 1
        if b - a <= width / 2:
            since, width = 0, b - a
    return (a + b) / 2


def _float_function(args, e):
    """e as a function of args in machine doubles (Python's math module), or None where it
    cannot be written so (the scan then runs in mpmath)."""
    try:
        return sp.lambdify(args, e, "math")
    except Exception:  # noqa: BLE001 - only a faster path is lost
        return None


def _sample(f, xs, digits: int) -> list:
    """f (an mpmath function of x) at xs as floats; None where undefined or not real."""
    ys = []
    with mpmath.workdps(digits):
        for x in xs:
            try:
                v = f(mpmath.mpf(x))
                v = complex(v)
                ys.append(float(v.real) if abs(v.imag) < 1e-12 and mpmath.isfinite(v.real) else None)
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                ys.append(None)
    return ys


def _grid_roots(F, xs, lo: float, hi: float, scan: int = 64, steps: int = 64):
    """For each abscissa x in xs, the root in y of F(y, x) in the open interval (lo, hi),
    vectorised over xs in double precision: sign changes on a scan grid of y (ends pushed in
    by 1e-12), as in :func:`_roots`.  Returns (roots, counts): counts[i] is the number of
    roots found at xs[i] (exact zeros on the grid plus sign changes between finite values;
    with several, an upper bound) and roots[i] the root, bisected down to adjacent doubles,
    where there is exactly one, else None.  A sign change across a pole is not a root: |F|
    does not shrink there."""
    import numpy as np

    xs = np.asarray(xs, dtype=float)
    eps = 1e-12
    ys = np.concatenate([[lo + eps], lo + (hi - lo) * np.arange(1, scan) / scan, [hi - eps]])

    def ev(y, x):
        with np.errstate(all="ignore"):
            v = np.asarray(F(y, x))
            if np.iscomplexobj(v):
                v = np.where(np.abs(v.imag) < 1e-12, v.real, np.nan)
            return np.broadcast_to(v.astype(float), np.broadcast(y, x).shape)

    V = ev(ys[:, None], xs[None, :])                      # (scan + 1, len(xs))
    finite = np.isfinite(V)
    s = np.sign(V)
    change = finite[:-1] & finite[1:] & (s[:-1] * s[1:] < 0)
    zero = finite & (V == 0)
    counts = change.sum(axis=0) + zero.sum(axis=0)
    roots = [None] * len(xs)
    for c in np.nonzero((counts == 1) & zero.any(axis=0))[0]:  # the root is a grid value
        roots[c] = float(ys[np.argmax(zero[:, c])])
    cols = np.nonzero((counts == 1) & change.any(axis=0))[0]
    if len(cols):
        j = np.argmax(change[:, cols], axis=0)
        a, b, fa, x = ys[j], ys[j + 1], V[j, cols], xs[cols]
        for _ in range(steps):
            m = (a + b) / 2
            fm = ev(m, x)
            left = np.sign(fm) == np.sign(fa)
            a, fa, b = np.where(left, m, a), np.where(left, fm, fa), np.where(left, b, m)
        r = (a + b) / 2
        fr = ev(r, x)
        scale = np.max(np.abs(np.where(finite[:, cols], V[:, cols], 0)), axis=0)
        for c, rv, good in zip(cols, r, np.isfinite(fr) & (np.abs(fr) <= scale * 1e-9)):
            if good:
                roots[c] = float(rv)
            else:
                counts[c] = 0  # a pole
    return roots, [int(n) for n in counts]


def _numeric_stationarity(fig: Figure, subs: dict):
    """The stationarity condition with the curve's parameter values, sums written out, as a
    numpy function of (y, x)."""
    from ..backends.instances import written_out

    e = written_out(sp.sympify(fig.stationarity).subs(subs))
    return sp.lambdify((fig.y, fig.x), e, "numpy")


def _reference_functions(fig: Figure) -> list:
    """Each reference line as an mpmath function of x (its parameter values substituted)."""
    return [sp.lambdify(fig.x, sp.sympify(r.expr).subs({k: sp.nsimplify(v) for k, v in r.params.items()}), "mpmath")
            for r in fig.references]


def _reference_data(fig: Figure, fns: list, xs, digits: int) -> list:
    out = []
    for r, f in zip(fig.references, fns):
        subs = {k: sp.nsimplify(v) for k, v in r.params.items()}
        out.append({"label": r.label, "params": {str(k): str(v) for k, v in
                                                 sorted(subs.items(), key=lambda kv: str(kv[0]))},
                    "expr": latex(sp.sympify(r.expr), fig.notation), "matches": r.matches,
                    "x": list(xs), "y": _sample(f, xs, digits)})
    return out


def _check_references(fig: Figure, fns: list, refs: list, curves: list, problems: list, digits: int) -> float:
    """|reference - numeric root| at every point of the curve a reference claims to match."""
    worst = 0.0
    for r, f, data in zip(fig.references, fns, refs):
        if r.matches is None:
            continue
        c = curves[r.matches]
        pts = [(x, root) for x, root in zip(c["x"], c["y"]) if root is not None] if c.get("numeric") else []
        pts += [(p["x"], rt) for p in c["points"] for rt in p["roots"]]
        ys = _sample(f, [x for x, _ in pts], digits)
        diffs = [abs(y - root) for (_, root), y in zip(pts, ys) if y is not None]
        d = max(diffs, default=float("inf"))
        data["max_abs_diff"] = d
        worst = max(worst, d)
        if d > TOLERANCE:
            problems.append(f"reference {r.label} and curve {r.matches + 1} ({c['label']}), which it is declared "
                            f"to match, differ by up to {d:.3g}")
    return worst


def _compute_numeric(fig: Figure, samples: int, digits: int, t0: float) -> dict:
    lo, hi = (float(v) for v in fig.x_range)
    ylo, yhi = (float(v) for v in fig.y_interval)
    d = 1e-6 * (hi - lo)  # the ends of the x range, pushed in: the root may sit on the border there
    xs = [lo + d] + [lo + (hi - lo) * i / (samples - 1) for i in range(1, samples - 1)] + [hi - d]
    curves, problems = [], []
    for ci, curve in enumerate(fig.curves):
        subs = {k: sp.nsimplify(v) for k, v in curve.params.items()}
        roots, counts = _grid_roots(_numeric_stationarity(fig, subs), xs, ylo, yhi)
        bad = [(x, n) for x, n in zip(xs, counts) if n != 1]
        if bad:
            where = ", ".join(f"x = {x:g} ({n} roots)" for x, n in bad[:3]) + (", ..." if len(bad) > 3 else "")
            problems.append(f"curve {ci + 1} ({_label(curve)}): the stationarity condition has no single root "
                            f"in the interval at {len(bad)} of {len(xs)} abscissae: {where}")
        curves.append({"label": _label(curve),
                       "params": {str(k): str(v) for k, v in sorted(subs.items(), key=lambda kv: str(kv[0]))},
                       "x": xs, "y": roots, "points": [], "numeric": True, "max_abs_diff": 0.0})
    fns = _reference_functions(fig)
    refs = _reference_data(fig, fns, xs, digits)
    worst = _check_references(fig, fns, refs, curves, problems, digits)
    return {
        "id": fig.id, "title": fig.title, "ref": str(fig.ref), "caption": fig.caption,
        "source": fig.source, "uses": list(fig.uses), "note": fig.note,
        "x_label": fig.x_label, "y_label": fig.y_label, "diagonal": fig.diagonal,
        "x_range": [lo, hi], "y_interval": [ylo, yhi],
        "numeric": True, "closed_form": "",
        "stationarity": latex(sp.Eq(fig.stationarity, 0), fig.notation),
        "method": (f"no closed form: each curve computed numerically at {len(xs)} abscissae as the root of the "
                   f"stationarity condition in ({fig.y_interval[0]}, {fig.y_interval[1]}), found by a "
                   f"sign-change scan on 65 ordinates and bisection in double precision (numpy), sums written "
                   f"out term by term"),
        "references": refs, "tolerance": TOLERANCE, "max_abs_diff": worst, "agrees": not problems,
        "problems": problems, "curves": curves, "nroots": sum(r is not None for c in curves for r in c["y"]),
        "seconds": round(time.perf_counter() - t0, 3),
    }


def compute_figure(fig: Figure, *, samples: int = 201, digits: int = 30) -> dict:
    """The figure's data (JSON-ready): sampled curves, overlay points, agreement."""
    t0 = time.perf_counter()
    if fig.numeric:
        return _compute_numeric(fig, samples, digits, t0)
    lo, hi = (float(v) for v in fig.x_range)
    ylo, yhi = fig.y_interval
    xs = [lo + (hi - lo) * i / (samples - 1) for i in range(samples)]
    curves = []
    worst = 0.0
    problems = []
    for ci, curve in enumerate(fig.curves):
        subs = {k: sp.nsimplify(v) for k, v in curve.params.items()}
        f = sp.lambdify(fig.x, fig.closed_form.subs(subs), "mpmath")
        F = sp.lambdify((fig.y, fig.x), fig.stationarity.subs(subs), "mpmath")
        F_float = _float_function((fig.y, fig.x), fig.stationarity.subs(subs))
        ys = _sample(f, xs, digits)
        points = []
        cmax = 0.0
        for xv in fig.overlay:
            x = mpmath.mpf(str(xv)) if not isinstance(xv, sp.Basic) else mpmath.mpf(str(sp.N(xv, 40)))
            rs = _roots(lambda t: F(t, x), ylo, yhi, digits,
                        F_float=None if F_float is None else lambda t, xf=float(x): F_float(t, xf))
            with mpmath.workdps(digits):
                try:
                    cf = f(x)
                    cf = mpmath.mpf(cf.real) if isinstance(cf, mpmath.mpc) else mpmath.mpf(cf)
                except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                    cf = None
            pt = {"x": float(x), "roots": [float(r) for r in rs],
                  "closed_form": None if cf is None else float(cf)}
            if len(rs) != 1:
                problems.append(f"curve {ci + 1} at x = {float(x):g}: the stationarity condition has "
                                f"{len(rs)} roots in the interval")
            if rs and cf is not None:
                with mpmath.workdps(digits):
                    d = float(min(abs(cf - r) for r in rs))
                pt["abs_diff"] = d
                cmax = max(cmax, d)
            else:
                pt["abs_diff"] = None
                if cf is None:
                    problems.append(f"curve {ci + 1} at x = {float(x):g}: the closed form is undefined")
            points.append(pt)
        worst = max(worst, cmax)
        if cmax > TOLERANCE:
            problems.append(f"curve {ci + 1} ({_label(curve)}): closed form and numeric root differ by "
                            f"up to {cmax:.3g}")
        curves.append({"label": _label(curve),
                       "params": {str(k): str(sp.nsimplify(v)) for k, v in
                                  sorted(curve.params.items(), key=lambda kv: str(kv[0]))},
                       "x": xs, "y": ys, "points": points, "max_abs_diff": cmax})
    extra = {}
    if fig.references:
        fns = _reference_functions(fig)
        refs = _reference_data(fig, fns, xs, digits)
        worst = max(worst, _check_references(fig, fns, refs, curves, problems, digits))
        extra["references"] = refs
    return {
        "id": fig.id, "title": fig.title, "ref": str(fig.ref), "caption": fig.caption,
        "source": fig.source, "uses": list(fig.uses), "note": fig.note,
        "x_label": fig.x_label, "y_label": fig.y_label, "diagonal": fig.diagonal,
        "x_range": [lo, hi], "y_interval": [float(ylo), float(yhi)], **extra,
        "closed_form": latex(fig.closed_form, fig.notation),
        "stationarity": latex(sp.Eq(fig.stationarity, 0), fig.notation),
        "method": (f"closed form sampled at {samples} points; at each overlay point every root of the "
                   f"stationarity condition in ({ylo}, {yhi}) found by a sign-change scan (in doubles, "
                   f"signs too close to 0 for doubles in mpmath) and refined by safeguarded false "
                   f"position in mpmath at {digits} digits"),
        "tolerance": TOLERANCE, "max_abs_diff": worst, "agrees": not problems,
        "problems": problems, "curves": curves,
        "seconds": round(time.perf_counter() - t0, 3),
    }
