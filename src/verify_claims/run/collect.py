"""Discover derivation modules by convention and collect their claims.

Convention (as pytest discovers tests): every ``*.py`` file in the derivations
directory whose name does not start with ``_`` is a derivation module and must define
a module-level list ``CLAIMS``, and may define ``UNCHECKABLE``: statements of the paper
that cannot be checked mechanically, listed with the reason (see ``claims.Uncheckable``).  ``_``-prefixed files are helpers the modules may
import (the directory is on ``sys.path`` while loading).  A module that fails to
import, or a malformed claim, becomes a *problem* naming the file, the claim and the
cause; everything else is still loaded.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import time
import traceback
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from ..model.claims import Claim, Uncheckable
from ..model.domain import DeclarationError
from ..model.result import Problem
from ..backends.timebox import TimeUp, time_limit

__all__ = ["Problem", "Loaded", "load_derivations", "SLOW_LOAD_SECONDS"]

# a module whose import and validation take longer than this is reported: declarations
# should build their expressions cheaply (or lazily), not run symbolic work at import
SLOW_LOAD_SECONDS = 0.5


@dataclass
class Loaded:
    directory: str
    modules: list = field(default_factory=list)  # (file, docstring first line, n claims)
    claims: list = field(default_factory=list)
    uncheckable: list = field(default_factory=list)  # Uncheckable, listed but never verified
    problems: list = field(default_factory=list)
    figures: list = field(default_factory=list)  # optional module-level FIGURES (figures.Figure)
    # CPU seconds each module took to import and validate: a derivation module should
    # declare, not compute (see slow_modules)
    load_seconds: dict = field(default_factory=dict)

    def slow_modules(self, threshold: float = SLOW_LOAD_SECONDS) -> list:
        """(file, seconds) of modules whose loading took more than `threshold` CPU seconds."""
        return sorted(((f, s) for f, s in self.load_seconds.items() if s > threshold), key=lambda x: -x[1])


class _FreshSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles the file from its source as it is now, never from a .pyc: the import system
    trusts a .pyc whose source has the same size and the same mtime in whole seconds, so a
    claim edited within the same second to a text of the same length (a script's edit, a
    checkout) would be verified as it was before the edit.  Nothing is written either."""

    def get_code(self, fullname):
        return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)


class _HelperFinder:
    """Finds the derivations directory's own top-level modules (its ``_*.py`` helpers) for
    the derivation modules that import them, loaded fresh as those are."""

    def __init__(self, directory: Path):
        self.directory = directory

    def find_spec(self, fullname, path=None, target=None):
        if path is not None or "." in fullname or (self.directory / fullname).is_dir():
            return None  # a submodule, or a package (left to the import system)
        file = self.directory / f"{fullname}.py"
        return _fresh_spec(fullname, file) if file.is_file() else None


def _fresh_spec(name: str, path: Path):
    return importlib.util.spec_from_file_location(name, path, loader=_FreshSourceLoader(name, str(path)))


