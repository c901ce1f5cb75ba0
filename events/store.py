"""The embedded store: one SQLite file per table, append only."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from .base import Event
from .record import (
    FORMAT,
    PUBLIC,
    DecodeError,
    Record,
    Visibility,
    chain_hash,
    decode_body,
    encode_body,
)

#: How the body of a GM-only record spells its visibility (see ``public_seqs``).
_GM_ONLY_MARK = b'"visibility":{"gm_only":true'

#: Written into every table file; a foreign SQLite file lacks it.
APPLICATION_ID = 0x6D72676E  # "mrgn"

SCHEMA = """
CREATE TABLE records (
    seq     INTEGER PRIMARY KEY,
    command TEXT    NOT NULL,
    v       INTEGER NOT NULL,
    prev    TEXT    NOT NULL,
    hash    TEXT    NOT NULL,
    body    BLOB    NOT NULL
);
CREATE TRIGGER records_no_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'margin records are append-only'); END;
CREATE TRIGGER records_no_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'margin records are append-only'); END;
"""


class StoreError(Exception):
    """A table file cannot be used as asked; the message says why."""


class ConcurrencyError(StoreError):
    """Another writer appended first: re-read the log and decide again."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(
            f"the table moved on: expected to follow record {expected}, last is {actual}"
        )
        self.expected = expected
        self.actual = actual


@dataclass(frozen=True, slots=True)
class Draft:
    """An event about to be appended, with its envelope's choices."""

    event: Event
    cause: int | None = None
    visibility: Visibility = PUBLIC


