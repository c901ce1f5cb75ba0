"""What undo needs to know about the log: commands, causes, voided records.

A long table's log has a million commands; what this keeps of each is a few
machine integers and the bytes of its id, in columns (``core.columns``), not a
Python object per command, so that opening from a snapshot reads bytes (a
mapped snapshot's own, not even copied) rather than building millions of
objects, and a screen's memory does not grow by a hundred bytes a record.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import msgspec

from margin.events import (
    PUBLIC,
    Branched,
    DiceEntropy,
    DiceOpened,
    Record,
    Redone,
    TableCreated,
    Undone,
)

from .columns import Blob, Column, Positions
from .fairness import DICE_EVENTS, DiceLedger

#: a command is an undo, a redo, or one of these, known by its first record: an undo
#: that names no command passes over it
_META = frozenset({Undone, Redone, TableCreated, Branched, DiceEntropy, DiceOpened})
_DICE = (DiceEntropy, DiceOpened)
_CHANGES = (Undone, Redone)

#: what ``History.extend`` says when no undo or redo touched a record
NONE = 2**63


def _column(data: bytes | memoryview = b"", mapped: bool = False) -> Column:
    """A column of record numbers (64-bit machine integers)."""
    return Column("q", data, mapped)


class Commands(Positions[str]):
    """Command ids in log order: their UTF-8 bytes end to end, and where each ends.

    Looking one up by id searches the bytes from the newest (``find``): undo and redo
    name recent commands, and a search of a million ids is one pass of ``bytes.rfind``
    at most, so no dictionary of every id is kept.
    """

    __slots__ = ("_ends", "_ids")

    def __init__(
        self, ids: bytes | memoryview = b"", ends: bytes | memoryview = b"", mapped: bool = False
    ) -> None:
        self._ids = Blob(ids, mapped)
        self._ends = _column(ends, mapped)

    def append(self, command: str) -> None:
        self._ids += command.encode()
        self._ends.append(len(self._ids))

    def extend(self, commands: list[str]) -> None:
        """Commands in log order, appended in bulk."""
        text = "".join(commands)
        if not text.isascii():
            for command in commands:
                self.append(command)
            return
        ends = itertools.accumulate(map(len, commands), initial=len(self._ids))
        next(ends)
        self._ends.extend(list(ends))
        self._ids += text.encode()

    def __len__(self) -> int:
        return len(self._ends)

    def _at(self, i: int) -> str:
        at = self._ends._at
        return self._ids.read(at(i - 1) if i else 0, at(i)).decode()

    def __iter__(self) -> Iterator[str]:
        return map(self._at, range(len(self)))

    def __reversed__(self) -> Iterator[str]:
        return map(self._at, range(len(self) - 1, -1, -1))

    def __contains__(self, command: object) -> bool:
        return isinstance(command, str) and self.find(command) is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Commands):
            return NotImplemented
        return self._ids == other._ids and self._ends == other._ends

    __hash__ = None  # type: ignore[assignment]

    def find(self, command: str) -> int | None:
        """The position of ``command``, the newest if it is there more than once."""
        want = command.encode()
        ids, ends = self._ids, self._ends
        if not want:
            return next((i for i in range(len(ends) - 1, -1, -1) if self._width(i) == 0), None)
        stop = len(ids)
        while (at := ids.rfind(want, stop)) >= 0:
            # the entry the match starts in: it must be the whole of that entry
            i = ends.bisect_right(at)
            if (ends[i - 1] if i else 0) == at and ends[i] == at + len(want):
                return i
            stop = at + len(want) - 1
        return None

    def _width(self, i: int) -> int:
        return self._ends[i] - (self._ends[i - 1] if i else 0)

    def data(self) -> tuple[memoryview, memoryview]:
        return self._ids.data(), self._ends.data()


class Seqs(Positions[int]):
    """A set of record numbers, kept as a sorted column (records arrive in log order)."""

    __slots__ = ("_seqs",)

    def __init__(self, data: bytes | memoryview = b"", mapped: bool = False) -> None:
        self._seqs = _column(data, mapped)

    def add(self, seq: int) -> None:
        seqs = self._seqs
        last = seqs.last()
        if last is None or last < seq:
            seqs.append(seq)
        elif seq not in self:
            seqs.insert(seqs.bisect_left(seq), seq)

    def extend(self, seqs: list[int]) -> None:
        """Record numbers in ascending order, appended in bulk when they all come after
        the last one here (else added one by one)."""
        if not seqs:
            return
        last = self._seqs.last()
        if last is None or last < seqs[0]:
            self._seqs.extend(seqs)
        else:
            for seq in seqs:
                self.add(seq)

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and self._seqs.holds(seq)

    def __len__(self) -> int:
        return len(self._seqs)

    def _at(self, i: int) -> int:
        return self._seqs._at(i)

    def __iter__(self) -> Iterator[int]:
        return iter(self._seqs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Seqs):
            return NotImplemented
        return self._seqs == other._seqs

    __hash__ = None  # type: ignore[assignment]

    def data(self) -> memoryview:
        return self._seqs.data()


@dataclass(slots=True)
class Change:
    """An undo or redo: at record ``seq`` the listed records were voided or restored."""

    seq: int
    undo: bool
    command: str
    seqs: tuple[int, ...]


class HistoryData(msgspec.Struct, array_like=True):
    """A ``History`` as a snapshot keeps it: its columns' bytes and its few other parts."""

    ids: memoryview
    ends: memoryview
    starts: memoryview
    meta: list[str]
    dice_commands: list[str]
    causes: memoryview
    caused: memoryview
    backward: bool
    voided: list[int]
    changes: list[tuple[int, bool, str, list[int]]]
    undone: dict[str, int]
    redoable: list[str]
    head: int
    current: str
    gm_only: memoryview
    secret: memoryview
    masked: memoryview
    addressed: dict[int, str]
    dice: DiceLedger


