"""The dependency graph of claims (``uses``), laid out in Python: no system program needed.

The reports draw it in readable pieces (see "A graph that can be read" below):
:func:`section_graphs` (one drawing per paper section, other sections' claims as stubs;
:func:`section_graphs_html`, :func:`section_graphs_pdf`) and :func:`neighbourhood` /
:func:`neighbourhoods_json` (each claim with two levels of uses and users).  The single
drawing of everything (:func:`layout`, :func:`graph_svg`) is kept as API.

Layered DAG layout: a claim's column is the length of the longest ``uses`` path below it
(claims that use nothing are on the left), so every arrow points right, from the claim
used to the claim using it.  Rows within a column are ordered by a few barycentre sweeps
(the usual Sugiyama heuristic) from a deterministic start (section, id), so the same
claims always give the same picture.  Claims that neither use nor are used by anything
are set apart in a compact grid below.

Each node is filled with its own status colour; its outline says what it rests on:

- ``rigorous``: it and everything it uses, transitively, is proved or certified;
- ``spot-checked``: established, but somewhere down the chain only numerically checked;
- ``unfounded``: its own status is established but something it uses is not (or is
  missing from the run): drawn faded, with a red dotted outline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path

__all__ = ["STATUS_COLOURS", "layout", "graph_svg", "foundations", "MIN_PDF_FONT", "Metrics",
           "HTML_METRICS", "PDF_METRICS", "neighbourhood", "neighbourhood_drawing", "neighbourhoods_json",
           "section_graphs", "section_graphs_html", "section_graphs_pdf", "drawing_svg", "drawing_pdf"]

STATUS_COLOURS = {
    "proved": "#1a7f37", "certified": "#0969da", "checked": "#1b7c83", "simulated": "#bf3989", "refuted": "#cf222e",
    "undecided": "#b08800", "error": "#8250df", "timeout": "#6e7781", "missing": "#ffffff",
    "not-reached": "#8c959f",  # a chain step after the first failing one
}
# rigorous (2) / only numerically checked or simulated somewhere down the chain (1)
_RANK = {"proved": 2, "certified": 2, "checked": 1, "simulated": 1}

CHAR_W, NODE_H, ROW_GAP, COL_GAP, PAD = 6.6, 22, 8, 70, 16


def foundations(claims: list) -> dict:
    """id -> "rigorous" | "spot-checked" | "unfounded" | "not established" for every claim."""
    by_id = {c["id"]: c for c in claims}
    memo: dict = {}

    def rank(cid, trail=()):
        if cid in memo:
            return memo[cid]
        c = by_id.get(cid)
        if c is None or cid in trail:
            return 0
        r = _RANK.get(c["status"], 0)
        for u in c.get("uses") or []:
            r = min(r, rank(u, trail + (cid,)))
        memo[cid] = r
        return r

    out = {}
    for c in claims:
        own = _RANK.get(c["status"], 0)
        r = rank(c["id"])
        if own == 0:
            out[c["id"]] = "not established"
        else:
            out[c["id"]] = {2: "rigorous", 1: "spot-checked", 0: "unfounded"}[r]
    return out


@dataclass
class Node:
    id: str
    status: str
    foundation: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = NODE_H
    missing: bool = False


@dataclass
class Layout:
    nodes: dict = field(default_factory=dict)
    edges: list = field(default_factory=list)  # (used id, user id)
    width: float = 0.0
    height: float = 0.0
    isolated_top: float = 0.0  # y where the grid of unconnected claims starts (0: none)


def _section_key(c: dict) -> tuple:
    return (c.get("source") or "", c["id"])


def layout(claims: list) -> Layout:
    found = foundations(claims)
    by_id = {c["id"]: c for c in claims}
    out = Layout()
    users: dict = {c["id"]: [] for c in claims}
    for c in claims:
        for u in c.get("uses") or []:
            if u not in by_id and u not in out.nodes:
                out.nodes[u] = Node(u, "missing", "not established", missing=True)
                users.setdefault(u, [])
            users.setdefault(u, []).append(c["id"])
            out.edges.append((u, c["id"]))
    for c in claims:
        out.nodes[c["id"]] = Node(c["id"], c["status"], found[c["id"]])
    order_key = {cid: i for i, cid in enumerate(sorted(out.nodes, key=lambda i: _section_key(by_id.get(i, {"id": i}))))}
    connected = [n for n in out.nodes if users.get(n) or (by_id.get(n, {}).get("uses"))]
    isolated = [n for n in out.nodes if n not in set(connected)]

    layer: dict = {}

    def depth(cid, trail=()):
        if cid in layer:
            return layer[cid]
        uses = [u for u in (by_id.get(cid, {}).get("uses") or []) if u not in trail]
        d = 0 if not uses else 1 + max(depth(u, trail + (cid,)) for u in uses)
        layer[cid] = d
        return d

    for n in connected:
        depth(n)
    ncols = 1 + max(layer.values(), default=-1)
    cols = [sorted([n for n in connected if layer[n] == k], key=order_key.get) for k in range(ncols)]
    preds = {n: [u for u, v in out.edges if v == n] for n in connected}
    succs = {n: [v for u, v in out.edges if u == n] for n in connected}
    for sweep in range(4):  # barycentre ordering, alternating directions
        rng = range(1, ncols) if sweep % 2 == 0 else range(ncols - 2, -1, -1)
        for k in rng:
            pos = {n: i for col in cols for i, n in enumerate(col)}
            nbrs = preds if sweep % 2 == 0 else succs
            cols[k].sort(key=lambda n: (sum(pos[m] for m in nbrs[n]) / len(nbrs[n]) if nbrs[n] else pos[n],
                                        order_key[n]))
    x = PAD
    height = 0.0
    for col in cols:
        w = max((len(n) * CHAR_W + 16 for n in col), default=0)
        for i, n in enumerate(col):
            nd = out.nodes[n]
            nd.x, nd.y, nd.w = x, PAD + i * (NODE_H + ROW_GAP), len(n) * CHAR_W + 16
        height = max(height, PAD + len(col) * (NODE_H + ROW_GAP))
        x += w + COL_GAP
    width = max(x - COL_GAP + PAD, 600)
    if isolated:
        out.isolated_top = height + 28
        y, cx = out.isolated_top + 10, PAD
        for n in sorted(isolated, key=order_key.get):
            nd = out.nodes[n]
            nd.w = len(n) * CHAR_W + 16
            if cx + nd.w > width - PAD and cx > PAD:
                cx, y = PAD, y + NODE_H + ROW_GAP
            nd.x, nd.y = cx, y
            cx += nd.w + 10
        height = y + NODE_H + PAD
    out.width, out.height = width, height + PAD
    return out


def _style(nd: Node) -> dict:
    fill = STATUS_COLOURS.get(nd.status, "#999999")
    s = {"fill": fill, "text": "#ffffff", "stroke": "#1b1f24", "dash": "", "width": 1.6, "opacity": 1.0}
    if nd.missing:
        s.update(text="#57606a", stroke="#8c959f", dash="4 3", width=1.0)
    elif nd.foundation == "spot-checked":
        s.update(dash="5 3")
    elif nd.foundation == "unfounded":
        s.update(stroke="#cf222e", dash="2 2", opacity=0.55, width=2.0)
    elif nd.foundation == "not established":
        s.update(stroke="#1b1f24", width=0.8)
    return s


def graph_svg(claims: list, href=lambda cid: f"#claim-{cid}") -> str:
    """The graph as an inline <svg>; every label escaped, every node a link to its claim."""
    lay = layout(claims)
    if not lay.nodes:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="30" class="dep-graph">' \
               '<text x="8" y="20">no claims</text></svg>'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="dep-graph" width="{lay.width:.0f}" '
             f'height="{lay.height:.0f}" viewBox="0 0 {lay.width:.0f} {lay.height:.0f}" '
             f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11">',
             '<defs><marker id="dep-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/>'
             '</marker></defs>']
    for u, v in lay.edges:
        a, b = lay.nodes[u], lay.nodes[v]
        x1, y1 = a.x + a.w, a.y + a.h / 2
        x2, y2 = b.x, b.y + b.h / 2
        mx = (x1 + x2) / 2
        parts.append(f'<path d="M {x1:.1f} {y1:.1f} C {mx:.1f} {y1:.1f}, {mx:.1f} {y2:.1f}, {x2:.1f} {y2:.1f}" '
                     f'fill="none" stroke="#8c959f" stroke-width="1" marker-end="url(#dep-arrow)"/>')
    if lay.isolated_top:
        parts.append(f'<text x="{PAD}" y="{lay.isolated_top:.0f}" fill="#57606a" font-family="sans-serif">'
                     'Claims that use no other claim and are used by none:</text>')
    for n in sorted(lay.nodes):
        nd = lay.nodes[n]
        s = _style(nd)
        label = escape(n)
        tip = escape(f"{n}: {'not found in this run' if nd.missing else nd.status}; {nd.foundation}")
        dash = f' stroke-dasharray="{s["dash"]}"' if s["dash"] else ""
        rect = (f'<rect x="{nd.x:.1f}" y="{nd.y:.1f}" width="{nd.w:.1f}" height="{nd.h}" rx="4" '
                f'fill="{s["fill"]}" stroke="{s["stroke"]}" stroke-width="{s["width"]}"{dash}/>'
                f'<text x="{nd.x + 8:.1f}" y="{nd.y + 15:.1f}" fill="{s["text"]}">{label}'
                f'{" (not found)" if nd.missing else ""}</text>')
        op = f' opacity="{s["opacity"]}"' if s["opacity"] != 1.0 else ""
        cls = f'node status-{escape(nd.status)} foundation-{escape(nd.foundation.replace(" ", "-"))}'
        if nd.missing:
            parts.append(f'<g class="{cls}"{op}><title>{tip}</title>{rect}</g>')
        else:
            parts.append(f'<a href="{escape(href(n))}" class="{cls}"{op}><title>{tip}</title>{rect}</a>')
    parts.append("</svg>")
    return "\n".join(parts)


def graph_inputs(claims: list) -> list:
    """What the drawn graph depends on (the key of a drawn graph kept in the proof store)."""
    keys = ("id", "status", "uses", "established", "source", "ref", "title")
    return [{k: c.get(k) for k in keys} for c in claims]


def graph_size(claims: list):
    """(width, height) in points of the drawn graph, or None when there is nothing to draw."""
    lay = layout(claims)
    return (lay.width, lay.height) if lay.nodes else None


# ---------------------------------------------------------------------------------------
# A graph that can be read: one drawing per paper section, and per claim its neighbourhood
# ---------------------------------------------------------------------------------------
#
# The whole graph (267 claims for the bundled paper) is too wide for any page.  The reports
# draw it in pieces instead, with the same fill (status) and outline (foundation):
#
# - per paper section (view.section_of), the section's claims with the uses among them;
#   a claim of another section that one of them uses, or that uses one of them, is a stub
#   (white box, dashed outline in its status colour, first line its section) next to the
#   claim, so no line crosses the page.  Weakly connected pieces are laid out apart
#   (left to right, or top to bottom when that is too wide) and packed into rows, and
#   claims with no use at all are set in a grid;
# - per claim, its neighbourhood: what it uses (two levels) on the left, what uses it (two
#   levels) on the right.
#
# Labels are wrapped at hyphens (``wrap`` characters a line) so a node is narrow; every
# size below is in the unit of the output (px in HTML, pt in the PDF).

MIN_PDF_FONT = 7.0  # the smallest label in the PDF graphs, in pt at 100 % zoom (documented, tested)


@dataclass(frozen=True)
class Metrics:
    font: float = 11.0        # a claim's label
    small: float = 10.0       # a stub's label (a claim of another section)
    wrap: int = 22            # characters per label line
    wrap_tb: int = 14         # ... in a piece drawn top to bottom (too wide left to right)
    max_width: float = 1100.0
    max_height: float = 0.0   # > 0: a section's drawing is cut into pages at most this tall
    layer_gap: float = 34.0
    node_gap: float = 8.0
    pad: float = 8.0
    padx: float = 5.0
    pady: float = 3.0
    slack: float = 1.0        # a piece laid out left to right may be this much wider (then scaled)
    char: float = 0.602       # DejaVu Sans Mono: advance of one character, per em
    line: float = 1.2         # line height, per em


HTML_METRICS = Metrics(slack=1.15)  # the browser scales an SVG down to the page: 11 px -> 9.6 px at most
# A4 with 2 cm margins: \linewidth is 481 pt and \textheight 728 pt; leave room for a heading.
PDF_LINEWIDTH, PDF_TEXTHEIGHT = 481.0, 690.0  # what report.tex has room for (pt); wider or taller is scaled
PDF_METRICS = Metrics(font=8.0, small=MIN_PDF_FONT, wrap=22, max_width=470.0, max_height=620.0,
                      layer_gap=24.0, node_gap=5.0, pad=3.0, padx=3.5, pady=2.0)


@dataclass
class GNode:
    key: str                  # unique in one drawing: the claim id, or "in:"/"out:" + id for a stub
    id: str                   # the claim it stands for
    kind: str = "claim"       # claim | stub | missing | dummy
    status: str = ""
    foundation: str = ""
    section: str = ""
    title: str = ""
    lines: tuple = ()
    font: float = 0.0
    centre: bool = False
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0


@dataclass
class Drawing:
    nodes: dict = field(default_factory=dict)    # key -> GNode (no dummies)
    edges: list = field(default_factory=list)    # (from key, to key, [(x, y), ...]) from used to user
    width: float = 0.0
    height: float = 0.0
    direction: str = "LR"
    notes: list = field(default_factory=list)    # (x, y, text): captions

    def moved(self, dx: float, dy: float) -> "Drawing":
        out = Drawing(direction=self.direction, width=self.width, height=self.height)
        for k, n in self.nodes.items():
            out.nodes[k] = GNode(**{**n.__dict__, "x": n.x + dx, "y": n.y + dy})
        out.edges = [(a, b, [(x + dx, y + dy) for x, y in pts]) for a, b, pts in self.edges]
        out.notes = [(x + dx, y + dy, t) for x, y, t in self.notes]
        return out


def wrap_label(text: str, width: int) -> tuple:
    """`text` in lines of at most `width` characters, broken after hyphens/underscores
    (a longer piece is cut)."""
    lines, cur = [], ""
    for tok in re.findall(r"[^-_]*[-_]|[^-_]+", str(text)):
        while len(tok) > width:
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(tok[:width])
            tok = tok[width:]
        if cur and len(cur) + len(tok) > width:
            lines.append(cur)
            cur = tok
        else:
            cur += tok
    if cur or not lines:
        lines.append(cur)
    return tuple(lines)


def short_section(section: str) -> str:
    """"Section 2.3" -> "§2.3", "Appendix B.1" -> "App. B.1"."""
    m = re.match(r"Section (.+)$", section or "")
    if m:
        return "§" + m.group(1)
    m = re.match(r"Appendix (.+)$", section or "")
    return f"App. {m.group(1)}" if m else (section or "other")


def _relabel(n: GNode, m: Metrics) -> GNode:
    """The node's label wrapped at m.wrap (a stub keeps its section line)."""
    if n.kind == "stub":
        n.lines = (n.lines[0],) + wrap_label(n.id, m.wrap)
    elif n.kind == "missing":
        n.lines = wrap_label(n.id, m.wrap) + ("(not found)",)
    else:
        n.lines = wrap_label(n.id, m.wrap)
    return _sized(n, m)


