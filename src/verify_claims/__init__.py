"""verify-claims: a symbolic derivation verifier for mathematical papers.

Public surface for derivation modules (content):

    from verify_claims import Identity, Chain, Step, Inequality, Limit, Monotonic, \
        Root, Stationary, Maximiser, Summary, Ref, refuted, not_in_general
    from verify_claims.expectations import Categorical, iid, group_expectation

A derivation module is a file in a derivations directory that defines a module-level
list ``CLAIMS`` (and optionally ``UNCHECKABLE``: statements listed with the reason they
cannot be checked, never given a verdict); files whose name starts with ``_`` are helpers
and are not scanned.
"""

from .claims import (HOLDS, Chain, Claim, DeclarationError, Expect, Identity, Inequality, Limit,
                     Maximiser, Monotonic, Ref, Root, Stationary, Step, Summary, Uncheckable,
                     not_in_general, refuted)

__version__ = "0.1.0"

__all__ = ["Identity", "Chain", "Step", "Inequality", "Limit", "Monotonic", "Root", "Stationary",
           "Maximiser", "Summary", "Uncheckable", "Ref", "Expect", "HOLDS", "refuted", "not_in_general",
           "Claim", "DeclarationError", "__version__"]