@dataclass(slots=True)
class History:
    """An index of the log kept beside the state (it only grows; a snapshot keeps it).

    A command's records are contiguous (one atomic append), so a command is
    known by its first sequence number and the first of the command after it.
    This runs once per record of every rebuild, so it does as little as it can.
    """

    #: command ids in log order, and the first sequence number of each
    order: Commands = field(default_factory=Commands)
    starts: Column = field(default_factory=_column)
    #: commands that are undos, redos, the table's creation or its branching
    meta: set[str] = field(default_factory=set)
    #: the meta commands that gave entropy or opened a session's dice
    dice_commands: set[str] = field(default_factory=set)
    #: cause links, in log order of the record caused: ``causes[i]`` caused ``caused[i]``
    causes: Column = field(default_factory=_column)
    caused: Column = field(default_factory=_column)
    #: whether some record names a cause that is not before it (a table written
    #: outside margin): undo then follows links in any order
    backward: bool = False
    voided: set[int] = field(default_factory=set)
    changes: list[Change] = field(default_factory=list)
    #: command -> the Undone record in force for it
    undone: dict[str, int] = field(default_factory=dict)
    #: commands undone since the last ordinary command, most recent last
    redoable: list[str] = field(default_factory=list)
    head: int = 0
    _current: str = ""
    #: records players do not see at all, and records they see only in part
    gm_only: Seqs = field(default_factory=Seqs)
    secret: Seqs = field(default_factory=Seqs)
    #: records where players see a character only as unseen (their consequences
    #: are cut to match, see ``core.lens``)
    masked: Seqs = field(default_factory=Seqs)
    #: records for one player alone (a request, a ruling, a whisper): seq -> that player
    addressed: dict[int, str] = field(default_factory=dict)
    #: where the log's committed dice stand (``core.fairness``)
    dice: DiceLedger = field(default_factory=DiceLedger)

    def data(self) -> HistoryData:
        """What this history knows, for a snapshot (``from_data`` reads it back)."""
        ids, ends = self.order.data()
        return HistoryData(
            ids=ids,
            ends=ends,
            starts=self.starts.data(),
            meta=sorted(self.meta),
            dice_commands=sorted(self.dice_commands),
            causes=self.causes.data(),
            caused=self.caused.data(),
            backward=self.backward,
            voided=sorted(self.voided),
            changes=[(c.seq, c.undo, c.command, list(c.seqs)) for c in self.changes],
            undone=self.undone,
            redoable=self.redoable,
            head=self.head,
            current=self._current,
            gm_only=self.gm_only.data(),
            secret=self.secret.data(),
            masked=self.masked.data(),
            addressed=self.addressed,
            dice=self.dice,
        )

    @classmethod
    def from_data(cls, data: HistoryData, mapped: bool = False) -> History:
        """The history a snapshot kept; ``mapped``: the snapshot's bytes are a mapped file's,
        which the columns stand on rather than copy (``core.columns``)."""
        return cls(
            order=Commands(data.ids, data.ends, mapped),
            starts=_column(data.starts, mapped),
            meta=set(data.meta),
            dice_commands=set(data.dice_commands),
            causes=_column(data.causes, mapped),
            caused=_column(data.caused, mapped),
            backward=data.backward,
            voided=set(data.voided),
            changes=[Change(s, u, c, tuple(seqs)) for s, u, c, seqs in data.changes],
            undone=data.undone,
            redoable=data.redoable,
            head=data.head,
            _current=data.current,
            gm_only=Seqs(data.gm_only, mapped),
            secret=Seqs(data.secret, mapped),
            masked=Seqs(data.masked, mapped),
            addressed=data.addressed,
            dice=data.dice,
        )

    def extend(self, records: list[Record]) -> int:
        """Take the next records of the log into the history (each once, in order); the
        earliest record an undo or redo among them voids or restores (``NONE``: none).

        Every record of a rebuild runs through this loop, so it does as little as it
        can: new commands and cause links are appended to their columns in bulk.
        """
        ledger = self.dice
        current = self._current
        commands: list[str] = []
        starts: list[int] = []
        causes: list[int] = []
        caused: list[int] = []
        gm_only: list[int] = []
        secret: list[int] = []
        reach = NONE
        #: the command whose records the dice ledger follows (``DiceLedger.count``)
        dealt = ledger.current[0]
        for record in records:
            seq, command, kind = record.seq, record.command, type(record.event)
            if command != current:
                current = command
                commands.append(command)
                starts.append(seq)
                if self.redoable or kind in _META:
                    self._started(record)
            if (cause := record.cause) is not None:
                causes.append(cause)
                caused.append(seq)
                self.backward |= cause >= seq
            if record.visibility != PUBLIC:
                self._hidden(record, gm_only, secret)
            # most records are none of these (the dice's events are meta too): two tests pass
            dice = record.drawn is not None or record.committed is not None or command == dealt
            if dice or kind in _META:
                if dice or kind in DICE_EVENTS:
                    ledger.feed(record)
                    dealt = ledger.current[0]
                if kind in _CHANGES:
                    reach = min(reach, self._changed(record))
        self._current = current
        self.order.extend(commands)
        self.starts.extend(starts)
        self.causes.extend(causes)
        self.caused.extend(caused)
        self.gm_only.extend(gm_only)
        self.secret.extend(secret)
        if records:
            self.head = records[-1].seq
        return reach

    def _changed(self, record: Record) -> int:
        """An undo or redo taken in (``change``); the earliest record it touches."""
        self.head = record.seq
        self.change(record)
        event = record.event
        touched = event.voids if isinstance(event, Undone) else event.restores
        return min(touched, default=NONE)

    def start_command(self, record: Record) -> None:
        """The first record of a command."""
        cmd = record.command
        self._current = cmd
        self.order.append(cmd)
        self.starts.append(record.seq)
        self._started(record)

    def _started(self, record: Record) -> None:
        """What a command's first record says of the command: whether it is a meta
        command (and a dice one), and whether it closes the redo."""
        cmd = record.command
        if type(record.event) in _META:
            self.meta.add(cmd)
            if type(record.event) in _DICE:
                self.dice_commands.add(cmd)
        elif self.redoable and not record.visibility.gm_only and not record.visibility.to:
            # a command players never see (a hidden character's roll), or one player alone
            # sees, leaves the redo open: whether players see a redo must not hang on what
            # they cannot see
            self.redoable.clear()

    def cause(self, record: Record, cause: int) -> None:
        """A record that names the record it answers."""
        self.causes.append(cause)
        self.caused.append(record.seq)
        if cause >= record.seq:
            self.backward = True

    def hide(self, record: Record) -> None:
        """A record whose visibility is not public (``extend`` takes a batch's in bulk)."""
        gm_only: list[int] = []
        secret: list[int] = []
        self._hidden(record, gm_only, secret)
        self.gm_only.extend(gm_only)
        self.secret.extend(secret)

    def _hidden(self, record: Record, gm_only: list[int], secret: list[int]) -> None:
        """A record that is not plainly public: its number onto ``gm_only`` (players see
        nothing of it) or ``secret`` (they see it in part, or one player alone does), and
        what else such a record says: the one player it is for, and whether players see a
        character of it only as unseen."""
        visibility = record.visibility
        if visibility.gm_only:
            gm_only.append(record.seq)
            return
        secret.append(record.seq)
        if visibility.to:
            self.addressed[record.seq] = visibility.to
        form = type(record.event).PLAYER
        if form is not None and any(n in form.unseen for n in visibility.hidden):
            self.masked.add(record.seq)

    def change(self, record: Record) -> None:
        """An undo or redo record."""
        event = record.event
        if type(event) is Undone:
            self.voided.update(event.voids)
            self.changes.append(Change(record.seq, True, event.command, tuple(event.voids)))
            self.undone[event.command] = record.seq
            self.redoable.append(event.command)
        else:
            self.voided.difference_update(event.restores)
            self.changes.append(Change(record.seq, False, event.command, tuple(event.restores)))
            self.undone.pop(event.command, None)
            if event.command in self.redoable:
                self.redoable.remove(event.command)

    def position(self, command: str) -> int | None:
        """A command's position in ``order``, None when the log has no such command."""
        return self.order.find(command)

    def command_of(self, seq: int) -> str | None:
        """The id of the command that produced record ``seq``, if there is one."""
        if not 1 <= seq <= self.head:
            return None
        return self.order[self.starts.bisect_right(seq) - 1]

    def seqs(self, command: str) -> range:
        """The sequence numbers of a command's records."""
        i = self.position(command)
        if i is None:
            raise KeyError(command)
        end = self.starts[i + 1] if i + 1 < len(self.starts) else self.head + 1
        return range(self.starts[i], end)

    def __contains__(self, command: str) -> bool:
        return self.position(command) is not None

    def is_meta(self, command: str) -> bool:
        return command in self.meta

    def cascade(self, command: str) -> list[int]:
        """The records undoing ``command`` voids: its own and all they caused, transitively."""
        voided = self.voided
        out = {s for s in self.seqs(command) if s not in voided}
        if not out:
            return []
        if self.backward:
            return sorted(self._reached(out))
        # every cause comes before what it caused, and the links are in log order of the
        # record caused: one pass over the links after the command's first record
        causes, caused = self.causes, self.caused
        for i in range(caused.bisect_right(min(out)), len(caused)):
            seq = caused[i]
            if causes[i] in out and seq not in voided:
                out.add(seq)
        return sorted(out)

    def _reached(self, start: Iterable[int]) -> set[int]:
        """What ``cascade`` gives when links may point either way: a walk over them."""
        children: dict[int, list[int]] = {}
        for cause, seq in zip(self.causes, self.caused, strict=True):
            children.setdefault(cause, []).append(seq)
        out: set[int] = set()
        stack = list(start)
        while stack:
            seq = stack.pop()
            if seq in out or seq in self.voided:
                continue
            out.add(seq)
            stack.extend(children.get(seq, ()))
        return out

    def changes_upto(self, seq: int) -> int:
        """How many undos and redos the log holds up to record ``seq``."""
        return bisect.bisect_right(self.changes, seq, key=_change_seq)

    def voided_at(self, seq: int) -> set[int]:
        """The voided set as it stood right after record ``seq``."""
        voided: set[int] = set()
        for change in self.changes[: self.changes_upto(seq)]:
            if change.undo:
                voided.update(change.seqs)
            else:
                voided.difference_update(change.seqs)
        return voided


def _change_seq(change: Change) -> int:
    return change.seq
