"""The sympy backend: exact zero tests and sign analysis, the evidence behind *proved*
(and, for statements over a whole domain established by sign analysis, *certified*).

Soundness rests on two rules.  First, symbols are replaced by symbols carrying only
facts implied by their declared sets (sign, integrality): a proof under weaker
assumptions holds on the declared domain.  Second, only a definite answer counts:
a residual that simplifies to exactly 0, or a sign attribute that sympy's assumption
system reports as True.  ``expr.equals`` is never used (it samples numbers), and a
``None`` from sympy is "not established", never a pass.

Exact identities with log, exp and asinh are also tried in an exp/log normal form
(``exp_log_form``): asinh(u) = log(u + sqrt(u^2 + 1)) and log(exp(u)) = u for real u,
exp(a) exp(b) = exp(a + b), and log or root of a product split into its factors only
where every factor is provably positive (``Facts``); a factor of unknown sign keeps its
log or root whole.

Sign goals with logarithms use the tangent bounds 1 - 1/u <= log u <= u - 1 (u > 0):
c*log u is replaced by its lower bound for the proven sign of c, and the log-free bound
is shown exactly 0, positive, or by z3.

Monotone differences: c (f(A) - f(B)) with f strictly monotone on a range A and B are
proven to lie in (log on (0, oo); roots and even powers on [0, oo); negative powers on
(0, oo); odd powers, exp, asinh, atan on the reals) has the sign of c (A - B), times -1
for a decreasing f; a sum with such a pair and a non-negative rest is positive
(Facts._monotone_difference).  A - B is compared as it is, then over a common denominator.
"""

from __future__ import annotations

import functools
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import sympy as sp

from ..model.derivative import derivative
from ..model.domain import Domain
from . import Backend, hints, smt
from .functions import nonsmooth
from .rational import identically_zero, polynomial_identically_zero, shares_factor  # noqa: F401 - re-exported
from .timebox import TimeUp, time_limit

__all__ = ["ProofOutcome", "Facts", "NO_FACTS", "facts_shared", "zero_by", "prove_sign", "split_logs", "assume",
           "weakest", "short", "is_linear", "with_ends", "decide_sign_goal", "PROVED", "CERTIFIED", "nonsmooth",
           "exp_log_form", "FAST_STRATEGIES", "SLOW_STRATEGIES"]

PROVED, CERTIFIED = "proved", "certified"


@dataclass
class ProofOutcome:
    status: str | None  # "proved" | "certified" | None (not established symbolically)
    method: str = ""
    evidence: dict = field(default_factory=dict)
    step_statuses: list | None = None
    disagrees: str | None = None  # a symbolic result that contradicts the claim (e.g. a limit)


def short(e, n=160):
    s = str(e)
    return s if len(s) <= n else s[: n - 3] + "..."


# ------------------------------------------------------------------ zero and sign tests
_SLACK_OPS = 60
# functions real for a real argument
_REAL_OF_REAL = (sp.exp, sp.sin, sp.cos, sp.atan, sp.sinh, sp.cosh, sp.tanh, sp.asinh)

_TRANSCENDENTAL = _REAL_OF_REAL + (sp.log,)


# Facts' memos by their slacks, within facts_shared() (None: each Facts has its own)
_SHARED_MEMOS: dict | None = None


@contextmanager
def facts_shared():
    """Within: every Facts of the same slacks shares one memo of what it worked out.

    For the mutation run (run/mutation.py): a claim's mutants are its own formulas with one
    node changed, analysed one after another under the same slacks, so most of the sums
    and factors whose signs the analysis asks about are the same expressions each time.
    An answer is the same whoever asks (the assumptions, the slacks and the expression
    decide it; a timeout is an exception, never an answer), and so are the replay hints
    kept with it -- but only where no certificate's hints are given: a replay tries its
    recorded alternative first, and what it records must not reach a search.  Not for a
    replay, then; the mutation run replays nothing."""
    global _SHARED_MEMOS
    if _SHARED_MEMOS is not None:
        yield
        return
    try:  # (set inside: a timeout arriving in between must not leave it on)
        _SHARED_MEMOS = {}
        yield
    finally:
        _SHARED_MEMOS = None


