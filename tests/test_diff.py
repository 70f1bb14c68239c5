"""`verify-claims diff`: what changed between two runs (report/diff.py).

Hand-made claims.json pairs, no verifier run: every kind of change, the weaker/stronger
judgement for claims expected to hold and expected refuted, the renderers (hostile titles
included) and the command's exit codes, --output and the previous run kept in the store."""

from __future__ import annotations

import copy
import json
import re

import pytest

from verify_claims.model.status import ExitCode
from verify_claims.report.diff import (
    InvalidReport,
    compare,
    diff_main,
    direction,
    load_run,
    md_escape,
    previous_run_path,
    remember_run,
    render_markdown,
    render_text,
)
from verify_claims.report.schema import SCHEMA


def claim(cid, status="proved", *, expected="holds", paper_error=False, title=None, source="s1_demo.py",
          as_expected=None):
    """One claim as claims.json records it; as_expected follows from status unless given."""
    if as_expected is None:
        as_expected = (status == "refuted") if expected == "refuted" else status in ("proved", "certified",
                                                                                     "checked")
    return {"id": cid, "title": title or f"Title of {cid}", "ref": "Eq. (1)", "kind": "identity",
            "source": source, "expected": expected, "expected_reason": "the paper is wrong" if paper_error else "",
            "paper_error": paper_error, "status": status, "as_expected": as_expected, "method": "m",
            "message": "", "counterexample": None, "uses": []}


def run(*claims, seed=1, exit_code=0, problems=(), uncheckable=(), versions=None):
    return {"schema": SCHEMA,
            "run": {"seed": seed, "samples": 100, "precision": 30, "timeout": 60.0, "exit_code": exit_code,
                    "versions": versions or {"sympy": "1.14.0"}},
            "certification": {}, "problems": list(problems), "claims": list(claims),
            "uncheckable": list(uncheckable), "figures": []}


BASE = run(claim("eq14-monotone", "certified", source="s2_3_1_binary_questions.py"),
           claim("kl-identity", "proved"),
           claim("clip-typo", "refuted", expected="refuted", paper_error=True),
           claim("sanity-refuted", "refuted", expected="refuted"))


def changed(**statuses):
    """BASE with the given claims' statuses replaced (as_expected recomputed)."""
    new = copy.deepcopy(BASE)
    for c in new["claims"]:
        key = c["id"].replace("-", "_")
        if key in statuses:
            c.update(claim(c["id"], statuses[key], expected=c["expected"], paper_error=c["paper_error"],
                           source=c["source"]))
    return new


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


# ------------------------------------------------------------------------ the judgement
@pytest.mark.parametrize("old,new,expected,want", [
    ("proved", "certified", "holds", "weaker"),
    ("certified", "checked", "holds", "weaker"),
    ("checked", "refuted", "holds", "weaker"),
    ("proved", "timeout", "holds", "weaker"),
    ("checked", "proved", "holds", "stronger"),
    ("error", "checked", "holds", "stronger"),
    ("undecided", "error", "holds", "different"),
    ("refuted", "undecided", "holds", "different"),
    ("refuted", "checked", "refuted", "weaker"),
    ("undecided", "refuted", "refuted", "stronger"),
    ("proved", "checked", "refuted", "different"),
    ("checked", "checked", "holds", "same"),
    ("proved", "no-such-status", "holds", "weaker"),
])
def test_direction(old, new, expected, want):
    assert direction(old, new, expected) == want


# ------------------------------------------------------------------------ compare
def test_identical_runs_are_empty():
    d = compare(BASE, copy.deepcopy(BASE), old_name="a.json", new_name="b.json")
    assert d.empty and not d.regressions
    assert render_text(d) == "No changes between a.json -> b.json.\n"
    assert render_markdown(d) == "No changes between a.json → b.json.\n"


