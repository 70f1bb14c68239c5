"""The proof store and committed certificates: what was established is kept and reused,
keyed by content, replayed rather than trusted, and never fatal when damaged.

Small derivation directories, --samples 20; each test has its own report directory (the
store lives beside it)."""

from __future__ import annotations

import json
import textwrap

import pytest

from verify_claims.cli import main
from verify_claims.run.certificates import FILENAME

FAST = ("--samples", "20", "--jobs", "2", "--no-html", "--no-latex")

from test_cli import TRUE_CLAIMS as MODULE  # noqa: E402  (three true claims, one proof each)

OTHER = '''
    """A second module: edited by the tests."""
    import sympy as sp
    from verify_claims import Identity
    t = sp.Symbol("t")
    CLAIMS = [Identity(id="difference-of-squares", title="Difference of squares", ref="3",
                       lhs=t ** 2 - 1, rhs=(t - 1) * (t + 1), domain={t: sp.Interval(-2, 2)})]
'''


@pytest.fixture
def run(tmp_path, capsys):
    """run(dir, *args) -> (exit code, stdout, stderr, claims.json)."""

    def go(ddir, *args, report_dir=None):
        rdir = report_dir or tmp_path / "reports"
        code = main(["--derivations", str(ddir), "--report-dir", str(rdir), *FAST, *args])
        out, err = capsys.readouterr()
        return code, out, err, json.loads((rdir / "claims.json").read_text())

    return go


def origins(report):
    return {c["id"]: c["origin"] for c in report["claims"]}


def statuses(report):
    return {c["id"]: c["status"] for c in report["claims"]}


def test_an_unchanged_run_is_answered_from_the_store(write_modules, run, tmp_path):
    d = write_modules({"a.py": MODULE, "b.py": OTHER})
    code, out, err, first = run(d)
    assert code == 0 and set(origins(first).values()) == {"searched"}
    assert first["run"]["store"]["snapshot"] is False
    code, out, err, again = run(d)
    assert code == 0
    assert again["run"]["store"]["snapshot"] is True and "answered from the proof store" in out
    assert set(origins(again).values()) == {"store"}
    assert statuses(again) == statuses(first)
    # when it was established is kept, and said per claim
    est = {c["id"]: c["established_at"] for c in first["claims"]}
    assert est == {c["id"]: c["established_at"] for c in again["claims"]} and all(est.values())
    assert (tmp_path / "reports" / ".verify-claims-cache").is_dir()


def test_editing_one_claim_verifies_that_claim_only(write_modules, run):
    d = write_modules({"a.py": MODULE, "b.py": OTHER})
    run(d)
    # a different (still true) identity: only it is searched, the others come from the store
    (d / "b.py").write_text(textwrap.dedent(OTHER).replace("lhs=t ** 2 - 1, rhs=(t - 1) * (t + 1)",
                                                           "lhs=t ** 2 - 4, rhs=(t - 2) * (t + 2)"))
    code, out, err, report = run(d)
    assert code == 0
    assert origins(report) == {"square-of-sum": "store", "amgm-bound": "store", "exp-increasing": "store",
                               "difference-of-squares": "searched"}
    # a descriptive edit (the title) re-verifies nothing, and the report shows the new title
    (d / "a.py").write_text(textwrap.dedent(MODULE).replace('"AM-GM bound"', '"AM-GM, renamed"'))
    code, out, err, report = run(d)
    assert set(origins(report).values()) == {"store"}
    assert {c["id"]: c["title"] for c in report["claims"]}["amgm-bound"] == "AM-GM, renamed"


def test_a_wrong_edit_is_caught_not_served_from_the_store(write_modules, run):
    d = write_modules({"b.py": OTHER})
    assert run(d)[0] == 0
    (d / "b.py").write_text(textwrap.dedent(OTHER).replace("rhs=(t - 1) * (t + 1)", "rhs=(t - 1) * (t - 1)"))
    code, out, err, report = run(d)
    assert code == 1 and statuses(report) == {"difference-of-squares": "refuted"}
    assert report["claims"][0]["counterexample"]["type"] == "values differ"


def test_settings_that_change_verdicts_are_part_of_the_key(write_modules, run):
    d = write_modules({"b.py": OTHER})
    run(d)
    code, out, err, report = run(d, "--seed", "7")
    assert origins(report) == {"difference-of-squares": "searched"}
    assert report["run"]["seed"] == 7


