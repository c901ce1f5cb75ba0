"""margin's Textual screens: the GM's table, a player's live view, and replay.

``play``, ``watch`` and ``replay`` are the entry points ``margin`` calls. The
screens render a ``View`` of the table and send commands; rules stay in core.
"""

from __future__ import annotations

import getpass
import json
import queue
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import msgspec
from rich.text import Text
from textual import on, work
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from margin.core import RuleError
from margin.core.authority import Seat
from margin.core.commands import Accept, Command, Redo, Undo
from margin.core.systems.words import NAMES_NOTE
from margin.events import StoreError, short_name
from margin.tui.table.notices import Notices
from margin.tui.table.reader import (
    LiveTable,
    View,
    open_view,
)
from margin.tui.table.sheets import SheetFiles
from margin.tui.text import render

from . import commandline
from .base import (
    NOTICE_INTERVAL,
    PANELS_HELP,
    Failed,
    Paste,
    Step,
    TableApp,
    default_table_path,
    history_path,
    write,
)
from .commandline import SheetReader
from .messages import (
    Dropped,
    LineOpens,
    Refused,
    StepAnswered,
    StepsDone,
    UndoDecided,
    Written,
)
from .modals import (
    PasteScreen,
    UndoScreen,
)
from .prompts import PromptsPanel
from .replay import ReplayApp
from .seats import SeatsLine
from .watch import WatchApp
from .widgets import (
    CommandLine,
    LogView,
    OddsBar,
    key_pair,
)

#: Seconds a write may take before the message line says the table is being written.
BUSY_NOTICE = 0.5


def line_refusal(error: Exception) -> str:
    """Why a line could not be run: core's reason, or (a bug in a short form, which must
    not end the GM's session) what margin failed on."""
    if isinstance(error, RuleError):
        return str(error)
    return f"margin could not read that line ({type(error).__name__}: {error})"


