"""verify-claims: a symbolic derivation verifier for mathematical papers.

Public surface for derivation modules (content):

    from verify_claims import Identity, Chain, Step, Inequality, Limit, Monotonic, \\
        Root, Stationary, Maximiser, Summary, Simulation, Ref, refuted, not_in_general, Notation, Narrowed
    from verify_claims.expectations import Categorical, iid, group_expectation
    from verify_claims.figures import Figure, Curve

and for scripts: ``verify(claim, Settings(...)) -> Result``, ``Status``, ``ExitCode``.

A derivation module is a file in a derivations directory that defines a module-level
list ``CLAIMS`` (and optionally ``UNCHECKABLE``: statements listed with the reason they
cannot be checked, never given a verdict); files whose name starts with ``_`` are helpers
and are not scanned.

The engine behind this surface is organised as: ``model`` (claims, domains, statuses,
results: declarations only), ``kinds`` (one module per claim kind: how it is falsified,
proved and certified), ``backends`` (sympy, z3, interval arithmetic, numeric evaluation,
one table of supported functions), ``engine`` (one claim's verification, goals, the
replayable trace), ``run`` (settings, collection, scheduling, the proof store and
committed certificates) and ``report`` (claims.json, HTML, LaTeX/PDF, figures, graph).
"""

__version__ = "0.2.0"

# name -> module that defines it: imported on first use, so that `import verify_claims.cli`
# (and a run answered from the proof store) does not pay for sympy
_EXPORTS = {
    **{n: "model.claims" for n in ("Identity", "Chain", "Step", "Inequality", "Limit", "Monotonic", "Root",
                                   "Stationary", "Maximiser", "Summary", "Simulation", "Uncheckable", "Ref", "Expect",
                                   "HOLDS", "refuted", "not_in_general", "Claim", "DeclarationError",
                                   "Narrowed")},
    "Notation": "model.notation",
    "Status": "model.status", "ExitCode": "model.status", "Settings": "run.settings", "verify": "engine.verify",
}

__all__ = list(_EXPORTS) + ["__version__"]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify_claims' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
