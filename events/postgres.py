"""Tables in PostgreSQL: many tables in one database, served by margins on many machines.

A table is named by a URL, ``postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DBNAME?table=NAME``
(other query parameters go to libpq as they are: ``sslmode``, ``host`` for a
socket folder, ...). Passwords belong in ``PGPASSWORD`` or a pgpass file; one
given in the URL is used to connect and never shown or stored.

The schema ``margin`` holds every table of the database: ``tables`` (one row
a table), ``records`` and ``signatures``, both keyed by (table, seq) and
partitioned by hash of the table's name, so each table's rows sit in one
partition. The unique key on (table, seq) is the concurrency check, as the
SQLite primary key is. Records and signatures cannot be changed: the schema's
owner gives up ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on them, and a trigger
refuses those to anyone left (a superuser). Nor can another role add to a
table that exists but through ``margin.append``, which takes one command's
records only as the continuation of the table's chain, with the signature of
its last record (``_guard_statements``). Every append, once committed,
sends ``NOTIFY "margin:NAME"``, which wakes the table's followers.

A store reconnects when its connection is lost. A reader resumes after the
last record it returned; a follower's next look re-listens and reads what it
missed. A writer whose connection dropped mid-command makes sure its old
session is gone, then looks for its command by id: found, the command is in
the log (once); not found, nothing of it was written, and the command is
decided and sent again (``append_decided``) or refused once (``append``:
``ConnectionLost``).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qsl, quote, unquote, urlencode, urlsplit

import psycopg
from psycopg import sql

from .record import DECODE_BATCH, Record, decode_batch
from .signing import SigningKey
from .store import (
    SNAPSHOT_WAIT_MS,
    SNAPSHOTS_LOOKED_AT,
    Appending,
    ConcurrencyError,
    ConnectionLost,
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

#: Format of a table's rows, as ``TABLE_FORMAT`` of a table file (2: signatures).
TABLE_FORMAT = 2
#: Partitions of ``records`` and ``signatures``; a table's rows are all in one.
PARTITIONS = 16
#: Records read per query: a long table is read in pages of sequence numbers.
PAGE = 10_000
#: How long a store keeps trying to reach a server it lost.
RECONNECT_SECONDS = 10.0

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,49}")


@dataclass(frozen=True)
class TableURL:
    """A parsed table URL: how to connect, which table, and how to name it to people."""

    conninfo: str
    table: str
    display: str
    password: str | None


def parse_url(url: str) -> TableURL:
    """Check a table URL; a bad one is a ``StoreError`` naming what is wrong."""
    parts, port = _split(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    tables = [v for k, v in query if k == "table"]
    rest = [(k, v) for k, v in query if k != "table"]
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    dbname = parts.path.lstrip("/")
    base = f"postgresql://{_netloc(user, parts.hostname, port)}/{dbname}"
    display = _with_query(base, [*rest, *(("table", t) for t in tables)])
    _check_names(display, tables, dbname)
    return TableURL(_with_query(base, rest), tables[0], display, password)


def _with_query(base: str, pairs: list[tuple[str, str]]) -> str:
    """A URL with the query of ``pairs``, or with none when there are none."""
    query = urlencode(pairs)
    return f"{base}?{query}" if query else base


def _split(url: str) -> tuple[SplitResult, int | None]:
    """A table URL's parts and port; a ``StoreError`` when it is no PostgreSQL URL."""
    try:
        url.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError(
            f"{_shown(url)}: not UTF-8 text (write other bytes in a URL as %XX)"
        ) from None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        # urllib's own words may quote a piece of a password that holds a raw / or @
        raise StoreError(
            f"{_shown(url)}: not a PostgreSQL table URL (a port is a number; a / ? # or @ in"
            " a user name or password is written %2F %3F %23 %40)"
        ) from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise StoreError(f"{_shown(url)}: not a postgresql:// URL")
    if "@" in parts.path:  # user:pass/word@host: the password's / ended the host part
        raise StoreError(
            f"{_shown(url)}: not a PostgreSQL table URL (a / in a password is written %2F)"
        )
    return parts, port


def _netloc(user: str | None, host: str | None, port: int | None) -> str:
    """The user, host and port of a URL written again, an IPv6 host in brackets."""
    who = quote(user, safe="") + "@" if user else ""
    place = f"[{host}]" if host and ":" in host else host or ""
    return who + place + (f":{port}" if port is not None else "")


