"""A table's log held in memory: the store for fast tests, with the same contract as the others.

Rows are kept as they would be stored (encoded bodies, chain hashes,
signatures), so what a test reads back has been through the same encoding as
a table on disk. Several ``MemoryStore`` objects made with ``connect`` share
one log, as several connections share a file or a database, and each one sees
the others' appends. ``open_store("memory:NAME")`` finds a log by name in
this process, so code that opens tables by name runs on it too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from .record import Record
from .signing import SigningKey
from .store import (
    SNAPSHOTS_LOOKED_AT,
    Appending,
    Row,
    Snapshot,
    Store,
    StoredRow,
    StoreError,
    chained,
)


@dataclass
class _Log:
    """What every connection to one in-memory table shares."""

    rows: list[Row] = field(default_factory=list)
    signatures: dict[int, tuple[str, str]] = field(default_factory=dict)
    version: int = 0
    #: fold -> its snapshots, oldest first
    snapshots: dict[str, list[Snapshot]] = field(default_factory=dict)
    changed: threading.Condition = field(default_factory=threading.Condition)


#: The named logs of this process (``memory:NAME``).
_LOGS: dict[str, _Log] = {}
_LOGS_LOCK = threading.Lock()


class MemoryStore(Store):
    """One table's log in this process's memory."""

    @classmethod
    def named(
        cls,
        name: str,
        *,
        create: bool = False,
        readonly: bool = False,
        signer: SigningKey | None = None,
    ) -> MemoryStore:
        """A connection to the log called ``name`` (``memory:NAME``), made new with ``create``."""
        with _LOGS_LOCK:
            log = _LOGS.get(name)
            if create:
                if log is not None:
                    raise StoreError(f"{name}: already exists; choose a new name for a new table")
                log = _LOGS[name] = _Log()
            elif log is None:
                raise StoreError(f"{name}: no such table in this process's memory")
        return cls(name, readonly=readonly, signer=signer, log=log)

    @classmethod
    @contextmanager
    def build(cls, name: str, signer: SigningKey | None = None) -> Iterator[Store]:
        """A new named log that is found by name only once the block succeeds."""
        if exists(name):
            raise StoreError(f"{name}: already exists; choose a new name for a new table")
        store = cls(name, signer=signer)
        yield store
        with _LOGS_LOCK:
            if name in _LOGS:
                raise StoreError(f"{name}: already exists; choose a new name for a new table")
            _LOGS[name] = store._log

    @staticmethod
    def forget(name: str) -> None:
        """Drop the log called ``name`` (a test's table, once the test is done)."""
        with _LOGS_LOCK:
            _LOGS.pop(name, None)

    def __init__(
        self,
        name: str = "memory",
        *,
        readonly: bool = False,
        signer: SigningKey | None = None,
        log: _Log | None = None,
    ) -> None:
        self.name = name
        self.readonly = readonly
        self.signer = signer
        self._log = log if log is not None else _Log()
        self._last = self._read_last()
        self._waited = self._log.version

    def connect(self, *, readonly: bool = False, signer: SigningKey | None = None) -> MemoryStore:
        """Another connection to the same log."""
        return MemoryStore(self.name, readonly=readonly, signer=signer, log=self._log)

    def _read_last(self) -> tuple[int, str]:
        rows = self._log.rows
        return (rows[-1][0], rows[-1][4]) if rows else (0, "")

    def _committed(self) -> None:
        log = self._log
        with log.changed:
            log.version += 1
            self._waited = log.version
            log.changed.notify_all()
        self._last = self._read_last()

    def _write_decided(
        self, decide: Callable[[], Appending | None], deadline: float
    ) -> list[Record]:
        log = self._log
        # one process: the log's lock is the turn, and every writer waits for it
        with log.changed:
            appending = decide()
            if appending is None:
                return []
            self._last = self._read_last()
            # every body is encoded before any row is kept: a command is all or nothing
            records, rows = appending.after(*self._last)
            log.rows.extend(rows)
            signature = self._signature(rows)
            if signature is not None:
                seq, key, sig = signature
                log.signatures[seq] = (key, sig)
            self._committed()
        return records

    def import_rows(self, rows: Iterable[Row]) -> int:
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        log = self._log
        with log.changed:
            last_seq, prev = self._read_last()
            checked = list(chained(rows, last_seq, prev))
            log.rows.extend(checked)
            self._committed()
        return len(checked)

    def import_signatures(self, signatures: Iterable[tuple[int, str, str]]) -> None:
        log = self._log
        with log.changed:
            given = {seq: (key, sig) for seq, key, sig in signatures}
            if given.keys() & log.signatures.keys():
                raise StoreError(f"{self.name}: a record is signed twice")
            log.signatures.update(given)
            self._committed()

    # -- reading -----------------------------------------------------------

    def _slice(self, after: int, upto: int | None) -> list[Row]:
        rows = self._log.rows
        end = len(rows) if upto is None else max(after, min(upto, len(rows)))
        return rows[after:end]

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        signatures = self._log.signatures
        for seq, command, v, prev, digest, body in self._slice(after, upto):
            key, sig = signatures.get(seq, ("", ""))
            yield StoredRow(seq, v, prev, digest, body, command, key, sig)

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        for seq, _, v, _, _, body in self._slice(after, upto):
            yield self._decode(seq, v, body)

    def data_version(self) -> int:
        return self._log.version

    def wait(self, timeout: float) -> bool:
        log = self._log
        with log.changed:
            log.changed.wait_for(lambda: log.version != self._waited, timeout)
            moved = log.version != self._waited
            self._waited = log.version
        return moved

    def refresh(self) -> int:
        self._last = self._read_last()
        return self._last[0]

    def location(self) -> str:
        return f"from {self.name} (in memory)"

    def _snapshots(self, fold: str, upto: int | None) -> Iterator[Snapshot]:
        kept = [s for s in self._log.snapshots.get(fold, ()) if upto is None or s.seq <= upto]
        yield from reversed(kept[-SNAPSHOTS_LOOKED_AT:])

    def _keep_snapshots(self, snaps: Sequence[Snapshot], keep: int) -> bool:
        fold = snaps[0].fold
        with self._log.changed:
            new = {s.seq: s for s in snaps}
            kept = [s for s in self._log.snapshots.get(fold, ()) if s.seq not in new]
            kept = sorted([*kept, *new.values()], key=lambda s: s.seq)
            self._log.snapshots[fold] = kept[-keep:] if keep else kept
        return True

    def drop_snapshots(self) -> int:
        with self._log.changed:
            count = sum(len(kept) for kept in self._log.snapshots.values())
            self._log.snapshots.clear()
        return count

    def close(self) -> None:
        """Nothing to let go of: the log lives as long as a connection to it."""


def exists(name: str) -> bool:
    return name in _LOGS
