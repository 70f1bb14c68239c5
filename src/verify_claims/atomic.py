"""Atomic file writes: write beside the target, then rename, so no reader ever sees a
half-written report (claims.json, report.html/.tex/.pdf, figures, the generated docs)."""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

__all__ = ["write_via", "write_text_atomic"]


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    # reading the umask means setting it: under a lock, as report.pdf is written from a
    # thread while report.html is written from the main one (cli._PdfBuilds)
    with _UMASK_LOCK:
        mask = os.umask(0o22)
        os.umask(mask)
    return mask


def write_via(write, path):
    """Call write(temp_path) for a temporary file beside `path`, then rename it onto `path`
    with ordinary permissions (mkstemp makes 0600); returns what `write` returned."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        res = write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
        return res
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(text, path, mode: str = "w") -> Path:
    """Write `text` (bytes with mode "wb") to `path` atomically."""
    def write(tmp):
        with open(tmp, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as fh:
            fh.write(text)
    write_via(write, path)
    return Path(path)