def _check_names(display: str, tables: list[str], dbname: str) -> None:
    """Refuse a URL that names no table or several, a table margin cannot name, or no database."""
    if len(tables) != 1:
        raise StoreError(
            f"{display}: name one table with ?table=NAME "
            "(postgresql://[USER@]HOST[:PORT]/DBNAME?table=NAME)"
        )
    if not _NAME.fullmatch(tables[0]):
        raise StoreError(
            f"{display}: table {tables[0]!r} is not a table name "
            "(1-50 letters, digits, _ . -, not starting with . or -)"
        )
    if not dbname:
        raise StoreError(f"{display}: name the database (postgresql://HOST/DBNAME?table=NAME)")


def url_password(url: str) -> str | None:
    """The password written into a table URL, if one is."""
    return parse_url(url).password


def _shown(url: str) -> str:
    """A URL that did not parse, shown without anything that may be a password: all from the
    first ``:`` after the user name to the last ``@`` (a raw password may hold ``/`` or ``@``)."""
    scheme, sep, rest = url.partition("//")
    userinfo, at, place = rest.rpartition("@")
    if not at or ":" not in userinfo:
        return url
    return f"{scheme}{sep}{userinfo.partition(':')[0]}:***@{place}"


def exists(url: str) -> bool:
    """Whether the table named by ``url`` is in its database."""
    target = parse_url(url)
    conn = _connect(target)
    try:
        if not _has_schema(conn):
            return False
        return (
            conn.execute("SELECT 1 FROM margin.tables WHERE name = %s", (target.table,)).fetchone()
            is not None
        )
    except psycopg.Error as exc:
        raise _error(target, exc) from None
    finally:
        conn.close()


#: what margin connects with unless a table URL says otherwise. A server or a link that
#: goes silent is given up on within about half a minute, not the system's quarter of an
#: hour: TCP keepalives while margin waits for an answer, and ``tcp_user_timeout`` while
#: what it sent is not acknowledged; the command waiting is then answered as on any lost
#: connection (written once, or refused), and the next connects again.
_CONNECT_DEFAULTS: dict[str, Any] = {
    "application_name": "margin",
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}


def _connect(target: TableURL) -> psycopg.Connection[Any]:
    extra: dict[str, Any] = {"autocommit": True}
    given = {key for key, _ in parse_qsl(urlsplit(target.conninfo).query)}
    extra |= {k: v for k, v in _CONNECT_DEFAULTS.items() if k not in given}
    if target.password is not None:
        extra["password"] = target.password
    try:
        return psycopg.connect(target.conninfo, **extra)
    except psycopg.Error as exc:
        raise StoreError(
            f"{target.display}: cannot reach the database ({_first_line(exc)})"
        ) from None


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return re.sub(r"^connection (failed|is bad): ", "", text)


def _error(target: TableURL, exc: psycopg.Error) -> StoreError:
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return StoreError(f"{target.display}: not allowed ({_first_line(exc)})")
    if isinstance(exc, psycopg.errors.DiskFull):
        return StoreError(
            f"{target.display}: the database's disk is full; nothing more was written"
        )
    return StoreError(f"{target.display}: the database refused ({_first_line(exc)})")


#: Snapshots of folds (``Store.keep_snapshot``): a cache beside the log, its rows free to
#: come and go, made when the first is kept.
_SNAPSHOTS = """CREATE TABLE IF NOT EXISTS margin.snapshots (
    tbl     text    NOT NULL,
    fold    text    NOT NULL,
    seq     bigint  NOT NULL,
    hash    text    NOT NULL,
    body    bytea   NOT NULL,
    PRIMARY KEY (tbl, fold, seq)
)"""

#: The last record of a table: its sequence number and hash.
_LAST = "SELECT seq, hash FROM margin.records WHERE tbl = %s ORDER BY seq DESC LIMIT 1"


def _last(rows: list[tuple[Any, ...]]) -> tuple[int, str]:
    return (int(rows[0][0]), str(rows[0][1])) if rows else (0, "")


def _has_schema(conn: psycopg.Connection[Any]) -> bool:
    return conn.execute("SELECT to_regclass('margin.tables')").fetchone()[0] is not None  # type: ignore[index]


