"""A player's live view of a table, the command line they act from, and the screen that
waits until their character is seated."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static

from margin.core import RuleError
from margin.core.authority import Seat
from margin.core.clock import Cue, cue, cue_line
from margin.core.commands import Answer, Command
from margin.events import Record, StoreError
from margin.events.players import Requested
from margin.tui.table.reader import (
    LiveTable,
    View,
    player_id,
)
from margin.tui.table.seats import BEAT, HASTE, Sitting

from . import commandline
from .base import (
    PANELS_HELP,
    SEAT_INTERVAL,
    Failed,
    TableApp,
    TableScreen,
    write,
)
from .messages import Acted, EntropyGiven
from .modals import (
    help_keys,
)
from .prompts import PromptBar
from .seats import DigestScreen
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


class WaitingScreen(Screen[None]):
    """What a player sees until the GM seats their character: the table's title and what
    it waits for, nothing else of the table (fail closed: the player's ``View`` is made
    only once the lens can be).

    It folds what the GM appends in a worker and posts ``Seated`` to its App once the
    character is at the table.
    """

    class Seated(Message):
        """Posted by the waiting screen, on the screen's thread, once the player's
        character is at the table: ``view`` is the player's view of it, through the lens."""

        def __init__(self, view: View) -> None:
            super().__init__()
            self.view = view

    class Folded(Message):
        """Posted by the waiting screen's worker, from its thread, once it has folded what
        the GM appended (``error``: the table could not be read this time)."""

        def __init__(self, error: StoreError | None = None) -> None:
            super().__init__()
            self.error = error

    def __init__(self, table: LiveTable, seat: str, name: str) -> None:
        super().__init__()
        self.table = table
        #: the name the player sat down with
        self.seat_name = seat
        self.table_name = name

    def compose(self) -> ComposeResult:
        yield Static(self.waiting_text(), id="waiting")
        yield KeysFooter()

    def waiting_text(self) -> Text:
        with self.table.lock:
            title = self.table.state.title or self.table_name
        text = Text()
        text.append(" margin ", style="bold reverse")
        text.append(f" {title}\n\n", style="bold")
        text.append(f"Waiting for the GM to seat {self.seat_name}.\n", style="bold cyan")
        text.append("Your view opens here as soon as you are at the table; q quits.", style="dim")
        return text

    def on_mount(self) -> None:
        #: whether a fold is in flight (its ``Folded`` not handled yet)
        self.folding = False
        self.looking = self.set_interval(SEAT_INTERVAL, self.look_for_seat)

    def look_for_seat(self) -> None:
        """Fold what the GM appended (in a worker), then look for the seat's character."""
        if self.folding:
            return
        try:
            changed = self.table.changed()
        except StoreError:
            return
        if changed:
            self.folding = True
            self.fold()

    @work(thread=True, exclusive=True, group="seat")
    def fold(self) -> None:
        """Fold what the GM appended; ``Folded`` says so."""
        try:
            self.table.catch_up()
        except StoreError as exc:
            self.post_message(self.Folded(exc))
            return
        self.post_message(self.Folded())

    @on(Folded)
    def folded(self, message: Folded) -> None:
        self.folding = False
        view = seated_view(self.table, self.seat_name) if message.error is None else None
        if view is not None:
            self.looking.stop()
            self.folding = True  # looks no more
            self.post_message(self.Seated(view))


def seated_view(table: LiveTable, seat: str) -> View | None:
    """The player's view of ``table`` once a character ``seat`` names is at it (else None)."""
    try:
        with table.lock:
            player = player_id(table.state, seat)
    except RuleError:
        return None
    return View(table, player)