def test_added_claim_is_listed_not_a_regression():
    new = copy.deepcopy(BASE)
    new["claims"].append(claim("brand-new", "checked", source="s9.py"))
    d = compare(BASE, new)
    assert [(c.id, c.status, c.source) for c in d.added] == [("brand-new", "checked", "s9.py")]
    assert not d.regressions and not d.empty
    assert re.search(r"^  ADDED +brand-new +checked  \(s9\.py\)$", render_text(d), re.MULTILINE)


def test_removed_claim_is_not_a_regression_unless_asked():
    new = copy.deepcopy(BASE)
    new["claims"] = [c for c in new["claims"] if c["id"] != "kl-identity"]
    d = compare(BASE, new)
    assert [c.id for c in d.removed] == ["kl-identity"] and d.regressions == []
    assert re.search(r"^  REMOVED +kl-identity +was proved  \(s1_demo\.py\)$", render_text(d), re.MULTILINE)
    assert "No regression." in render_text(d)

    strict = compare(BASE, new, fail_on_removed=True)
    assert [(r.id, r.reason) for r in strict.regressions] == [("kl-identity", "removed (was proved)")]
    assert "REGRESSION: 1 regression (kl-identity)" in render_text(strict)


@pytest.mark.parametrize("cid,old,new", [("kl_identity", "proved", "certified"),
                                         ("eq14_monotone", "certified", "checked"),
                                         ("eq14_monotone", "certified", "refuted")])
def test_weaker_is_a_regression(cid, old, new):
    d = compare(changed(**{cid: old}), changed(**{cid: new}))
    real = cid.replace("_", "-")
    assert [(c.id, c.old, c.new, c.direction) for c in d.status_changes] == [(real, old, new, "weaker")]
    assert [r.id for r in d.regressions] == [real]
    assert f"weaker ({old} -> {new})" in d.regressions[0].reason
    assert re.search(rf"^  WEAKER +{real} +{old} -> {new}  \(", render_text(d), re.MULTILINE)


def test_checked_to_refuted_is_weaker_and_not_as_expected():
    d = compare(changed(kl_identity="checked"), changed(kl_identity="refuted"))
    assert [c.id for c in d.weaker] == ["kl-identity"]
    assert [(c.id, c.new_status, c.now_as_expected) for c in d.not_as_expected] == [("kl-identity", "refuted",
                                                                                      False)]
    assert len(d.regressions) == 1  # one entry per claim, both reasons
    assert d.regressions[0].reason == "weaker (checked -> refuted); no longer as expected (refuted, expected holds)"


def test_the_example_line():
    d = compare(BASE, changed(eq14_monotone="checked"))
    assert "  WEAKER  eq14-monotone  certified -> checked  (s2_3_1_binary_questions.py)\n" in render_text(d)


def test_stronger_is_not_a_regression():
    d = compare(changed(eq14_monotone="checked"), BASE)
    assert [(c.id, c.direction) for c in d.status_changes] == [("eq14-monotone", "stronger")]
    assert d.regressions == [] and d.stronger and not d.weaker
    text = render_text(d)
    assert re.search(r"^  STRONGER +eq14-monotone +checked -> certified", text, re.MULTILINE)
    assert text.rstrip().endswith("No regression.")


def test_expected_refuted_claim_that_stops_being_refuted_is_a_regression():
    d = compare(BASE, changed(clip_typo="checked"))
    assert [(c.id, c.direction) for c in d.status_changes] == [("clip-typo", "weaker")]
    assert [c.id for c in d.not_as_expected] == ["clip-typo"]
    assert [r.id for r in d.regressions] == ["clip-typo"]
    # it was a finding (a paper error refuted): the finding is lost, and says what became of it
    assert [(f.id, f.detail) for f in d.findings_lost] == [("clip-typo", "now checked")]
    text = render_text(d)
    assert re.search(r"WEAKER +clip-typo +refuted -> checked \(expected refuted\)", text)
    assert re.search(r"LOST FINDING +clip-typo +now checked", text)


