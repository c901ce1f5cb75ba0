"""margin's Textual screens: the GM's table, a player's live view, and replay.

``play``, ``watch`` and ``replay`` are the entry points ``margin`` calls. The
screens render a ``View`` of the table and send commands; rules stay in core.
"""

from __future__ import annotations

import functools
import getpass
import json
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import msgspec
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from margin.core import RuleError
from margin.core.authority import GM_SEAT, Seat
from margin.core.clock import Cue, cue, cue_line
from margin.core.commands import Accept, Command, Redo, Undo
from margin.core.systems.words import NAMES_NOTE
from margin.events import Record, StoreError, short_name
from margin.tui.table.keys import data_dir
from margin.tui.table.notices import Notices, per_table
from margin.tui.table.reader import (
    CharacterRow,
    LiveTable,
    View,
    open_view,
    parse_jump,
    player_id,
)
from margin.tui.table.sheets import SheetFiles
from margin.tui.text import render

from . import commandline
from .commandline import SheetReader
from .modals import (
    HelpScreen,
    JumpScreen,
    PasteScreen,
    RecordScreen,
    RulesScreen,
    SearchScreen,
    UndoScreen,
    help_keys,
    key_name,
)
from .widgets import (
    BriefLine,
    ClockPanel,
    CommandLine,
    KeysFooter,
    LogView,
    OddsBar,
    PartyPanel,
    key_pair,
)

#: How often a screen looks for records other processes committed.
FOLLOW_INTERVAL = 0.02
#: How often a waiting player's view looks whether the character is seated.
SEAT_INTERVAL = 0.1
#: seconds between two looks for what the table's host has to say
NOTICE_INTERVAL = 0.5
#: Seconds a write may take before the message line says the table is being written.
BUSY_NOTICE = 0.5
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


class TableApp(App[None]):
    """The panels every screen shares: header, clock, party, log, message line.

    The table is folded and written in worker threads, one job at a time
    (``submit``): a job's answer comes back as a ``JobDone`` message and is
    shown here, on the screen's own thread, which reads the table only
    through its ``View`` (under the table's lock).
    """

    class JobDone(Message):
        """A table job finished in its worker: what it returned, or what it raised."""

        def __init__(self, result: Any, error: Exception | None) -> None:
            super().__init__()
            self.result = result
            self.error = error

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

    def __init__(self, view: View, name: str) -> None:
        super().__init__()
        self.view = view
        self.table_name = name
        self.last_search = ""
        #: what to do with the answer of the table job in flight (None: no job in flight)
        self._then: Callable[[Any, Exception | None], None] | None = None

    @property
    def busy(self) -> bool:
        """Whether a table job (a write, a catch-up fold) is in flight."""
        return self._then is not None

    def submit(
        self, work: Callable[[], Any], then: Callable[[Any, Exception | None], None]
    ) -> None:
        """Run ``work`` in a worker thread, then ``then(result, error)`` here; one job at a time."""
        assert self._then is None, "one table job at a time"
        self._then = then
        self.run_worker(
            functools.partial(self._work, work), group="table", thread=True, exit_on_error=False
        )

    def _work(self, work: Callable[[], Any]) -> None:
        try:
            result, error = work(), None
        except Exception as exc:
            result, error = None, exc
        self.post_message(self.JobDone(result, error))

    @on(JobDone)
    def job_done(self, message: JobDone) -> None:
        then, self._then = self._then, None
        assert then is not None
        then(message.result, message.error)
        self.idle()

    def idle(self) -> None:
        """No table job is in flight any more: start what waits for one to end."""

    def compose(self) -> ComposeResult:
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

    def on_mount(self) -> None:
        self.fit()
        self.redraw(follow=True)

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """A narrow screen's log numbers its rows only as wide as they need, and its footer
        packs its keys and leaves the palette's key to help."""
        narrow = self.size.width < NARROW
        if not self.screen_stack:
            return  # a terminal's first size comes before the screen
        table = self.screen_stack[0]  # the table's screen, under any dialog
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
        with self.view.table.lock:  # every panel from one moment of the table
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

    def follow(self) -> None:
        """Fold what other processes appended, in a worker; one redraw for any number of records.

        Whether anything was appended is asked here: the answer reads nothing (SQLite's
        ``data_version``, notifications already on the socket), and a worker every
        ``FOLLOW_INTERVAL`` would more than double what an idle screen costs.
        """
        if self.busy:
            return
        table = self.view.table
        try:
            changed = table.changed()
        except StoreError as exc:
            self.say(f"cannot read the table: {exc}", error=True)
            return
        if changed:
            self.submit(table.catch_up, self.followed)

    def followed(self, new: list[Record] | None, error: Exception | None) -> None:
        if isinstance(error, StoreError):
            self.say(f"cannot read the table: {error}", error=True)
        elif error is not None:
            raise error
        elif new:
            self.redraw()

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
            try:
                name = self.view.set_only(text[1:].strip() or None)
            except RuleError as exc:
                self.say(str(exc), error=True)
                return None
            self.redraw(follow=True)
            self.say(
                f"the log lists only {name}'s records (/@ lists all)"
                if name
                else "the log lists every record"
            )
            return None
        text = text or self.last_search
        if not text:
            self.say("type /TEXT to find it in the log, /@NAME for one character's records")
            return None
        self.last_search = text
        found = self.view.search(text, before)
        if found is None:
            self.say(f"/{text}: not in the log", error=True)
            return None
        row = self.view.rows(found, found + 1) if self.view.at is None else []
        number = row[0].number if row else ""
        self.say(
            f"/{text}: found at #{number} (/ alone finds the one before)"
            if number
            else f"/{text}: found"
        )
        return found