def _import_file(path: Path):
    spec = _fresh_spec(f"_verify_claims_derivation_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cause(exc: BaseException, path: Path) -> str:
    """The exception and the innermost line of the derivation file that raised it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    where = f" (line {frames[-1].lineno}: {frames[-1].line})" if frames else ""
    if isinstance(exc, SyntaxError):
        where = f" (line {exc.lineno})"
        return f"syntax error: {exc.msg}{where}"
    return f"failed to import: {type(exc).__name__}: {exc}{where}"


def load_derivations(directory, import_timeout: float = 60.0, guard=None, import_wall: float | None = None,
                     files=None) -> Loaded:
    """Import every derivation module in `directory` and validate every claim (`files`: only
    the modules of these file names; what another module declares is then unknown).

    An import may use `import_timeout` seconds of CPU time and `import_wall` seconds of wall
    time (default ten times the CPU limit: only an import that blocks reaches it).

    `guard` (run.supervise.ImportGuard, in the supervised child): wraps each import so a
    hang in native code can be stopped from outside, and names the files to skip (their
    import was stopped before, with the cause)."""
    d = Path(directory).resolve()
    wall_net = 10 * import_timeout if import_wall is None else import_wall
    out = Loaded(directory=str(d))
    if not d.is_dir():
        raise FileNotFoundError(f"derivations directory {directory} does not exist")
    only = None if files is None else set(files)
    files = sorted(p for p in d.glob("*.py") if not p.name.startswith("_") and (only is None or p.name in only))
    sys.path.insert(0, str(d))
    finder = _HelperFinder(d)
    # helpers (_*.py) are cached in sys.modules by name; forget stale ones from another dir
    helpers = {p.stem for p in d.glob("_*.py")}
    for h in helpers:
        sys.modules.pop(h, None)
    try:
        # where the directory on sys.path would be searched: after the built-in and frozen
        # modules, which a file of the same name never replaced
        at = next((k for k, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder), len(sys.meta_path))
        sys.meta_path.insert(at, finder)
        seen: dict[str, str] = {}
        for path in files:
            rel = path.name
            if guard is not None and rel in guard.skip:
                out.problems.append(Problem(rel, None, guard.skip[rel]))
                continue
            t_module = time.process_time()
            cpu_box = wall_box = None
            watch = guard.importing(rel) if guard is not None else nullcontext()
            try:
                # CPU time, like every limit that can change an outcome (a loaded machine must
                # not turn a module into a problem); the wall clock, ten times looser, only
                # catches an import that blocks without computing
                with watch, time_limit(wall_net, clock="wall") as wall_box, \
                        time_limit(import_timeout, clock="cpu") as cpu_box:
                    module = _import_file(path)
            except TimeUp as exc:
                if exc.box is cpu_box:
                    why = f"import did not finish within {import_timeout:g} s of CPU time"
                elif exc.box is wall_box:
                    why = f"import did not finish within {wall_net:g} s (it blocks without computing)"
                else:
                    raise
                out.problems.append(Problem(rel, None, why))
                continue
            except BaseException as exc:  # noqa: BLE001 - any failure is the module's problem
                if isinstance(exc, KeyboardInterrupt):
                    raise
                out.problems.append(Problem(rel, None, _cause(exc, path)))
                continue
            claims = getattr(module, "CLAIMS", None)
            if claims is None:
                out.problems.append(Problem(rel, None, "defines no CLAIMS list (a derivation module "
                                                       "must; name helper files with a leading _)"))
                continue
            if not isinstance(claims, (list, tuple)):
                out.problems.append(Problem(rel, None, "CLAIMS must be a list of claims"))
                continue
            notation = _notation(module, rel, out)
            _collect_figures(module, rel, out, notation)
            doc = (module.__doc__ or "").strip().splitlines()
            out.modules.append((rel, doc[0] if doc else "", len(claims)))
            for c in claims:
                if not isinstance(c, Claim):
                    out.problems.append(Problem(rel, None, f"CLAIMS contains {type(c).__name__} {c!r:.60}, "
                                                           "not a claim (Identity, Inequality, ...)"))
                    continue
                c.source = rel
                c.notation = notation
                try:
                    c.validate()
                except DeclarationError as exc:
                    out.problems.append(Problem(rel, getattr(c, "id", None), str(exc)))
                    continue
                except Exception as exc:  # noqa: BLE001
                    out.problems.append(Problem(rel, getattr(c, "id", None),
                                                f"invalid declaration: {type(exc).__name__}: {exc}"))
                    continue
                if c.id in seen:
                    # reported as a file-level problem: the first declaration keeps the id
                    out.problems.append(Problem(rel, None, f"duplicate claim id {c.id!r}: already "
                                                           f"declared in {seen[c.id]}"))
                    continue
                seen[c.id] = rel
                out.claims.append(c)
            _collect_uncheckable(module, rel, seen, out)
            out.load_seconds[rel] = round(time.process_time() - t_module, 3)
        known = {c.id for c in out.claims}
        bad_ids = set()
        for c in out.claims:
            unknown = [u for u in c.uses if u not in known]
            if unknown:
                bad_ids.add(c.id)
                out.problems.append(Problem(c.source, c.id, f"`uses` names unknown claim id(s): "
                                                            f"{', '.join(unknown)}"))
            if c.id in c.uses:
                bad_ids.add(c.id)
                out.problems.append(Problem(c.source, c.id, "a claim cannot use itself"))
        cycle = _find_cycle(out.claims)
        if cycle:
            text = "`uses` forms a cycle: " + " -> ".join(i for i, _ in cycle)
            for cid, src in dict(cycle).items():
                bad_ids.add(cid)
                out.problems.append(Problem(src, cid, text))
        out.claims = [c for c in out.claims if c.id not in bad_ids]
    finally:
        # a module may have taken its directory off sys.path, or the finder off sys.meta_path
        for entries, entry in ((sys.meta_path, finder), (sys.path, str(d))):
            if entry in entries:
                entries.remove(entry)
    return out


def _notation(module, rel, out):
    """The module's NOTATION (display forms of its symbols), or None."""
    from ..model.notation import as_notation
    value = getattr(module, "NOTATION", None)
    if value is None:
        return None
    try:
        return as_notation(value)
    except (TypeError, DeclarationError) as exc:
        out.problems.append(Problem(rel, None, f"NOTATION: {exc} (the claims are verified and printed "
                                               "without it)"))
        return None


def _collect_uncheckable(module, rel, seen, out) -> None:
    entries = getattr(module, "UNCHECKABLE", [])
    if not isinstance(entries, (list, tuple)):
        out.problems.append(Problem(rel, None, "UNCHECKABLE must be a list of dicts (id, ref, statement, "
                                               "reason)"))
        return
    for d in entries:
        try:
            u = Uncheckable.from_declaration(d, rel)
        except DeclarationError as exc:
            out.problems.append(Problem(rel, d.get("id") if isinstance(d, dict) else None, str(exc)))
            continue
        if u.id in seen:
            out.problems.append(Problem(rel, None, f"duplicate claim id {u.id!r}: already declared in "
                                                   f"{seen[u.id]}"))
            continue
        seen[u.id] = rel
        out.uncheckable.append(u)


def _collect_figures(module, rel: str, out: Loaded, notation=None) -> None:
    """A module may also define FIGURES: figures the report reproduces (see figures.py)."""
    from ..model.figures import Figure

    figures = getattr(module, "FIGURES", None)
    if figures is None:
        return
    if not isinstance(figures, (list, tuple)):
        out.problems.append(Problem(rel, None, "FIGURES must be a list of figures"))
        return
    known = {f.id for f in out.figures}
    for f in figures:
        if not isinstance(f, Figure):
            out.problems.append(Problem(rel, None, f"FIGURES contains {type(f).__name__}, not a Figure"))
            continue
        f.source = rel
        f.notation = notation
        try:
            f.validate()
        except DeclarationError as exc:
            out.problems.append(Problem(rel, None, str(exc)))
            continue
        if f.id in known:
            out.problems.append(Problem(rel, None, f"duplicate figure id {f.id!r}"))
            continue
        known.add(f.id)
        out.figures.append(f)


def _find_cycle(claims):
    by_id = {c.id: c for c in claims}
    state: dict[str, int] = {}
    stack: list = []

    def visit(cid):
        state[cid] = 1
        stack.append(cid)
        for u in by_id[cid].uses:
            if u not in by_id or u == cid:
                continue
            if state.get(u) == 1:
                return stack[stack.index(u):] + [u]
            if u not in state:
                found = visit(u)
                if found:
                    return found
        stack.pop()
        state[cid] = 2
        return None

    for c in claims:
        if c.id not in state:
            found = visit(c.id)
            if found:
                return [(i, by_id[i].source) for i in found]
    return None
