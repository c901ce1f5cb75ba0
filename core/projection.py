"""Projections: the state at the head of the log or at any record before it."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from margin.events import Record, Redone, Undone

from .decider import HANDLERS, evolve
from .fairness import DICE_EVENTS
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

    Two kinds of checkpoint: as it happened (taken as records arrive, never
    changed) and as corrected (taken again while an undo or redo refolds, so a
    later rebuild need not walk back past every undo that reached before it).
    Each carries the voided records it was folded without; a rebuild uses the
    latest one that agrees with the voided set it wants.
    """

    def __init__(self, fetch: Fetch, every: int = 1000) -> None:
        self.fetch = fetch
        self.every = every
        self.state = TableState()
        self.history = History()
        self._marks: list[int] = [0]
        self._snaps: list[tuple[TableState, frozenset[int]]] = [(TableState(), frozenset())]
        self._fresh: dict[int, tuple[TableState, frozenset[int]]] = {}

    @classmethod
    def restored(
        cls, fetch: Fetch, state: TableState, history: History, every: int = 1000
    ) -> Projection:
        """A projection that stands where a snapshot of one stood (``core.snapshot``): the
        records after ``state.seq`` are folded on from there, and the snapshot's state
        is its first checkpoint after the empty table."""
        projection = cls(fetch, every)
        projection.state = state
        projection.history = history
        if state.seq:
            projection._marks.append(state.seq)
            projection._snaps.append((snapshot(state), frozenset(history.voided)))
        return projection

    @property
    def seq(self) -> int:
        return self.state.seq

    def apply(self, record: Record) -> None:
        """Fold the next record of the log."""
        self.extend((record,))

    def extend(self, records: Iterable[Record]) -> None:
        """Fold the next records of the log.

        This is the hot loop of every rebuild, so the history's per-record
        bookkeeping is written out inline here. Records are read up to
        the next checkpoint before they are folded, so an undo or redo that
        only reaches records of that stretch (an undo right after the mistake,
        the usual case) just skips them instead of rebuilding the state.
        """
        history = self.history
        children = history.children
        ledger = history.dice
        every = self.every
        folded = self.state.seq
        pending: list[Record] = []
        stale = False
        seq = history.head
        for record in records:
            seq = record.seq
            if record.command != history._current:
                history.start_command(record)
            if record.cause is not None:
                children.setdefault(record.cause, []).append(seq)
            visibility = record.visibility
            if visibility.gm_only or visibility.hidden or visibility.to:
                history.hide(record)
            kind = type(record.event)
            if (
                record.drawn is not None
                or record.committed is not None
                or kind in DICE_EVENTS
                or record.command == ledger.secret_command
            ):
                ledger.feed(record)
            if kind is Undone or kind is Redone:
                history.head = seq
                history.change(record)
                if not stale:
                    event = record.event
                    touched = event.voids if kind is Undone else event.restores
                    stale = bool(touched) and min(touched) <= folded
            pending.append(record)
            if seq % every == 0:
                history.head = seq
                folded = self._fold(pending, stale)
                stale = False
        history.head = seq
        if pending:
            self._fold(pending, stale)

    def _fold(self, pending: list[Record], stale: bool) -> int:
        """Fold records read by ``extend``, skipping those void as of the last of them.

        ``stale``: an undo or redo among them changed records folded before,
        so the state is rebuilt from a checkpoint instead.
        """
        last = pending[-1].seq
        voided = self.history.voided
        if stale:
            state = self.state = self._rebuild(last, voided, refresh=True)
        else:
            state = self.state
            for record in pending:
                kind = type(record.event)
                if kind is not Undone and kind is not Redone and record.seq not in voided:
                    HANDLERS[kind](state, record)
                state.seq = record.seq
        pending.clear()
        if last % self.every == 0:
            self._marks.append(last)
            self._snaps.append((snapshot(state), frozenset(voided)))
        return last

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

    def _checkpoint(self, upto: int, voided: set[int]) -> tuple[int, TableState]:
        """The latest checkpoint at or before ``upto`` folded without exactly ``voided``."""
        i = bisect.bisect_right(self._marks, upto) - 1
        while i > 0:
            mark = self._marks[i]
            want = {v for v in voided if v <= mark}
            if self._snaps[i][1] == want:
                return mark, self._snaps[i][0]
            fresh = self._fresh.get(mark)
            if fresh is not None and fresh[1] == want:
                return mark, fresh[0]
            i -= 1
        return 0, self._snaps[0][0]

    def _rebuild(self, upto: int, voided: set[int], refresh: bool = False) -> TableState:
        mark, start = self._checkpoint(upto, voided)
        state = snapshot(start)
        every = self.every
        for record in self.fetch(mark, upto):
            seq = record.seq
            if seq in voided or isinstance(record.event, (Undone, Redone)):
                state.seq = seq
            else:
                evolve(state, record)
            if refresh and seq % every == 0:
                self._fresh[seq] = (snapshot(state), frozenset(v for v in voided if v <= seq))
        return state