class Facts:
    """What the prover may use beyond per-symbol assumptions: the slacks of the strict
    `where` relations (p1 + p2 < 1 gives 1 - p1 - p2 > 0) and of the non-strict ones."""

    def __init__(self, positive=(), nonnegative=()):
        self.positive = [sp.sympify(e) for e in positive]
        self.nonnegative = [sp.sympify(e) for e in nonnegative]
        # answers already worked out: the same factors are asked about again and again
        # (split_logs before and after expanding, every strategy of zero_by, every sign form);
        # within facts_shared(), with every Facts of the same slacks
        self._memo: dict = {} if _SHARED_MEMOS is None else _SHARED_MEMOS.setdefault(self.key(), {})

    def key(self) -> tuple:
        """What these facts are (for naming a decision point that depends on them)."""
        return (tuple(self.positive), tuple(self.nonnegative))

    @staticmethod
    def from_relations(relations, rep):
        pos, nonneg = [], []
        for rel in relations:
            lhs, rhs = rel.lhs.xreplace(rep), rel.rhs.xreplace(rep)
            if isinstance(rel, sp.StrictLessThan):
                pos.append(rhs - lhs)
            elif isinstance(rel, sp.StrictGreaterThan):
                pos.append(lhs - rhs)
            elif isinstance(rel, sp.LessThan):
                nonneg.append(rhs - lhs)
            elif isinstance(rel, sp.GreaterThan):
                nonneg.append(lhs - rhs)
        return Facts(pos, nonneg)

    def is_positive(self, e, depth=0) -> bool:
        """Sound but incomplete: True only if e > 0 follows from assumptions and slacks."""
        e = sp.sympify(e)
        return self._remember(("positive", e, depth), self._is_positive, e, depth)

    def _remember(self, key, compute, *args) -> bool:
        """compute(*args), memoised with the replay hints found proving it (hints.py): a
        node answered from the memo passes on the same hints as one computed again."""
        got = self._memo.get(key)
        if got is None:
            with hints.collecting() as inside:
                answer = compute(*args)
            got = self._memo[key] = (answer, inside if answer and inside else None)
        hints.found(got[1])
        return got[0]

    def _is_positive(self, e, depth) -> bool:
        if e.is_positive is True:
            return True
        if depth > 6:
            return False
        # c (f(A) - f(B)) + (terms >= 0) for a strictly monotone f: first, as it is cheap to
        # rule out (no matched pair of terms) and the slack search is slow on such sums
        if isinstance(e, sp.Add) and depth <= _MONO_DEPTH and self._monotone_difference(e, depth, True):
            return True
        small = count_ops(e) <= _SLACK_OPS
        if small and e.has(*_TRANSCENDENTAL):
            # the slacks as factors last (see _slack_multiple): the structure usually decides
            return self._by_structure(e, depth, small) or self._slack_multiple(e)
        return (small and self._slack_multiple(e)) or self._by_structure(e, depth, small)

    def _slack_multiple(self, e) -> bool:
        """e = slack times something positive by assumptions (1 - z_2 for z_2 < 1).  A
        slack can only explain an expression that contains its symbols, and only a small
        one: cancel() against a large one would eat the whole time slice.  For e with exp,
        log, ... in it this rarely holds and cancel() is slow (0.1 s per slack on
        1 + (1 - z_1) exp(...)/z_1, whose terms are plainly positive): tried after the rest."""
        return any(k.free_symbols <= e.free_symbols and not self._not_a_factor(e, k)
                   and not self._coprime(e, k) and sp.cancel(e / k).is_positive is True for k in self.positive)

    def _coprime(self, e, k) -> bool:
        """True when cancel(e/k) would keep all of k's numerator in its denominator (exact
        polynomial gcds in flint, ``rational.shares_factor``), where sympy's assumptions,
        which do not know k's sign, cannot show the quotient positive.  From scratch on the
        bundled paper, 409 slack tries were such, 3.3 s of cancel() that never succeeded;
        every success had a common factor.  Not asked of a k whose sign sympy knows."""
        if k.is_positive is True or k.is_negative is True:
            return False
        return shares_factor(e, k) is False

    def _not_a_factor(self, e, k) -> bool:
        """True when cancel(e/k) certainly cannot show e/k > 0, so it is not tried (most slack
        attempts fail, and cancel() finding so was most of their time).

        Shown at a point where k = 0 that every symbol's assumptions allow:
        - e there is finite and not 0 (or, where e has a pole, the numerator of e over a common
          denominator is): then k does not divide e's numerator as a polynomial in e's atoms
          (cancel's view: exp(x) and x independent), which would vanish there;
        - so k stays in cancel's denominator, which vanishes at that point: sympy's (sound)
          assumptions can prove no sign of it, and none of the quotient.
        False -- try cancel() -- whenever no such point is found or k's sign is known."""
        if k.is_positive is True or k.is_negative is True or e.has(*_UNEVALUATED):
            return False
        pt = self._zero_point(k, e.free_symbols)
        if pt is None:
            return False
        v = e.xreplace(pt)
        if v.has(sp.zoo, sp.nan):  # a pole there: ask the numerator over a common denominator
            v = sp.fraction(sp.together(e))[0].xreplace(pt)
        return _certainly_nonzero(v)

    def _zero_point(self, k, symbols):
        """Rational values of `symbols` with k = 0 there: the others at fixed rationals in
        (0, 1), k solved for a symbol it is linear in (k = a s + b with a != 0 and b rational
        there); None if there is no such symbol."""
        key = ("zero point", k, frozenset(symbols))
        if key in self._memo:
            return self._memo[key]
        got = None
        inside = set().union(*(f.free_symbols for f in k.atoms(sp.Function, sp.Pow) if not
                               (isinstance(f, sp.Pow) and f.exp.is_Integer)))
        for s in sorted(k.free_symbols - inside, key=str):
            a = derivative(k, s)
            if a.has(s):
                continue
            base = {x: sp.Rational(2 * i + 3, 4 * i + 7) for i, x in enumerate(sorted(set(symbols) - {s}, key=str))}
            av, b = a.xreplace(base), (k - a * s).xreplace(base)
            if av.is_Rational and b.is_Rational and av != 0:
                cand = {**base, s: -b / av}
                if all(_consistent(x, v) for x, v in cand.items()):
                    got = cand
                    break
        self._memo[key] = got
        return got

    def _by_structure(self, e, depth, small) -> bool:
        # e = slack + (something non-negative); after the slacks as factors, as its recursion
        # is the costly part (1 - z_2 = (z_2 - z_1) + (1 - 2 z_2 + z_1) took 1 s)
        if not (small and isinstance(e, sp.Add) and depth < 3 and self.positive):
            return self._structure_rest(e, depth, small)
        # which alternative proves it: slack i subtracted ("i"), or the other rules ("rest");
        # a replay tries the one its certificate names first (hints.py), then the usual order
        first, key = hints.hint_for(e, depth, self.positive)
        labels = [str(i) for i in range(len(self.positive))] + ["rest"]
        if first in labels:
            labels.remove(first)
            labels.insert(0, first)
        for label in labels:
            if label == "rest":
                ok = self._structure_rest(e, depth, small)
            else:
                # e.g. 1 - p2 = (1 - p1 - p2) + p1
                rest = sp.expand(e - self.positive[int(label)])
                ok = rest.is_nonnegative is True or (rest != e and self.is_nonnegative(rest, depth + 2))
            if ok:
                if label != "0":  # the usual order's first needs no hint
                    hints.note(e, depth, label, key, self.positive)
                return True
        return False

    def _structure_rest(self, e, depth, small) -> bool:
        """_by_structure's rules after a slack subtracted."""
        if isinstance(e, sp.Add) and small and depth < 3:
            # e = (non-negative slack) + (something positive), e.g. 1 - z = (99/100 - z) + 1/100
            for k in self.nonnegative:
                if sp.expand(e - k).is_positive is True:
                    return True
        if isinstance(e, sp.Add):
            if all(self.is_nonnegative(t, depth + 1) for t in e.args) and any(
                    self.is_positive(t, depth + 1) for t in e.args):
                return True
            if small and depth < 2 and self._positive_by_squares(e, depth):
                return True
            # an expanded sum may hide a positive grouping: ref1 e^a + (1 - ref1 - ref2) e^c ...
            atoms = list(sp.ordered(e.atoms(sp.exp))) or list(sp.ordered(e.atoms(sp.Pow)))
            if atoms and depth < 3:
                grouped = sp.collect(e, atoms)
                if grouped != e and isinstance(grouped, sp.Add):
                    return self.is_positive(grouped, depth + 2)
            return False
        if isinstance(e, sp.Mul):
            # sign parity: factor() writes the slack 1 - p1 - p2 as -(p1 + p2 - 1)
            sign = 1
            for f in e.args:
                fs = self._factor_sign(f, depth + 1)
                if fs == 0:
                    return False
                sign *= fs
            return sign > 0
        if isinstance(e, sp.Pow):
            if self.is_positive(e.base, depth + 1) and (e.exp.is_real or self.is_real(e.exp)):
                return True
            if e.exp.is_integer and e.exp.is_even and self._factor_sign(e.base, depth + 1) != 0:
                return True
        if isinstance(e, sp.exp) and (e.args[0].is_real or self.is_real(e.args[0])):
            return True
        return False

    def _positive_by_squares(self, e, depth) -> bool:
        """e = P - N with P > 0 and N >= 0 (every term's sign known) is positive when
        P**2 - N**2 > 0: then P > N.  Squaring removes radicals: sqrt(b**2 + 1) - b > 0."""
        if not _roots(e):
            return False  # without radicals squaring only makes the sum larger
        pos, neg = [], []
        for t in e.args:
            if self.is_nonnegative(t, depth + 1):
                pos.append(t)
            elif self.is_nonnegative(-t, depth + 1):
                neg.append(-t)
            else:
                return False
        if not pos or not neg:
            return False
        p, n = sp.Add(*pos), sp.Add(*neg)
        d = sp.expand(p ** 2 - n ** 2)
        if len(_roots(d)) >= len(_roots(e)):
            return False  # squaring did not remove a root: no simpler question
        if not self.is_positive(p, depth + 1):
            return False
        return d.is_positive is True or self.is_positive(d, depth + 2)

    def is_real(self, e) -> bool:
        """Sound but incomplete: True only if e is real wherever it is defined, by the
        assumptions and the slacks (sqrt(1 - z) is real when 1 - z >= 0 is known)."""
        e = sp.sympify(e)
        return self._remember(("real", e), self._is_real, e)

    def _is_real(self, e) -> bool:
        if e.is_real is True:
            return True
        if e.is_Atom:
            return False
        if isinstance(e, (sp.Add, sp.Mul)):
            return all(self.is_real(a) for a in e.args)
        if isinstance(e, sp.Pow):
            b, x = e.args
            if not (self.is_real(x) and self.is_real(b)):
                return False
            # b**x for real b and integer x, or for b >= 0 and real x (undefined at b = 0, x < 0)
            return x.is_integer is True or self.is_nonnegative(b)
        if isinstance(e, _REAL_OF_REAL):
            return self.is_real(e.args[0])
        if isinstance(e, sp.log):
            return self.is_positive(e.args[0])
        return False

    def _factor_sign(self, f, depth) -> int:
        """+1 or -1 when the sign of a product's factor is provable, else 0.  Negativity
        is only derived for numbers, negative symbols and (powers of) sums, whose
        negation distributes, so this never recurses into the same product."""
        if f.is_number:
            return 1 if f.is_positive else (-1 if f.is_negative else 0)
        if self.is_positive(f, depth):
            return 1
        base, ex = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.S.One)
        if ex.is_integer and (base.is_negative is True
                              or isinstance(base, sp.Add) and self.is_positive(-base, depth)):
            return -1 if ex.is_odd else 1
        return 0

    def is_nonnegative(self, e, depth=0) -> bool:
        e = sp.sympify(e)
        return self._remember(("nonnegative", e, depth), self._is_nonnegative, e, depth)

    def _is_nonnegative(self, e, depth) -> bool:
        if e.is_nonnegative is True or self.is_positive(e, depth):
            return True
        for k in self.nonnegative:
            if count_ops(e) > _SLACK_OPS or not k.free_symbols <= e.free_symbols or self._not_a_factor(e, k):
                continue
            if sp.cancel(e / k).is_nonnegative is True:
                return True
        if isinstance(e, sp.Add):
            if all(self.is_nonnegative(t, depth + 1) for t in e.args):
                return True
            return depth <= _MONO_DEPTH and self._monotone_difference(e, depth, False)
        if isinstance(e, sp.Mul):
            return all(self.is_nonnegative(f, depth + 1) for f in e.args)
        return False

    # -------------------------------------------------------------- monotone differences
    def _monotone_difference(self, e, depth, strict) -> bool:
        """e = c (f(A) - f(B)) + rest with f strictly monotone on a range that A and B are
        proven to lie in (``_monotone_parts``), the sign of c proven, and rest >= 0: then
        sign(c (f(A) - f(B))) = sign(c) * (+1 increasing, -1 decreasing) * sign(A - B), and
        A - B > 0 (>= 0 when not strict) is asked of these facts (also after together and
        factor: z_2/(1 - z_2) - z_1/(1 - z_1) = (z_2 - z_1)/((1 - z_1)(1 - z_2)))."""
        parts, numbers = {}, []
        for i, t in enumerate(e.args):
            if t.is_number:
                if t.is_real:
                    numbers.append((i, t))
                continue
            got = _monotone_parts(t)
            if got is not None:
                parts.setdefault(got[0], []).append((i, got[1], got[2], got[3]))
        pairs = []  # (i, j, key, c, A, bases of A, B, bases of B): terms i, j are c (f(A) - f(B))
        for key, terms in parts.items():  # in the order of e.args (deterministic)
            for a, (i, ci, Ai, bi) in enumerate(terms):
                for j, cj, Aj, bj in terms[a + 1:]:
                    if (ci + cj) == 0:
                        pairs.append((i, j, key, ci, Ai, bi, Aj, bj))
            if key[0] in ("pow", "exp"):
                # a number n is n f(A0) with A0 = 1 for a power, 0 for exp: 1 - 1/(1 + K)
                a0 = sp.S.One if key[0] == "pow" else sp.S.Zero
                for j, cj, Aj, bj in terms:
                    for i, n in numbers:
                        if (n + cj) == 0:
                            pairs.append((i, j, key, n, a0, (a0,), Aj, bj))
        for i, j, key, c, A, a_bases, B, b_bases in pairs:
            if not self._pair_sign(key, c, A, a_bases, B, b_bases, depth, strict):
                continue
            rest = sp.Add(*[t for k, t in enumerate(e.args) if k not in (i, j)])
            if rest == 0 or rest.is_nonnegative is True or self.is_nonnegative(rest, depth + 1):
                return True
        return False

    def _pos(self, e, depth) -> bool:
        """e > 0, by its structure first (products and powers of positive parts, exp of a
        real, sums of non-negative terms one of them positive), each leaf by is_positive.
        (_quick_positive restarts the depth count: it would not stop on the differences
        this rule builds.)"""
        if e.is_positive is True:
            return True
        if depth > 6:
            return False
        if isinstance(e, sp.exp):
            return self.is_real(e.args[0])
        if isinstance(e, sp.Pow):
            ok = (e.exp.is_real or self.is_real(e.exp)) and self._pos(e.base, depth + 1)
        elif isinstance(e, sp.Mul):
            ok = all(self._pos(f, depth + 1) for f in e.args)
        elif isinstance(e, sp.Add) and e.has(sp.Function, sp.Pow):
            ok = all(t.is_nonnegative is True or self._pos(t, depth + 1) for t in e.args) and any(
                t.is_positive is True or self._pos(t, depth + 1) for t in e.args)
        else:
            ok = False
        return ok or self.is_positive(e, depth)

    def _pair_sign(self, key, c, A, a_bases, B, b_bases, depth, strict) -> bool:
        """c (f(A) - f(B)) > 0 (>= 0 when not strict), f named by key (see _MONO_FUNCS)."""
        d = depth + 2
        if c.is_number:
            sc = 1 if c.is_positive else (-1 if c.is_negative else 0)
        else:
            sc = 1 if self._pos(c, d) else (-1 if self._pos(-c, d) else 0)
        if sc == 0:
            return False
        name = key[0]
        p = key[1] if name == "pow" else None
        increasing = p is None or p > 0
        # f(hi) - f(lo) with hi - lo > 0 is what c (f(A) - f(B)) > 0 needs
        (hi, hi_bases), (lo, lo_bases) = ((A, a_bases), (B, b_bases)) if (sc > 0) == increasing else \
            ((B, b_bases), (A, a_bases))
        if name in ("exp", "asinh", "atan") or p is not None and p.is_integer and p > 0 and p.is_odd:
            # increasing on the reals (odd powers of a product: (u v)**p = u**p v**p always)
            if not (self.is_real(A) and self.is_real(B)):
                return False
            return self._difference_sign(hi - lo, d, strict)
        if name == "log":
            in_range = self._pos  # log on (0, oo)
        elif p > 0:
            # roots and even powers: increasing on [0, oo)
            def in_range(u, dd):
                return u.is_nonnegative is True or self._pos(u, dd) or self.is_nonnegative(u, dd)
        else:
            in_range = self._pos  # negative powers: decreasing on (0, oo)
        # the range is upward closed: lo in it and hi >= lo put hi in it.  A product of
        # powers is the power of the product only where every base is in range, on both sides
        if not all(in_range(u, d) for u in lo_bases):
            return False
        if not self._difference_sign(hi - lo, d, strict):
            return False
        return len(hi_bases) == 1 or all(in_range(u, d) for u in hi_bases)

    def _difference_sign(self, diff, depth, strict) -> bool:
        """diff > 0 (>= 0 when not strict), as it is, else over a common denominator."""
        ask = self._pos if strict else self.is_nonnegative
        if diff.is_number:
            return bool(diff.is_positive if strict else diff.is_nonnegative)
        if ask(diff, depth):
            return True
        if count_ops(diff) > _SLACK_OPS:
            return False
        tog = sp.together(diff)
        if tog != diff and ask(tog, depth):
            return True
        fac = sp.factor(tog)
        return fac != tog and fac != diff and ask(fac, depth)


