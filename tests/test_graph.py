"""The dependency graph as a reader sees it (issue 14, item 4): one graph per paper section
(claims of other sections as stubs, never a line across the page), each claim's
neighbourhood (two levels of uses and users), a search box and collapsible sections in the
HTML, and one PDF graph per section whose labels are at least MIN_PDF_FONT pt."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report_fixtures import need  # noqa: E402

from verify_claims.report import graph as G  # noqa: E402
from verify_claims.report.html import render_html  # noqa: E402


def _claim(cid, ref, uses=(), status="proved", title=""):
    return {"id": cid, "title": title or f"title of {cid}", "ref": ref, "kind": "identity", "source": "m.py",
            "expected": "holds", "expected_reason": "", "paper_error": False, "status": status, "method": "m",
            "evidence": {}, "counterexample": None, "message": "", "uses": list(uses), "seconds": 0.1,
            "statement": "x = x", "steps": None, "as_expected": True, "established": True}


# a chain a <- b <- c <- d <- e <- f (each uses the one before), a diamond on c, a claim
# using c from another section, a missing claim, and a claim with no use at all
CLAIMS = [
    _claim("a-base", "Section 1, Eq. (1)"),
    _claim("b-uses-a", "Section 1, Eq. (2)", ["a-base"]),
    _claim("c-middle", "Section 1.1", ["b-uses-a", "a-base"]),
    _claim("d-uses-c", "Section 1.1", ["c-middle"], status="checked"),
    _claim("e-uses-d", "Section 2", ["d-uses-c"]),
    _claim("f-uses-e", "Section 2", ["e-uses-d", "ghost-not-in-run"]),
    _claim("g-also-uses-c", "Appendix A.1", ["c-middle"], status="refuted"),
    _claim("h-alone", "Section 2"),
    _claim("i-uses-b", "Appendix A.1", ["b-uses-a"]),
]


def _report(claims=CLAIMS):
    return {"schema": "verify-claims/1", "run": {"seed": 1, "samples": 10, "precision": 30, "timeout": 1, "jobs": 1,
            "derivations": "d", "started": "s", "seconds": 1, "versions": {"verify_claims": "0"}, "counts": {},
            "claims": len(claims), "as_expected": len(claims), "not_as_expected": 0, "problems": 0,
            "exit_code": 0}, "problems": [], "claims": claims, "figures": []}


def test_neighbourhood_is_exactly_two_levels_of_uses_and_users():
    uses, users = G.neighbourhood(CLAIMS, "c-middle")
    # a-base is used directly (level 1), so not again at level 2
    assert uses == [{"b-uses-a", "a-base"}, set()]
    assert users == [{"d-uses-c", "g-also-uses-c"}, {"e-uses-d"}]  # f-uses-e is three levels up: not shown
    uses, users = G.neighbourhood(CLAIMS, "e-uses-d")
    assert uses == [{"d-uses-c"}, {"c-middle"}] and users == [{"f-uses-e"}, set()]
    uses, users = G.neighbourhood(CLAIMS, "f-uses-e")
    assert uses == [{"e-uses-d", "ghost-not-in-run"}, {"d-uses-c"}] and users == [set(), set()]
    # the drawing shows exactly those claims, uses on the left, users on the right
    d = G.neighbourhood_drawing(CLAIMS, "c-middle")
    assert set(d.nodes) == {"c-middle", "b-uses-a", "a-base", "d-uses-c", "g-also-uses-c", "e-uses-d"}
    x = {k: n.x for k, n in d.nodes.items()}
    assert x["a-base"] == x["b-uses-a"] < x["c-middle"] < x["d-uses-c"] == x["g-also-uses-c"] < x["e-uses-d"]
    assert [n.id for n in d.nodes.values() if n.centre] == ["c-middle"]
    assert {(a, b) for a, b, _ in d.edges} == {("b-uses-a", "c-middle"), ("a-base", "c-middle"),
                                               ("c-middle", "d-uses-c"), ("c-middle", "g-also-uses-c"),
                                               ("d-uses-c", "e-uses-d")}
    # the script's data holds the same claims for c-middle, and nothing for a claim with no use
    data = json.loads(G.neighbourhoods_json(CLAIMS))
    w, h, nodes, edges = data["c"]["c-middle"]
    assert {data["n"][i][0] for i, _, _ in nodes} == set(d.nodes) and len(edges) == 5
    assert "h-alone" not in data["c"]
    assert "ghost-not-in-run" in {n[0] for n in data["n"]}  # shown in f-uses-e's neighbourhood


def test_every_claim_in_exactly_one_section_graph_and_stubs_for_the_rest():
    gs = G.section_graphs(CLAIMS)
    assert [g["name"] for g in gs] == ["Section 1", "Section 1.1", "Section 2", "Appendix A.1"]
    seen = []
    for g in gs:
        claims = [n.id for p in g["pages"] for n in p.nodes.values() if n.kind == "claim"]
        assert sorted(claims) == sorted(g["ids"])
        seen += claims
    assert sorted(seen) == sorted(c["id"] for c in CLAIMS)  # each exactly once
    s11 = next(g for g in gs if g["name"] == "Section 1.1")
    stubs = {n.key: n for p in s11["pages"] for n in p.nodes.values() if n.kind != "claim"}
    assert set(stubs) == {"in:b-uses-a", "in:a-base", "out:e-uses-d", "out:g-also-uses-c"}
    assert stubs["out:g-also-uses-c"].lines[0] == "App. A.1" and stubs["in:a-base"].lines[0] == "§1"
    s2 = next(g for g in gs if g["name"] == "Section 2")
    kinds = {n.key: n.kind for p in s2["pages"] for n in p.nodes.values()}
    assert kinds["in:ghost-not-in-run"] == "missing" and kinds["h-alone"] == "claim"
    assert s2["uses_from"] == ["d-uses-c", "ghost-not-in-run"] and s11["used_by"] == ["e-uses-d", "g-also-uses-c"]
    # no edge leaves a section's drawing: both ends of every edge are nodes of that drawing
    for g in gs:
        for p in g["pages"]:
            assert all(a in p.nodes and b in p.nodes for a, b, _ in p.edges)


def _wide_claims(n=60):
    """One section of long-named claims, ten layers deep and wide: too wide for a page."""
    out = []
    for i in range(n):
        uses = [f"a-rather-long-claim-identifier-number-{j:02d}" for j in (i - 6, i - 7, i - 13) if j >= 0]
        out.append(_claim(f"a-rather-long-claim-identifier-number-{i:02d}", "Section 3", uses))
    return out


@pytest.mark.parametrize("metrics", [G.HTML_METRICS, G.PDF_METRICS], ids=["html", "pdf"])
def test_section_graph_fits_the_page(metrics):
    (g,) = G.section_graphs(_wide_claims(), metrics)
    for p in g["pages"]:
        assert p.width <= metrics.max_width * metrics.slack + 1, p.width
        if metrics.max_height:
            assert p.height <= 1.1 * metrics.max_height + 1, p.height
        for n in p.nodes.values():  # every node inside its drawing, labels wrapped to the node
            assert 0 <= n.x and n.x + n.w <= p.width + 0.01 and 0 <= n.y and n.y + n.h <= p.height + 0.01
            assert max(map(len, n.lines)) * metrics.char * n.font + 2 * metrics.padx <= n.w + 0.01
    assert sum(n.kind == "claim" for p in g["pages"] for n in p.nodes.values()) == 60
    # the old single drawing was far wider than any page (the check above can fail)
    assert G.graph_size(_wide_claims())[0] > 2 * G.HTML_METRICS.max_width


def test_layout_is_deterministic():
    a = G.section_graphs_html(_wide_claims()) + G.section_graphs_html(CLAIMS)
    b = G.section_graphs_html(_wide_claims()) + G.section_graphs_html(CLAIMS)
    assert a == b and G.neighbourhoods_json(CLAIMS) == G.neighbourhoods_json(list(CLAIMS))


def _details(html: str, cls: str) -> list:
    return re.findall(rf'<details class="{cls}"[^>]*>.*?</details>', html, flags=re.S)


def test_html_has_section_graphs_search_box_and_collapsible_sections():
    hostile = _claim("x</script><b>", "Section 2", ["a-base"], title="<i>t</i>")
    html = render_html(_report(CLAIMS + [hostile]))
    # the graph: one collapsible block per section, each claim a node in exactly one of them
    blocks = _details(html, "graph-section")
    assert len(blocks) == 4 and all("<svg" in b for b in blocks)
    nodes = [m for b in blocks for m in re.findall(r'<a href="#claim-([^"]*)" class="node [^"]*?(?<!stub)"', b)]
    assert sorted(nodes) == sorted([c["id"] for c in CLAIMS] + ["x&lt;/script&gt;&lt;b&gt;"])
    assert html.count('class="node status-') > len(nodes)  # the stubs
    # search box and collapsible sections of the claims list, every claim in its section
    assert re.search(r'<input type="search" id="filter-text"', html)
    listing = html[html.index('<section id="claims">'):]
    secs = ['<details class="claim-section"' + b for b in listing.split('<details class="claim-section"')[1:]]
    assert [re.search(r'data-section="([^"]*)"', s).group(1) for s in secs] == \
        ["Section 1", "Section 1.1", "Section 2", "Appendix A.1"]
    for s in secs:
        assert "<summary>" in s and " open " in s[:60]
    assert sum(s.count('<article class="claim') for s in secs) == len(CLAIMS) + 1
    # a neighbourhood block for every claim that uses or is used, and the data to draw it
    assert html.count('<details class="nbhd"') == len(CLAIMS)  # all but h-alone, plus the hostile one
    assert '<details class="nbhd" data-claim="h-alone"' not in html
    data = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S).group(1)
    assert "</script>" not in data and "<b>" not in data and "<i>" not in data
    assert "x</script><b>" in json.loads(data)["c"]
    assert json.loads(data)["t"]["c-middle"] == "title of c-middle"  # what the search box searches
    assert json.loads(data)["t"]["x</script><b>"] == "<i>t</i>" and json.loads(data)["t"]["h-alone"]


def _label_sizes(pdf: Path, words: set, pages=None) -> dict:
    """word -> smallest font size (pt) at which pdftotext finds it: the labels are DejaVu
    Sans Mono, whose advance is 0.602 em, so size = width / characters / 0.602."""
    args = ["pdftotext", "-bbox"] + (["-f", str(pages[0]), "-l", str(pages[1])] if pages else []) + [str(pdf), "-"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    sizes: dict = {}
    for x0, x1, w in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', out):
        if w in words and len(w) >= 6:
            sizes[w] = min(sizes.get(w, 99.0), (float(x1) - float(x0)) / len(w) / G.PDF_METRICS.char)
    return sizes


def test_pdf_has_one_graph_per_section_with_legible_labels(tmp_path):
    need("pdflatex")
    need("pdftotext")
    from verify_claims.report.tex import build_pdf, write_latex

    claims = CLAIMS + _wide_claims(40)
    write_latex(_report(claims), tmp_path)
    tex = (tmp_path / "report.tex").read_text(encoding="utf-8")
    files = re.findall(r"\\includegraphics\[page=(\d+),scale=([\d.]+)\]\{(figures/_graphs\.pdf)\}", tex)
    names = [g["name"] for g in G.section_graphs(claims, G.PDF_METRICS)]
    assert len(names) == 5 and len(files) >= len(names)
    for sec in names:
        assert f"\\bfseries {sec}}}" in tex, sec
    assert all(float(s) == 1.0 for _, s, _ in files)  # drawn at their natural size
    # one file, each drawing a page of it, in order
    assert [int(p) for p, _, _ in files] == list(range(1, len(files) + 1))
    pdf = build_pdf(tmp_path / "report.tex")
    labels = {line for g in G.section_graphs(claims, G.PDF_METRICS) for p in g["pages"]
              for n in p.nodes.values() for line in n.lines}
    sizes = _label_sizes(pdf, labels)
    assert len(sizes) >= 0.8 * len([w for w in labels if len(w) >= 6]), "graph labels not found in the PDF"
    small = {w: s for w, s in sizes.items() if s < G.MIN_PDF_FONT - 0.05}
    assert not small, small
    # the measurement can fail: a graph drawn at 5 pt is reported as such
    tiny = G.Metrics(font=5.0, small=5.0, max_width=470.0)
    (g,) = [g for g in G.section_graphs(claims, tiny) if g["name"] == "Section 3"]
    G.drawing_pdf(g["pages"][0], tmp_path / "tiny.pdf", tiny)
    tiny_sizes = _label_sizes(tmp_path / "tiny.pdf", labels)
    assert tiny_sizes and max(tiny_sizes.values()) < G.MIN_PDF_FONT - 1


def test_graphs_are_cached_by_input(tmp_path):
    """The drawn section graphs (HTML and PDF) come from the proof store the second time."""
    from verify_claims.report.tex import write_latex

    calls = []

    class Store:
        def __init__(self):
            self.kept = {}

        def cached(self, key, build):
            if key not in self.kept:
                calls.append(key)
                self.kept[key] = build()
            return self.kept[key]

    store = Store()
    rep = _report()
    first = render_html(rep, cache=store)
    write_latex(rep, tmp_path / "a", cache=store)
    n = len(calls)
    assert n >= 2
    assert render_html(rep, cache=store) == first
    write_latex(rep, tmp_path / "b", cache=store)
    assert len(calls) == n  # nothing drawn again
    assert sorted(p.name for p in (tmp_path / "a/figures").iterdir()) == \
        sorted(p.name for p in (tmp_path / "b/figures").iterdir())
    changed = _report([dict(c, status="checked") if c["id"] == "a-base" else c for c in CLAIMS])
    render_html(changed, cache=store)
    assert len(calls) == n + 1  # a status changed: drawn again


def test_graph_pdf_is_written_directly_searchable_and_the_same_bytes(tmp_path):
    """report/pdfgraph.py writes the section graphs' pages itself: one page per drawing at its
    size, every label (the stubs' "§1.1" and a missing claim's "(not found)" too) found by
    pdftotext, the same drawings the same bytes, and another status other bytes."""
    need("pdftotext")
    from verify_claims.report.pdfgraph import drawings_pdf

    def pages(claims):
        return [p for g in G.section_graphs(claims, G.PDF_METRICS) for p in g["pages"]]

    drawings = pages(CLAIMS)
    data, sizes = drawings_pdf(drawings, G.PDF_METRICS)
    assert drawings_pdf(drawings, G.PDF_METRICS)[0] == data
    assert sizes == [(max(d.width, 40.0), max(d.height, 20.0)) for d in drawings]
    pdf = tmp_path / "graphs.pdf"
    pdf.write_bytes(data)
    info = subprocess.run(["pdfinfo", "-f", "1", "-l", str(len(drawings)), str(pdf)], capture_output=True,
                          text=True, check=True).stdout
    assert re.search(rf"^Pages:\s+{len(drawings)}$", info, re.M)
    boxes = [tuple(float(v) for v in b) for b in re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts", info)]
    assert boxes == [(pytest.approx(w, abs=0.01), pytest.approx(h, abs=0.01)) for w, h in sizes]
    text = re.sub(r"\s+", "", subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                             check=True).stdout)
    labels = {line for d in drawings for n in d.nodes.values() for line in n.lines}
    assert "§1.1" in labels and "(not found)" in labels
    assert not [w for w in labels if re.sub(r"\s+", "", w) not in text]
    other = pages([dict(c, status="refuted") if c["id"] == "a-base" else c for c in CLAIMS])
    assert drawings_pdf(other, G.PDF_METRICS)[0] != data


def test_graph_pdf_names_missing_fonts(monkeypatch):
    """Without matplotlib's DejaVu fonts the graphs cannot be drawn: the error says which
    font is missing, where it was looked for, and how to get it back."""
    from verify_claims.report import pdfgraph

    monkeypatch.setitem(pdfgraph._FONT_FILES, "mono", "NoSuchFont.ttf")
    with pytest.raises(RuntimeError, match=r"NoSuchFont\.ttf.*reinstall matplotlib"):
        pdfgraph.drawings_pdf([p for g in G.section_graphs(CLAIMS, G.PDF_METRICS) for p in g["pages"]],
                              G.PDF_METRICS)