def _sized(n: GNode, m: Metrics) -> GNode:
    if n.kind == "dummy":
        n.w = n.h = 0.0
        return n
    n.font = m.small if n.kind in ("stub", "missing") else m.font
    n.w = max(len(s) for s in n.lines) * m.char * n.font + 2 * m.padx
    n.h = len(n.lines) * m.line * n.font + 2 * m.pady
    return n


def _crossings(layers: list, succs: dict) -> int:
    total = 0
    for a, b in zip(layers, layers[1:]):
        pos = {k: i for i, k in enumerate(b)}
        es = [(i, pos[t]) for i, k in enumerate(a) for t in succs.get(k, ()) if t in pos]
        total += sum(1 for p in range(len(es)) for q in range(p + 1, len(es))
                     if (es[p][0] - es[q][0]) * (es[p][1] - es[q][1]) < 0)
    return total


def _layered(nodes: dict, edges: list, m: Metrics, direction: str = "LR", layer: dict | None = None,
             order: dict | None = None) -> Drawing:
    """A layered (Sugiyama) drawing of `nodes` (key -> sized GNode) and `edges` (from, to).

    Layers: given, or the longest path from a source (a source with successors sits just
    before its first successor).  An edge longer than one layer passes through dummy points,
    so it runs between the nodes of the layers it crosses.  Order within a layer: barycentre
    sweeps from the deterministic `order` (the fewest crossings kept); positions: pulled
    towards the neighbours' centres without overlap."""
    order = order or {}
    edges = sorted(set((a, b) for a, b in edges if a in nodes and b in nodes and a != b))
    preds: dict = {k: [] for k in nodes}
    succs: dict = {k: [] for k in nodes}
    for a, b in edges:
        succs[a].append(b)
        preds[b].append(a)
    if layer is None:
        layer = {}

        def depth(k, trail=()):
            if k in layer:
                return layer[k]
            ps = [p for p in preds[k] if p not in trail]
            layer[k] = 0 if not ps else 1 + max(depth(p, trail + (k,)) for p in ps)
            return layer[k]

        for k in sorted(nodes, key=lambda k: (order.get(k, (9, k)), k)):
            depth(k)
        for k in nodes:
            if not preds[k] and succs[k]:
                layer[k] = max(0, min(layer[s] for s in succs[k]) - 1)
        if direction == "TB" and m.max_width:
            # bounded width (greedy, in topological order): a layer that is full pushes the
            # rest of its nodes into the next one, so the drawing fits the page
            base, layer, used = layer, {}, {}
            room = 0.9 * m.max_width - 2 * m.pad
            for k in sorted(nodes, key=lambda k: (base[k], order.get(k, (9, k)), k)):
                at = max([base[k] if not preds[k] else 0] + [layer[p] + 1 for p in preds[k] if p in layer])
                while used.get(at, 0.0) and used[at] + nodes[k].w > room:
                    at += 1
                layer[k] = at
                used[at] = used.get(at, 0.0) + nodes[k].w + m.node_gap
            # a source (a stub above all) moves down next to its first user when that row has room
            for k in sorted(nodes, key=lambda k: (order.get(k, (9, k)), k)):
                if preds[k] or not succs[k]:
                    continue
                for at in range(min(layer[t] for t in succs[k]) - 1, layer[k], -1):
                    if used.get(at, 0.0) + nodes[k].w <= room:
                        used[layer[k]] -= nodes[k].w + m.node_gap
                        used[at] = used.get(at, 0.0) + nodes[k].w + m.node_gap
                        layer[k] = at
                        break
    else:
        layer = dict(layer)
    low = min(layer.values(), default=0)
    layer = {k: v - low for k, v in layer.items()}
    # dummies for long edges; an edge that goes back (a cycle) is drawn straight
    chains = []
    all_nodes = dict(nodes)
    nsucc: dict = {k: [] for k in nodes}
    npred: dict = {k: [] for k in nodes}
    for a, b in edges:
        path = [a]
        for i in range(layer[a] + 1, layer[b]):
            d = f"\0{a}\0{b}\0{i}"
            all_nodes[d] = GNode(d, "", kind="dummy")
            layer[d] = i
            nsucc[d], npred[d] = [], []
            path.append(d)
        path.append(b)
        for p, q in zip(path, path[1:]):
            nsucc[p].append(q)
            npred[q].append(p)
        chains.append((a, b, path))
    nl = 1 + max(layer.values(), default=-1)
    first = {}
    for k in all_nodes:
        first[k] = order.get(k, (9, k)) if all_nodes[k].kind != "dummy" else order.get(k.split("\0")[1], (9,))
    layers = [sorted([k for k in all_nodes if layer[k] == i], key=lambda k: (first[k], k)) for i in range(nl)]
    best, best_x = [list(L) for L in layers], _crossings(layers, nsucc)
    for sweep in range(8):
        down = sweep % 2 == 0
        rng = range(1, nl) if down else range(nl - 2, -1, -1)
        for i in rng:
            pos = {k: j for L in layers for j, k in enumerate(L)}
            nb = npred if down else nsucc

            def bary(k):
                ns = nb[k]
                return sum(pos[n] for n in ns) / len(ns) if ns else pos[k]

            layers[i].sort(key=lambda k: (bary(k), pos[k]))
        x = _crossings(layers, nsucc)
        if x < best_x:
            best, best_x = [list(L) for L in layers], x
    layers = best
    # coordinates along the order axis (y in LR, x in TB)
    lr = direction == "LR"

    def size(k):
        n = all_nodes[k]
        return (n.h if lr else n.w) if n.kind != "dummy" else 0.0

    bound = 0.0 if lr or not m.max_width else m.max_width - 2 * m.pad
    pos: dict = {}
    for L in layers:
        o = 0.0
        for k in L:
            pos[k] = o
            o += size(k) + m.node_gap
    for sweep in range(8):
        down = sweep % 2 == 0
        rng = range(1, nl) if down else range(nl - 2, -1, -1)
        nb = npred if down else nsucc
        for i in rng:
            L = layers[i]
            want = []
            for k in L:
                ns = nb[k]
                c = sum(pos[n] + size(n) / 2 for n in ns) / len(ns) if ns else pos[k] + size(k) / 2
                want.append(c - size(k) / 2)
            fwd, prev = [], None
            for j, k in enumerate(L):
                p = want[j] if prev is None else max(want[j], prev)
                fwd.append(p)
                prev = p + size(k) + m.node_gap
            bwd, nxt = [0.0] * len(L), None
            for j in range(len(L) - 1, -1, -1):
                k = L[j]
                p = want[j] if nxt is None else min(want[j], nxt - m.node_gap - size(k))
                bwd[j] = p
                nxt = p
            for j, k in enumerate(L):
                pos[k] = (fwd[j] + bwd[j]) / 2
            if bound:  # keep the layer within [0, bound]: from the right edge, then the left
                nxt = bound
                for k in reversed(L):
                    pos[k] = min(pos[k], nxt - size(k))
                    nxt = pos[k] - m.node_gap
                prev = 0.0
                for k in L:
                    pos[k] = max(pos[k], prev)
                    prev = pos[k] + size(k) + m.node_gap
    low = min(pos.values(), default=0.0)
    thick = [max((all_nodes[k].w if lr else all_nodes[k].h) for k in L) if L else 0.0 for L in layers]
    start, acc = [], m.pad
    gap = m.layer_gap * (1.0 if lr else 1.3)  # top to bottom: room for the curves between rows
    for t in thick:
        start.append(acc)
        acc += t + gap
    out = Drawing(direction=direction)
    for i, L in enumerate(layers):
        for k in L:
            n = all_nodes[k]
            o = pos[k] - low + m.pad
            n.x, n.y = (start[i], o) if lr else (o, start[i])
            if n.kind == "dummy":
                n.w, n.h = (thick[i], 0.0) if lr else (0.0, thick[i])
            else:
                out.nodes[k] = n
    extent = max((pos[k] - low + size(k) for k in all_nodes), default=0.0) + 2 * m.pad
    length = acc - gap + m.pad if layers else 2 * m.pad
    out.width, out.height = (length, extent) if lr else (extent, length)
    # ports: the edges leaving (entering) a node are spread along its exit (entry) side in
    # the order of where they go (come from), so arrowheads do not pile up on one point
    def centre(k):
        n = all_nodes[k]
        return (n.y + n.h / 2) if lr else (n.x + n.w / 2)

    outs: dict = {}
    ins: dict = {}
    for idx, (a, b, path) in enumerate(chains):
        outs.setdefault(a, []).append((centre(path[1]), idx))
        ins.setdefault(b, []).append((centre(path[-2]), idx))
    port: dict = {}
    for side, groups in (("out", outs), ("in", ins)):
        for k, lst in groups.items():
            n = all_nodes[k]
            span = 0.6 * (n.h if lr else n.w)
            for r, (_, idx) in enumerate(sorted(lst)):
                off = (r + 1) / (len(lst) + 1) * span - span / 2 if len(lst) > 1 else 0.0
                if lr:
                    port[side, idx] = (n.x + n.w, n.y + n.h / 2 + off) if side == "out" else (n.x, n.y + n.h / 2 + off)
                else:
                    port[side, idx] = (n.x + n.w / 2 + off, n.y + n.h) if side == "out" else (n.x + n.w / 2 + off, n.y)
    for idx, (a, b, path) in enumerate(chains):
        mids = []
        for k in path[1:-1]:  # a dummy: where the edge enters and leaves its layer
            n = all_nodes[k]
            mids += [(n.x, n.y + n.h / 2), (n.x + n.w, n.y + n.h / 2)] if lr else \
                [(n.x + n.w / 2, n.y), (n.x + n.w / 2, n.y + n.h)]
        out.edges.append((a, b, [port["out", idx]] + mids + [port["in", idx]]))  # exit, dummies, entry
    return out


