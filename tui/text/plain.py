"""The plain seat: a player's live view as lines of text, for screen readers and slow links.

Each record the player may see is printed once, as one line appended to what
came before: nothing is redrawn, no cursor moves, nothing is said by colour.
The lines are the watch screen's own (the same reader, the same lens). A few
single keys ask for the rest in words: whose turn it is, the clock, one's own
character. On a terminal the keys are read as they are pressed; from a pipe
or file, a line at a time (its first letter).
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from collections.abc import Callable, Iterator
from typing import IO

from margin.core import RuleError
from margin.core.authority import Door
from margin.core.clock import Cue, cue, cue_line
from margin.core.systems.base import Clock, ClockRow
from margin.events import short_name
from margin.tui.table.reader import LiveTable, LogRow, View, player_id, turn_names
from margin.tui.table.seats import Sitting

#: how often the seat looks for new records (and for its character, while it waits)
FOLLOW_INTERVAL = 0.1

KEYS = "t: whose turn, c: the clock, s: your character, h: these keys, q: quit"


def row_line(row: LogRow) -> str:
    """One record as the plain seat says it: its number, its text, and what marks it."""
    marks = " (secret)" if row.secret else ""
    marks += " (undone)" if row.undone else ""
    return f"{row.number or row.seq} {row.text}{marks}"


class PlainSeat:
    """One player's plain seat at a table: what it prints, and its answers to the keys."""

    def __init__(
        self, table: LiveTable, name: str, out: IO[str], bell: bool = False, door: Door = "local"
    ) -> None:
        self.table = table
        self.name = name
        self.out = out
        self.bell = bell
        self.door: Door = door
        self.view: View | None = None
        self.printed = 0
        self.cue: Cue = ""
        #: the seat as the GM's margin sees it, once seated
        self.sitting: Sitting | None = None

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def seat(self) -> bool:
        """Whether the character is seated (the view is made only then, through the lens)."""
        if self.view is None:
            try:
                self.view = View(self.table, player_id(self.table.state, self.name))
            except RuleError:
                return False
            char = self.view.state().characters[self.view.player or ""]
            title = self.table.state.title or short_name(self.table.store.name)
            self.say(f"margin: {title}, watching as {char.name}. Keys: {KEYS}")
        return True

    def own(self) -> str:
        assert self.view is not None
        char = self.view.state().characters.get(self.view.player or "")
        return char.name if char is not None else self.name

    def catch_up(self) -> None:
        """Print the records not printed yet, then a cue if the turn came round."""
        if self.view is None:
            return
        count = self.view.log_len()
        for row in self.view.rows(self.printed, count):
            self.say(row_line(row))
        self.printed = count
        self.read_on()
        self._cue(cue(self.view.clock(), self.own()))

    def _cue(self, now: Cue) -> None:
        """Say the cue ``now`` (the turn, on deck) when it is not the one said last."""
        if now == self.cue:
            return
        self.cue = now
        if now:
            self.say(("\a" if self.bell else "") + "* " + cue_line(now, self.own()))

    def follow(self) -> None:
        """Print what the GM wrote since, seating the character once they are seated."""
        if self.table.poll() and self.seat():
            self.catch_up()
        self.read_on()

    def read_on(self) -> None:
        """Tell the GM's margin the seat is here and how far it has printed (the whole log
        is printed as it sits down, so a returning player needs no digest)."""
        if self.view is None or self.view.player is None:
            return
        if self.sitting is None:
            self.sitting = Sitting(self.table.store.name, self.view.player, self.own(), self.door)
        self.sitting.read(self.view)

    def leave(self) -> None:
        if self.sitting is not None and self.view is not None:
            self.sitting.leave(self.view)

    # -- the keys ----------------------------------------------------------

    def answer(self, key: str) -> bool:
        """Answer one key; False once it asks to quit."""
        key = key.lower()
        if key == "q":
            return False
        if key in ("", " ", "\n", "\r"):
            return True
        for line in self._lines_for(key):
            self.say(line)
        return True

    def _lines_for(self, key: str) -> list[str]:
        if key in ("h", "?"):
            return [KEYS]
        if self.view is None:
            return [f"waiting for the GM to seat {self.name} (q quits)"]
        words = ANSWERS.get(key)
        return [f"{key!r}: not a key here; {KEYS}"] if words is None else words(self)

    def turn_words(self) -> str:
        assert self.view is not None
        clock = self.view.clock()
        if clock is None:
            return "no encounter is running"
        now = cue(clock, self.own())
        if now == "turn":
            return cue_line(now, self.own())
        return f"{_whose_turn(clock)}{_next(clock, now)} ({clock.title})"

    def clock_words(self) -> list[str]:
        assert self.view is not None
        clock = self.view.clock()
        if clock is None:
            return ["no encounter is running"]
        own = self.own()
        return [clock.title, *(_clock_line(row, own) for row in clock.rows)]

    def state_words(self) -> str:
        assert self.view is not None
        own = self.own()
        for row in self.view.characters():
            if row.name == own:
                return f"{own}: " + (", ".join(row.status) or "nothing to say")
        return f"{own} is not at the table"


