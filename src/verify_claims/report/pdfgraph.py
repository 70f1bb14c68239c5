"""Dependency drawings (``graph.Drawing``) as the pages of a PDF, written directly.

The LaTeX report's section graphs are boxes, Bezier curves, arrowheads and short labels:
matplotlib took about 5.5 s of CPU to draw the bundled paper's 30 pages (most of it in its
general text machinery), which every run without a proof store paid.  What they need of
PDF is small, so it is written here: one page per drawing at 1 unit = 1 pt, the labels
in DejaVu Sans Mono (the advance the layout measures with, ``Metrics.char``), the notes
in DejaVu Sans, each font embedded once for all pages as a subset (fontTools, which
matplotlib installs) with a ToUnicode map, so that pdftotext and a reader's search find
every label.  No dates and a fixed object order: the same drawings, the same bytes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import zlib
from pathlib import Path

from .graph import _baseline, _gstyle, edge_curve

__all__ = ["drawings_pdf"]

EDGE = "#8c959f"
HEAD = "#57606a"
NOTE = "#57606a"
EDGE_WIDTH = 0.6
STROKE_SCALE = 0.6   # a node's outline: its style's width (the SVG's px) times this, in pt
ROUNDING = 2.5       # corner radius of a node's box, pt
KAPPA = 0.5523       # cubic Bezier control distance of a quarter circle, per radius

_FONT_FILES = {"mono": "DejaVuSansMono.ttf", "mono-italic": "DejaVuSansMono-Oblique.ttf", "sans": "DejaVuSans.ttf"}


def _font_dir() -> Path:
    """matplotlib's bundled DejaVu fonts, found without importing matplotlib (0.2 s)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.origin:
        raise RuntimeError("matplotlib is not installed: its DejaVu fonts draw the dependency graphs "
                           "(pip install matplotlib)")
    d = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    missing = [f for f in _FONT_FILES.values() if not (d / f).is_file()]
    if missing:
        raise RuntimeError(f"matplotlib's DejaVu fonts ({', '.join(missing)}) are not in {d}: they draw the "
                           "dependency graphs; reinstall matplotlib from PyPI (pip install --force-reinstall matplotlib)")
    return d


def _rgb(colour: str) -> str:
    c = colour.lstrip("#")
    return " ".join(_n(int(c[i:i + 2], 16) / 255) for i in (0, 2, 4))


def _n(v: float) -> str:
    """A number as PDF writes it: at most 3 decimals, no trailing zeros."""
    t = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if t in ("", "-0") else t


