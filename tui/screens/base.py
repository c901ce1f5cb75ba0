"""What every table screen shares: the App that shows a ``View`` of a table, follows it
and runs its writes; the GM's, a player's and the replay's screens are kinds of it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from margin.core import RuleError
from margin.core.authority import GM_SEAT, Seat
from margin.core.commands import Command
from margin.events import Record, StoreError
from margin.tui.table import startup
from margin.tui.table.keys import data_dir
from margin.tui.table.notices import per_table
from margin.tui.table.reader import (
    CharacterRow,
    LiveTable,
    View,
)
from margin.tui.text import render

from . import commandline
from .messages import Folded, ReadFailed
from .modals import (
    HelpScreen,
    ReadingScreen,
    RecordScreen,
    RulesScreen,
    help_keys,
    key_name,
)
from .widgets import (
    BriefLine,
    ClockPanel,
    CommandLine,
    KeysFooter,
    LogView,
    PartyPanel,
    key_pair,
)

#: How often a screen looks for records other processes committed (one a host tells of
#: each commit looks by itself only as often as the host says: ``TableApp.told``).
FOLLOW_INTERVAL = 0.02
#: How often a waiting player's view looks whether the character is seated.
SEAT_INTERVAL = 0.1
#: seconds between two looks for what the table's host has to say
NOTICE_INTERVAL = 0.5
#: Replay speeds, records per second.
SPEEDS = (1, 2, 5, 10, 25, 100)
#: Columns below which a table screen is narrow (a phone): the log alone, the clock and
#: one's own character in a line above it, the panels a key away.
NARROW = 60
#: the key that switches between the panels and the log alone, and what help says of it
PANELS_HELP = "the log alone, or the clock and characters (narrow: instead of the log)"


def default_table_path() -> Path:
    """``$XDG_DATA_HOME/margin/default.margin``, else ``~/.local/share/margin/default.margin``."""
    return data_dir() / "default.margin"


def history_path(table: str | Path) -> Path:
    """The command history of one table: in margin's data directory, never in the log."""
    return per_table("history", table)


class Failed(Exception):
    """A command margin failed on (a bug): says whether its records were written."""


def write(table: LiveTable, command: Command, seat: Seat = GM_SEAT) -> list[Record]:
    """Decide and append ``command`` given from ``seat`` (in a worker); the records it wrote."""
    before = table.projection.seq
    try:
        return table.execute(command, seat=seat)
    except (RuleError, StoreError):
        raise
    except Exception as exc:  # a bug must not end the GM's session
        appended = table.store.refresh() != before
        raise Failed(
            f"margin failed on that command ({type(exc).__name__}: {exc}); "
            + ("its records were written: reopen the table" if appended else "nothing was written")
        ) from None


@dataclass
class Paste:
    """Pasted lines being run: the first refused one stops the rest."""

    lines: list[str]
    ran: int = 0
    #: set by the steps' worker when a line of the paste is refused: the rest are dropped
    refused: bool = False


@dataclass(frozen=True)
class Step:
    """A line or command waiting its turn: the GM's lines run one at a time, in order."""

    text: str | None = None
    command: Command | None = None
    #: an undo to preview before it is confirmed
    preview: bool = False
    #: the command line a typed line came from
    line: CommandLine | None = None
    paste: Paste | None = None


class TableScreen(Screen[None]):
    """The table's own screen: the panels of the App that shows the table, under any
    dialog. The GM's and the replay's App start on it; a player's App switches to it
    once their character is seated."""

    @property
    def table_app(self) -> TableApp:
        app = self.app
        assert isinstance(app, TableApp)
        return app

    def compose(self) -> ComposeResult:
        yield from self.table_app.compose_table()

    def on_mount(self) -> None:
        self.table_app.start()


