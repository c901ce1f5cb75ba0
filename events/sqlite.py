"""The embedded store: one SQLite file per table, append only (WAL while open, one file when closed)."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import mmap
import os
import random
import re
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from . import mapped
from .record import DECODE_BATCH, Record, decode_batch
from .signing import SigningKey
from .store import (
    SNAPSHOT_WAIT_MS,
    SNAPSHOTS_LOOKED_AT,
    Appending,
    ReadError,
    Row,
    Snapshot,
    Store,
    StoredRow,
    StoreError,
    TableBusy,
    chained,
    is_url,
)

#: Written into every table file; a foreign SQLite file lacks it.
APPLICATION_ID = 0x6D72676E  # "mrgn"

#: Format of the table file (``PRAGMA user_version``): 1 had records only, 2
#: added the signatures of chain heads. ``TABLE_UPGRADES[n]`` turns a format-``n``
#: file into format ``n + 1``; a writer applies them when it opens an older file.
TABLE_FORMAT = 2

SIGNATURES = """
CREATE TABLE IF NOT EXISTS signatures (
    seq     INTEGER PRIMARY KEY,
    key     TEXT    NOT NULL,
    sig     TEXT    NOT NULL
);
CREATE TRIGGER IF NOT EXISTS signatures_no_update BEFORE UPDATE ON signatures
BEGIN SELECT RAISE(ABORT, 'margin signatures are append-only'); END;
CREATE TRIGGER IF NOT EXISTS signatures_no_delete BEFORE DELETE ON signatures
BEGIN SELECT RAISE(ABORT, 'margin signatures are append-only'); END;
"""

TABLE_UPGRADES: dict[int, str] = {1: SIGNATURES}

#: Snapshots of folds (``Store.keep_snapshot``): a cache beside the log, made when the
#: first is kept, so the file's format (and every earlier margin's reading of it) is
#: unchanged. Rows come and go (no triggers): nothing in them is part of the log.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (
    fold    TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    hash    TEXT    NOT NULL,
    body    BLOB    NOT NULL,
    PRIMARY KEY (fold, seq)
)
"""

SCHEMA = (
    """
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
    + SIGNATURES
)


def sqlite_uri(path: Path, **params: str) -> str:
    """An SQLite URI naming exactly ``path``: ``#``, ``?``, ``%`` and any byte escaped."""
    quoted = urllib.parse.quote(os.fsencode(os.path.abspath(path)), safe="/")
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quoted}{'?' + query if query else ''}"


def write_error(path: Path, exc: BaseException) -> StoreError:
    """An SQLite or OS error met while writing ``path``, as one line that says what to do."""
    code = getattr(exc, "sqlite_errorcode", None)
    errno = getattr(exc, "errno", 0)
    text = str(exc)
    for codes, words, errnos, said in _WRITE_ERRORS:
        if code == codes or words in text or errno in errnos:
            return StoreError(f"{path}: {said}")
    return StoreError(f"{path}: cannot write ({getattr(exc, 'strerror', None) or text})")


#: the write errors said in words of their own: SQLite's code, its text, the OS's errno
_WRITE_ERRORS = (
    (sqlite3.SQLITE_FULL, "disk is full", (28,), "the disk is full; nothing more was written"),
    (
        sqlite3.SQLITE_READONLY,
        "readonly",
        (1, 13),
        "cannot write here: the file or its folder is read-only",
    ),
)


