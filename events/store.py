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

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, Self, runtime_checkable

from .base import Event
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


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A record as stored: body bytes, the chain around them, and the head's signature if any."""

    seq: int
    v: int
    prev: str
    hash: str
    body: bytes
    command: str = ""
    key: str = ""
    sig: str = ""


#: A row as ``Store.import_rows`` takes it: seq, command, v, prev, hash, body.
Row = tuple[int, str, int, str, str, bytes]


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
    #: with a signer every append also signs the new chain head
    signer: SigningKey | None
    #: the last record this store knows of: its sequence number and hash
    _last: tuple[int, str]

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
        another than ``expected_seq``.
        """
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        if not drafts:
            return []
        return self._write(Appending(drafts, expected_seq, command, author, at or utc_now()))

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
            return Appending(drafts, expected, command, author, utc_now()) if drafts else None

        while True:
            try:
                return self._write_decided(appending, deadline)
            except (ConcurrencyError, ConnectionLost):
                if time.monotonic() >= deadline:
                    raise TableBusy(self.name) from None
                time.sleep(random.uniform(0, 0.01))

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
        return seq, self.signer.public, self.signer.sign(seq, digest)

    def _decode(self, seq: object, v: int, body: bytes | str) -> Record:
        """A stored body decoded; one that will not decode is reported as damaged."""
        try:
            return decode_body(body, v)
        except DecodeError as exc:
            raise self._damaged(seq, str(exc)) from None

    def _damaged(self, seq: object, why: str) -> StoreError:
        return DamagedRecord(self.name, seq, why)


@dataclass(frozen=True, slots=True)
class Appending:
    """One command's drafts on their way into the log, as ``Store.append`` was called."""

    drafts: Sequence[Draft]
    expected_seq: int
    command: str
    author: str
    at: str

    def after(self, last_seq: int, prev: str) -> tuple[list[Record], list[Row]]:
        """The records and rows of the command written after record ``last_seq`` (hash ``prev``).

        Raises ``ConcurrencyError`` when that record is not the one the command expected.
        """
        # looked up at each append, so that the format written is the one in force
        from .record import FORMAT, encode_body

        if last_seq != self.expected_seq:
            raise ConcurrencyError(self.expected_seq, last_seq)
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
            author=author,
            command=command,
            event=draft.event,
            cause=draft.cause,
            visibility=draft.visibility,
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
    """The verdict on a log read as ``rows``: see ``Store.check``.

    ``prev`` and ``hash`` must chain, the body must decode and agree with the
    ``seq`` and ``command`` columns beside it, and ``v`` must be a format this
    margin reads. With ``key`` every record must be covered by a signature of
    that key.
    """
    verdict = Verdict(signatures=SignatureCheck(key))
    signatures = verdict.signatures
    prev = ""
    expected = 1
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except ReadError as exc:
            verdict.bad, verdict.reason = expected, f"cannot be read ({exc.detail})"
            return verdict
        if row.seq != expected:
            verdict.bad, verdict.reason = expected, "is missing or out of order"
            return verdict
        if row.prev != prev or chain_hash(prev, row.body) != row.hash:
            verdict.bad, verdict.reason = row.seq, "breaks the hash chain"
            return verdict
        try:
            record = decode_body(row.body, row.v)
        except DecodeError as exc:
            verdict.bad, verdict.reason = row.seq, f"cannot be decoded ({exc})"
            return verdict
        if record.seq != row.seq or record.command != row.command:
            verdict.bad, verdict.reason = row.seq, "has columns that disagree with its body"
            return verdict
        if row.sig or row.key:
            signatures.head(row.seq, row.hash, row.key, row.sig)
            if signatures.bad is not None:
                verdict.bad, verdict.reason = signatures.bad, signatures.reason
                return verdict
        prev = row.hash
        expected += 1
        verdict.records += 1
    signatures.finish(verdict.records)
    if signatures.bad is not None:
        verdict.bad, verdict.reason = signatures.bad, signatures.reason
    return verdict


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