class WatchApp(TableApp):
    """A player's view: the same table, read-only, through the player lens; a waiting
    screen until the GM seats the character, then the table's screen (a mode of its own,
    so that whatever was open over the waiting screen is left with it)."""

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

    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {"watching": TableScreen}

    def __init__(
        self, table: LiveTable, seat: str, name: str, bell: bool = False, acts: Seat | None = None
    ) -> None:
        super().__init__(table, name)
        #: the name the player sat down with (``seat`` is the seat they act from, if any)
        self.seat_name = seat
        #: whether the table's screen is up (False: the waiting screen)
        self.watching = False
        view = seated_view(table, seat)
        #: whether the character was not at the table yet when the view opened
        self.waits = view is None
        if view is not None:
            self.view = view
        #: ring the terminal's bell when the player is on deck and when their turn begins
        self.ring = bell
        self._cue: Cue = ""
        #: the seat the player gives commands from (None: watching only)
        self.seat = acts
        #: the session (its commitment) this seat last gave its entropy to
        self._gave = ""
        #: the seat as the GM's margin sees it, once the view is open
        self.sitting: Sitting | None = None
        #: the timer that says how far the screen read once a move can be said
        self._reading: Timer | None = None
        #: the player's requests waiting for the GM's ruling at the last redraw (their
        #: numbers), and how much of the log that redraw had shown
        self._waiting: set[int] = set()
        self._ruled_upto = 0
        #: lines the player entered while a table job was in flight, given in order as
        #: each job ends (a burst of lines, typed fast or pasted)
        self._lines: deque[tuple[CommandLine, str]] = deque()

    def get_default_screen(self) -> Screen[Any]:
        if not self.waits:
            return super().get_default_screen()
        return WaitingScreen(self.table, self.seat_name, self.table_name)

    def _get_dom_base(self) -> DOMNode:
        # The App's queries read the screen it composed first (Textual's default): the
        # waiting screen's, until the table's screen takes over in the watching mode.
        if self.current_mode == "watching":
            return self.screen_stack[0]
        return super()._get_dom_base()

    @on(WaitingScreen.Seated)
    def seated(self, message: WaitingScreen.Seated) -> None:
        """The character is at the table: the player's view replaces the waiting screen."""
        self.view = message.view
        self.switch_mode("watching")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # the waiting screen draws nothing of the table: only quitting (and the palette)
        return self.watching or action in ("quit", "command_palette")

    def help_keys(self) -> list[tuple[str, str]]:
        keys = super().help_keys()
        if self.seat is None:
            return keys
        asked = help_keys(PromptBar.BINDINGS)
        return help_keys(CommandLine.BINDINGS) + CommandLine.HELP_NOTES + asked + keys

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

    def start(self) -> None:
        super().start()
        self.watching = True
        self.query_one(LogView).focus()
        if self.seat is not None and self.query_one(PromptBar).has_class("shown"):
            # a check the GM asked before the player came in: the keys are its
            self.query_one(PromptBar).focus()
        self.follow_table()
        if not self._cue:
            self.say(self.idle_line)
        self.sit_down()

    def sit_down(self) -> None:
        """Announce the seat to the GM's margin, and first show a returning player what
        happened since they last read (through their lens), before the live view."""
        player = self.view.player
        if player is None or self.sitting is not None:
            return
        door = self.seat.door if self.seat is not None else "local"
        self.sitting = Sitting(self.view.table.store.name, player, self.own() or player, door)
        lines = self.sitting.arrive(self.view)
        # a beat's rewrite is due every BEAT; a move is said once the screen draws it, or
        # HASTE later when it came right after a rewrite (``read_soon``)
        self.set_interval(BEAT / 2, self.read_on)
        if lines:
            self.push_screen(DigestScreen(lines))

    def read_soon(self) -> None:
        """Say again, ``HASTE`` from now, how far the screen has read (a move drawn right
        after a rewrite waits that long to be said)."""
        if self._reading is None:
            self._reading = self.set_timer(HASTE, self._read_later)

    def _read_later(self) -> None:
        self._reading = None
        self.read_on()

    def read_on(self) -> None:
        """Tell the GM's margin the seat is still here and how far its screen has read."""
        if self.sitting is not None:
            self.sitting.read(self.view)

    def on_unmount(self) -> None:
        if self.sitting is not None:
            self.sitting.leave(self.view)

    def sees(self, new: list[Record]) -> bool:
        """Whether this player may see any of ``new`` (records just folded): records they
        cannot see change nothing they are shown (the lens's promise), so the screen is
        not drawn again for them. With many players, each one's request and ruling,
        addressed to that player alone, redraws one seat's screen besides the GM's."""
        seen = self.view.table.seqs
        return not seen or seen[-1] >= new[0].seq

    def _line_option(self) -> None:
        """The command line as the table's option players has it: off, it takes nothing."""
        if self.seat is None:
            return
        option = str(self.view.state().options.get("players", "ask"))
        line = self.query_one(CommandLine)
        line.placeholder = LINE_SAYS.get(option, LINE_SAYS["off"])
        line.disabled = option not in ("ask", "trust")

    async def on_event(self, event: events.Event) -> None:
        # ':' opens the line as it arrives: run as a binding, once the widget it was sent
        # to has passed it up, the keys typed right after it (a fast typist, a paste) would
        # already be on their way to that widget as the screen's keys ("q" quits)
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and not isinstance(self.focused, CommandLine)
            and self._opens_line(event.key)
        ):
            self.action_act()
            return
        await super().on_event(event)

    def _opens_line(self, key: str) -> bool:
        """Whether ``key`` is this screen's key to the command line, active now."""
        active = self.screen.active_bindings.get(key)
        return active is not None and active.binding.action == "act"

    def action_act(self) -> None:
        """Go to the command line, to give a command from the player's seat."""
        if self.seat is None:
            self.say("this view watches only", error=True)
            return
        line = self.query_one(CommandLine)
        if line.disabled:
            self.say(LINE_SAYS["off"], error=True)
            return
        # focused now, not once the queue reaches a deferred focus: the keys typed right
        # after ':' (a fast typist, a paste) are the line's, never the screen's ("q" quits)
        self.screen.set_focus(line)
        self.say("your command: Enter gives it from your seat (help lists the commands)")

    def action_prompt(self) -> None:
        """Show again the check the GM asks of the player, after they hid it."""
        if self.seat is None or not self.query_one(PromptBar).reopen():
            self.say("the GM asks no check of you now", error=True)

    def _rulings(self) -> None:
        """The GM's ruling on one of the player's requests, said on their message line as
        their log says it (what the line said of the request is out of date)."""
        if self.seat is None:
            return
        waiting = set(self.view.state().requests)
        ruled, self._waiting = self._waiting - waiting, waiting
        start, self._ruled_upto = self._ruled_upto, self.view.log_len()
        if not ruled:
            return
        try:
            entries = self.view.entries(start, self._ruled_upto)
        except StoreError:
            return  # the log panel says it cannot read the table
        for row, data in reversed(entries):
            event = data["event"]
            if event.get("type") == "player.ruled" and event.get("request") in ruled:
                self.say(row.text)
                return

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
        self._jobs += 1
        self.give(Answer(), line, "roll")

    @on(PromptBar.Hidden)
    def prompt_hidden(self) -> None:
        # a banner shown again since it hid (the GM asked again at once) keeps the keys
        if not self.query_one(PromptBar).has_class("shown"):
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
        self._lines.append((event.line, event.text))
        self._next_line()

    def idle(self) -> None:
        # a fold has ended: the lines entered meanwhile are given
        super().idle()
        self._next_line()

    def _next_line(self) -> None:
        """Give the lines waiting, in order, while no table job is in flight."""
        while self._lines and not self.busy:
            self._enter(*self._lines.popleft())

    def _enter(self, line: CommandLine, text: str) -> None:
        try:
            parsed = commandline.parse_line(text, self.view.state(), player=True)
        except RuleError as exc:
            line.pending -= 1
            line.refused(text)
            self.say(str(exc), error=True)
            return
        if parsed.action in ("help", "rules"):
            line.pending -= 1
            self.action_help() if parsed.action == "help" else self.action_rules()
            return
        if parsed.command is None:
            line.pending -= 1
            self.say(f"{text.split()[0]}: the GM's, not a player's", error=True)
            return
        self._jobs += 1
        self.give(parsed.command, line, text)

    @work(thread=True, exclusive=True, group="table")
    def give(self, command: Command, line: CommandLine, text: str) -> None:
        """Give ``command`` from the player's seat; ``Acted`` says what came of it."""
        assert self.seat is not None
        try:
            records = write(self.table, command, self.seat)
        except (RuleError, StoreError, Failed) as exc:
            self.post_message(Acted(line, text, [], str(exc)))
            return
        self.post_message(Acted(line, text, records))

    @on(Acted)
    def acted(self, message: Acted) -> None:
        """The player's command is decided: done, asked of the GM, or refused."""
        self._jobs -= 1
        line, text, records = message.line, message.text, message.records
        line.pending -= 1
        if message.reason is not None:
            line.refused(text)
            self.say(message.reason, error=True)
            self._next_line()
            return
        self.query_one(OddsBar).show_odds(None)
        self.redraw(follow=True)
        # a request waits for the GM's ruling; a whisper (addressed too) is delivered
        asked = [r for r in records if type(r.event) is Requested]
        if asked and len(asked) == len(records):
            number = self.table.reader.number(asked[0].seq) if self.table.reader else None
            self.say(f"asked the GM (request #{number}): {text}; the GM rules on it")
        else:
            self.say(f"done: {text}")
        self._next_line()

    def give_entropy(self) -> None:
        """As the seat sits down, and as each later session is committed while it sits:
        random bytes of this process's own for the dice (``Table.add_entropy``), in a
        worker; a busy table is asked again at the next redraw."""
        if self.seat is None or self.busy:
            return
        table = self.table
        session = table.entropy_session()
        if not session or session == self._gave:
            return
        self._gave = session
        self._jobs += 1
        self.add_entropy()

    @work(thread=True, exclusive=True, group="table")
    def add_entropy(self) -> None:
        """The seat's entropy for the session committed; ``EntropyGiven`` says so."""
        assert self.seat is not None
        try:
            records = self.table.add_entropy(self.seat)
        except StoreError:
            self.post_message(EntropyGiven([], failed=True))
            return
        except RuleError:
            records = []
        self.post_message(EntropyGiven(records))

    @on(EntropyGiven)
    def entropy_given(self, message: EntropyGiven) -> None:
        self._jobs -= 1
        self._next_line()
        if message.failed:
            self._gave = ""
        elif message.records:
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
        self._rulings()
        self._prompts()
        self.give_entropy()
        self.read_on()
        self.read_soon()
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
        if self.watching:
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
