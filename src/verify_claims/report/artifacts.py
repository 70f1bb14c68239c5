"""Report pieces kept in the proof store, keyed by their input.

Drawing a figure with matplotlib, laying out the dependency graph and typesetting
report.pdf twice with pdflatex cost seconds, and each is a pure function of its input: the
figure's data, the graph's nodes, the bytes of report.tex and its figure PDFs.  They are
kept under a digest of that input and of the renderers' own source, so an unchanged
report is not drawn or typeset again, and any change draws it anew.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["cached", "renderer_fingerprint"]

_FP: dict = {}


def renderer_fingerprint() -> str:
    """The report renderers' source and templates (a change draws everything again)."""
    if "fp" not in _FP:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for p in sorted(list(root.glob("*.py")) + list((root / "templates").glob("*"))):
            h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
        try:
            from importlib import metadata
            h.update(metadata.version("matplotlib").encode())
        except Exception:  # noqa: BLE001 - no matplotlib: figures are not drawn anyway
            pass
        _FP["fp"] = h.hexdigest()
    return _FP["fp"]


def cached(cache, what: str, inputs, build) -> bytes:
    """build() -> bytes, from `cache` (a run.store.Store or None) when the same inputs
    were rendered before."""
    if cache is None:
        return build()
    h = hashlib.sha256()
    h.update(renderer_fingerprint().encode() + b"\0" + what.encode() + b"\0")
    h.update(inputs if isinstance(inputs, bytes) else json.dumps(inputs, sort_keys=True, default=str).encode())
    return cache.cached(h.hexdigest(), build)
