"""A table on disk: its store, its projection, and commands run against it."""

from __future__ import annotations

import contextlib
import gc
import itertools
import secrets
import struct
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from margin.core import Projection, RuleError, TableState, create_table, decide
from margin.core import snapshot as snapshots
from margin.core.authority import GM, GM_SEAT, Seat, seated
from margin.core.commands import Command, Entropy
from margin.core.decider import decide_committed
from margin.core.dice import Dice
from margin.core.lens import PlayerLens
from margin.events import (
    Draft,
    Record,
    Store,
    StoreError,
    build_store,
    open_store,
)

from .dicekeys import DiceKeys
from .keys import sign_as_gm, signing_key
from .notices import per_table
from .startup import collector_paused

#: records folded at a time while catching up: a screen reading the table waits at most one
#: stretch of this many folds, however many records another process appended
FOLD_STRETCH = 1000

#: a table keeps a snapshot of its fold (``core.snapshot``) once it has folded this many
#: records past its newest one (at opening, or as commands and others' records come in)
SNAPSHOT_EVERY = 5000
#: and as it closes, once it has folded this many
SNAPSHOT_AT_CLOSE = 200


def new_command_id() -> str:
    return uuid.uuid4().hex[:12]


class Table:
    """One table (a file or a table in PostgreSQL), opened by one process: folds the log and appends commands.

    A table opened for writing signs every command it appends with the GM's key, once
    its store has checked the log it signs after (``Store.vouch``).

    ``lock`` is held while the projection changes (a fold, a command's records
    added), never while the store is read or written: a screen runs its writes
    and catch-up folds in a worker thread and reads the projection under the
    same lock, so it never sees a fold half done and never waits for the
    network or the disk, only for a stretch of folding. One lock rather than a
    second copy of the projection swapped in after each change: a copy would
    cost a deep copy of the state and of the undo history on every command.
    Only one thread at a time may call ``catch_up`` or ``execute``.

    A table read ``upto`` a record folds no further (a damaged table's intact
    records, for ``margin branch``).
    """

    #: how far past the newest snapshot a table folds before it keeps another (see above)
    snapshot_every = SNAPSHOT_EVERY
    snapshot_at_close = SNAPSHOT_AT_CLOSE

    def __init__(self, store: Store, every: int = 1000, upto: int | None = None) -> None:
        self.store = store
        self.upto = upto
        self.lock = threading.RLock()
        if not store.readonly and store.signer is None:
            sign_as_gm(store)
        #: the record of the newest snapshot this table read or kept, and whether it held
        #: a players' index, which a later snapshot carries on (read from the store again
        #: when it is wanted, rather than held: it grows with the log)
        self.snapshot_seq = 0
        self._snapshot_lens = False
        #: while opening, the snapshot's players' index as read (let go once open)
        self._opening_lens: bytes | msgspec.Raw | None = None
        #: whether those bytes are a mapped snapshot's (``core.snapshot.Restored.mapped``)
        self._opening_mapped = False
        #: the newest checkpoint the store keeps (None: not asked yet)
        self._checkpoints_to: int | None = None
        # a long snapshot is read through a mapped copy in margin's data folder
        store.snapshot_files = per_table("snapshots", store.name, "")
        # the collector paused while the snapshot is decoded, as while folding (catch_up):
        # what it allocates stays alive, and is frozen out of collections once folded
        with collector_paused():
            self.projection = self._restore(every)
        #: where dice come from: None, the session's committed seed (``core.fairness``)
        self.dice: Dice | None = None
        self._keys: DiceKeys | None = None
        self.catch_up(keep=False)
        if self.projection.seq == 0:
            raise StoreError(f"{store.name}: an empty table (no creation record)")
        try:
            self._opened()
        finally:
            self._opening_lens = None

    def _restore(self, every: int) -> Projection:
        """The projection from the newest good snapshot, or an empty one."""
        store = self.store

        def fetch(after: int, upto: int) -> Iterable[Record]:
            return store.records(after, upto)

        snap = store.snapshot(snapshots.fold_version(), self.upto)
        restored = snapshots.decode(snap.body) if snap is not None else None
        if restored is None:
            return Projection(fetch, every=every, recall=self._recall, amended=self._amended)
        self.snapshot_seq = restored.state.seq
        self._snapshot_lens = restored.lens is not None
        self._opening_lens = restored.lens
        self._opening_mapped = restored.mapped
        return Projection.restored(
            fetch,
            restored.state,
            restored.history,
            every=every,
            recall=self._recall,
            amended=self._amended,
        )

    def _recall(self, upto: int) -> tuple[int, TableState] | None:
        """The newest checkpoint the store keeps at or before record ``upto``."""
        reads = getattr(self, "reads", self.store)
        point = reads.snapshot(snapshots.checkpoint_fold(), upto)
        if point is None:
            return None
        state = snapshots.decode_checkpoint(point.body, point.seq)
        return (point.seq, state) if state is not None else None

    def _amended(self, seq: int) -> tuple[TableState, int] | None:
        """The checkpoint as corrected the store keeps right after record ``seq``, and how
        many of the history's undos and redos it was folded with; None when there is none
        or its last change is not this log's."""
        reads = getattr(self, "reads", self.store)
        point = reads.snapshot(_amended_fold(), seq)
        if point is None or point.seq != seq or len(point.body) < _AMENDS.size:
            return None
        made, last = _AMENDS.unpack_from(point.body)
        changes = self.projection.history.changes
        if not 0 < made <= len(changes) or changes[made - 1].seq != last:
            return None
        state = snapshots.decode_checkpoint(point.body[_AMENDS.size :], seq)
        return (state, made) if state is not None else None

    def _keep_checkpoints(self) -> None:
        """Keep the checkpoints the projection took since the newest the store has, as it
        happened and (where an undo reaches back past one) as corrected."""
        if self._checkpoints_to is None:
            newest = self.store.snapshot(snapshots.checkpoint_fold())
            self._checkpoints_to = newest.seq if newest is not None else 0
        with self.lock:
            system = self.projection.state.system
            points = [
                (mark, snapshots.encode_frozen(mark, system, frozen))
                for mark, frozen in self.projection.checkpoints(self._checkpoints_to)
                if mark % snapshots.CHECKPOINT_EVERY == 0
            ]
            # the newest kept one's too: an undo may have reached back to it since
            amended = self._amended_points(self._checkpoints_to - 1)
        if amended:
            self.store.keep_snapshots(_amended_fold(), amended, keep=0)
        if points and self.store.keep_snapshots(snapshots.checkpoint_fold(), points, keep=0):
            self._checkpoints_to = points[-1][0]

    def _amended_points(self, after: int) -> list[tuple[int, bytes]]:
        """The projection's checkpoints as corrected after record ``after`` to keep, encoded
        with how many changes they were folded with and the last one's record."""
        changes, system = self.projection.history.changes, self.projection.state.system
        return [
            (
                mark,
                _AMENDS.pack(made, changes[made - 1].seq)
                + snapshots.encode_frozen(mark, system, frozen),
            )
            for mark, frozen, made in self.projection.amended_checkpoints(after)
            if made and mark % snapshots.CHECKPOINT_EVERY == 0
        ]

    def _opened(self) -> None:
        """Once open: a long fold since the newest snapshot is kept as a new one."""
        self.keep_snapshot(self.snapshot_due())

    def snapshot_due(self) -> int:
        """How far past the newest snapshot the fold goes before it keeps another: the
        larger of ``snapshot_every`` and a twentieth of the log, so keeping them (whose
        cost grows with the undo history) costs a long table no more a record than a
        short one, and an opening after a crash folds a twentieth of the log at most."""
        return max(self.snapshot_every, self.projection.seq // 20)

    def keep_snapshot(self, after: int = 1) -> bool:
        """Keep a snapshot of the fold once it stands ``after`` records or more past the
        newest (0: in any case); whether one was kept. Never inside a writer's turn: the encoding is done
        holding only the projection's lock, and the store writes it in a short
        transaction of its own, or lets it go if the table is busy."""
        if self.upto is not None:
            return False
        with self.lock:
            if after and self.projection.seq - self.snapshot_seq < after:
                return False
            fold = snapshots.encode_fold(self.projection.state, self.projection.history)
            lens = self._lens_at(fold.seq)
        if lens is None:
            lens = self._carried_lens(fold.seq)
        body = snapshots.encode(fold, lens)
        if not self.store.keep_snapshot(fold.seq, snapshots.fold_version(), body):
            return False
        self.snapshot_seq, self._snapshot_lens = fold.seq, lens is not None
        self._opening_lens = None
        self._keep_checkpoints()
        return True

    def _lens_at(self, seq: int) -> bytes | None:
        """The players' index at record ``seq``, encoded, if this table keeps one (its
        lock held)."""
        return None

    def _carried_lens(self, seq: int) -> bytes | None:
        """The players' index of the newest snapshot, read on to record ``seq``: a table
        that keeps none carries on what a reader that did left in its snapshot."""
        lens = self._stored_lens()
        if lens is None:
            return None
        lens.feed(self.store.records(self.snapshot_seq, seq))
        return snapshots.encode_lens(lens)

    def _snapshot_reader(self, revealed: set[int]) -> PlayerLens | None:
        """The players' index the snapshot this table opened from holds, if it holds one."""
        lens = self._stored_lens()
        if lens is not None:
            lens.revealed = revealed
        return lens

    def _stored_lens(self) -> PlayerLens | None:
        """The players' index of the newest snapshot this table read or kept, read from the
        store (None: it held none, or the store no longer has it)."""
        if not self._snapshot_lens:
            return None
        if self._opening_lens is not None:
            return snapshots.decode_lens(
                self._opening_lens, self.snapshot_seq, self._opening_mapped
            )
        reads = getattr(self, "reads", self.store)
        snap = reads.snapshot(snapshots.fold_version(), self.snapshot_seq)
        if snap is None or snap.seq != self.snapshot_seq:
            return None
        return snapshots.decode_lens_of(snap.body, self.snapshot_seq)

    @classmethod
    def create(
        cls,
        path: str | Path,
        system: str,
        options: dict[str, Any] | None = None,
        title: str = "",
        author: str = "gm",
    ) -> Table:
        """A new table at ``path`` (a file path or a URL) whose first record is its creation."""
        created = create_table(system, options, title)
        signer = signing_key()
        # the table appears with its creation record or not at all
        with build_store(path, signer) as store:
            store.append([Draft(created)], 0, command=new_command_id(), author=author)
        return cls.open(path)

    @classmethod
    def open(cls, path: str | Path, readonly: bool = False, upto: int | None = None) -> Table:
        store = open_store(path, readonly=readonly)
        try:
            return cls(store, upto=upto)
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        # a snapshot only ever saves time: closing goes on without one
        with contextlib.suppress(StoreError):
            self.keep_snapshot(self.snapshot_at_close)
        self.store.close()

    @property
    def state(self) -> TableState:
        return self.projection.state

    def catch_up(self, keep: bool = True) -> list[Record]:
        """Fold records other processes appended; the new records (unless ``keep`` is False).

        The collector is paused while folding: a rebuild allocates millions of
        objects that all stay alive, and collecting them repeatedly would cost
        several times the fold itself. What survives is then frozen out of
        future collections.
        """
        new: list[Record] = []
        try:
            with collector_paused():
                records: Iterable[Record] = self.store.records(self.projection.seq, self.upto)
                if keep:
                    # a stretch at a time: each is read without the lock, then folded holding it
                    while stretch := list(itertools.islice(records, FOLD_STRETCH)):
                        new.extend(stretch)
                        self._extend(stretch)
                else:
                    self._extend(records)
        except (StoreError, RuleError, MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:
            # a record that decodes but cannot be folded was changed outside margin
            raise StoreError(
                f"{self.store.name}: {self._damaged()} is damaged ({type(exc).__name__}: {exc}); "
                f"margin verify {self.store.name} says more"
            ) from None
        if len(new) > 10_000 or not keep:
            gc.freeze()
        self.store.refresh()
        return new

    def _extend(self, records: Iterable[Record]) -> None:
        with self.lock:
            self.projection.extend(records)

    @property
    def keys(self) -> DiceKeys:
        """The GM's session keys for this table's committed dice."""
        if self._keys is None:
            self._keys = DiceKeys()
        return self._keys

    def entropy_session(self) -> str:
        """The commitment of the session a seat's entropy would join now, if players have
        seen it ("" while they have not: entropy before a commitment counts for nothing,
        and a seat answering one players cannot see would betray the record carrying it)."""
        with self.lock:
            ledger = self.projection.history.dice
            return ledger.commitment if ledger.published else ""

    def add_entropy(self, seat: Seat) -> list[Record]:
        """What a seat's margin calls as it sits down: 32 random bytes of its own for the
        table's dice, in a record; every die drawn after it depends on them, so no seed
        chosen before could steer one. A player's seat gives them only to a session
        players have seen committed (``entropy_session``; nothing is written otherwise)."""
        if seat.gm:
            name = GM
        elif not self.entropy_session():
            return []
        else:
            with self.lock:
                name = seated(self.state, seat).id
        with self.lock:
            if name in self.projection.history.dice.gave:
                # every die drawn since depends on this seat's entropy already: a seat
                # that sits down again (a new connection) adds no record
                return []
        command = Entropy(seat=name, entropy=secrets.token_hex(32))
        return self.execute(command, seat=seat)

    def decide(self, command: Command, keep: bool = False, seat: Seat = GM_SEAT) -> list[Draft]:
        """The records ``command`` would append now, given from ``seat``, decided but not
        written; with ``keep``, the keys of a session they commit to are kept first."""
        with self.lock:
            history = self.projection.history
            if self.dice is not None:
                return decide(command, self.state, self.dice, history, seat)
            keyring = self.keys.keyring()
            drafts = decide_committed(command, self.state, keyring, history, seat)
        if keep:
            self.keys.keep(drafts, keyring)
        return drafts

    def _damaged(self) -> str:
        """Which record a failed fold stopped at, found by folding one record at a time."""
        probe = Projection(lambda after, upto: self.store.records(after, upto))
        seq = 0
        try:
            for record in self.store.records():
                seq = record.seq
                probe.apply(record)
        except Exception:
            return f"record {seq}"
        return "a record"

    def execute(
        self,
        command: Command,
        author: str = "gm",
        command_id: str | None = None,
        seat: Seat = GM_SEAT,
    ) -> list[Record]:
        """Decide a command and append its events atomically, once this writer's turn comes.

        The command is decided against the table as it stands once the table's
        write lock is held, so a command that another writer's came before is
        decided again rather than refused; other writers holding the table for
        longer than ``WRITE_WAIT`` refuse it (``TableBusy``). A command from a player's
        ``seat`` is checked by ``core.authority`` in the same turn, and its records name
        the seat as their author.
        """

        def decided() -> tuple[list[Draft], int]:
            self.catch_up()
            drafts = self.decide(command, keep=True, seat=seat)
            if not drafts:
                raise RuleError("the command changes nothing")
            return drafts, self.projection.seq

        # most of what others wrote is checked (by a signer) and folded before the turn, so
        # the turn, which checks and folds what came meanwhile, holds the lock briefly
        if self.store.signer is not None:
            self.store.vouch(self.store.refresh())
        self.catch_up()
        records = self.store.append_decided(
            decided, command=command_id or new_command_id(), author=author
        )
        self._extend(records)
        self.keep_snapshot(self.snapshot_due())
        return records


#: before a checkpoint as corrected: how many changes it was folded with, and the record of
#: the last of them
_AMENDS = struct.Struct("<qq")


def _amended_fold() -> str:
    """The name checkpoints as corrected are kept under, beside those as it happened."""
    return snapshots.checkpoint_fold() + "/corrected"
