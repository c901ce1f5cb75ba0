"""Projections: the state at the head of the log or at any record before it."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from events import Record, Redone, Undone

from .decider import evolve
from .history import History
from .state import TableState, snapshot

Fetch = Callable[[int, int], Iterable[Record]]
"""``fetch(after, upto)``: the records with ``after < seq <= upto``, in order."""


class Projection:
    """The fold of a table's log, kept current as records arrive.

    Undone records are skipped. When an undo or redo changes which earlier
    records count, the state is rebuilt from the last checkpoint before the
    first affected record, so the state after an undo equals the state had the
    command never happened. Checkpoints every ``every`` records make
    ``state_at`` cost at most ``every`` folds.
    """

    def __init__(self, fetch: Fetch, every: int = 1000) -> None:
        self.fetch = fetch
        self.every = every
        self.state = TableState()
        self.history = History()
        self._marks: list[int] = [0]
        self._snaps: list[tuple[TableState, frozenset[int]]] = [(TableState(), frozenset())]

    @property
    def seq(self) -> int:
        return self.state.seq

    def apply(self, record: Record) -> None:
        """Fold the next record of the log."""
        history = self.history
        history.add(record)
        event = record.event
        if isinstance(event, (Undone, Redone)):
            self.state = self._rebuild(record.seq, history.voided)
        elif record.seq in history.voided:
            self.state.seq = record.seq
        else:
            evolve(self.state, record)
        if record.seq % self.every == 0:
            self._marks.append(record.seq)
            self._snaps.append((snapshot(self.state), frozenset(history.voided)))

    def extend(self, records: Iterable[Record]) -> None:
        apply = self.apply
        for record in records:
            apply(record)

    def state_at(self, seq: int, corrected: bool = False) -> TableState:
        """The state right after record ``seq``.

        As it happened (default): records undone later still count until the
        record that undid them. ``corrected``: every undo in the whole log is
        applied, as if the mistakes had never been made.
        """
        seq = max(0, min(seq, self.state.seq))
        voided = self.history.voided if corrected else self.history.voided_at(seq)
        if seq == self.state.seq and voided == self.history.voided:
            return snapshot(self.state)
        return self._rebuild(seq, voided)

    def _rebuild(self, upto: int, voided: set[int]) -> TableState:
        i = bisect.bisect_right(self._marks, upto) - 1
        while i > 0:
            mark = self._marks[i]
            if self._snaps[i][1] == {v for v in voided if v <= mark}:
                break
            i -= 1
        mark = self._marks[i]
        state = snapshot(self._snaps[i][0])
        for record in self.fetch(mark, upto):
            if record.seq in voided or isinstance(record.event, (Undone, Redone)):
                state.seq = record.seq
            else:
                evolve(state, record)
        return state
