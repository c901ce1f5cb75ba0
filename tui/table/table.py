"""A table on disk: its store, its projection, and commands run against it."""

from __future__ import annotations

import gc
import itertools
import threading
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from margin.core import Projection, RuleError, TableState, create_table, decide
from margin.core.commands import Command
from margin.core.dice import Dice
from margin.events import (
    Draft,
    Record,
    Store,
    StoreError,
    build_store,
    open_store,
)

from .keys import sign_as_gm, signing_key
from .rng import RandomDice

#: records folded at a time while catching up: a screen reading the table waits at most one
#: stretch of this many folds, however many records another process appended
FOLD_STRETCH = 1000


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

    def __init__(self, store: Store, every: int = 1000, upto: int | None = None) -> None:
        self.store = store
        self.upto = upto
        self.lock = threading.RLock()
        if not store.readonly and store.signer is None:
            sign_as_gm(store)
        self.projection = Projection(lambda after, upto: store.records(after, upto), every=every)
        self.dice: Dice = RandomDice()
        self.catch_up(keep=False)
        if self.projection.seq == 0:
            raise StoreError(f"{store.name}: an empty table (no creation record)")

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
        collect = gc.isenabled()
        gc.disable()
        try:
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
        finally:
            if collect:
                gc.enable()
        if len(new) > 10_000 or not keep:
            gc.freeze()
        self.store.refresh()
        return new

    def _extend(self, records: Iterable[Record]) -> None:
        with self.lock:
            self.projection.extend(records)

    def decide(self, command: Command) -> list[Draft]:
        """The records ``command`` would append now, decided but not written."""
        with self.lock:
            return decide(command, self.state, self.dice, self.projection.history)

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
        self, command: Command, author: str = "gm", command_id: str | None = None
    ) -> list[Record]:
        """Decide a command and append its events atomically, once this writer's turn comes.

        The command is decided against the table as it stands once the table's
        write lock is held, so a command that another writer's came before is
        decided again rather than refused; other writers holding the table for
        longer than ``WRITE_WAIT`` refuse it (``TableBusy``).
        """

        def decided() -> tuple[list[Draft], int]:
            self.catch_up()
            drafts = self.decide(command)
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
        return records
