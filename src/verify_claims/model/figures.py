"""Figure declarations: what a derivation module says the paper plots.

A derivation module may declare a module-level list ``FIGURES`` of :class:`Figure`.  A
figure says *what* the paper plots: curves given by a closed form y = f(x; params), and,
independently, the stationarity condition F(y, x; params) = 0 that the closed form is
claimed to solve.  ``report.figures`` computes and draws it.

A figure with ``closed_form=None`` plots curves that have no closed form: each curve is the
numerical root of the stationarity condition, drawn as a line (and said to be computed
numerically).  Any figure may add :class:`Reference` lines: closed forms drawn dashed for
comparison, e.g. the paper's (14) and (15) beside finite-group curves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from .claims import Ref
from .domain import DeclarationError

__all__ = ["TOLERANCE", "Curve", "Figure", "Reference"]

TOLERANCE = 1e-8  # |closed form - numeric root| above this flags the figure
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _left_free(expr, subs: dict, keep: set) -> set:
    """The free symbols of expr with subs applied, other than `keep`.  Substituting numbers
    only removes symbols: when none would be left anyway the substitution (a tenth of a
    second of the loader's CPU for the bundled figures) is not made."""
    numbers = all(isinstance(v, sp.Basic) and not v.free_symbols for v in subs.values())
    if numbers and not expr.free_symbols - set(subs) - keep:
        return set()
    return expr.subs(subs).free_symbols - keep


@dataclass
class Curve:
    """One plotted curve: the closed form with these parameter values."""

    params: dict
    label: str = ""  # matplotlib mathtext, e.g. r"$\beta/\gamma = 1/2$"; default: the parameter values


@dataclass
class Reference:
    """A closed-form line y = expr(x; params) drawn dashed for comparison, not a curve of the
    figure.  ``matches``: the index (0-based) of a curve of the figure that this line is
    claimed to equal; it is then checked against that curve's numeric roots (e.g. (14)
    against the numerically computed curve at G = 2)."""

    expr: Any
    label: str  # matplotlib mathtext, shown in the legend
    params: dict = field(default_factory=dict)
    matches: int | None = None


@dataclass(kw_only=True)
class Figure:
    """A figure of the paper: y(x) from ``closed_form`` against the roots of ``stationarity``.

    ``closed_form`` is a sympy expression in ``x`` and the parameters; ``stationarity`` an
    expression in ``y``, ``x`` and the parameters whose zero in ``y_interval`` (open) is
    the plotted quantity.  ``uses`` names the claims that establish the closed form.

    ``closed_form=None``: the curves have no closed form; each is drawn through the
    numerical roots of ``stationarity`` (sums with a bound set by a parameter are written
    out term by term once the parameter has its value).  ``references``: closed-form lines
    drawn dashed (:class:`Reference`).
    """

    id: str
    title: str
    ref: Ref | str
    caption: str
    x: Any
    y: Any
    closed_form: Any  # None: the curves are computed numerically from `stationarity`
    stationarity: Any
    curves: list
    references: list = field(default_factory=list)
    x_label: str = "x"
    y_label: str = "y"
    x_range: tuple = (0, 1)
    y_interval: tuple = (0, 1)
    overlay: tuple = (0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95)
    diagonal: bool = True  # draw y = x for reference (pi_theta = pi_ref)
    uses: tuple = ()
    note: str = ""
    source: str = ""  # filled in by the loader
    notation = None  # the module's Notation, set by the loader: how the formulas are printed

    def __post_init__(self):
        self.uses = tuple(self.uses)
        self.curves = [c if isinstance(c, Curve) else Curve(**c) if isinstance(c, dict) else c
                       for c in self.curves]
        self.references = list(self.references)

    @property
    def numeric(self) -> bool:
        """True when the curves have no closed form and are computed numerically."""
        return self.closed_form is None

    def validate(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise DeclarationError(f"figure id {self.id!r} is not a slug (lowercase letters, digits, hyphens)")
        if not self.title or not str(self.ref):
            raise DeclarationError(f"figure {self.id!r}: needs a title and a paper reference")
        for name in ("x", "y"):
            if not isinstance(getattr(self, name), sp.Symbol):
                raise DeclarationError(f"figure {self.id!r}: {name} must be a sympy Symbol")
        if self.stationarity is None:
            raise DeclarationError(f"figure {self.id!r}: needs a stationarity condition"
                                   + (" (with closed_form=None the curves are its numeric roots)"
                                      if self.closed_form is None else ""))
        for name in ("closed_form", "stationarity") if not self.numeric else ("stationarity",):
            if not isinstance(getattr(self, name), sp.Basic):
                raise DeclarationError(f"figure {self.id!r}: {name} must be a sympy expression, "
                                       f"not {type(getattr(self, name)).__name__}")
        if not self.curves:
            raise DeclarationError(f"figure {self.id!r}: no curves")
        for i, c in enumerate(self.curves):
            if not isinstance(c, Curve) or not isinstance(c.params, dict):
                raise DeclarationError(f"figure {self.id!r}: curve {i} must be Curve(params={{symbol: value}})")
            subs = {k: sp.nsimplify(v) for k, v in c.params.items()}
            left = set() if self.numeric else _left_free(self.closed_form, subs, {self.x})
            if left:
                raise DeclarationError(f"figure {self.id!r}, curve {i}: closed form still has free symbols "
                                       f"{sorted(map(str, left))} (give them values in params)")
            left = _left_free(self.stationarity, subs, {self.x, self.y})
            if left:
                raise DeclarationError(f"figure {self.id!r}, curve {i}: stationarity condition still has "
                                       f"free symbols {sorted(map(str, left))}")
        for i, r in enumerate(self.references):
            if not isinstance(r, Reference) or not isinstance(r.params, dict):
                raise DeclarationError(f"figure {self.id!r}: reference {i} must be Reference(expr, label)")
            if not isinstance(r.expr, sp.Basic) or not r.label:
                raise DeclarationError(f"figure {self.id!r}, reference {i}: needs a sympy expression and a label")
            left = _left_free(sp.sympify(r.expr), {k: sp.nsimplify(v) for k, v in r.params.items()}, {self.x})
            if left:
                raise DeclarationError(f"figure {self.id!r}, reference {i} ({r.label}): still has free symbols "
                                       f"{sorted(map(str, left))}")
            if r.matches is not None and not (isinstance(r.matches, int) and 0 <= r.matches < len(self.curves)):
                raise DeclarationError(f"figure {self.id!r}, reference {i} ({r.label}): matches={r.matches!r} "
                                       f"is not the index of a curve")
        lo, hi = self.x_range
        if any(not (lo < float(v) < hi) for v in self.overlay):
            raise DeclarationError(f"figure {self.id!r}: overlay abscissae must lie inside x_range")