def test_expected_refuted_claim_that_becomes_refuted_is_stronger_and_a_new_finding():
    d = compare(changed(clip_typo="undecided", sanity_refuted="checked"), BASE)
    assert {c.id: c.direction for c in d.status_changes} == {"clip-typo": "stronger", "sanity-refuted": "stronger"}
    assert sorted(c.id for c in d.as_expected) == ["clip-typo", "sanity-refuted"]
    assert d.regressions == []
    # only the paper error is a finding; sanity-refuted is expected refuted but no paper error
    assert [(f.id, f.where, f.detail) for f in d.findings_new] == [("clip-typo", "claim", "the paper is wrong")]


def test_as_expected_flip_without_a_status_change_is_a_regression():
    new = copy.deepcopy(BASE)
    c = next(c for c in new["claims"] if c["id"] == "kl-identity")
    c.update(expected="refuted", as_expected=False)  # the declaration changed: now expected refuted
    d = compare(BASE, new)
    assert d.status_changes == []
    assert [(x.id, x.now_as_expected) for x in d.not_as_expected] == [("kl-identity", False)]
    assert [(r.id, r.reason) for r in d.regressions] == [
        ("kl-identity", "no longer as expected (proved, expected refuted)")]
    assert re.search(r"^  UNEXPECTED +kl-identity +proved -> proved, expected refuted", render_text(d), re.MULTILINE)

    back = compare(new, BASE)
    assert [x.id for x in back.as_expected] == ["kl-identity"] and back.regressions == []
    assert re.search(r"^  EXPECTED +kl-identity", render_text(back), re.MULTILINE)


def test_findings_from_uncheckable_entries_and_removed_claims():
    typo = {"id": "pi-typo", "ref": "2.3", "statement": "pi(q | q) is meant to be pi(a | q)", "reason": "typo",
            "finding": "typo", "source": "s2.py"}
    old = copy.deepcopy(BASE)
    new = copy.deepcopy(BASE)
    new["uncheckable"] = [typo]
    d = compare(old, new)
    assert [(f.id, f.where, f.detail) for f in d.findings_new] == [("pi-typo", "uncheckable", "typo")]
    assert re.search(r"NEW FINDING +pi-typo +uncheckable: typo  \(s2\.py\)", render_text(d))

    cleared = copy.deepcopy(new)
    cleared["uncheckable"][0]["finding"] = ""
    assert [(f.id, f.detail) for f in compare(new, cleared).findings_lost] == [("pi-typo", "no longer a finding")]
    gone = copy.deepcopy(new)
    gone["uncheckable"] = []
    gone["claims"] = [c for c in gone["claims"] if c["id"] != "clip-typo"]
    lost = compare(new, gone).findings_lost
    assert [(f.id, f.detail) for f in lost] == [("clip-typo", "claim removed"), ("pi-typo", "no longer listed")]


def test_run_level_facts_and_problems():
    broken = {"file": "s3.py", "claim": "", "cause": "ImportError: no module named foo"}
    fixed = {"file": "s1.py", "claim": "x", "cause": "old failure"}
    old = run(*copy.deepcopy(BASE["claims"]), seed=1, exit_code=0, problems=[fixed])
    new = run(*copy.deepcopy(BASE["claims"]), seed=2, exit_code=1, problems=[broken],
              versions={"sympy": "1.15.0"})
    d = compare(old, new)
    assert [(f.name, f.old, f.new) for f in d.settings] == [("seed", 1, 2), ("sympy version", "1.14.0", "1.15.0")]
    assert (d.exit_code.old, d.exit_code.new) == (0, 1)
    # the wall-clock net is a setting too; a report from before --wall-limit does not state it
    tight = copy.deepcopy(new)
    tight["run"]["wall_limit"] = 5.0
    assert [(f.name, f.old, f.new) for f in compare(new, tight).settings] == []
    loose = copy.deepcopy(tight)
    loose["run"]["wall_limit"] = 600.0
    assert [(f.name, f.old, f.new) for f in compare(tight, loose).settings] == [("wall_limit", 5.0, 600.0)]
    assert [p.file for p in d.problems_added] == ["s3.py"] and [p.file for p in d.problems_removed] == ["s1.py"]
    # a module that breaks drops its claims (not a regression alone): the problem itself is one
    assert [(r.id, r.reason) for r in d.regressions] == [("s3.py", "new problem: ImportError: no module named foo")]
    text = render_text(d)
    for pattern in (r"PROBLEM\+ +s3\.py +ImportError", r"PROBLEM- +s1\.py +x: old failure",
                    r"SETTING +seed +1 -> 2", r"RUN +exit code +0 -> 1"):
        assert re.search(pattern, text), pattern
    assert "exit code 0 -> 1" in text.splitlines()[1]


