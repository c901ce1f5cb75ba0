"""margin's Textual screens: the GM's table, a player's live view, and replay.

``play``, ``watch`` and ``replay`` are the entry points ``margin`` calls. The
screens render a ``View`` of the table and send commands; rules stay in core.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import msgspec
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from margin.core import RuleError, decide
from margin.core.commands import Redo, Undo
from margin.core.systems.words import NAMES_NOTE
from margin.events import StoreError, is_url, record_to_builtins, short_name

from . import commandline, render
from .keys import data_dir
from .screens import (
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
from .view import CharacterRow, LiveTable, LogRow, View, parse_jump, player_id
from .widgets import ClockPanel, CommandLine, LogView, OddsBar, PartyPanel, key_pair

#: How often a screen looks for records other processes committed.
FOLLOW_INTERVAL = 0.02
#: Replay speeds, records per second.
SPEEDS = (1, 2, 5, 10, 25, 100)


def default_table_path() -> Path:
    """``$XDG_DATA_HOME/margin/default.margin``, else ``~/.local/share/margin/default.margin``."""
    return data_dir() / "default.margin"


def history_path(table: str | Path) -> Path:
    """The command history of one table: in margin's data directory, never in the log.

    Named after the table and a digest of its full path (or its URL, without
    a password), so two tables called ``fight.margin`` in different folders
    keep their own.
    """
    if is_url(str(table)):
        from margin.events import display_name

        full, stem = display_name(table), short_name(table)
    else:
        resolved = Path(table).resolve()
        full, stem = str(resolved), resolved.stem
    digest = hashlib.sha256(full.encode()).hexdigest()[:12]
    return data_dir() / "history" / f"{stem}-{digest}.txt"


class TableApp(App[None]):
    """The panels every screen shares: header, clock, party, log, message line."""

    CSS_PATH = "margin.tcss"
    TITLE = "margin"
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

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="body"):
            with Vertical(id="side"):
                with VerticalScroll(id="clock-scroll", can_focus=False):
                    yield ClockPanel(id="clock")
                with VerticalScroll(id="party-scroll", can_focus=False):
                    yield PartyPanel(id="party")
            yield LogView(self.view, id="log")
        yield from self.compose_bottom()
        yield Footer()

    def compose_bottom(self) -> Iterable[Any]:
        yield Static(id="message")

    def on_mount(self) -> None:
        self.redraw(follow=True)

    def header_text(self) -> Text:
        state = self.view.state()
        text = Text()
        text.append(" margin ", style="bold reverse")
        text.append(f" {state.title or self.table_name}", style="bold")
        text.append(f"  {self.view.system.title}  record {self.view.number}", style="dim")
        return text

    def redraw(self, follow: bool = False) -> None:
        self._show("header", self.header_text(), self.query_one("#header", Static).update)
        clock = self.view.clock()
        self._show("clock", clock, self.query_one(ClockPanel).show)
        current = [i for i, row in enumerate(clock.rows) if row.current] if clock else []
        if current:
            # Keep whoever acts in sight when the order is longer than its panel.
            scroll = self.query_one("#clock-scroll", VerticalScroll)
            self.call_after_refresh(scroll.scroll_to, y=max(0, current[0] - 1), animate=False)
        party = (self.view.characters(), self.own())
        self._show("party", party, self._show_party)
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
        """Fold what other processes appended; one redraw for any number of records."""
        try:
            new = self.view.table.poll()
        except StoreError as exc:
            self.say(f"cannot read the table: {exc}", error=True)
            return
        if new:
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

    def rows_of(self, seqs: list[int]) -> list[LogRow]:
        """Log rows of the given records, as the GM reads them."""
        voided = self.view.table.projection.history.voided
        names = {c.id: c.name for c in self.view.table.state.characters.values()}
        rows = []
        for seq in seqs:
            record = self.view.table.store.record(seq)
            rows.append(
                LogRow(
                    seq=seq,
                    text=render.describe(
                        self.view.system.id,
                        record_to_builtins(record),
                        names,
                        self.view.record_line,
                    ),
                    author=record.author,
                    undone=seq in voided,
                    secret=bool(record.visibility.hidden),
                )
            )
        return rows


class PlayApp(TableApp):
    """The GM's table: every panel live, a command line, undo with a preview."""

    EMPTY = "nobody at the table yet (add NAME seats a character)"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_turn", "Next turn", tooltip="next turn (the system's 'next')"),
        Binding("ctrl+z", "undo", "Undo", tooltip="undo: shows what it voids, Enter confirms"),
        Binding("ctrl+y", "redo", "Redo", tooltip="redo the last undo"),
        Binding("f1", "help", "Help", tooltip="this help"),
        Binding("f2", "rules", "Rules", tooltip="the rules of this table's system"),
        *key_pair(
            "PageUp / PageDown", "scroll the log",
            ("pageup", "log_page(-1)", "Log up"),
            ("pagedown", "log_page(1)", "Log down"),
        ),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, tooltip="quit"),
    ]  # fmt: skip
    HELP_WIDGETS = (CommandLine,)

    def __init__(self, view: View, name: str, history: Path | None = None) -> None:
        super().__init__(view, name)
        self.history = history
        self.greeting = "help lists the commands; F1 lists the keys"
        #: the records each recent command wrote, newest last
        self._ran: list[list[int]] = []

    def compose_bottom(self) -> Iterable[Any]:
        yield OddsBar(id="odds")
        yield Static(id="message")
        yield CommandLine(self.view, history=self.history, id="command")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(CommandLine).focus()
        self.set_interval(FOLLOW_INTERVAL, self.follow)
        self.say(self.greeting)

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
        table = self.view.table
        try:
            drafts = decide(command, table.state, table.dice, table.projection.history)
        except RuleError as exc:
            return f"refused: {exc}"
        system = self.view.system.id
        names = {c.id: c.name for c in table.state.characters.values()}
        return "; ".join(
            render.describe(system, {"event": msgspec.to_builtins(d.event)}, names) for d in drafts
        )

    @on(CommandLine.Entered)
    def run_entered(self, event: CommandLine.Entered) -> None:
        event.line.pending -= 1
        if not self.run_line(event.text):
            event.line.refused(event.text)

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
        for n, text in enumerate(lines, 1):
            if not self.run_line(text, quiet=True):
                reason = str(self.query_one("#message", Static).render())
                rest = f"lines {n}-{len(lines)} were" if n < len(lines) else f"line {n} was"
                self.say(
                    f"pasted line {n} of {len(lines)} refused ({rest} not run): {reason}", True
                )
                self.query_one(CommandLine).refused(text)
                return
        seqs = [seq for ran in self._ran[-len(lines) :] for seq in ran]
        self.say(
            f"ran {len(lines)} pasted lines, records #{seqs[0]}-#{seqs[-1]}; the last:\n"
            + self.results(lines_run=1)
        )

    def run_line(self, text: str, quiet: bool = False) -> bool:
        """Run a typed line; False when it is refused (the reason is on the message line)."""
        if text.startswith("/"):
            log = self.query_one(LogView)
            log.screen_lines()
            found = self.search(text[1:], log.lowest)
            if found is not None:
                log.show(found)
            return True
        try:
            parsed = commandline.parse_line(text, self.view.state())
        except RuleError as exc:
            self.say(str(exc), error=True)
            return False
        except Exception as exc:  # a bug in a short form must not end the GM's session
            self.say(f"margin could not read that line ({type(exc).__name__}: {exc})", error=True)
            return False
        if parsed.action == "undo":
            self.action_undo()
            return True
        if isinstance(parsed.command, Undo):
            self.preview_undo(parsed.command)
            return True
        if parsed.action in ("help", "rules"):
            if parsed.action == "help":
                self.action_help()
            else:
                self.action_rules()
            return True
        assert parsed.command is not None
        return self.execute(parsed.command, quiet=quiet)

    def execute(self, command: Any, quiet: bool = False) -> bool:
        table = self.view.table
        before = table.projection.seq
        try:
            records = table.execute(command)
        except (RuleError, StoreError) as exc:
            self.say(str(exc), error=True)
            return False
        except Exception as exc:  # a bug must not end the GM's session
            appended = table.store.refresh() != before
            self.say(
                f"margin failed on that command ({type(exc).__name__}: {exc}); "
                + (
                    "its records were written: reopen the table"
                    if appended
                    else "nothing was written"
                ),
                error=True,
            )
            return False
        self.query_one(OddsBar).show_odds(None)
        self._ran = [*self._ran[-99:], [r.seq for r in records]]
        if not quiet:
            self.say(self.results(lines_run=1))
        self.redraw(follow=True)
        return True

    def results(self, lines_run: int) -> str:
        """What the last commands wrote, one record a line, each in full."""
        seqs = [seq for ran in self._ran[-lines_run:] for seq in ran]
        return "\n".join(f"#{row.seq} {row.text}" for row in self.rows_of(seqs))

    # -- actions -----------------------------------------------------------

    def action_next_turn(self) -> None:
        words = self.view.system.next_words
        if commandline.quiet_command(words, self.view.state()) is None:
            self.say(f"{self.view.system.id} has no command that moves the clock on", error=True)
            return
        self.run_line(words)

    def action_undo(self) -> None:
        self.preview_undo(Undo())

    def preview_undo(self, command: Undo) -> None:
        """Show what the undo voids (decided, not yet appended); Enter appends it."""
        table = self.view.table
        try:
            table.catch_up()
            drafts = decide(command, table.state, table.dice, table.projection.history)
        except RuleError as exc:
            self.say(str(exc), error=True)
            return
        undone = drafts[0].event
        target: str = undone.command  # type: ignore[attr-defined]
        rows = self.rows_of(list(undone.voids))  # type: ignore[attr-defined]

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.execute(Undo(command=target))
            else:
                self.say("undo cancelled; nothing changed")

        self.push_screen(UndoScreen(rows), done)

    def action_redo(self) -> None:
        self.execute(Redo())

    def action_log_page(self, direction: int) -> None:
        self.query_one(LogView).page(direction)


