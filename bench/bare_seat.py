"""A bare Textual screen of a hosted seat's shape, for ``bench/host.py``'s floor.

    python bench/bare_seat.py COUNT OUT

A header line, a side panel, a log that grows by a line and scrolls to its end (its
lines drawn once each and kept), a message line and a footer: what a seat's screen
changes when a note arrives, with none of margin's work. It makes COUNT such updates at
random intervals of 80-250 ms (the bench's commits) and writes the processor time an
update took to OUT, from the first update to the last.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

#: lines in the log before the first update
FIRST = 50


class Log(ScrollView):
    """A log of one line a record, kept at its end."""

    DEFAULT_CSS = "Log { height: 1fr; scrollbar-size-vertical: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines = FIRST
        self.drawn: dict[int, Strip] = {}

    def grow(self) -> None:
        self.lines += 1
        self.virtual_size = Size(self.size.width, self.lines)
        self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        line = int(self.scroll_offset.y) + y
        strip = self.drawn.get(line)
        if strip is None:
            text = Text(f"{line:7d}   note: the fight goes on ({line})")
            strip = Strip(list(text.render(self.app.console)), text.cell_len)
            strip = self.drawn[line] = strip.crop_extend(0, self.size.width, None)
        return strip


class BareSeat(App[None]):
    CSS = "#side { width: 36; } #header { height: 1; }"

    def __init__(self, count: int, out: Path) -> None:
        super().__init__()
        self.count, self.out, self.done = count, out, 0
        self.started = 0.0

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal():
            with Vertical(id="side"):
                yield Static("\n".join(f" P{k:02d}\n   Edge 0/0 · Health 30/30" for k in range(9)))
            yield Log()
        yield Static("watching; : gives a command", id="message")
        yield Static("f1 Help  f2 Rules  p Panels  q Quit", id="footer")

    def on_mount(self) -> None:
        self.set_timer(2, self.update_soon)

    def update_soon(self) -> None:
        self.set_timer(random.uniform(0.08, 0.25), self.update)

    def update(self) -> None:
        if self.done == 0:
            self.started = time.process_time()
        elif self.done == self.count:
            spent = time.process_time() - self.started
            self.out.write_text(f"{spent / self.count * 1000:.2f}\n")
            self.exit()
            return
        self.done += 1
        self.query_one("#header", Static).update(Text(f" margin  bare seat  record {self.done}"))
        self.query_one(Log).grow()
        self.update_soon()


if __name__ == "__main__":
    random.seed(7)
    BareSeat(int(sys.argv[1]), Path(sys.argv[2])).run()