class _Font:
    """One TrueType face: the characters the pages use, then its subset embedded as a
    CIDFontType2 (Identity-H, 2-byte glyph ids) with widths and a ToUnicode map."""

    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path
        self.chars: set = set()
        self.gid: dict = {}      # char -> glyph id in the subset
        self.font = None

    def use(self, text: str) -> None:
        self.chars.update(text)

    def subset(self) -> None:
        from fontTools import subset as fts

        options = fts.Options()
        options.notdef_outline = True
        options.name_IDs = ["*"]
        options.layout_features = []      # single glyphs, no shaping: none of GSUB/GPOS is used
        options.drop_tables += ["GSUB", "GPOS", "GDEF", "kern", "FFTM"]
        # read lazily: only the kept glyphs' outlines are decoded (0.36 s -> 0.05 s a font);
        # recalc_timestamp is off by default, so the subset carries no date
        font = fts.load_font(str(self.path), options, lazy=True)
        sub = fts.Subsetter(options)
        sub.populate(unicodes=[ord(c) for c in sorted(self.chars)])
        sub.subset(font)
        cmap = font.getBestCmap() or {}
        self.gid = {c: font.getGlyphID(cmap[ord(c)]) if ord(c) in cmap else 0 for c in self.chars}
        self.font = font

    def encode(self, text: str) -> str:
        return "<" + "".join(f"{self.gid.get(c, 0):04X}" for c in text) + ">"

    def objects(self, add) -> int:
        """Add this font's objects through add(body bytes) -> object number; the Type0 font's number."""
        font = self.font
        buf = io.BytesIO()
        font.save(buf)
        data = buf.getvalue()
        upem = font["head"].unitsPerEm
        scale = 1000.0 / upem
        hmtx = font["hmtx"]
        order = font.getGlyphOrder()
        # the subset's name: a tag from its glyphs, as PDF asks of a subset (ABCDEF+Name)
        tag = "".join(chr(65 + b % 26) for b in hashlib.sha256(data).digest()[:6])
        base = f"{tag}+{font['name'].getDebugName(6) or self.path.stem}"
        head, hhea, post = font["head"], font["hhea"], font["post"]
        os2 = font["OS/2"] if "OS/2" in font else None
        flags = 4 | (1 if self.name.startswith("mono") else 0) | (64 if post.italicAngle else 0)
        fontfile = add(_stream(data, f"/Length1 {len(data)}"))
        descriptor = add((
            f"<< /Type /FontDescriptor /FontName /{base} /Flags {flags} "
            f"/FontBBox [{_n(head.xMin * scale)} {_n(head.yMin * scale)} {_n(head.xMax * scale)} {_n(head.yMax * scale)}] "
            f"/ItalicAngle {_n(post.italicAngle)} /Ascent {_n(hhea.ascent * scale)} /Descent {_n(hhea.descent * scale)} "
            f"/CapHeight {_n((getattr(os2, 'sCapHeight', 0) or hhea.ascent) * scale)} /StemV 80 "
            f"/FontFile2 {fontfile} 0 R >>").encode())
        used = sorted(set(self.gid.values()) | {0})
        widths = " ".join(f"{g} [{_n(hmtx[order[g]][0] * scale)}]" for g in used)
        cid = add((f"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /{base} "
                   "/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
                   f"/FontDescriptor {descriptor} 0 R /CIDToGIDMap /Identity /DW 1000 /W [{widths}] >>").encode())
        tounicode = add(_stream(self._cmap().encode()))
        return add((f"<< /Type /Font /Subtype /Type0 /BaseFont /{base} /Encoding /Identity-H "
                    f"/DescendantFonts [{cid} 0 R] /ToUnicode {tounicode} 0 R >>").encode())

    def _cmap(self) -> str:
        pairs = sorted((g, c) for c, g in self.gid.items() if g)
        lines = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
                 "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
                 "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
                 "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
        for i in range(0, len(pairs), 100):  # at most 100 entries per block
            block = pairs[i:i + 100]
            lines.append(f"{len(block)} beginbfchar")
            lines += [f"<{g:04X}> <{c.encode('utf-16-be').hex().upper()}>" for g, c in block]
            lines.append("endbfchar")
        lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
        return "\n".join(lines)


def _stream(data: bytes, extra: str = "") -> bytes:
    packed = zlib.compress(data, 9)
    return (f"<< /Length {len(packed)} /Filter /FlateDecode {extra}>>\nstream\n".encode() + packed
            + b"\nendstream")


def _round_rect(x, y, w, h, r) -> str:
    """A box with rounded corners in PDF coordinates (y up), as one closed path."""
    r = max(0.0, min(r, w / 2, h / 2))
    k = r * KAPPA
    x1, y1 = x + w, y + h
    p = [f"{_n(x + r)} {_n(y)} m", f"{_n(x1 - r)} {_n(y)} l",
         f"{_n(x1 - r + k)} {_n(y)} {_n(x1)} {_n(y + r - k)} {_n(x1)} {_n(y + r)} c",
         f"{_n(x1)} {_n(y1 - r)} l",
         f"{_n(x1)} {_n(y1 - r + k)} {_n(x1 - r + k)} {_n(y1)} {_n(x1 - r)} {_n(y1)} c",
         f"{_n(x + r)} {_n(y1)} l",
         f"{_n(x + r - k)} {_n(y1)} {_n(x)} {_n(y1 - r + k)} {_n(x)} {_n(y1 - r)} c",
         f"{_n(x)} {_n(y + r)} l",
         f"{_n(x)} {_n(y + r - k)} {_n(x + r - k)} {_n(y)} {_n(x + r)} {_n(y)} c", "h"]
    return " ".join(p)