def side_files(path: Path) -> list[Path]:
    """The files SQLite keeps beside a table while it is open."""
    return [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal")]


def side_file_of(path: Path) -> Path | None:
    """The table whose -wal, -shm or -journal file ``path`` would be, if that file exists."""
    for suffix in ("-wal", "-shm", "-journal"):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            table = path.with_name(path.name[: -len(suffix)])
            if table.is_file():
                return table
    return None


def holds_table(path: Path) -> bool:
    """Whether ``path`` is a margin table file, or the -wal, -shm or -journal file of one.

    The file is read through SQLite (read-only, without its log), never opened by
    hand: SQLite keeps this process's locks on a file while any of its connections
    holds one, so asking costs no lock even of a table this process has open.
    """
    if side_file_of(path) is not None:
        return True
    if not path.is_file() or path.stat().st_size == 0:
        return False
    try:
        db = sqlite3.connect(sqlite_uri(path, mode="ro", immutable="1"), uri=True)
    except sqlite3.Error:
        return False
    try:
        return bool(db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID)
    except sqlite3.Error:
        return False
    finally:
        db.close()


def remove_table(path: Path) -> None:
    for each in (path, *side_files(path)):
        with contextlib.suppress(OSError):
            each.unlink()


def partial_path(target: Path) -> Path:
    """Where a table that will appear at ``target`` is built: beside it, hidden, owned by this process.

    What builders of the same target that died left is removed first.
    """
    clear_partials(target.parent, target.name)
    return target.parent / f".{target.name}.{os.getpid()}.partial"


#: A table being built (or its -wal, -shm, -journal file): ``.NAME.PID.partial``.
_PARTIAL = re.compile(r"\.(.+)\.([0-9]+)\.partial(?:-wal|-shm|-journal)?")
#: A partial table untouched this long, and locked by nobody, was left by a builder that died,
#: even if its process number now belongs to another process.
STALE_PARTIAL = 3600.0


def clear_partials(folder: Path, target: str | None = None) -> list[Path]:
    """Remove what builders that died left in ``folder`` (building ``target`` only, if given):
    partial tables and their side files. The ones removed.

    A builder is dead when no process has its number, or when the files are an
    hour old and nobody holds a lock on them (the number was given to another
    process since). What cannot be removed (a folder this process may not
    write) stays, for its owner's margin to remove.
    """
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for partial in sorted(_builders(folder, names, target)):
        if _abandoned(partial):
            remove_table(partial)
            removed.append(partial)
    return removed


def _builders(folder: Path, names: list[str], target: str | None) -> set[Path]:
    """The partial tables of other processes among the files ``names`` of ``folder``
    (building ``target`` only, if given)."""
    builders = set()
    for name in names:
        found = _PARTIAL.fullmatch(name)
        if found and target in (None, found[1]) and int(found[2]) != os.getpid():
            builders.add(folder / f".{found[1]}.{found[2]}.partial")
    return builders


def _abandoned(partial: Path) -> bool:
    pid = int(partial.name.rsplit(".", 2)[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    files = [f for f in (partial, *side_files(partial)) if f.exists()]
    try:
        idle = all(time.time() - f.stat().st_mtime > STALE_PARTIAL for f in files)
    except OSError:
        return False
    return idle and not any(_locked(f) for f in files)


def _locked(path: Path) -> bool:
    """Whether some process holds a lock on ``path`` (SQLite's locks are POSIX locks).

    Only another process's partial table is asked about: this process has no
    connection to it, so closing the descriptor drops no lock of its own.
    """
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return True
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def place(partial: Path, target: Path) -> None:
    """Make a finished table appear at ``target`` at once (on disk), never over an existing file."""
    _fsync(partial)
    try:
        os.link(partial, target)
    except FileExistsError:
        remove_table(partial)
        raise StoreError(f"{target}: already exists; choose a new path") from None
    except OSError:
        # a file system without hard links: rename, having checked the name is free
        if target.exists():
            remove_table(partial)
            raise StoreError(f"{target}: already exists; choose a new path") from None
        os.rename(partial, target)
    else:
        partial.unlink()
    _fsync(target.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: how long opening a table waits for others opening it at the same moment
OPEN_WAIT = 30.0
#: how long a statement waits for a lock SQLite takes for a moment (a reader's, a checkpoint's)
BUSY_TIMEOUT = 30.0
#: the longest a writer waiting for its turn sleeps between two asks
TURN_POLL = 0.02


def _into_wal(db: sqlite3.Connection) -> None:
    """Put a table in WAL mode, waiting for writers that open it at the same moment.

    A table closed by its last process is in rollback-journal mode; switching
    back needs the file to itself, and SQLite answers "database is locked" at
    once, without its busy timeout, to all but one of several connections
    that try together (waiting could deadlock them). So the others try again.
    """
    deadline = time.monotonic() + OPEN_WAIT
    pause = 0.002
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _check_path(path: Path, create: bool) -> None:
    """Refuse a new table's path that is taken or in no folder, or an old one that holds no table."""
    (_check_new_path if create else _check_old_path)(path)


def _check_new_path(path: Path) -> None:
    if path.exists():
        raise StoreError(f"{path}: already exists; choose a new path for a new table")
    if not path.parent.is_dir():
        raise StoreError(f"{path}: folder {path.parent} does not exist")
    _not_beside_a_table(path, "a new table")


def _check_old_path(path: Path) -> None:
    if not path.exists():
        raise StoreError(f"{path}: no such table file")
    if path.is_dir():
        raise StoreError(f"{path}: is a folder, not a table file")
    _check_header(path)


def _refusal(path: Path, exc: BaseException, create: bool) -> StoreError | None:
    """What SQLite's error opening ``path`` tells the user; None for any other error."""
    if isinstance(exc, sqlite3.OperationalError) and create:
        return write_error(path, exc)
    if isinstance(exc, sqlite3.DatabaseError):
        if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
            return StoreError(f"{path}: not a margin table (not an SQLite file)")
        return StoreError(f"{path}: not a margin table ({exc})")
    return None


def _sound(*columns: object) -> bool:
    """Whether a stored row's columns (seq, v, prev, hash, body, command, key, sig) hold the
    kinds margin writes; a head's key and sig are NULL when it is not signed."""
    seq, v, prev, digest, body, command, key, sig = columns
    texts = (prev, digest, command, key or "", sig or "")
    return (
        type(seq) is int
        and type(v) is int
        and isinstance(body, bytes)
        and all(isinstance(text, str) for text in texts)
    )


@contextmanager
def _immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction of ``db``, taken at once: committed when the block ends, rolled
    back when anything in it fails."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise


def _writable(path: Path) -> bool:
    """Whether this process may write the file at ``path`` and the files beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK | os.X_OK)


class SQLiteStore(Store):
    """A table's log in one SQLite file (WAL while open, synchronous=FULL).

    ``append`` is all-or-nothing for a command's events, and the uniqueness of
    the sequence number is the optimistic concurrency check. With a
    ``signer`` every append also signs the new chain head.

    Every connection that may write the file, readers included, folds the
    write-ahead log back into the table and leaves it in rollback-journal mode
    when it closes, so a table nobody has open is one file, which anyone
    allowed to read it can read, even from a folder they cannot write.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = False,
        readonly: bool = False,
        signer: SigningKey | None = None,
    ):
        self.path = Path(path)
        self.name = str(path)
        self.signer = signer
        self.readonly = readonly
        _check_path(self.path, create)
        # a reader that may write the file opens it read-write, to tidy up when it closes
        self._can_write = create or _writable(self.path)
        if not self._can_write and not readonly:
            raise StoreError(f"{self.path}: cannot write here: the file or its folder is read-only")
        try:
            self._open(create, readonly)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                self._db.close()
            if create:
                remove_table(self.path)
            refusal = _refusal(self.path, exc, create)
            if refusal is None:
                raise
            raise refusal from None

    # -- opening -----------------------------------------------------------

    def _open(self, create: bool, readonly: bool) -> None:
        """Connect to the file (made first when ``create``) and check the table in it."""
        self._db = self._connect()
        if create:
            self._create()
        self._check_table()
        if not readonly:
            _into_wal(self._db)
            self._upgrade()
        elif self._can_write:
            self._db.execute("PRAGMA query_only=ON")
        self._db.execute("PRAGMA synchronous=FULL")
        self._last = self._read_last()
        self._waited = self.data_version()
        #: whether this connection had to wait for its last turn to write
        self._contended = False

    def _connect(self) -> sqlite3.Connection:
        def connect(uri: str) -> sqlite3.Connection:
            return sqlite3.connect(
                uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT, check_same_thread=False
            )

        if self._can_write:
            return connect(sqlite_uri(self.path))
        db = connect(sqlite_uri(self.path, mode="ro"))
        try:
            db.execute("PRAGMA application_id").fetchone()
        except sqlite3.OperationalError:
            # A table left in WAL mode (by an earlier margin) cannot be read
            # from a folder where SQLite may not create its shared-memory
            # file; with no log beside it, the file alone is the whole table.
            db.close()
            if side_files(self.path)[0].exists():
                raise
            db = connect(sqlite_uri(self.path, mode="ro", immutable="1"))
        return db

    def _create(self) -> None:
        db = self._db
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={TABLE_FORMAT}")
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript("BEGIN;" + SCHEMA + "COMMIT;")

    def _check_table(self) -> None:
        app = self._db.execute("PRAGMA application_id").fetchone()[0]
        if app != APPLICATION_ID:
            raise StoreError(f"{self.path}: an SQLite file, but not a margin table")
        self.format = self._db.execute("PRAGMA user_version").fetchone()[0]
        if self.format > TABLE_FORMAT and not self.readonly:
            raise StoreError(
                f"{self.path}: written by a newer margin (format {self.format}, this one writes "
                f"{TABLE_FORMAT}); it can be read but not written: upgrade margin"
            )
        self._has_signatures = bool(
            self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='signatures'"
            ).fetchone()
        )

    def _upgrade(self) -> None:
        """Bring a file written by an earlier margin to this format, one step at a time."""
        if self.format >= TABLE_FORMAT:
            return
        with _immediate(self._db) as db:
            for step in range(self.format, TABLE_FORMAT):
                for statement in TABLE_UPGRADES[step].split(";\n"):
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA user_version={TABLE_FORMAT}")
        self.format = TABLE_FORMAT
        self._has_signatures = True

    def _read_last(self) -> tuple[int, str]:
        row = self._db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else (0, "")

    def close(self) -> None:
        """Close, leaving the table as one file if no other process has it open."""
        db = self._db
        if self._can_write:
            # Fails at once while another connection has the table open; that one tidies up.
            with contextlib.suppress(sqlite3.Error):
                db.execute("PRAGMA busy_timeout=0")
                db.execute("PRAGMA query_only=OFF")
                db.execute("PRAGMA journal_mode=DELETE")
        db.close()

    @classmethod
    @contextmanager
    def build(
        cls, target: str | os.PathLike[str], signer: SigningKey | None = None
    ) -> Iterator[Store]:
        """A new table file built beside ``target`` and moved there when the block succeeds."""
        path = Path(target)
        partial = _build_beside(path, "a new table")
        try:
            store = cls(partial, create=True, signer=signer)
            store.name = str(path)
            try:
                yield store
            finally:
                store.close()
            place(partial, path)
        except BaseException as exc:
            remove_table(partial)
            if isinstance(exc, OSError):
                raise write_error(path, exc) from None
            if isinstance(exc, StoreError):
                # the user knows the table by the name they gave, not the hidden one it was built under
                raise StoreError(str(exc).replace(str(partial), str(path))) from None
            raise

    def _write_decided(
        self, decide: Callable[[], Appending | None], deadline: float
    ) -> list[Record]:
        db = self._db
        self._take_turn(deadline)
        try:
            appending = decide()
            if appending is None:
                db.execute("ROLLBACK")
                return []
            records, rows = appending.after(*self._read_last())
            db.executemany(
                "INSERT INTO records(seq, command, v, prev, hash, body) VALUES (?,?,?,?,?,?)", rows
            )
            signature = self._signature(rows)
            if signature is not None:
                db.execute("INSERT INTO signatures(seq, key, sig) VALUES (?,?,?)", signature)
            db.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if db.in_transaction:
                    db.execute("ROLLBACK")
                self._last = self._read_last()
            if isinstance(exc, sqlite3.Error):
                raise write_error(self.path, exc) from None
            raise
        self._last = (rows[-1][0], rows[-1][4])
        return records

    def _take_turn(self, deadline: float) -> None:
        """Begin this connection's write transaction once no other writer holds the table.

        SQLite's own wait (its busy timeout) asks less and less often the longer a
        writer has waited, so one with many commands queued would take the table
        again and again while the others sleep. Here every waiting writer asks at
        short random intervals, and one that had to wait for its last turn lets
        the others ask first before it takes its next.
        """
        db = self._db
        if self._contended:
            time.sleep(random.uniform(0, TURN_POLL))
        self._contended = False
        db.execute("PRAGMA busy_timeout=0")
        try:
            while True:
                try:
                    db.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY:
                        raise write_error(self.path, exc) from None
                if time.monotonic() >= deadline:
                    raise TableBusy(self.name)
                self._contended = True
                time.sleep(random.uniform(0, TURN_POLL))
        finally:
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")

    def import_rows(self, rows: Iterable[Row], batch: int = 20000) -> int:
        """Bulk-append rows (seq, command, v, prev, hash, body), checking the chain as it goes.

        Many rows go into one transaction. Into an empty table (a new file that
        is deleted if the import fails) the rows are written without a journal
        or a sync per transaction and put back in WAL mode; ``build`` syncs the
        file once every connection to it is closed, before the table appears.
        """
        db = self._db
        count = 0
        last_seq, prev = self._read_last()
        pending: list[Row] = []
        bulk = last_seq == 0
        if bulk:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")

        def flush() -> None:
            with _immediate(db):
                db.executemany(
                    "INSERT INTO records(seq, command, v, prev, hash, body) VALUES (?,?,?,?,?,?)",
                    pending,
                )
            pending.clear()

        try:
            for row in chained(rows, last_seq, prev):
                pending.append(row)
                last_seq, prev = row[0], row[4]
                count += 1
                if len(pending) >= batch:
                    flush()
            if pending:
                flush()
            if bulk:
                db.execute("PRAGMA synchronous=FULL")
                db.execute("PRAGMA journal_mode=WAL")
        except (sqlite3.Error, OSError) as exc:
            raise write_error(self.path, exc) from None
        self._last = (last_seq, prev)
        return count

    def import_signatures(self, signatures: Iterable[tuple[int, str, str]]) -> None:
        """Store signatures (seq, key, sig) read with the records they sign."""
        try:
            with _immediate(self._db) as db:
                db.executemany("INSERT INTO signatures(seq, key, sig) VALUES (?,?,?)", signatures)
        except sqlite3.Error as exc:
            raise write_error(self.path, exc) from None

    def backup(self, dest: str | os.PathLike[str]) -> int:
        """Copy the table as it is at one moment into a new one-file table at ``dest``.

        SQLite's backup reads every page inside one read transaction, so the
        copy is consistent even while another process appends. The copy is
        built beside ``dest``, checked, and appears there only when complete;
        returns the number of records it holds. A ``postgresql://`` ``dest``
        gets the records, read inside one transaction, in one transaction.
        """
        if is_url(str(dest)):
            return super().backup(str(dest))
        target = Path(dest)
        partial = _build_beside(target, "the copy")
        try:
            copy = sqlite3.connect(sqlite_uri(partial), uri=True, isolation_level=None)
            try:
                self._db.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
            with SQLiteStore(partial, readonly=True) as made:
                verdict = made.check()
            if verdict.bad is not None:
                raise StoreError(
                    f"{self.path}: record {verdict.bad} {verdict.reason}; not copied "
                    f"(margin verify {self.path} says more)"
                )
            place(partial, target)
        except BaseException as exc:
            remove_table(partial)
            if isinstance(exc, sqlite3.Error | OSError):
                raise write_error(target, exc) from None
            raise
        return verdict.records

    # -- reading -----------------------------------------------------------

    def _read(self, sql: str, after: int, upto: int | None) -> Iterator[tuple[object, ...]]:
        """Rows of ``sql`` (``seq > ?`` already in it) in order, an engine failure as ``ReadError``."""
        for batch in self._batches(sql, after, upto):
            yield from batch

    def _batches(
        self, sql: str, after: int, upto: int | None
    ) -> Iterator[list[tuple[object, ...]]]:
        """``_read``'s rows, ``DECODE_BATCH`` at a time."""
        args: tuple[int, ...] = (after,)
        if upto is not None:
            sql += " AND r.seq <= ?"
            args = (after, upto)
        try:
            cursor = self._db.execute(sql + " ORDER BY r.seq", args)
            cursor.arraysize = DECODE_BATCH
            while batch := cursor.fetchmany():
                yield batch
        except sqlite3.DatabaseError as exc:
            raise ReadError(self.name, str(exc)) from None

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        """Stored rows with their heads' signatures, as ``margin export`` writes them."""
        if self._has_signatures:
            sql = (
                "SELECT r.seq, r.v, r.prev, r.hash, r.body, r.command, s.key, s.sig "
                "FROM records r LEFT JOIN signatures s ON s.seq = r.seq WHERE r.seq > ?"
            )
        else:
            sql = "SELECT seq, v, prev, hash, body, command, '', '' FROM records r WHERE seq > ?"
        for seq, v, prev, digest, body, command, key, sig in self._read(sql, after, upto):
            # a body tampered with outside margin may come back as TEXT
            if isinstance(body, str):
                body = body.encode("utf-8", "surrogateescape")
            if not _sound(seq, v, prev, digest, body, command, key, sig):
                raise self._damaged(seq, "a column holds the wrong kind of value")
            yield StoredRow(seq, v, prev, digest, body, command, key or "", sig or "")  # type: ignore[arg-type]

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        """Decoded records after ``after`` (exclusive) up to ``upto`` (inclusive).

        Every rebuild runs through here: the rows of this margin's format are decoded a
        batch at a time, without their numbers (a record holds its own); from a batch with
        any other row (an older format, a damaged row) on, rows are read the long way."""
        done = 0
        for batch in self._batches("SELECT v, body FROM records r WHERE seq > ?", after, upto):
            decoded = decode_batch(batch)
            if decoded is None:
                yield from self._records_the_long_way(after, upto, done)
                return
            done += len(decoded)
            yield from decoded

    def _records_the_long_way(self, after: int, upto: int | None, skip: int) -> Iterator[Record]:
        """``records`` from its ``skip``-th row on, each row decoded (or reported) alone."""
        sql = "SELECT seq, v, body FROM records r WHERE seq > ?"
        for seq, v, body in itertools.islice(self._read(sql, after, upto), skip, None):
            yield self._read_the_long_way(seq, v, body)

    def _read_the_long_way(self, seq: object, v: object, body: object) -> Record:
        """A row of an older format (or a damaged one) decoded, or reported as damaged."""
        if type(v) is not int or not isinstance(body, bytes | str):
            raise self._damaged(seq, "a column holds the wrong kind of value")
        return self._decode(seq, v, body)

    def data_version(self) -> int:
        try:
            return int(self._db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise ReadError(self.name, str(exc)) from None

    def wait(self, timeout: float, interval: float = 0.01) -> bool:
        """SQLite cannot tell a connection that another committed: ask ``data_version`` until it moves."""
        deadline = time.monotonic() + timeout
        while True:
            version = self.data_version()
            if version != self._waited:
                self._waited = version
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(interval, left))

    def refresh(self) -> int:
        """Re-read the last sequence number (after another process wrote)."""
        try:
            self._last = self._read_last()
        except sqlite3.DatabaseError as exc:
            raise ReadError(self.name, str(exc)) from None
        return self._last[0]

    # -- snapshots -----------------------------------------------------------

    def _has_snapshots(self) -> bool:
        return bool(
            self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='snapshots'"
            ).fetchone()
        )

    def _snapshots(self, fold: str, upto: int | None) -> Iterator[Snapshot]:
        try:
            if not self._has_snapshots():
                return
            found = self._db.execute(
                "SELECT seq, hash FROM snapshots WHERE fold = ? AND seq <= ? "
                "ORDER BY seq DESC LIMIT ?",
                (fold, upto if upto is not None else self.last_seq, SNAPSHOTS_LOOKED_AT),
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise ReadError(self.name, str(exc)) from None
        # a body (tens of megabytes on a long table) is read only when it is next to be tried
        for seq, digest in found:
            if type(seq) is not int or not isinstance(digest, str):
                continue
            body = self._snapshot_body(fold, seq, digest)
            if body is not None:
                yield Snapshot(seq, digest, fold, body)

    def _snapshot_body(self, fold: str, seq: int, digest: str) -> bytes | mmap.mmap | None:
        """The body of a kept snapshot, read straight into one bytes object (a row's value
        would be copied twice), or a long one as a mapped copy of it (``events.mapped``);
        None when it is no blob."""
        try:
            row = self._db.execute(
                "SELECT rowid, typeof(body) FROM snapshots WHERE fold = ? AND seq = ?",
                (fold, seq),
            ).fetchone()
            if row is None or row[1] != "blob":
                return None
            with self._db.blobopen("snapshots", "body", row[0], readonly=True) as blob:
                folder = self.snapshot_files
                if folder is None or not mapped.wanted(len(blob)):
                    return blob.read()
                path = folder / mapped.file_name(fold, seq, digest)
                existed = path.exists()
                body = mapped.mapped(blob, path)
                if body is None:
                    blob.seek(0)
                    return blob.read()
            if not existed:
                self._prune_snapshot_files(folder)
            return body
        except sqlite3.DatabaseError as exc:
            raise ReadError(self.name, str(exc)) from None

    def _prune_snapshot_files(self, folder: Path) -> None:
        """Let go of the mapped copies of snapshots this table no longer keeps."""
        rows = self._db.execute("SELECT fold, seq, hash FROM snapshots").fetchall()
        keep = {
            mapped.file_name(fold, seq, digest)
            for fold, seq, digest in rows
            if isinstance(fold, str) and type(seq) is int and isinstance(digest, str)
        }
        mapped.prune(folder, keep)

    def _keep_snapshots(self, snaps: Sequence[Snapshot], keep: int) -> bool:
        if not self._can_write or self.format > TABLE_FORMAT:
            return False
        fold = snaps[0].fold

        def write(db: sqlite3.Connection) -> None:
            db.execute(SNAPSHOTS)
            db.executemany(
                "INSERT OR REPLACE INTO snapshots(fold, seq, hash, body) VALUES (?,?,?,?)",
                [(s.fold, s.seq, s.hash, s.body) for s in snaps],
            )
            if keep:
                db.execute(
                    "DELETE FROM snapshots WHERE fold = ? AND seq NOT IN "
                    "(SELECT seq FROM snapshots WHERE fold = ? ORDER BY seq DESC LIMIT ?)",
                    (fold, fold, keep),
                )

        return self._in_cache_transaction(write)

    def drop_snapshots(self) -> int:
        if not self._has_snapshots():
            return 0
        (count,) = self._db.execute("SELECT count(*) FROM snapshots").fetchone()
        if not self._in_cache_transaction(lambda db: db.execute("DELETE FROM snapshots")):
            raise StoreError(f"{self.path}: the snapshots could not be removed (busy or read-only)")
        return int(count)

    def _in_cache_transaction(self, write: Callable[[sqlite3.Connection], object]) -> bool:
        """Run ``write`` in a short transaction of its own, waiting ``SNAPSHOT_WAIT_MS`` at most
        for the table's write lock (a reader's connection is let write for it); whether it
        was committed. A writer's command never waits behind a snapshot for long, and a
        snapshot that meets a busy table is simply not kept."""
        db = self._db
        try:
            db.execute(f"PRAGMA busy_timeout={SNAPSHOT_WAIT_MS}")
            # a cache need not reach the disk before it is let go (the next commit of a
            # record syncs what came before it)
            db.execute("PRAGMA synchronous=NORMAL")
            if self.readonly:
                db.execute("PRAGMA query_only=OFF")
            try:
                with _immediate(db):
                    write(db)
            finally:
                if self.readonly:
                    db.execute("PRAGMA query_only=ON")
                db.execute("PRAGMA synchronous=FULL")
                db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT * 1000)}")
        except sqlite3.Error:
            return False
        return True

    def location(self) -> str:
        """Which files the records were read from: the table file, and its -wal file if there is one."""
        name = self.path.name
        where = f"from {name}"
        in_file = self.in_main_file()
        if in_file is not None:
            counts = ("", "") if in_file < 0 else (f" ({in_file})", f"{self.last_seq - in_file}: ")
            where += (
                f"{counts[0]} and {name}-wal ({counts[1]}the table is open in another margin, "
                "or one could not fold it back (killed, or the disk is full); margin backup makes a one-file copy)"
            )
        return where

    def in_main_file(self) -> int | None:
        """How many records the table file itself holds while some are still in its -wal file
        (another process has it open, or one was killed): None when there is no -wal file,
        -1 when the table file cannot be read without it."""
        if not side_files(self.path)[0].exists():
            return None
        try:
            db = sqlite3.connect(sqlite_uri(self.path, mode="ro", immutable="1"), uri=True)
            try:
                return int(db.execute("SELECT count(*) FROM records").fetchone()[0])
            finally:
                db.close()
        except sqlite3.Error:
            return -1