NO_FACTS = Facts()

# the monotone-difference rule: the is_positive depths it applies at (each use asks about
# A, B and A - B two levels deeper, so it nests at most twice)
_MONO_DEPTH = 4
# strictly increasing on the reals (exp, asinh, atan) or on the positive reals (log);
# powers x**p with rational p are handled apart (see Facts._pair_sign)
_MONO_FUNCS = (sp.log, sp.exp, sp.asinh, sp.atan)


def _monotone_parts(t):
    """(key, c, A, bases) with t == c * f(A) for a strictly monotone f named by key, or None:
    c * g(A) for g one of _MONO_FUNCS (the only such factor: key (name,)), or
    c * prod b_i**p for the rational p != 0, 1 of every non-numeric power factor of t with
    another exponent than 1 (key ("pow", p), A = prod b_i, bases = (b_i, ...); the product
    of powers is the power of the product only where the bases are in range, which
    Facts._pair_sign proves of each b_i)."""
    coeff, rest = t.as_coeff_Mul()
    fs = sp.Mul.make_args(rest)
    funcs = [f for f in fs if isinstance(f, _MONO_FUNCS)]
    if funcs:
        if len(funcs) != 1:
            return None
        g = funcs[0]
        c = coeff * sp.Mul(*[f for f in fs if f is not g])
        if c.has(g):
            return None
        return (type(g).__name__,), c, g.args[0], (g.args[0],)
    pows = [f for f in fs if isinstance(f, sp.Pow) and not f.is_number]
    if not pows:
        return None
    p = pows[0].exp
    if not (p.is_Rational and p != 0 and p != 1) or any(f.exp != p for f in pows):
        return None
    c = coeff * sp.Mul(*[f for f in fs if not (isinstance(f, sp.Pow) and not f.is_number)])
    bases = tuple(f.base for f in pows)
    if any(c.has(b) for b in bases):
        return None
    return ("pow", p), c, sp.Mul(*bases), bases


# not evaluated at a point here: a sum, product or integral to a symbolic bound may be
# slow to evaluate numerically, or mean nothing at a fractional one
_UNEVALUATED = (sp.Sum, sp.Product, sp.Integral, sp.Limit, sp.Derivative)


def _consistent(symbol, value) -> bool:
    """Does the number satisfy every assumption of the symbol (positive, integer, ...)?"""
    return all(getattr(value, "is_" + a, None) is not False for a, holds in symbol.assumptions0.items() if holds)


def _certainly_nonzero(v) -> bool:
    """Is the closed number v (no symbols) finite and not 0?  Exactly for a rational; else
    in mpmath at 30 and at 50 digits, which must agree to 12 digits and be far from 0 (a
    zero computed with rounding error shrinks with more digits, a real value stays)."""
    if v.is_Rational:
        return v != 0
    if v.free_symbols or v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    try:
        a, b = sp.N(v, 30), sp.N(v, 50)
    except (TypeError, ValueError, ArithmeticError):
        return False
    if not (isinstance(a, sp.Float) and isinstance(b, sp.Float)):
        return False  # complex, or not evaluated
    return bool(abs(b) > 1e-10 and abs(a - b) <= abs(b) * 1e-12)


def _roots(e) -> set:
    """The non-integer powers in e (sqrt(b**2 + 1), x**(1/3), ...)."""
    return {p for p in e.atoms(sp.Pow) if not p.exp.is_Integer}


def _factors_positive(e, facts: Facts) -> bool:
    """Every multiplicative factor, down through powers' bases, is provably positive.
    (u*v > 0 for negative u, v, but expand_log would still split it into log u + log v.)"""
    for f in sp.Mul.make_args(e):
        base = f.base if isinstance(f, sp.Pow) else f
        if isinstance(base, sp.Mul):
            if not _factors_positive(base, facts):
                return False
        elif not (base.is_number and base.is_positive or facts.is_positive(base)):
            return False
    return True


def split_logs(expr, facts: Facts):
    """Expand log(a*b/c) into log a + log b - log c wherever every factor is provably
    positive: the identity holds then, so this is a sound rewrite (unlike force=True)."""
    reps = {}
    # a symbol bound by an Integral/Sum/Product is not the domain's symbol of that name:
    # the facts say nothing about it, and xreplace would rewrite the log under the binder too
    bound = set()
    for b in expr.atoms(sp.Integral, sp.Sum, sp.Product):
        bound |= set(b.variables)
    for lg in sp.ordered(expr.atoms(sp.log)):
        if bound and lg.free_symbols & bound:
            continue
        arg = sp.together(lg.args[0])
        num, den = sp.fraction(arg)
        if _factors_positive(num, facts) and _factors_positive(den, facts):
            # deep=False: only this log is split; logs nested inside its factors were
            # not checked and must not be rewritten by force
            reps[lg] = sp.expand_log(sp.log(arg), deep=False, force=True)
    return expr.xreplace(reps) if reps else expr


@functools.lru_cache(maxsize=2048)
def count_ops(e) -> int:
    """sympy's count_ops, kept per expression: the sign analysis asks it of the same
    subexpressions again at every level of its recursion, and sympy's count_ops is slow
    (it takes each product apart with fraction())."""
    return sp.count_ops(e)

# ------------------------------------------------------------------ exp/log normal form
# Identities used, each only where its side conditions are proven (Facts):
#   asinh(u) = log(u + sqrt(u**2 + 1))                      u real
#   exp(a) exp(b) = exp(a + b)                              always
#   log(c prod f_i**k_i) = log c + sum k_i log f_i          c > 0, every f_i > 0, every k_i real
#   log(exp(u)) = u                                         u real
#   (c prod f_i**k_i)**r = c**r prod f_i**(k_i r)           the same, and r real
# The argument of a log or a root is first written as a product (together, factor), and a
# factor of unknown sign stops the rewrite of that log or root: it is kept as it is.
_FACTOR_OPS = 400  # factor() only arguments up to this size (larger ones are kept whole)


def _plain_expand(e):
    """Products and powers of sums multiplied out; exp(a + b) is not split back into
    exp(a) exp(b) and logs are left alone (the normal form decides about those)."""
    return sp.expand(e, log=False, power_exp=False)


def _log_number(c):
    """log of a positive number as a sum of logs of primes and of other numbers."""
    if not all(f.is_positive for f in sp.Mul.make_args(c)):
        return sp.log(c)
    out = []
    for f in sp.Mul.make_args(c):
        base, k = (f.base, f.exp) if isinstance(f, sp.Pow) and f.base.is_Rational else (f, sp.S.One)
        if base.is_Rational and base.is_positive and max(base.p, base.q) < 10 ** 12:
            for p, m in sp.factorint(base.p).items():
                out.append(k * m * sp.log(p))
            for p, m in sp.factorint(base.q).items():
                out.append(-k * m * sp.log(p))
        else:
            out.append(sp.log(f))
    return sp.Add(*out)


def _factor_list(base):
    """factor_list with every exp(u) kept whole (sympy's polys would split exp(a + b))."""
    exps = list(sp.ordered(base.atoms(sp.exp)))
    if not exps:
        return sp.factor_list(base)
    dummies = {x: sp.Dummy(f"e{i}") for i, x in enumerate(exps)}
    back = {d: x for x, d in dummies.items()}
    cf, factors = sp.factor_list(base.xreplace(dummies))
    return cf, [(g.xreplace(back), m) for g, m in factors]


def _quick_positive(e, facts: Facts, depth=0) -> bool:
    """e > 0 by its structure (sums and products of positive parts, exp of a real, a
    power of a positive base), asking the facts' slack reasoning only about the leaves
    without functions: that reasoning is slow on a large sum with exps and logs in it."""
    if e.is_positive is True:
        return True
    if depth > 8:
        return False
    if isinstance(e, sp.exp):
        return facts.is_real(e.args[0])
    if isinstance(e, sp.Pow):
        return (e.exp.is_real or facts.is_real(e.exp)) and _quick_positive(e.base, facts, depth + 1)
    if not e.has(sp.Function, sp.Pow):
        return facts.is_positive(e)
    if isinstance(e, sp.Mul):
        return all(_quick_positive(f, facts, depth + 1) for f in e.args)
    if isinstance(e, sp.Add):
        if all(t.is_nonnegative is True or _quick_positive(t, facts, depth + 1) for t in e.args) and any(
                t.is_positive is True or _quick_positive(t, facts, depth + 1) for t in e.args):
            return True
        # an expanded sum may hide a positive grouping: z - z e^u + e^u = z + (1 - z) e^u
        if depth < 2 and e.has(sp.exp):
            grouped = _group_by_exps(e)
            return grouped != e and _quick_positive(grouped, facts, depth + 2)
    return False