def test_counts_headline():
    new = changed(kl_identity="certified", eq14_monotone="proved")
    new["claims"].append(claim("extra"))
    d = compare(BASE, new)
    assert render_text(d).splitlines()[1] == "1 weaker, 1 stronger, 1 added"
    md = render_markdown(d)
    assert md.startswith("### verify-claims diff: 1 regression\n")
    assert "**1 weaker** · 1 stronger · 1 added" in md
    assert "#### Got weaker (1)" in md and "#### Got stronger (1)" in md and "#### Added (1)" in md
    assert "| kl-identity | Title of kl-identity | proved | certified | s1\\_demo.py |" in md


def test_colour_only_when_asked():
    d = compare(BASE, changed(kl_identity="checked"))
    assert "\033[" not in render_text(d)
    coloured = render_text(d, colour=True)
    assert "\033[31mWEAKER" in coloured and "\033[31mREGRESSION" in coloured


# ------------------------------------------------------------------------ hostile text
HOSTILE = "Evil | title `code` <script>alert(1)</script> **bold** [x](http://e) @someone\nsecond | row"


def test_markdown_escapes_a_hostile_title_and_id():
    new = copy.deepcopy(BASE)
    new["claims"].append(claim("id|with`tick", "proved", title=HOSTILE, source="s<b>.py"))
    md = render_markdown(compare(BASE, new))
    assert "<script" not in md and "<b>" not in md and "&lt;script&gt;" in md
    row = next(line for line in md.splitlines() if "Evil" in line)
    # five columns: six unescaped pipes, however many the title and id carry
    assert len(re.findall(r"(?<!\\)\|", row)) == 6
    assert re.search(r"(?<!\\)`", row) is None  # no code span can open
    assert "id\\|with\\`tick" in row and "Evil \\| title \\`code\\`" in row
    assert "\\*\\*bold\\*\\* \\[x\\](http://e)" in row
    assert "@\u200bsomeone" in row  # no @-mention from a title
    assert "second \\| row" in row  # the newline did not end the row
    assert md.count("\n| ") == 2  # the header and one data row (the separator starts with "|-")


def test_md_escape_truncates_and_flattens():
    assert md_escape("a\r\nb\tc\x1b[31m") == "a  b c \\[31m"
    assert md_escape("x" * 500, limit=10) == "x" * 9 + "…"
    assert md_escape("a\\b") == "a\\\\b"


def test_text_neutralises_control_characters():
    new = copy.deepcopy(BASE)
    new["claims"].append(claim("evil\x1b[2J\nFAKE  line", "proved", source="s\u202e.py"))
    text = render_text(compare(BASE, new))
    assert "\x1b" not in text and "\u202e" not in text
    assert "evil\\x1b[2J\\x0aFAKE  line" in text and "s\\u202e.py" in text
    assert not any(line.startswith("FAKE") for line in text.splitlines())


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize("data,msg", [
    ([1, 2], "the JSON is an array, not an object"),
    ({"schema": SCHEMA}, 'it has no "claims" list'),
    ({"claims": {"a": 1}}, '"claims" is an object, not a list'),
    ({"claims": ["a"]}, "claims[0] is a string, not an object"),
    ({"claims": [{"title": "no id"}]}, 'claims[0] has no string "id"'),
    ({"claims": [{"id": "a"}, {"id": "a"}]}, "claim id 'a' appears twice"),
    ({"claims": [], "uncheckable": "x"}, '"uncheckable" is a string, not a list'),
    ({"claims": [], "run": []}, '"run" is an array, not an object'),
])
def test_not_a_claims_json(data, msg):
    with pytest.raises(InvalidReport, match=re.escape(f"x.json is not a claims.json: {msg}")):
        compare(data, BASE, old_name="x.json")


