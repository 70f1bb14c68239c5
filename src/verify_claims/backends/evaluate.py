"""Evaluate sympy expressions at points: machine floats first, mpmath to decide.

One expression is compiled once to Python source over a namespace of numeric
primitives, and the same code runs on two contexts (as mpmath's ``mp`` and ``fp`` share
one function set):

- ``FLOAT``: machine floats through ``math``.  Fast, and only a *screen*: anything that
  is not a finite real float (an exception, inf, nan, a complex intermediate that does
  not cancel) makes the value ``None``, which means "decide this point with mpmath".
- ``MP``: mpmath at an explicit precision (``dps``).  A value that is undefined at the
  point (division by zero, a complex value, infinity, nan) raises :class:`Undefined`.

Subexpressions shared inside an expression are computed once (structural sharing of
the sympy tree: no ``cse`` pass).  Branches of a Piecewise and bodies of a Sum are kept
lazy, as lambdify does, so an undefined value in a branch that is not taken is never
computed.  An expression the generator does not know falls back to sympy's lambdify for
mpmath (and is never screened in floats).
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp

__all__ = ["Undefined", "Program", "compile_expr", "real_value", "integer_binomial"]


def integer_binomial(n: int, k: int) -> int:
    """binomial(n, k) for integers as sympy defines it (the symbolic side's value): 0 for
    k < 0, n (n - 1) ... (n - k + 1) / k! otherwise, which for n < 0 is (-1)^k C(k - n - 1, k).
    The float path said 0 for binomial(-3, 2) (sympy: 6) and mpmath's gamma route 6 for
    binomial(-3, -5) (sympy: 0)."""
    if k < 0:
        return 0
    if n >= 0:
        return math.comb(n, k) if k <= n else 0
    return (-1) ** k * math.comb(k - n - 1, k)

class Undefined(ArithmeticError):
    """An expression has no real value at a point of the declared domain.  `near_real`: a
    complex value whose imaginary part is below 1e-20 of its real part, the mark of a
    cancellation (1 - pi_a - pi_b for a probability of 1e-194 at 140 digits) that more
    digits may resolve, or that the point's own rounded coordinates cannot."""

    def __init__(self, *args, near_real: bool = False):
        super().__init__(*args)
        self.near_real = near_real


class _NotCompilable(Exception):
    pass


class _NotFloat(Exception):
    """Raised inside float evaluation when only mpmath can evaluate (an infinite sum)."""


# --------------------------------------------------------------------------- contexts
def _no_branch():
    raise ValueError("no branch of a Piecewise applies")


class _FloatNS:
    exp, log, sqrt = staticmethod(math.exp), staticmethod(math.log), staticmethod(math.sqrt)
    sin, cos, tan, atan = staticmethod(math.sin), staticmethod(math.cos), staticmethod(math.tan), staticmethod(math.atan)
    asin, acos, asinh, acosh, atanh = (staticmethod(math.asin), staticmethod(math.acos), staticmethod(math.asinh),
                                       staticmethod(math.acosh), staticmethod(math.atanh))
    sinh, cosh, tanh, erf = staticmethod(math.sinh), staticmethod(math.cosh), staticmethod(math.tanh), staticmethod(math.erf)
    floor, ceil = staticmethod(math.floor), staticmethod(math.ceil)
    pi, e, inf = math.pi, math.e, math.inf
    nobranch = staticmethod(_no_branch)

    @staticmethod
    def num(k):
        return float(k)

    @staticmethod
    def sign(x):
        return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)

    @staticmethod
    def heaviside(x, h0=0.5):
        return 1.0 if x > 0 else (0.0 if x < 0 else h0)

    @staticmethod
    def frac(x):
        return x - math.floor(x)

    @staticmethod
    def binomial(n, k):
        if float(n).is_integer() and float(k).is_integer():
            return float(integer_binomial(int(n), int(k)))
        raise _NotFloat("binomial of non-integers")

    @staticmethod
    def irange(a, b):
        return range(int(a), int(b) + 1)

    @staticmethod
    def nsum(f, a, b):
        raise _NotFloat("an infinite sum is only evaluated by mpmath")

    @staticmethod
    def factorial(n):
        if float(n).is_integer() and n >= 0:
            return float(math.factorial(int(n)))
        return math.gamma(n + 1)

    gamma = staticmethod(math.gamma)
    loggamma = staticmethod(math.lgamma)

    @staticmethod
    def opaque(fn, *args):
        raise _NotFloat("a function only sympy's lambdify knows")