def _group_by_exps(e):
    """A sum with its terms grouped by their product of exps: the coefficients summed."""
    groups: dict = {}
    for t in e.args:
        fs = sp.Mul.make_args(t)
        key = sp.Mul(*[f for f in fs if isinstance(f, sp.exp)])
        groups.setdefault(key, []).append(sp.Mul(*[f for f in fs if not isinstance(f, sp.exp)]))
    return sp.Add(*[sp.Add(*cs) * k for k, cs in groups.items()])


def _sign_of(g, facts: Facts) -> int:
    """+1 or -1 if g's sign is proven, else 0."""
    if isinstance(g, sp.exp):
        return 1 if facts.is_real(g.args[0]) else 0
    # the cheap structural check first, in the likelier direction (z - 1 is probably negative)
    signs = (-1, 1) if isinstance(g, sp.Add) and g.as_coeff_Add()[0].is_negative else (1, -1)
    for sg in signs:
        if _quick_positive(sg * g, facts):
            return sg
    for sg in signs:
        if facts.is_positive(sg * g):
            return sg
    return 0


def _signed_factors(base, facts: Facts):
    """(c, [(g, m), ...]) with base == c * prod g**m, c a number, every g provably positive
    and every m an integer; the factorisation of a polynomial base where it is small."""
    if isinstance(base, sp.Add) and count_ops(base) <= _FACTOR_OPS:
        cf, factors = _factor_list(base)
        out = []
        for g, m in factors:
            sg = _sign_of(g, facts)
            if sg == 0:
                out = None
                break
            if sg < 0:
                g = -g
                if m % 2:
                    cf = -cf
            out.append((g, m))
        if out is not None:
            return cf, out
    sg = _sign_of(base, facts)
    if sg == 0:
        return None
    return (sp.S.One, [(base, 1)]) if sg > 0 else (sp.S.NegativeOne, [(-base, 1)])


def _has_radical_sum(e) -> bool:
    return any(isinstance(t, sp.Add) and any(not p.exp.is_Integer for p in t.atoms(sp.Pow))
               for t in sp.Mul.make_args(e))


_RADSIMP_OPS = 120


def _rationalise(num, den):
    """num/den with every factor p + q sqrt(b) of den whose conjugate product p**2 - q**2 b
    is root-free replaced by that product (num times the conjugate p - q sqrt(b)): a sum
    with a root is often not provably positive, (s - b) when s = sqrt(b**2 + 1), while the
    conjugate and the product are.  The numerator is kept as a product (not expanded),
    so that (b + s)/(s - b) becomes (b + s)*(b + s)/1."""
    new_num, new_den = [num], []
    for f in sp.Mul.make_args(den):
        base, k = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.S.One)
        roots = [p for p in base.atoms(sp.Pow) if p.exp == sp.S.Half] if isinstance(base, sp.Add) else []
        if not (k.is_Integer and k > 0) or len(roots) != 1:
            new_den.append(f)
            continue
        root = roots[0]
        q = base.coeff(root)
        p = sp.expand(base - q * root)
        if q == 0 or p.has(root) or q.has(root):
            new_den.append(f)
            continue
        prod = sp.expand(p ** 2 - q ** 2 * root.base)
        if prod == 0 or prod.has(root):
            new_den.append(f)
            continue
        new_num.append((p - q * root) ** k)
        new_den.append(prod ** k)
    return sp.Mul(*new_num), sp.Mul(*new_den)


def _positive_parts(a, facts: Facts, depth=0):
    """(c, [(f, k), ...]) with a == c * prod f**k, c a positive number, every f provably
    positive (exp(u) of a real u included) and every k real; None if that is not shown."""
    if depth > 3:
        return None
    a = sp.together(a)
    num, den = sp.fraction(a)
    if _has_radical_sum(den) and count_ops(a) <= _RADSIMP_OPS:
        num, den = _rationalise(num, den)
    c = sp.S.One
    parts: dict = {}

    def add(f, k):
        parts[f] = parts.get(f, sp.S.Zero) + k

    for side, sgn in ((num, 1), (den, -1)):
        for f in sp.Mul.make_args(side):
            if f.is_number:
                if not (f.is_positive or f.is_negative):
                    return None
                c *= f ** sgn
                continue
            base, k = (f.base, f.exp) if isinstance(f, sp.Pow) else (f, sp.S.One)
            k = k * sgn
            if not (k.is_real or facts.is_real(k)):
                return None
            if isinstance(base, sp.exp):
                if not facts.is_real(base.args[0]):
                    return None
                add(base, k)
            elif k.is_integer:
                got = _signed_factors(base, facts)
                if got is None:
                    return None
                c *= got[0] ** k
                for g, m in got[1]:
                    if isinstance(g, sp.Pow) and not g.exp.is_integer:
                        # a root the factorisation exposed, e.g. sqrt(b**2 + 1): split it further
                        sub = _positive_parts(g, facts, depth + 1)
                        if sub is None:
                            add(g, k * m)
                            continue
                        c *= sub[0] ** (k * m)
                        for h, j in sub[1]:
                            add(h, j * k * m)
                    else:
                        add(g, k * m)
            else:
                # a non-integer power: (c' prod f**j)**k = c'**k prod f**(j k) for a positive base
                sub = _positive_parts(base, facts, depth + 1)
                if sub is None:
                    if not facts.is_positive(base):
                        return None
                    sub = (sp.S.One, [(base, sp.S.One)])
                c *= sub[0] ** k
                for h, j in sub[1]:
                    add(h, j * k)
    if c.is_positive is not True:
        return None
    return c, [(f, k) for f, k in parts.items() if k != 0]


def _log_form(a, facts: Facts):
    """log(a) as a sum of logs of positive factors (exp factors give their exponents), or None."""
    got = _positive_parts(a, facts)
    if got is None:
        return None
    c, parts = got
    out = [_log_number(c)]
    for f, k in parts:
        out.append(k * (f.args[0] if isinstance(f, sp.exp) else sp.log(f)))
    return sp.Add(*out)


def _pow_form(b, r, facts: Facts):
    """b**r (r real, not an integer) as a product of powers of positive factors, or None."""
    got = _positive_parts(b, facts)
    if got is None:
        return None
    c, parts = got
    out = [c ** r]
    for f, k in parts:
        out.append(sp.exp(_plain_expand(f.args[0] * k * r)) if isinstance(f, sp.exp) else f ** (k * r))
    return sp.Mul(*out)


def _exp_log_node(node, facts: Facts):
    if isinstance(node, sp.asinh) and facts.is_real(node.args[0]):
        u = node.args[0]
        node = sp.log(u + sp.sqrt(u ** 2 + 1))
    if isinstance(node, sp.log):
        got = _log_form(node.args[0], facts)
        return node if got is None else got
    if isinstance(node, sp.Pow) and not node.exp.is_integer and not node.is_number and (
            node.exp.is_real or facts.is_real(node.exp)):
        if isinstance(node.base, sp.exp) and facts.is_real(node.base.args[0]):
            return sp.exp(_plain_expand(node.base.args[0] * node.exp))
        got = _pow_form(node.base, node.exp, facts)
        return node if got is None else got
    if isinstance(node, sp.Add):
        node = _merge_denominators(node)
    if isinstance(node, sp.Mul):
        exps = [f for f in node.args if isinstance(f, sp.exp)]
        if len(exps) > 1:
            rest = [f for f in node.args if not isinstance(f, sp.exp)]
            node = sp.Mul(*rest, sp.exp(_plain_expand(sp.Add(*[f.args[0] for f in exps]))))
        if isinstance(node, sp.Mul):
            node = _merge_roots(node, facts)
    return node


def _merge_denominators(node):
    """a/d + b/d = (a + b)/d for terms with the same denominator (x/D + (1 - x)/D = 1/D)."""
    groups: dict = {}
    for t in node.args:
        n, d = t.as_numer_denom() if t.is_Mul or t.is_Pow else (t, sp.S.One)
        if d != 1:
            groups.setdefault(d, []).append((t, n))
    if not any(len(g) > 1 for g in groups.values()):
        return node
    out = list(node.args)
    for d, ts in groups.items():
        if len(ts) < 2:
            continue
        for t, _ in ts:
            out.remove(t)
        out.append(sp.Add(*[n for _, n in ts]) / d)
    return sp.Add(*out)


def _merge_roots(node, facts: Facts):
    """prod b_i**r = (prod b_i)**r for positive b_i and real r, where the product of the
    bases multiplies out to something smaller: sqrt(s - b) sqrt(s + b) = sqrt(s**2 - b**2)."""
    groups: dict = {}
    for f in node.args:
        if isinstance(f, sp.Pow) and not f.exp.is_integer and not f.is_number and isinstance(f.base, sp.Add):
            groups.setdefault(f.exp, []).append(f)
    if not any(len(g) > 1 for g in groups.values()):
        return node
    out = list(node.args)
    for r, fs in groups.items():
        if len(fs) < 2 or not (r.is_real or facts.is_real(r)):
            continue
        if not all(facts.is_positive(f.base) for f in fs):
            continue
        merged = _plain_expand(sp.Mul(*[f.base for f in fs]))
        if count_ops(merged) < sum(count_ops(f.base) for f in fs):
            for f in fs:
                out.remove(f)
            out.append(merged ** r)
    return sp.Mul(*out)


_BINDING = (sp.Integral, sp.Sum, sp.Product, sp.Lambda, sp.Subs, sp.Derivative, sp.Limit)


def exp_log_form(expr, facts: Facts = NO_FACTS):
    """expr rewritten bottom-up by the identities above (each where it is proven to hold)."""
    memo: dict = {}

    def walk(node):
        if node.is_Atom or isinstance(node, _BINDING):
            # the facts are about the free symbols: a bound variable of the same name is
            # another quantity, so nothing under a binder is rewritten
            return node
        got = memo.get(node)
        if got is not None:
            return got
        args = [walk(a) for a in node.args]
        new = node.func(*args) if any(a is not b for a, b in zip(args, node.args)) else node
        out = _exp_log_node(new, facts) if isinstance(new, sp.Expr) else new
        memo[node] = out
        return out

    return walk(sp.sympify(expr))


