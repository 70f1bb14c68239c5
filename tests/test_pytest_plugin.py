"""The pytest plugin (`pytest --verify-claims`), tested with pytest's own pytester: collection
and node ids, a pass, a failure with its counterexample, strict xfail both ways, a broken
module as a collection error, -k, --lf, pytest-xdist, and the proof store shared with the
CLI.  Small derivation directories; each run is a fresh pytester directory (its rootdir)."""

from __future__ import annotations

import importlib.metadata
import textwrap
import xml.etree.ElementTree as ET

import pytest

from verify_claims.cli import main

from _sample_claims import TRUE_CLAIMS, WRONG_CLAIM
from conftest import OTHER_PLUGINS_OFF

pytest_plugins = ["pytester"]

# three true claims, and a statement listed as not checkable
GOOD = TRUE_CLAIMS + '''
    from verify_claims import Uncheckable
    UNCHECKABLE = [Uncheckable(id="intent", ref=Ref("1"), statement="The authors' aim.",
                               reason="a statement of intent")]
'''
WRONG = WRONG_CLAIM

PAPER_ERRORS = '''
    import sympy as sp
    from verify_claims import Identity, refuted
    x, y = sp.symbols("x y")
    D = {x: sp.Interval(1, 2), y: sp.Interval(1, 2)}
    CLAIMS = [
        Identity(id="paper-drops-cross-term", title="The paper's identity", ref="4",
                 lhs=(x + y) ** 2, rhs=x ** 2 + y ** 2, domain=D,
                 expect=refuted("the paper drops the cross term")),
        Identity(id="paper-is-right-after-all", title="Not an error", ref="4",
                 lhs=(x + y) ** 2, rhs=x ** 2 + 2 * x * y + y ** 2, domain=D,
                 expect=refuted("wrongly expected refuted")),
    ]
'''

BROKEN = '''
    import sympy as sp
    CLAIMS = [undefined_name]
'''


@pytest.fixture
def derivations(pytester):
    def make(**modules):
        d = pytester.path / "derivations"
        d.mkdir(exist_ok=True)
        for name, src in modules.items():
            (d / f"{name}.py").write_text(textwrap.dedent(src), encoding="utf-8")
        return d
    return make


OTHERS_OFF = ("-p", "no:randomly", *OTHER_PLUGINS_OFF)


def _run(pytester, *args):
    # the plugin comes from the installed package's pytest11 entry point
    return pytester.runpytest_subprocess("--verify-claims", *OTHERS_OFF, *args)


def test_the_entry_point_is_registered():
    eps = importlib.metadata.entry_points(group="pytest11")
    assert any(ep.value == "verify_claims.pytest_plugin" for ep in eps)


def test_collects_one_item_per_claim_with_readable_node_ids(pytester, derivations):
    derivations(plg_good=GOOD, plg_wrong=WRONG)
    result = _run(pytester, "--co", "-q")
    result.stdout.fnmatch_lines(["derivations/plg_good.py::square-of-sum",
                                 "derivations/plg_good.py::amgm-bound",
                                 "derivations/plg_good.py::intent",
                                 "derivations/plg_wrong.py::dropped-cross-term"])
    assert result.ret == 0


def test_passes_and_fails_with_the_counterexample(pytester, derivations):
    derivations(plg_good=GOOD, plg_wrong=WRONG)
    result = _run(pytester, "-rs")
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    out = result.stdout.str()
    # the failure shows the status, the point and both sides with numbers, not a traceback
    result.stdout.fnmatch_lines(["*dropped-cross-term*refuted (expected: holds)*",
                                 "*counterexample (values differ)*", "*at x = *, y = *",
                                 "*lhs = [0-9]*", "*rhs = [0-9]*"])
    assert "Traceback" not in out
    result.stdout.fnmatch_lines(["*not checkable: a statement of intent*"])


