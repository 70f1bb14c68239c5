"""Exact zero tests in python-flint, where sympy's own expansion is the slow part.

``identically_zero``: is an expression identically zero as a rational function of its
atoms?  In flint's multivariate polynomials over the rationals (``fmpq_mpoly``).
``polynomial_identically_zero``: is a polynomial in one variable, with square roots of
rationals and sums over a finite index, identically zero?  In ``fmpq_poly``, one per
square root (see its docstring).

This is the question sympy's ``cancel(e) == 0`` answers: every node that is not a sum,
a product, an integer power or a rational number (a symbol, log(x), exp(y), pi, a
Piecewise, x**a, ...) stands as an independent variable, and the expression is
multiplied out over a common denominator.  Treating the atoms as independent is sound:
a rational function that is zero for independent values of its atoms is zero for any
values they take, wherever the expression is defined (the evaluation at a point where no
denominator vanishes is a ring homomorphism).  It is incomplete: exp(a + b) -
exp(a)*exp(b) is not decided (expand does that), nor anything that needs a sign
(sqrt(x**2) is x only for x >= 0).

Why not sympy: ``cancel`` multiplies the expression out in sympy's core (``expand``)
before it reaches its polynomial rings, and that costs seconds on the paper's larger
identities (g = 3, 4 written out) where flint takes milliseconds.

A power whose exponent has a rational coefficient p/q stands as (b**(t/q))**p, with
b**(t/q) one variable (exp(-x) is exp(x)**-1): the principal branch satisfies
b**(p t/q) = exp(p t/q log b) = (b**(t/q))**p for every b != 0, which is all the
identity needs (at b = 0 with p < 0 the expression is undefined).  The powers of one
base share one variable, b**(1/L) with L the lcm of their denominators, and the base is
written in one form (multiplied out) so that sqrt(r*(1 - r)) and sqrt(r - r**2) are one
variable.  A root's own relation, (b**(1/L))**L = b, true of the principal root of every
b, is used once the numerator is multiplied out (``_Field.reduced``): a variable b is
itself (b**(1/L))**L, and any other b replaces each L-th power of its root.
Floats are refused: a float is not a rational number, and a proof must not round.
"""

from __future__ import annotations

from math import comb

import sympy as sp
from sympy.core.exprtools import decompose_power

__all__ = ["identically_zero", "polynomial_identically_zero", "radical_polynomial"]

# the largest product (in terms) multiplied out before giving up: flint's C code cannot
# be interrupted by the time limits of timebox.py, so the size is bounded up front
MAX_TERMS = 200_000
MAX_GENERATORS = 200
MAX_EXPONENT = 10_000
MAX_TERMS_ADDED = 20000  # as instances.MAX_TERMS: a longer sum is not added up
MAX_BITS = 10 ** 8  # bits of all the coefficients of a power (about 12 MB) before it is taken
MAX_INTEGER_ARGUMENT = 20_000  # of a factorial or binomial: math's C code cannot be interrupted
_NOT_NUMBERS = (sp.oo, -sp.oo, sp.zoo, sp.nan, sp.AccumBounds)


class Refused(ValueError):
    """The expression is too large, or not of a form this module multiplies out."""


def identically_zero(expr) -> bool | None:
    """True if `expr` is identically 0 as a rational function of its atoms (see the
    module docstring), False if it is not, None if it could not be decided here (a
    float, a division by an expression that is identically zero, or too large)."""
    try:
        field = _Field(expr)
        num, den = field.value(sp.sympify(expr))
        if field.reduced(den).is_zero():
            return None  # 0/0 once the roots' relations are used: defined nowhere
        return field.reduced(num).is_zero()
    except Exception:  # noqa: BLE001 - too large, too deep, a division by 0: not decided here
        return None