def _build_beside(target: Path, what: str) -> Path:
    """Where a new table file for ``target`` is built, once ``target`` is known to be free."""
    if target.exists():
        raise StoreError(f"{target}: already exists; choose a new path for {what}")
    if not target.parent.is_dir():
        raise StoreError(f"{target}: folder {target.parent} does not exist")
    _not_beside_a_table(target, what)
    return partial_path(target)


def _not_beside_a_table(target: Path, what: str) -> None:
    """Refuse to build at the name of a table's -wal, -shm or -journal file: SQLite would
    take the new file for that table's log. Refuse too where such files of a table
    removed without them are left: SQLite would read that table's log into the new one."""
    table = side_file_of(target)
    if table is not None:
        raise StoreError(
            f"{target}: the name of {table.name}'s own {target.name[len(table.name) :]} file; "
            f"choose another path for {what}"
        )
    left = [side.name for side in side_files(target) if side.exists()]
    if left:
        raise StoreError(
            f"{target}: {' and '.join(left)} {'is' if len(left) == 1 else 'are'} left from a "
            "table once at this path, removed without them (SQLite would read them into "
            f"the new table); once no margin has that table open, remove them, or choose "
            f"another path for {what}"
        )


def _check_header(path: Path) -> None:
    """Refuse an empty file before SQLite opens it (SQLite would take it for a new database).

    The file itself is never opened here: closing any descriptor of a file
    drops every POSIX lock this process holds on it, its SQLite connections'
    locks included, and another process would then fold the write-ahead log
    away under them. What is not an SQLite file, or not a margin table, SQLite
    says when it reads the header (``_check_table``).
    """
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror})") from None
    if size == 0:
        raise StoreError(f"{path}: empty file, not a margin table")
