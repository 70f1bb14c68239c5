"""The proof store: what was established is kept on disk, keyed by content.

A cache directory beside the report (``REPORT_DIR/.verify-claims-cache``, like pytest's
``.pytest_cache``; the report directory is ignored by git) holds two kinds of entries:

- ``claims/<key>.json``: one claim's result, under a key that changes whenever anything
  that can change its verdict changes (the claim's declaration, the engine's own source
  and the versions of everything it computes with, the settings that affect verdicts,
  the committed certificate it would replay).  An unchanged claim is not verified again.
- ``runs/<key>.json``: a whole run of a derivations directory, under a key made of every
  file of that directory, the engine and the settings.  When nothing changed, a run is
  answered from here without importing a single derivation module.
- ``artifacts/<key>``: report pieces that are expensive to make and a pure function of
  their input (a figure drawn by matplotlib, the dependency graph, report.pdf from the
  bytes of report.tex): an unchanged report is not typeset again.

Entries are written atomically.  A corrupt or unreadable entry is ignored with a
warning, never trusted and never fatal: the claim is verified again.
"""

from __future__ import annotations

import json
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..atomic import write_text_atomic

__all__ = ["Store", "FORMAT", "now_utc"]

FORMAT = 2  # bump when an entry's shape changes: older entries are then misses
DIRNAME = ".verify-claims-cache"


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    """Content-keyed entries under `root`.  read=False ignores what is there (--no-cache),
    write=False leaves it untouched."""

    def __init__(self, root, *, read: bool = True, write: bool = True, warn=None):
        self.root = Path(root)
        self.read, self.write = read, write
        self.warn = warn or (lambda msg: print(f"verify-claims: warning: {msg}", file=sys.stderr))
        self.hits = 0
        self.misses = 0

    @staticmethod
    def beside(report_dir) -> Path:
        return Path(report_dir) / DIRNAME

    def clear(self) -> None:
        if self.root.is_dir():
            shutil.rmtree(self.root)

    # ---------------------------------------------------------------- entries
    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json"

    def get(self, kind: str, key: str) -> dict | None:
        if not self.read:
            return None
        path = self._path(kind, key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError as exc:
            self.warn(f"ignoring unreadable store entry {path}: {exc}")
            self.misses += 1
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
                raise ValueError("not an entry of this store format")
        except ValueError as exc:
            self.warn(f"ignoring corrupt store entry {path} ({exc}); it will be verified again")
            self.misses += 1
            return None
        self.hits += 1
        return data

    def put(self, kind: str, key: str, entry: dict) -> None:
        if not self.write:
            return
        data = {"format": FORMAT, "key": key, **entry}
        try:
            write_text_atomic(json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":")) + "\n",
                              self._path(kind, key))
        except OSError as exc:
            self.warn(f"could not write the store entry {self._path(kind, key)}: {exc}")

    # ---------------------------------------------------------------- artifacts
    def get_blob(self, key: str) -> bytes | None:
        if not self.read:
            return None
        try:
            return self._path("artifacts", key).read_bytes()
        except OSError:
            return None

    def put_blob(self, key: str, data: bytes) -> None:
        if not self.write:
            return
        try:
            write_text_atomic(data, self._path("artifacts", key), mode="wb")
        except OSError as exc:
            self.warn(f"could not write the store entry {self._path('artifacts', key)}: {exc}")

    def cached(self, key: str, build) -> bytes:
        """build() -> bytes, kept under key (content-addressed: the key is a digest of the input)."""
        got = self.get_blob(key)
        if got is None:
            got = build()
            self.put_blob(key, got)
        return got