def test_a_corrupt_store_entry_is_ignored_with_a_warning(write_modules, run, tmp_path):
    d = write_modules({"a.py": MODULE})
    run(d)
    store = tmp_path / "reports" / ".verify-claims-cache"
    entries = list((store / "claims").rglob("*.json"))
    assert len(entries) == 3
    for e in entries:
        e.write_text("{ not json")
    for snap in (store / "runs").rglob("*.json"):
        snap.write_bytes(b"\x00\xff garbage")
    code, out, err, report = run(d)
    assert code == 0 and "ignoring corrupt store entry" in err
    assert set(origins(report).values()) == {"searched"}
    assert statuses(report) == {"square-of-sum": "proved", "amgm-bound": "certified", "exp-increasing": "certified"}


def test_no_cache_and_cache_clear(write_modules, run, tmp_path):
    d = write_modules({"b.py": OTHER})
    store = tmp_path / "reports" / ".verify-claims-cache"
    code, out, err, report = run(d, "--no-cache")
    assert not store.exists() and report["run"]["store"]["used"] is False
    run(d)
    assert store.is_dir()
    code, out, err, report = run(d, "--cache-clear")
    assert "emptied the proof store" in out and origins(report) == {"difference-of-squares": "searched"}


def test_recheck_replays_instead_of_trusting(write_modules, run):
    d = write_modules({"a.py": MODULE})
    first = run(d)[3]
    code, out, err, report = run(d, "--recheck")
    assert code == 0 and set(origins(report).values()) == {"replayed"}
    assert statuses(report) == statuses(first)
    assert all(c["evidence"]["replay"]["result"] == "replayed" for c in report["claims"])


def test_committed_certificates_are_written_and_replayed(write_modules, run, tmp_path):
    d = write_modules({"a.py": MODULE})
    code, out, err, first = run(d, "--update-certificates")
    assert "certificates.json" in out
    data = json.loads((d / FILENAME).read_text())
    recs = data["claims"]
    assert set(recs) == {"square-of-sum", "amgm-bound", "exp-increasing"}
    assert recs["square-of-sum"]["status"] == "proved" and recs["square-of-sum"]["decisions"]
    # a fresh machine: no store, the committed certificates replayed
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "fresh")
    assert code == 0 and set(origins(report).values()) == {"replayed"}
    assert statuses(report) == statuses(first)
    # --no-certificates searches from scratch
    code, out, err, report = run(d, "--no-cache", "--no-certificates", report_dir=tmp_path / "scratch")
    assert set(origins(report).values()) == {"searched"}


def test_updating_after_a_replay_keeps_records_that_hold_all_it_used(write_modules, run, tmp_path):
    """A fresh clone's --update-certificates leaves the lockfile as it is: a record with a
    decision the replay never reaches (a failed alternative's, recorded by the search) is
    kept, not rewritten without it; a record that no longer replays is rewritten."""
    d = write_modules({"a.py": MODULE})
    run(d, "--update-certificates")
    data = json.loads((d / FILENAME).read_text())
    data["claims"]["square-of-sum"]["decisions"]["route A: f defined#00000000000000aa"] = "as is"
    data["claims"]["exp-increasing"]["decisions"] = {"lhs - rhs#0000000000000000": "simplify"}
    (d / FILENAME).write_text(json.dumps(data))
    code, out, err, report = run(d, "--no-cache", "--update-certificates", report_dir=tmp_path / "fresh")
    assert code == 0
    after = json.loads((d / FILENAME).read_text())["claims"]
    assert after["square-of-sum"] == data["claims"]["square-of-sum"]
    assert after["amgm-bound"] == data["claims"]["amgm-bound"]
    assert "lhs - rhs#0000000000000000" not in after["exp-increasing"]["decisions"]
    assert after["exp-increasing"]["decisions"]
    # a replay that reaches another method, and a search from scratch, write their own record
    data = json.loads((d / FILENAME).read_text())
    data["claims"]["amgm-bound"]["method"] = "an older engine's name for it"
    (d / FILENAME).write_text(json.dumps(data))
    run(d, "--no-cache", "--update-certificates", report_dir=tmp_path / "again")
    assert json.loads((d / FILENAME).read_text())["claims"]["amgm-bound"]["method"] != data["claims"]["amgm-bound"]["method"]
    run(d, "--no-cache", "--no-certificates", "--update-certificates", report_dir=tmp_path / "scratch")
    assert "route A: f defined#00000000000000aa" not in json.loads((d / FILENAME).read_text())["claims"]["square-of-sum"]["decisions"]


