"""Make docs/report.png, the README's picture of the proof report.

Usage: python3 docs/screenshot.py reports/report.html docs/report.png
Takes one tall headless-Chromium screenshot of the report and stacks three parts of it
(the first findings, the summary, Figure 1, the dependency graph), found by their element ids' offsets.
Needs chromium and Pillow (a matplotlib dependency)."""

import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

WIDTH, PROBE_HEIGHT = 1200, 2000
FINDINGS_HEIGHT = 1150  # the title and the first findings; the whole list is long
SUMMARY_HEIGHT = 520


def main(html: str, out: str) -> None:
    url = Path(html).resolve().as_uri()
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "tall.png"
        # ask the page where the sections are, then take the screenshot
        js = ("<script>window.addEventListener('load',()=>setTimeout(()=>{document.title="
              "['summary','figures','graph','claims-table'].map(i=>document.getElementById(i)"
              ".getBoundingClientRect().top+scrollY).join(',')},0))</script>")
        page = Path(html).read_text(encoding="utf-8").replace("</body>", js + "</body>")
        probe = Path(html).with_name(".screenshot-probe.html")
        probe.write_text(page, encoding="utf-8")
        try:
            common = ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                      f"--user-data-dir={tmp}/profile", "--virtual-time-budget=30000"]
            dom = subprocess.run(common + [f"--window-size={WIDTH},{PROBE_HEIGHT}", "--dump-dom",
                                           probe.resolve().as_uri()],
                                 capture_output=True, text=True, check=True).stdout
            tops = [float(v) for v in dom.split("<title>")[1].split("</title>")[0].split(",")]
            # the window must reach below the graph (section offsets do not depend on its height)
            tall = int(tops[2]) + 700
            subprocess.run(common + [f"--window-size={WIDTH},{tall}", f"--screenshot={shot}", url],
                           capture_output=True, check=True)
        finally:
            probe.unlink()
        im = Image.open(shot)
        summary, figures, graph, table = (int(t) for t in tops)
        parts = [im.crop((0, 0, WIDTH, min(summary, FINDINGS_HEIGHT))),   # the findings come first
                 im.crop((0, summary, WIDTH, summary + SUMMARY_HEIGHT)),
                 im.crop((0, figures, WIDTH, figures + 680)),
                 im.crop((0, graph, WIDTH, min(graph + 620, table)))]
        h = sum(p.height for p in parts)
        sheet = Image.new("RGB", (WIDTH, h), "white")
        y = 0
        for p in parts:
            sheet.paste(p, (0, y))
            y += p.height
        sheet = sheet.resize((WIDTH * 3 // 4, h * 3 // 4), Image.LANCZOS)
        sheet = sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        sheet.save(out, optimize=True)
        print(f"{out}: {sheet.size[0]}x{sheet.size[1]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