def _whose_turn(clock: Clock) -> str:
    turn, _ = turn_names(clock)
    return f"{' and '.join(turn)}'s turn" if turn else "nobody's turn yet"


def _clock_line(row: ClockRow, own: str) -> str:
    """One row of the clock, marked whose turn it is, who is on deck, and which is ``own``."""
    mark = " (their turn)" if row.turn else " (on deck)" if row.on_deck else ""
    if row.name == own:
        mark = mark.replace("their", "your") + " (you)"
    return "  " + ", ".join(filter(None, [row.name, row.value, row.note])) + mark


def _next(clock: Clock, now: Cue) -> str:
    """Who acts next, as the seat's cue says it: the reader, or those on deck."""
    if now == "on deck":
        return "; you act next"
    _, deck = turn_names(clock)
    return f"; {' and '.join(deck)} next" if deck else ""


#: the keys that ask the seat for words, and its answer to each
ANSWERS: dict[str, Callable[[PlainSeat], list[str]]] = {
    "t": lambda seat: [seat.turn_words()],
    "c": PlainSeat.clock_words,
    "s": lambda seat: [seat.state_words()],
}


@contextlib.contextmanager
def _keys(stdin: IO[str]) -> Iterator[bool]:
    """Single keys from a terminal (cbreak mode, restored after); lines from anything else."""
    fd = stdin.fileno()
    if not os.isatty(fd):
        yield False
        return
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield True
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def plain_seat(path: str, name: str, bell: bool = False, door: Door = "local") -> int:
    """``margin watch PATH --as NAME --plain`` (and ``ssh -t HOST plain``, by the door
    ``ssh``): the plain seat, until q; once its input has ended, until it is stopped."""
    table = LiveTable.open_live(path, readonly=True, lens=True, player=name)
    seat = PlainSeat(table, name, sys.stdout, bell, door)
    stdin = sys.stdin
    try:
        with _keys(stdin) as single:
            if not seat.seat():
                seat.say(f"waiting for the GM to seat {name} (q quits)")
            seat.catch_up()
            _follow(seat, stdin.fileno(), single)
            return 0
    except KeyboardInterrupt:
        return 0
    finally:
        seat.leave()
        table.close()


def _follow(seat: PlainSeat, fd: int, single: bool) -> None:
    """Follow the table and answer the keys read from ``fd`` (each a key when ``single``, else
    a line each) until one asks to quit; once the input has ended, follow on."""
    reading = True
    while True:
        ready = select.select([fd] if reading else [], [], [], FOLLOW_INTERVAL)[0]
        # what the GM wrote first, so that an answer is about the table as it is now
        seat.follow()
        if not ready:
            continue
        keys = _read_keys(fd, single)
        if keys is None:
            reading = False  # the input ended: go on following
        elif not all(seat.answer(key) for key in keys):
            return


def _read_keys(fd: int, single: bool) -> str | list[str] | None:
    """The keys read from ``fd``: one, when ``single``, else each line's first letter;
    None once the input has ended."""
    data = os.read(fd, 1 if single else 4096).decode("utf-8", "replace")
    if not data:
        return None
    return data if single else [line.strip()[:1] for line in data.splitlines()]