class PlayApp(TableApp):
    """The GM's table: every panel live, a command line, undo with a preview."""

    EMPTY = "nobody at the table yet (add NAME seats a character)"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_turn", "Next turn", tooltip="next turn (the system's 'next')"),
        Binding("ctrl+z", "undo", "Undo", tooltip="undo: shows what it voids, Enter confirms"),
        Binding("ctrl+y", "redo", "Redo", tooltip="redo the last undo"),
        Binding("f1", "help", "Help", tooltip="this help"),
        Binding("f2", "rules", "Rules", tooltip="the rules of this table's system"),
        Binding("f4", "panels", "Panels", tooltip=PANELS_HELP),
        Binding("f5", "rule('accept')", "Accept", show=False,
                tooltip="accept the first player's request waiting"),
        Binding("f6", "rule('refuse')", "Refuse", show=False,
                tooltip="refuse the first player's request waiting (type a reason, Enter)"),
        Binding("f7", "rule('amend')", "Amend", show=False,
                tooltip="amend the first player's request waiting: its line, to change and run"),
        *key_pair(
            "PageUp / PageDown", "scroll the log",
            ("pageup", "log_page(-1)", "Log up"),
            ("pagedown", "log_page(1)", "Log down"),
        ),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, tooltip="quit"),
    ]  # fmt: skip
    HELP_WIDGETS = (CommandLine,)

    def __init__(
        self,
        view: View,
        name: str,
        history: Path | None = None,
        sheets: SheetFiles | None = None,
    ) -> None:
        super().__init__(view, name)
        self.history = history
        #: where ``add NAME from FILE`` reads its file
        self.sheets = sheets or SheetFiles(table=view.table.store.name)
        self.greeting = "help lists the commands; F1 lists the keys"
        #: the records each recent command wrote, newest last
        self._ran: list[list[int]] = []
        #: lines and commands waiting for the one in flight, and the one in flight
        self._steps: deque[Step] = deque()
        self._step: Step | None = None
        self._busy_notice: Timer | None = None
        self._quitting = False
        #: what the table's host says of seats it refused or ended
        self.notices = Notices(view.table.store.name)

    def compose_bottom(self) -> Iterable[Any]:
        yield Static(id="requests")
        yield OddsBar(id="odds")
        yield Static(id="message")
        yield CommandLine(self.view, history=self.history, id="command")

    def _redraw(self, follow: bool) -> None:
        super()._redraw(follow)
        requests = self.requests_text()
        panel = self.query_one("#requests", Static)
        self._show("requests", requests, panel.update)
        panel.display = bool(requests.plain)

    def requests_text(self) -> Text:
        """The players' requests waiting for a ruling, first the oldest, and the keys."""
        state = self.view.state()
        text = Text()
        if not state.requests:
            return text
        names = {c.id: c.name for c in state.characters.values()}
        for seq, req in sorted(state.requests.items()):
            event = {"type": "player.requested", "seat": req.seat, "asked": req.command}
            line = render.describe(state.system, {"event": event}, names)
            text.append(f"#{seq} ", style="bold yellow")
            text.append(line.replace(" asks: ", ": ", 1) + "\n")
        text.append("F5 accepts the first, F6 refuses it, F7 amends it", style="dim")
        return text

    def action_rule(self, ruling: str) -> None:
        """Rule on the first request waiting: accept it now, or put the refusal or the
        amendment on the command line, to finish and run with Enter."""
        state = self.view.state()
        if not state.requests:
            self.say("no player's request is waiting", error=True)
            return
        seq = min(state.requests)
        if ruling == "accept":
            self.enqueue(Step(command=Accept(request=seq)))
            return
        text = (
            f"refuse {seq} "
            if ruling == "refuse"
            else (f"amend {seq} " + json.dumps(state.requests[seq].command))
        )
        line = self.query_one(CommandLine)
        line.value = text
        line.cursor_position = len(text)
        line.focus()
        self.say(
            f"refusing request #{seq}: type a reason if you like, then Enter"
            if ruling == "refuse"
            else f"amending request #{seq}: change the command, then Enter"
        )

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(CommandLine).focus()
        self.set_interval(FOLLOW_INTERVAL, self.follow)
        self.set_interval(NOTICE_INTERVAL, self.host_notices)
        self.say(self.greeting)

    def host_notices(self) -> None:
        """Say on the message line what the table's host posted (a seat refused or ended)."""
        for line in self.notices.new():
            self.say(line)

    def help_commands(self) -> list[str | tuple[str, str]]:
        state = self.view.state()
        generic = commandline.help_words(state)
        out: list[str | tuple[str, str]] = list(generic.values())
        out.append(NAMES_NOTE)
        own = [
            w for w in commandline.command_words(state)[len(generic) :] if w not in state.aliases
        ]
        if own:
            out.append(f"{self.view.system.id} commands: {', '.join(sorted(own))}")
        forms = self.view.system.short_forms
        if forms:
            out.append(f"{self.view.system.id} short forms, for example:")
            out.extend(forms)
        if state.aliases:
            out.append("macros (alias NAME = LINE):")
            out.extend((name, line) for name, line in sorted(state.aliases.items()))
        out.append(
            "/TEXT   find TEXT in the log (/ alone: the match before); /@NAME lists only "
            "NAME's records, /@ every record"
        )
        out.append('{"type": ...}   any command as JSON, as margin do reads it')
        out.append("... = 4 7   after any roll: the faces of physical dice instead of rolling")
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_turn":
            # A system with no clock to move on shows no Next turn key.
            return (
                commandline.quiet_command(self.view.system.next_words, self.view.state())
                is not None
            )
        return True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self.check_action("next_turn", ()):
            yield SystemCommand(
                "Next turn", "Run the system's 'next' command", self.action_next_turn
            )
        yield SystemCommand("Undo", "Void the last command and all it caused", self.action_undo)
        yield SystemCommand("Redo", "Restore what the last undo voided", self.action_redo)
        yield SystemCommand("Help", "Every key and command", self.action_help)
        yield SystemCommand("Rules", "The rules of this table's system", self.action_rules)
        for word in commandline.command_words(self.view.state()):
            if word not in ("undo", "redo", "help", "rules"):
                yield SystemCommand(
                    f"Type: {word}",
                    commandline.help_words(self.view.state()).get(
                        word, f"start a '{word}' command"
                    ),
                    lambda w=word: self._type(w),
                )

    def _type(self, word: str) -> None:
        line = self.query_one(CommandLine)
        line.value = word + " "
        line.cursor_position = len(line.value)
        line.focus()

    # -- the command line --------------------------------------------------

    @on(Input.Changed, "CommandLine")
    def show_odds(self, event: Input.Changed) -> None:
        """As a line is typed: the odds of the check it makes, and a hint for its next word."""
        assert isinstance(event.input, CommandLine)
        state = self.view.state()
        command = commandline.quiet_command(event.value, state)
        odds = self.view.odds(command)
        result = self.typed_result(command) if odds is not None else ""
        self.query_one(OddsBar).show_odds(odds, result)
        hint = event.input.hint(state) if event.value else ""
        if hint:
            self.say(hint)

    def typed_result(self, command: Any) -> str:
        """What a command with typed faces would record, decided but not written ("" if none)."""
        if not getattr(command, "faces", None):
            return ""
        try:
            drafts = self.view.decided(command)
        except RuleError as exc:
            return f"refused: {exc}"
        system = self.view.system.id
        names = {c.id: c.name for c in self.view.state().characters.values()}
        return "; ".join(
            render.describe(system, {"event": msgspec.to_builtins(d.event)}, names) for d in drafts
        )

    # -- lines and commands, one at a time -----------------------------------

    @property
    def busy(self) -> bool:
        return super().busy or self._step is not None

    def enqueue(self, *steps: Step) -> None:
        """Run ``steps`` after the ones already waiting, each once the one before has landed."""
        self._steps.extend(steps)
        self._advance()

    def idle(self) -> None:
        self._advance()

    def follow(self) -> None:
        if not self._steps:
            super().follow()

    def _advance(self) -> None:
        while not self.busy and self._steps:
            step = self._step = self._steps.popleft()
            if step.text is not None:
                ok = self.run_line(step.text, step.paste is not None)
            elif step.preview:
                assert isinstance(step.command, Undo)
                ok = self.preview_undo(step.command)
            else:
                assert step.command is not None
                ok = self.execute(step.command)
            if not super().busy:  # answered at once, without a worker
                self._finish(ok)
        if self._quitting and not self.busy and not self.query_one(CommandLine).pending:
            self.exit()

    def _finish(self, ok: bool) -> None:
        """The step in flight is over: ``ok``, or refused (the reason on the message line)."""
        step, self._step = self._step, None
        if step is None:
            return
        if step.line is not None:
            step.line.pending -= 1
            if not ok:
                step.line.refused(step.text or "")
        paste = step.paste
        if paste is None:
            return
        lines = paste.lines
        if not ok:
            n = paste.ran + 1
            reason = str(self.query_one("#message", Static).render())
            rest = f"lines {n}-{len(lines)} were" if n < len(lines) else f"line {n} was"
            self.say(f"pasted line {n} of {len(lines)} refused ({rest} not run): {reason}", True)
            self.query_one(CommandLine).refused(step.text or "")
            self._steps = deque(s for s in self._steps if s.paste is not paste)
            return
        paste.ran += 1
        if paste.ran == len(lines):
            seqs = [seq for ran in self._ran[-len(lines) :] for seq in ran]
            self.say(
                f"ran {len(lines)} pasted lines, records #{seqs[0]}-#{seqs[-1]}; the last:\n"
                + self.results(lines_run=1)
            )

    @on(CommandLine.Entered)
    def run_entered(self, event: CommandLine.Entered) -> None:
        self.enqueue(Step(text=event.text, line=event.line))

    @on(CommandLine.Pasted)
    def run_pasted(self, event: CommandLine.Pasted) -> None:
        lines = event.lines
        screens = [n for n, text in enumerate(lines, 1) if commandline.opens_screen(text)]
        if screens:
            self.say(
                f"paste refused, nothing run: line {screens[0]} ({lines[screens[0] - 1]!r}) "
                "opens a screen; type undo, help and rules on their own",
                error=True,
            )
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.run_lines(lines)
            else:
                self.say(f"paste of {len(lines)} lines dropped; nothing run (Up recalls them)")

        self.push_screen(PasteScreen(lines), done)

    def run_lines(self, lines: list[str]) -> None:
        """Run pasted lines in order; the first refused one stops the rest and waits to be fixed."""
        paste = Paste(lines)
        self.enqueue(*(Step(text=text, paste=paste) for text in lines))

    def run_line(self, text: str, quiet: bool = False) -> bool:
        """Run a typed line; False when it is refused (the reason is on the message line).

        A command goes to a worker: whether it was refused is said when it lands.
        """
        if text.startswith("/"):
            log = self.query_one(LogView)
            log.screen_lines()
            found = self.search(text[1:], log.lowest)
            if found is not None:
                log.show(found)
            return True
        files = commandline.sheet_files(text, self.view.state())
        if files:
            # a file may be slow to read (a network folder): the screen answers keys meanwhile
            self.submit(
                functools.partial(self._read_sheets, files),
                functools.partial(self._sheets_read, text, quiet),
            )
            return True
        return self._run_read(text, quiet)

    def _read_sheets(self, files: list[str]) -> dict[str, dict[str, Any]]:
        return {name: self.sheets.read(name) for name in files}

    def _sheets_read(
        self,
        text: str,
        quiet: bool,
        sheets: dict[str, dict[str, Any]] | None,
        error: Exception | None,
    ) -> None:
        if error is not None:
            self._refuse_line(error)
            self._finish(False)
            return
        assert sheets is not None
        ok = self._run_read(text, quiet, sheets.__getitem__)
        if not super().busy:  # refused at once: no command went to the worker
            self._finish(ok)

    def _refuse_line(self, error: Exception) -> None:
        if isinstance(error, RuleError):
            self.say(str(error), error=True)
        else:  # a bug in a short form must not end the GM's session
            self.say(f"margin could not read that line ({type(error).__name__}: {error})", True)

    def _run_read(self, text: str, quiet: bool, sheets: SheetReader | None = None) -> bool:
        """Run a line whose sheet files, if it names any, ``sheets`` has read."""
        try:
            parsed = commandline.parse_line(text, self.view.state(), sheets)
        except Exception as exc:
            self._refuse_line(exc)
            return False
        if parsed.action == "undo":
            return self.preview_undo(Undo())
        if isinstance(parsed.command, Undo):
            return self.preview_undo(parsed.command)
        if parsed.action in ("help", "rules"):
            if parsed.action == "help":
                self.action_help()
            else:
                self.action_rules()
            return True
        assert parsed.command is not None
        return self.execute(parsed.command, quiet=quiet)

    def execute(self, command: Command, quiet: bool = False) -> bool:
        """Decide and append ``command`` in a worker; what it wrote is said when it lands."""
        self._busy_notice = self.set_timer(BUSY_NOTICE, self._say_busy)
        self.submit(
            functools.partial(write, self.view.table, command),
            functools.partial(self._executed, quiet),
        )
        return True

    def _executed(self, quiet: bool, records: list[Record] | None, error: Exception | None) -> None:
        if self._busy_notice is not None:
            self._busy_notice.stop()
        if error is not None:
            if not isinstance(error, RuleError | StoreError | Failed):
                raise error
            self.say(str(error), error=True)
            self._finish(False)
            return
        assert records is not None
        self.query_one(OddsBar).show_odds(None)
        self._ran = [*self._ran[-99:], [r.seq for r in records]]
        if not quiet:
            self.say(self.results(lines_run=1))
        self.redraw(follow=True)
        self._finish(True)

    def say(self, message: str, error: bool = False) -> None:
        # once quitting has begun, the message line says how the screen quits, whatever lands
        if not self._quitting:
            super().say(message, error)

    def _say_quitting(self, message: str) -> None:
        super().say(message)

    def _say_busy(self) -> None:
        waiting = len(self._steps)
        self.say(
            "writing to the table..."
            + (
                f" ({waiting} more {'line' if waiting == 1 else 'lines'} waiting)"
                if waiting
                else ""
            )
        )

    async def action_quit(self) -> None:
        """Quit once every line entered is on the table; again: once the one being written is."""
        if self._quitting:
            dropped = len(self._steps)
            for step in self._steps:
                if step.line is not None:
                    step.line.pending -= 1
            self._steps.clear()
            self._say_quitting(
                f"quitting once the command being written is on the table ({dropped} not run)"
            )
            self._advance()
            return
        # Keys typed before this one may not have reached the command line yet: look once
        # they have, so that a line entered before the quit is not lost.
        self.query_one(CommandLine).call_later(self._quit_when_written)

    def _quit_when_written(self) -> None:
        self._quitting = True
        if self.busy or self._steps or self.query_one(CommandLine).pending:
            self._say_quitting(
                "quitting once the lines entered are on the table "
                "(Ctrl+Q again: once the one being written is)"
            )
        self._advance()

    def results(self, lines_run: int) -> str:
        """What the last commands wrote, one record a line, each in full."""
        seqs = [seq for ran in self._ran[-lines_run:] for seq in ran]
        return "\n".join(f"#{row.seq} {row.text}" for row in self.view.gm_rows(seqs))

    # -- actions -----------------------------------------------------------

    def action_next_turn(self) -> None:
        words = self.view.system.next_words
        if commandline.quiet_command(words, self.view.state()) is None:
            self.say(f"{self.view.system.id} has no command that moves the clock on", error=True)
            return
        self.enqueue(Step(text=words))

    def action_undo(self) -> None:
        self.enqueue(Step(command=Undo(), preview=True))

    def preview_undo(self, command: Undo) -> bool:
        """Show what the undo voids (decided in a worker, not appended); Enter appends it."""
        table = self.view.table

        def decided() -> list[Any]:
            table.catch_up()
            return table.decide(command)

        self.submit(decided, self._previewed)
        return True

    def _previewed(self, drafts: list[Any] | None, error: Exception | None) -> None:
        if error is not None:
            if not isinstance(error, RuleError | StoreError):
                raise error
            self.say(str(error), error=True)
            self._finish(False)
            return
        assert drafts
        undone = drafts[0].event
        target: str = undone.command
        rows = self.view.gm_rows(undone.voids)

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.enqueue(Step(command=Undo(command=target)))
            else:
                self.say("undo cancelled; nothing changed")

        self.push_screen(UndoScreen(rows), done)
        self._finish(True)

    def action_redo(self) -> None:
        self.enqueue(Step(command=Redo()))

    def action_log_page(self, direction: int) -> None:
        self.query_one(LogView).page(direction)


