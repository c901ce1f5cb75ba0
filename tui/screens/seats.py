"""Seats on screen: the GM's line of who sits at the table, and the digest a returning
player reads before their live view (``tui/table/seats.py`` keeps what both show)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from margin.tui.table.reader import View
from margin.tui.table.seats import BEAT, seated, seats_line

from .widgets import KeysFooter

#: seconds between two looks at who sits at the table
LOOK_INTERVAL = BEAT / 2


class SeatsLine(Static):
    """Who is seated now, by which door, and how far each seat has read (the GM's); shown
    only while a player sits."""

    DEFAULT_CSS = """
    SeatsLine { height: auto; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, view: View, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.view = view
        self.shown = ""
        self.display = False

    def on_mount(self) -> None:
        self.look()
        self.set_interval(LOOK_INTERVAL, self.look)

    def look(self) -> None:
        """Read the seats' files (a few small ones) and redraw only what changed."""
        table = self.view.table
        with table.lock:
            head = table.projection.seq
        line = seats_line(seated(table.store.name), head)
        if line != self.shown:
            self.shown = line
            self.update(line)
            # a GM who plays alone keeps the row for the log
            self.display = bool(line)


class DigestScreen(Screen[None]):
    """What happened while the player was away, through their lens, before the live view."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,escape,space", "go_on", "On to the live view"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    DigestScreen #digest-head { text-style: bold; padding: 0 1; }
    DigestScreen #digest-body { padding: 0 1; }
    """

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        head, *body = self.lines
        yield Static(Text(f"While you were away: {head}"), id="digest-head")
        with VerticalScroll():
            yield Static(Text("\n".join(body)), id="digest-body")
        yield Static(Text("Enter: on to the live view", style="dim"), id="digest-keys")
        yield KeysFooter()

    def action_go_on(self) -> None:
        self.dismiss()
