"""A player's live view of a table, the command line they act from, and the screen that
waits until their character is seated."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Input, Static

from margin.core import RuleError
from margin.core.authority import Seat
from margin.core.clock import Cue, cue, cue_line
from margin.core.commands import Answer
from margin.events import Record, StoreError
from margin.tui.table.reader import (
    LiveTable,
    View,
    player_id,
)

from . import commandline
from .base import (
    FOLLOW_INTERVAL,
    PANELS_HELP,
    SEAT_INTERVAL,
    Failed,
    TableApp,
    write,
)
from .modals import (
    help_keys,
)
from .prompts import PromptBar
from .widgets import (
    CommandLine,
    KeysFooter,
    LogView,
    OddsBar,
)

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
        Binding("r", "prompt", "Asked", tooltip="the check the GM asks of you: show it again"),
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
        #: the session (its commitment) this seat last gave its entropy to
        self._gave = ""

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
        yield PromptBar(id="prompt")
        yield OddsBar(id="odds")
        yield Static(id="message")
        # the line keeps what is put on it as it takes the focus (the '= ' for faces)
        yield CommandLine(self.view, id="command", select_on_focus=False)

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(LogView).focus()
        if self.seat is not None and self.query_one(PromptBar).has_class("shown"):
            # a check the GM asked before the player came in: the keys are its
            self.query_one(PromptBar).focus()
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
        self.say("your command: Enter gives it from your seat (help lists the commands)")

    def action_prompt(self) -> None:
        """Show again the check the GM asks of the player, after they hid it."""
        if self.seat is None or not self.query_one(PromptBar).reopen():
            self.say("the GM asks no check of you now", error=True)

    def _prompts(self) -> None:
        """The banner of the check the GM asks of the player: a new one takes the keys
        (unless the player is typing a line) and rings the bell when asked to."""
        if self.seat is None:
            return
        bar = self.query_one(PromptBar)
        if not bar.show_prompts(self.view.state()):
            return
        line = self.query_one(CommandLine)
        if not (self.focused is line and line.value):
            bar.focus()
        self.say("the GM asks you to roll: Enter rolls margin's dice, = types your faces")
        if self.ring:
            self.bell()

    @on(PromptBar.Roll)
    def roll_asked(self) -> None:
        """Answer the GM's ask with margin's dice, from the player's seat."""
        assert self.seat is not None
        if self.busy:
            self.say("wait: the table is busy with your last command", error=True)
            return
        line = self.query_one(CommandLine)
        line.pending += 1
        self.submit(
            functools.partial(write, self.view.table, Answer(), self.seat),
            functools.partial(self._acted, line, "roll"),
        )

    @on(PromptBar.Hidden)
    def prompt_hidden(self) -> None:
        self.query_one(LogView).focus()

    @on(PromptBar.Faces)
    def type_faces(self) -> None:
        """The command line, ready for the faces the player rolled at the table."""
        line = self.query_one(CommandLine)
        line.value = "= "
        line.cursor_position = len(line.value)
        line.focus()
        self.say("type the faces you rolled after the '=', then Enter")

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

    def give_entropy(self) -> None:
        """As the seat sits down, and as each later session is committed while it sits:
        random bytes of this process's own for the dice (``Table.add_entropy``), in a
        worker; a busy table is asked again at the next redraw."""
        if self.seat is None or self.busy:
            return
        table = self.view.table
        session = table.entropy_session()
        if not session or session == self._gave:
            return
        self._gave = session
        self.submit(functools.partial(table.add_entropy, self.seat), self._gave_entropy)

    def _gave_entropy(self, records: list[Record] | None, error: Exception | None) -> None:
        if isinstance(error, StoreError):
            self._gave = ""
        elif error is not None and not isinstance(error, RuleError):
            raise error
        elif records:
            self.redraw()

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
        self._prompts()
        self.give_entropy()
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
