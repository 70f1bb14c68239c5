"""Public: figure declarations for derivation modules (``FIGURES = [Figure(...)]``)."""

from .model.figures import TOLERANCE, Curve, Figure, Reference

__all__ = ["TOLERANCE", "Curve", "Figure", "Reference"]