def test_updating_from_the_store_keeps_replayed_records_unless_certificates_are_ignored(write_modules, run):
    """The usual sequence: a run (filling the store from replays of the committed records),
    then `--update-certificates` answered from the store: the records stay as committed.
    With --no-certificates the run's own results are written, even replayed from the store."""
    d = write_modules({"a.py": MODULE})
    run(d, "--update-certificates")
    data = json.loads((d / FILENAME).read_text())
    extra = "route A: f defined#00000000000000aa"
    data["claims"]["square-of-sum"]["decisions"][extra] = "as is"
    (d / FILENAME).write_text(json.dumps(data))
    run(d, "--cache-clear")
    code, out, err, report = run(d, "--update-certificates")
    assert set(origins(report).values()) == {"store"}
    assert extra in json.loads((d / FILENAME).read_text())["claims"]["square-of-sum"]["decisions"]
    run(d, "--no-certificates")  # a search from scratch, stored; then replayed from the store
    code, out, err, report = run(d, "--no-certificates", "--recheck", "--update-certificates")
    assert set(origins(report).values()) == {"replayed"}
    assert extra not in json.loads((d / FILENAME).read_text())["claims"]["square-of-sum"]["decisions"]


def test_a_certificate_that_does_not_replay_is_reported_and_searched(write_modules, run, tmp_path):
    d = write_modules({"a.py": MODULE})
    run(d, "--update-certificates")
    data = json.loads((d / FILENAME).read_text())
    # a tampered record: it says proved, but its decisions lead nowhere
    data["claims"]["square-of-sum"]["decisions"] = {"lhs - rhs#0000000000000000": "simplify"}
    (d / FILENAME).write_text(json.dumps(data))
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "fresh")
    c = {c["id"]: c for c in report["claims"]}["square-of-sum"]
    assert code == 0 and c["status"] == "proved" and c["origin"] == "searched"
    assert c["evidence"]["replay"]["result"] == "failed" and "CERTIFICATE DID NOT REPLAY" in c["message"]
    assert "did not replay" in err


def test_a_certificate_never_passes_a_false_claim(write_modules, run, tmp_path):
    # a record claiming a proof of a false identity: falsify first refutes it anyway
    d = write_modules({"b.py": OTHER})
    run(d, "--update-certificates")
    (d / "b.py").write_text(textwrap.dedent(OTHER).replace("rhs=(t - 1) * (t + 1)", "rhs=(t - 1) * (t - 1)"))
    from verify_claims.run.collect import load_derivations
    from verify_claims.run.keys import declaration_key
    wrong = load_derivations(d).claims[0]
    data = json.loads((d / FILENAME).read_text())
    data["claims"]["difference-of-squares"]["declaration"] = declaration_key(wrong)  # forged to match
    (d / FILENAME).write_text(json.dumps(data))
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "fresh")
    assert code == 1 and statuses(report) == {"difference-of-squares": "refuted"}


def test_stale_and_unreadable_certificates(write_modules, run, tmp_path):
    d = write_modules({"b.py": OTHER})
    run(d, "--update-certificates")
    (d / "b.py").write_text(textwrap.dedent(OTHER).replace("t ** 2 - 1, rhs=(t - 1) * (t + 1)",
                                                           "t ** 2 - 9, rhs=(t - 3) * (t + 3)"))
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "fresh")
    assert code == 0 and origins(report) == {"difference-of-squares": "searched"}
    assert report["run"]["store"]["stale_certificates"] == ["difference-of-squares"]
    assert "no longer match" in out
    (d / FILENAME).write_text("[not the format")
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "again")
    assert code == 0 and "ignoring" in err and FILENAME in err