class TableApp(App[None]):
    """The panels every screen shares: header, clock, party, log, message line.

    The table is folded and written in Textual workers (group ``table``), one table
    job at a time: each job's worker says what came of it in a message of its own
    (``messages``), shown here, on the screen's own thread, which reads the table only
    through its ``View`` (under the table's lock).
    """

    # from this folder, whichever module an App subclass is defined in (the host's sessions)
    CSS_PATH = Path(__file__).with_name("margin.tcss")
    TITLE = "margin"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]
    # Help lists every binding with a tooltip, the screen's widgets' too (HELP_WIDGETS): a key
    # and what it does are written once, here. A pair of keys shares the first one's line.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f3", "read", "Read", show=False, tooltip="read the log's last record shown, in full"),
        *key_pair(
            "Shift+Up/Down", "scroll the characters",
            ("shift+up", "party(-1)", "Party up"),
            ("shift+down", "party(1)", "Party down"),
        ),
    ]  # fmt: skip
    #: widgets whose keys help lists too (the one that has the keyboard)
    HELP_WIDGETS: ClassVar[tuple[type[CommandLine | LogView], ...]] = ()
    #: the party panel of a table nobody sits at
    EMPTY = "nobody at the table yet"

    #: what the table's screen shows of the table (a player's: once they are seated)
    view: View

    def __init__(self, table: LiveTable, name: str) -> None:
        super().__init__()
        self.table = table
        self.table_name = name
        self.last_search = ""
        #: table jobs started whose answer has not been handled yet (a fold, a write)
        self._jobs = 0
        #: a pipe that tells the screen of each commit (a host's session, which reads it)
        #: and the seconds between the screen's own looks meanwhile; None: the screen
        #: looks every ``FOLLOW_INTERVAL``
        self.told: tuple[int, float] | None = None
        #: a commit was told while a table job was in flight: followed once it has ended
        self._told_late = False

    @property
    def busy(self) -> bool:
        """Whether a table job (a write, a catch-up fold) is in flight."""
        return self._jobs > 0

    def idle(self) -> None:
        """No table job is in flight any more: start what waits for one to end."""

    def get_default_screen(self) -> Screen[Any]:
        return TableScreen(id="_default")

    def compose_table(self) -> ComposeResult:
        """The table screen's panels."""
        yield Static(id="header")
        yield BriefLine(id="brief")
        with Horizontal(id="body"):
            with Vertical(id="side"):
                with VerticalScroll(id="clock-scroll", can_focus=False):
                    yield ClockPanel(id="clock")
                with VerticalScroll(id="party-scroll", can_focus=False):
                    yield PartyPanel(id="party")
            yield LogView(self.view, id="log")
        yield from self.compose_bottom()
        yield KeysFooter()

    def compose_bottom(self) -> Iterable[Any]:
        yield Static(id="message")

    async def on_event(self, event: events.Event) -> None:
        # Keys for a dialog that is only read are acted on here, in the order typed: handed
        # to the dialog and acted on later, a key could overtake one typed before it.
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and isinstance(self.screen, ReadingScreen)
            and await self.screen.take_key(event)
        ):
            return
        await super().on_event(event)

    def start(self) -> None:
        """The table's screen is up: draw it from the table's newest record."""
        self.fit()
        self.redraw(follow=True)

    def on_ready(self) -> None:
        # the first frame is drawn: the collector paused for the start runs again
        startup.resume()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """A narrow screen's log numbers its rows only as wide as they need, and its footer
        packs its keys and leaves the palette's key to help."""
        narrow = self.size.width < NARROW
        if not self.screen_stack:
            return  # a terminal's first size comes before the screen
        table = self.screen_stack[0]  # the table's screen (or the waiting one), under any dialog
        for footer in table.query(KeysFooter):
            footer.compact = narrow
            footer.show_command_palette = not narrow
        for log in table.query(LogView):
            if log.narrow != narrow:
                log.narrow = narrow
                log.reload()

    def action_panels(self) -> None:
        """Switch between the log alone and the panels (on a narrow screen, one or the other)."""
        self.screen.toggle_class("-flip")

    def header_text(self) -> Text:
        state = self.view.state()
        text = Text()
        text.append(" margin ", style="bold reverse")
        text.append(f" {state.title or self.table_name}", style="bold")
        text.append(f"  {self.view.system.title}  record {self.view.number}", style="dim")
        return text

    def redraw(self, follow: bool = False) -> None:
        if not self.query("#header"):
            # the screen is coming down (the app quits as a fold lands): nothing to draw
            return
        with self.table.lock:  # every panel from one moment of the table
            self._redraw(follow)

    def _redraw(self, follow: bool) -> None:
        self._show("header", self.header_text(), self.query_one("#header", Static).update)
        clock = self.view.clock()
        self._show("clock", clock, self.query_one(ClockPanel).show)
        current = [i for i, row in enumerate(clock.rows) if row.current] if clock else []
        if current:
            # Keep whoever acts in sight when the order is longer than its panel.
            scroll = self.query_one("#clock-scroll", VerticalScroll)
            self.call_after_refresh(scroll.scroll_to, y=max(0, current[0] - 1), animate=False)
        characters, own = self.view.characters(), self.own()
        self._show("party", (characters, own), self._show_party)
        self._show("brief", (clock, characters, own), self.query_one(BriefLine).show)
        self.query_one(LogView).reload(follow=follow)

    def _show_party(self, party: tuple[list[CharacterRow], str | None]) -> None:
        self.query_one(PartyPanel).show(party[0], party[1], self.EMPTY)

    def _show(self, panel: str, content: Any, update: Any) -> None:
        # An update lays the whole screen out again: skip panels that did not change
        # (a screen that many players watch at once pays this on every record).
        shown = self.__dict__.setdefault("_shown", {})
        if panel not in shown or shown[panel] != content:
            shown[panel] = content
            update(content)

    def own(self) -> str | None:
        """The name of the character whose player watches (listed first), if any."""
        char = self.view.state().characters.get(self.view.player or "")
        return char.name if char else None

    def say(self, message: str, error: bool = False) -> None:
        if error:
            message = commandline.typed_words(message, self.view.state())
        self.query_one("#message", Static).update(Text(message, style="bold red" if error else ""))

    def follow_table(self) -> None:
        """Follow what other processes commit from now on: told of each commit by the pipe
        ``told`` names, and looking by itself now and then in case a notice is lost; or,
        told by nothing, looking every ``FOLLOW_INTERVAL``."""
        if self.told is None:
            self.set_interval(FOLLOW_INTERVAL, self.follow)
            return
        fd, every = self.told
        asyncio.get_running_loop().add_reader(fd, self._notice)
        self.set_interval(every, self.follow)

    def _notice(self) -> None:
        """The pipe that tells of commits is readable: take what it holds, follow the table."""
        assert self.told is not None
        fd = self.told[0]
        try:
            told = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            told = b""
        if told:
            self.commit_told()
            return
        # the host's end is closed (the host is going): look as an untold screen does
        asyncio.get_running_loop().remove_reader(fd)
        os.close(fd)
        self.told = None
        self.set_interval(FOLLOW_INTERVAL, self.follow)

    def commit_told(self) -> None:
        """Another process committed: follow it now, or once the table job in flight ends."""
        if not self.busy:
            self.follow()
        elif not self._told_late:
            self._told_late = True
            self.set_timer(FOLLOW_INTERVAL, self._told_again)

    def _told_again(self) -> None:
        self._told_late = False
        self.commit_told()

    def follow(self) -> None:
        """Fold what other processes appended, in a worker; one redraw for any number of records.

        Whether anything was appended is asked here: the answer reads nothing (SQLite's
        ``data_version``, notifications already on the socket), and a worker every
        ``FOLLOW_INTERVAL`` would more than double what an idle screen costs.
        """
        if self.busy:
            return
        table = self.table
        try:
            changed = table.changed()
        except StoreError as exc:
            self.say(f"cannot read the table: {exc}", error=True)
            return
        if changed:
            self._jobs += 1
            self.fold()

    @work(thread=True, exclusive=True, group="table")
    def fold(self) -> None:
        """Fold what other processes appended; ``Folded`` says what (``ReadFailed``: no)."""
        try:
            new = self.table.catch_up()
        except StoreError as exc:
            self.post_message(ReadFailed(f"cannot read the table: {exc}"))
            return
        self.post_message(Folded(new))

    @on(Folded)
    def folded(self, message: Folded) -> None:
        self._jobs -= 1
        if message.new and self.sees(message.new):
            self.redraw()
        self.idle()

    def sees(self, new: list[Record]) -> bool:
        """Whether this screen shows anything of ``new`` (records just folded)."""
        return True

    @on(ReadFailed)
    def read_failed(self, message: ReadFailed) -> None:
        self._jobs -= 1
        self.say(message.reason, error=True)
        self.idle()

    @on(LogView.Unread)
    def log_unread(self, message: LogView.Unread) -> None:
        self.say(message.reason, error=True)

    def action_read(self) -> None:
        """Open the record at the foot of the log in full (Up and Down step from it)."""
        log = self.query_one(LogView)
        if self.view.log_len():
            log.screen_lines()
            self.push_screen(RecordScreen(self.view, log.lowest))

    def action_party(self, step: int) -> None:
        """Scroll the characters panel (two lines a step: a name and its status)."""
        party = self.query_one("#party-scroll", VerticalScroll)
        party.scroll_to(y=party.scroll_offset.y + 2 * step, animate=False)

    def action_help_quit(self) -> None:
        """Ctrl+C copies what is selected; with nothing selected, it says how to quit."""
        keys = sorted(
            (key_name(k) for k, b in self.active_bindings.items() if b.binding.action == "quit"),
            key=len,
        )
        self.say(f"{' or '.join(keys)} quits (Ctrl+C copies selected text)")

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_keys(), self.help_commands()))

    def help_keys(self) -> list[tuple[str, str]]:
        """Every key help lists: the widgets' that have the keyboard, then this screen's."""
        lines: list[tuple[str, str]] = []
        for widget in self.HELP_WIDGETS:
            lines += help_keys(widget.BINDINGS) + getattr(widget, "HELP_NOTES", [])
        # margin's own classes, the shared keys first; Textual's keys are not margin's to list
        own = [
            binding
            for cls in reversed(type(self).__mro__)
            if cls.__module__.startswith("margin.")
            for binding in cls.__dict__.get("BINDINGS", ())
        ]
        if self.ENABLE_COMMAND_PALETTE:
            lines.append((key_name(self.COMMAND_PALETTE_BINDING), "command palette"))
        return lines + help_keys(own)

    def action_rules(self) -> None:
        text = render.rules_text(self.view.system.id)
        self.push_screen(RulesScreen(commandline.typed_words(text, self.view.state())))

    def help_commands(self) -> list[str | tuple[str, str]]:
        return []

    def search(self, text: str, before: int) -> int | None:
        """``text`` sought in the log before position ``before`` (the match's position), or
        ``@NAME`` (``@`` alone: everyone) to list only one character's records."""
        text = text.strip()
        if text.startswith("@"):
            self._list_only(text[1:].strip() or None)
            return None
        text = text or self.last_search
        if not text:
            self.say("type /TEXT to find it in the log, /@NAME for one character's records")
            return None
        self.last_search = text
        try:
            found = self.view.search(text, before)
            self._say_found(text, found)
        except StoreError as exc:
            self.say(f"cannot read the table: {exc}", error=True)
            return None
        return found

    def _list_only(self, name: str | None) -> None:
        """The log lists only the records of the character ``name`` (None: every record)."""
        try:
            shown = self.view.set_only(name)
        except RuleError as exc:
            self.say(str(exc), error=True)
            return
        self.redraw(follow=True)
        self.say(
            f"the log lists only {shown}'s records (/@ lists all)"
            if shown
            else "the log lists every record"
        )

    def _say_found(self, text: str, found: int | None) -> None:
        """Where a search for ``text`` found it (``found``: its position, None when nowhere)."""
        if found is None:
            self.say(f"/{text}: not in the log", error=True)
            return
        row = self.view.rows(found, found + 1) if self.view.at is None else []
        number = row[0].number if row else ""
        self.say(
            f"/{text}: found at #{number} (/ alone finds the one before)"
            if number
            else f"/{text}: found"
        )
