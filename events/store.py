"""What every store of a table's log offers, whichever engine keeps it.

A store holds one table: records numbered 1, 2, ... without gaps, each
chained to the one before by its hash, the last record of every command
signed. ``Store`` is the protocol the rest of margin programs against; the
SQLite store (``sqlite.py``), the PostgreSQL store (``postgres.py``) and the
in-memory store (``memory.py``) implement it and pass one contract test class
(``tests/store_contract.py``). Everything an engine can raise is turned into
``StoreError`` (or its ``ConcurrencyError``) before it leaves the store.
"""

from __future__ import annotations

import mmap
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, Self, runtime_checkable

import msgspec

from .base import Event
from .dice import Commitment, Drawn
from .history import History, Ledger
from .record import PUBLIC, DecodeError, Record, Visibility, chain_hash, decode_body
from .signing import SignatureCheck, SigningKey


class StoreError(Exception):
    """A table cannot be used as asked; the message says why."""


class ReadError(StoreError):
    """The engine could not read the table (a damaged file, a lost server)."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"{name}: cannot be read ({detail})")
        self.detail = detail


class DamagedRecord(StoreError):
    """A stored record that cannot be read as one; ``why`` says what is wrong with it."""

    def __init__(self, name: str, seq: object, why: str) -> None:
        super().__init__(
            f"{name}: record {seq} is damaged and cannot be read ({why}); "
            f"margin verify {name} says more"
        )
        self.why = why


class ConcurrencyError(StoreError):
    """Another writer appended first: re-read the log and decide again."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(
            f"the table moved on: expected to follow record {expected}, last is {actual}"
        )
        self.expected = expected
        self.actual = actual


class Unvouched(StoreError):
    """A signer found a record it cannot vouch for in the log it was to sign after."""

    def __init__(self, name: str, seq: int, reason: str) -> None:
        super().__init__(
            f"{name}: record {seq} {reason}; nothing was written; margin verify {name} says more"
        )
        self.seq = seq
        self.reason = reason


#: How long a writer waits for its turn while other processes write the same table.
WRITE_WAIT = 10.0


class TableBusy(StoreError):
    """Other writers held the table for ``WRITE_WAIT`` seconds: this command was not written."""

    def __init__(self, name: str) -> None:
        super().__init__(
            f"{name}: busy: other writers held the table for {WRITE_WAIT:g} s; "
            "this command was not written: run it again"
        )


class ConnectionLost(StoreError):
    """The database went away mid-command and the command was not written: run it again.

    The store has reconnected (or will on the next call), so later commands go on.
    """


@dataclass(frozen=True, slots=True)
class Draft:
    """An event about to be appended, with its envelope's choices."""

    event: Event
    cause: int | None = None
    visibility: Visibility = PUBLIC
    #: the seat that wrote this record, when another than its command's author (a
    #: player's command applied by the GM's ruling on it); "" for the command's author
    author: str = ""
    drawn: Drawn | None = None
    committed: Commitment | None = None
    sealed: str = ""


class StoredRow(msgspec.Struct, frozen=True):
    """A record as stored: body bytes, the chain around them, and the head's signature if any."""

    seq: int
    v: int
    prev: str
    hash: str
    body: bytes
    command: str = ""
    key: str = ""
    sig: str = ""


class Snapshot(msgspec.Struct, frozen=True):
    """What a fold of the log knew right after record ``seq``, kept beside the log as a cache.

    ``hash`` is that record's chain hash, so a snapshot the log no longer bears out (a
    table changed outside margin, a copy of another table's file) is never used;
    ``fold`` names the code that wrote ``body`` (only that code can read it).
    """

    seq: int
    hash: str
    fold: str
    #: the body's bytes, or a file mapped read-only that holds them (``events.mapped``)
    body: bytes | mmap.mmap


#: snapshots of one fold a table keeps: a newer one lets the oldest go
SNAPSHOTS_KEPT = 3
#: snapshots a look at a record tries, newest first, before it gives up on them
SNAPSHOTS_LOOKED_AT = 4
#: how long keeping a snapshot waits for a lock another writer holds before it lets the
#: snapshot go (a snapshot only ever saves time)
SNAPSHOT_WAIT_MS = 50

#: A row as ``Store.import_rows`` takes it: seq, command, v, prev, hash, body.
Row = tuple[int, str, int, str, str, bytes]