@dataclass(frozen=True, slots=True)
class StoredRow:
    """A record as stored: body bytes and the chain around them."""

    seq: int
    v: int
    prev: str
    hash: str
    body: bytes


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class SQLiteStore:
    """A table's log in one SQLite file (WAL, synchronous=FULL).

    ``append`` is all-or-nothing for a command's events, and the uniqueness of
    the sequence number is the optimistic concurrency check.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
    ):
        self.path = Path(path)
        if create:
            if self.path.exists():
                raise StoreError(f"{self.path}: already exists; choose a new path for a new table")
            if not self.path.parent.is_dir():
                raise StoreError(f"{self.path}: folder {self.path.parent} does not exist")
        else:
            if not self.path.exists():
                raise StoreError(f"{self.path}: no such table file")
            if self.path.is_dir():
                raise StoreError(f"{self.path}: is a folder, not a table file")
            _check_header(self.path)
        self.readonly = readonly
        uri = f"file:{self.path}{'?mode=ro' if readonly else ''}"
        try:
            self._db = sqlite3.connect(
                uri, uri=True, isolation_level=None, timeout=30.0, check_same_thread=False
            )
            if create:
                self._create()
            self._check_table()
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a margin table ({exc})") from None
        self._last = self._read_last()

    # -- opening -----------------------------------------------------------

    def _create(self) -> None:
        db = self._db
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={FORMAT}")
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript("BEGIN;" + SCHEMA + "COMMIT;")

    def _check_table(self) -> None:
        app = self._db.execute("PRAGMA application_id").fetchone()[0]
        if app != APPLICATION_ID:
            raise StoreError(f"{self.path}: an SQLite file, but not a margin table")
        self.format = self._db.execute("PRAGMA user_version").fetchone()[0]
        if self.format > FORMAT and not self.readonly:
            raise StoreError(
                f"{self.path}: written by a newer margin (format {self.format}, this one writes {FORMAT}); "
                "it can be read but not written: upgrade margin"
            )

    def _read_last(self) -> tuple[int, str]:
        row = self._db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, "")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------

    @property
    def last_seq(self) -> int:
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
        """Append one command's events atomically after record ``expected_seq``."""
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only")
        if not drafts:
            return []
        at = at or utc_now()
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: cannot write ({exc})") from None
        try:
            last_seq, prev = self._read_last()
            if last_seq != expected_seq:
                raise ConcurrencyError(expected_seq, last_seq)
            records = []
            rows = []
            for i, draft in enumerate(drafts):
                record = Record(
                    seq=last_seq + 1 + i,
                    at=at,
                    author=author,
                    command=command,
                    event=draft.event,
                    cause=draft.cause,
                    visibility=draft.visibility,
                )
                body = encode_body(record)
                digest = chain_hash(prev, body)
                rows.append((record.seq, command, FORMAT, prev, digest, body))
                records.append(record)
                prev = digest
            db.executemany(
                "INSERT INTO records(seq, command, v, prev, hash, body) VALUES (?,?,?,?,?,?)", rows
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self._last = self._read_last()
            raise
        self._last = (rows[-1][0], rows[-1][4])
        return records

    def import_rows(
        self, rows: Iterable[tuple[int, str, int, str, str, bytes]], batch: int = 20000
    ) -> int:
        """Bulk-append rows (seq, command, v, prev, hash, body), checking the chain as it goes.

        Many rows go into one transaction. Into an empty table (a new file that
        is deleted if the import fails) the rows are written without a journal
        or a sync per transaction, then the file is synced once and put back in
        WAL mode: all of it is durable when this returns.
        """
        db = self._db
        count = 0
        last_seq, prev = self._read_last()
        pending: list[tuple[int, str, int, str, str, bytes]] = []
        bulk = last_seq == 0
        if bulk:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")

        def flush() -> None:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT INTO records(seq, command, v, prev, hash, body) VALUES (?,?,?,?,?,?)",
                    pending,
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            pending.clear()

        try:
            for row in rows:
                seq, _, _, row_prev, digest, body = row
                if seq != last_seq + 1:
                    raise StoreError(f"record {seq}: expected sequence number {last_seq + 1}")
                if row_prev != prev or chain_hash(prev, body) != digest:
                    raise StoreError(f"record {seq}: hash chain broken")
                pending.append(row)
                last_seq, prev = seq, digest
                count += 1
                if len(pending) >= batch:
                    flush()
            if pending:
                flush()
        finally:
            if bulk:
                db.execute("PRAGMA synchronous=FULL")
                db.execute("PRAGMA journal_mode=WAL")
        if bulk:
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self._last = (last_seq, prev)
        return count

    # -- reading -----------------------------------------------------------

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        sql = "SELECT seq, v, prev, hash, body FROM records WHERE seq > ?"
        args: tuple[int, ...] = (after,)
        if upto is not None:
            sql += " AND seq <= ?"
            args = (after, upto)
        for seq, v, prev, digest, body in self._db.execute(sql + " ORDER BY seq", args):
            # a body tampered with outside margin may come back as TEXT
            yield StoredRow(seq, v, prev, digest, body.encode() if isinstance(body, str) else body)

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        """Decoded records after ``after`` (exclusive) up to ``upto`` (inclusive)."""
        sql = "SELECT seq, v, body FROM records WHERE seq > ?"
        args: tuple[int, ...] = (after,)
        if upto is not None:
            sql += " AND seq <= ?"
            args = (after, upto)
        cursor = self._db.execute(sql + " ORDER BY seq", args)
        cursor.arraysize = 4096
        while batch := cursor.fetchmany():
            for seq, v, body in batch:
                try:
                    yield decode_body(body, v)
                except DecodeError as exc:
                    raise StoreError(f"{self.path}: record {seq} cannot be read: {exc}") from None

    def record(self, seq: int) -> Record:
        for record in self.records(seq - 1, seq):
            return record
        raise StoreError(f"{self.path}: no record {seq}")

    def public_seqs(self, upto: int) -> list[int]:
        """Sequence numbers up to ``upto`` of the records players may see, without decoding.

        One SQL pass over the stored bodies is several times quicker than
        decoding them, which matters when a player's view opens a long table.
        A GM-only record's body holds its envelope's visibility as written by
        ``encode_body`` (``Visibility`` omits defaults and ``gm_only`` comes
        first); inside any string field the same characters would be escaped.
        """
        rows = self._db.execute(
            "SELECT seq FROM records WHERE seq <= ? AND instr(body, ?) = 0 ORDER BY seq",
            (upto, _GM_ONLY_MARK),
        )
        return [row[0] for row in rows]

    def data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def refresh(self) -> int:
        """Re-read the last sequence number (after another process wrote)."""
        self._last = self._read_last()
        return self._last[0]

    def verify(self) -> int | None:
        """Walk the chain; the first bad sequence number, or None when sound."""
        prev = ""
        expected = 1
        for row in self.rows():
            if row.seq != expected or row.prev != prev or chain_hash(prev, row.body) != row.hash:
                return row.seq if row.seq == expected else expected
            try:
                decode_body(row.body, row.v)
            except DecodeError:
                return row.seq
            prev = row.hash
            expected += 1
        return None


def _check_header(path: Path) -> None:
    """Refuse anything that is not an SQLite database before SQLite touches it."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror})") from None
    if len(head) == 0:
        raise StoreError(f"{path}: empty file, not a margin table")
    if not head.startswith(b"SQLite format 3\x00"):
        raise StoreError(f"{path}: not a margin table (not an SQLite file)")
    if len(head) >= 72 and int.from_bytes(head[68:72], "big") != APPLICATION_ID:
        raise StoreError(f"{path}: an SQLite file, but not a margin table")


def follow(
    store: SQLiteStore,
    after: int,
    on_records: Callable[[list[Record]], None],
    *,
    interval: float = 0.01,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Call ``on_records`` with every batch of new records until ``stop()``.

    Polls ``PRAGMA data_version``, which changes when another connection
    commits, so an idle follower costs one cheap query per interval.
    """
    version = store.data_version()
    last = after
    while not stop():
        now = store.data_version()
        if now != version or store.last_seq > last:
            version = now
            batch = list(store.records(last))
            if batch:
                last = batch[-1].seq
                store.refresh()
                on_records(batch)
        time.sleep(interval)