def _node_for(cid: str, by_id: dict, found: dict, section_of, kind: str, m: Metrics, key: str | None = None,
              centre: bool = False) -> GNode:
    c = by_id.get(cid)
    if c is None:
        n = GNode(key or cid, cid, "missing", "missing", "not established", "", "",
                  wrap_label(cid, m.wrap) + ("(not found)",))
    else:
        sec = section_of(c.get("ref", ""), c.get("source", ""))
        lines = wrap_label(cid, m.wrap)
        if kind == "stub":
            lines = (short_section(sec),) + lines
        n = GNode(key or cid, cid, kind, c["status"], found.get(cid, "not established"), sec,
                  str(c.get("title") or ""), lines, centre=centre)
    return _sized(n, m)


def _uses(by_id: dict) -> dict:
    return {cid: list(dict.fromkeys(c.get("uses") or [])) for cid, c in by_id.items()}


def _users(claims: list) -> dict:
    users: dict = {}
    for c in claims:
        for u in dict.fromkeys(c.get("uses") or []):
            users.setdefault(u, []).append(c["id"])
    return users


def neighbourhood(claims: list, cid: str, levels: int = 2) -> tuple:
    """(uses, users): uses[k] the claims `cid` uses in k + 1 steps and in no fewer,
    users[k] the claims that use it in k + 1 steps and in no fewer (k < levels).  A used id
    missing from the run is listed (it cannot be followed further)."""
    by_id = {c["id"]: c for c in claims}
    up, down = _uses(by_id), _users(claims)
    out = []
    for nbrs in (up, down):
        seen, frontier, lv = {cid}, [cid], []
        for _ in range(levels):
            nxt = []
            for w in frontier:
                for u in nbrs.get(w, []):
                    if u not in seen:
                        seen.add(u)
                        nxt.append(u)
            lv.append(set(nxt))
            frontier = nxt
        out.append(lv)
    return out[0], out[1]


