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


#: a kept checkpoint is asked for only when the nearest in memory is more than this many
#: records back: asking costs about what folding them does
RECALL_AFTER = 100

#: the events that change which earlier records count
_CHANGES = frozenset((Undone, Redone))

Recall = Callable[[int], tuple[int, TableState] | None]
"""``recall(upto)``: a checkpoint kept outside the projection (a store's, see
``core.snapshot``): the state as it happened right after a record at or before ``upto``,
and that record's number; None when there is none."""

Amended = Callable[[int], tuple[TableState, int] | None]
"""``amended(seq)``: a checkpoint kept outside the projection right after record ``seq``
as corrected by the history's first N undos and redos, kept where some of them reach back
to ``seq`` or before (so the one as it happened there serves no later record): the state
and N; None when there is none."""


class Projection:
    """The fold of a table's log, kept current as records arrive.

    Undone records are skipped. When an undo or redo changes which earlier
    records count, the state is rebuilt from the last checkpoint before the
    first affected record, so the state after an undo equals the state had the
    command never happened. Checkpoints every ``every`` records make
    ``state_at`` cost at most ``every`` folds.

    Two kinds of checkpoint: as it happened (taken as records arrive, never
    changed) and as corrected (taken again while an undo or redo refolds, or
    while a state as corrected is folded, so a later rebuild need not walk back
    past every undo that reached before it). A checkpoint is known by how many
    of the history's undos and redos (``History.changes``) it was folded with,
    not by a copy of the voided set, so they cost what the state costs however
    many undos the log holds: one folded with other changes than a rebuild
    wants is used when none of the changes between the two reaches back to a
    record before it. ``recall`` finds checkpoints kept outside (a store's
    snapshots) when none in memory is near, and ``amended`` the ones as corrected
    kept beside them where an undo reaches back past one as it happened.
    """

    def __init__(
        self,
        fetch: Fetch,
        every: int = 1000,
        recall: Recall | None = None,
        amended: Amended | None = None,
    ) -> None:
        self.fetch = fetch
        self.every = every
        self.recall = recall
        self.amended = amended
        self.state = TableState()
        self.history = History()
        #: as it happened: the records checkpoints were taken after, and their states
        self._marks: list[int] = [0]
        self._snaps: list[TableState] = [TableState()]
        #: as corrected: record -> the state, and how many changes it was folded with
        self._fresh: dict[int, tuple[TableState, int]] = {}
        #: the records of the stretch folded last, which a rebuild for an undo just after
        #: a checkpoint reads again rather than fetch and decode them
        self._recent: list[Record] = []

    @classmethod
    def restored(
        cls,
        fetch: Fetch,
        state: TableState,
        history: History,
        every: int = 1000,
        recall: Recall | None = None,
        amended: Amended | None = None,
    ) -> Projection:
        """A projection that stands where a snapshot of one stood (``core.snapshot``): the
        records after ``state.seq`` are folded on from there, and the snapshot's state
        is its first checkpoint after the empty table."""
        projection = cls(fetch, every, recall, amended)
        projection.state = state
        projection.history = history
        if state.seq:
            projection._marks.append(state.seq)
            projection._snaps.append(snapshot(state))
        return projection

    @property
    def seq(self) -> int:
        return self.state.seq

    def checkpoints(self, after: int = 0) -> list[tuple[int, TableState]]:
        """The checkpoints as it happened after record ``after`` (for a store to keep)."""
        i = bisect.bisect_right(self._marks, after)
        return list(zip(self._marks[i:], self._snaps[i:], strict=True))

    def amended_checkpoints(self, after: int = 0) -> list[tuple[int, TableState, int]]:
        """The checkpoints as corrected after record ``after`` that a fold as it happened
        cannot stand in for (an undo or redo folded into them reaches back to their record
        or before): record, state and how many of the history's changes it was folded
        with, for a store to keep beside ``checkpoints``."""
        upto = self.history.changes_upto
        return [
            (mark, state, made)
            for mark, (state, made) in sorted(self._fresh.items())
            if mark > after and not self._agrees(mark, upto(mark), made)
        ]

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
                history.cause(record, record.cause)
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
            if kind in _CHANGES:
                stale |= self._changes(record, folded)
            pending.append(record)
            if seq % every == 0:
                history.head = seq
                folded = self._fold(pending, stale)
                stale = False
        history.head = seq
        if pending:
            self._fold(pending, stale)

    def _changes(self, record: Record, folded: int) -> bool:
        """Take an undo or redo into the history; whether it reaches back to a record folded
        already (at or before ``folded``), so the state is rebuilt from a checkpoint."""
        history = self.history
        history.head = record.seq
        history.change(record)
        event = record.event
        touched = event.voids if isinstance(event, Undone) else event.restores
        return bool(touched) and min(touched) <= folded

    def _fold(self, pending: list[Record], stale: bool) -> int:
        """Fold records read by ``extend``, skipping those void as of the last of them.

        ``stale``: an undo or redo among them changed records folded before,
        so the state is rebuilt from a checkpoint instead.
        """
        last = pending[-1].seq
        voided = self.history.voided
        if stale:
            changes = len(self.history.changes)
            held = self._recent + pending
            state = self.state = self._rebuild(last, voided, changes, refresh=True, held=held)
        else:
            state = self.state
            for record in pending:
                kind = type(record.event)
                if kind not in _CHANGES and record.seq not in voided:
                    HANDLERS[kind](state, record)
                state.seq = record.seq
        self._recent = pending[:]
        pending.clear()
        if last % self.every == 0:
            self._marks.append(last)
            self._snaps.append(snapshot(state))
        return last

    def state_at(self, seq: int, corrected: bool = False) -> TableState:
        """The state right after record ``seq``.

        As it happened (default): records undone later still count until the
        record that undid them. ``corrected``: every undo in the whole log is
        applied, as if the mistakes had never been made.
        """
        history = self.history
        seq = max(0, min(seq, self.state.seq))
        if corrected:
            voided, changes = history.voided, len(history.changes)
        else:
            voided, changes = history.voided_at(seq), history.changes_upto(seq)
        if seq == self.state.seq and changes == len(history.changes):
            return snapshot(self.state)
        return self._rebuild(seq, voided, changes, refresh=corrected)

    def _agrees(self, mark: int, made: int, wanted: int) -> bool:
        """Whether a checkpoint after record ``mark`` folded with the first ``made`` changes
        is the state a fold with the first ``wanted`` would reach there: none of the
        changes between the two reaches back to ``mark`` or before."""
        low, high = sorted((made, wanted))
        return all(
            not change.seqs or min(change.seqs) > mark for change in self.history.changes[low:high]
        )

    def _checkpoint(self, upto: int, changes: int) -> tuple[int, TableState]:
        """The latest checkpoint at or before ``upto`` that a fold with the history's first
        ``changes`` undos and redos agrees with."""
        history = self.history
        i = bisect.bisect_right(self._marks, upto) - 1
        while i > 0:
            mark = self._marks[i]
            if self._agrees(mark, history.changes_upto(mark), changes):
                break
            fresh = self._fresh.get(mark)
            if fresh is not None and self._agrees(mark, fresh[1], changes):
                return self._recalled(upto, changes, mark) or (mark, fresh[0])
            i -= 1
        mark = self._marks[max(i, 0)]
        return self._recalled(upto, changes, mark) or (mark, self._snaps[max(i, 0)])

    def _recalled(self, upto: int, changes: int, mark: int) -> tuple[int, TableState] | None:
        """A kept checkpoint after ``mark`` (more than a stretch before ``upto``) and at or
        before ``upto`` that agrees, taken into memory; None when there is none."""
        if self.recall is None or upto - mark <= RECALL_AFTER:
            return None
        below = upto
        while below > mark:
            found = self.recall(below)
            if found is None or found[0] <= mark:
                return None
            at, state = self._remember(*found)
            usable = self._usable(at, state, changes)
            if usable is not None:
                return at, usable
            below = at - 1
        return None

    def _remember(self, at: int, state: TableState) -> tuple[int, TableState]:
        """A kept checkpoint as it happened taken into memory (once)."""
        i = bisect.bisect_right(self._marks, at)
        if self._marks[i - 1] != at:
            self._marks.insert(i, at)
            self._snaps.insert(i, state)
        return at, state

    def _usable(self, at: int, state: TableState, changes: int) -> TableState | None:
        """What a fold with the history's first ``changes`` may start from at record ``at``:
        the checkpoint as it happened there when it agrees, else the one as corrected
        (in memory or kept) when that one does; None when neither does."""
        if self._agrees(at, self.history.changes_upto(at), changes):
            return state
        return self._amended_at(at, changes)

    def _amended_at(self, at: int, changes: int) -> TableState | None:
        """The checkpoint as corrected right after record ``at`` (in memory, else kept) when
        a fold with the history's first ``changes`` agrees with it."""
        found = self._fresh.get(at) or self._amended_kept(at)
        return found[0] if found and self._agrees(at, found[1], changes) else None

    def _amended_kept(self, at: int) -> tuple[TableState, int] | None:
        """The checkpoint as corrected kept right after record ``at``, taken into memory."""
        found = self.amended(at) if self.amended is not None else None
        if found is not None:
            self._fresh[at] = found
        return found

    def _rebuild(
        self,
        upto: int,
        voided: set[int],
        changes: int,
        refresh: bool = False,
        held: list[Record] | None = None,
    ) -> TableState:
        """The state after record ``upto`` folded from the nearest checkpoint that agrees;
        ``held``: records in memory, one after another, read instead of fetched when they
        are the ones wanted."""
        mark, start = self._checkpoint(upto, changes)
        state = snapshot(start)
        every = self.every
        records = _stretch(held, mark, upto) if held else None
        for record in self.fetch(mark, upto) if records is None else records:
            seq = record.seq
            if seq in voided or isinstance(record.event, (Undone, Redone)):
                state.seq = seq
            else:
                evolve(state, record)
            if refresh and seq % every == 0:
                self._fresh[seq] = (snapshot(state), changes)
        return state


def _stretch(held: list[Record], after: int, upto: int) -> list[Record] | None:
    """The records ``after < seq <= upto`` of ``held`` (records one after another), or None
    when ``held`` does not hold them all."""
    first, last = held[0].seq, held[-1].seq
    if first > after + 1 or last < upto or last - first != len(held) - 1:
        return None
    return held[after + 1 - first : upto + 1 - first]
