"""What undo needs to know about the log: commands, causes, voided records."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from margin.events import (
    Branched,
    DiceEntropy,
    DiceOpened,
    Record,
    Redone,
    TableCreated,
    Undone,
)

from .fairness import DiceLedger

#: a command is an undo, a redo, or one of these, known by its first record: an undo
#: that names no command passes over it
_META = (Undone, Redone, TableCreated, Branched, DiceEntropy, DiceOpened)
_DICE = (DiceEntropy, DiceOpened)


@dataclass(slots=True)
class Change:
    """An undo or redo: at record ``seq`` the listed records were voided or restored."""

    seq: int
    undo: bool
    command: str
    seqs: tuple[int, ...]


@dataclass(slots=True)
class History:
    """An index of the log kept beside the state (it only grows, so it is never snapshotted).

    A command's records are contiguous (one atomic append), so a command is
    known by its first sequence number and the first of the command after it.
    This runs once per record of every rebuild, so it does as little as it can.
    """

    #: command -> its position in ``order``, filled in when first needed
    _index: dict[str, int] = field(default_factory=dict)
    #: command ids in log order, and the first sequence number of each
    order: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    #: commands that are undos, redos, the table's creation or its branching
    meta: set[str] = field(default_factory=set)
    #: the meta commands that gave entropy or opened a session's dice
    dice_commands: set[str] = field(default_factory=set)
    children: dict[int, list[int]] = field(default_factory=dict)
    voided: set[int] = field(default_factory=set)
    changes: list[Change] = field(default_factory=list)
    #: command -> the Undone record in force for it
    undone: dict[str, int] = field(default_factory=dict)
    #: commands undone since the last ordinary command, most recent last
    redoable: list[str] = field(default_factory=list)
    head: int = 0
    _current: str = ""
    #: records players do not see at all, and records they see only in part
    gm_only: set[int] = field(default_factory=set)
    secret: set[int] = field(default_factory=set)
    #: records where players see a character only as unseen (their consequences
    #: are cut to match, see ``core.lens``)
    masked: set[int] = field(default_factory=set)
    #: records for one player alone (a request, a ruling, a whisper): seq -> that player
    addressed: dict[int, str] = field(default_factory=dict)
    #: where the log's committed dice stand (``core.fairness``)
    dice: DiceLedger = field(default_factory=DiceLedger)

    def start_command(self, record: Record) -> None:
        """The first record of a command."""
        cmd = record.command
        self._current = cmd
        self.order.append(cmd)
        self.starts.append(record.seq)
        if type(record.event) in _META:
            self.meta.add(cmd)
            if type(record.event) in _DICE:
                self.dice_commands.add(cmd)
        elif self.redoable and not record.visibility.gm_only and not record.visibility.to:
            # a command players never see (a hidden character's roll), or one player alone
            # sees, leaves the redo open: whether players see a redo must not hang on what
            # they cannot see
            self.redoable.clear()

    def hide(self, record: Record) -> None:
        """A record whose visibility is not public."""
        visibility = record.visibility
        if visibility.gm_only:
            self.gm_only.add(record.seq)
        else:
            if visibility.to:
                self.addressed[record.seq] = visibility.to
            self.secret.add(record.seq)
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

    @property
    def index(self) -> dict[str, int]:
        """Command id -> its position in ``order``.

        Built on first use rather than during the fold: a rebuild would
        otherwise pay a dictionary insertion per command for an index that
        only undo and redo by id consult.
        """
        index, order = self._index, self.order
        for i in range(len(index), len(order)):
            index[order[i]] = i
        return index

    def command_of(self, seq: int) -> str | None:
        """The id of the command that produced record ``seq``, if there is one."""
        if not 1 <= seq <= self.head:
            return None
        return self.order[bisect.bisect_right(self.starts, seq) - 1]

    def seqs(self, command: str) -> range:
        """The sequence numbers of a command's records."""
        i = self.index[command]
        end = self.starts[i + 1] if i + 1 < len(self.starts) else self.head + 1
        return range(self.starts[i], end)

    def __contains__(self, command: str) -> bool:
        return command in self.index

    def is_meta(self, command: str) -> bool:
        return command in self.meta

    def cascade(self, command: str) -> list[int]:
        """The records undoing ``command`` voids: its own and all they caused, transitively."""
        out: set[int] = set()
        stack = [s for s in self.seqs(command) if s not in self.voided]
        while stack:
            seq = stack.pop()
            if seq in out or seq in self.voided:
                continue
            out.add(seq)
            stack.extend(self.children.get(seq, ()))
        return sorted(out)

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