def neighbourhood_drawing(claims: list, cid: str, m: Metrics = HTML_METRICS, levels: int = 2, *,
                          _ctx=None) -> Drawing:
    """Left to right: what `cid` uses (two levels), the claim, what uses it (two levels).
    Edges: every use between consecutive levels."""
    from .view import section_of

    by_id, found, up, down = _ctx or _context(claims)
    uses, users = neighbourhood(claims, cid, levels)
    nodes = {cid: _node_for(cid, by_id, found, section_of, "claim", m, centre=True)}
    layer = {cid: levels}
    for k, lv in enumerate(uses):
        for u in lv:
            nodes[u] = _node_for(u, by_id, found, section_of, "claim", m)
            layer[u] = levels - 1 - k
    for k, lv in enumerate(users):
        for v in lv:
            if v not in nodes:  # a cycle: already on the left
                nodes[v] = _node_for(v, by_id, found, section_of, "claim", m)
                layer[v] = levels + 1 + k
    edges = [(u, w) for w in nodes for u in up.get(w, []) if u in nodes and layer[u] == layer[w] - 1
             and layer[w] <= levels] + \
            [(w, v) for w in nodes for v in down.get(w, []) if v in nodes and layer[v] == layer[w] + 1
             and layer[w] >= levels]
    order = {k: (0, i) for i, k in enumerate(by_id)}
    return _layered(nodes, edges, m, "LR", layer, order)