class _MpNS:
    exp, log, sqrt = staticmethod(mpmath.exp), staticmethod(mpmath.log), staticmethod(mpmath.sqrt)
    sin, cos, tan, atan = staticmethod(mpmath.sin), staticmethod(mpmath.cos), staticmethod(mpmath.tan), staticmethod(mpmath.atan)
    asin, acos, asinh, acosh, atanh = (staticmethod(mpmath.asin), staticmethod(mpmath.acos),
                                       staticmethod(mpmath.asinh), staticmethod(mpmath.acosh),
                                       staticmethod(mpmath.atanh))
    sinh, cosh, tanh, erf = staticmethod(mpmath.sinh), staticmethod(mpmath.cosh), staticmethod(mpmath.tanh), staticmethod(mpmath.erf)
    floor, ceil = staticmethod(mpmath.floor), staticmethod(mpmath.ceil)
    pi, e, inf = mpmath.pi, mpmath.e, mpmath.inf
    nobranch = staticmethod(_no_branch)

    @staticmethod
    def num(k):
        return mpmath.mpf(k)

    @staticmethod
    def sign(x):
        return mpmath.sign(x)

    @staticmethod
    def heaviside(x, h0=mpmath.mpf("0.5")):
        return mpmath.mpf(1) if x > 0 else (mpmath.mpf(0) if x < 0 else h0)

    @staticmethod
    def frac(x):
        return mpmath.frac(x)

    @staticmethod
    def binomial(n, k):
        # the binomial weights of a sum over group sizes have integer arguments: exact
        # integers, not mpmath's gamma-function route (half the time of a limit ladder)
        if mpmath.isint(n) and mpmath.isint(k):
            return mpmath.mpf(integer_binomial(int(n), int(k)))
        return mpmath.binomial(n, k)

    @staticmethod
    def irange(a, b):
        return range(int(a), int(b) + 1)

    @staticmethod
    def nsum(f, a, b):
        return mpmath.nsum(f, [a, b])

    factorial = staticmethod(mpmath.factorial)
    gamma = staticmethod(mpmath.gamma)
    loggamma = staticmethod(mpmath.loggamma)

    @staticmethod
    def opaque(fn, *args):
        return fn(*args)


# --------------------------------------------------------------------------- code generation
_UNARY = {sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.atan: "atan",
          sp.asin: "asin", sp.acos: "acos", sp.asinh: "asinh", sp.acosh: "acosh", sp.atanh: "atanh",
          sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh", sp.erf: "erf", sp.floor: "floor",
          sp.ceiling: "ceil", sp.sign: "sign", sp.frac: "frac", sp.factorial: "factorial", sp.gamma: "gamma",
          sp.loggamma: "loggamma"}
_REL = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">=",
        sp.Equality: "==", sp.Unequality: "!="}


