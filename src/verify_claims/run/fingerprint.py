"""Digests that need no sympy: files, directories, and the engine itself.

The engine's fingerprint is the hash of its own source (every module that can change a
verdict; the report renderers and the command line cannot) and of the versions of
everything it computes with, read from the installed distributions' metadata so that a
run answered from the store does not even import sympy.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import metadata
from pathlib import Path

__all__ = ["digest", "file_digest", "directory_digest", "engine_fingerprint", "content_fingerprint", "versions",
           "CONTENT_PACKAGES"]

# installed packages of content that derivation modules import (the formulas of GRPO): a
# change there changes claims without changing a file of the derivations directory
CONTENT_PACKAGES = ("grpo_formulas",)


def digest(*parts) -> str:
    """sha256 over strings/bytes (a key made of other keys)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


def file_digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def directory_digest(directory, pattern: str = "*.py", extra=()) -> str:
    """One digest of every matching file of a directory (names and contents) and extra files."""
    d = Path(directory)
    h = hashlib.sha256()
    for p in sorted(d.glob(pattern)) + [Path(x) for x in extra]:
        if p.is_file():
            h.update(p.name.encode() + b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


_ENGINE: dict = {}


def engine_fingerprint() -> str:
    """The engine's own source (every module that can change a verdict, not the report
    renderers) and the versions of everything it computes with."""
    if "fp" in _ENGINE:
        return _ENGINE["fp"]
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    h.update(repr(sorted(versions().items())).encode())
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(("report/", "cli.py", "__main__.py")):
            continue
        h.update(rel.encode() + b"\0" + p.read_bytes() + b"\0")
    _ENGINE["fp"] = h.hexdigest()
    return _ENGINE["fp"]


def content_fingerprint(packages=None) -> str:
    """The source of the content packages derivation modules may import (found without
    importing them), so that a whole-run snapshot or a listing kept in the store is not
    reused after one of them changed.  (Per-claim entries need no such help: they are
    keyed by the claims' expressions.)"""
    import importlib.util
    h = hashlib.sha256()
    for name in packages if packages is not None else CONTENT_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        h.update(name.encode() + b"\0")
        if spec is None:
            h.update(b"absent\0")
            continue
        roots = list(spec.submodule_search_locations or []) or [str(Path(spec.origin).parent)]
        for root in roots:
            for p in sorted(Path(root).rglob("*.py")):
                h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def versions() -> dict:
    """Versions of Python and of every package whose behaviour can change a verdict."""
    from .. import __version__
    out = {"verify_claims": __version__, "python": ".".join(map(str, sys.version_info[:3]))}
    for dist in ("sympy", "mpmath", "z3-solver", "python-flint"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover - declared dependencies
            out[dist] = "absent"
    return out
