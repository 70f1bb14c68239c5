"""Bernstein certificates: the sign of a one-variable polynomial on a bounded interval.

A polynomial of degree n on [l, h] is, with t = (x - l)/(h - l),

    p(x) = sum_i b_i binomial(n, i) t^i (1 - t)^(n - i),

and every basis function is positive inside the interval: if every Bernstein coefficient
b_i is positive, so is p on the whole interval (and p(l) = b_0, p(h) = b_n exactly).  Where
the signs are mixed, de Casteljau's algorithm splits the interval in two and gives the
coefficients of each half (they converge to p's values as the pieces shrink).

This is the method of choice for the long polynomials with algebraic coefficients that
finite group sizes produce (P_G is a degree G - 1 Bernstein sum with coefficients
sqrt((G-1-k)/(k+1))): z3 gives up on them, and box enclosures of a difference of two such
sums lose everything to cancellation.  Every coefficient is an arb ball (python-flint),
computed from the expression tree with arb_poly arithmetic at a working precision that
grows with the degree, so no sympy expansion is needed and every step rounds outward: a
coefficient whose ball straddles 0 is undecided, never taken as a sign.

Backend interface: ``declines`` unless the goal is one variable, polynomial in it, on a
bounded interval with rational ends, without relations; ``decide`` gives holds (every
piece's coefficients signed), violated (a piece's end value of the wrong sign: a
candidate the engine confirms), or unknown.
"""

from __future__ import annotations

import time
from math import comb

import mpmath
import sympy as sp

from . import Backend, Decision

__all__ = ["BernsteinBackend", "BERNSTEIN", "bernstein_coefficients", "poly_in_arb"]

MAX_DEGREE = 400
MAX_PIECES = 4096


def _flint():
    import flint
    return flint


class _NotPolynomial(Exception):
    pass


def poly_in_arb(e, x, prec: int, exact: bool = False):
    """e as a python-flint arb_poly in x (outward-rounded coefficients at `prec` bits), built
    from the expression tree: sums, products and non-negative integer powers of x-dependent
    parts, constants enclosed by the ball compiler.  exact=True: an fmpq_poly (every
    constant must be rational), so that zero coefficients are exactly zero.  Raises
    _NotPolynomial otherwise."""
    from .ball import compile_ball
    flint = _flint()
    ring = flint.fmpq_poly if exact else flint.arb_poly
    memo: dict = {}

    def walk(node):
        if node in memo:
            return memo[node]
        if not node.has(x):
            if exact:
                if not node.is_Rational:
                    raise _NotPolynomial(f"constant {node} is not rational")
                out = ring([flint.fmpq(int(node.p), int(node.q))])
            else:
                f = compile_ball(node, ())
                if f is None:
                    raise _NotPolynomial(f"constant {node} has no ball enclosure")
                try:
                    c = f([])
                except (ArithmeticError, ValueError) as exc:  # not a finite real ball (sqrt(1 - sqrt 3))
                    raise _NotPolynomial(f"constant {node} has no finite real enclosure") from exc
                if not c.is_finite():
                    raise _NotPolynomial(f"constant {node} has no finite real enclosure")
                out = ring([c])
        elif node == x:
            out = ring([0, 1])
        elif isinstance(node, sp.Add):
            out = ring([0])
            for a in node.args:
                out = out + walk(a)
        elif isinstance(node, sp.Mul):
            out = ring([1])
            for a in node.args:
                out = out * walk(a)
        elif isinstance(node, sp.Pow) and node.exp.is_Integer and node.exp >= 0:
            out = walk(node.base) ** int(node.exp)
        else:
            raise _NotPolynomial(f"{type(node).__name__} of {x}")
        memo[node] = out
        return out

    with flint.ctx.workprec(prec):
        return walk(sp.sympify(e))


def bernstein_coefficients(p, lo, hi, prec: int) -> list:
    """Bernstein coefficients of p on [lo, hi] (lo, hi: fmpq): arb balls for an arb_poly,
    exact fmpq for an fmpq_poly."""
    flint = _flint()
    exact = isinstance(p, flint.fmpq_poly)
    num = flint.fmpq if exact else flint.arb
    with flint.ctx.workprec(prec):
        if exact:
            shifted = p(flint.fmpq_poly([lo, hi - lo]))  # p(lo + (hi - lo) t)
        else:
            shifted = p(flint.arb_poly([flint.arb(lo), flint.arb(hi - lo)]))
        c = list(shifted.coeffs())
        n = max(len(c) - 1, 0)
        c = c + [num(0)] * (n + 1 - len(c))
        # b_i = sum_{j <= i} binomial(i, j) / binomial(n, j) c_j
        scaled = [c[j] / num(comb(n, j)) for j in range(n + 1)]
        out = []
        for i in range(n + 1):
            s = num(0)
            for j in range(i + 1):
                s += scaled[j] * comb(i, j)
            out.append(s)
        return out