def test_load_run_messages(tmp_path):
    with pytest.raises(InvalidReport, match=r"nope\.json does not exist: run it$"):
        load_run(tmp_path / "nope.json", missing_hint="run it")
    with pytest.raises(InvalidReport, match=r"bad\.json is not valid JSON \(line 1, column 2"):
        load_run(write(tmp_path / "bad.json", "{oops"))
    with pytest.raises(InvalidReport, match=r"empty\.json is empty"):
        load_run(write(tmp_path / "empty.json", "  \n"))
    with pytest.raises(InvalidReport, match="is a directory"):
        load_run(tmp_path)
    warnings = []
    other = dict(BASE, schema="verify-claims/9")
    assert load_run(write(tmp_path / "other.json", other), warn=warnings.append)["claims"] == BASE["claims"]
    assert warnings == [f"{tmp_path / 'other.json'} has schema 'verify-claims/9', not {SCHEMA!r}: comparing anyway"]


# ------------------------------------------------------------------------ the command
def test_main_exit_codes_two_files(tmp_path, capsys):
    a = write(tmp_path / "a.json", BASE)
    same = write(tmp_path / "same.json", BASE)
    weaker = write(tmp_path / "weaker.json", changed(kl_identity="checked"))
    assert diff_main([str(a), str(same)]) == ExitCode.OK
    assert capsys.readouterr().out == f"No changes between {a} -> {same}.\n"
    assert diff_main([str(a), str(weaker)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert re.search(r"WEAKER +kl-identity +proved -> checked", out) and "REGRESSION: 1 regression" in out
    assert diff_main([str(weaker), str(a)]) == ExitCode.OK  # stronger


def test_main_fail_on_removed(tmp_path, capsys):
    a = write(tmp_path / "a.json", BASE)
    fewer = write(tmp_path / "fewer.json", run(*BASE["claims"][1:]))
    assert diff_main([str(a), str(fewer)]) == ExitCode.OK
    assert diff_main([str(a), str(fewer), "--fail-on-removed"]) == ExitCode.FAILED
    assert "REGRESSION: 1 regression (eq14-monotone)" in capsys.readouterr().out


def test_main_usage_errors(tmp_path, capsys):
    a = write(tmp_path / "a.json", BASE)
    rdir = tmp_path / "reports"
    assert diff_main([str(a), "--report-dir", str(rdir)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"{rdir / 'claims.json'} does not exist: run verify-claims first" in err

    assert diff_main([str(a), str(write(tmp_path / "bad.json", '{"claims": [}'))]) == ExitCode.USAGE
    assert f"{tmp_path / 'bad.json'} is not valid JSON" in capsys.readouterr().err

    assert diff_main([str(write(tmp_path / "list.json", [BASE])), str(a)]) == ExitCode.USAGE
    assert f"{tmp_path / 'list.json'} is not a claims.json: the JSON is an array" in capsys.readouterr().err

    assert diff_main([str(write(tmp_path / "pkg.json", {"name": "x"})), str(a)]) == ExitCode.USAGE
    assert 'pkg.json is not a claims.json: it has no "claims" list' in capsys.readouterr().err

    assert diff_main(["--no-such-option"]) == ExitCode.USAGE
    assert diff_main([str(a), str(a), str(a)]) == ExitCode.USAGE


def test_main_other_schema_is_a_warning(tmp_path, capsys):
    a = write(tmp_path / "a.json", BASE)
    b = write(tmp_path / "b.json", dict(copy.deepcopy(BASE), schema="verify-claims/2"))
    assert diff_main([str(a), str(b)]) == ExitCode.OK
    out, err = capsys.readouterr()
    assert "warning:" in err and "verify-claims/2" in err
    assert re.search(r"RUN +schema +verify-claims/1 -> verify-claims/2", out)


def test_main_markdown_and_output_appends(tmp_path, capsys):
    a = write(tmp_path / "a.json", BASE)
    b = write(tmp_path / "b.json", changed(eq14_monotone="checked"))
    summary = write(tmp_path / "summary.md", "# earlier step")
    assert diff_main([str(a), str(b), "--markdown", "--output", str(summary)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert out.startswith("verify-claims diff: ") and "WEAKER" in out and "###" not in out  # text on stdout
    content = summary.read_text()
    assert content.startswith("# earlier step\n\n### verify-claims diff: 1 regression\n")
    assert "| eq14-monotone |" in content
    assert diff_main([str(a), str(a), "--markdown", "--output", str(summary)]) == ExitCode.OK
    content2 = summary.read_text()
    assert content2.startswith(content) and content2.endswith(
        f"\nNo changes between {md_escape(a)} → {md_escape(a)}.\n")
    assert content2.count("### verify-claims diff") == 1
    assert capsys.readouterr().out == f"No changes between {a} -> {a}.\n"  # the text form on stdout

    assert diff_main([str(a), str(b), "--markdown"]) == ExitCode.FAILED
    assert capsys.readouterr().out.startswith("### verify-claims diff: 1 regression\n")

    assert diff_main([str(a), str(b), "--output", str(tmp_path / "no-dir" / "x.md")]) == ExitCode.USAGE
    assert "cannot write" in capsys.readouterr().err


def test_previous_run_kept_in_the_store(tmp_path, capsys):
    rdir = tmp_path / "reports"
    prev = previous_run_path(rdir)
    assert prev == rdir / ".verify-claims-cache" / "runs-history" / "previous.json"
    assert remember_run(rdir) is None and not prev.exists()  # a first run: nothing to keep

    write(rdir / "claims.json", BASE)
    assert diff_main(["--report-dir", str(rdir)]) == ExitCode.USAGE
    assert "previous.json does not exist: no previous run is kept yet" in capsys.readouterr().err

    assert remember_run(rdir, rdir / "claims.json") == prev  # just before the next run publishes
    assert json.loads(prev.read_text()) == BASE
    assert [p.name for p in prev.parent.iterdir()] == ["previous.json"]  # no temporary file left
    write(rdir / "claims.json", changed(eq14_monotone="checked"))  # the next run publishes
    assert diff_main(["--report-dir", str(rdir)]) == ExitCode.FAILED
    out = capsys.readouterr().out
    assert f"verify-claims diff: {prev} -> {rdir / 'claims.json'}" in out
    assert re.search(r"WEAKER +eq14-monotone +certified -> checked", out)

    # one file named: compared with REPORT_DIR/claims.json
    assert diff_main([str(prev), "--report-dir", str(rdir)]) == ExitCode.FAILED
    capsys.readouterr()


def test_no_files_and_no_report(tmp_path, capsys):
    assert diff_main(["--report-dir", str(tmp_path / "reports")]) == ExitCode.USAGE
    assert "claims.json does not exist: run verify-claims first" in capsys.readouterr().err


def test_remember_run_never_fails_a_run(tmp_path):
    rdir = tmp_path / "reports"
    write(rdir / "claims.json", BASE)
    blocker = write(tmp_path / "store-is-a-file", "x")
    warnings = []
    assert remember_run(rdir, cache_dir=blocker, warn=warnings.append) is None
    assert len(warnings) == 1 and "could not keep" in warnings[0]
