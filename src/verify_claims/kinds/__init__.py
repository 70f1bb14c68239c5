"""One module per claim kind: how it is falsified, proved and certified (see ``base.Kind``)."""

from __future__ import annotations

from .base import Kind
from .chain import KIND as CHAIN
from .identity import KIND as IDENTITY
from .inequality import KIND as INEQUALITY
from .limit import KIND as LIMIT
from .maximiser import KIND as MAXIMISER
from .monotonic import KIND as MONOTONIC
from .root import KIND as ROOT
from .simulation import KIND as SIMULATION
from .stationary import KIND as STATIONARY

__all__ = ["Kind", "KINDS", "kind_of"]

KINDS = {k.name: k for k in (IDENTITY, CHAIN, INEQUALITY, LIMIT, MONOTONIC, ROOT, STATIONARY, MAXIMISER,
                              SIMULATION)}


def kind_of(claim) -> Kind:
    try:
        return KINDS[claim.kind]
    except KeyError:
        raise ValueError(f"claim {claim.id!r}: no verification for kind {claim.kind!r}") from None
