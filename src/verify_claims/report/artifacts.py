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
import re
from pathlib import Path

__all__ = ["cached", "cached_text", "drawing_input", "renderer_fingerprint", "stable_report"]

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


def drawing_input(figure: dict) -> dict:
    """A figure's data as the key of its drawing: without how long computing it took, which
    differs from run to run and is not drawn (with it, no figure was ever drawn from the store)."""
    return {k: v for k, v in figure.items() if k != "seconds"}


# what differs between two runs of an unchanged directory: when this run started and how long
# it took, and where each verdict came from (searched or replayed, then from the store).  The
# rendered reports are kept with these as tokens and the values filled in after.
_VOLATILE = ("started", "seconds")
_TOKEN = re.compile(r"VCRUN[A-Z]+?[0-9]*TOKEN")  # letters and digits only: no escaping changes one


def stable_report(report: dict) -> tuple:
    """(the report with its volatile values replaced by tokens, {token: value}): what a
    rendered report is kept under, so that a warm run, whose report differs from the last
    one only in those values, gets its HTML and TeX from the store.  Volatile: the run's
    start time and duration, each claim's origin (as the fields report.html shows:
    view.origin_fields), the header's count of origins, and run["store"], which no report
    shows."""
    from .view import origin_fields, origins_text

    run = {k: v for k, v in (report.get("run") or {}).items() if k != "store"}
    tokens = {}
    for k in _VOLATILE:
        if k in run:
            tok = f"VCRUNVOLATILE{k.upper()}TOKEN"
            tokens[tok] = run[k]
            run[k] = tok
    claims = []
    for i, claim in enumerate(report.get("claims") or []):
        c = {k: v for k, v in claim.items() if k != "origin"}
        if claim.get("origin"):  # whatever it is: a title "" is a token too
            for field, value in origin_fields(claim["origin"]).items():
                tok = f"VCRUN{field.replace('_', '').upper()}{i}TOKEN"  # VCRUNORIGINLABEL12TOKEN
                tokens[tok] = value
                c[field] = tok
        claims.append(c)
    if report.get("claims") is not None:
        tokens["VCRUNORIGINSTEXTTOKEN"] = origins_text(report["claims"])
        run["origins_text"] = "VCRUNORIGINSTEXTTOKEN"
    out = {**report, "run": run}
    if report.get("claims") is not None:
        out["claims"] = claims
    return out, tokens


def cached_text(cache, what: str, stable: dict, tokens: dict, extra, render, escape) -> str:
    """render() -> str (the report rendered from `stable`) from `cache` when rendered
    before from the same stable report and `extra`, with every token replaced by
    escape(str(value))."""
    text = cached(cache, what, {"report": stable, "extra": extra}, lambda: render().encode("utf-8")).decode("utf-8")
    if not tokens:
        return text
    # one pass for every token (two per claim): a replace() per token would read the page
    # hundreds of times; a token-like text that is not a token stays as it is
    filled = {tok: escape(str(value)) for tok, value in tokens.items()}
    return _TOKEN.sub(lambda m: filled.get(m.group(0), m.group(0)), text)
