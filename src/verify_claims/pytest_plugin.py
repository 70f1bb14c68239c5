"""The pytest plugin: `pytest --verify-claims[=DIR]` runs every claim as a test.

Registered through the ``pytest11`` entry point of the installed package; it does nothing
unless ``--verify-claims`` is given (importing it costs only pytest's own imports).

- Every derivation module of DIR (default: ``derivations`` of ``[tool.verify-claims]`` in
  pyproject.toml, else ``./derivations``) is a test file, every claim a test item with
  the node id ``DIR/module.py::claim-id``: ``-k``, ``-x``, ``--lf``, ``--co``,
  ``--junitxml`` and pytest-xdist work as for any test.
- A claim expected to hold passes when it is proved, certified, checked or (a simulation) simulated, and fails
  with its counterexample (the point and both sides) otherwise.  A claim expected to be
  refuted (a paper error, a "not in general" statement) is a strict xfail: refuted is
  XFAIL; established is XPASS(strict), a failure; an error or timeout is a failure.
- A module that does not import, or declares nothing, is a collection error naming the
  file and the cause; a malformed claim is a failing item; a statement listed as not
  checkable is a skipped item with its reason.
- Verdicts come from the same proof store as the CLI (``REPORT_DIR/.verify-claims-cache``
  unless ``cache-dir`` is configured), under the same keys: a claim the CLI verified is
  not verified again here, and the other way round.  Claims needing work are verified in
  a forked worker under the same CPU-time limit as the CLI's.

With no test paths on the command line only the claims are collected; with paths, the
claims are collected beside them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["ClaimItem", "DerivationFile"]

_STATE = pytest.StashKey()


def pytest_addoption(parser):
    group = parser.getgroup("verify-claims", "verify-claims: the claims of derivation modules as tests")
    group.addoption("--verify-claims", dest="verify_claims", nargs="?", const="", default=None, metavar="DIR",
                    help="collect every claim of the derivations directory DIR as a test (default: "
                         "[tool.verify-claims] derivations, else ./derivations); write --verify-claims=DIR "
                         "when test paths follow")
    group.addoption("--verify-claims-no-cache", dest="verify_claims_no_cache", action="store_true",
                    help="neither read nor write the verify-claims proof store")


def pytest_configure(config):
    value = config.getoption("verify_claims", None)
    if value is None:
        return
    from .config import ConfigError, load_config

    try:
        conf = load_config(start=config.rootpath)
    except ConfigError as exc:
        raise pytest.UsageError(f"verify-claims: {exc}") from None
    base = config.invocation_params.dir
    if value:
        directory = (Path(base) / value).resolve()
    elif conf.get("derivations"):
        directory = Path(conf.get("derivations"))
    else:
        directory = (Path(config.rootpath) / "derivations").resolve()
    if not directory.is_dir():
        raise pytest.UsageError(f"--verify-claims: the derivations directory {directory} does not exist "
                                "(give it: --verify-claims=DIR)")
    config.stash[_STATE] = _State(config, directory, conf)
    from .kinds import KINDS
    for kind in (*KINDS, "summary"):  # -m inequality, -m "not maximiser"
        config.addinivalue_line("markers", f"{kind}: a verify-claims claim of kind {kind}")
    source = getattr(config, "args_source", None)
    given = source is not None and source == config.ArgsSource.ARGS
    args = [a for a in config.args] if given else []
    covered = any(directory == Path(base, a.split("::")[0]).resolve() or
                  Path(base, a.split("::")[0]).resolve() in directory.parents for a in args)
    if not covered:
        args.append(str(directory))
    config.args[:] = args


def pytest_collect_file(file_path, parent):
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix != ".py" or file_path.name.startswith("_"):
        return None
    if file_path.resolve().parent != state.directory:
        return None
    return DerivationFile.from_parent(parent, path=file_path)


def pytest_report_header(config):
    state = config.stash.get(_STATE, None)
    if state is None:
        return None
    s = state.settings
    return (f"verify-claims: {state.directory} (seed {s.seed}, {s.samples} samples, {s.precision} digits, "
            f"timeout {s.timeout:g} s CPU); proof store: {state.cache_dir or 'not used'}")


class ClaimNotAsExpected(Exception):
    """A claim expected to hold that is not established (or an expected refutation that
    errored): the message is the counterexample or the cause."""


class ClaimRefuted(Exception):
    """An expected refutation, refuted: what the strict xfail marker expects."""


class _State:
    """Per pytest process (each xdist worker has its own): the loaded claims, the settings,
    the shared proof store, and the results obtained so far (a summary needs those of the
    claims it uses)."""

    def __init__(self, config, directory: Path, conf):
        from .run.settings import Settings
        from .run.store import Store

        self.directory = directory
        # the table's keys that are settings have the settings' own names (config.KEYS)
        fields = Settings.__dataclass_fields__
        self.settings = Settings(**{k: v for k, v in conf.values.items() if k in fields})
        if config.getoption("verify_claims_no_cache"):
            self.cache_dir = None
        elif conf.get("cache_dir"):
            self.cache_dir = Path(conf.get("cache_dir"))
        else:
            report_dir = Path(conf.get("report_dir") or Path(config.rootpath) / "reports")
            self.cache_dir = Store.beside(report_dir)
        self.store = Store(self.cache_dir) if self.cache_dir is not None else None
        self._loaded = None
        self._verifier = None
        self._results: dict = {}

    def loaded(self):
        if self._loaded is None:
            from .run.collect import load_derivations
            self._loaded = load_derivations(self.directory, import_timeout=self.settings.timeout,
                                            import_wall=self.settings.wall_limit)
        return self._loaded

    def verifier(self):
        if self._verifier is None:
            from .run.session import ClaimVerifier, RunOptions
            import verify_claims.engine.verify  # noqa: F401 - imported once here, inherited by forked workers
            options = RunOptions(derivations=self.directory, settings=self.settings, jobs=1, store=self.store)
            self._verifier = ClaimVerifier(options)
        return self._verifier

    def result_of(self, claim):
        if claim.id in self._results:
            return self._results[claim.id]
        if claim.kind == "summary":
            from .kinds.summary import verify_summary
            by_id = {c.id: c for c in self.loaded().claims}
            support = {u: self.result_of(by_id[u]) for u in claim.uses if u in by_id}
            res = verify_summary(claim, support)
            res.origin = "judged"
        else:
            verifier = self.verifier()
            res = verifier.lookup(claim)
            if res is None:
                from .run.schedule import run_claims
                res = run_claims([claim], self.settings, jobs=1,
                                 certificates=lambda c: verifier.replays.get(c.id))[0]
                verifier.finish(res)
        self._results[claim.id] = res
        return res


class DerivationFile(pytest.File):
    """A derivation module: its claims, in declaration order."""

    def collect(self):
        state = self.config.stash[_STATE]
        loaded = state.loaded()
        name = self.path.name
        broken = [p for p in loaded.problems if p.file == name and not p.claim]
        if broken:
            raise self.CollectError("; ".join(f"{name}: {p.cause}" for p in broken))
        for c in loaded.claims:
            if c.source == name:
                yield ClaimItem.from_parent(self, name=c.id, claim=c)
        for p in loaded.problems:
            if p.file == name and p.claim:
                yield ClaimItem.from_parent(self, name=p.claim, claim=None, problem=p.cause)
        for u in loaded.uncheckable:
            if u.source == name:
                yield UncheckableItem.from_parent(self, name=u.id, reason=u.reason)


class ClaimItem(pytest.Item):
    """One claim as a test."""

    def __init__(self, *, claim, problem: str = "", **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        self.problem = problem
        if claim is not None:
            self.add_marker(claim.kind)
            if not claim.expect.holds:
                self.add_marker(pytest.mark.xfail(strict=True, raises=ClaimRefuted,
                                                  reason=f"expected refuted: {claim.expect.reason}"))

    def runtest(self):
        if self.claim is None:
            raise ClaimNotAsExpected(f"{self.path.name} [{self.name}]: malformed declaration: {self.problem}")
        res = self.config.stash[_STATE].result_of(self.claim)
        self.user_properties += [("status", str(res.status)), ("origin", res.origin), ("method", res.method)]
        if res.narrowed:  # verified on a narrower domain than the paper states
            self.user_properties.append(("narrowed", res.narrowed.get("verified", "")))
        if res.as_expected and self.claim.expect.holds:
            return
        if res.as_expected:  # an expected refutation, refuted: the xfail marker takes it
            raise ClaimRefuted(res.failure_text())
        if not self.claim.expect.holds and res.status.established:
            return  # established although expected refuted: strict XPASS, a failure
        raise ClaimNotAsExpected(res.failure_text())

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (ClaimNotAsExpected, ClaimRefuted)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        kind = self.claim.kind if self.claim is not None else "malformed"
        return self.path, None, f"{self.path.name}::{self.name} ({kind})"


class UncheckableItem(pytest.Item):
    """A statement the module lists as not checkable: skipped, with the reason."""

    def __init__(self, *, reason: str, **kwargs):
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self):
        pytest.skip(f"not checkable: {self.reason}")

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name} (not checkable)"