def _context(claims: list):
    by_id = {c["id"]: c for c in claims}
    return by_id, foundations(claims), _uses(by_id), _users(claims)


def _pack(parts: list, m: Metrics) -> list:
    """Drawings placed left to right in rows (shelves) within m.max_width: [(height, [Drawing])]."""
    rows, row, x, h = [], [], 0.0, 0.0
    for d in parts:
        if row and x + d.width > m.max_width:
            rows.append((h, row))
            row, x, h = [], 0.0, 0.0
        row.append(d.moved(x, 0.0))
        x += d.width + m.node_gap
        h = max(h, d.height)
    if row:
        rows.append((h, row))
    return rows


def _merge(rows: list, m: Metrics) -> Drawing:
    out = Drawing()
    y = 0.0
    for h, row in rows:
        for d in row:
            d = d.moved(0.0, y)
            out.nodes.update(d.nodes)
            out.edges.extend(d.edges)
            out.notes.extend(d.notes)
            out.width = max(out.width, max((n.x + n.w for n in d.nodes.values()), default=0.0) + m.pad)
        y += h + m.node_gap
    out.height = y - m.node_gap if rows else 0.0
    return out


def _bands(d: Drawing, nodes: dict, edges: list, m: Metrics, order: dict) -> list:
    """A top-to-bottom drawing taller than a page, cut between its rows into bands that
    each fit one (fewer rows when the stubs make a band too tall); an edge between bands
    becomes a stub at both ends, whose first line says where the claim is: above or below."""
    ys = sorted({round(n.y, 1) for n in d.nodes.values()})
    row = {k: ys.index(round(n.y, 1)) for k, n in d.nodes.items()}
    bottom = [max(n.y + n.h for k, n in d.nodes.items() if row[k] == r) for r in range(len(ys))]

    def band(lo: int, hi: int) -> Drawing:
        inside = {k for k in nodes if lo <= row[k] < hi}
        part = {k: _sized(GNode(**nodes[k].__dict__), m) for k in inside}
        es = []
        for u, v in edges:
            if u in inside and v in inside:
                es.append((u, v))
            elif u in inside or v in inside:
                other, here = (u, v) if v in inside else (v, u)
                n, key = nodes[other], other
                if n.kind == "claim":  # the same section, another band
                    above = row[other] < lo
                    key = ("up:" if above else "down:") + other
                    n = GNode(key, n.id, "stub", n.status, n.foundation, n.section, n.title,
                              (f"{short_section(n.section)} {'↑ above' if above else '↓ below'}",)
                              + wrap_label(n.id, m.wrap))
                part.setdefault(key, _sized(GNode(**n.__dict__), m))
                es.append((key, here) if here == v else (here, key))
        return _layered(part, es, m, "TB", order=order)

    out, lo = [], 0
    while lo < len(ys):
        hi = lo + 1
        while hi < len(ys) and bottom[hi] - ys[lo] <= 0.8 * m.max_height:
            hi += 1
        piece = band(lo, hi)
        while piece.height > m.max_height and hi - lo > 1:
            hi -= 1
            piece = band(lo, hi)
        out.append(piece)
        lo = hi
    return out