# the exp/log normal form followed by a rational simplification (tried after the others).
# Committed certificates name the strategy that won, so a name is never changed or removed;
# the order is only the order of trying
_EXP_LOG_NAMES = ("exp-log+rational", "exp-log+expand", "exp-log+together", "exp-log+cancel")
_DENEST = "denest+rational"  # nested square roots denested (denested), then exact arithmetic
_STRATEGY_NAMES = ("exact", "rational", "expand", "cancel", "together", "simplify",
                   "radsimp+simplify") + _EXP_LOG_NAMES + (_DENEST,)
_CLASSIC_NAMES = _STRATEGY_NAMES[:7]
# the classic strategies that cost most when they fail (one whole slice each, on the
# bundled paper up to 4 s on a stationary point whose root only denests): tried after the
# exp/log normal form and the denesting, and after a retry with the intervals' ends
# (zero_by_then_ends), which decide the same zero tests for a fraction of that
_SLOW_NAMES = ("simplify", "radsimp+simplify")
_FAST_NAMES = tuple(n for n in _STRATEGY_NAMES if n not in _SLOW_NAMES)
# for a prover that tries the fast strategies, then its own rewriting, then the slow ones
FAST_STRATEGIES, SLOW_STRATEGIES = _FAST_NAMES, _SLOW_NAMES


def _rationally_zero(e):
    """0 if e is identically zero as a rational function of its atoms (backends/rational.py:
    what cancel decides, in flint instead of sympy's expand), else None: not decided here."""
    return sp.S.Zero if identically_zero(e) else None


def _exp_log_strategies():
    # tried in this order (together is cheap on the sums of fractions the KL terms leave;
    # expanding those first multiplies them out)
    return [
        ("exp-log+rational", _rationally_zero),
        ("exp-log+together", lambda e: _plain_expand(sp.together(e))),
        ("exp-log+expand", _plain_expand),
        ("exp-log+cancel", sp.cancel),
    ]


def _transcendental(e) -> bool:
    return e.has(sp.log, sp.exp, sp.asinh)


def _strategies():
    # cheapest first; simplify is the slow last resort
    return [
        ("exact", lambda e: e),
        ("rational", _rationally_zero),  # _zero_by_classic runs it once per form (its `rational`)
        ("expand", lambda e: sp.expand(e)),
        ("cancel", lambda e: sp.cancel(e)),
        ("together", lambda e: sp.expand(sp.together(sp.expand(e)))),
        ("simplify", sp.simplify),
        ("radsimp+simplify", lambda e: sp.simplify(_radsimp_form(e))),
    ]


@functools.lru_cache(maxsize=64)
def _radsimp_form(e):
    """Denominators with roots rationalised, logs of products split where sympy's
    assumptions allow: what radsimp+simplify simplifies (kept: _zero_by_classic asks for it
    before the strategy itself does)."""
    return sp.radsimp(sp.expand_log(e, force=False))


_MAX_OPS = 3000


STRATEGY_SECONDS = 4.0


# one strategy's slice of the claim's symbolic budget (a replay stretches it: timebox.py)
SIGN_FORM_SECONDS = 2.0


def _timeboxed(thunk, seconds=None):
    """thunk() or None if it fails or exceeds its slice (then the next strategy runs)."""
    box = None
    try:
        with time_limit(STRATEGY_SECONDS if seconds is None else seconds) as box:
            return thunk()
    except TimeUp as exc:
        if exc.box is not box:
            raise  # the claim's whole budget ran out: stop the symbolic attempt
        return None
    except Exception:  # noqa: BLE001 - a sympy failure means 'not this way', never a verdict
        return None


def zero_by(expr, facts: Facts = NO_FACTS, trace=None, at: str = "zero", strategies=None):
    """Return (strategy name, 0) if expr simplifies to exactly zero, else (None, residual).

    With a trace, the strategies tried are the trace's options at this decision point
    (all of them when searching, only the recorded one when replaying a certificate), and
    the winner is recorded.  `strategies` restricts the names tried (default: all)."""
    label, residual, _ = _zero_search(expr, facts, trace, at, strategies)
    return label, residual


def _zero_search(expr, facts, trace, at, strategies):
    """zero_by's (label, residual), and whether one of the classic strategies tried ran out
    of its slice (then the heavier ones would too: zero_by_then_ends does not try them).
    That answer belongs to this search, remembered with it: never to another claim's."""
    expr = sp.sympify(expr)
    point = trace.point(at, expr, facts.key()) if trace is not None else None
    names = _STRATEGY_NAMES if strategies is None else tuple(n for n in _STRATEGY_NAMES if n in strategies)
    options = trace.options(point, names) if trace is not None else list(names)
    if not options:
        return None, expr, False
    # the facts enter only where logs are split, in the exp/log normal form and in the sign
    # of a denested root: without log/exp/asinh (or a sum that may evaluate to them) or a
    # nested root, a search with other facts is this same search, and its answer is reused
    # (the prover retries a gradient with more facts)
    facts_matter = expr.has(sp.log, sp.exp, sp.asinh, sp.Sum, sp.Product) or (
        _DENEST in options and bool(_nested_roots(expr)))
    given = _given_hints(trace, point)
    # with the hints given: what a search records must not depend on a replay before it
    memo_key = ("zero", expr, facts.key() if facts_matter else None, tuple(options), _hints_key(given))
    if memo_key in _SEARCHED:
        # the same search ran before in this process (the prover's first-order condition is
        # also a certification goal): its answer, and its winner recorded again
        label, name, residual, stopped, found = _SEARCHED[memo_key]
    else:
        with hints.given(given):
            label, name, residual, stopped, found = _zero_by(expr, facts, options)
        if len(_SEARCHED) > 4096:
            _SEARCHED.clear()
        _SEARCHED[memo_key] = (label, name, residual, stopped, found)
    if name is not None and trace is not None:
        _won(trace, point, name, found)
    return label, residual, stopped


def _given_hints(trace, point) -> dict | None:
    """The sign analysis' hints a replayed certificate records for this decision point."""
    if trace is None or not trace.replaying:
        return None
    return hints.decode(trace.replay.get(point + hints.SUFFIX))


def _hints_key(given) -> tuple | None:
    return tuple(sorted(given.items())) if given else None


def _won(trace, point, name, found) -> None:
    """Record a decision point's winner, and the hints of the sign analysis that won."""
    trace.won(point, name)
    if found:
        trace.won(point + hints.SUFFIX, hints.encode(found))


# answers of zero_by / prove_sign already worked out in this process, by their inputs
_SEARCHED: dict = {}


def _zero_by(expr, facts, options):
    """(label, winning strategy, residual, stopped, hints): label is None when no strategy
    gets to 0; `stopped` when a classic strategy ran out of its slice (the heavier classic
    ones are then not tried); the sign analysis' replay hints of the winner's stage (what
    its replay runs: the classic stages share their prepared form).  The stages, cheapest
    first (_ZERO_STAGES)."""
    seconds = STRATEGY_SECONDS
    if expr.has(sp.Sum, sp.Product):
        # sympy's symbolic summation can run for ever on a sum over a symbolic group size
        # (telescoping attempts): evaluating it gets one strategy's slice, like a strategy
        done = _timeboxed(lambda: expr.doit(), seconds)
        if done is None:
            return None, None, expr, False, {}
        expr = done
    if expr.has(sp.Piecewise):
        expr = sp.piecewise_fold(expr)
    residual, stopped = expr, False
    prepared = {}
    found = {"classic": {}, "exp-log": {}, "denest": {}}
    transcendental = _transcendental(expr)
    for stage, names in _ZERO_STAGES:
        names = [n for n in names if n in options]
        if not names or stage == "classic" and stopped:
            continue
        label = name = None
        with hints.collecting() as inside:
            if stage == "classic":
                label, name, r, stopped = _zero_by_classic(expr, facts, names, seconds, prepared)
                if label is None:
                    residual = r if r is not expr else residual
            elif stage == "exp-log":
                if transcendental:
                    label, name = _zero_by_exp_log(expr, facts, names, seconds, prepared)
            elif _nested_roots(expr):  # the denesting
                form = _timeboxed(lambda: denested(expr, facts), seconds)
                if form is not None and form is not expr and \
                        _timeboxed(lambda: _rationally_zero(form), seconds) == 0:
                    label = name = _DENEST
        found[stage].update(inside)
        if label is not None:
            return label, name, r if stage == "classic" else sp.S.Zero, False, found[stage]
    return None, None, residual, stopped, {}


# the order of trying (the names are what certificates record; the order is only the
# order of trying).  On a large expression with logs or exponentials, cancel and together
# can spend a whole slice failing where the exp/log normal form's exact zero test decides
# in a fraction of a second (the derivative of Appendix B's large-G potential at t = 0:
# cancel 4 s, then exp-log+rational); simplify is the slow last resort.
_ZERO_STAGES = (
    ("classic", ("exact", "rational", "expand")),
    ("exp-log", ("exp-log+rational",)),
    ("classic", ("cancel", "together")),
    ("exp-log", ("exp-log+together", "exp-log+expand", "exp-log+cancel")),
    ("denest", (_DENEST,)),
    ("classic", _SLOW_NAMES),
)


# ------------------------------------------------------------------ nested square roots
_DENEST_OPS = 200   # a larger root's base is left alone: squaring its parts multiplies out fast
_DENEST_TERMS = 60  # terms of either part of the base written as a + b sqrt(c)
_CANDIDATES: dict = {}  # candidates by base: the same root is tried with and without the ends


def _half_powers(e) -> set:
    return {p for p in e.atoms(sp.Pow) if p.exp.is_Rational and p.exp.q == 2}


def _free_half_powers(e) -> set:
    """The square roots W**(k/2) of e outside every binder (an integral, a sum, ...): the
    facts are about the free symbols, and a bound variable of the same name is another
    quantity (a sign shown for the free a says nothing about the a of Integral(.., (a, 1, 2)))."""
    out, stack = set(), [e]
    while stack:
        n = stack.pop()
        if n.is_Atom or isinstance(n, _BINDING):
            continue
        if n.is_Pow and n.exp.is_Rational and n.exp.q == 2:
            out.add(n)
        stack.extend(n.args)
    return out