#: a watching player's message line while it is not their turn
WATCHING = "watching (read-only); F1 lists the keys"


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
        Binding("q", "quit", "Quit", tooltip="quit"),
    ]  # fmt: skip
    HELP_WIDGETS = (LogView,)

    def __init__(self, view: View, name: str, bell: bool = False) -> None:
        super().__init__(view, name)
        #: ring the terminal's bell when the player's turn begins
        self.ring = bell
        self._my_turn = False

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(LogView).focus()
        self.set_interval(FOLLOW_INTERVAL, self.follow)
        if not self._my_turn:
            self.say(WATCHING)

    def my_turn(self) -> bool:
        """Whether the clock stands at the watching player's character."""
        clock = self.view.clock()
        own = self.own()
        return (
            clock is not None
            and own is not None
            and any(row.current and row.name == own for row in clock.rows)
        )

    def redraw(self, follow: bool = False) -> None:
        mine = self.my_turn()
        began = mine and not self._my_turn
        ended = self._my_turn and not mine
        self._my_turn = mine
        super().redraw(follow)
        if began:
            self.say(f"your turn, {self.own()}")
            if self.ring:
                self.bell()
        elif ended:
            self.say(WATCHING)

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
        if self.my_turn():
            text.append("  ", style="")
            text.append(" YOUR TURN ", style="bold reverse yellow")
        return text


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


