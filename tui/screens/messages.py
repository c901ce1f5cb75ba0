"""What the table screens' workers report: one message per table job, posted from the
worker's thread and handled on the screen's own thread, in the order posted.

The screens fold and write the table in Textual workers (``@work(thread=True)``,
group ``table``), one table job at a time: the catch-up fold of what other processes
appended (``TableApp.fold``), the GM's lines in the order entered (``PlayApp.run_steps``,
which answers every step with one of the step messages below), a player's command and
a seat's entropy (``WatchApp.give``, ``WatchApp.give_entropy``). Only the screen's
thread draws: a worker reads and writes the table and says what came of it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

from margin.events import Record

if TYPE_CHECKING:
    from .base import Step
    from .widgets import CommandLine


class Folded(Message):
    """Posted by ``TableApp.fold``'s worker once it has folded what other processes
    appended: ``new``, the records folded (none: nothing to draw again)."""

    def __init__(self, new: list[Record]) -> None:
        super().__init__()
        self.new = new


class ReadFailed(Message):
    """Posted by a fold's worker when the table could not be read (a database that went
    away): ``reason`` says why, for the message line."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class StepAnswered(Message):
    """What ``PlayApp.run_steps`` posts for each of the GM's steps, in the order the
    steps were entered: exactly one of its kinds below answers each step."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step


class Written(StepAnswered):
    """Posted by ``PlayApp.run_steps`` once a step's command is on the table: ``records``,
    what it wrote."""

    def __init__(self, step: Step, records: list[Record]) -> None:
        super().__init__(step)
        self.records = records


class Refused(StepAnswered):
    """Posted by ``PlayApp.run_steps`` when a step's line or command is refused (core's
    rules, a table that could not be written, a sheet file that could not be read):
    ``reason`` is the message line's; nothing of the step was written."""

    def __init__(self, step: Step, reason: str) -> None:
        super().__init__(step)
        self.reason = reason


class UndoDecided(StepAnswered):
    """Posted by ``PlayApp.run_steps`` once an undo to preview is decided, not written:
    ``drafts``, what it would append (its first voids the records to show)."""

    def __init__(self, step: Step, drafts: list[Any]) -> None:
        super().__init__(step)
        self.drafts = drafts


class LineOpens(StepAnswered):
    """Posted by ``PlayApp.run_steps`` for a line that writes nothing and is the
    screen's to act on, in its turn: ``help``, ``rules`` or a search (``/TEXT``)."""

    def __init__(self, step: Step, action: str) -> None:
        super().__init__(step)
        self.action = action


class Dropped(StepAnswered):
    """Posted by ``PlayApp.run_steps`` for a step not run: Ctrl+Q a second time, or an
    earlier line of the same paste refused."""


class StepsDone(Message):
    """Posted by ``PlayApp.run_steps`` as its worker ends: no step was left waiting when
    it looked (one entered since is run by the next worker)."""


class Acted(Message):
    """Posted by ``WatchApp.give``'s worker once a player's command is decided: ``records``
    it wrote, or ``reason`` it was refused (records empty); ``text`` is the line typed
    and ``line`` the command line it came from."""

    def __init__(
        self, line: CommandLine, text: str, records: list[Record], reason: str | None = None
    ) -> None:
        super().__init__()
        self.line = line
        self.text = text
        self.records = records
        self.reason = reason


class EntropyGiven(Message):
    """Posted by ``WatchApp.give_entropy``'s worker: ``records``, what the seat's entropy
    wrote (none: the session had it already), or ``failed``, the table could not be
    written this time (asked again at the next redraw)."""

    def __init__(self, records: list[Record], failed: bool = False) -> None:
        super().__init__()
        self.records = records
        self.failed = failed