def _nested_roots(e, roots=None) -> set:
    """The bases W of the square roots W**(k/2) in e (`roots`: its _free_half_powers), outside
    binders, whose W holds a square root itself (and no binder)."""
    return {p.base for p in (_free_half_powers(e) if roots is None else roots)
            if _half_powers(p.base) and not p.base.has(*_BINDING)}


def _outside_binders(e, rep: dict):
    """e with the subexpressions in rep replaced, nothing under a binder touched (xreplace
    would rewrite a root under an integral whose variable shares a free symbol's name)."""
    if e in rep:
        return rep[e]
    if e.is_Atom or isinstance(e, _BINDING):
        return e
    args = [_outside_binders(a, rep) for a in e.args]
    return e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e


def denested(expr, facts: Facts):
    """expr with a square root of a sum that holds another square root written without the
    nesting, where that is shown exactly.  sqrt(W) is replaced by U only when U**2 - W is
    identically 0 (backends/rational.py) and U >= 0 follows from the facts: then U is the
    principal root wherever the claim is defined.  The candidate U comes from the
    classical denesting sqrt(A + B sqrt(c)) = p + q sqrt(c), with p**2 = (A +- m)/2 and
    m**2 = A**2 - B**2 c a perfect square (the stationary policy (15) of arXiv 2502.18548:
    the reward's standard deviation under it is sqrt(x (1 - x)) d with x (1 - x) such a
    sum).  Returns expr itself when nothing was replaced."""
    rep = {}
    roots = _free_half_powers(expr)
    for W in sorted(_nested_roots(expr, roots), key=sp.default_sort_key):
        if count_ops(W) > _DENEST_OPS:
            continue
        for U in _denesting_candidates(W):
            if identically_zero(U ** 2 - W) and _provably_nonnegative(U, facts):
                rep.update((p, U ** (2 * p.exp)) for p in roots if p.base == W)
                break
    return _outside_binders(expr, rep) if rep else expr


