"""What undo needs to know about the log: commands, causes, voided records."""

from __future__ import annotations

from dataclasses import dataclass, field

from events import Record, Redone, TableCreated, Undone, tag_of


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
    known by its first and last sequence numbers.
    """

    first: dict[str, int] = field(default_factory=dict)
    last: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    kind: dict[str, str] = field(default_factory=dict)
    children: dict[int, list[int]] = field(default_factory=dict)
    voided: set[int] = field(default_factory=set)
    changes: list[Change] = field(default_factory=list)
    #: command -> the Undone record in force for it
    undone: dict[str, int] = field(default_factory=dict)
    #: commands undone since the last ordinary command, most recent last
    redoable: list[str] = field(default_factory=list)

    def add(self, record: Record) -> None:
        cmd = record.command
        if cmd not in self.first:
            self.first[cmd] = record.seq
            self.order.append(cmd)
            self.kind[cmd] = tag_of(record.event)
        self.last[cmd] = record.seq
        if record.cause is not None:
            self.children.setdefault(record.cause, []).append(record.seq)
        event = record.event
        if isinstance(event, Undone):
            self.voided.update(event.voids)
            self.changes.append(Change(record.seq, True, event.command, tuple(event.voids)))
            self.undone[event.command] = record.seq
            self.redoable.append(event.command)
        elif isinstance(event, Redone):
            self.voided.difference_update(event.restores)
            self.changes.append(Change(record.seq, False, event.command, tuple(event.restores)))
            self.undone.pop(event.command, None)
            if event.command in self.redoable:
                self.redoable.remove(event.command)
        elif self.first[cmd] == record.seq:
            self.redoable.clear()

    def seqs(self, command: str) -> range:
        return range(self.first[command], self.last[command] + 1)

    def is_meta(self, command: str) -> bool:
        return self.kind.get(command) in (_UNDO, _REDO, _CREATED)

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

    def voided_at(self, seq: int) -> set[int]:
        """The voided set as it stood right after record ``seq``."""
        voided: set[int] = set()
        for change in self.changes:
            if change.seq > seq:
                break
            if change.undo:
                voided.update(change.seqs)
            else:
                voided.difference_update(change.seqs)
        return voided


_UNDO = Undone.__struct_config__.tag
_REDO = Redone.__struct_config__.tag
_CREATED = TableCreated.__struct_config__.tag