def _schema_statements() -> list[str]:
    """The schema, made by the first margin that finds none (as its connecting role)."""
    parts = [
        "CREATE SCHEMA IF NOT EXISTS margin",
        """CREATE TABLE margin.tables (
            name    text PRIMARY KEY,
            format  integer NOT NULL,
            created timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE margin.records (
            tbl     text    NOT NULL,
            seq     bigint  NOT NULL,
            command text    NOT NULL,
            v       integer NOT NULL,
            prev    text    NOT NULL,
            hash    text    NOT NULL,
            body    bytea   NOT NULL,
            PRIMARY KEY (tbl, seq)
        ) PARTITION BY HASH (tbl)""",
        """CREATE TABLE margin.signatures (
            tbl     text   NOT NULL,
            seq     bigint NOT NULL,
            key     text   NOT NULL,
            sig     text   NOT NULL,
            PRIMARY KEY (tbl, seq)
        ) PARTITION BY HASH (tbl)""",
        """CREATE FUNCTION margin.append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'margin % are append-only', TG_TABLE_NAME; END $$""",
    ]
    for table in ("records", "signatures"):
        for i in range(PARTITIONS):
            parts.append(
                f"CREATE TABLE margin.{table}_{i} PARTITION OF margin.{table} "
                f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {i})"
            )
        parts.append(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON margin.{table} "
            "FOR EACH ROW EXECUTE FUNCTION margin.append_only()"
        )
        names = ", ".join([f"margin.{table}", *(f"margin.{table}_{i}" for i in range(PARTITIONS))])
        parts.append(f"REVOKE UPDATE, DELETE, TRUNCATE ON {names} FROM PUBLIC, CURRENT_USER")
    parts.append("REVOKE UPDATE, DELETE, TRUNCATE ON margin.tables FROM PUBLIC, CURRENT_USER")
    return parts


#: Whether a role other than the schema's owner may add these rows: only to a table
#: made in its own transaction (a new table being built: ``new``, ``import``, ``branch``).
_BUILDING = """CREATE FUNCTION margin.building(target text) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM margin.tables WHERE name = target AND txn = txid_current())
$$"""

#: The one way for a role other than the owner to add to a table that exists: one
#: command's records, each the continuation of the chain, and the signature of the
#: last. It runs as the schema's owner and serves roles that may insert records.
_APPEND = """CREATE FUNCTION margin.append(
    target text, seqs bigint[], commands text[], vs integer[], prevs text[], hashes text[],
    bodies bytea[], signer text, signature text
) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    last_seq bigint := 0;
    last_hash text := '';
BEGIN
    IF NOT has_table_privilege(session_user, 'margin.records', 'INSERT') THEN
        RAISE EXCEPTION 'margin: % may not add records', session_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM margin.tables t WHERE t.name = target) THEN
        RAISE EXCEPTION 'margin: no table %', target;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext(target));
    SELECT r.seq, r.hash INTO last_seq, last_hash FROM margin.records r
        WHERE r.tbl = target ORDER BY r.seq DESC LIMIT 1;
    IF NOT FOUND THEN
        last_seq := 0;
        last_hash := '';
    END IF;
    IF coalesce(cardinality(seqs), 0) = 0 THEN
        RAISE EXCEPTION 'margin: no records to add';
    END IF;
    FOR i IN 1 .. cardinality(seqs) LOOP
        IF seqs[i] IS DISTINCT FROM last_seq + 1 OR prevs[i] IS DISTINCT FROM last_hash
           OR hashes[i] IS DISTINCT FROM
              encode(sha256(convert_to(last_hash || E'\\n', 'UTF8') || bodies[i]), 'hex') THEN
            RAISE EXCEPTION 'margin: record % of table % is not the continuation of its chain',
                seqs[i], target;
        END IF;
        last_seq := seqs[i];
        last_hash := hashes[i];
    END LOOP;
    INSERT INTO margin.records (tbl, seq, command, v, prev, hash, body)
        SELECT target, r.* FROM unnest(seqs, commands, vs, prevs, hashes, bodies) AS r;
    IF signer IS NOT NULL OR signature IS NOT NULL THEN
        INSERT INTO margin.signatures (tbl, seq, key, sig) VALUES (target, last_seq, signer, signature);
    END IF;
END $$"""


def _guard_statements(conn: psycopg.Connection[Any]) -> list[str]:
    """What keeps roles other than the owner from adding rows to a table that exists.

    Row-level security lets them insert records and signatures only into a
    table made in their own transaction; appends to any other go through
    ``margin.append`` (the owner's rights, the chain checked). Made with the
    schema, and added to a schema an earlier margin made by the first margin
    that opens a table for writing as the schema's owner.
    """
    parts = [
        "ALTER TABLE margin.tables ADD COLUMN IF NOT EXISTS txn bigint",
        "ALTER TABLE margin.tables ALTER COLUMN txn SET DEFAULT txid_current()",
        _BUILDING,
        _APPEND,
    ]
    for table in ("records", "signatures"):
        # every partition too, however the schema was partitioned: one can be written directly
        tree = conn.execute(
            "SELECT relid::regclass::text FROM pg_partition_tree(%s::regclass)",
            (f"margin.{table}",),
        ).fetchall()
        for (name,) in tree:
            parts += [
                f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
                f"CREATE POLICY readers ON {name} FOR SELECT USING (true)",
                f"CREATE POLICY builders ON {name} FOR INSERT WITH CHECK (margin.building(tbl))",
            ]
    return parts


