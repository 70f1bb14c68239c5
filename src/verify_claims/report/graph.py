"""The dependency graph of claims (``uses``), laid out in Python: no system program needed.

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

from dataclasses import dataclass, field
from html import escape

__all__ = ["STATUS_COLOURS", "layout", "graph_svg", "graph_pdf", "foundations"]

STATUS_COLOURS = {
    "proved": "#1a7f37", "certified": "#0969da", "checked": "#1b7c83", "refuted": "#cf222e",
    "undecided": "#b08800", "error": "#8250df", "timeout": "#6e7781", "missing": "#ffffff",
    "not-reached": "#8c959f",  # a chain step after the first failing one
}
_RANK = {"proved": 2, "certified": 2, "checked": 1}

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


def graph_pdf(claims: list, path) -> bool:
    """The same layout drawn by matplotlib into a PDF (for the LaTeX report).  Returns
    (width, height) in points, or None when there is nothing to draw."""
    lay = layout(claims)
    if not lay.nodes:
        return None
    import matplotlib
    from matplotlib.backends.backend_pdf import FigureCanvasPdf
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as MPath

    scale = 72.0  # points per inch; 1 layout unit = 1 pt
    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans Mono"}):
        fig = MplFigure(figsize=(lay.width / scale, lay.height / scale))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, lay.width)
        ax.set_ylim(lay.height, 0)
        ax.axis("off")
        for u, v in lay.edges:
            a, b = lay.nodes[u], lay.nodes[v]
            x1, y1, x2, y2 = a.x + a.w, a.y + a.h / 2, b.x, b.y + b.h / 2
            mx = (x1 + x2) / 2
            p = MPath([(x1, y1), (mx, y1), (mx, y2), (x2, y2)],
                      [MPath.MOVETO, MPath.CURVE4, MPath.CURVE4, MPath.CURVE4])
            ax.add_patch(FancyArrowPatch(path=p, arrowstyle="-|>", mutation_scale=7, color="#8c959f", lw=0.6))
        if lay.isolated_top:
            ax.text(PAD, lay.isolated_top, "Claims that use no other claim and are used by none:",
                    fontsize=8, color="#57606a", family="DejaVu Sans")
        for n in sorted(lay.nodes):
            nd = lay.nodes[n]
            s = _style(nd)
            ls = (0, tuple(float(t) for t in s["dash"].split())) if s["dash"] else "solid"
            ax.add_patch(FancyBboxPatch((nd.x, nd.y), nd.w, nd.h, boxstyle="round,pad=0,rounding_size=4",
                                        fc=s["fill"], ec=s["stroke"], lw=s["width"] * 0.6, ls=ls,
                                        alpha=s["opacity"]))
            ax.text(nd.x + 8, nd.y + nd.h / 2, n + (" (not found)" if nd.missing else ""), va="center",
                    fontsize=8, color=s["text"], alpha=max(s["opacity"], 0.8))
        FigureCanvasPdf(fig).print_pdf(str(path), metadata={"CreationDate": None, "ModDate": None})
    return lay.width, lay.height
