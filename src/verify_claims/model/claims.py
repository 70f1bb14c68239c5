"""The claim model: what a derivation module may declare.

Every claim is a labelled statement (a stable slug ``id``), with a ``title``, a paper
reference ``ref`` (section and equation), the sympy expressions it relates, the domain
of every symbol, the ids it ``uses``, and what is ``expect``-ed (it holds, or the paper
is wrong and it is refuted, with a one-line reason).  Claims say *what* is claimed;
``verify_claims.verify`` decides *how* each kind is established.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from .derivative import derivative
from .domain import DeclarationError, Domain, as_domain
from .narrowing import Narrowed, validate_narrowing

__all__ = [
    "Ref", "Expect", "HOLDS", "refuted", "not_in_general", "Claim", "Identity", "Step", "Chain", "Inequality",
    "Limit", "Monotonic", "Root", "Stationary", "Maximiser", "Summary", "Simulation", "Uncheckable",
    "DeclarationError", "KINDS", "Narrowed",
]

CERTIFY_METHODS = ("symbolic", "smt", "bernstein", "ball", "interval", "none")

_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Ref:
    """Where the paper states the claim: a section and, if any, an equation number.

    Content that goes beyond the paper (finite group sizes, library implementations, the
    algorithm's dynamics) names its topic as ``"Beyond the paper: <topic>"``, printed as is
    and listed after the appendices."""

    section: str
    eq: str | None = None
    note: str | None = None  # e.g. "sentence after (14)"

    def __str__(self) -> str:
        out = f"Section {self.section}" if not self.section.startswith(("Appendix", "Abstract", "Beyond")) \
            else self.section
        if self.eq:
            out += f", Eq. ({self.eq})"
        if self.note:
            out += f", {self.note}"
        return out


@dataclass(frozen=True)
class Expect:
    """What the claim's author expects.  holds=False is a strict xfail: the gate fails
    if such a claim stops being refuted.  paper_error says whether the refutation is a
    finding about the paper (True) or confirms a "not in general" the paper itself
    states (False)."""

    holds: bool
    reason: str = ""
    paper_error: bool = False

    def __str__(self) -> str:
        return "holds" if self.holds else f"refuted: {self.reason}"


HOLDS = Expect(True)


def refuted(reason: str) -> Expect:
    """Expect the claim, as the paper states it, to be refuted (a strict xfail)."""
    if not reason or not reason.strip():
        raise DeclarationError("refuted(...) needs a one-line reason saying what the paper gets wrong")
    return Expect(False, reason.strip(), paper_error=True)


def not_in_general(reason: str) -> Expect:
    """Expect refutation because the paper itself says the identity fails in general
    (e.g. "unbiased ... but not in general"): the counterexample confirms the paper."""
    if not reason or not reason.strip():
        raise DeclarationError("not_in_general(...) needs a one-line reason")
    return Expect(False, reason.strip(), paper_error=False)


@dataclass(kw_only=True)
class Claim:
    """Common fields of every claim kind (keyword-only in every subclass)."""

    id: str
    title: str
    ref: Ref | str
    domain: Any = field(default_factory=dict)
    where: tuple = ()
    uses: tuple = ()
    expect: Expect = HOLDS
    note: str = ""
    source: str = ""  # filled in by the loader: the module file that declared the claim
    # which certification method to use (inequality, monotonic, root): None = automatic
    # (symbolic, then smt, then interval), or one of those names, or "none" (do not certify)
    certify_with: str | None = None
    # why a mutant that survives the mutation run (--mutate) is a harmless mistake, by its
    # label ("lhs:drop-term-1@root": "the term vanishes on ..."); prose, never a verdict
    harmless_mutants: dict = field(default_factory=dict)
    # the statement as the paper displays it (LaTeX), when the declared expressions print
    # differently (built from definitions, expanded): shown first, the declaration beside it
    display: str = ""
    # verified on a narrower domain than the paper states: Narrowed(paper=, verified=, reason=)
    # (model/narrowing.py); paper_domain={symbol: "where the paper restricts it so"} says a set
    # that looks narrow (instances, a cut interval) is the paper's own.  Description, never a key
    narrowed: Any = None
    paper_domain: dict = field(default_factory=dict)

    kind = "claim"
    # the module's Notation (display forms of symbols, named quantities), set by the loader;
    # description only, never part of the claim's key
    notation = None
    _abbreviate = True
    _abbreviated = None

    _EXPR_FIELDS = ("lhs", "rhs", "expr", "value", "point", "objective", "equation", "rate")

    def __post_init__(self):
        for name in self._EXPR_FIELDS:  # plain numbers are fine: 0 means sympy's 0
            v = getattr(self, name, None)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                setattr(self, name, sp.sympify(v))
        self.domain = as_domain(self.domain, self.where)
        self.where = ()
        self.uses = tuple(self.uses)
        if isinstance(self.expect, str):
            self.expect = HOLDS if self.expect == "holds" else refuted(self.expect)

    # -- what every kind provides --------------------------------------------------
    def expressions(self) -> list:
        raise NotImplementedError

    def bound_symbols(self) -> set:
        """Symbols that the claim binds itself (limit and optimisation variables)."""
        return set()

    def free_symbols(self) -> set:
        out = set()
        for e in self.expressions():
            out |= sp.sympify(e).free_symbols
        return out

    def statement_latex(self) -> str:
        raise NotImplementedError

    def latex(self, expr) -> str:
        """LaTeX of one of the claim's expressions in the module's notation."""
        from .notation import latex
        return latex(expr, self.notation, abbreviate=self._abbreviate, record=self._abbreviated)

    def operand_latex(self, expr) -> str:
        """LaTeX of an expression an operator applies to (a derivative, a gradient): a sum
        is bracketed, a named quantity is not."""
        out = self.latex(expr)
        named = self.notation.named if self.notation is not None and self._abbreviate else {}
        if isinstance(expr, sp.Add) and expr not in named:
            return rf"\left({out}\right)"
        return out

    def statements(self) -> tuple:
        """(the statement in the paper's notation, with named quantities printed by their
        names; the same statement with those names expanded, or "" when none was used)."""
        self._abbreviated = []
        try:
            short = self.statement_latex()
            if not self._abbreviated:
                return short, ""
            self._abbreviate = False
            return short, self.statement_latex()
        finally:
            self._abbreviated = None
            self._abbreviate = True

    def validate(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise DeclarationError(
                f"claim id {self.id!r} is not a slug: use lowercase letters, digits and hyphens, "
                "such as 'advantage-pairwise-std'")
        if not self.title:
            raise DeclarationError(f"claim {self.id!r}: empty title")
        if not str(self.ref):
            raise DeclarationError(f"claim {self.id!r}: empty paper reference")
        if self.certify_with is not None:
            if self.certify_with not in CERTIFY_METHODS:
                raise DeclarationError(
                    f"claim {self.id!r}: certify_with={self.certify_with!r} is not one of "
                    + ", ".join(repr(m) for m in CERTIFY_METHODS) + " (or None for automatic)")
            if self.kind not in ("inequality", "monotonic", "root"):
                raise DeclarationError(
                    f"claim {self.id!r}: certify_with applies to inequality, monotonic and root "
                    f"claims, not to a {self.kind} claim")
        validate_narrowing(self)
        if not isinstance(self.display, str) or self.display.count("{") != self.display.count("}"):
            raise DeclarationError(f"claim {self.id!r}: display must be a LaTeX string with balanced braces")
        if not isinstance(self.harmless_mutants, dict) or not all(
                isinstance(k, str) and k and isinstance(v, str) and v.strip()
                for k, v in self.harmless_mutants.items()):
            raise DeclarationError(
                f"claim {self.id!r}: harmless_mutants must map mutant labels (or patterns such as "
                "'lhs:const-*') to a non-empty reason, e.g. {'rhs:drop-term-*': 'the term vanishes on the domain'}")
        try:
            exprs = self.expressions()
        except (sp.SympifyError, TypeError, AttributeError) as exc:
            raise DeclarationError(f"claim {self.id!r}: an expression is not a sympy expression "
                                   f"({type(exc).__name__}: {exc})") from None
        for e in exprs:
            if not isinstance(e, sp.Basic):
                raise DeclarationError(
                    f"claim {self.id!r}: {e!r} is a {type(e).__name__}, not a sympy expression")
        for name, e in self.named_expressions():
            check_expression(self.id, name, e)
        try:
            free = self.free_symbols()
        except RecursionError:
            raise DeclarationError(too_deep(self.id, self.named_expressions())) from None
        self.domain.validate(self.id, free)

    def named_expressions(self) -> list:
        """(field name, expression) of every expression the claim declares."""
        out = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name in ("domain", "where", "uses", "expect", "ref"):
                continue
            if isinstance(v, sp.Basic):
                out.append((f.name, v))
            elif isinstance(v, dict):
                out += [(f"{f.name}[{k}]", x) for k, x in v.items() if isinstance(x, sp.Basic)]
            elif isinstance(v, (list, tuple)):
                for i, x in enumerate(v):
                    if isinstance(x, sp.Basic):
                        out.append((f"{f.name}[{i}]", x))
                    elif isinstance(x, Step):
                        out += [(f"{f.name}[{i}].{a}", getattr(x, a)) for a in ("expr", "multiply_by")
                                if isinstance(getattr(x, a), sp.Basic)]
        return out


def check_expression(claim_id: str, where: str, e) -> None:
    """Refuse what no method can verify, naming the claim, the field and the fix."""
    try:
        undefined, specials = _undefined_and_specials(e)
    except RecursionError:  # hashing a subexpression recurses
        raise DeclarationError(too_deep(claim_id, [(where, e)])) from None
    if undefined:
        f = undefined[0]
        raise DeclarationError(
            f"claim {claim_id!r}: {f} in `{where}` is an undefined function (sp.Function({f.func.__name__!r})): "
            "nothing can evaluate or prove anything about it. Use a sympy function (sp.exp, sp.log, ...) or "
            "write the expression out; sympy's implemented_function gives it a numeric definition")
    if specials:
        what = "zoo (complex infinity)" if sp.zoo in specials else "nan"
        raise DeclarationError(
            f"claim {claim_id!r}: `{where}` contains {what}: a division by zero (such as x/0) or 0/0, oo - oo "
            "when the expression was built. Check the declaration for a denominator that is 0")


def _undefined_and_specials(e) -> tuple:
    """(the undefined functions without a numeric definition, {zoo, nan} found) in e, in one
    walk that visits each distinct subexpression once: the paper's expressions share
    subtrees (a normaliser in every probability), which atoms() and has() walk again at every
    occurrence (0.31 s of CPU for the bundled paper's 987 expressions; this walk, 0.03 s)."""
    undefined, specials = set(), set()
    stack, seen = [e], set()
    while stack:
        node = stack.pop()
        if node.is_Atom:
            if node is sp.zoo or node is sp.nan:
                specials.add(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, AppliedUndef) and not hasattr(node, "_imp_"):
            undefined.add(node)
        stack.extend(a for a in node.args if isinstance(a, sp.Basic))
    return sorted(undefined, key=str), specials


def too_deep(claim_id: str, named) -> str:
    """The message for an expression too deeply nested for sympy's recursive traversals."""
    deepest, depth = "", 0
    for where, e in named:
        d = _depth(e)
        if d > depth:
            deepest, depth = where, d
    return (f"claim {claim_id!r}: the expression of `{deepest}` is nested {depth} levels deep, too deep for sympy "
            "(RecursionError). Build long sums and products in one go, sp.Add(*terms) and sp.Mul(*factors), "
            "instead of adding or multiplying the terms one at a time with evaluate=False")


def _depth(e) -> int:
    """Nesting depth of a sympy tree, without recursion."""
    best, stack = 0, [(e, 1)]
    seen = set()
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend((a, d + 1) for a in getattr(node, "args", ()) if isinstance(a, sp.Basic))
    return best


def float_hint(claim) -> str:
    """A note when the declaration holds floating-point numbers: 0.1 is not one tenth."""
    floats = []
    try:
        for _, e in claim.named_expressions():
            floats += [f for f in e.atoms(sp.Float) if f not in floats]
    except (RecursionError, AttributeError):
        return ""
    if not floats:
        return ""
    shown = ", ".join(sp.sstr(f, full_prec=False) for f in sorted(floats)[:3])
    return (f"the declaration contains floating-point numbers ({shown}): a float is not the exact number it "
            "looks like (0.1 + 0.2 != 3/10); use exact rationals, sp.Rational(1, 10)")


def _expr(x):
    return sp.sympify(x, strict=True) if not isinstance(x, sp.Basic) else x


@dataclass(kw_only=True)
class Identity(Claim):
    """lhs = rhs at every point of the domain."""

    lhs: Any = None
    rhs: Any = None
    kind = "identity"

    def expressions(self):
        return [_expr(self.lhs), _expr(self.rhs)]

    def statement_latex(self):
        return f"{self.latex(self.lhs)} = {self.latex(self.rhs)}"


@dataclass
class Step:
    """One displayed line of a derivation chain.

    ``relation`` says how it follows from the previous line:
    - "equals": the expression equals the previous one on the domain;
    - "equivalent": both are equations and this one's residual (lhs - rhs) is the
      previous residual times ``multiply_by``, which must be non-zero on the domain;
    - "implies": as "equivalent" but the multiplier may vanish (e.g. squaring).
    """

    expr: Any
    because: str = ""
    relation: str = "equals"
    multiply_by: Any = None


@dataclass(kw_only=True)
class Chain(Claim):
    """A derivation: each step is verified against the one before it."""

    steps: list = field(default_factory=list)
    kind = "chain"

    def __post_init__(self):
        super().__post_init__()
        self.steps = [s if isinstance(s, Step) else Step(s) for s in self.steps]

    def expressions(self):
        out = []
        for s in self.steps:
            out.append(_expr(s.expr))
            if s.multiply_by is not None:
                out.append(_expr(s.multiply_by))
        return out

    def validate(self):
        super().validate()
        if len(self.steps) < 2:
            raise DeclarationError(f"claim {self.id!r}: a chain needs at least two steps")
        for i, s in enumerate(self.steps[1:], start=1):
            if s.relation not in ("equals", "equivalent", "implies"):
                raise DeclarationError(
                    f"claim {self.id!r}: step {i + 1} has relation {s.relation!r}; "
                    "use 'equals', 'equivalent' or 'implies'")
            is_eq = isinstance(s.expr, sp.Equality)
            prev_eq = isinstance(self.steps[i - 1].expr, sp.Equality)
            if s.relation == "equals" and (is_eq or prev_eq) and not (is_eq and prev_eq):
                raise DeclarationError(
                    f"claim {self.id!r}: step {i + 1} mixes an equation and an expression")
            if s.relation != "equals" and not (is_eq and prev_eq):
                raise DeclarationError(
                    f"claim {self.id!r}: step {i + 1} is {s.relation!r}, which relates two "
                    "equations (sympy Eq)")

    def statement_latex(self):
        return r" \\ ".join(
            ("" if i == 0 else "&" + {"equals": "=", "equivalent": r"\iff", "implies": r"\implies"}[s.relation])
            + " " + self.latex(s.expr) for i, s in enumerate(self.steps))


_OPS = {"<": sp.StrictLessThan, "<=": sp.LessThan, ">": sp.StrictGreaterThan, ">=": sp.GreaterThan}


@dataclass(kw_only=True)
class Inequality(Claim):
    """lhs op rhs at every point of the domain, op one of <, <=, >, >=."""

    lhs: Any = None
    op: str = "<="
    rhs: Any = None
    kind = "inequality"

    def expressions(self):
        return [_expr(self.lhs), _expr(self.rhs)]

    def validate(self):
        if self.op not in _OPS:
            raise DeclarationError(f"claim {self.id!r}: op {self.op!r} is not one of < <= > >=")
        super().validate()

    def statement_latex(self):
        return self.latex(_OPS[self.op](self.lhs, self.rhs, evaluate=False))


@dataclass(kw_only=True)
class Limit(Claim):
    """expr -> value as var -> point (from the right '+', the left '-', or both '+-').

    ``rate`` (optional, a limit at +oo with a finite value only): the coefficient c of the
    second-order term, expr = value + c/var + o(1/var), in the domain's symbols.  It is part
    of what is claimed (a wrong c is refuted like a wrong value); for a sum over a symbolic
    group size it is what the ``ladder+asymptotics`` check compares var (expr - value) with."""

    expr: Any = None
    var: Any = None
    point: Any = None
    value: Any = None
    direction: str = "+-"
    rate: Any = None
    kind = "limit"

    def expressions(self):
        return [_expr(self.expr), _expr(self.value)] + ([] if self.rate is None else [_expr(self.rate)])

    def bound_symbols(self):
        return {self.var}

    def free_symbols(self):
        return super().free_symbols() - {self.var}

    def validate(self):
        if not isinstance(self.var, sp.Symbol):
            raise DeclarationError(f"claim {self.id!r}: limit variable must be a sympy Symbol")
        if self.direction not in ("+", "-", "+-"):
            raise DeclarationError(f"claim {self.id!r}: direction must be '+', '-' or '+-'")
        p = _expr(self.point)
        if p.free_symbols:
            raise DeclarationError(f"claim {self.id!r}: the limit point must be a number or +-oo")
        if p is sp.oo and self.direction == "+" or p is -sp.oo and self.direction == "-":
            raise DeclarationError(f"claim {self.id!r}: cannot approach {p} from that side")
        if self.rate is not None:
            r = _expr(self.rate)
            if p is not sp.oo or _expr(self.value).is_infinite:
                raise DeclarationError(f"claim {self.id!r}: rate (the c of expr = value + c/{self.var} + "
                                       f"o(1/{self.var})) needs the point oo and a finite value")
            if r.has(self.var):
                raise DeclarationError(f"claim {self.id!r}: rate is a coefficient of 1/{self.var}: it must not "
                                       f"contain {self.var}")
        super().validate()

    def statement_latex(self):
        p = _expr(self.point)
        side = "" if p.is_infinite or self.direction == "+-" else ("^+" if self.direction == "+" else "^-")
        if self.rate is not None:  # expr = value + c/var + o(1/var): the limit and its rate
            v, var = _expr(self.value), self.latex(self.var)
            term = self.latex(_expr(self.rate) / self.var)
            term = f"- {term[1:].lstrip()}" if term.startswith("-") else f"+ {term}"
            head = "" if v == 0 else f"{self.latex(v)} "
            if not head and term.startswith("+ "):
                term = term[2:]
            return (rf"{self.latex(self.expr)} = {head}{term} + o\left(\frac{{1}}{{{var}}}\right)\ "
                    rf"\text{{as }} {var} \to {self.latex(p)}")
        return (rf"\lim_{{{self.latex(self.var)} \to {self.latex(p)}{side}}} {self.latex(self.expr)} "
                rf"= {self.latex(self.value)}")


@dataclass(kw_only=True)
class Monotonic(Claim):
    """expr is increasing / decreasing in var on the domain (strictly unless strict=False)."""

    expr: Any = None
    var: Any = None
    direction: str = "increasing"
    strict: bool = True
    kind = "monotonic"

    def expressions(self):
        return [_expr(self.expr)]

    def validate(self):
        if self.direction not in ("increasing", "decreasing"):
            raise DeclarationError(f"claim {self.id!r}: direction must be 'increasing' or 'decreasing'")
        if self.var not in self.domain.sets:
            raise DeclarationError(f"claim {self.id!r}: {self.var} needs a domain (an interval)")
        if not isinstance(self.domain.sets.get(self.var), sp.Interval):
            raise DeclarationError(f"claim {self.id!r}: the domain of {self.var} must be an Interval")
        super().validate()

    def statement_latex(self):
        adv = "" if self.strict else "weakly "
        return rf"{self.latex(self.expr)}\ \text{{is {adv}{self.direction} in }} {self.latex(self.var)}"


@dataclass(kw_only=True)
class Root(Claim):
    """value solves equation (an Eq, or an expression = 0) for var, lies in interval,
    and, when unique=True, is the only root of the equation in interval."""

    equation: Any = None
    var: Any = None
    value: Any = None
    interval: Any = None
    unique: bool = False
    kind = "root"

    def residual(self):
        eq = self.equation
        return eq.lhs - eq.rhs if isinstance(eq, sp.Equality) else _expr(eq)

    def expressions(self):
        return [self.residual(), _expr(self.value)]

    def bound_symbols(self):
        return {self.var}

    def free_symbols(self):
        return super().free_symbols() - {self.var}

    def validate(self):
        if not isinstance(self.var, sp.Symbol):
            raise DeclarationError(f"claim {self.id!r}: root variable must be a sympy Symbol")
        if not isinstance(self.interval, sp.Interval):
            raise DeclarationError(f"claim {self.id!r}: `interval` must be a sympy Interval "
                                   "(the range the root lies in)")
        super().validate()

    def statement_latex(self):
        eq = self.equation if isinstance(self.equation, sp.Equality) else sp.Eq(self.equation, 0)
        u = r"\text{ is the unique root of }" if self.unique else r"\text{ solves }"
        return rf"{self.latex(self.var)} = {self.latex(self.value)}{u}{self.latex(eq)}\text{{ in }}" \
               rf"{self.latex(self.interval)}"


def substitute(expr, mapping: dict):
    """expr with the symbols of `mapping` replaced simultaneously.  With symbol keys this is
    exactly subs(mapping, simultaneous=True), a hundred times faster on a large gradient
    (subs looks for every key as a pattern in every subexpression)."""
    expr = sp.sympify(expr)
    if all(isinstance(k, sp.Symbol) for k in mapping) and not expr.has(sp.Derivative, sp.Subs, sp.Integral):
        return expr.xreplace({k: sp.sympify(v) for k, v in mapping.items()})
    return expr.subs(mapping, simultaneous=True)


def _as_vars(wrt):
    return tuple(wrt) if isinstance(wrt, (list, tuple)) else (wrt,)


@dataclass(kw_only=True)
class Stationary(Claim):
    """The derivative of objective w.r.t. each variable in wrt vanishes at the point ``at``.

    ``frozen`` substitutions are applied after differentiating and before evaluating:
    this is how a stationary policy is expressed (differentiate in pi_theta with
    pi_old fixed, then set pi_old = pi_theta).  With ``simplex=True`` the variables are
    probabilities constrained to sum to one and the claim is the Lagrange condition of
    the KKT system at an interior point: all partial derivatives are equal.
    """

    objective: Any = None
    wrt: Any = ()
    at: dict = field(default_factory=dict)
    frozen: dict = field(default_factory=dict)
    simplex: bool = False
    kind = "stationarity"

    def __post_init__(self):
        super().__post_init__()
        self.wrt = _as_vars(self.wrt)

    def expressions(self):
        return [_expr(self.objective)] + [_expr(v) for v in self.at.values()] + \
            [_expr(v) for v in self.frozen.values()]

    def bound_symbols(self):
        return set(self.wrt) | set(self.frozen)

    def free_symbols(self):
        return super().free_symbols() - self.bound_symbols()

    def residuals(self) -> list:
        """What must vanish at ``at`` (before substituting it): the partial derivatives,
        with ``frozen`` applied after differentiating; on the simplex, their differences
        from the first (equal partials = the Lagrange condition)."""
        grads = [derivative(self.objective, v) for v in self.wrt]
        if self.frozen:
            grads = [substitute(g, self.frozen) for g in grads]
        return [g - grads[0] for g in grads[1:]] if self.simplex else grads

    def validate(self):
        for v in self.wrt:
            if not isinstance(v, sp.Symbol):
                raise DeclarationError(f"claim {self.id!r}: wrt entries must be sympy Symbols")
        missing = [str(v) for v in self.wrt if v not in self.at]
        if missing:
            raise DeclarationError(f"claim {self.id!r}: `at` gives no value for {', '.join(missing)}")
        if self.simplex and len(self.wrt) < 2:
            raise DeclarationError(f"claim {self.id!r}: simplex=True needs at least two variables")
        super().validate()

    def statement_latex(self):
        pt = ", ".join(f"{self.latex(k)} = {self.latex(v)}" for k, v in self.at.items())
        grad = r"\nabla" if len(self.wrt) > 1 else rf"\partial_{{{self.latex(self.wrt[0])}}}"
        cond = r"\text{ equal components}" if self.simplex else "= 0"
        held = "".join(rf",\ {self.latex(k)} = {self.latex(v)}" for k, v in self.frozen.items())
        after = r"\ \text{(after differentiating)}" if self.frozen else ""
        return rf"{grad}\, {self.operand_latex(self.objective)} {cond}\ \text{{at }} {pt}{held}{after}"


@dataclass(kw_only=True)
class Maximiser(Claim):
    """The point ``at`` maximises objective over the variables wrt, ranging over ``over``
    (a dict var -> Interval, with optional ``over_where`` relations), for every
    parameter point of the domain.  scope="global" compares against the whole feasible
    set; scope="local" requires the first- and second-order conditions at the point.
    ``frozen`` substitutions (e.g. pi_old -> the point) are applied to the objective
    before optimising, which is how a stationary policy is a maximiser.
    """

    objective: Any = None
    wrt: Any = ()
    at: dict = field(default_factory=dict)
    over: dict = field(default_factory=dict)
    over_where: tuple = ()
    frozen: dict = field(default_factory=dict)
    scope: str = "global"
    kind = "maximiser"

    def __post_init__(self):
        super().__post_init__()
        self.wrt = _as_vars(self.wrt)

    def expressions(self):
        return [_expr(self.objective)] + [_expr(v) for v in self.at.values()] + \
            [_expr(v) for v in self.frozen.values()]

    def bound_symbols(self):
        return set(self.wrt) | set(self.frozen)

    def free_symbols(self):
        return super().free_symbols() - self.bound_symbols()

    def feasible(self) -> Domain:
        return Domain(dict(self.over), tuple(self.over_where))

    def validate(self):
        if self.scope not in ("global", "local"):
            raise DeclarationError(f"claim {self.id!r}: scope must be 'global' or 'local'")
        missing = [str(v) for v in self.wrt if v not in self.at or v not in self.over]
        if missing:
            raise DeclarationError(
                f"claim {self.id!r}: {', '.join(missing)} need both a value in `at` and a range in `over`")
        self.feasible().validate(self.id, set(self.wrt))
        super().validate()

    def statement_latex(self):
        pt = ", ".join(f"{self.latex(k)} = {self.latex(v)}" for k, v in self.at.items())
        held = ", ".join(f"{self.latex(k)} = {self.latex(v)}" for k, v in self.frozen.items())
        held = rf"\ \text{{with }} {held} \text{{ held}}" if held else ""
        return rf"{pt}\ \text{{{self.scope}ly maximises }} {self.latex(self.objective)}{held}"


@dataclass(kw_only=True)
class Summary(Claim):
    """A prose statement (the abstract, Section 1.2) that holds exactly when the claims
    it ``uses`` do: its verdict is the weakest verdict among them, so a summary is
    "proved" only when every supporting claim is.  It has no expressions of its own."""

    kind = "summary"

    def expressions(self):
        return []

    def statement_latex(self):
        return ""

    def validate(self):
        super().validate()
        if not self.uses:
            raise DeclarationError(f"summary {self.id!r}: name the claims that support it in `uses`")


@dataclass(kw_only=True)
class Simulation(Claim):
    """A statement about what an algorithm does, backed by simulating it: the mean over
    ``runs`` independent runs of ``run`` (one estimate per run) equals ``target``.

    ``run(seed, runs, **params)`` is a plain module-level function returning a sequence of
    ``runs`` numbers (the per-run estimates, e.g. the policy each run settles at); the engine
    gives it a seed derived from the master seed and the claim's id, so the numbers are the
    same on every run.  ``target`` is a number or a constant sympy expression, or a
    module-level function of ``params`` (called as ``target(**params)``, for a value only a
    numeric root-finder gives).  The claim is *simulated* when ``target`` lies in the
    ``confidence`` t-interval of the mean over runs widened by ``tolerance`` on both sides
    (the bias a finite step size or run length leaves, which more runs do not remove), and
    refuted, with the numbers, when it lies outside.  Never proved or certified: the status
    is ``simulated`` (statistical evidence about a model of the algorithm).  ``describe``
    says in words what one run does (steps, step size, ...), for the report."""

    run: Any = None
    params: dict = field(default_factory=dict)
    target: Any = None
    runs: int = 100
    confidence: float = 0.99
    tolerance: float = 0.0
    describe: str = ""
    kind = "simulation"

    def __post_init__(self):
        super().__post_init__()
        self.params = dict(self.params)
        if isinstance(self.target, (int, float)) and not isinstance(self.target, bool):
            self.target = sp.sympify(self.target)

    def expressions(self):
        return [self.target] if isinstance(self.target, sp.Basic) else []

    def target_value(self) -> float:
        """The target as a float (a sympy constant evaluated, or the function called)."""
        if isinstance(self.target, sp.Basic):
            return float(sp.N(self.target, 30))
        return float(self.target(**self.params))

    def validate(self):
        what = f"simulation {self.id!r}"
        for name, fn in (("run", self.run), ("target", self.target)):
            if name == "target" and isinstance(fn, sp.Basic):
                continue
            if not callable(fn) or not hasattr(fn, "__code__"):
                raise DeclarationError(
                    f"{what}: `{name}` must be " + ("a number, a constant sympy expression or " if name == "target"
                                                     else "") + f"a plain module-level function, not {fn!r:.60}")
            if fn.__name__ == "<lambda>" or "<locals>" in getattr(fn, "__qualname__", ""):
                raise DeclarationError(
                    f"{what}: `{name}` must be a module-level function (def at the top of a module), not a lambda "
                    "or a nested function: its source is what keys the stored result")
        if isinstance(self.target, sp.Basic) and (self.target.free_symbols or not self.target.is_number):
            raise DeclarationError(f"{what}: target {self.target} must be a constant (no free symbols)")
        if isinstance(self.runs, bool) or not isinstance(self.runs, int) or self.runs < 2:
            raise DeclarationError(f"{what}: runs must be an integer >= 2 (a confidence interval needs two runs)")
        if isinstance(self.confidence, bool) or not isinstance(self.confidence, (int, float)) or \
                not 0 < self.confidence < 1:
            raise DeclarationError(f"{what}: confidence must be a number strictly between 0 and 1, e.g. 0.99")
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, (int, float)) or \
                not self.tolerance >= 0 or self.tolerance == float("inf"):
            raise DeclarationError(f"{what}: tolerance must be a finite number >= 0 (an absolute half-width)")
        if not all(isinstance(k, str) and k.isidentifier() for k in self.params) or \
                {"seed", "runs"} & set(self.params):
            raise DeclarationError(f"{what}: params must map keyword names (not seed or runs) to values")
        bad = [k for k, v in self.params.items() if not _plain_value(v)]
        if bad:
            raise DeclarationError(
                f"{what}: params[{bad[0]!r}] is a {type(self.params[bad[0]]).__name__}: use numbers, strings, booleans, "
                "sympy numbers and lists, tuples or dicts of them (they key the stored result by value; convert "
                "arrays with .tolist())")
        if not isinstance(self.describe, str):
            raise DeclarationError(f"{what}: describe must be a string")
        super().validate()

    def function_name(self, fn=None) -> str:
        fn = self.run if fn is None else fn
        return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"

    def statement_latex(self):
        target = self.latex(self.target) if isinstance(self.target, sp.Basic) else \
            r"\mathtt{" + _tex_text(getattr(self.target, "__name__", "target")) + r"}(\ldots)"
        run = r"\mathtt{" + _tex_text(getattr(self.run, "__name__", "run")) + "}"
        return (rf"\overline{{{run}}}_{{{self.runs}\ \text{{runs}}}} = {target}\ "
                rf"\text{{(t-interval at confidence {self.confidence:g}, widened by }} {self.tolerance:g}\text{{)}}")


def _plain_value(v, depth: int = 0) -> bool:
    """A parameter value that is hashed by value (no arrays, objects or functions)."""
    if depth > 8:
        return False
    if v is None or isinstance(v, (bool, int, float, str)) or (isinstance(v, sp.Basic) and v.is_number):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain_value(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _plain_value(x, depth + 1) for k, x in v.items())
    return False


def _tex_text(name: str) -> str:
    """A Python identifier as LaTeX text (underscores escaped)."""
    return "".join(c if c.isalnum() else r"\_" if c == "_" else "" for c in str(name))


@dataclass(kw_only=True, frozen=True)
class Uncheckable:
    """A statement of the paper that cannot be checked mechanically (a remark about a
    library default, a cited result, an interpretation): listed in the inventory with the
    reason, never given a verdict.  Modules declare these in a list ``UNCHECKABLE``."""

    id: str
    ref: Ref | str
    statement: str
    reason: str
    finding: str = ""  # e.g. "typo": a slip in the paper worth reporting, though not checkable
    source: str = ""

    kind = "not checkable"

    @classmethod
    def from_declaration(cls, d, source: str) -> "Uncheckable":
        if isinstance(d, Uncheckable):
            d = {"id": d.id, "ref": d.ref, "statement": d.statement, "reason": d.reason,
                 **({"finding": d.finding} if d.finding else {})}
        if not isinstance(d, dict):
            raise DeclarationError(f"UNCHECKABLE contains {type(d).__name__} {d!r:.60}; use a dict with "
                                   "keys id, ref, statement, reason (or verify_claims.Uncheckable)")
        missing = [k for k in ("id", "ref", "statement", "reason") if not d.get(k)]
        extra = sorted(set(d) - {"id", "ref", "statement", "reason", "finding"})
        if missing or extra:
            raise DeclarationError(
                f"UNCHECKABLE entry {d.get('id')!r}: "
                + (f"missing {', '.join(missing)}" if missing else "")
                + ("; " if missing and extra else "")
                + (f"unknown key(s) {', '.join(extra)}" if extra else ""))
        if not isinstance(d["id"], str) or not _ID_RE.match(d["id"]):
            raise DeclarationError(f"UNCHECKABLE id {d['id']!r} is not a slug (lowercase letters, digits, "
                                   "hyphens)")
        return cls(id=d["id"], ref=d["ref"], statement=str(d["statement"]), reason=str(d["reason"]),
                   finding=str(d.get("finding") or ""), source=source)

    def to_json(self) -> dict:
        return {"id": self.id, "ref": str(self.ref), "statement": self.statement, "reason": self.reason,
                "finding": self.finding, "source": self.source}


KINDS = {c.kind: c for c in (Identity, Chain, Inequality, Limit, Monotonic, Root, Stationary, Maximiser,
                             Summary, Simulation)}