class _Gen:
    """Post-order code generation with one temporary per shared node (eager region) and
    inline code inside lazy regions (Piecewise branches, Sum bodies)."""

    def __init__(self, symbols):
        self.args = {s: f"a{i}" for i, s in enumerate(symbols)}
        self.consts: list = []      # ("rat", p, q) | ("float", sympy Float)
        self.const_index: dict = {}
        self.lines: list = []
        self.temps: dict = {}
        self.opaques: list = []  # lambdified mpmath functions for nodes the generator does not know
        self.n = 0

    def const(self, key, spec) -> str:
        if key not in self.const_index:
            self.const_index[key] = len(self.consts)
            self.consts.append(spec)
        return f"C[{self.const_index[key]}]"

    def atom(self, e, local):
        if e in local:
            return local[e]
        if e.is_Symbol:
            if e in self.args:
                return self.args[e]
            raise _NotCompilable(f"free symbol {e} is not an argument")
        if e.is_Integer:
            return f"({int(e)})"
        if e.is_Rational:
            return self.const(("rat", int(e.p), int(e.q)), ("rat", int(e.p), int(e.q)))
        if e.is_Float:
            return self.const(("float", str(e), e._prec), ("float", e))
        if e is sp.pi:
            return "N.pi"
        if e is sp.E:
            return "N.e"
        if e is sp.oo:
            return "N.inf"
        if e is sp.S.NegativeInfinity:
            return "(-N.inf)"
        if e in (sp.true, sp.S.true):
            return "True"
        if e in (sp.false, sp.S.false):
            return "False"
        raise _NotCompilable(f"atom {e!r}")

    def node(self, e, parts):
        """Code of one composite node, given the code of its arguments."""
        t = type(e)
        if t is sp.Add:
            return "(" + " + ".join(parts) + ")"
        if t is sp.Mul:
            return "(" + " * ".join(parts) + ")"
        if t is sp.Pow:
            b, x = parts
            ex = e.exp
            if ex is sp.S.Half:
                return f"N.sqrt({b})"
            if ex == sp.Rational(-1, 2):
                return f"(1/N.sqrt({b}))"
            if ex.is_Integer:
                return f"({b})**({int(ex)})"
            return f"({b})**({x})"
        if t in _UNARY and len(parts) == 1:
            return f"N.{_UNARY[t]}({parts[0]})"
        if t is sp.log and len(parts) == 2:
            return f"(N.log({parts[0]})/N.log({parts[1]}))"
        if t is sp.Abs:
            return f"abs({parts[0]})"
        if t is sp.Max:
            return "max(" + ", ".join(parts) + ")"
        if t is sp.Min:
            return "min(" + ", ".join(parts) + ")"
        if t is sp.Heaviside:
            return f"N.heaviside({', '.join(parts)})"
        if t is sp.binomial:
            return f"N.binomial({parts[0]}, {parts[1]})"
        if t is sp.UnevaluatedExpr:
            return parts[0]
        if t in _REL:
            return f"({parts[0]} {_REL[t]} {parts[1]})"
        if t is sp.And:
            return "(" + " and ".join(parts) + ")"
        if t is sp.Or:
            return "(" + " or ".join(parts) + ")"
        if t is sp.Not:
            return f"(not {parts[0]})"
        raise _NotCompilable(f"{t.__name__}")

    def opaque(self, e, local) -> str:
        """A node the generator does not know: sympy's lambdify for mpmath on just that node,
        called with its free symbols (never evaluated in floats)."""
        syms = sorted(e.free_symbols, key=lambda s: s.name)
        fn = _lambdify_mpmath(e, syms)
        self.opaques.append(fn)
        args = [local[s] if s in local else self.atom(s, local) for s in syms]
        return f"N.opaque(F[{len(self.opaques) - 1}]" + "".join(f", {a}" for a in args) + ")"

    def known(self, e) -> bool:
        t = type(e)
        return (t in (sp.Add, sp.Mul, sp.Pow, sp.Abs, sp.Max, sp.Min, sp.Heaviside, sp.binomial, sp.UnevaluatedExpr,
                      sp.And, sp.Or, sp.Not, sp.Piecewise, sp.Sum) or t in _REL
                or (t in _UNARY and len(e.args) == 1) or (t is sp.log and len(e.args) == 2))

    def lazy(self, e, local) -> str:
        """Inline code for e (no temporaries): used where evaluation must stay lazy."""
        if e.is_Atom:
            return self.atom(e, local)
        if isinstance(e, sp.Piecewise):
            return self.piecewise(e, local, self.lazy)
        if isinstance(e, sp.Sum):
            return self.sum(e, local)
        if not self.known(e):
            return self.opaque(e, local)
        return self.node(e, [self.lazy(a, local) for a in e.args])

    def piecewise(self, e, local, sub):
        code = "N.nobranch()"
        for val, cond in reversed(e.args):
            c = "True" if cond is sp.true else self.lazy(cond, local)
            code = f"({self.lazy(val, local)} if {c} else {code})"
        return code

    def sum(self, e, local):
        body = e.function
        inner_local = dict(local)
        names = []
        for (k, a, b) in e.limits:
            self.n += 1
            name = f"k{self.n}"
            names.append((name, k, a, b))
        # nested limits: the first varies fastest (sympy's order)
        for name, k, _, _ in names:
            inner_local[k] = name
        code = self.lazy(body, inner_local)
        for name, k, a, b in names:
            lo, hi = self.lazy(a, local), self.lazy(b, local)
            if b.is_infinite or a.is_infinite:
                code = f"N.nsum(lambda {name}: {code}, {lo}, {hi})"
            else:
                code = f"sum((lambda {name}: {code})(N.num({name})) for {name} in N.irange({lo}, {hi}))"
        return code

    def eager(self, root) -> str:
        """Statements computing root with one temporary per composite node; returns the
        name holding the value."""
        if root.is_Atom:
            return self.atom(root, {})
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if e in self.temps or e.is_Atom:
                continue
            if isinstance(e, (sp.Piecewise, sp.Sum)) or not self.known(e):
                self.n += 1
                name = f"t{self.n}"
                self.lines.append(f"{name} = {self.lazy(e, {})}")
                self.temps[e] = name
                continue
            if not ready:
                stack.append((e, True))
                for a in e.args:
                    if not a.is_Atom and a not in self.temps:
                        stack.append((a, False))
                continue
            parts = [self.temps[a] if a in self.temps else self.atom(a, {}) for a in e.args]
            self.n += 1
            name = f"t{self.n}"
            self.lines.append(f"{name} = {self.node(e, parts)}")
            self.temps[e] = name
        return self.temps[root]


