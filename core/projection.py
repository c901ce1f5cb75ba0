"""Projections: the state at the head of the log or at any record before it."""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Callable, Iterable

from margin.events import Record, Redone, Undone

from .decider import HANDLERS, evolve
from .history import Change, History
from .snapshot import freeze_state, thaw_state
from .state import TableState, snapshot

Fetch = Callable[[int, int], Iterable[Record]]
"""``fetch(after, upto)``: the records with ``after < seq <= upto``, in order."""


#: a kept checkpoint is asked for only when the nearest in memory is more than this many
#: records back: asking costs about what folding them does
RECALL_AFTER = 100

#: where a change that reaches no record reaches: past every record
_NOWHERE = 2**62

#: how many records before a checkpoint the state is kept frozen as well, for an undo of
#: one of them just after it
TAIL = 16

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
        #: as it happened: the records checkpoints were taken after, and their states,
        #: frozen (``snapshot.freeze_state``: a rebuild takes a thousand of them, and bytes
        #: are made in a fraction of the time of a copy and weigh a fraction of one)
        self._marks: list[int] = [0]
        self._snaps: list[bytes] = [freeze_state(TableState())]
        #: as corrected: record -> the state (frozen), and how many changes it was folded with
        self._fresh: dict[int, tuple[bytes, int]] = {}
        #: the records of the stretch folded last, which a rebuild for an undo just after
        #: a checkpoint reads again rather than fetch and decode them
        self._recent: list[Record] = []
        #: the changes ``_reaches`` read, and the first record each reaches
        self._reach: tuple[list[Change], array[int]] = ([], array("q"))
        #: the state a few records before the checkpoint the last stretch ended at, frozen
        #: as a checkpoint is, and its record: a rebuild for an undo of one of those starts
        #: there rather than a whole stretch back
        self._tail: tuple[int, bytes] | None = None

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
            projection._snaps.append(freeze_state(state))
        return projection

    @property
    def seq(self) -> int:
        return self.state.seq

    def checkpoints(self, after: int = 0) -> list[tuple[int, bytes]]:
        """The checkpoints as it happened after record ``after``, frozen as a store keeps
        them (``snapshot.freeze_state``; ``snapshot.encode_frozen`` makes one a store's)."""
        i = bisect.bisect_right(self._marks, after)
        return list(zip(self._marks[i:], self._snaps[i:], strict=True))

    def amended_checkpoints(self, after: int = 0) -> list[tuple[int, bytes, int]]:
        """The checkpoints as corrected after record ``after`` that a fold as it happened
        cannot stand in for (an undo or redo folded into them reaches back to their record
        or before): record, state and how many of the history's changes it was folded
        with (the state frozen), for a store to keep beside ``checkpoints``."""
        upto = self.history.changes_upto
        return [
            (mark, frozen, made)
            for mark, (frozen, made) in sorted(self._fresh.items())
            if mark > after and not self._agrees(mark, upto(mark), made)
        ]

    def apply(self, record: Record) -> None:
        """Fold the next record of the log."""
        self.extend((record,))

    def extend(self, records: Iterable[Record]) -> None:
        """Fold the next records of the log.

        Records are read up to the next checkpoint before they are taken into
        the history and folded, so an undo or redo that only reaches records of
        that stretch (an undo right after the mistake, the usual case) just
        skips them instead of rebuilding the state.
        """
        every = self.every
        records = iter(records)
        for first in records:
            # the records up to the next checkpoint, taken at once when they are one after
            # another (a store's are): the last of them is the checkpoint's record
            pending = [first]
            pending += itertools.islice(records, -first.seq % every)
            if pending[-1].seq - first.seq != len(pending) - 1:
                self._extend_each(itertools.chain(pending, records))
                return
            self._take(pending)

    def _extend_each(self, records: Iterable[Record]) -> None:
        """``extend`` of records that may skip numbers: each one looked at."""
        every = self.every
        pending: list[Record] = []
        for record in records:
            pending.append(record)
            if record.seq % every == 0:
                self._take(pending)
                pending = []
        if pending:
            self._take(pending)

    def _take(self, pending: list[Record]) -> None:
        """A stretch of records read by ``extend``: into the history, then the state."""
        folded = self.state.seq
        reach = self.history.extend(pending)
        self._fold(pending, reach <= folded, reach)

    def _fold(self, pending: list[Record], stale: bool, reach: int) -> None:
        """Fold records read by ``extend``, skipping those void as of the last of them.

        ``stale``: an undo or redo among them changed records folded before (the
        earliest: ``reach``), so the state is rebuilt instead, from the stretch's
        tail when it reaches no further back than that.
        """
        last = pending[-1].seq
        if stale:
            self._tail = self._refold(pending, last, reach)
        else:
            self._tail = self._fold_on(pending, last)
        self._recent = pending
        if last % self.every == 0:
            self._marks.append(last)
            self._snaps.append(freeze_state(self.state))

    def _refold(self, pending: list[Record], last: int, reach: int) -> tuple[int, bytes] | None:
        """The state rebuilt up to the end of a stretch whose undos or redos reach back to
        record ``reach``: from the last stretch's tail when that is no further back (its
        checkpoint taken again as corrected), else from a checkpoint; the stretch's own
        tail, as ``_fold_on`` leaves it."""
        history = self.history
        tail = self._tail
        if tail is None or reach <= tail[0]:
            held = self._recent + pending
            changes = len(history.changes)
            self.state = self._rebuild(last, history.voided, changes, refresh=True, held=held)
            return None
        self.state = self._thaw(tail[1])
        before = self._recent[-TAIL:]
        folded = before[-1].seq
        self._fold_records(before, history.voided.intersection(range(tail[0] + 1, folded + 1)))
        self._fresh[folded] = (freeze_state(self.state), len(history.changes))
        return self._fold_on(pending, last)

    def _fold_on(self, pending: list[Record], last: int) -> tuple[int, bytes] | None:
        """Fold a stretch on from the state; one that ends at a checkpoint leaves its tail:
        the state before its last ``TAIL`` records, frozen, for an undo just after."""
        voided = self.history.voided
        skip = voided.intersection(range(pending[0].seq, last + 1)) if voided else voided
        if last % self.every or len(pending) <= TAIL:
            self._fold_records(pending, skip)
            return None
        self._fold_records(pending[:-TAIL], skip)
        tail = (self.state.seq, freeze_state(self.state))
        self._fold_records(pending[-TAIL:], skip)
        return tail

    def _fold_records(self, records: list[Record], skip: set[int]) -> None:
        """Fold records on from the state, but for those in ``skip`` (an undo's and a redo's
        own records fold to nothing)."""
        state = self.state
        handlers = HANDLERS
        if skip:
            for record in records:
                if record.seq not in skip:
                    handlers[type(record.event)](state, record)
        else:
            for record in records:
                handlers[type(record.event)](state, record)
        state.seq = records[-1].seq

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

    def _start(self, upto: int, changes: int) -> tuple[int, TableState]:
        """``_checkpoint``'s record and a copy of its state, to fold on."""
        mark, point = self._checkpoint(upto, changes)
        return mark, self._thaw(point)

    def _thaw(self, frozen: bytes) -> TableState:
        """A new state from a checkpoint frozen by this projection (of its table's system)."""
        return thaw_state(self.state.system, frozen)

    def _agrees(self, mark: int, made: int, wanted: int) -> bool:
        """Whether a checkpoint after record ``mark`` folded with the first ``made`` changes
        is the state a fold with the first ``wanted`` would reach there: none of the
        changes between the two reaches back to ``mark`` or before."""
        low, high = sorted((made, wanted))
        return low == high or min(self._reaches()[low:high]) > mark

    def _reaches(self) -> array[int]:
        """For each of the history's changes (which only grow), the first record it undoes
        or restores (``_NOWHERE`` for none), so ``_agrees`` reads a column, not the changes."""
        changes = self.history.changes
        if self._reach[0] is not changes:
            self._reach = (changes, array("q"))
        reach = self._reach[1]
        if len(reach) < len(changes):
            reach.extend(min(c.seqs) if c.seqs else _NOWHERE for c in changes[len(reach) :])
        return reach

    def _checkpoint(self, upto: int, changes: int) -> tuple[int, bytes]:
        """The latest checkpoint at or before ``upto`` that a fold with the history's first
        ``changes`` undos and redos agrees with, frozen."""
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

    def _recalled(self, upto: int, changes: int, mark: int) -> tuple[int, bytes] | None:
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

    def _remember(self, at: int, state: TableState) -> tuple[int, bytes]:
        """A kept checkpoint as it happened taken into memory (once), frozen."""
        i = bisect.bisect_right(self._marks, at)
        if self._marks[i - 1] == at:
            return at, self._snaps[i - 1]
        frozen = freeze_state(state)
        self._marks.insert(i, at)
        self._snaps.insert(i, frozen)
        return at, frozen

    def _usable(self, at: int, state: bytes, changes: int) -> bytes | None:
        """What a fold with the history's first ``changes`` may start from at record ``at``:
        the checkpoint as it happened there when it agrees, else the one as corrected
        (in memory or kept) when that one does; None when neither does."""
        if self._agrees(at, self.history.changes_upto(at), changes):
            return state
        return self._amended_at(at, changes)

    def _amended_at(self, at: int, changes: int) -> bytes | None:
        """The checkpoint as corrected right after record ``at`` (in memory, else kept) when
        a fold with the history's first ``changes`` agrees with it."""
        found = self._fresh.get(at) or self._amended_kept(at)
        return found[0] if found and self._agrees(at, found[1], changes) else None

    def _amended_kept(self, at: int) -> tuple[bytes, int] | None:
        """The checkpoint as corrected kept right after record ``at``, taken into memory."""
        found = self.amended(at) if self.amended is not None else None
        if found is None:
            return None
        self._fresh[at] = (freeze_state(found[0]), found[1])
        return self._fresh[at]

    def _rebuild(
        self,
        upto: int,
        voided: set[int],
        changes: int,
        refresh: bool = False,
        held: list[Record] | None = None,
        start: tuple[int, TableState] | None = None,
    ) -> TableState:
        """The state after record ``upto`` folded from the nearest checkpoint that agrees
        (or from ``start``, a record and a state of its own to fold on);
        ``held``: records in memory, one after another, read instead of fetched when they
        are the ones wanted."""
        mark, state = start if start is not None else self._start(upto, changes)
        every = self.every
        records = _stretch(held, mark, upto) if held else None
        for record in self.fetch(mark, upto) if records is None else records:
            seq = record.seq
            if seq in voided or isinstance(record.event, (Undone, Redone)):
                state.seq = seq
            else:
                evolve(state, record)
            if refresh and seq % every == 0:
                self._fresh[seq] = (freeze_state(state), changes)
        return state


def _stretch(held: list[Record], after: int, upto: int) -> list[Record] | None:
    """The records ``after < seq <= upto`` of ``held`` (records one after another), or None
    when ``held`` does not hold them all."""
    first, last = held[0].seq, held[-1].seq
    if first > after + 1 or last < upto or last - first != len(held) - 1:
        return None
    return held[after + 1 - first : upto + 1 - first]