def _guarded(conn: psycopg.Connection[Any]) -> bool:
    return conn.execute("SELECT to_regproc('margin.append') IS NOT NULL").fetchone()[0]  # type: ignore[index,no-any-return]


def _ensure_schema(conn: psycopg.Connection[Any]) -> None:
    if _has_schema(conn):
        return
    with conn.transaction():
        # two margins making the first table of a database at once: one makes the schema
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('margin schema'))")
        if _has_schema(conn):
            return
        for statement in _schema_statements():
            conn.execute(statement)
        for statement in _guard_statements(conn):
            conn.execute(statement)


def _guard(conn: psycopg.Connection[Any]) -> bool:
    """Whether appends go through ``margin.append``: guard a schema an earlier margin made,
    if this role may (it owns the schema's tables); if it may not, it writes as that margin did."""
    if _guarded(conn):
        return True
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('margin schema'))")
            if _guarded(conn):
                return True
            for statement in _guard_statements(conn):
                conn.execute(statement)
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


class PostgresStore(Store):
    """One table of a PostgreSQL database, through one connection."""

    def __init__(
        self,
        url: str,
        *,
        create: bool = False,
        readonly: bool = False,
        signer: SigningKey | None = None,
        _building: bool = False,
    ) -> None:
        self.target = parse_url(url)
        self.name = self.target.display
        self.table = self.target.table
        self.readonly = readonly
        self.signer = signer
        self._building = _building
        self._channel = sql.Identifier(f"margin:{self.table}")
        self._version = 0
        self._guarded = False
        self._conn = _connect(self.target)
        try:
            if create or _building:
                self._create()
                self._listen()
                self._last = self._read_last()
            else:
                self._open()
        except BaseException as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            if isinstance(exc, psycopg.Error):
                raise _error(self.target, exc) from None
            raise

    # -- opening -----------------------------------------------------------

    def _create(self) -> None:
        if self.readonly:
            raise StoreError(f"{self.name}: cannot create a table read-only")
        conn = self._conn
        _ensure_schema(conn)
        self._guarded = _guard(conn)
        if self._building:
            # the whole build is one transaction: nobody sees the table until it commits
            conn.execute("BEGIN")
        try:
            conn.execute(
                "INSERT INTO margin.tables (name, format) VALUES (%s, %s)",
                (self.table, TABLE_FORMAT),
            )
        except psycopg.errors.UniqueViolation:
            raise StoreError(
                f"{self.name}: already exists; choose a new table name for a new table"
            ) from None

    def _open(self) -> None:
        """Check the table and follow it; a connection lost meanwhile is made again."""
        while True:
            try:
                self._check_table()
                if not self.readonly:
                    self._guarded = _guard(self._conn)
                self._listen()
                self._last = self._read_last()
                return
            except psycopg.Error as exc:
                if not self._lost(exc):
                    raise
                self._reconnect()

    def _check_table(self) -> None:
        conn = self._conn
        row = None
        if _has_schema(conn):
            row = conn.execute(
                "SELECT format FROM margin.tables WHERE name = %s", (self.table,)
            ).fetchone()
        if row is None:
            raise StoreError(f"{self.name}: no such table in the database")
        if row[0] > TABLE_FORMAT and not self.readonly:
            raise StoreError(
                f"{self.name}: written by a newer margin (format {row[0]}, this one writes "
                f"{TABLE_FORMAT}); it can be read but not written: upgrade margin"
            )

    def _listen(self) -> None:
        if not self._building:
            self._conn.execute(sql.SQL("LISTEN {}").format(self._channel))

    def _reconnect(self) -> None:
        """A new connection after the old one was lost; tries for ``RECONNECT_SECONDS``."""
        with contextlib.suppress(Exception):
            self._conn.close()
        deadline = time.monotonic() + RECONNECT_SECONDS
        while True:
            try:
                self._conn = _connect(self.target)
                self._listen()
                break
            except (StoreError, psycopg.OperationalError):
                if time.monotonic() > deadline:
                    raise ReadError(self.name, "the connection to the database was lost") from None
                time.sleep(0.2)
        # whatever was committed while the connection was down is news to a follower
        self._version += 1

    def _lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` means the connection is gone (rather than a refused statement): the
        server ended the session, or no answer came from it at all (an error without SQLSTATE,
        such as a pipeline cut off mid-way)."""
        return isinstance(exc, psycopg.errors.AdminShutdown | psycopg.errors.ConnectionFailure) or (
            isinstance(exc, psycopg.OperationalError)
            and (self._conn.closed or exc.sqlstate is None)
        )

    @classmethod
    @contextmanager
    def build(cls, url: str, signer: SigningKey | None = None) -> Iterator[Store]:
        """A new table written in one transaction, committed when the block succeeds."""
        store = cls(url, signer=signer, _building=True)
        try:
            yield store
            try:
                store._conn.execute("COMMIT")
            except psycopg.Error as exc:
                raise _error(store.target, exc) from None
        except BaseException:
            with contextlib.suppress(Exception):
                store._conn.execute("ROLLBACK")
            raise
        finally:
            store.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._conn.close()

    def _read_last(self) -> tuple[int, str]:
        """The last record, read on this connection as it is (inside a turn, on its lock)."""
        return _last(self._conn.execute(_LAST, (self.table,)).fetchall())

    def _write_decided(
        self, decide: Callable[[], Appending | None], deadline: float
    ) -> list[Record]:
        if not self._building:
            self._awake()
        conn = self._conn
        pid = conn.info.backend_pid
        appending: Appending | None = None
        sent = False
        try:
            with conn.transaction():
                # writers of one table take turns, as SQLite's BEGIN IMMEDIATE makes them, in
                # the order they came (the server queues them); the unique key stays the check
                wait = max(1, int((deadline - time.monotonic()) * 1000))
                conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtext(%s)) "
                    "FROM (SELECT set_config('lock_timeout', %s, true)) AS waiting",
                    (self.table, f"{wait}ms"),
                )
                appending = decide()
                if appending is None:
                    return []
                if self._conn is not conn:
                    # deciding read the table through a new connection: the turn was lost with
                    # the old one, and nothing of the command was sent
                    raise ConnectionLost(f"{self.name}: the connection was lost; run it again")
                records, rows = appending.after(*self._read_last())
                sent = True
                self._insert(rows)
        except psycopg.errors.LockNotAvailable:
            raise TableBusy(self.name) from None
        except psycopg.errors.UniqueViolation:
            # another writer took the same sequence number first: the key is the check
            actual = self.refresh()
            expected = appending.expected_seq if appending is not None else actual
            raise ConcurrencyError(expected, actual) from None
        except psycopg.Error as exc:
            return self._failed_write(exc, conn, pid, appending if sent else None)
        self._last = (rows[-1][0], rows[-1][4])
        self._notify()
        return records

    def _awake(self) -> None:
        """Find (and make again) a connection the server ended while idle, before any of a
        command is sent, rather than refusing the command."""
        self._notified(0)
        if self._conn.closed:
            self._reconnect()

    def _failed_write(
        self,
        exc: psycopg.Error,
        conn: psycopg.Connection[Any],
        pid: int,
        sent: Appending | None,
    ) -> list[Record]:
        """A write that failed with ``exc`` on ``conn`` (whose server process was ``pid``):
        the error, or where the connection was lost after the command ``sent`` went out,
        the records it wrote if it did."""
        lost = self._conn is not conn or self._lost(exc)
        if self._building or not lost:
            with contextlib.suppress(psycopg.Error):
                self._last = self._read_last()
            raise _error(self.target, exc) from None
        if sent is None:
            # lost before the command was sent: nothing of it can be in the log (the
            # next call connects again)
            with contextlib.suppress(Exception):
                conn.close()
            raise ConnectionLost(
                f"{self.name}: the connection to the database was lost; "
                "the command was not written: run it again"
            ) from None
        return self._after_loss(pid, sent.expected_seq, sent.command)

    def _notify(self) -> None:
        """Wake the table's followers, once its records are committed.

        Not inside the writing transaction: the server holds one lock for the
        whole database from a notifying transaction's commit until it is on
        disk, which would make every writer of every table wait for every
        other's fsync. Sent on its own, without waiting for the disk, it takes
        that lock for a moment only. A writer that dies between its commit and
        this wakes nobody; the next commit to the table, or a follower's
        reconnection, does.
        """
        if self._building:
            return
        with contextlib.suppress(psycopg.Error):
            self._conn.execute(
                "SELECT set_config('synchronous_commit', 'off', true), pg_notify(%s, %s)",
                (f"margin:{self.table}", str(self._last[0])),
            )

    def _insert(self, rows: Sequence[Row]) -> None:
        """One command's rows and the signature of the last (if signing), through
        ``margin.append`` once the schema is guarded."""
        signature = self._signature(rows)
        if self._guarded:
            seqs, commands, vs, prevs, hashes, bodies = (
                list(column) for column in zip(*rows, strict=True)
            )
            self._conn.execute(
                "SELECT margin.append(%s, %s::bigint[], %s::text[], %s::integer[], %s::text[], "
                "%s::text[], %s::bytea[], %s, %s)",
                (
                    self.table,
                    *(seqs, commands, vs, prevs, hashes, bodies),
                    *(signature[1:] if signature is not None else (None, None)),
                ),
            )
            return
        with self._conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {_RECORD_COLUMNS} VALUES (%s,%s,%s,%s,%s,%s,%s)",
                [(self.table, *row) for row in rows],
            )
            if signature is not None:
                cur.execute(
                    "INSERT INTO margin.signatures (tbl, seq, key, sig) VALUES (%s,%s,%s,%s)",
                    (self.table, *signature),
                )

    def _after_loss(self, pid: int, expected_seq: int, command: str) -> list[Record]:
        """The connection dropped mid-command: the command is in the log, or refused."""
        seqs = self._written_after_loss(pid, expected_seq, command)
        if not seqs:
            raise ConnectionLost(
                f"{self.name}: the connection to the database was lost mid-command; "
                "the command was not written: run it again"
            )
        self._notify()
        return list(self.records(seqs[0] - 1, seqs[-1]))

    def _written_after_loss(self, pid: int, expected_seq: int, command: str) -> list[int]:
        """The records of a command whose connection was lost, looked for on a new one (and
        on another while the new ones are lost too, for a while)."""
        deadline = time.monotonic() + RECONNECT_SECONDS
        while True:
            try:
                self._reconnect()
                seqs = self._command_seqs(pid, expected_seq, command)
                self._last = self._read_last()
                return seqs
            except (psycopg.Error, StoreError) as exc:
                again = isinstance(exc, psycopg.Error) and self._lost(exc)
                if not again or time.monotonic() > deadline:
                    raise StoreError(
                        f"{self.name}: the connection to the database was lost mid-command and "
                        "cannot be made again; margin log shows whether the command was written"
                    ) from None

    def _command_seqs(self, pid: int, expected_seq: int, command: str) -> list[int]:
        """The records ``command`` wrote after ``expected_seq``, once the session ``pid`` that
        was writing it is gone (none if it was not written)."""
        conn = self._conn
        # the old session may still be finishing its transaction: end it and wait for it
        with contextlib.suppress(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + RECONNECT_SECONDS
        while (
            conn.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        return [
            int(row[0])
            for row in conn.execute(
                # a command is written right after the record it expected, or not at all
                "SELECT seq FROM margin.records WHERE tbl = %s AND seq > %s AND command = %s "
                "ORDER BY seq",
                (self.table, expected_seq, command),
            )
        ]

    def import_rows(self, rows: Iterable[Row]) -> int:
        """Append stored rows with COPY, checking the chain as they go.

        A role the guard applies to (not the schema's owner) may not COPY into
        the records; it inserts them, into the table it is building.
        """
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        chain = chained(rows, *self._last)
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                guarded = cur.execute("SELECT row_security_active('margin.records')").fetchone()
                write = _insert_rows if guarded is not None and guarded[0] else _copy_rows
                count, last = write(cur, self.table, chain)
        except psycopg.Error as exc:
            raise _error(self.target, exc) from None
        if last is not None:
            self._last = (last[0], last[4])
        return count

    def import_signatures(self, signatures: Iterable[tuple[int, str, str]]) -> None:
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO margin.signatures (tbl, seq, key, sig) VALUES (%s,%s,%s,%s)",
                    [(self.table, seq, key, sig) for seq, key, sig in signatures],
                )
        except psycopg.Error as exc:
            raise _error(self.target, exc) from None

    # -- reading -----------------------------------------------------------

    def _pages(self, query: str, after: int, upto: int | None) -> Iterator[tuple[Any, ...]]:
        """Rows of ``query`` in order (``_page_lists``' rows one by one)."""
        for page in self._page_lists(query, after, upto):
            yield from page

    def _page_lists(
        self, query: str, after: int, upto: int | None
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Rows of ``query`` in pages of ``PAGE`` sequence numbers; reconnects and resumes when the server is lost.

        Each page is a query of its own, so nothing stays open on the
        connection between two records handed out, and another query may run
        while a caller is still reading. A page is a range of sequence
        numbers, not a LIMIT, so no page sorts more than its own rows, however
        the planner guesses; the log has no gaps, so a page with fewer rows
        than its range is the end.
        """
        end = upto if upto is not None else 2**62
        while after < end:
            high = min(end, after + PAGE)
            try:
                with self._conn.cursor(binary=True) as cur:
                    page = cur.execute(query, (self.table, after, high)).fetchall()
            except psycopg.Error as exc:
                if not self._lost(exc):
                    raise ReadError(self.name, _first_line(exc)) from None
                self._reconnect()
                continue
            yield page
            if len(page) < high - after:
                # the end, unless a record was taken out of the log behind margin's back:
                # then what follows the gap is read too, and verify names the gap
                beyond = self._query(
                    "SELECT seq FROM margin.records WHERE tbl = %s AND seq > %s AND seq <= %s "
                    "ORDER BY seq LIMIT 1",
                    (self.table, high, end),
                )
                if not beyond:
                    return
                high = int(beyond[0][0]) - 1
            after = high

    def rows(self, after: int = 0, upto: int | None = None) -> Iterator[StoredRow]:
        query = (
            "SELECT r.seq, r.v, r.prev, r.hash, r.body, r.command, s.key, s.sig "
            "FROM margin.records r LEFT JOIN margin.signatures s "
            "ON s.tbl = r.tbl AND s.seq = r.seq "
            "WHERE r.tbl = %s AND r.seq > %s AND r.seq <= %s ORDER BY r.seq"
        )
        for seq, v, prev, digest, body, command, key, sig in self._pages(query, after, upto):
            yield StoredRow(seq, v, prev, digest, bytes(body), command, key or "", sig or "")

    def records(self, after: int = 0, upto: int | None = None) -> Iterator[Record]:
        query = (
            "SELECT seq, v, body FROM margin.records "
            "WHERE tbl = %s AND seq > %s AND seq <= %s ORDER BY seq"
        )
        for page in self._page_lists(query, after, upto):
            for i in range(0, len(page), DECODE_BATCH):
                rows = page[i : i + DECODE_BATCH]
                decoded = decode_batch(rows)
                if decoded is not None:
                    yield from decoded
                else:
                    for seq, v, body in rows:
                        yield self._decode(seq, v, body)

    # -- snapshots -----------------------------------------------------------

    def _snapshots(self, fold: str, upto: int | None) -> Iterator[Snapshot]:
        if not self._query("SELECT to_regclass('margin.snapshots') IS NOT NULL", ())[0][0]:
            return
        found = self._query(
            "SELECT seq, hash FROM margin.snapshots "
            "WHERE tbl = %s AND fold = %s AND seq <= %s ORDER BY seq DESC LIMIT %s",
            (self.table, fold, upto if upto is not None else self.last_seq, SNAPSHOTS_LOOKED_AT),
        )
        # a body (tens of megabytes on a long table) is read only when it is next to be tried
        for seq, digest in found:
            bodies = self._query(
                "SELECT body FROM margin.snapshots WHERE tbl = %s AND fold = %s AND seq = %s",
                (self.table, fold, seq),
            )
            if bodies:
                yield Snapshot(int(seq), str(digest), fold, bytes(bodies[0][0]))

    def _keep_snapshots(self, snaps: Sequence[Snapshot], keep: int) -> bool:
        """Kept in ``margin.snapshots`` (made by the first margin to keep one, as its role);
        a role that may not make or write it keeps none, nor does one that would wait more
        than ``SNAPSHOT_WAIT_MS`` for a lock another connection holds on them."""
        fold = snaps[0].fold
        try:
            with self._conn.transaction(), self._conn.cursor() as cur:
                cur.execute(
                    "SELECT set_config('lock_timeout', %s, true)", (f"{SNAPSHOT_WAIT_MS}ms",)
                )
                cur.execute(_SNAPSHOTS)
                cur.executemany(
                    "INSERT INTO margin.snapshots (tbl, fold, seq, hash, body) "
                    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (tbl, fold, seq) "
                    "DO UPDATE SET hash = EXCLUDED.hash, body = EXCLUDED.body",
                    [(self.table, s.fold, s.seq, s.hash, s.body) for s in snaps],
                )
                if keep:
                    cur.execute(
                        "DELETE FROM margin.snapshots WHERE tbl = %s AND fold = %s AND seq NOT IN "
                        "(SELECT seq FROM margin.snapshots WHERE tbl = %s AND fold = %s "
                        "ORDER BY seq DESC LIMIT %s)",
                        (self.table, fold, self.table, fold, keep),
                    )
        except psycopg.Error:
            return False
        return True

    def drop_snapshots(self) -> int:
        if not self._query("SELECT to_regclass('margin.snapshots') IS NOT NULL", ())[0][0]:
            return 0
        try:
            cur = self._conn.execute("DELETE FROM margin.snapshots WHERE tbl = %s", (self.table,))
        except psycopg.Error as exc:
            raise _error(self.target, exc) from None
        return cur.rowcount

    def _query(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """The rows of one query; a connection lost (again and again, for a while) is made again."""
        deadline = time.monotonic() + RECONNECT_SECONDS
        while True:
            try:
                return self._conn.execute(query, args).fetchall()
            except psycopg.Error as exc:
                if not self._lost(exc):
                    raise ReadError(self.name, _first_line(exc)) from None
                if time.monotonic() > deadline:
                    raise ReadError(self.name, "the connection to the database was lost") from None
                self._reconnect()

    def _notified(self, timeout: float) -> bool:
        """Take the notifications that have come (waiting up to ``timeout`` for one of another's).

        A connection hears its own ``NOTIFY`` too; those are passed over, as
        SQLite's ``data_version`` passes over a connection's own commits.
        """
        try:
            came = self._others_notified(time.monotonic() + timeout)
        except psycopg.Error:
            if timeout > 0:
                self._reconnect()
                return True
            # a look that must not wait (a screen asks it on its own thread): say "read
            # again" now and leave connecting again to that read, which a screen runs in a
            # worker, so a database that is slow to come back never stalls the screen
            with contextlib.suppress(Exception):
                self._conn.close()
            self._version += 1
            return True
        if came:
            self._version += 1
        return came

    def _others_notified(self, deadline: float) -> bool:
        """Whether another connection's notification comes by ``deadline`` (the queued ones
        taken)."""
        own = self._conn.info.backend_pid
        while True:
            left = max(0.0, deadline - time.monotonic())
            heard = came = False
            for note in self._conn.notifies(timeout=left, stop_after=1):
                heard = True
                came = note.pid != own
            # more may be queued behind the first: take them all now, without waiting
            for note in self._conn.notifies(timeout=0):
                came = came or note.pid != own
            if came or not heard or left == 0:
                return came

    def data_version(self) -> int:
        """Moves when a commit to this table was notified; reads only what already arrived.

        It never waits: on a lost connection it moves, and the next read connects again.
        """
        self._notified(0)
        return self._version

    def wait(self, timeout: float) -> bool:
        return self._notified(timeout)

    def refresh(self) -> int:
        self._last = _last(self._query(_LAST, (self.table,)))
        return self._last[0]

    def location(self) -> str:
        return f"from table {self.table} of {self.target.conninfo}"


_RECORD_COLUMNS = "margin.records (tbl, seq, command, v, prev, hash, body)"


def _insert_rows(
    cur: psycopg.Cursor[Any], table: str, rows: Iterable[Row]
) -> tuple[int, Row | None]:
    """Insert rows into ``table`` a page at a time, as a role the row guard applies to must:
    how many, and the last."""
    count, last = 0, None
    for batch in _batches(rows, PAGE):
        cur.executemany(
            f"INSERT INTO {_RECORD_COLUMNS} VALUES (%s,%s,%s,%s,%s,%s,%s)",
            [(table, *row) for row in batch],
        )
        count, last = count + len(batch), batch[-1]
    return count, last


def _copy_rows(cur: psycopg.Cursor[Any], table: str, rows: Iterable[Row]) -> tuple[int, Row | None]:
    """Copy rows into ``table`` in PostgreSQL's binary format: how many, and the last."""
    count, last = 0, None
    with cur.copy(f"COPY {_RECORD_COLUMNS} FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(["text", "int8", "text", "int4", "text", "text", "bytea"])
        for row in rows:
            copy.write_row((table, *row))
            count, last = count + 1, row
    return count, last


def _batches(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


__all__ = ["ConnectionLost", "PostgresStore", "TableURL", "exists", "is_url", "parse_url"]