class Program:
    """One expression compiled for both contexts.  ``float_at(values)`` returns a float or
    None (not decidable in floats); ``mp_at(values, dps)`` returns an mpf or raises
    Undefined."""

    def __init__(self, expr, symbols, what: str = "expression"):
        self.expr = sp.sympify(expr)
        self.symbols = tuple(symbols)
        self.what = what
        self._mp_consts: dict = {}
        self._fallback = None
        try:
            gen = _Gen(self.symbols)
            out = gen.eager(self.expr)
            src = ["def f(N, C, F, " + ", ".join(gen.args[s] for s in self.symbols) + ("," if self.symbols else "")
                   + "):"]
            src += ["    " + ln for ln in gen.lines]
            src.append(f"    return {out}")
            ns: dict = {}
            exec(compile("\n".join(src), f"<verify_claims:{what}>", "exec"), {}, ns)
            self._fn = ns["f"]
            self._opaques = gen.opaques
            self._consts = gen.consts
            try:
                self._float_consts = [self._float_const(c) for c in gen.consts]
            except OverflowError:
                # a constant beyond the doubles' range (10**800/3): this expression is only
                # evaluated in mpmath, never in floats (float_at says None)
                self._float_consts = None
        except (_NotCompilable, RecursionError, SyntaxError, MemoryError):
            self._fn = None
            self._fallback = _lambdify_mpmath(self.expr, self.symbols)

    @staticmethod
    def _float_const(spec):
        if spec[0] == "rat":
            return spec[1] / spec[2]
        return float(spec[1])

    def _mp_const_list(self, dps):
        got = self._mp_consts.get(dps)
        if got is None:
            got = [mpmath.mpf(s[1]) / s[2] if s[0] == "rat" else mpmath.mpf(s[1]) for s in self._consts]
            self._mp_consts[dps] = got
        return got

    def float_at(self, values):
        """The value in machine floats, or None where floats cannot be trusted to say."""
        if self._fn is None or self._float_consts is None:
            return None
        try:
            v = self._fn(_FloatNS, self._float_consts, self._opaques, *values)
        except Exception:  # noqa: BLE001 - any failure only means "ask mpmath"
            return None
        if isinstance(v, bool):
            return float(v)
        if isinstance(v, int):
            v = float(v)
        if not isinstance(v, float) or not math.isfinite(v):
            return None
        return v

    def mp_at(self, values, dps: int):
        """The value at dps significant digits (raises Undefined)."""
        with mpmath.workdps(dps):
            return self.mp_here(values)

    def mp_here(self, values):
        """mp_at at mpmath's working precision, for a caller already inside workdps (the
        sampler, which asks every candidate point about every `where` relation)."""
        prec = mpmath.mp.prec
        # every argument rounded to the working precision: an mpf already within it is its
        # own rounding (mpf values are normalised), so only the others are made anew
        args = [v if type(v) is _MPF and v._mpf_[3] <= prec else
                (+v if isinstance(v, mpmath.mpf) else mpmath.mpf(v)) for v in values]
        try:
            if self._fn is not None:
                v = self._fn(_MpNS, self._mp_const_list(mpmath.mp.dps), self._opaques, *args)
            else:
                v = self._fallback(*args)
        except ZeroDivisionError as exc:
            raise Undefined(f"{self.what}: division by zero") from exc
        except (ValueError, OverflowError) as exc:
            raise Undefined(f"{self.what}: {exc}") from exc
        return real_value(v, self.what)