def _split(b, prec):
    """de Casteljau at the midpoint: the coefficients of the left and the right half."""
    flint = _flint()
    half = flint.fmpq(1, 2)
    with flint.ctx.workprec(prec):
        row = list(b)
        left, right = [row[0]], [row[-1]]
        while len(row) > 1:
            row = [(row[i] + row[i + 1]) * half for i in range(len(row) - 1)]
            left.append(row[0])
            right.append(row[-1])
        return left, right[::-1]


def _positive(a) -> bool:
    return a > 0  # arb comparison: True only if the whole ball is > 0


def _nonnegative(a) -> bool:
    return a >= 0


class BernsteinBackend(Backend):
    """Sign of a one-variable polynomial on a bounded interval by Bernstein coefficients."""

    name = "bernstein"

    def declines(self, goal):
        if goal.want not in ("positive", "nonnegative", "negative", "nonpositive"):
            return "decides signs, not equalities"
        if goal.extra or goal.domain.where or getattr(goal, "curve", None) is not None \
                or getattr(goal, "off_curve", None) is not None:
            return "relations between variables"
        e = sp.sympify(goal.expr)
        free = e.free_symbols
        if len(free) != 1:
            return "not a function of one variable"
        (x,) = free
        st = goal.domain.sets.get(x)
        if not isinstance(st, sp.Interval) or not (st.start.is_Rational and st.end.is_Rational):
            return "not a bounded interval with rational ends"
        if e.has(sp.Sum, sp.Product, sp.Integral):
            return "an unexpanded sum or integral"
        if not e.is_polynomial(x):
            return "not a polynomial"
        return None

    def decide(self, goal, seconds, trace=None):
        t0 = time.process_time()
        deadline = t0 + seconds
        flint = _flint()
        e = sp.sympify(goal.expr)
        (x,) = e.free_symbols
        if goal.want in ("negative", "nonpositive"):
            e, want = -e, "positive" if goal.want == "negative" else "nonnegative"
        else:
            want = goal.want
        st = goal.domain.sets[x]
        lo = flint.fmpq(int(st.start.p), int(st.start.q))
        hi = flint.fmpq(int(st.end.p), int(st.end.q))
        # the degree from the arb_poly itself: sympy's degree() expands the expression
        prec, degree = 256, None
        # rational constants only: exact arithmetic, where a zero coefficient is exactly zero
        exact = True
        for _attempt in range(5):
            try:
                p = poly_in_arb(e, x, prec, exact)
            except _NotPolynomial as exc:
                if exact:
                    exact = False  # an irrational constant: balls
                    continue
                return Decision("unknown", f"bernstein: {exc}")
            if degree is None:
                degree = p.degree()
                if degree > MAX_DEGREE:
                    return Decision("unknown", f"bernstein: degree {degree} not handled")
                if not exact and prec < 128 + 8 * degree:
                    prec = 128 + 8 * degree  # binomials of the degree cancel in the coefficients
                    continue
            out = self._search(p, x, lo, hi, st, want, prec, deadline)
            if out is not None:
                return out
            if exact or time.process_time() > deadline:
                break  # exact coefficients do not improve with precision
            prec *= 2
        return Decision("unknown", f"bernstein: coefficients of mixed sign down to the smallest pieces "
                                   f"(degree {degree}, {prec} bits)")

    def _search(self, p, x, lo, hi, st, want, prec, deadline):
        """holds / violated Decision, or None when this precision left a piece undecided."""
        todo = [(lo, hi, bernstein_coefficients(p, lo, hi, prec), 0)]
        pieces, depth = 0, 0
        while todo:
            if time.process_time() > deadline or pieces > MAX_PIECES:
                return None
            a, b, coef, d = todo.pop()
            pieces += 1
            depth = max(depth, d)
            in_lo = not (a == lo and st.left_open)
            in_hi = not (b == hi and st.right_open)
            for end, val, inside in ((a, coef[0], in_lo), (b, coef[-1], in_hi)):
                # an end value of the wrong sign at a domain point: a candidate counterexample
                if inside and (val < 0 if want == "nonnegative" else val <= 0):
                    r = sp.Rational(int(end.p), int(end.q))
                    return Decision("violated", f"bernstein: p({r}) has the wrong sign",
                                    point={x: mpmath.mpf(r.p) / r.q}, exact={x: r},
                                    boxes=pieces, depth=depth)
            if want == "nonnegative":
                if all(_nonnegative(c) for c in coef):
                    continue
            else:
                inner = all(_nonnegative(c) for c in coef) and any(_positive(c) for c in coef)
                ends = (not in_lo or _positive(coef[0])) and (not in_hi or _positive(coef[-1]))
                if inner and ends:
                    continue
            if d >= 60:
                return None
            left, right = _split(coef, prec)
            mid = (a + b) / 2
            todo.append((mid, b, right, d + 1))
            todo.append((a, mid, left, d + 1))
        return Decision("holds", f"bernstein: coefficients signed on {pieces} piece(s) of "
                                 f"[{st.start}, {st.end}], depth {depth}", boxes=pieces, depth=depth)


BERNSTEIN = BernsteinBackend()
