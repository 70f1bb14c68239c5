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
           "CONTENT_PACKAGES", "function_fingerprint", "function_sources"]

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
    for dist in ("sympy", "mpmath", "z3-solver", "python-flint", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:  # pragma: no cover - declared dependencies
            out[dist] = "absent"
    return out


def function_sources(fn) -> list:
    """The source files a function's behaviour is keyed by: its whole defining package (every
    ``*.py`` under the top-level package directory that holds its file), or its file alone
    when that file is not in a package (a derivation module).

    Why the whole package and not the function's own source: the helpers a run function
    calls are found by name at run time, in its module or in sibling modules it imports
    (``from .groups import ...``); following calls statically would miss some (a helper
    passed as an argument, a module attribute looked up by name), hashing only the function
    would miss every helper.  A content package is small, so hashing all of it is cheap and
    sound for everything inside it; what lies outside (numpy, mpmath, Python) is keyed by
    its version (``versions()``, part of every store key through ``engine_fingerprint``)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"{fn!r} is not a plain Python function")
    path = Path(code.co_filename).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"the source of {getattr(fn, '__qualname__', fn)!r} ({path}) is not a file")
    if not (path.parent / "__init__.py").is_file():
        return [path]
    return sorted(_package_root(path).rglob("*.py"))


def _package_root(path: Path) -> Path:
    """The directory of the top-level package that holds the file `path`."""
    root = path.parent
    while (root.parent / "__init__.py").is_file():
        root = root.parent
    return root


def function_fingerprint(fn) -> str:
    """A digest of what a function computes, as far as its own code goes: its name and the
    source of its defining package (``function_sources``).  Changes when the function or a
    helper beside it changes; does not change between processes (no memory address, unlike
    repr).  The libraries it computes with are keyed by their versions in the store's keys:
    ``versions()`` (numpy included) is part of ``engine_fingerprint``, which every store key
    starts from; they are not part of this digest, so a declaration key (which committed
    certificates are matched by) stays the same on a machine with another numpy."""
    h = hashlib.sha256()
    h.update(f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}\0".encode())
    files = function_sources(fn)
    root = files[0].parent if len(files) == 1 else _package_root(Path(fn.__code__.co_filename).resolve())
    for p in files:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()