def _paginate(rows: list, m: Metrics) -> list:
    """Rows [(height, drawings)] into pages at most m.max_height tall (one page when it is
    0): first fit, in order, so a short row fills a page a tall one left; a caption stays
    with the row after it, and a last short page joins the one before when both fit."""
    if not m.max_height:
        return [rows]
    units, i = [], 0
    while i < len(rows):
        take = 2 if rows[i][1][0].notes and i + 1 < len(rows) else 1
        units.append(rows[i:i + take])
        i += take
    pages: list = []
    height = lambda rs: sum(r[0] + m.node_gap for r in rs)  # noqa: E731
    for u in units:
        for p in pages:
            if height(p) + height(u) <= m.max_height:
                p.extend(u)
                break
        else:
            pages.append(list(u))
    if len(pages) > 1 and height(pages[-2] + pages[-1]) <= PDF_TEXTHEIGHT:
        pages[-2:] = [pages[-2] + pages[-1]]
    return pages


def section_graphs(claims: list, m: Metrics = HTML_METRICS) -> list:
    """One entry per paper section, in the paper's order: {"name", "slug", "ids" (its
    claims), "uses_from" / "used_by" (claims of other sections it uses / that use it),
    "pages": [Drawing]} (one page unless m.max_height cuts a tall section)."""
    from .view import section_of, section_sort_key

    by_id, found, up, down = _context(claims)
    sec_of = {c["id"]: section_of(c.get("ref", ""), c.get("source", "")) for c in claims}
    index = {cid: i for i, cid in enumerate(by_id)}
    out = []
    for sec in sorted(set(sec_of.values()), key=section_sort_key):
        ids = [cid for cid in by_id if sec_of[cid] == sec]
        mine = set(ids)
        nodes, edges = {}, []
        for cid in ids:
            nodes[cid] = _node_for(cid, by_id, found, section_of, "claim", m)
        ins, outs = set(), set()
        for cid in ids:
            for u in up[cid]:
                if u in mine:
                    edges.append((u, cid))
                else:
                    ins.add(u)
                    nodes.setdefault("in:" + u, _node_for(u, by_id, found, section_of, "stub", m, key="in:" + u))
                    edges.append(("in:" + u, cid))
            for v in down.get(cid, []):
                if v not in mine:
                    outs.add(v)
                    nodes.setdefault("out:" + v, _node_for(v, by_id, found, section_of, "stub", m, key="out:" + v))
                    edges.append((cid, "out:" + v))
        # weakly connected pieces, in the order of their first claim
        parent = {k: k for k in nodes}

        def root(k):
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        for a, b in edges:
            parent[root(a)] = root(b)
        groups: dict = {}
        for k in sorted(nodes, key=lambda k: (index.get(k, len(index)), k)):
            groups.setdefault(root(k), []).append(k)
        order = {k: (0, index[k]) if k in index else (1, short_section(nodes[k].section), k) for k in nodes}
        pieces, lonely = [], []
        for g in groups.values():
            if len(g) == 1:
                lonely.append(nodes[g[0]])
                continue
            members = set(g)
            sub = {k: nodes[k] for k in g}
            es = [(a, b) for a, b in edges if a in members]
            d = _layered({k: GNode(**n.__dict__) for k, n in sub.items()}, es, m, "LR", order=order)
            tall = m.max_height and d.height > m.max_height
            if d.width > m.max_width * m.slack or tall:
                # top to bottom, with narrower labels (more of them fit a row, fewer rows)
                tm = replace(m, wrap=m.wrap_tb)
                narrow = {k: _relabel(GNode(**n.__dict__), tm) for k, n in sub.items()}
                t = _layered(narrow, es, tm, "TB", order=order)
                if t.width < d.width or (tall and t.width <= m.max_width):
                    d = t
                if m.max_height and d.height > m.max_height and d.direction == "TB":
                    pieces.extend(_bands(d, narrow, es, tm, order))
                    continue
            pieces.append(d)
        rows = _pack(pieces, m)
        if lonely:
            cap = Drawing(notes=[(m.pad, m.pad + m.small, "Use no other claim and are used by none:")],
                          height=m.pad + m.small * 1.4, width=m.max_width)
            rows.append((cap.height, [cap]))
            grid = []
            for n in lonely:
                n = GNode(**n.__dict__)
                n.x, n.y = m.pad, m.pad
                grid.append(Drawing(nodes={n.key: n}, width=n.w + m.pad, height=n.h + 2 * m.pad))
            rows.extend(_pack(grid, m))
        pages = _paginate(rows, m)
        slug = "graph-" + (re.sub(r"[^a-z0-9]+", "-", sec.lower()).strip("-") or "section")
        if any(g["slug"] == slug for g in out):  # two section names that differ only in punctuation
            slug += f"-{len(out) + 1}"
        out.append({"name": sec, "slug": slug,
                    "ids": ids, "uses_from": sorted(ins), "used_by": sorted(outs),
                    "pages": [_merge(p, m) for p in pages]})
    return out


