"""Rows as a forger writes them into a table, and the engines' own shells they type them into.

A forger who may write a table but holds no GM's key computes chain hashes
as margin does and inserts rows with ``sqlite3`` (a table file) or ``psql``
(a table in PostgreSQL); ``shell`` runs one as a process of its own.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from support import need

from margin.events import FORMAT, Noted, Record, StoredRow, chain_hash, encode_body
from margin.events.postgres import parse_url


@dataclass
class Row:
    """A row as a forger writes it, with the signature they add, if any."""

    seq: int
    command: str
    prev: str
    hash: str
    body: bytes
    key: str = ""
    sig: str = ""


def chained(prev: StoredRow | Row, text: str = "forged", command: str = "forger") -> Row:
    """A note chained onto ``prev``, its chain hash computed as margin computes it."""
    seq = prev.seq + 1
    record = Record(
        seq=seq,
        at="2026-12-01T20:00:00.000000Z",
        author="gm",
        command=command,
        event=Noted(text=text),
    )
    body = encode_body(record)
    return Row(seq, command, prev.hash, chain_hash(prev.hash, body), body)


def sql(table: str, rows: list[Row]) -> str:
    """What the forger types into the engine's shell."""
    if table.startswith("postgresql://"):
        name = parse_url(table).table
        lines = [
            f"INSERT INTO margin.records VALUES ('{name}', {r.seq}, '{r.command}', {FORMAT}, "
            f"'{r.prev}', '{r.hash}', '\\x{r.body.hex()}'::bytea);"
            for r in rows
        ]
        lines += [
            f"INSERT INTO margin.signatures VALUES ('{name}', {r.seq}, '{r.key}', '{r.sig}');"
            for r in rows
            if r.sig
        ]
    else:
        lines = [
            f"INSERT INTO records VALUES ({r.seq}, '{r.command}', {FORMAT}, '{r.prev}', "
            f"'{r.hash}', x'{r.body.hex()}');"
            for r in rows
        ]
        lines += [
            f"INSERT INTO signatures VALUES ({r.seq}, '{r.key}', '{r.sig}');" for r in rows if r.sig
        ]
    return "\n".join(lines) + "\n"


def shell(table: str, text: str, conninfo: str | None = None) -> subprocess.CompletedProcess[str]:
    """``text`` typed into the shell of ``table``'s engine (``psql`` connected to ``conninfo``
    or as the URL says); what it answered."""
    if table.startswith("postgresql://"):
        need("psql")
        argv = ["psql", "-q", "-v", "ON_ERROR_STOP=1", conninfo or parse_url(table).conninfo]
    else:
        need("sqlite3")
        argv = ["sqlite3", "-bail", table]
    return subprocess.run(argv, input=text, capture_output=True, text=True, timeout=60)


def forge(table: str, rows: list[Row]) -> None:
    """Insert ``rows`` with the engine's own shell, as a forger would."""
    done = shell(table, sql(table, rows))
    assert done.returncode == 0, done.stderr


def appended(table: str, rows: list[Row]) -> str:
    """``rows`` as one call of ``margin.append``, the way into a guarded PostgreSQL table."""

    def text(value: str) -> str:
        return "'" + value + "'" if value else "NULL"

    def array(values: list[str], kind: str) -> str:
        return "ARRAY[" + ", ".join(values) + "]::" + kind + "[]"

    columns = [
        array([str(r.seq) for r in rows], "bigint"),
        array([text(r.command) for r in rows], "text"),
        array([str(FORMAT) for _ in rows], "integer"),
        array([text(r.prev) if r.prev else "''" for r in rows], "text"),
        array([text(r.hash) for r in rows], "text"),
        array([text("\\x" + r.body.hex()) for r in rows], "bytea"),
    ]
    name = parse_url(table).table
    return (
        f"SELECT margin.append('{name}', {', '.join(columns)}, "
        f"{text(rows[-1].key)}, {text(rows[-1].sig)});\n"
    )
