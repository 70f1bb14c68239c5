"""The live line on a terminal: what is being verified now, the counts so far, an ETA.

It sits below the per-claim lines and is redrawn in place (carriage return, erase line);
it is cleared before any other line is printed, so a log piped to a file never sees it
(the command only draws it when standard output is a terminal).
"""

from __future__ import annotations

import shutil
import time

__all__ = ["LiveLine", "format_eta"]


def format_eta(seconds) -> str:
    if seconds is None:
        return "ETA --"
    seconds = int(round(seconds))
    m, s = divmod(seconds, 60)
    h, m = divmod(m, 60)
    return f"ETA {h}:{m:02d}:{s:02d}" if h else f"ETA {m}:{s:02d}"


class LiveLine:
    def __init__(self, stream, clock=time.monotonic):
        self.stream = stream
        self.clock = clock
        self.total = 0
        self.done = 0
        self.counts: dict = {}
        self.bad = 0
        self.now: tuple = ()
        self.first_work = None   # when the first claim that needed work started
        self.worked = 0          # claims finished that needed work (not from the store)
        self.to_work = 0
        self.shown = False

    def start(self, total, from_store) -> None:
        self.total = total
        self.to_work = max(0, total - from_store)
        self.draw()

    def running(self, ids) -> None:
        self.now = tuple(ids)
        if ids and self.first_work is None:
            self.first_work = self.clock()
        self.draw()

    def result(self, res, done) -> None:
        self.done = done
        self.counts[str(res.status)] = self.counts.get(str(res.status), 0) + 1
        self.bad += 0 if res.as_expected else 1
        if getattr(res, "origin", "") in ("searched", "replayed"):
            self.worked += 1
        self.draw()

    def eta(self):
        left = self.to_work - self.worked
        if left <= 0:
            return 0.0
        if not self.worked or self.first_work is None:
            return None
        return (self.clock() - self.first_work) / self.worked * left

    def text(self, width=None) -> str:
        width = width or shutil.get_terminal_size((100, 20)).columns
        counts = " ".join(f"{n} {s}" for s, n in self.counts.items())
        bad = f", {self.bad} NOT AS EXPECTED" if self.bad else ""
        now = ("running: " + ", ".join(self.now)) if self.now else ""
        line = f"[{self.done}/{self.total}] {counts or 'starting'}{bad} | {format_eta(self.eta())}"
        if now:
            line += f" | {now}"
        return line if len(line) < width else line[: max(0, width - 2)] + "…"

    def draw(self) -> None:
        self.stream.write("\r\033[K" + self.text())
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