def _gstyle(n: GNode) -> dict:
    """Fill: the claim's status; outline: its foundation (see the module docstring).  A stub
    (a claim of another section) is white with a dashed outline in its status colour."""
    if n.kind == "missing":
        return {"fill": "#ffffff", "text": "#57606a", "stroke": "#8c959f", "dash": "4 3", "width": 1.0,
                "opacity": 1.0}
    colour = STATUS_COLOURS.get(n.status, "#999999")
    if n.kind == "stub":
        return {"fill": "#ffffff", "text": "#1f2328", "stroke": colour, "dash": "3 2", "width": 1.6,
                "opacity": 1.0}
    return _style(Node(n.id, n.status, n.foundation))


def _tip(n: GNode) -> str:
    if n.kind == "missing":
        return f"{n.id}: not found in this run"
    where = f" ({n.section}, another section)" if n.kind == "stub" else ""
    title = f": {n.title}" if n.title else ""
    return f"{n.id}{where}{title} [{n.status}; {n.foundation}]"


def _cls(n: GNode) -> str:
    extra = {"stub": " stub", "missing": " missing"}.get(n.kind, "") + (" centre" if n.centre else "")
    return f"node status-{n.status} foundation-{n.foundation.replace(' ', '-')}{extra}"


def _baseline(n: GNode, i: int, m: Metrics) -> float:
    return n.y + m.pady + (i * m.line + (m.line - 1) / 2 + 0.76) * n.font


def edge_curve(pts: list, direction: str) -> list:
    """Cubic Bezier segments [(c1, c2, end)] from pts[0] (the exit port) to pts[-1] (the
    entry port): between layers an S-curve whose control points stay in the gap (so it
    leaves and arrives along the layer axis and the arrowhead lies flat), through a layer a
    straight run along the layer axis at the dummy's place (so it never crosses a node)."""
    segs = []
    for i in range(1, len(pts)):
        (bx, by), (cx, cy) = pts[i - 1], pts[i]
        if i % 2 == 1:
            c1, c2 = (((bx + cx) / 2, by), ((bx + cx) / 2, cy)) if direction == "LR" else \
                ((bx, (by + cy) / 2), (cx, (by + cy) / 2))
        else:
            c1, c2 = (bx, by), (cx, cy)
        segs.append((c1, c2, (cx, cy)))
    return segs


def _f(v: float) -> str:
    """A coordinate, to 0.1 px, without a trailing ".0" (the SVG is 267 claims' worth)."""
    t = f"{v:.1f}"
    return t[:-2] if t.endswith(".0") else t


def _path_d(pts: list, direction: str) -> str:
    d = [f"M{_f(pts[0][0])} {_f(pts[0][1])}"]
    for (ax, ay), (bx, by), (cx, cy) in edge_curve(pts, direction):
        d.append(f"C{_f(ax)} {_f(ay)} {_f(bx)} {_f(by)} {_f(cx)} {_f(cy)}")
    return "".join(d)


def drawing_svg(d: Drawing, m: Metrics = HTML_METRICS, uid: str = "g", label: str = "",
                href=lambda cid: f"#claim-{cid}") -> str:
    """A drawing as an inline <svg>: every label escaped, every node but a missing one a
    link to its claim; its arrowhead marker named after `uid` (unique in the page)."""
    W, H = max(d.width, 40.0), max(d.height, 20.0)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="dep-graph" width="{W:.0f}" height="{H:.0f}" '
             f'viewBox="0 0 {W:.0f} {H:.0f}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
             f'font-size="{m.font:g}" role="img" aria-label="{escape(label)}">',
             f'<defs><marker id="ah-{escape(uid)}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#57606a"/></marker></defs>']
    if d.edges:
        parts.append(f'<g fill="none" stroke="#8c959f" stroke-width="1" marker-end="url(#ah-{escape(uid)})">')
        parts.extend(f'<path d="{_path_d(pts, d.direction)}"/>' for _, _, pts in d.edges)
        parts.append("</g>")
    for x, y, text in d.notes:
        parts.append(f'<text x="{_f(x)}" y="{_f(y)}" fill="#57606a" font-family="sans-serif" '
                     f'font-size="{m.small:g}">{escape(text)}</text>')
    for key in sorted(d.nodes):
        n = d.nodes[key]
        s = _gstyle(n)
        dash = f' stroke-dasharray="{s["dash"]}"' if s["dash"] else ""
        op = f' opacity="{s["opacity"]}"' if s["opacity"] != 1.0 else ""
        body = [f"<title>{escape(_tip(n))}</title>"]
        if n.centre:
            body.append(f'<rect x="{_f(n.x - 3)}" y="{_f(n.y - 3)}" width="{_f(n.w + 6)}" height="{_f(n.h + 6)}" '
                        'rx="6" fill="none" stroke="#fb8f44" stroke-width="2.5"/>')
        body.append(f'<rect x="{_f(n.x)}" y="{_f(n.y)}" width="{_f(n.w)}" height="{_f(n.h)}" rx="4" '
                    f'fill="{s["fill"]}" stroke="{s["stroke"]}" stroke-width="{s["width"]}"{dash}/>')
        for i, line in enumerate(n.lines):  # the labels take the group's fill and size
            italic = ' font-style="italic"' if n.kind == "stub" and i == 0 else ""
            body.append(f'<text x="{_f(n.x + m.padx)}" y="{_f(_baseline(n, i, m))}"{italic}>{escape(line)}</text>')
        tag = "g" if n.kind == "missing" else "a"
        link = "" if n.kind == "missing" else f' href="{escape(href(n.id))}"'
        size = f' font-size="{n.font:g}"' if n.font != m.font else ""
        parts.append(f'<{tag}{link} class="{_cls(n)}"{op} fill="{s["text"]}"{size}>{"".join(body)}</{tag}>')
    parts.append("</svg>")
    return "\n".join(parts)