#: a watching player's message line while it is not their turn
WATCHING = "watching (read-only); F1 lists the keys"
#: a player's message line while they may act from their seat
ACTING = "watching; : gives a command (say, your checks and choices); F1 lists the keys"
#: what a player's command line says, by the table's option players
LINE_SAYS = {
    "ask": "your command (say, check ...): the GM rules on it; Tab completes",
    "trust": "your command (say, check ...): applied at once; Tab completes",
    "off": "watch only: the GM has players' commands off at this table",
}
#: the header's mark of a cue, in words (never by colour alone)
CUE_MARKS: dict[str, str] = {"turn": " YOUR TURN ", "on deck": " ON DECK "}


class WatchApp(TableApp):
    """A player's view: the same table, read-only, through the player lens."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter,f3", "read", "Read", show=False,
            tooltip="read the log's last record shown, in full",
        ),
        Binding(
            "shift+up", "party(-1)", "Party up", show=False, key_display="Shift+Up/Down",
            tooltip="scroll the characters (yours is first)",
        ),
        Binding("f1,question_mark", "help", "Help", tooltip="this help"),
        Binding("f2", "rules", "Rules", tooltip="the rules of this table's system"),
        Binding("p,f4", "panels", "Panels", tooltip=PANELS_HELP),
        Binding("q", "quit", "Quit", tooltip="quit"),
        Binding("colon", "act", "Act", tooltip="give a command from your seat: the command line"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, tooltip="quit"),
    ]  # fmt: skip
    HELP_WIDGETS = (LogView,)

    def __init__(self, view: View, name: str, bell: bool = False, seat: Seat | None = None) -> None:
        super().__init__(view, name)
        #: ring the terminal's bell when the player is on deck and when their turn begins
        self.ring = bell
        self._cue: Cue = ""
        #: the seat the player gives commands from (None: watching only)
        self.seat = seat

    def help_keys(self) -> list[tuple[str, str]]:
        keys = super().help_keys()
        if self.seat is None:
            return keys
        return help_keys(CommandLine.BINDINGS) + CommandLine.HELP_NOTES + keys

    @property
    def idle_line(self) -> str:
        return WATCHING if self.seat is None else ACTING

    def compose_bottom(self) -> Iterable[Any]:
        if self.seat is None:
            yield from super().compose_bottom()
            return
        yield OddsBar(id="odds")
        yield Static(id="message")
        yield CommandLine(self.view, id="command")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(LogView).focus()
        self.set_interval(FOLLOW_INTERVAL, self.follow)
        if not self._cue:
            self.say(self.idle_line)

    def _line_option(self) -> None:
        """The command line as the table's option players has it: off, it takes nothing."""
        if self.seat is None:
            return
        option = str(self.view.state().options.get("players", "ask"))
        line = self.query_one(CommandLine)
        line.placeholder = LINE_SAYS.get(option, LINE_SAYS["off"])
        line.disabled = option not in ("ask", "trust")

    def action_act(self) -> None:
        """Go to the command line, to give a command from the player's seat."""
        if self.seat is None:
            self.say("this view watches only", error=True)
            return
        line = self.query_one(CommandLine)
        if line.disabled:
            self.say(LINE_SAYS["off"], error=True)
            return
        line.focus()

    @on(Input.Changed, "CommandLine")
    def show_odds(self, event: Input.Changed) -> None:
        """As the player types: the odds of their check, from what they may see."""
        assert isinstance(event.input, CommandLine)
        state = self.view.state()
        command = commandline.quiet_command(event.value, state)
        self.query_one(OddsBar).show_odds(self.view.odds(command))
        hint = event.input.hint(state) if event.value else ""
        if hint:
            self.say(hint)

    @on(CommandLine.Entered)
    def act(self, event: CommandLine.Entered) -> None:
        """Give the line's command from the player's seat, in a worker; core rules on it."""
        assert self.seat is not None
        line = event.line
        if self.busy:
            line.pending -= 1
            line.refused(event.text)
            self.say("wait: the table is busy with your last command", error=True)
            return
        try:
            parsed = commandline.parse_line(event.text, self.view.state())
        except RuleError as exc:
            line.pending -= 1
            line.refused(event.text)
            self.say(str(exc), error=True)
            return
        if parsed.action in ("help", "rules"):
            line.pending -= 1
            self.action_help() if parsed.action == "help" else self.action_rules()
            return
        if parsed.command is None:
            line.pending -= 1
            self.say(f"{event.text.split()[0]}: the GM's, not a player's", error=True)
            return
        self.submit(
            functools.partial(write, self.view.table, parsed.command, self.seat),
            functools.partial(self._acted, line, event.text),
        )

    def _acted(
        self, line: CommandLine, text: str, records: list[Record] | None, error: Exception | None
    ) -> None:
        line.pending -= 1
        if error is not None:
            if not isinstance(error, RuleError | StoreError | Failed):
                raise error
            line.refused(text)
            self.say(str(error), error=True)
            return
        assert records is not None
        self.query_one(OddsBar).show_odds(None)
        self.redraw(follow=True)
        asked = [r for r in records if r.visibility.to]
        if asked and len(asked) == len(records):
            number = self.view.table.reader.number(asked[0].seq) if self.view.table.reader else None
            self.say(f"asked the GM (request #{number}): {text}; the GM rules on it")
        else:
            self.say(f"done: {text}")

    def cue(self) -> Cue:
        """Whether it is the watching player's turn, as the clock means it, or they are next."""
        own = self.own()
        return cue(self.view.clock(), own) if own is not None else ""

    def my_turn(self) -> bool:
        """Whether it is the watching player's character's turn (the clock's own meaning)."""
        return self.cue() == "turn"

    def redraw(self, follow: bool = False) -> None:
        now, before = self.cue(), self._cue
        self._cue = now
        super().redraw(follow)
        self._line_option()
        if now == before:
            return
        if now:
            self.say(cue_line(now, self.own() or ""))
            if self.ring:
                self.bell()
        else:
            self.say(self.idle_line)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # A player's palette holds a player's actions only: no screenshot written on
        # the machine that runs the view (often the GM's), no theme or layout tools.
        yield SystemCommand("Help", "Every key of this view", self.action_help)
        yield SystemCommand("Rules", "The rules of this table's system", self.action_rules)
        yield SystemCommand("Quit", "Leave the table", self.action_quit)

    def header_text(self) -> Text:
        text = super().header_text()
        char = self.view.state().characters.get(self.view.player or "")
        text.append(f"  watching as {char.name if char else self.view.player}", style="bold cyan")
        now = self.cue()
        if now:
            text.append("  ", style="")
            text.append(CUE_MARKS[now], style="bold reverse yellow" if now == "turn" else "bold")
        return text


