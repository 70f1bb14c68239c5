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
    _NotPolynomial otherwise.

    A finite sum (Sum with integer bounds, as a finite group size gives: P_G at G = 40) is
    added up here term by term, its index bound to each value in turn, instead of being
    written out as a sympy expression first (which cost the finite-G claims most of their
    time).  Each term is what writing it out gives: powers of one base in a product are
    added up (k x^k / x is x^(k-1) once k is a number), and a product with a constant
    factor that is exactly 0 is 0 (the tie term k = G - 1), as sympy's own arithmetic
    makes them.  Whether the sum as declared is defined everywhere (no 0 * (1/x) hiding a
    pole) is the engine's separate check (goals._solve_instances)."""
    from .ball import compile_ball
    flint = _flint()
    ring = flint.fmpq_poly if exact else flint.arb_poly
    indices = _index_symbols(e)
    memo: dict = {}
    deps: dict = {}

    def key(node, env):
        if not env:
            return node
        d = deps.get(node)
        if d is None:
            d = deps[node] = tuple(s for s in indices if s in node.free_symbols)
        return (node, tuple(env.get(s) for s in d)) if d else node

    def constant(node, env):
        if env and key(node, env) is not node:
            c = _constant_at(node, env, exact)
            if c is None:  # not a number this evaluator knows: sympy evaluates the term
                node = node.xreplace({s: sp.Integer(v) for s, v in env.items()})
            else:
                return ring([c])
        if exact:
            if not node.is_Rational:
                raise _NotPolynomial(f"constant {node} is not rational")
            return ring([flint.fmpq(int(node.p), int(node.q))])
        f = compile_ball(node, ())
        if f is None:
            raise _NotPolynomial(f"constant {node} has no ball enclosure")
        try:
            c = f([])
        except (ArithmeticError, ValueError) as exc:  # not a finite real ball (sqrt(1 - sqrt 3))
            raise _NotPolynomial(f"constant {node} has no finite real enclosure") from exc
        if not c.is_finite():
            raise _NotPolynomial(f"constant {node} has no finite real enclosure")
        return ring([c])

    def walk(node, env):
        k = key(node, env)
        got = memo.get(k)
        if got is not None:
            return got
        if not node.has(x):
            out = constant(node, env)
        elif node == x:
            out = ring([0, 1])
        elif isinstance(node, sp.Add):
            out = ring([0])
            for a in node.args:
                out = out + walk(a, env)
        elif isinstance(node, sp.Mul):
            out = _product(node, env)
        elif isinstance(node, sp.Pow):
            n = _integer_at(node.exp, env)
            if n is None or n < 0:
                raise _NotPolynomial(f"{type(node).__name__} of {x}")
            out = walk(node.base, env) ** n
        elif isinstance(node, sp.Sum) and len(node.limits) == 1:
            var, lo, hi = node.limits[0]
            a, b = _integer_at(lo, env), _integer_at(hi, env)
            if a is None or b is None or var == x or b - a + 1 > MAX_SUM_TERMS:
                raise _NotPolynomial(f"a sum over {var} without small integer bounds")
            out = ring([0])
            for i in range(a, b + 1):
                out = out + walk(node.function, {**env, var: i})
        else:
            raise _NotPolynomial(f"{type(node).__name__} of {x}")
        memo[k] = out
        return out

    def _product(node, env):
        # the constant factors first: exactly 0 makes the term 0 whatever the rest is
        out = ring([1])
        powers: dict = {}
        for a in node.args:
            if not a.has(x):
                out = out * walk(a, env)
                if out.degree() < 0:
                    return out
            elif isinstance(a, sp.Pow):
                n = _integer_at(a.exp, env)
                if n is None:
                    raise _NotPolynomial(f"Pow of {x}")
                powers[a.base] = powers.get(a.base, 0) + n
            else:
                powers[a] = powers.get(a, 0) + 1
        for base, n in powers.items():
            if n < 0:
                raise _NotPolynomial(f"Pow of {x}")
            if n:
                out = out * walk(base, env) ** n
        return out

    with flint.ctx.workprec(prec):
        return walk(sp.sympify(e), {})


MAX_SUM_TERMS = 20000  # as instances.MAX_TERMS: a longer sum is not added up


def _index_symbols(e) -> tuple:
    return tuple(sorted({lim[0] for node in sp.sympify(e).atoms(sp.Sum) for lim in node.limits}, key=str))


def _finite_sums(e, x) -> bool:
    """Every sum of e has one index, not x, and bounds made of integers and the indices of
    enclosing sums."""
    indices = set(_index_symbols(e))
    for node in sp.sympify(e).atoms(sp.Sum):
        if len(node.limits) != 1:
            return False
        var, lo, hi = node.limits[0]
        if var == x or not (lo.free_symbols | hi.free_symbols) <= indices:
            return False
    return True


def _integer_at(e, env):
    """The integer value of e (an exponent or a bound) with the sums' indices at `env`, or
    None when it is not an integer made of integers and bound indices."""
    if e.is_Integer:
        return int(e)
    if e.is_Symbol:
        return env.get(e)
    if isinstance(e, (sp.Add, sp.Mul)):
        vals = [_integer_at(a, env) for a in e.args]
        if any(v is None for v in vals):
            return None
        out = 0 if isinstance(e, sp.Add) else 1
        for v in vals:
            out = out + v if isinstance(e, sp.Add) else out * v
        return out
    return None


def _constant_at(e, env, exact: bool):
    """A constant term's value with the sums' indices at `env`: an exact fmpq (exact) or an
    arb ball, from integers, rationals, the bound indices, sums, products, powers (square
    roots as balls only) and binomial coefficients; None for anything else (the caller
    then lets sympy evaluate it)."""
    flint = _flint()
    if e.is_Rational:
        q = flint.fmpq(int(e.p), int(e.q))
        return q if exact else flint.arb(q)
    if e.is_Symbol:
        v = env.get(e)
        if v is None:
            return None
        return flint.fmpq(v) if exact else flint.arb(v)
    if isinstance(e, (sp.Add, sp.Mul)):
        out = None
        for a in e.args:
            v = _constant_at(a, env, exact)
            if v is None:
                return None
            out = v if out is None else (out + v if isinstance(e, sp.Add) else out * v)
        return out
    if isinstance(e, sp.Pow):
        base = _constant_at(e.base, env, exact)
        if base is None:
            return None
        n = _integer_at(e.exp, env)
        if n is not None:
            if n < 0 and (base == 0 if exact else not base > 0 and not base < 0):
                return None  # 1/0, or a ball that may be 0: sympy says what it is
            return base ** n
        if exact or e.exp not in (sp.S.Half, -sp.S.Half) or not base >= 0:
            return None  # a root is rational only sometimes: sympy decides
        r = base.sqrt()
        return r if e.exp is sp.S.Half else (1 / r if r > 0 else None)
    if isinstance(e, sp.binomial):
        n, k = (_integer_at(a, env) for a in e.args)
        if n is None or k is None or n < 0 or n > MAX_SUM_TERMS:
            return None
        c = comb(n, k) if 0 <= k <= n else 0
        return flint.fmpq(c) if exact else flint.arb(c)
    return None


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
    takes_sums = True

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
        if e.has(sp.Product, sp.Integral):
            return "an unexpanded product or integral"
        if e.has(sp.Sum):
            # added up term by term in poly_in_arb; whether the terms are polynomials is
            # found there (sympy's is_polynomial does not look into a sum)
            if not _finite_sums(e, x):
                return "a sum without integer bounds"
        elif not e.is_polynomial(x):
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
