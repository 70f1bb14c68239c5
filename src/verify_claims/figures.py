"""Public: figure declarations for derivation modules (``FIGURES = [Figure(...)]``)."""

from .model.figures import TOLERANCE, Curve, Figure

__all__ = ["Figure", "Curve", "TOLERANCE"]