#: A signer that wrote this many records of its own since its ledger last kept its
#: history keeps it again (it always does after reading records others wrote).
KEEP_EVERY = 1000


@dataclass
class Verdict:
    """What ``Store.check`` found: how many records, the first bad one and why, who signed."""

    records: int = 0
    bad: int | None = None
    reason: str = ""
    signatures: SignatureCheck = field(default_factory=SignatureCheck)


@runtime_checkable
class Store(Protocol):
    """One table's append-only, hash-chained, signed log.

    A store's engine gives the methods whose body here is ``...``; the rest
    is built from them once, for every engine, by subclassing ``Store``.
    """

    #: how messages name the table: a file path, or a URL without its password
    name: str
    readonly: bool
    #: with a signer every append also signs the new chain head, once it has checked the log
    signer: SigningKey | None
    #: keys besides the signer's that it signs after (``SignatureCheck``)
    trusted: frozenset[str] = frozenset()
    #: where the signer keeps what it checked of its tables between processes
    ledger: Ledger | None = None
    #: what the signer has checked of this log, from record 1 on (``vouch``)
    vouched: History | None = None
    #: where a table file's long snapshots are copied to be mapped (``events.mapped``);
    #: None: read into memory (a table in PostgreSQL always is)
    snapshot_files: Path | None = None
    #: the last record this store knows of: its sequence number and hash
    _last: tuple[int, str]
    #: the rows and signature of the command being written (``_signature``)
    _written: tuple[Sequence[Row], tuple[int, str, str]] | None = None
    #: the hash of record 1, and the history the ledger has of the log (``_keep_vouched``)
    _first: str | None = None
    _kept_at: tuple[int, str] | None = None

    @property
    def last_seq(self) -> int:
        """The last record this store knows of (``refresh`` re-reads it)."""
        return self._last[0]

    def append(
        self,
        drafts: Sequence[Draft],
        expected_seq: int,
        *,
        command: str,
        author: str = "gm",
        at: str | None = None,
    ) -> list[Record]:
        """Append one command's events atomically after record ``expected_seq``.

        Raises ``ConcurrencyError`` (and writes nothing) when the last record is
        another than ``expected_seq``. With a signer, the log up to ``expected_seq``
        is checked first (``vouch``), so the signature vouches only for what was checked.
        """
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        if not drafts:
            return []
        follows = self.vouch(expected_seq) if self.signer is not None else None
        self._written = None
        appending = Appending(
            drafts, expected_seq, command, author, at or utc_now(), follows, self.name
        )
        records = self._write(appending)
        self._vouched_own()
        return records

    def append_decided(
        self,
        decide: Callable[[], tuple[Sequence[Draft], int]],
        *,
        command: str,
        author: str = "gm",
    ) -> list[Record]:
        """Wait for this table's turn to write, then ``decide()`` a command and append it.

        ``decide`` reads the table as it now is and gives the drafts and the record
        they follow. It runs holding the table's write lock, so no other writer can
        come between the decision and its records. A turn that ends with nothing
        written (another writer slipped in regardless, a connection lost before the
        command was sent) is taken again and the command decided again; one not had
        within ``WRITE_WAIT`` seconds is ``TableBusy``.
        """
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        deadline = time.monotonic() + WRITE_WAIT

        def appending() -> Appending | None:
            drafts, expected = decide()
            if not drafts:
                return None
            # the signer checks what came since it last looked, as append does
            follows = self.vouch(expected, keep=False) if self.signer is not None else None
            return Appending(drafts, expected, command, author, utc_now(), follows, self.name)

        while True:
            self._written = None
            try:
                records = self._write_decided(appending, deadline)
            except (ConcurrencyError, ConnectionLost):
                if time.monotonic() >= deadline:
                    raise TableBusy(self.name) from None
                time.sleep(random.uniform(0, 0.01))
                continue
            self._vouched_own()
            return records

    def _write(self, appending: Appending) -> list[Record]:
        """Write a command's records in one transaction (``append`` has checked the call)."""
        return self._write_decided(lambda: appending, time.monotonic() + WRITE_WAIT)

    def _write_decided(
        self, decide: Callable[[], Appending | None], deadline: float
    ) -> list[Record]:
        """Take the table's write lock (waiting until ``deadline``, then ``TableBusy``), and
        write what ``decide()`` gives, if anything, in one transaction under it."""
        ...

    def import_rows(self, rows: Iterable[Row]) -> int:
        """Append stored rows as they are, checking sequence and chain; how many."""
        ...

    def import_signatures(self, signatures: Iterable[tuple[int, str, str]]) -> None:
        """Store signatures (seq, key, sig) read with the records they sign."""
        ...

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """Stored rows with their heads' signatures, as ``margin export`` writes them."""
        ...

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        """Decoded records after ``after`` (exclusive) up to ``upto`` (inclusive)."""
        ...

    def record(self, seq: int) -> Record:
        for record in self.records(seq - 1, seq):
            return record
        raise StoreError(f"{self.name}: no record {seq}")

    def data_version(self) -> int:
        """A number that changes when another connection has committed; cheap to ask."""
        ...

    def wait(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds for another connection's commit; whether one came."""
        ...

    def refresh(self) -> int:
        """Re-read the last sequence number (after another process wrote)."""
        ...

    def check(self, key: str | None = None) -> Verdict:
        """Walk the chain: every column of every record, and every signature (``check_rows``)."""
        return check_rows(self.rows(), key)

    def verify(self) -> int | None:
        """The first bad sequence number, or None when the chain is sound."""
        return self.check().bad

    def location(self) -> str:
        """Where ``check`` read the records from, for ``margin verify``."""
        ...

    def backup(self, dest: str) -> int:
        """Copy the table as it is at one moment into a new table ``dest``; its records.

        Unless an engine has a better way, the rows are read once and written into
        ``dest`` (a table file or a URL) as ``copy_table`` does.
        """
        from .copy import copy_table

        return copy_table(self, dest)

    # -- snapshots: a cache of folds, never part of the log ----------------------

    def snapshot(self, fold: str, upto: int | None = None) -> Snapshot | None:
        """The newest snapshot written by ``fold`` at or before record ``upto`` that the
        chain bears out (its record is there, sound, with the hash it names), or None.

        Snapshots are a cache: one that cannot be read or does not match is passed
        over (a later ``keep_snapshot`` replaces it), never an error.
        """
        try:
            for snap in self._snapshots(fold, upto):
                for row in self.rows(snap.seq - 1, snap.seq):
                    if row.hash == snap.hash and chain_hash(row.prev, row.body) == row.hash:
                        return snap
        except StoreError:
            return None
        return None

    def keep_snapshot(self, seq: int, fold: str, body: bytes) -> bool:
        """Keep ``body`` as ``fold``'s snapshot of the log at record ``seq``; whether it was.

        A snapshot that cannot be written (a read-only file, a busy table, a role that
        may not) is let go: it only ever saves time. The ``SNAPSHOTS_KEPT`` newest of
        a fold stay, and the snapshots of other folds (other margins) are left be.
        """
        return self.keep_snapshots(fold, [(seq, body)]) == 1

    def keep_snapshots(
        self, fold: str, bodies: Sequence[tuple[int, bytes]], keep: int = SNAPSHOTS_KEPT
    ) -> int:
        """Keep several snapshots of ``fold`` (record, body) at once, in one transaction;
        how many were kept (all or none; those of records not in the log are left out).
        ``keep``: how many of the fold's newest stay (0: all of them)."""
        try:
            snaps = []
            for seq, body in bodies:
                digest = self._hash_at(seq)
                if digest is not None:
                    snaps.append(Snapshot(seq, digest, fold, body))
            if not snaps or not self._keep_snapshots(snaps, keep):
                return 0
        except StoreError:
            return 0
        return len(snaps)

    def _snapshots(self, fold: str, upto: int | None) -> Iterator[Snapshot]:
        """The snapshots of ``fold`` at or before ``upto``, newest first."""
        ...

    def _keep_snapshots(self, snaps: Sequence[Snapshot], keep: int) -> bool:
        """Write snapshots of one fold in one transaction, and let go of the fold's older
        ones past the ``keep`` newest (0: none go); whether they were written."""
        ...

    def drop_snapshots(self) -> int:
        """Remove every snapshot of the table (any fold's); how many there were."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _signature(self, rows: Sequence[Row]) -> tuple[int, str, str] | None:
        """The signature (seq, key, sig) of the chain head that ``rows`` end with, if signing."""
        if self.signer is None:
            return None
        seq, digest = rows[-1][0], rows[-1][4]
        signature = seq, self.signer.public, self.signer.sign(seq, digest)
        self._written = rows, signature
        return signature

    # -- what a signer has checked --------------------------------------------

    def vouch(self, upto: int, keep: bool = True) -> str | None:
        """Check the log as the signer must before it signs after record ``upto``.

        Reads only the records after the last one checked, and all of them, so
        that a row numbered past a gap is found: the history is kept on the
        store, and in its ``ledger`` between processes (unless not ``keep``: a
        writer checking inside its turn leaves that to its next check outside
        it, so the turn holds the lock no longer than it must). Returns the hash of
        record ``upto``, or None when the log does not end there (an append
        then refuses as a ``ConcurrencyError``, and the next one checks on);
        raises ``Unvouched`` naming the first record the signer cannot vouch
        for: one that fails ``margin verify``, a command with no signature once
        the table is signed, or one signed by a key the signer does not take
        (``SignatureCheck``).
        """
        own = self.signer.public if self.signer is not None else None
        history = self.vouched
        if history is None or history.signatures.own != own:
            history = self.vouched = self._resume(upto)
        history.signatures.trusted = self.trusted
        read = history.records < upto
        if read:
            history.feed(self.rows(history.records))
        bad = _fault(history, upto)
        if bad is not None:
            # kept only while sound: the next look goes on from the ledger, under the keys
            # trusted then
            self.vouched = None
            raise Unvouched(self.name, *bad)
        if keep:
            self._keep_vouched(read)
        return history.head if history.records == upto else None

    def _resume(self, upto: int) -> History:
        """The history to check the log from: the longest the ledger has that the log bears out."""
        own = self.signer.public if self.signer is not None else None
        self._kept_at = None
        fresh = History(signatures=SignatureCheck(own=own, trusted=self.trusted))
        if self.ledger is None or own is None or upto == 0:
            return fresh
        first = self._first_hash()
        if first is None:
            return fresh
        kept = self.ledger.find(first, own, lambda seq: self._hash_at(seq) if seq <= upto else None)
        if kept is None:
            return fresh
        kept.signatures.trusted = self.trusted
        self._kept_at = kept.records, kept.head
        return kept

    def _hash_at(self, seq: int) -> str | None:
        for row in self.rows(seq - 1, seq):
            return row.hash
        return None

    def _first_hash(self) -> str | None:
        if self._first is None:
            self._first = self._hash_at(1)
        return self._first

    def _vouched_own(self) -> None:
        """Add the command just written to what the signer has checked."""
        written, self._written = self._written, None
        history = self.vouched
        if written is None or history is None:
            return
        rows, (head, key, sig) = written
        if rows[0][0] != history.records + 1:
            return
        history.feed(
            (
                StoredRow(seq, v, prev, digest, body, command, *((key, sig) if seq == head else ()))
                for seq, command, v, prev, digest, body in rows
            ),
            made=True,
        )
        if history.bad is not None:
            self.vouched = None
            return
        self._keep_vouched(False)

    def _keep_vouched(self, read: bool) -> None:
        """Keep the history in the ledger once it has news worth a file: what was read
        from the log, or ``KEEP_EVERY`` records of the signer's own."""
        history = self.vouched
        if self.ledger is None or history is None or not self._news(history, read):
            return
        first = self._first_hash()
        if first is None:
            return
        self.ledger.keep(first, history, self._kept_at)
        self._kept_at = history.records, history.head

    def _news(self, history: History, read: bool) -> bool:
        """Whether a sound history has news since the ledger kept it: records ``read`` from
        the log, or ``KEEP_EVERY`` of the signer's own."""
        if history.bad is not None:
            return False
        since = self._kept_at[0] if self._kept_at is not None else 0
        return history.records > since and (read or history.records - since >= KEEP_EVERY)

    def _decode(self, seq: object, v: int, body: bytes | str) -> Record:
        """A stored body decoded; one that will not decode is reported as damaged."""
        try:
            return decode_body(body, v)
        except DecodeError as exc:
            raise self._damaged(seq, str(exc)) from None

    def _damaged(self, seq: object, why: str) -> StoreError:
        return DamagedRecord(self.name, seq, why)


class Appending(msgspec.Struct, frozen=True):
    """One command's drafts on their way into the log, as ``Store.append`` was called."""

    drafts: Sequence[Draft]
    expected_seq: int
    command: str
    author: str
    at: str
    #: the hash the signer checked record ``expected_seq`` to have, if it checked
    follows: str | None = None
    #: the table's name, for messages
    table: str = ""

    def after(self, last_seq: int, prev: str) -> tuple[list[Record], list[Row]]:
        """The records and rows of the command written after record ``last_seq`` (hash ``prev``).

        Raises ``ConcurrencyError`` when that record is not the one the command expected,
        ``StoreError`` when it is no longer the record the signer checked.
        """
        # looked up at each append, so that the format written is the one in force
        from .record import FORMAT, encode_body

        if last_seq != self.expected_seq:
            raise ConcurrencyError(self.expected_seq, last_seq)
        if self.follows is not None and prev != self.follows:
            raise StoreError(
                f"{self.table}: record {last_seq} was changed outside margin after it was "
                f"checked; nothing was written; margin verify {self.table} says more"
            )
        records = records_after(
            self.drafts, last_seq, command=self.command, author=self.author, at=self.at
        )
        rows: list[Row] = []
        for record in records:
            body = encode_body(record)
            digest = chain_hash(prev, body)
            rows.append((record.seq, self.command, FORMAT, prev, digest, body))
            prev = digest
        return records, rows


def _fault(history: History, upto: int) -> tuple[int, str] | None:
    """The first record a signer checking the log up to ``upto`` cannot vouch for, and why."""
    if history.bad is not None:
        return history.bad, history.reason
    return history.signatures.open_tail() if history.records == upto else None


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def records_after(
    drafts: Sequence[Draft], last_seq: int, *, command: str = "", author: str = "", at: str = ""
) -> list[Record]:
    """The records a command's drafts become, numbered on from record ``last_seq``; drafts
    folded before they are appended (a command planned against the state the ones before
    it leave) have no command, author or time yet."""
    return [
        Record(
            seq=last_seq + 1 + i,
            at=at,
            author=draft.author or author,
            command=command,
            event=draft.event,
            cause=draft.cause,
            visibility=draft.visibility,
            drawn=draft.drawn,
            committed=draft.committed,
            sealed=draft.sealed,
        )
        for i, draft in enumerate(drafts)
    ]


def chained(rows: Iterable[Row], last_seq: int, prev: str) -> Iterator[Row]:
    """``rows`` checked as the continuation of a log ending at ``last_seq`` with hash ``prev``."""
    for row in rows:
        seq, _, _, row_prev, digest, body = row
        if seq != last_seq + 1:
            raise StoreError(f"record {last_seq + 1} is missing (the next record is {seq})")
        if row_prev != prev or chain_hash(prev, body) != digest:
            raise StoreError(f"record {seq}: hash chain broken")
        yield row
        last_seq, prev = seq, digest


def check_rows(rows: Iterator[StoredRow], key: str | None = None) -> Verdict:
    """The verdict on a whole log read as ``rows``: see ``History.feed`` and ``SignatureCheck``.

    With ``key`` every record must be covered by a signature of that key.
    """
    history = History(signatures=SignatureCheck(key=key))
    try:
        history.feed(rows)
    except ReadError as exc:
        history.fail(history.records + 1, f"cannot be read ({exc.detail})")
    history.finish()
    return Verdict(history.records, history.bad, history.reason, history.signatures)


# -- opening what the user typed ---------------------------------------------


def is_url(name: str | object) -> bool:
    """Whether ``name`` names a table in PostgreSQL rather than a file."""
    return str(name).startswith(("postgresql://", "postgres://"))


def follow(
    store: Store,
    after: int,
    on_records: Callable[[list[Record]], None],
    *,
    interval: float = 0.01,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Call ``on_records`` with every batch of new records until ``stop()``.

    Waits on the store (SQLite: ``PRAGMA data_version`` every ``interval``;
    PostgreSQL: ``NOTIFY``), so an idle follower costs next to nothing, and
    reads what came after the last record it delivered.
    """
    last = after
    changed = True  # records may have come before the follower started
    while not stop():
        if changed:
            batch = list(store.records(last))
            if batch:
                last = batch[-1].seq
                store.refresh()
                on_records(batch)
        changed = store.wait(interval)
