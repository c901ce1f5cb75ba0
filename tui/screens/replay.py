"""Replay: a table's log stepped through record by record, as it happened or as corrected."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from margin.core import RuleError
from margin.tui.table.reader import (
    View,
    parse_jump,
)

from .base import (
    PANELS_HELP,
    SPEEDS,
    TableApp,
)
from .modals import (
    JumpScreen,
    SearchScreen,
)
from .widgets import (
    LogView,
    key_pair,
)


class ReplayApp(TableApp):
    """Scrub a session record by record, as it happened or as corrected."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", "Next", tooltip="next record"),
        Binding("left,h", "step(-1)", "Back", tooltip="previous record"),
        # two keys to a line of help: what it shows and says, then each key's binding
        *key_pair("PageDown / PageUp", "25 records on / back",
                  ("pagedown", "step(25)", "+25"), ("pageup", "step(-25)", "-25")),
        *key_pair("Home / End", "first / last record",
                  ("home", "first", "First"), ("end", "last", "Last")),
        Binding("space", "play", "Play/pause", tooltip="play / pause"),
        *key_pair("+ / -", "play faster / slower",
                  ("plus,equals_sign", "speed(1)", "Faster"), ("minus", "speed(-1)", "Slower")),
        Binding("c", "corrected", "Corrected", tooltip="switch: as it happened / as corrected"),
        Binding("g", "jump", "Jump", tooltip="jump to a record, round, turn or count"),
        Binding(
            "slash", "search", "Search", show=False,
            tooltip="search the log (text); @NAME lists one character's records",
        ),
        Binding("n", "search_again", "Again", show=False, tooltip="the search's match before this one"),
        Binding(
            "enter,f3", "read", "Read", show=False, tooltip="read the record shown last, in full"
        ),
        Binding("f1,question_mark", "help", "Help", tooltip="this help"),
        Binding("f2", "rules", "Rules", tooltip="the rules of this table's system"),
        Binding("p,f4", "panels", "Panels", tooltip=PANELS_HELP),
        Binding("q", "quit", "Quit", tooltip="quit"),
    ]  # fmt: skip

    def __init__(self, view: View, name: str) -> None:
        super().__init__(view.table, name)
        self.view = view
        self.speed = 2
        self.playing = False
        self.view.goto(0)

    def start(self) -> None:
        super().start()
        # The log never takes focus here, so its scrolling keys leave Left, Right,
        # Home and End to the replay.
        self.query_one(LogView).can_focus = False
        self.set_focus(None)
        self.timer = self.set_interval(1 / SPEEDS[self.speed], self.tick, pause=True)
        self.say("Right/Left step, Space plays, c switches as it happened/as corrected, g jumps")

    def header_text(self) -> Text:
        view = self.view
        text = super().header_text()
        text.append(f"  {view.log_len()}/{len(view.seqs())}", style="bold")
        text.append("  as corrected" if view.corrected else "  as it happened", style="bold cyan")
        if self.playing:
            text.append(f"  ▶ {SPEEDS[self.speed]}/s", style="bold green")
        if view.player is not None:
            name = view.state().characters.get(view.player)
            text.append(f"  seen by {name.name if name else view.player}", style="cyan")
        return text

    def _moved(self) -> None:
        self.redraw(follow=True)

    def action_step(self, delta: int) -> None:
        assert self.view.at is not None
        self.view.goto(self.view.at + delta)
        self._moved()

    def action_first(self) -> None:
        self.view.goto(0)
        self._moved()

    def action_last(self) -> None:
        self.view.goto(len(self.view.seqs()) - 1)
        self._moved()

    def tick(self) -> None:
        assert self.view.at is not None
        if self.view.at >= len(self.view.seqs()) - 1:
            self.action_play()
            return
        self.action_step(1)

    def action_play(self) -> None:
        self.playing = not self.playing
        if self.playing:
            self.timer.resume()
        else:
            self.timer.pause()
        self._moved()

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        self.timer.stop()
        self.timer = self.set_interval(1 / SPEEDS[self.speed], self.tick, pause=not self.playing)
        self.say(f"speed {SPEEDS[self.speed]} records a second")
        self._moved()

    def action_corrected(self) -> None:
        self.view.set_corrected(not self.view.corrected)
        self._moved()
        other = "as it happened" if self.view.corrected else "as corrected"
        self.say(f"c switches to {other}")

    def action_jump(self) -> None:
        def jump(text: str | None) -> None:
            if not text:
                return
            try:
                self.view.goto(parse_jump(text, self.view))
            except RuleError as exc:
                self.say(str(exc), error=True)
                return
            self._moved()
            self.say(f"jumped to {text.strip()}: record {self.view.number}")

        self.push_screen(JumpScreen(), jump)

    def action_search(self) -> None:
        def search(text: str | None) -> None:
            if text is None:
                return
            self._seek(text)

        self.push_screen(SearchScreen(), search)

    def action_search_again(self) -> None:
        self._seek("")

    def _seek(self, text: str) -> None:
        found = self.search(text, self.view.at or 0)
        if found is not None:
            self.view.goto(found)
            self._moved()
            self.say(f"/{self.last_search}: record {self.view.number} (n: the match before)")