def test_list_comes_from_the_store_without_importing_modules(write_modules, tmp_path, capsys):
    marker = tmp_path / "imported"
    d = write_modules({"b.py": textwrap.dedent(OTHER) + f"\nopen({str(marker)!r}, 'a').write('x')\n"})
    argv = ["--derivations", str(d), "--report-dir", str(tmp_path / "reports"), "--list"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert marker.read_text() == "x"
    assert main(argv) == 0
    assert capsys.readouterr().out == first and marker.read_text() == "x"  # not imported again


def test_an_edited_content_package_invalidates_the_run_snapshot(tmp_path, monkeypatch):
    """Derivation modules import formulas from installed content packages (grpo_formulas): a
    change there changes claims while no file of the derivations directory changes, so the
    whole-run key must see it."""
    from verify_claims.run import fingerprint, session
    pkg = tmp_path / "site" / "mine_formulas"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "forms.py").write_text("def f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(fingerprint, "CONTENT_PACKAGES", ("mine_formulas",))
    d = tmp_path / "derivs"
    d.mkdir()
    (d / "m.py").write_text("CLAIMS = []\n")
    opts = session.RunOptions(derivations=d)
    before = session.run_keys(opts)
    assert session.run_keys(opts) == before
    (pkg / "forms.py").write_text("def f(x):\n    return x - 1\n")  # a sign error in the package
    after = session.run_keys(opts)
    assert after[1] != before[1]
    assert after[0] == before[0]  # the per-claim base key: claims are keyed by their expressions


CHECKED_ONLY = '''
    """A claim no sound method establishes here (certification switched off): *checked*."""
    import sympy as sp
    from verify_claims import Inequality
    x = sp.Symbol("x")
    CLAIMS = [Inequality(id="sine-below-identity", title="sin x < x", ref="1", lhs=sp.sin(x), op="<", rhs=x,
                         domain={x: sp.Interval.open(0, 3)}, certify_with="none")]
'''


def test_a_negative_certificate_is_searched_again_when_a_method_is_new(write_modules, run, tmp_path):
    """A record that says 'no sound method succeeded' lists the methods tried; a record
    written before one of today's methods existed is not trusted to skip the search."""
    d = write_modules({"c.py": CHECKED_ONLY})
    code, out, err, first = run(d, "--update-certificates")
    rec = json.loads((d / FILENAME).read_text())["claims"]["sine-below-identity"]
    assert rec["status"] == "checked" and "ball" in rec["methods"] and "switched off" in rec["reason"]
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "fresh")
    c = report["claims"][0]
    assert c["status"] == "checked" and c["evidence"]["replay"]["result"] == "search skipped"
    # the recorded reason is shown again (the README's list of claims left checked)
    assert "switched off" in c["evidence"]["certificate"]["reason"]
    assert "not searched again" in c["evidence"]["certificate"]["reason"]
    # the same record from an engine without the ball backend
    data = json.loads((d / FILENAME).read_text())
    data["claims"]["sine-below-identity"]["methods"] = ["symbolic", "smt", "interval"]
    (d / FILENAME).write_text(json.dumps(data))
    code, out, err, report = run(d, "--no-cache", report_dir=tmp_path / "older")
    c = report["claims"][0]
    assert c["status"] == "checked" and c["origin"] == "searched" and "replay" not in c["evidence"]


def test_a_replayed_negative_reason_is_written_back_unchanged():
    """Writing certificates from a run that replayed them must not grow the recorded reason
    ("... (as recorded by the search ...)" appended again at every regeneration)."""
    from types import SimpleNamespace

    from verify_claims.run.certificates import RECORDED_NOTE, Certificates

    res = SimpleNamespace(status="checked", kind="inequality", method="numeric spot-check (mpmath)",
                          evidence={"certificate": {"reason": "not smooth" + RECORDED_NOTE}})
    rec = Certificates.record(res, "decl")
    assert rec["reason"] == "not smooth"