def shares_factor(a, b) -> bool | None:
    """Does b's numerator share a non-constant factor with a's numerator times b's
    denominator, as rational functions of their atoms?  False means a/b over a common
    denominator keeps all of b's numerator below the line, as sympy's ``cancel`` would
    leave it.  None if not decided here (a root, whose relations flint does not see; a
    float; too large)."""
    try:
        field = _Field(sp.Mul(a, b, evaluate=False))
        if field._roots:
            return None
        na, da = field.value(sp.sympify(a))
        nb, db = field.value(sp.sympify(b))
        _bound(len(na), len(db))
        return (na * db).gcd(nb).total_degree() > 0
    except Exception:  # noqa: BLE001 - too large, a division by 0: not decided here
        return None


class _Field:
    """The atoms of one expression, as the generators of one flint context."""

    def __init__(self, expr):
        import flint
        self._flint = flint
        self._index: dict = {}   # what each generator stands for -> its index
        self._roots: dict = {}   # base b of rational powers -> L: b**(1/L) is its generator
        self._canon: dict = {}
        self._atoms: dict = {}   # node -> _atom_of(node): it walks an atom's subtree once
        self._relations = None   # the roots' relations, made once for num and den (reduced)
        self._collect(sp.sympify(expr))
        n = max(1, len(self._index))
        self.ctx = flint.fmpq_mpoly_ctx.get(("t", n), "lex")
        self._gens = self.ctx.gens()
        self._one = self.ctx.from_dict({(0,) * n: 1})
        self._memo: dict = {}

    # --- the atoms -------------------------------------------------------------------
    def _atom_of(self, node):
        try:
            return self._atoms[node]
        except KeyError:
            got = self._atoms[node] = self._classify(node)
            return got

    def _classify(self, node):
        """How a node that is not arithmetic stands, or None if it is arithmetic:
        ("root", b, p/q) for b**(p/q), or (base, k) for base**k with base a variable
        (exp(-2*x) is exp(x)**-2 and x**(-a) is (x**a)**-1, as in sympy's own polynomial
        rings, ``decompose_power``, so that they cancel)."""
        if node.is_commutative is False:
            raise Refused("not commutative: A*B - B*A is not 0")
        if isinstance(node, (sp.Add, sp.Mul)) or node.is_Rational:
            return None
        if isinstance(node, sp.Pow) and node.exp.is_Integer:
            return None
        if node.is_Float:
            raise Refused("a float is not exact")
        if not isinstance(node, sp.Expr) or node.has(*_NOT_NUMBERS):
            # an atom that may be infinite (or an interval, AccumBounds(-1, 1) = sin(oo)) is
            # not an independent number: oo - oo is not 0
            raise Refused("not a number")
        if isinstance(node, sp.Pow) and node.exp.is_Rational:
            return "root", self._canonical(node.base), node.exp
        if isinstance(node, (sp.Pow, sp.exp)):
            base, k = decompose_power(node)
            return base, int(k)
        return node, 1

    def _canonical(self, base):
        """One form for equal bases of roots written differently, sqrt(r*(1 - r)) and
        sqrt(r - r**2): multiplied out (only products and integer powers: the same value)."""
        got = self._canon.get(base)
        if got is None:
            got = self._canon[base] = sp.expand(base, power_base=False, power_exp=False, log=False)
        return got

    def _collect(self, node):
        """Index the generators: one per variable, and one per base of rational powers,
        b**(1/L) with L the lcm of their denominators: sqrt(x) and x**(1/3) are then
        powers of x**(1/6), and x itself, when it is a variable, is (x**(1/6))**6."""
        from math import lcm
        seen = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            atom = self._atom_of(n)
            if atom is None:
                stack.extend(n.args if not isinstance(n, sp.Pow) else (n.base,))
            elif atom[0] == "root":
                b, r = atom[1], atom[2]
                self._roots[b] = lcm(self._roots.get(b, 1), int(r.q))
                self._new(("root", b))
                stack.append(b)  # its own variables, or b itself as a variable
            else:
                self._new(atom[0])

    def _new(self, key):
        if key not in self._index:
            if len(self._index) >= MAX_GENERATORS:
                raise Refused("too many atoms")
            self._index[key] = len(self._index)

    def _atom_value(self, atom):
        if atom[0] == "root":
            b, r = atom[1], atom[2]
            k = int(r.p) * (self._roots[b] // int(r.q))
            return self._power((self._gens[self._index[("root", b)]], self._one), k)
        base, k = atom
        if base in self._roots:
            # a variable that is also the base of roots: x = (x**(1/L))**L
            k *= self._roots[base]
            return self._power((self._gens[self._index[("root", base)]], self._one), k)
        return self._power((self._gens[self._index[base]], self._one), k)

    # --- the roots' own relations --------------------------------------------------------
    def reduced(self, num):
        """num with every power g**k (k >= L) of a root's generator g = b**(1/L) replaced by
        g**(k mod L) b**(k div L), over a common denominator: num times a power of b's
        denominator, which is not zero.  So (sqrt(b)**2 - b) reduces to 0.  Only ever sound:
        g**L = b holds for the principal root of any b, so a num that reduces to 0 is zero
        at the actual values (a num that does not may still be: then this says "not zero")."""
        relations = self._root_relations()
        # a nested root's base holds inner roots: substitute until no power is left to reduce
        for _ in range(len(relations) + 1):
            changed = False
            for i, L, bn, bd in relations:
                num, did = self._substitute(num, i, L, bn, bd)
                changed = changed or did
            if not changed:
                return num
        return num

    def _root_relations(self) -> list:
        if self._relations is None:
            self._relations = []
            for b, L in self._roots.items():
                if self._atom_of(b) is not None and not isinstance(b, sp.Pow):
                    continue  # a variable base is already (b**(1/L))**L itself (_atom_value)
                bn, bd = self.value(b)
                if bn.is_zero():
                    raise Refused("a root of 0")  # its negative powers are undefined, not variables
                self._relations.append((self._index[("root", b)], L, bn, bd))
        return self._relations

    def _substitute(self, num, i, L, bn, bd):
        terms = num.to_dict()
        top = max((e[i] // L for e in terms), default=0)
        if top == 0:
            return num, False
        groups: dict = {}
        for e, c in terms.items():
            q, r = divmod(e[i], L)
            groups.setdefault(q, {})[e[:i] + (r,) + e[i + 1:]] = c
        out = None
        for q, part in groups.items():
            a, b = self._power((bn, self._one), q)[0], self._power((bd, self._one), top - q)[0]
            _bound(len(a), len(b))
            factor = a * b
            _bound(len(part), len(factor))
            term = self.ctx.from_dict(part) * factor
            out = term if out is None else out + term
            _bound(len(out), 1)
        return out, True

    # --- arithmetic on (numerator, denominator) pairs ----------------------------------
    def value(self, node):
        got = self._memo.get(node)
        if got is None:
            got = self._memo[node] = self._value(node)
        return got

    def _value(self, node):
        if node.is_Rational:
            return self._one * self._flint.fmpq(int(node.p), int(node.q)), self._one
        atom = self._atom_of(node)
        if atom is not None:
            return self._atom_value(atom)
        if isinstance(node, sp.Add):
            out = None
            for a in node.args:
                out = self.value(a) if out is None else self._add(out, self.value(a))
            return out
        if isinstance(node, sp.Mul):
            out = None
            for a in node.args:
                out = self.value(a) if out is None else self._mul(out, self.value(a))
            return out
        # an integer power
        return self._power(self.value(node.base), int(node.exp))

    def _add(self, a, b):
        (n1, d1), (n2, d2) = a, b
        if d1 == d2:
            return n1 + n2, d1
        _bound(len(n1), len(d2))
        _bound(len(n2), len(d1))
        g = d1.gcd(d2)
        if g == self._one or g.total_degree() == 0:
            _bound(len(d1), len(d2))
            return n1 * d2 + n2 * d1, d1 * d2
        e1, e2 = d1 / g, d2 / g
        _bound(len(d1), len(e2))
        return n1 * e2 + n2 * e1, d1 * e2

    def _mul(self, a, b):
        (n1, d1), (n2, d2) = a, b
        _bound(len(n1), len(n2))
        _bound(len(d1), len(d2))
        return n1 * n2, d1 * d2

    def _power(self, a, k):
        n, d = a
        if k < 0:
            if n.is_zero():
                raise ZeroDivisionError("a power of zero with a negative exponent")
            n, d, k = d, n, -k
        if k == 0:
            return self._one, self._one
        # n**k has at most comb(terms + k - 1, k) terms (the monomials of degree k in them)
        for p in (n, d):
            terms = comb(len(p) + k - 1, k) if len(p) > 1 else 1
            if k > MAX_EXPONENT or terms > MAX_TERMS or terms * k * (_bits(p) + len(p).bit_length()) > MAX_BITS:
                raise Refused("power too large to multiply out")
        return n ** k, d ** k


def _bits(p) -> int:
    """The most bits of a coefficient of p (numerator and denominator)."""
    return max((int(c.p).bit_length() + int(c.q).bit_length() for c in p.coeffs()), default=1)


def _bound(p, q):
    if p * q > MAX_TERMS:
        raise Refused("product too large to multiply out")


# --- one variable, with square roots of rationals and sums over an index ---------------
def polynomial_identically_zero(e) -> str:
    """"exact polynomial arithmetic" when e is identically 0 as a polynomial in its one
    variable whose constants are rationals and square roots of rationals, else "".

    e is multiplied out once, exactly, as a sum of sqrt(f) times a polynomial with rational
    coefficients (python-flint fmpq_poly), f running over distinct squarefree integers.
    Square roots of distinct squarefree integers are linearly independent over the
    rationals, hence over Q(x): e is the zero polynomial exactly when every one of those
    polynomials is.  Used value by value for the sums of a finite parameter, where sympy's
    expand of a degree-63 polynomial costs seconds.  A sum or product with integer bounds
    is added up term by term here, its index bound to each value (binomials and factorials
    of integers as sympy defines them, an empty range when hi < lo, as
    ``instances.written_out``): writing the 63 instances out as sympy expressions first
    cost more than deciding them."""
    e = sp.sympify(e)
    free = e.free_symbols
    if not free:
        if not e.has(sp.Sum, sp.Product):
            return "exact value" if e == 0 else ""
        x = sp.Dummy("x")
    elif len(free) != 1:
        return ""
    else:
        (x,) = free
    try:
        if any(not p.is_zero() for p in radical_polynomial(e, x).values()):
            return ""
    except Exception:  # noqa: BLE001 - not a polynomial in this form: no verdict
        return ""
    return "exact value" if not free else "exact polynomial arithmetic"


def _squarefree(m: int) -> tuple:
    """m = s^2 f with f squarefree: (s, f)."""
    s, f = 1, 1
    for p, k in sp.factorint(m).items():
        s *= p ** (k // 2)
        f *= p ** (k % 2)
    return s, f


def radical_polynomial(e, x) -> dict:
    """e exactly, as {squarefree f: fmpq_poly in x, the coefficient of sqrt(f)}; raises
    ValueError on anything else (a negative power of x, a function of x, a float)."""
    import flint
    from math import factorial, gcd

    from .evaluate import integer_binomial
    memo: dict = {}
    one = flint.fmpq_poly([1])

    def mul(a, b):
        out: dict = {}
        for m, p in a.items():
            for n, q in b.items():
                g = gcd(m, n)
                f = (m // g) * (n // g)
                term = p * q * g
                out[f] = out[f] + term if f in out else term
        return out

    def power(base, k):
        degree = max((c.degree() for c in base.values()), default=0)
        bits = max((int(v.p).bit_length() + int(v.q).bit_length() for c in base.values() for v in c.coeffs()),
                   default=1)
        if k > MAX_EXPONENT or k * degree > MAX_EXPONENT or (k * degree + 1) * k * (bits + 8) > MAX_BITS:
            raise ValueError("power too large to multiply out")
        out = {1: one}
        while k:
            if k & 1:
                out = mul(out, base)
            k >>= 1
            if k:
                base = mul(base, base)
        return out

    def const(v):
        return {1: flint.fmpq_poly([flint.fmpq(int(v.p), int(v.q))])} if isinstance(v, sp.Rational) else \
            {1: flint.fmpq_poly([v])}

    def rational(node, env):
        """A rational-valued node (a bound, an exponent, a binomial's argument) under env."""
        got = walk(node, env)
        if set(got) - {1} or (1 in got and got[1].degree() > 0):
            raise ValueError(f"{node} is not a number here")
        return got[1][0] if 1 in got else flint.fmpq(0)

    def integer(node, env) -> int:
        c = rational(node, env)
        if c.q != 1:
            raise ValueError(f"{node} is not an integer here")
        return int(c.p)

    def root(r, p):
        """sqrt(r)**p for a rational r > 0 and an integer p, as radicals."""
        if p < 0:
            r, p = 1 / r, -p
        if (int(r.p) * int(r.q)).bit_length() > 64:
            raise ValueError("a root of a number too large to factor")
        s_, f = _squarefree(int(r.p) * int(r.q))  # sqrt(p/q) = sqrt(p q)/q
        return power({f: flint.fmpq_poly([flint.fmpq(s_, int(r.q))])}, p)

    def walk(node, env):
        # memoised outside sums only: inside one, a node's value depends on the index
        got = memo.get(node) if not env else None
        if got is not None:
            return got
        if node in env:  # first: an index may have the variable's name, Sum(x, (x, 1, 3))
            out = {1: flint.fmpq_poly([env[node]])}
        elif node == x:
            out = {1: flint.fmpq_poly([0, 1])}
        elif node.is_Rational:
            out = const(node)
        elif isinstance(node, sp.Add):
            out = {}
            for a in node.args:
                for f, c in walk(a, env).items():
                    out[f] = out[f] + c if f in out else c
        elif isinstance(node, sp.Mul):
            out = {1: one}
            for a in node.args:
                out = mul(out, walk(a, env))
        elif isinstance(node, sp.Pow):
            q = rational(node.exp, env)
            if q.q == 2:
                # a half-integer power of a positive rational number (sqrt(k + 1) at k = 3)
                r = rational(node.base, env)
                if r < 0 or (r == 0 and q < 0):
                    raise ValueError(f"{node} is not a real number")
                memo_out = {} if r == 0 else root(r, int(q.p))
                if not env:
                    memo[node] = memo_out
                return memo_out
            if q.q != 1:
                raise ValueError(f"{node} is not a radical expression")
            k = int(q.p)
            base = walk(node.base, env)
            if k < 0:
                # only a nonzero rational number has a reciprocal here
                if set(base) != {1} or base[1].degree() != 0 or base[1][0] == 0:
                    raise ValueError(f"{node} is not a polynomial")
                base, k = {1: flint.fmpq_poly([1 / base[1][0]])}, -k
            out = power(base, k)
        elif isinstance(node, sp.binomial):
            n, k = integer(node.args[0], env), integer(node.args[1], env)
            if max(abs(n), abs(k)) > MAX_INTEGER_ARGUMENT:
                raise ValueError(f"{node}: too large")
            out = {1: flint.fmpq_poly([integer_binomial(n, k)])}
        elif isinstance(node, sp.factorial):
            n = integer(node.args[0], env)
            if n < 0 or n > MAX_INTEGER_ARGUMENT:
                raise ValueError(f"{node} is not defined or too large")
            out = {1: flint.fmpq_poly([factorial(n)])}
        elif isinstance(node, (sp.Sum, sp.Product)) and len(node.limits) == 1:
            var, lo, hi = node.limits[0]
            lo, hi = integer(lo, env), integer(hi, env)
            if hi - lo + 1 > MAX_TERMS_ADDED:
                raise ValueError("too many terms")
            out = {} if isinstance(node, sp.Sum) else {1: one}
            for i in range(lo, hi + 1):  # empty when hi < lo, as instances.written_out
                term = walk(node.function, {**env, var: i})
                if isinstance(node, sp.Sum):
                    for f, c in term.items():
                        out[f] = out[f] + c if f in out else c
                else:
                    out = mul(out, term)
        else:
            raise ValueError(f"{type(node).__name__} is not a radical expression")
        if not env:
            memo[node] = out
        return out

    return {f: c for f, c in walk(e, {}).items() if not c.is_zero()}