class WaitingWatch(WatchApp):
    """A player's live view that waits for the character: a waiting screen until the GM
    seats them, then the view.

    Until the character is seated there is no ``View`` at all, so nothing of the
    table but its title is drawn: the view is made only for the seated player,
    through the lens.
    """

    def __init__(
        self, table: LiveTable, seat: str, name: str, bell: bool = False, acts: Seat | None = None
    ) -> None:
        # Fail closed: no view until the player's lens can be made.
        super().__init__(None, name, bell, seat=acts)  # type: ignore[arg-type]
        self.table = table
        #: the name the player sat down with (``seat`` is the seat they act from, if any)
        self.seat_name = seat
        self._seat_view()

    def compose(self) -> Any:
        if self.view is None:
            yield Static(self.waiting_text(), id="waiting")
            yield KeysFooter()
        else:
            yield from super().compose()

    def waiting_text(self) -> Text:
        with self.table.lock:
            title = self.table.state.title or self.table_name
        text = Text()
        text.append(" margin ", style="bold reverse")
        text.append(f" {title}\n\n", style="bold")
        text.append(f"Waiting for the GM to seat {self.seat_name}.\n", style="bold cyan")
        text.append("Your view opens here as soon as you are at the table; q quits.", style="dim")
        return text

    def on_mount(self, event: events.Mount | None = None) -> None:
        if self.view is not None:
            return  # seated already: the view's own start (Textual calls each class's)
        if event is not None:
            event.prevent_default()
        self.waiting = self.set_interval(SEAT_INTERVAL, self.look_for_seat)

    def look_for_seat(self) -> None:
        """Fold what the GM appended (in a worker), then look for the seat's character."""
        if self.view is not None or self.busy:
            return
        try:
            changed = self.table.changed()
        except StoreError:
            return
        if changed:
            self.submit(self.table.catch_up, lambda _new, _error: self.seated())

    def _seat_view(self) -> bool:
        try:
            with self.table.lock:
                player = player_id(self.table.state, self.seat_name)
        except RuleError:
            return False
        self.view = View(self.table, player)
        return True

    def seated(self) -> None:
        """Open the player's view once their character is at the table."""
        if self.view is not None or not self._seat_view():
            return
        self.waiting.stop()
        # Outside the timer's callback: stopping the timer cancels that.
        self.call_later(self.open_view)

    async def open_view(self) -> None:
        # A recompose redraws the screen on top: the view replaces the waiting screen, so
        # the command palette (or anything else open over it) closes first.
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        await self.recompose()
        WatchApp.on_mount(self)

    def fit(self) -> None:
        if self.view is not None:
            super().fit()

    def follow(self) -> None:
        if self.view is not None:
            super().follow()

    def action_help(self) -> None:
        if self.view is not None:
            super().action_help()

    def action_rules(self) -> None:
        if self.view is not None:
            super().action_rules()

    def action_panels(self) -> None:
        if self.view is not None:
            super().action_panels()