def _page(d, m, fonts: dict, alphas: dict) -> tuple:
    """(drawing operators, labels to write, width, height) of one drawing: the labels are
    written once every font is subset (its glyph ids are known then); fonts record the
    characters they must hold, alpha states are named as they are first used."""
    W, H = max(d.width, 40.0), max(d.height, 20.0)

    def gs(a: float) -> str:
        if a >= 1.0:
            return "/GS1 gs"
        if a not in alphas:
            alphas[a] = f"/GS{len(alphas) + 2}"
        return f"{alphas[a]} gs"

    out = ["/GS1 gs"]
    # the edges and their arrowheads first, the boxes over them, every label last
    out.append(f"{_rgb(EDGE)} RG {_n(EDGE_WIDTH)} w [] 0 d")
    heads = []
    for _, _, pts in d.edges:
        seg = [f"{_n(pts[0][0])} {_n(H - pts[0][1])} m"]
        for (ax, ay), (bx, by), (cx, cy) in edge_curve(pts, d.direction):
            seg.append(f"{_n(ax)} {_n(H - ay)} {_n(bx)} {_n(H - by)} {_n(cx)} {_n(H - cy)} c")
        out.append(" ".join(seg) + " S")
        (x, y), hl, hw = pts[-1], 4.5, 1.9
        tri = [(x, y), (x - hl, y - hw), (x - hl, y + hw)] if d.direction == "LR" else \
            [(x, y), (x - hw, y - hl), (x + hw, y - hl)]
        heads.append(f"{_n(tri[0][0])} {_n(H - tri[0][1])} m {_n(tri[1][0])} {_n(H - tri[1][1])} l "
                     f"{_n(tri[2][0])} {_n(H - tri[2][1])} l h f")
    if heads:
        out.append(f"{_rgb(HEAD)} rg")
        out += heads
    texts = []
    for x, y, text in d.notes:
        fonts["sans"].use(text)
        texts.append(("sans", m.small, NOTE, gs(1.0), x, y, text))
    for key in sorted(d.nodes):
        n = d.nodes[key]
        s = _gstyle(n)
        lw = s["width"] * STROKE_SCALE
        dash = " ".join(_n(float(t) * lw) for t in s["dash"].split())  # scaled by the width, as matplotlib drew them
        out.append(f"{gs(s['opacity'])} {_rgb(s['fill'])} rg {_rgb(s['stroke'])} RG {_n(lw)} w [{dash}] 0 d")
        out.append(_round_rect(n.x, H - n.y - n.h, n.w, n.h, ROUNDING) + " B")
        for i, line in enumerate(n.lines):
            face = "mono-italic" if n.kind == "stub" and i == 0 else "mono"
            fonts[face].use(line)
            alpha = max(s["opacity"], 0.8)
            texts.append((face, n.font, s["text"], gs(alpha), n.x + m.padx, _baseline(n, i, m), line))
    return out, texts, W, H


def drawings_pdf(drawings: list, m) -> tuple:
    """(PDF bytes, [(width, height) in pt per page]): each drawing one page, in order."""
    font_dir = _font_dir()
    fonts = {name: _Font(name, font_dir / f) for name, f in _FONT_FILES.items()}
    alphas: dict = {}
    pages = [_page(d, m, fonts, alphas) for d in drawings]
    used = [name for name in _FONT_FILES if fonts[name].chars]
    for name in used:
        fonts[name].subset()
    refs = {name: f"/F{i + 1}" for i, name in enumerate(used)}

    objects: list = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")   # written last, when the page tree's number is known
    pages_obj = add(b"")
    font_objs = {name: fonts[name].objects(add) for name in used}
    states = " ".join(["/GS1 << /Type /ExtGState /ca 1 /CA 1 >>"]
                      + [f"{key} << /Type /ExtGState /ca {_n(a)} /CA {_n(a)} >>" for a, key in alphas.items()])
    resources = add((f"<< /Font << {' '.join(f'{refs[n]} {font_objs[n]} 0 R' for n in used)} >> "
                     f"/ExtGState << {states} >> >>").encode())   # one for every page
    kids, sizes = [], []
    for ops, texts, W, H in pages:
        body = list(ops)
        for face, size, colour, state, x, y, text in texts:
            body.append(f"{state} {_rgb(colour)} rg BT {refs[face]} {_n(size)} Tf 1 0 0 1 {_n(x)} {_n(H - y)} Tm "
                        f"{fonts[face].encode(text)} Tj ET")
        content = add(_stream("\n".join(body).encode()))
        kids.append(add(f"<< /Type /Page /Parent {pages_obj} 0 R /MediaBox [0 0 {_n(W)} {_n(H)}] "
                        f"/Resources {resources} 0 R /Contents {content} 0 R >>".encode()))
        sizes.append((W, H))
    objects[pages_obj - 1] = (f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] "
                              f"/Count {len(kids)} >>").encode()
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {pages_obj} 0 R >>".encode()

    buf = io.BytesIO()
    buf.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(buf.tell())
        buf.write(f"{i} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = buf.tell()
    buf.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    buf.write("".join(f"{o:010d} 00000 n \n" for o in offsets).encode())
    buf.write(f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return buf.getvalue(), sizes