def test_keys_and_decision_points_do_not_depend_on_how_an_equal_symbol_was_made():
    # Symbol("p", positive=True) == Symbol("p", positive=True, real=True): sympy's caches hand
    # out either object depending on what the process built before, so a digest of the
    # assumptions as given made a certificate recorded by the search fail to replay in another
    # process (kl0-on-policy-unbiased-derivation).  Digests follow sympy's equality.
    import sympy as sp
    from verify_claims import Identity
    from verify_claims.engine.context import Trace
    from verify_claims.run.keys import Hasher, declaration_key

    a, b = sp.Symbol("p", positive=True), sp.Symbol("p", positive=True, real=True)
    assert a == b and Hasher().expr(a + 1) == Hasher().expr(b + 1)
    assert Hasher().expr(a) != Hasher().expr(sp.Symbol("p", real=True))   # a different symbol
    assert Hasher().expr(a) != Hasher().expr(sp.Symbol("q", positive=True))
    one = Identity(id="same", title="t", ref="1", lhs=a * (a + 1), rhs=a**2 + a, domain={a: sp.Interval.open(0, 1)})
    two = Identity(id="same", title="t", ref="1", lhs=b * (b + 1), rhs=b**2 + b, domain={b: sp.Interval.open(0, 1)})
    assert declaration_key(one) == declaration_key(two)
    assert Trace().point("step", a + 1) == Trace().point("step", b + 1)


def test_a_warm_run_takes_its_report_from_the_store_with_this_runs_time(write_modules, tmp_path, capsys, monkeypatch):
    # the reports of an unchanged directory differ only in the run's start and duration: they
    # come from the store with those filled in, byte for byte what rendering them gives (from
    # the second warm run: the first one's claims say "from the store", the search's did not)
    import verify_claims.report.html as html
    import verify_claims.report.tex as tex

    d = write_modules({"a.py": MODULE})
    rdir = tmp_path / "reports"

    def go():
        assert main(["--derivations", str(d), "--report-dir", str(rdir), "--samples", "20", "--no-pdf"]) == 0
        capsys.readouterr()
        return json.loads((rdir / "claims.json").read_text())

    go()
    go()
    calls = []
    real_html, real_tex = html.render_html, tex.render_latex
    monkeypatch.setattr(html, "render_html", lambda *a, **k: calls.append("html") or real_html(*a, **k))
    monkeypatch.setattr(tex, "render_latex", lambda *a, **k: calls.append("tex") or real_tex(*a, **k))
    again = go()
    assert calls == []          # nothing rendered: report.html, report.tex and findings.tex from the store
    page, source = (rdir / "report.html").read_text(), (rdir / "report.tex").read_text()
    assert again["run"]["started"] in page and "VCRUNVOLATILE" not in page + source
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    monkeypatch.undo()
    html.write_html(again, fresh)             # no store: rendered now
    tex.write_latex(again, fresh)
    assert (fresh / "report.html").read_text() == page and (fresh / "report.tex").read_text() == source
    # a changed claim: rendered again
    monkeypatch.setattr(html, "render_html", lambda *a, **k: calls.append("html") or real_html(*a, **k))
    monkeypatch.setattr(tex, "render_latex", lambda *a, **k: calls.append("tex") or real_tex(*a, **k))
    write_modules({"a.py": MODULE.replace("Square of a sum", "Square of a sum, renamed")})
    go()
    assert calls.count("html") == 1 and calls.count("tex") == 2


def test_a_run_answered_from_the_store_imports_neither_sympy_nor_matplotlib(tmp_path, cli_env):
    """Every verdict, figure and report of an unchanged directory comes from the store, so
    the run needs none of the heavy libraries: about half of a warm run's time was importing
    sympy for the figures' module, whose drawings were in the store too.  The tiny report
    paper has a figure (SVG and PDF), a failing claim and a hostile title."""
    from _report_fixtures import MODULE as REPORT_MODULE
    from _report_fixtures import parent_imports

    d = tmp_path / "derivs"
    d.mkdir()
    (d / "s9_tiny.py").write_text(REPORT_MODULE, encoding="utf-8")
    heavy = [parent_imports(tmp_path, cli_env, d, tmp_path / "r", ("sympy", "mpmath", "matplotlib", "drawn-beside"))
             for _ in range(3)]  # a search, the first warm run, a warm run again
    # the search drew the figure (not vacuous), beside the loading of the derivations
    # (run/figures_beside.py); the claims and the figure's data were worked out in the child
    # that imported them, so the parent, which only prints the drawings, imported neither
    # sympy nor matplotlib
    assert heavy[0] == ["drawn-beside"], heavy[0]
    assert heavy[1:] == [[], []], heavy
    assert (tmp_path / "r" / "figures" / "fig-sqrt.pdf").is_file()
    assert "<svg" in (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
