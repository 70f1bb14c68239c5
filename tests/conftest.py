"""Shared test set-up: make ``verify_claims`` importable from a checkout, and small helpers.

The suite runs both against an installed package and from a source checkout
(``PYTHONPATH=src`` or nothing at all): if the package cannot be imported, ``src`` is
put on ``sys.path``.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

try:  # installed (pip install -e .) or PYTHONPATH=src
    import verify_claims  # noqa: F401
except ImportError:  # a bare checkout
    sys.path.insert(0, str(SRC))
    import verify_claims  # noqa: F401

# Where the environment says PYTHONDONTWRITEBYTECODE (this project's machines do), every
# Python process the suite starts -- the xdist workers, about a hundred runs of the command,
# pytest inside pytest -- would compile verify_claims and sympy's lazily imported modules
# again, and pytest would rewrite every test module's asserts again (4 s of each worker's
# collection).  The suite keeps that bytecode in its own cache directory instead, never
# beside the sources (the loader compiles derivation modules from their source anyway:
# run/collect.py).  Set before any worker or run starts, so that they inherit it.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    _PYCACHE = ROOT / ".pytest_cache" / "pycache"
    try:
        _PYCACHE.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only checkout: the suite runs without the cache
        pass
    else:
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
        sys.pycache_prefix, sys.dont_write_bytecode = str(_PYCACHE), False

# the runs the tests make in this process (the whole paper's, shared by the session) size
# sympy's caches as the command does (cli.SYMPY_CACHE_ENTRIES), when sympy is not imported
# yet; pytest-xdist's workers, started after this, inherit it
from verify_claims.cli import _size_sympy_cache  # noqa: E402

_size_sympy_cache()


# A suite started in the background of a shell without job control (`pytest &` in a script,
# some CI runners) inherits SIGINT ignored, and so would every run the tests start: the
# tests that press Ctrl-C on a run would then see it ignored.  They test what a terminal's
# Ctrl-C does, so the runs they start get the default disposition, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _pythonpath_env() -> dict:
    """Environment for a `python -m verify_claims` subprocess that finds the package."""
    env = dict(os.environ)
    pkg_parent = str(Path(verify_claims.__file__).resolve().parents[1])
    env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["NO_COLOR"] = "1"
    return env


@functools.cache
def bundled_paper_loaded():
    """derivations/ loaded once per test process (4 to 5 s of CPU each time), for the tests
    that only read its claims, problems and figures."""
    from verify_claims.run.collect import load_derivations
    return load_derivations(ROOT / "derivations")


# for the pytest processes tests start: plugins of other packages that may be installed beside
# pytest and have nothing to do with ours (hypothesis's alone is 1.5 s of import per process)
OTHER_PLUGINS_OFF = ("-p", "no:hypothesispytest", "-p", "no:benchmark")


@pytest.fixture
def cli_env():
    return _pythonpath_env()


@pytest.fixture
def write_modules(tmp_path):
    """write_modules({"name.py": source, ...}, sub="derivs") -> directory Path.

    Sources are dedented, so tests can write them as indented triple-quoted strings.
    """

    def write(files: dict, sub: str = "derivs") -> Path:
        d = tmp_path / sub
        d.mkdir(parents=True, exist_ok=True)
        for name, src in files.items():
            (d / name).write_text(textwrap.dedent(src), encoding="utf-8")
        return d

    return write


# The longest tests start first: the suite runs on every core (pytest-xdist), and a long test
# picked up last keeps one worker busy while the others idle.  Collection order otherwise.
_LONG_FIRST = ("test_bundled_paper.py", "test_load_independence.py", "test_hardening.py",
               "test_report_browser.py", "test_pytest_plugin.py")


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """Every test runs above one frame with room on CPython's frame stack, as the run's
    workers verify their claims (run/framestack.py): no frame chunk is mapped and unmapped
    per call where a test verifies in this process (about 5 % less CPU for those tests).
    Not for a test marked without_frame_room: a process it forks would inherit the room."""
    from verify_claims.run.framestack import with_frame_room

    if pyfuncitem.get_closest_marker("without_frame_room"):
        yield
        return
    test = pyfuncitem.obj
    pyfuncitem.obj = functools.wraps(test)(lambda **kwargs: with_frame_room(test, **kwargs))
    try:
        yield
    finally:
        pyfuncitem.obj = test


_SHARES_PAPER = pytest.StashKey[bool]()


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: only the tests that will run count
def pytest_collection_modifyitems(config, items):
    # the bundled paper's tests verify the whole paper once: the derivation tests then
    # read the same claims' results from that run (tests/_paper_run.py)
    config.stash[_SHARES_PAPER] = any(item.path.name == "test_bundled_paper.py" for item in items)

    def rank(item):
        name = item.path.name
        if name in _LONG_FIRST:
            return _LONG_FIRST.index(name)
        return len(_LONG_FIRST) + (0 if item.get_closest_marker("slow") else 1)
    items.sort(key=rank)


@pytest.fixture(scope="session", autouse=True)
def _shared_paper_run(request, tmp_path_factory):
    """Where the session's whole-paper run lives: one directory for every xdist worker
    (a worker's base temp is a subdirectory of the session's)."""
    if request.config.stash.get(_SHARES_PAPER, False):
        import _paper_run
        base = tmp_path_factory.getbasetemp()
        _paper_run.enable((base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "bundled-paper")
    yield
