"""A table on disk: its store, its projection, and commands run against it."""

from __future__ import annotations

import gc
import itertools
import random
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from margin.core import Projection, RuleError, TableState, create_table, decide
from margin.core.commands import Command
from margin.core.dice import Dice
from margin.events import (
    ConcurrencyError,
    Draft,
    Record,
    Store,
    StoreError,
    build_store,
    open_store,
)

from .keys import sign_as_gm, signing_key
from .rng import RandomDice

MAX_RETRIES = 20
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
    """

    def __init__(self, store: Store, every: int = 1000) -> None:
        self.store = store
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
    def open(cls, path: str | Path, readonly: bool = False) -> Table:
        store = open_store(path, readonly=readonly)
        try:
            return cls(store)
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
            records: Iterable[Record] = self.store.records(self.projection.seq)
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
        """Decide a command and append its events atomically; re-decides if another writer won."""
        command_id = command_id or new_command_id()
        for attempt in range(MAX_RETRIES):
            if self.store.signer is not None:
                # what came is checked before catching up, not between reading the last
                # record and writing after it, where another writer could win meanwhile
                self.store.vouch(self.store.refresh())
            self.catch_up()
            drafts = self.decide(command)
            if not drafts:
                raise RuleError("the command changes nothing")
            try:
                records = self.store.append(
                    drafts, self.projection.seq, command=command_id, author=author
                )
            except ConcurrencyError:
                # a writer with more commands queued wins again and again unless the
                # losers stand back a little, for longer each time they lose
                time.sleep(random.uniform(0, min(0.05, 0.0005 * 2**attempt)))
                continue
            self._extend(records)
            return records
        raise StoreError(f"{self.store.name}: too many concurrent writers, command not applied")