def _sqrt_polynomial(P):
    """A polynomial whose square is P (P a perfect square, with a rational square factor), or None."""
    k, factors = sp.factor_list(sp.expand(P))
    if k < 0 or any(e % 2 for _, e in factors):
        return None
    return sp.sqrt(k) * sp.Mul(*[f ** (e // 2) for f, e in factors])


def _denesting_candidates(W) -> list:
    """Expressions U with, if the denesting applies, U**2 = W (each is checked by the caller)."""
    got = _CANDIDATES.get(W)
    if got is None:
        if len(_CANDIDATES) > 256:
            _CANDIDATES.clear()
        got = _CANDIDATES[W] = _candidates(W)
    return got


def _candidates(W) -> list:
    bases = {p.base for p in _half_powers(W)}
    if len(bases) != 1:
        return []
    c = bases.pop()
    if _half_powers(c):
        return []
    s = sp.Dummy("s")
    ws = W.replace(lambda n: n.is_Pow and n.base == c and n.exp.is_Rational and n.exp.q == 2,
                   lambda n: s ** (2 * n.exp))
    if _half_powers(ws) or not ws.is_rational_function(s):
        return []

    def reduced(e):  # e modulo s**2 = c: a + b s
        return sp.expand(sp.rem(sp.expand(e), s ** 2 - c, s))

    num, den = (reduced(e) for e in sp.fraction(sp.together(ws)))
    if den.coeff(s, 1) != 0:  # rationalise the denominator: times its conjugate
        conj = den.coeff(s, 0) - den.coeff(s, 1) * s
        num, den = reduced(num * conj), sp.expand(den.coeff(s, 0) ** 2 - den.coeff(s, 1) ** 2 * c)
    # W = (a + b s)/den = (a den + b den s)/den**2
    if max(len(sp.Add.make_args(e)) for e in (num.coeff(s, 0), num.coeff(s, 1), den)) > _DENEST_TERMS:
        return []
    a, b = sp.expand(num.coeff(s, 0) * den), sp.expand(num.coeff(s, 1) * den)
    if b == 0 or max(len(sp.Add.make_args(a)), len(sp.Add.make_args(b))) > _DENEST_TERMS:
        return []
    m = _sqrt_polynomial(a ** 2 - b ** 2 * c)
    if m is None:
        return []
    out = []
    for sign_m in (1, -1):
        p = _sqrt_polynomial((a + sign_m * m) / 2)
        if p is None or p == 0:
            continue
        q = sp.cancel(b / (2 * p))
        out += [(p + q * sp.sqrt(c)) / den, -(p + q * sp.sqrt(c)) / den]
    return out


def _provably_nonnegative(u, facts: Facts) -> bool:
    """u >= 0 from the facts: as it stands, or factor by factor (each factor's sign shown on
    its own, from depth 0: the sign analysis of a whole product bounds the depth of each
    factor's proof)."""
    if facts.is_nonnegative(u):
        return True
    sign = 1
    for f in sp.Mul.make_args(sp.factor(u)):
        sign *= facts._factor_sign(f, 0)
        if sign == 0:
            return False
    return sign > 0


def _zero_by_exp_log(expr, facts, options, seconds, prepared: dict):
    """The exp/log normal form (one slice, kept in `prepared` for a later stage), then each
    rational simplification among `options` (a slice each)."""
    if "exp-log" not in prepared:
        prepared["exp-log"] = _timeboxed(lambda: exp_log_form(expr, facts), seconds)
    form = prepared["exp-log"]
    if form is None:
        return None, None
    for name, f in _exp_log_strategies():
        if name not in options:
            continue
        r = _timeboxed(lambda f=f: f(form), seconds)
        if r is not None and r == 0:
            return name, name
    return None, None


def _zero_by_classic(expr, facts, options, seconds, prepared: dict):
    """The strategies of _CLASSIC_NAMES among `options`, cheapest first: (label, winner,
    residual, stopped), `stopped` when one ran out of its slice (the heavier ones after it
    are not tried).  `prepared` keeps the form the strategies work on (the logs split)
    for a second call on the same expression with other strategies (_zero_by's slow ones)."""
    tried = set()

    def rational(e) -> bool:
        # flint's exact arithmetic, on each form before the next one costs more (count_ops,
        # split_logs, expand): a replay of "rational" then does only the work it needs
        if "rational" not in options or e in tried or e == 0:
            return False
        tried.add(e)
        return _timeboxed(lambda: _rationally_zero(e), seconds) == 0

    if rational(expr):
        return "rational", "rational", sp.S.Zero, False
    if "form" in prepared:
        expr, prefix, big = prepared["form"]
    else:
        prefix = ""
        if expr.has(sp.log):
            # a sound rewrite (every split factor is provably positive), done once up front:
            # cancel/together on unsplit KL expressions is what makes sympy slow here
            split = split_logs(expr, facts)
            if rational(split):
                return "split logs+rational", "rational", sp.S.Zero, False
            # sized only now: a replay of "split logs+rational" never needs it (count_ops of
            # a large expression costs as much as the exact test)
            big = count_ops(expr) > _MAX_OPS
            if not big:
                expanded = _timeboxed(lambda: sp.expand(split), seconds)
                if expanded is not None:
                    split = split_logs(expanded, facts)
            if split != expr:
                expr, prefix = split, "split logs+"
                big = big or count_ops(expr) > _MAX_OPS
        else:
            big = count_ops(expr) > _MAX_OPS
        prepared["form"] = (expr, prefix, big)
    if big and prefix:
        # only the cheap strategies on a large split form (expand may finish the job)
        if rational(expr):
            return "split logs+rational", "rational", sp.S.Zero, False
        if "expand" not in options:
            return None, None, expr, False
        r = sp.expand(expr)
        if r == 0:
            return "split logs+expand", "expand", sp.S.Zero, False
        return None, None, r, False
    if big:
        return None, None, expr, False  # too large for sympy within budget: leave it to the numbers
    residual = expr
    simplify_failed = False
    for name, f in _strategies():
        if name not in options:
            continue
        label = prefix + name
        if name == "rational":
            if rational(expr):
                return label, name, sp.S.Zero, False
            continue
        if name == "radsimp+simplify" and simplify_failed and \
                _timeboxed(lambda: _radsimp_form(expr), seconds) in (None, expr):
            # expand_log and radsimp change nothing: this is simplify again, on the
            # expression simplify just failed on (from scratch, 11 of its 19 attempts on
            # the bundled paper, 1.6 s of CPU); or they ran out of the strategy's slice
            # (None), which the strategy would too: the last one, so nothing else is skipped
            continue
        t0 = time.process_time()
        r = _timeboxed(lambda: f(expr), seconds)
        if r is None:
            if time.process_time() - t0 >= seconds:
                return None, None, residual, True  # timed out: the strategies after this one are heavier still
            continue
        if r == 0:
            return label, name, sp.S.Zero, False
        if r.is_zero is True and not r.has(sp.Piecewise):
            return label + "+assumptions", name, sp.S.Zero, False
        residual = r
        simplify_failed = simplify_failed or name == "simplify"
    return None, None, residual, False


_WANT = {"positive", "negative", "nonnegative", "nonpositive", "nonzero"}


_SIGN_FORMS = ("as is", "together", "factor", "factor(together)", "cancel", "simplify")


def _sign_form(name):
    return {"as is": lambda e: e, "together": sp.together, "factor": sp.factor,
            "factor(together)": lambda e: sp.factor(sp.together(e)), "cancel": sp.cancel,
            "simplify": sp.simplify}[name]


def prove_sign(expr, want: str, facts: Facts = NO_FACTS, trace=None, at: str = "sign"):
    """True if expr's sign follows from the assumptions (and the `where` slacks).  With a
    trace, the forms tried are its options at this decision point (see zero_by)."""
    assert want in _WANT
    expr = sp.sympify(expr)
    forms = list(_SIGN_FORMS[:-1])
    if count_ops(expr) < 80:  # simplify is the slow last resort: only on small expressions
        forms.append("simplify")
    point = None
    if trace is not None:
        point = trace.point(f"{at}:{want}", expr, facts.key())
        forms = trace.options(point, forms)
    given = _given_hints(trace, point)
    memo_key = ("sign", want, expr, facts.key(), tuple(forms), _hints_key(given))
    if memo_key in _SEARCHED:
        name, found = _SEARCHED[memo_key]
    else:
        with hints.given(given):
            name, found = _prove_sign(expr, want, facts, forms)
        if len(_SEARCHED) > 4096:
            _SEARCHED.clear()
        _SEARCHED[memo_key] = (name, found)
    if name is not None and trace is not None:
        _won(trace, point, name, found)
    return name is not None


def _decides(r, want, facts) -> bool:
    """r has the wanted sign by sympy's assumptions or the facts (r as it is)."""
    if getattr(r, f"is_{want}") is True:
        return True
    if want == "positive":
        return facts.is_positive(r)
    if want == "negative":
        return facts.is_positive(-r)
    if want == "nonnegative":
        return facts.is_nonnegative(r)
    if want == "nonpositive":
        return facts.is_nonnegative(-r)
    return facts.is_positive(r) or facts.is_positive(-r)  # nonzero


def _prove_sign(expr, want, facts, forms):
    """(the name of the first form whose sign sympy decides, or None; the replay hints of
    the sign analysis of that form)."""
    seconds = SIGN_FORM_SECONDS

    def decide(r):
        return _decides(r, want, facts)

    for name in forms:
        f = _sign_form(name)
        t0 = time.process_time()
        with hints.collecting() as found:  # only the winning form's analysis is replayed
            ok = _timeboxed(lambda: decide(f(expr)), seconds)
        if ok:
            return name, found
        if ok is None and time.process_time() - t0 >= seconds and name != "as is":
            # timed out: the remaining forms are heavier.  Not after the expression as it
            # is: 1 - a/(a + b + c) costs the sign analysis 0.9 s and fails as it stands,
            # while together's (b + c)/(a + b + c) is decided in 0.1 s (the NLHF best
            # response's feasibility, which a machine a little slower lost)
            break
    return None, None


def facts_with_ends(domain, rep):
    """Facts from the domain's relations and its intervals' finite ends (pi - 1 < 0 for pi
    in (0, 1)), or None when the ends add nothing.  A second try only: the sign of a
    factor like pi - 1 is what splits log((pi - 1)/(r - 1)), but more slacks slow every
    other sign analysis."""
    ends = with_ends(domain)
    return Facts.from_relations(ends, rep) if len(ends) > len(domain.where) else None


def zero_by_then_ends(e, facts, domain, rep, trace=None, at: str = "zero"):
    """Is e identically 0?  zero_by(e, facts) but its slow strategies; then the exp/log
    normal form's zero test and the denesting of nested roots once more with the
    intervals' ends as facts (facts_with_ends; decision point `at`, with the ends: pi_ref < 1
    is what shows the sign of a denested root of (15)); then simplify (_SLOW_NAMES), which
    on the bundled paper spent its whole slice failing where the ends then decided at once.
    Returns (the name of the strategy that proved e = 0, or None; the residual of the tries
    without the ends)."""
    how, residual, stopped = _zero_search(e, facts, trace, at, _FAST_NAMES)
    if how:
        return how, residual
    if _transcendental(e) or _nested_roots(e):
        ends = facts_with_ends(domain, rep)
        if ends is not None:
            how = zero_by(e, ends, trace, at=at + ", with the ends", strategies=_EXP_LOG_NAMES + (_DENEST,))[0]
            if how:
                return f"{how}; with the intervals' ends", residual
    if stopped:
        return None, residual  # a cheaper strategy ran out of its slice: simplify would too
    how, slow_residual = zero_by(e, facts, trace, at=at, strategies=_SLOW_NAMES)
    return how, (slow_residual if slow_residual is not e else residual)


def assume(claim, extra: Domain | None = None):
    """Symbols with assumptions, and the facts implied by the `where` relations."""
    rep = claim.domain.assumption_symbols()
    relations = list(claim.domain.where)
    if extra is not None:
        rep.update(extra.assumption_symbols())
        relations += list(extra.where)
    return rep, Facts.from_relations(relations, rep)


def weakest(statuses):
    if any(s is None for s in statuses):
        return None
    if any(s == CERTIFIED for s in statuses):
        return CERTIFIED
    return PROVED


def is_linear(e, syms) -> bool:
    try:
        return sp.Poly(sp.expand(e), *syms).total_degree() <= 1
    except sp.PolynomialError:
        return False


# ------------------------------------------------------------------ methods
def with_ends(domain) -> list:
    """The domain's relations plus its intervals' finite ends as relations (ref < 1 for
    ref in (0, 1)): sympy's per-symbol assumptions keep only the sign, the slack 1 - ref
    > 0 is what sign analysis of (1 - ref) e^{-c} + ref e^{c} needs."""
    out = list(domain.where)
    for s, st in domain.sets.items():
        if not isinstance(st, sp.Interval):
            continue
        if st.end.is_finite:
            out.append(s < st.end if st.right_open else s <= st.end)
        if st.start.is_finite and st.start != 0:
            out.append(s > st.start if st.left_open else s >= st.start)
    return out


# tried in this order; certificates record a route by its name
_ZERO_ROUTES = ("zero", "zero with the ends", "zero, roots as symbols")
_SIGN_ROUTES = ("sign", "sign with the ends", "exp and roots as symbols", "affine ends", "monotone pairing",
                "log bounds", "monotone differences")


def decide_sign_goal(goal, seconds: float, trace=None):
    """(detail) if the goal holds by sympy, else None; never a refutation.  The routes are
    tried cheapest first; with a trace, only its options at this goal (one when replaying)."""
    rep = goal.domain.assumption_symbols()
    facts = Facts.from_relations(goal.domain.where, rep)
    # the interval ends as extra slacks: a second try only (more slacks make the log
    # relaxation's positivity checks slower, and it does not need them)
    facts_ends = facts_with_ends(goal.domain, rep)
    e = sp.sympify(goal.expr).xreplace(rep)
    routes = _ZERO_ROUTES if goal.want == "zero" else _SIGN_ROUTES
    point = None
    if trace is not None:
        point = trace.point(f"symbolic:{goal.want}", goal.expr, goal.domain.sets, goal.domain.where)
        routes = trace.options(point, routes)
    box = None
    try:
        with time_limit(seconds) as box:
            for route in routes:
                detail = _route(route, goal, e, rep, facts, facts_ends, seconds, trace)
                if detail:
                    if trace is not None:
                        trace.won(point, route)
                    return detail
    except TimeUp as exc:
        if exc.box is not box:
            raise
    except Exception:  # noqa: BLE001 - a sympy failure is 'not this way'
        return None
    return None


def _route(route, goal, e, rep, facts, facts_ends, seconds, trace):
    if route == "zero":
        how = zero_by(e, facts, trace, at="goal zero")[0]
        return f"sympy ({how})" if how else None
    if route == "zero with the ends":
        # the exp/log normal form needs the factors' signs: 1 - z > 0 for z in (0, 1) is
        # only known with the intervals' ends (the plain route used the where relations)
        if facts_ends is None or not _transcendental(e):
            return None
        how = zero_by(e, facts_ends, trace, at="goal zero, ends", strategies=_EXP_LOG_NAMES)[0]
        return f"sympy ({how}; with the intervals' ends)" if how else None
    if route == "zero, roots as symbols":
        # an identity for every positive value of sqrt(p (1 - p)) holds for its actual
        # value; as a positive symbol, log(exp(c/beta)) = c/beta is sympy's to see
        ab = _abstract_positive(e, facts_ends or facts, exps=False)
        if ab != e:
            how = zero_by(ab, facts, trace, at="goal zero, abstracted")[0]
            if how:
                return f"sympy ({how}; roots of positive bases as positive symbols)"
        return None
    if route == "sign":
        if not e.has(sp.log) and prove_sign(e, goal.want, facts, trace, at="goal sign"):
            return "sympy sign analysis"
        return None
    if route == "sign with the ends":
        if facts_ends is not None and not e.has(sp.log) and prove_sign(e, goal.want, facts_ends, trace,
                                                                        at="goal sign, ends"):
            return "sympy sign analysis (with the intervals' ends)"
        return None
    if route == "exp and roots as symbols":
        if e.has(sp.exp, sp.Pow):
            ff = facts_ends or facts
            ab = _abstract_positive(e, ff)
            if ab != e and not ab.has(sp.log) and prove_sign(ab, goal.want, ff, trace, at="goal sign, abstracted"):
                return ("sympy sign analysis, exp(real) and roots of positive bases "
                        "replaced by positive symbols")
        return None
    if route == "affine ends":
        return _affine_ends(sp.sympify(goal.expr), goal.want, goal.domain)
    if route == "log bounds":
        if e.has(sp.log) and goal.want in ("positive", "nonnegative"):
            relaxed = _relax_logs(e, facts)
            if relaxed is not None:
                if goal.want == "nonnegative" and zero_by(relaxed, facts, trace, at="log bound zero")[0]:
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound is identically 0"
                if prove_sign(relaxed, goal.want, facts, trace, at="log bound sign"):
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound's sign by sympy"
                inv = {v: k for k, v in rep.items()}
                ans = smt.check_goal(relaxed.xreplace(inv), goal.want, goal.domain, max(0.5, seconds / 2))
                if ans.verdict == "unsat":
                    return "log u <= u - 1 / log u >= 1 - 1/u; the bound by z3 (unsat)"
        return None
    if route == "monotone differences":
        # the sign routes above skip expressions with logs; here a log (or any) expression
        # with a difference f(A) - f(B) of a monotone f somewhere is given to sign analysis,
        # whose facts decide such differences (Facts._monotone_difference), with the ends
        # (the expression as it is, one slice: the other forms are the sign routes' to try)
        if _has_monotone_difference(e):
            ff = facts_ends or facts
            if _timeboxed(lambda: _monotone_decides(e, goal.want, ff), SIGN_FORM_SECONDS):
                return "sympy sign analysis: f(A) - f(B) has the sign of A - B for a monotone f"
        return None
    if route == "monotone pairing":
        if e.has(sp.log) and goal.want in ("positive", "nonnegative"):
            return _monotone_pairing(e, goal.want, facts_ends or facts, rep, goal.domain, seconds)
        return None
    raise ValueError(f"unknown symbolic route {route!r}")


def _logs_split_formally(e):
    """(e with every log(prod f_i^k_i) written sum k_i log(f_i), the bases f_i), or None.
    The product rule holds only where every base is positive: the caller proves that."""
    reps, bases = {}, set()
    for lg in e.atoms(sp.log):
        terms = []
        for f in sp.Mul.make_args(sp.together(lg.args[0])):
            base, k = f.as_base_exp()
            if not (k.is_number and k.is_real is True):
                return None
            bases.add(base)
            terms.append(k * sp.log(base))
        reps[lg] = sp.Add(*terms)
    return e.xreplace(reps), bases


def _monotone_pairing(e, want, facts, rep, domain, seconds):
    """e = sum_k c_k (A_k - B_k)(log A_k - log B_k) with c_k >= 0 (> 0 for a strict goal) and
    A_k, B_k > 0: log is strictly increasing, so every term is >= 0 and vanishes only where
    A_k = B_k.  Hence e >= 0; and e > 0 wherever sum_k (A_k - B_k)^2 > 0, which is then
    asked of z3 or sympy's sign analysis over the domain (KL(x || y) + KL(y || x) > 0 for
    x != y is this with c_k = 1).  The logs of e are split by the product rule first, every
    base proven positive; nothing but the paired logs may remain.  The pairing is found
    before any sign is proven, so an expression without this form is declined cheaply."""
    got = _logs_split_formally(e)
    if got is None:
        return None
    split, bases = got
    logs = list(sp.ordered({lg for lg in split.atoms(sp.log) if not lg.args[0].is_Number}))
    if len(logs) < 2:
        return None
    dummies = {lg: sp.Dummy() for lg in logs}
    poly = sp.expand(split.xreplace(dummies))
    coeffs = {}
    for lg, d in dummies.items():
        c = poly.coeff(d)
        if c.has(*dummies.values()):
            return None  # not linear in the logs
        coeffs[lg] = c
    rest = sp.expand(poly - sum(c * dummies[lg] for lg, c in coeffs.items()))
    if rest != 0:
        return None
    left = [lg for lg in logs if coeffs[lg] != 0]
    pairs = []
    while left:
        a = left.pop(0)
        for b in left:
            if sp.expand(coeffs[a] + coeffs[b]) == 0:
                left.remove(b)
                pairs.append((a.args[0], b.args[0], sp.cancel(coeffs[a] / (a.args[0] - b.args[0]))))
                break
        else:
            return None
    strict = want == "positive"
    need = "positive" if strict else "nonnegative"
    for A, B, k in pairs:
        if k.has(sp.log) or not (k.is_number and (k.is_positive if strict else k.is_nonnegative)
                                  or prove_sign(k, need, facts)):
            return None
    if not all(b.is_positive is True or facts.is_positive(b) for b in sp.ordered(bases)):
        return None  # the product rule (and every log of e) needs every base > 0
    if not strict:
        return (f"sum of {len(pairs)} terms c (A - B)(log A - log B), c >= 0, A, B > 0: each >= 0 "
                "(log is increasing)")
    total = sp.Add(*[(A - B) ** 2 for A, B, _ in pairs])
    inv = {v: k for k, v in rep.items()}
    if smt.check_goal(total.xreplace(inv), "positive", domain, max(0.5, seconds / 2)).verdict == "unsat":
        how = "z3 (unsat)"
    elif prove_sign(total, "positive", facts):
        how = "sympy"
    else:
        return None
    return (f"sum of {len(pairs)} terms c (A - B)(log A - log B), c > 0, A, B > 0: each >= 0 and 0 only "
            f"where A = B (log is strictly increasing), and sum (A - B)^2 > 0 on the domain by {how}")


def _monotone_decides(e, want, facts: Facts) -> bool:
    """e has the wanted sign as a product of factors whose signs are proven, a sum with a
    monotone difference by Facts._monotone_difference (not the whole slack analysis of
    Facts.is_positive, which a failing goal would spend its slice on), any other factor by
    Facts.  Strict signs only, except a non-negative sum."""
    if want in ("nonnegative", "nonpositive"):
        g = e if want == "nonnegative" else -e
        if isinstance(g, sp.Add) and facts._monotone_difference(g, 0, False):
            return True
        want = "positive" if want == "nonnegative" else "negative"
    sg = _strict_sign(e, facts)
    return sg != 0 and (want == "nonzero" or sg == (1 if want == "positive" else -1))


def _strict_sign(e, facts: Facts, depth=0) -> int:
    """+1 or -1 when e > 0 or e < 0 is proven (see _monotone_decides), else 0."""
    if e.is_number:
        return 1 if e.is_positive else (-1 if e.is_negative else 0)
    if depth > 4:
        return 0
    if isinstance(e, sp.Mul):
        sign = 1
        for f in e.args:
            sign *= _strict_sign(f, facts, depth + 1)
            if sign == 0:
                return 0
        return sign
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        sg = _strict_sign(e.base, facts, depth + 1)
        return sg if sg >= 0 or e.exp.is_odd else 1
    if isinstance(e, sp.Add) and _has_monotone_difference(e):
        if facts._monotone_difference(e, 1, True):
            return 1
        return -1 if facts._monotone_difference(-e, 1, True) else 0
    if facts._pos(e, 1):
        return 1
    return -1 if facts._pos(-e, 1) else 0


def _has_monotone_difference(e) -> bool:
    """e is a sum with two terms c f(A), -c f(B) for one monotone f (_monotone_parts; a
    number n counts as n f(1) for a power, n exp(0)), or a product with such a sum (or a
    power of one) among its factors: beta = (1/sqrt(u) - 1/sqrt(v))/(log p - log q).
    Only this shallow structure: a sum whose differences sit deeper (a derivative with
    log(x/r) inside) is the other routes' (failing on it costs the whole as-is analysis)."""
    for f in sp.Mul.make_args(e):
        base = f.base if isinstance(f, sp.Pow) else f
        if not isinstance(base, sp.Add):
            continue
        seen, numbers = set(), set()
        for t in base.args:
            if t.is_number:
                numbers.add(t)
                continue
            got = _monotone_parts(t)
            if got is None:
                continue
            if (got[0], -got[1]) in seen or got[0][0] in ("pow", "exp") and -got[1] in numbers:
                return True
            seen.add((got[0], got[1]))
        if numbers and any(k[0] in ("pow", "exp") and -cf in numbers for k, cf in seen):
            return True
    return False


def _abstract_positive(e, facts, exps=True):
    """e with every exp(u) of a real u, and every non-integer power of a base proven
    positive, replaced by a fresh positive symbol (equal sub-terms by the same one).  A
    sign that holds for *all* positive values of those symbols holds for e: the
    abstraction forgets relations (exp(a) exp(-a) = 1), never invents one."""
    memo = {}

    def walk(node):
        if node.is_Atom:
            return node
        if node in memo:
            return memo[node]
        args = [walk(a) for a in node.args]
        new = node.func(*args) if any(a is not b for a, b in zip(args, node.args)) else node
        out = new
        if exps and isinstance(new, sp.exp) and new.args[0].is_real is True:
            out = sp.Dummy("E", positive=True)
        elif isinstance(new, sp.Pow) and not new.exp.is_Integer and new.exp.is_real is True and (
                new.base.is_positive is True or facts.is_positive(new.base)):
            out = sp.Dummy("R", positive=True)
        memo[node] = out
        return out

    return walk(sp.sympify(e))


def _affine_ends(e, want, domain, depth=0):
    """e affine in a variable s ranging over a bounded interval [lo, hi] takes its extreme
    values at the ends: e has the wanted sign on the interval if it has it at s = lo and at
    s = hi (both ends included or not: a convex combination of two values of that sign).
    The ends are substituted exactly; relations that mention s are dropped (a superset)."""
    if depth > 1:
        return None
    for s, st in domain.sets.items():
        if not (isinstance(st, sp.Interval) and st.start.is_finite and st.end.is_finite) or not e.has(s):
            continue
        try:
            poly = sp.Poly(e, s)
        except sp.PolynomialError:
            continue
        if poly.degree() != 1 or any(c.has(s) for c in poly.all_coeffs()):
            continue
        sets = {k: v for k, v in domain.sets.items() if k != s}
        sub = Domain(sets, tuple(r for r in domain.where if not r.has(s)))
        rep = sub.assumption_symbols()
        facts = Facts.from_relations(with_ends(sub), rep)
        ok = True
        for end in (st.start, st.end):
            val = e.xreplace({s: end})
            if not (prove_sign(val.xreplace(rep), want, facts) or _affine_ends(val, want, sub, depth + 1)):
                ok = False
                break
        if ok:
            return f"affine in {s} on [{st.start}, {st.end}]: the sign at both ends by sympy"
    return None


def _relax_logs(e, facts):
    """A log-free lower bound of e, or None: e = r + sum c_k log u_k with every u_k > 0
    and every c_k of proven sign; c log u >= c (1 - 1/u) if c >= 0, >= c (u - 1) if c <= 0."""
    # log=False: expanding log(a/b) into log a - log b would separate terms whose
    # tangent bounds only cancel together (KL's p log(p/q) >= p - q)
    e = sp.expand(e, log=False)
    logs = list(sp.ordered(e.atoms(sp.log)))
    if not logs:
        return None
    out = e
    for lg in logs:
        if not facts.is_positive(lg.args[0]):
            if not prove_sign(lg.args[0], "positive", facts):
                return None
    dummies = {lg: sp.Dummy() for lg in logs}
    poly_e = e.xreplace(dummies)
    for lg, d in dummies.items():
        c = poly_e.coeff(d)
        if c.has(*dummies.values()) or sp.expand(poly_e - c * d).has(d):
            return None  # not linear in the logs
        u = lg.args[0]
        if c.is_nonnegative or prove_sign(c, "nonnegative", facts):
            bound = c * (1 - 1 / u)
        elif c.is_nonpositive or prove_sign(c, "nonpositive", facts):
            bound = c * (u - 1)
        else:
            return None
        poly_e = sp.expand(poly_e - c * d, log=False) + bound
    out = poly_e
    return None if out.has(sp.log) else out


class SymbolicBackend(Backend):
    """sympy sign analysis (never a refutation: a failed proof is only "unknown")."""

    name = "symbolic"

    def declines(self, goal):
        return None

    def decide(self, goal, seconds, trace=None):
        from . import Decision
        detail = decide_sign_goal(goal, seconds, trace)
        if detail:
            return Decision("holds", detail)
        return Decision("unknown", "not established")


SYMBOLIC = SymbolicBackend()
