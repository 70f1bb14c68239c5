"""Figure declarations: what a derivation module says the paper plots.

A derivation module may declare a module-level list ``FIGURES`` of :class:`Figure`.  A
figure says *what* the paper plots: curves given by a closed form y = f(x; params), and,
independently, the stationarity condition F(y, x; params) = 0 that the closed form is
claimed to solve.  ``report.figures`` computes and draws it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .claims import Ref
from .domain import DeclarationError

__all__ = ["Figure", "Curve", "TOLERANCE"]

TOLERANCE = 1e-8  # |closed form - numeric root| above this flags the figure
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class Curve:
    """One plotted curve: the closed form with these parameter values."""

    params: dict
    label: str = ""  # matplotlib mathtext, e.g. r"$\beta/\gamma = 1/2$"; default: the parameter values


@dataclass(kw_only=True)
class Figure:
    """A figure of the paper: y(x) from ``closed_form`` against the roots of ``stationarity``.

    ``closed_form`` is a sympy expression in ``x`` and the parameters; ``stationarity`` an
    expression in ``y``, ``x`` and the parameters whose zero in ``y_interval`` (open) is
    the plotted quantity.  ``uses`` names the claims that establish the closed form.
    """

    id: str
    title: str
    ref: Ref | str
    caption: str
    x: Any
    y: Any
    closed_form: Any
    stationarity: Any
    curves: list
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

    def validate(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise DeclarationError(f"figure id {self.id!r} is not a slug (lowercase letters, digits, hyphens)")
        if not self.title or not str(self.ref):
            raise DeclarationError(f"figure {self.id!r}: needs a title and a paper reference")
        for name in ("x", "y"):
            if not isinstance(getattr(self, name), sp.Symbol):
                raise DeclarationError(f"figure {self.id!r}: {name} must be a sympy Symbol")
        for name in ("closed_form", "stationarity"):
            if not isinstance(getattr(self, name), sp.Basic):
                raise DeclarationError(f"figure {self.id!r}: {name} must be a sympy expression, "
                                       f"not {type(getattr(self, name)).__name__}")
        if not self.curves:
            raise DeclarationError(f"figure {self.id!r}: no curves")
        for i, c in enumerate(self.curves):
            if not isinstance(c, Curve) or not isinstance(c.params, dict):
                raise DeclarationError(f"figure {self.id!r}: curve {i} must be Curve(params={{symbol: value}})")
            subs = {k: sp.nsimplify(v) for k, v in c.params.items()}
            left = self.closed_form.subs(subs).free_symbols - {self.x}
            if left:
                raise DeclarationError(f"figure {self.id!r}, curve {i}: closed form still has free symbols "
                                       f"{sorted(map(str, left))} (give them values in params)")
            left = self.stationarity.subs(subs).free_symbols - {self.x, self.y}
            if left:
                raise DeclarationError(f"figure {self.id!r}, curve {i}: stationarity condition still has "
                                       f"free symbols {sorted(map(str, left))}")
        lo, hi = self.x_range
        if any(not (lo < float(v) < hi) for v in self.overlay):
            raise DeclarationError(f"figure {self.id!r}: overlay abscissae must lie inside x_range")
