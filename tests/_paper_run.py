"""The bundled paper verified once per test session, shared by every pytest-xdist worker.

test_bundled_paper checks one whole-paper run of the CLI (a fresh report directory: no
proof store yet, the committed certificates replayed, reports included).  The per-module
derivation tests pin the statuses of the same claims; when the session includes the
bundled paper's tests, they read those claims' results from that run's proof store
(``stored_result``) instead of verifying every claim a second time.  The store is keyed as
the CLI keys it (the claim's declaration, the engine, the settings), so a claim edited in
a test, or a deliberately wrong variant, misses and is verified on its own.

The first worker that needs the run makes it, under an exclusive lock on the session's
shared temporary directory; another that needs it meanwhile waits (the run's own worker
processes keep the cores busy).  A run that fails to produce results leaves every lookup a
miss: the claims are then verified one by one, as without sharing.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import traceback
from pathlib import Path

from verify_claims.cli import default_derivations, main

_DIR: Path | None = None
_OUTCOME = None
_VERIFIER = None


def enable(directory: Path) -> None:
    """Share the run through `directory` (the same path in every worker of the session)."""
    global _DIR
    _DIR = Path(directory)


def enabled() -> bool:
    return _DIR is not None


def outcome(directory: Path | None = None):
    """(exit code, claims.json, what the run printed, report directory) of the session's
    whole-paper run, made now if no worker has made it yet."""
    global _OUTCOME
    if _OUTCOME is not None:
        return _OUTCOME
    d = Path(directory) if directory is not None else _DIR
    d.mkdir(parents=True, exist_ok=True)
    out_dir, done = d / "report", d / "done.json"
    with open(d / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            buf = io.StringIO()
            try:
                with contextlib.redirect_stdout(buf):
                    code = main(["--derivations", str(default_derivations()), "--report-dir", str(out_dir), "-q"])
            except BaseException:
                done.write_text(json.dumps({"code": None, "stdout": buf.getvalue() + traceback.format_exc()}))
                raise
            done.write_text(json.dumps({"code": int(code), "stdout": buf.getvalue()}))
    info = json.loads(done.read_text())
    claims = out_dir / "claims.json"
    if info["code"] is None or not claims.is_file():
        raise RuntimeError(f"the shared whole-paper run failed:\n{info['stdout'][-3000:]}")
    _OUTCOME = (info["code"], json.loads(claims.read_text()), info["stdout"], out_dir)
    return _OUTCOME


def stored_result(claim):
    """The session run's result for this exact claim (its store entry), or None: sharing
    off, the run failed, or no entry under this claim's key (an edited claim, a variant)."""
    global _VERIFIER
    if _DIR is None:
        return None
    if _VERIFIER is None:
        from verify_claims.run.session import ClaimVerifier, RunOptions
        from verify_claims.run.settings import Settings
        from verify_claims.run.store import Store
        try:
            out_dir = outcome()[3]
        except RuntimeError:
            _VERIFIER = False
            return None
        # the settings and store of the CLI's run: its defaults, beside its report
        _VERIFIER = ClaimVerifier(RunOptions(derivations=default_derivations(), settings=Settings(),
                                             store=Store(Store.beside(out_dir), write=False)))
    if _VERIFIER is False:
        return None
    return _VERIFIER.lookup(claim)