_MPF = mpmath.mpf


def real_value(value, what: str):
    """A real mpf, or Undefined (complex beyond rounding, nan, infinite, not a number)."""
    if isinstance(value, bool):
        return mpmath.mpf(int(value))
    if isinstance(value, (int, float)):
        value = mpmath.mpf(value)
    if isinstance(value, mpmath.mpc):
        if abs(value.imag) > mpmath.mpf(10) ** (-(2 * mpmath.mp.dps) // 3) * max(1, abs(value.real)):
            # a genuine complex value (sqrt or log of a negative number) has an imaginary part
            # of the order of its real part or of pi; 1e-20 of it is the residue of a cancellation
            near = abs(value.imag) <= mpmath.mpf(10) ** -20 * max(1, abs(value.real))
            raise Undefined(f"{what} is complex ({mpmath.nstr(value, 8)})", near_real=near)
        value = value.real
    if not isinstance(value, mpmath.mpf):
        try:
            value = mpmath.mpf(value)
        except (TypeError, ValueError) as exc:
            raise Undefined(f"{what} did not evaluate to a number ({value!r})") from exc
    if mpmath.isnan(value):
        raise Undefined(f"{what} is not a number (nan)")
    if mpmath.isinf(value):
        raise Undefined(f"{what} is infinite")
    return value


# --------------------------------------------------------------------------- fallback
def _mp_heaviside(x, h0=None):
    if x > 0:
        return mpmath.mpf(1)
    if x < 0:
        return mpmath.mpf(0)
    return mpmath.mpf("0.5") if h0 is None else h0


def _lambdify_mpmath(expr, symbols):
    """sympy's lambdify for what the generator does not know (never screened in floats)."""
    fn = sp.lambdify(symbols, expr, modules=[{"Heaviside": _mp_heaviside, "sign": mpmath.sign,
                                              "Abs": mpmath.fabs}, "mpmath"])
    return fn


_PROGRAMS: dict = {}


def compile_expr(expr, symbols, what: str = "expression") -> Program:
    """A Program, compiled once per process for the same expression and symbols (a claim's
    expressions are evaluated by several passes: the screen, the cross-check, the full
    check, the certificate re-checks)."""
    key = (sp.sympify(expr), tuple(symbols), what)
    got = _PROGRAMS.get(key)
    if got is None:
        if len(_PROGRAMS) > 2048:
            _PROGRAMS.clear()
        got = _PROGRAMS[key] = Program(expr, symbols, what)
    return got