def test_expected_refutations_are_strict_xfails(pytester, derivations):
    derivations(plg_paper=PAPER_ERRORS)
    result = _run(pytester, "-rxX")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*paper-is-right-after-all*", "[[]XPASS(strict)[]] expected refuted:*"])
    result.stdout.fnmatch_lines(["XFAIL*paper-drops-cross-term*the paper drops the cross term*"])


def test_a_broken_module_is_a_collection_error_naming_file_and_cause(pytester, derivations):
    derivations(plg_good=GOOD, plg_broken=BROKEN)
    result = _run(pytester)
    result.assert_outcomes(errors=1)  # as for any test file: a collection error stops the session
    result.stdout.fnmatch_lines(["*ERROR collecting derivations/plg_broken.py*",
                                 "plg_broken.py: failed to import: NameError*undefined_name*(line 3*"])
    assert "Traceback" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # and, when asked to, the other modules still run
    result = _run(pytester, "--continue-on-collection-errors")
    result.assert_outcomes(passed=3, skipped=1, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_keyword_selection(pytester, derivations):
    derivations(plg_good=GOOD, plg_wrong=WRONG)
    result = _run(pytester, "-k", "amgm or cross")
    result.assert_outcomes(passed=1, failed=1)
    result = _run(pytester, "-k", "amgm", "-m", "inequality")
    result.assert_outcomes(passed=1)


def test_last_failed_reruns_only_the_failure(pytester, derivations):
    derivations(plg_good=GOOD, plg_wrong=WRONG)
    _run(pytester).assert_outcomes(passed=3, failed=1, skipped=1)
    result = _run(pytester, "--lf")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*dropped-cross-term*"])


def test_exitfirst_stops_at_the_first_failure(pytester, derivations):
    derivations(plg_a_wrong=WRONG, plg_b_good=GOOD)
    result = _run(pytester, "-x")
    result.assert_outcomes(failed=1)


def test_xdist_gives_the_same_outcomes(pytester, derivations):
    pytest.importorskip("xdist")
    derivations(plg_good=GOOD, plg_wrong=WRONG, plg_paper=PAPER_ERRORS)
    result = _run(pytester, "-n", "2")
    result.assert_outcomes(passed=3, failed=2, skipped=1, xfailed=1)


def test_junitxml_and_the_store_shared_with_the_cli(pytester, derivations):
    d = derivations(plg_good=GOOD)
    # the CLI verifies first, into the store beside the default report directory
    code = main(["--derivations", str(d), "--report-dir", str(pytester.path / "reports"), "--no-html",
                 "--no-latex", "--jobs", "1", "--samples", "100", "-q"])
    assert code == 0
    result = _run(pytester, "--junitxml", "junit.xml")
    result.assert_outcomes(passed=3, skipped=1)
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    origins = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert origins["square-of-sum"]["origin"] == "store"
    assert origins["square-of-sum"]["status"] == "proved"
    # without the store, the same claim is verified again
    result = _run(pytester, "--junitxml", "junit2.xml", "--verify-claims-no-cache")
    cases = ET.parse(pytester.path / "junit2.xml").getroot().iter("testcase")
    origins = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert origins["square-of-sum"]["origin"] == "searched"


def test_inert_without_the_option(pytester, derivations):
    derivations(plg_good=GOOD)
    result = pytester.runpytest_subprocess("derivations", *OTHERS_OFF)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_configuration_from_pyproject(pytester, derivations):
    derivations(plg_wrong=WRONG)
    pytester.makefile(".toml", pyproject='[tool.verify-claims]\nderivations = "derivations"\nseed = 7\n')
    result = pytester.runpytest_subprocess("--verify-claims", *OTHERS_OFF)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["verify-claims: */derivations (seed 7,*"])
    pytester.makefile(".toml", pyproject='[tool.verify-claims]\nseeed = 7\n')
    result = pytester.runpytest_subprocess("--verify-claims", *OTHERS_OFF)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pyproject.toml*unknown key 'seeed' (did you mean 'seed'?)*"])