class ReplayApp(TableApp):
    """Scrub a session record by record, as it happened or as corrected."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "step(1)", "Next", tooltip="next record"),
        Binding("left,h", "step(-1)", "Back", tooltip="previous record"),
        *key_pair(
            "PageDown / PageUp", "25 records on / back",
            ("pagedown", "step(25)", "+25"),
            ("pageup", "step(-25)", "-25"),
        ),
        *key_pair(
            "Home / End", "first / last record",
            ("home", "first", "First"),
            ("end", "last", "Last"),
        ),
        Binding("space", "play", "Play/pause", tooltip="play / pause"),
        *key_pair(
            "+ / -", "play faster / slower",
            ("plus,equals_sign", "speed(1)", "Faster"),
            ("minus", "speed(-1)", "Slower"),
        ),
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
        super().__init__(view, name)
        self.speed = 2
        self.playing = False
        self.view.goto(0)

    def on_mount(self) -> None:
        super().on_mount()
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


# -- entry points -----------------------------------------------------------


def play_app(path: str, default: bool = False) -> PlayApp:
    app = PlayApp(
        open_view(path, readonly=False, name=None, live=True),
        short_name(path),
        history=history_path(path),
    )
    if default:
        app.greeting = f"the default table, kept at {path} (margin play PATH opens another); " + (
            app.greeting
        )
    return app


def watch_app(path: str, name: str, bell: bool = False, act: bool = True) -> WaitingWatch:
    """A player's live view of the table at ``path``, waiting until ``name`` is seated; with
    ``act``, and a table this account may write, with a command line for the player's
    commands from a seat at this account."""
    table = None
    if act:
        try:
            table = LiveTable.open_live(path, readonly=False, lens=True, worker=True, player=name)
        except StoreError:
            table = None
        if table is not None and table.store.readonly:
            table.close()
            table = None
    if table is None:
        table = LiveTable.open_live(path, readonly=True, lens=True, worker=True, player=name)
        return WaitingWatch(table, name, short_name(path), bell=bell)
    seat = Seat(name, "local", getpass.getuser())
    return WaitingWatch(table, name, short_name(path), bell=bell, acts=seat)


def replay_app(path: str, name: str | None = None) -> ReplayApp:
    # Denser checkpoints than live play: each step costs at most this many folds.
    # A replay follows nothing and writes nothing: no worker, one connection.
    view = open_view(path, readonly=True, name=name, every=250, live=False)
    return ReplayApp(view, short_name(path))


def _run(app: TableApp) -> int:
    try:
        app.run()
    finally:
        (app.table if isinstance(app, WaitingWatch) else app.view.table).close()
    return 0


def default_table() -> Path:
    """The default table, created with the demo party and fight the first time."""
    target = default_table_path()
    if not target.exists():
        from margin.tui.table.demo import build_demo

        target.parent.mkdir(parents=True, exist_ok=True)
        build_demo(target, "2d10-edge").close()
    return target


def play(path: str | None) -> int:
    """``margin play [PATH]``: the GM's table (the default table when no PATH)."""
    if path:
        return _run(play_app(path))
    return _run(play_app(str(default_table()), default=True))


def watch(path: str, name: str, bell: bool = False) -> int:
    """``margin watch PATH --as NAME [--bell]``: a player's live, read-only view."""
    return _run(watch_app(path, name, bell))


def replay(path: str, name: str | None) -> int:
    """``margin replay PATH [--as NAME]``: scrub the session, or what one player saw."""
    return _run(replay_app(path, name))