def section_graphs_html(claims: list) -> list:
    """Per section (paper order): {"name", "slug", "n", "uses_from", "used_by", "svg"}."""
    out = []
    for g in section_graphs(claims, HTML_METRICS):
        (page,) = g["pages"]
        out.append({"name": g["name"], "slug": g["slug"], "n": len(g["ids"]), "uses_from": g["uses_from"],
                    "used_by": g["used_by"],
                    "svg": drawing_svg(page, HTML_METRICS, uid=g["slug"], label=f"Dependency graph of {g['name']}")})
    return out


def neighbourhoods_json(claims: list, m: Metrics = HTML_METRICS) -> str:
    """Every claim's neighbourhood, laid out, as compact JSON for the HTML report's script
    (which only draws boxes and curves from it): {"m": metrics, "s": styles, "n": nodes
    [id, style, w, h, lines, tooltip without the title], "c": {claim id: [width, height, [[node, x, y]],
    [[x1, y1, x2, y2]] (each edge from its exit to its entry port)]}, "t": {claim id: title}
    (what the search box searches)}.  Safe inside <script>."""
    import json

    ctx = _context(claims)
    by_id = ctx[0]
    styles: list = []
    nodes: list = []
    index: dict = {}

    def node(n: GNode) -> int:
        if n.id not in index:
            s = _gstyle(n)
            st = [s["fill"], s["stroke"], s["width"], s["dash"], s["opacity"], s["text"], _cls(n)]
            if st not in styles:
                styles.append(st)
            index[n.id] = len(nodes)
            tip = _tip(GNode(**{**n.__dict__, "title": ""}))  # the title is in "t" once (the script adds it)
            nodes.append([n.id, styles.index(st), round(n.w, 1), round(n.h, 1), list(n.lines), tip])
        return index[n.id]

    per = {}
    for cid, c in by_id.items():
        if not (ctx[2].get(cid) or ctx[3].get(cid)):
            continue
        d = neighbourhood_drawing(claims, cid, m, _ctx=ctx)
        keys = sorted(d.nodes)
        for k in keys:  # the centre's style without its halo flag (the script draws the halo)
            d.nodes[k].centre = False
        per[cid] = [round(d.width), round(d.height),
                    [[node(d.nodes[k]), round(d.nodes[k].x, 1), round(d.nodes[k].y, 1)] for k in keys],
                    [[round(v, 1) for v in pts[0] + pts[-1]] for _, _, pts in d.edges]]
    data = {"m": {"font": m.font, "padx": m.padx, "pady": m.pady, "line": m.line}, "s": styles, "n": nodes,
            "c": per, "t": {cid: str(c.get("title") or "") for cid, c in by_id.items()}}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def drawing_pdf(d: Drawing, path, m: Metrics = PDF_METRICS) -> tuple:
    """A drawing into a one-page PDF at 1 unit = 1 pt (labels at m.font / m.small pt;
    report/pdfgraph.py).  Returns (width, height) in pt."""
    from .pdfgraph import drawings_pdf

    data, ((W, H),) = drawings_pdf([d], m)
    Path(path).write_bytes(data)
    return W, H


GRAPHS_PDF = "figures/_graphs.pdf"  # figure ids are [a-z0-9-]: no figure can have this name


def section_graphs_pdf(claims: list, m: Metrics = PDF_METRICS) -> bytes:
    """Every section's drawing(s), for the LaTeX report, as the pages of one PDF (its fonts
    embedded once, not once per drawing; written by report/pdfgraph.py).  JSON bytes of
    {"pdf": the PDF (base64), "sections": [{"name", "slug", "n", "uses_from", "used_by",
    "pages": [{"file", "page", "scale"}]}]}, `page` counting from 1 in GRAPHS_PDF (`scale` < 1
    only for a piece wider or taller than the page: never in the bundled paper)."""
    import base64
    import json

    from .pdfgraph import drawings_pdf

    graphs = section_graphs(claims, m)
    drawings = [page for g in graphs for page in g["pages"]]
    data, sizes = drawings_pdf(drawings, m) if drawings else (b"", [])
    out, number = [], 0
    for g in graphs:
        pages = []
        for _ in g["pages"]:
            w, h = sizes[number]
            number += 1
            scale = min(1.0, PDF_LINEWIDTH / w, PDF_TEXTHEIGHT / h)
            pages.append({"file": GRAPHS_PDF, "page": number, "scale": round(scale, 4)})
        out.append({"name": g["name"], "slug": g["slug"], "n": len(g["ids"]), "uses_from": g["uses_from"],
                    "used_by": g["used_by"], "pages": pages})
    return json.dumps({"pdf": base64.b64encode(data).decode() if out else "",
                       "sections": out}).encode()