def _open_view(path: str, *, readonly: bool, name: str | None, every: int = 1000) -> View:
    table = LiveTable.open_live(path, readonly=readonly, lens=name is not None, every=every)
    try:
        player = player_id(table.state, name) if name is not None else None
    except RuleError:
        table.close()
        raise
    return View(table, player)


def play_app(path: str, default: bool = False) -> PlayApp:
    app = PlayApp(
        _open_view(path, readonly=False, name=None), short_name(path), history=history_path(path)
    )
    if default:
        app.greeting = f"the default table, kept at {path} (margin play PATH opens another); " + (
            app.greeting
        )
    return app


def watch_app(path: str, name: str, bell: bool = False) -> WatchApp:
    return WatchApp(_open_view(path, readonly=True, name=name), short_name(path), bell=bell)


def replay_app(path: str, name: str | None = None) -> ReplayApp:
    # Denser checkpoints than live play: each step costs at most this many folds.
    return ReplayApp(_open_view(path, readonly=True, name=name, every=250), short_name(path))


def _run(app: TableApp) -> int:
    try:
        app.run()
    finally:
        app.view.table.close()
    return 0


def default_table() -> Path:
    """The default table, created with the demo party and fight the first time."""
    target = default_table_path()
    if not target.exists():
        from .demo import build_demo

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