class PlayApp(TableApp):
    """The GM's table: every panel live, a command line, undo with a preview."""

    EMPTY = "nobody at the table yet (add NAME seats a character)"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_turn", "Next turn", tooltip="next turn (the system's 'next')"),
        Binding("ctrl+z", "undo", "Undo", tooltip="undo: shows what it voids, Enter confirms"),
        Binding("ctrl+y", "redo", "Redo", show=False, tooltip="redo the last undo"),
        Binding("f1", "help", "Help", tooltip="this help"),
        Binding("f2", "rules", "Rules", tooltip="the rules of this table's system"),
        Binding("f4", "panels", "Panels", tooltip=PANELS_HELP),
        Binding("f5", "rule('accept')", "Accept", show=False,
                tooltip="accept the first player's request waiting"),
        Binding("f6", "rule('refuse')", "Refuse", show=False,
                tooltip="refuse the first player's request waiting (type a reason, Enter)"),
        Binding("f7", "rule('amend')", "Amend", show=False,
                tooltip="amend the first player's request waiting: its line, to change and run"),
        Binding("f8", "roll_asked", "Roll asked", show=False,
                tooltip="roll the first check asked of a player who has not answered (Enter)"),
        *key_pair(
            "PageUp / PageDown", "scroll the log",
            ("pageup", "log_page(-1)", "Log up"),
            ("pagedown", "log_page(1)", "Log down"),
        ),
        Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="quit"),
    ]  # fmt: skip
    HELP_WIDGETS = (CommandLine,)

    def __init__(
        self,
        view: View,
        name: str,
        history: Path | None = None,
        sheets: SheetFiles | None = None,
    ) -> None:
        super().__init__(view.table, name)
        self.view = view
        self.history = history
        #: where ``add NAME from FILE`` reads its file
        self.sheets = sheets or SheetFiles(table=view.table.store.name)
        self.greeting = "help lists the commands; F1 lists the keys"
        #: the records each recent command wrote, newest last
        self._ran: list[list[int]] = []
        #: the steps entered and not yet taken by the steps' worker, oldest first
        self._waiting: queue.SimpleQueue[Step] = queue.SimpleQueue()
        #: steps entered whose answer has not been handled here yet
        self._unanswered = 0
        #: whether the steps' worker runs (until its StepsDone is handled)
        self._stepping = False
        #: Ctrl+Q a second time: the steps' worker drops the steps still waiting
        self._dropping = False
        self._busy_notice: Timer | None = None
        self._quitting = False
        #: what the table's host says of seats it refused or ended
        self.notices = Notices(view.table.store.name)

    def compose_bottom(self) -> Iterable[Any]:
        yield SeatsLine(self.view, id="seats")
        yield Static(id="requests")
        yield PromptsPanel(id="prompts")
        yield OddsBar(id="odds")
        yield Static(id="message")
        yield CommandLine(self.view, history=self.history, id="command")

    def _redraw(self, follow: bool) -> None:
        super()._redraw(follow)
        requests = self.requests_text()
        panel = self.query_one("#requests", Static)
        self._show("requests", requests, panel.update)
        panel.display = bool(requests.plain)
        asked = self.query_one(PromptsPanel)
        self._show("prompts", asked.text_of(self.view.state()), asked.show_text)

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

    def action_roll_asked(self) -> None:
        """Put ``ask roll NAME`` on the command line for the first prompt waiting: Enter rolls
        it with the GM's dice (or add ``= FACES`` the player called out)."""
        found = PromptsPanel.first_waiting(self.view.state())
        if found is None:
            self.say("no check asked of a player is waiting", error=True)
            return
        line = self.query_one(CommandLine)
        line.value = f"ask roll {found} "
        line.cursor_position = len(line.value)
        line.focus()
        self.say(f"rolling the check asked of {found}: Enter (= FACES for the dice they rolled)")

    def start(self) -> None:
        super().start()
        self.query_one(CommandLine).focus()
        self.follow_table()
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
    #
    # The GM's steps (lines typed or pasted, keys' commands, an undo's preview) go to one
    # worker in the order entered, which runs each once the one before is on the table
    # and answers each with one message (messages.StepAnswered); a step entered while the
    # worker runs is taken by it, or by the next one if it had ended (StepsDone).

    @property
    def busy(self) -> bool:
        return super().busy or self._stepping or self._unanswered > 0

    def enqueue(self, *steps: Step) -> None:
        """Run ``steps`` after the ones already waiting, each once the one before has landed."""
        for step in steps:
            self._waiting.put(step)
        self._unanswered += len(steps)
        if self._busy_notice is None:
            self._busy_notice = self.set_timer(BUSY_NOTICE, self._say_busy)
        self._start_steps()

    def idle(self) -> None:
        # a fold has ended: the steps waiting for it start, or a quit waiting for it ends
        self._start_steps()
        self._quit_if_written()

    def _start_steps(self) -> None:
        # one table job at a time: not while a fold is in flight (its answer starts them)
        if not self._stepping and not super().busy and not self._waiting.empty():
            self._stepping = True
            self.run_steps()

    @work(thread=True, exclusive=True, group="table")
    def run_steps(self) -> None:
        """Run the steps waiting, oldest first, until none is left; each is answered by a
        message, and ``StepsDone`` says the worker has ended."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                step = self._waiting.get_nowait()
            except queue.Empty:
                break
            self.post_message(self.run_step(step))
        self.post_message(StepsDone())

    def run_step(self, step: Step) -> StepAnswered:
        """Run one step (in the steps' worker): what came of it."""
        paste = step.paste
        if self._dropping or (paste is not None and paste.refused):
            return Dropped(step)
        answer = self._answer(step)
        if paste is not None and isinstance(answer, Refused):
            paste.refused = True
        return answer

    def _answer(self, step: Step) -> StepAnswered:
        """What a step's typed line, undo preview or command answers."""
        if step.text is not None:
            return self.run_line(step, step.text)
        if step.preview:
            assert isinstance(step.command, Undo)
            return self.preview_undo(step, step.command)
        assert step.command is not None
        return self.execute(step, step.command)

    def run_line(self, step: Step, text: str) -> StepAnswered:
        """Run a typed line (in the steps' worker): a search, help and rules are the
        screen's to show; a command is decided and appended."""
        if text.startswith("/"):
            return LineOpens(step, "search")
        try:
            sheets = self._sheets_named(text)
            parsed = commandline.parse_line(text, self.view.state(), sheets)
        except Exception as exc:
            return Refused(step, line_refusal(exc))
        if parsed.action == "undo":
            return self.preview_undo(step, Undo())
        if isinstance(parsed.command, Undo):
            return self.preview_undo(step, parsed.command)
        if parsed.action in ("help", "rules"):
            return LineOpens(step, parsed.action)
        assert parsed.command is not None
        return self.execute(step, parsed.command)

    def _sheets_named(self, text: str) -> SheetReader | None:
        """The sheet files a typed line names, read now (in the steps' worker: a file may be
        slow to read, from a network folder, and the screen answers keys meanwhile)."""
        files = commandline.sheet_files(text, self.view.state())
        if not files:
            return None
        return {name: self.sheets.read(name) for name in files}.__getitem__

    def execute(self, step: Step, command: Command) -> StepAnswered:
        """Decide and append ``command`` (in the steps' worker)."""
        try:
            return Written(step, write(self.table, command))
        except (RuleError, StoreError, Failed) as exc:
            return Refused(step, str(exc))

    def preview_undo(self, step: Step, command: Undo) -> StepAnswered:
        """Decide the undo, not appended (in the steps' worker): what it voids is shown
        for the GM to confirm."""
        try:
            self.table.catch_up()
            return UndoDecided(step, self.table.decide(command))
        except (RuleError, StoreError) as exc:
            return Refused(step, str(exc))

    @on(Written)
    def written(self, message: Written) -> None:
        """A step's command is on the table: what it wrote, on the message line."""
        self.query_one(OddsBar).show_odds(None)
        self._ran = [*self._ran[-99:], [r.seq for r in message.records]]
        if message.step.paste is None:
            self.say(self.results(lines_run=1))
        self.redraw(follow=True)
        self._answered(message.step, True)

    @on(Refused)
    def step_refused(self, message: Refused) -> None:
        self.say(message.reason, error=True)
        self._answered(message.step, False)

    @on(UndoDecided)
    def undo_decided(self, message: UndoDecided) -> None:
        """Show what the undo voids; Enter appends it (after the steps entered meanwhile)."""
        undone = message.drafts[0].event
        target: str = undone.command
        try:
            rows = self.view.gm_rows(undone.voids)
        except StoreError as exc:
            self.say(f"cannot read the table: {exc}; nothing undone", error=True)
            self._answered(message.step, True)
            return

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.enqueue(Step(command=Undo(command=target)))
            else:
                self.say("undo cancelled; nothing changed")

        self.push_screen(UndoScreen(rows), done)
        self._answered(message.step, True)

    @on(LineOpens)
    def line_opens(self, message: LineOpens) -> None:
        if message.action == "help":
            self.action_help()
        elif message.action == "rules":
            self.action_rules()
        else:
            log = self.query_one(LogView)
            log.screen_lines()
            found = self.search((message.step.text or "")[1:], log.lowest)
            if found is not None:
                log.show(found)
        self._answered(message.step, True)

    @on(Dropped)
    def dropped(self, message: Dropped) -> None:
        self._answered(message.step, None)

    @on(StepsDone)
    def steps_done(self) -> None:
        self._stepping = False
        self._start_steps()
        self._quit_if_written()

    def _answered(self, step: Step, ok: bool | None) -> None:
        """A step is answered: ``ok``, refused (False; the reason is on the message line)
        or dropped (None)."""
        self._unanswered -= 1
        self._busy_again()
        if step.line is not None:
            step.line.pending -= 1
            if ok is False:
                step.line.refused(step.text or "")
        if step.paste is not None and ok is not None:
            self._paste_answered(step, step.paste, ok)
        self._quit_if_written()

    def _busy_again(self) -> None:
        """The notice that the table is being written to waits ``BUSY_NOTICE`` again from
        now, while steps are unanswered (none once every step is)."""
        if self._busy_notice is not None:
            self._busy_notice.stop()
            self._busy_notice = None
        if self._unanswered:
            self._busy_notice = self.set_timer(BUSY_NOTICE, self._say_busy)

    def _paste_answered(self, step: Step, paste: Paste, ok: bool) -> None:
        lines = paste.lines
        if not ok:
            n = paste.ran + 1
            reason = str(self.query_one("#message", Static).render())
            rest = f"lines {n}-{len(lines)} were" if n < len(lines) else f"line {n} was"
            self.say(f"pasted line {n} of {len(lines)} refused ({rest} not run): {reason}", True)
            self.query_one(CommandLine).refused(step.text or "")
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

    def say(self, message: str, error: bool = False) -> None:
        # once quitting has begun, the message line says how the screen quits, whatever lands
        if not self._quitting:
            super().say(message, error)

    def _say_quitting(self, message: str) -> None:
        super().say(message)

    def _waiting_count(self) -> int:
        """Steps entered and not yet taken, besides the one being run (if any)."""
        return max(0, self._unanswered - (1 if self._stepping else 0))

    def _say_busy(self) -> None:
        waiting = self._waiting_count()
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
            self._dropping = True
            self._say_quitting(
                "quitting once the command being written is on the table "
                f"({self._waiting_count()} not run)"
            )
            self._quit_if_written()
            return
        # Keys typed before this one may not have reached the command line yet: look once
        # they have, so that a line entered before the quit is not lost.
        self.query_one(CommandLine).call_later(self._quit_when_written)

    def _quit_when_written(self) -> None:
        self._quitting = True
        if self.busy or self.query_one(CommandLine).pending:
            self._say_quitting(
                "quitting once the lines entered are on the table "
                "(Ctrl+Q again: once the one being written is)"
            )
        self._quit_if_written()

    def _quit_if_written(self) -> None:
        if self._quitting and not self.busy and not self.query_one(CommandLine).pending:
            self.exit()

    def results(self, lines_run: int) -> str:
        """What the last commands wrote, one record a line, each in full."""
        seqs = [seq for ran in self._ran[-lines_run:] for seq in ran]
        try:
            rows = self.view.gm_rows(seqs)
        except StoreError as exc:
            which = f"#{seqs[0]}" + (f"-#{seqs[-1]}" if len(seqs) > 1 else "")
            return f"written: {which} (cannot read it back now: {exc})"
        return "\n".join(f"#{row.seq} {row.text}" for row in rows)

    # -- actions -----------------------------------------------------------

    def action_next_turn(self) -> None:
        words = self.view.system.next_words
        if commandline.quiet_command(words, self.view.state()) is None:
            self.say(f"{self.view.system.id} has no command that moves the clock on", error=True)
            return
        self.enqueue(Step(text=words))

    def action_undo(self) -> None:
        self.enqueue(Step(command=Undo(), preview=True))

    def action_redo(self) -> None:
        self.enqueue(Step(command=Redo()))

    def action_log_page(self, direction: int) -> None:
        self.query_one(LogView).page(direction)


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


def watch_app(path: str, name: str, bell: bool = False, act: bool = True) -> WatchApp:
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
        return WatchApp(table, name, short_name(path), bell=bell)
    seat = Seat(name, "local", getpass.getuser())
    return WatchApp(table, name, short_name(path), bell=bell, acts=seat)


def replay_app(path: str, name: str | None = None) -> ReplayApp:
    # Denser checkpoints than live play: each step costs at most this many folds.
    # A replay follows nothing and writes nothing: no worker, one connection.
    view = open_view(path, readonly=True, name=name, every=250, live=False)
    return ReplayApp(view, short_name(path))


def _run(app: TableApp) -> int:
    try:
        app.run()
    finally:
        app.table.close()
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
