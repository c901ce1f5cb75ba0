"""The PostgreSQL store: the store contract, and what only its URLs and schema do.

Many tables in one database, privileges and the trigger, passwords and lost
connections are tried from the command line in ``test_cli_postgres.py``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from pg_server import Server
from store_contract import StoreContract, created
from support import lacking, need

from margin.events import (
    ConnectionLost,
    Draft,
    Noted,
    StoreError,
    build_store,
    display_name,
    open_store,
    postgres,
)
from margin.events.postgres import TABLE_FORMAT, parse_url


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def name(self, pg_url: str) -> str:
        return pg_url


def test_a_url_names_a_table_and_how_to_reach_it() -> None:
    url = parse_url("postgresql://gm:p%40ss@db.example:5433/club?sslmode=require&table=harbour")
    assert url.table == "harbour"
    assert url.password == "p@ss"
    assert url.conninfo == "postgresql://gm@db.example:5433/club?sslmode=require"
    assert url.display == "postgresql://gm@db.example:5433/club?sslmode=require&table=harbour"
    assert display_name("postgres://db/club?table=t") == "postgresql://db/club?table=t"
    assert parse_url("postgresql://[::1]:5432/club?table=t").conninfo == (
        "postgresql://[::1]:5432/club"
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://db/club", r"name one table with \?table=NAME"),
        ("postgresql://db/club?table=a&table=b", "name one table"),
        ("postgresql://db/club?table=-x", "is not a table name"),
        ("postgresql://db/club?table=" + "x" * 51, "is not a table name"),
        ("postgresql://db/?table=t", "name the database"),
        ("postgresql://gm:secret@db:notaport/club?table=t", "not a PostgreSQL table URL"),
        # a raw / ends the host part early: what follows is no port, or no database
        ("postgresql://gm:sec/ret@db/club?table=t", r"gm:\*\*\*@db/club\?table=t: not a Pos"),
        ("postgresql://gm:5432/secret@db/club?table=t", "a / in a password is written %2F"),
        ("postgresql://gm:s@cr/et@db/club?table=t", r"^postgresql://gm:\*\*\*@db/club"),
        ("postgresql://gm:secret@db/club\udcff?table=t", r"not UTF-8 text"),
        ("postgresql://gm:secret\udcff@db/club?table=t", r"gm:\*\*\*@db.*not UTF-8 text"),
    ],
)
def test_a_bad_url_is_refused_naming_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as caught:
        parse_url(url)
    for piece in ("secret", "sec", "ret", "5432", "s@cr"):
        assert piece not in str(caught.value)


def test_a_table_of_a_newer_margin_is_read_but_not_written(pg: Server, pg_url: str) -> None:
    with build_store(pg_url) as made:
        created(made)
    with psycopg.connect(pg.conninfo(), autocommit=True) as conn:
        # a superuser changing the format stands for a newer margin having written it
        conn.execute(
            "UPDATE margin.tables SET format = %s WHERE name = %s",
            (TABLE_FORMAT + 1, parse_url(pg_url).table),
        )
    with pytest.raises(StoreError, match="newer margin"):
        open_store(pg_url)
    with open_store(pg_url, readonly=True) as reader:
        assert reader.last_seq == 1
        with pytest.raises(StoreError, match="read-only"):
            reader.append([Draft(Noted(text="x"))], 1, command="c")


def test_a_failed_build_leaves_no_table_and_its_name_free(pg_url: str) -> None:
    # the bad rows go in inside the build, whose end then fails
    with pytest.raises(StoreError, match="hash chain broken"), build_store(pg_url) as made:  # noqa: PT012
        created(made)
        made.import_rows([(2, "c", 1, "not the head", "x", b"{}")])
    with build_store(pg_url) as made:
        created(made)
    with open_store(pg_url) as store:
        assert store.last_seq == 1


def test_a_look_for_news_on_a_lost_connection_leaves_connecting_again_to_the_next_read(
    pg: Server, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A screen asks ``data_version`` on its own thread and reads in a worker: when the
    connection is gone, the look says "read again" without connecting, and the read
    connects again and finds what was written meanwhile."""
    with build_store(pg_url) as made:
        created(made)
    with open_store(pg_url) as follower, open_store(pg_url) as writer:
        assert isinstance(follower, postgres.PostgresStore)
        before = follower.data_version()
        pid = follower._conn.info.backend_pid
        with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
                pass
        writer.append([Draft(Noted(text="while the follower was away"))], 1, command="c")
        connects: list[object] = []
        real = postgres._connect

        def connect(target: Any) -> Any:
            connects.append(target)
            return real(target)

        monkeypatch.setattr(postgres, "_connect", connect)
        # the server's farewell may reach the socket a moment after the session is gone
        # from pg_stat_activity: look until it has, never connecting
        for _ in range(10_000):
            if follower.data_version() != before:
                break
            time.sleep(0.001)
        assert follower.data_version() != before
        assert connects == []
        texts = [getattr(r.event, "text", None) for r in follower.records(1)]
        assert texts == ["while the follower was away"]
        assert len(connects) == 1


def test_a_snapshot_lets_go_rather_than_wait_for_another_connections_lock(
    pg: Server, pg_url: str
) -> None:
    """Keeping a snapshot never waits long on a lock another connection holds on the
    snapshots (a screen's keep at quitting must not hang on another process): it is let go,
    and kept once the lock is gone."""
    with build_store(pg_url) as made:
        created(made)
    with open_store(pg_url) as store:
        assert store.keep_snapshot(1, "f1", b"first")
        with psycopg.connect(pg.conninfo()) as holder:
            holder.execute("LOCK TABLE margin.snapshots IN ACCESS EXCLUSIVE MODE")
            assert not store.keep_snapshot(1, "f1", b"while it is locked")
        assert store.keep_snapshot(1, "f1", b"after")
        found = store.snapshot("f1")
        assert found is not None
        assert found.body == b"after"


@contextlib.contextmanager
def silenced(port: int, server: int) -> Iterator[None]:
    """Every packet between a client's ``port`` and the server's dropped in both directions
    (a link gone dead), while the block runs: the kernel's firewall, as root."""
    need("iptables")
    if os.geteuid() != 0:
        lacking("root, to drop packets with iptables", ["iptables"])
    rules = [
        ["INPUT", "-p", "tcp", "--sport", str(port), "--dport", str(server), "-j", "DROP"],
        ["INPUT", "-p", "tcp", "--sport", str(server), "--dport", str(port), "-j", "DROP"],
    ]
    added = []
    try:
        for rule in rules:
            subprocess.run(["iptables", "-w", "-A", *rule], check=True)
            added.append(rule)
        yield
    finally:
        for rule in added:
            subprocess.run(["iptables", "-w", "-D", *rule], check=True)


def test_a_writer_whose_link_goes_silent_gives_up_on_it_and_writes_nothing_twice(
    pg: Server, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link that drops everything (no reset, no answer) is given up on by margin's own
    connection settings, not after the system's quarter of an hour: the command waiting on
    it is refused in one line, nothing of it written, and the next one connects again.
    Shortened here; the settings margin connects with give up within about half a minute."""
    defaults = postgres._CONNECT_DEFAULTS
    idle, every, probes = (defaults[f"keepalives_{k}"] for k in ("idle", "interval", "count"))
    assert idle + every * probes <= 30  # seconds of silence before the link is dead
    assert defaults["tcp_user_timeout"] <= 30_000
    monkeypatch.setattr(
        postgres,
        "_CONNECT_DEFAULTS",
        defaults | {"tcp_user_timeout": 1000, "keepalives_idle": 1, "keepalives_interval": 1},
    )
    with build_store(pg_url) as made:
        created(made)
    with open_store(pg_url) as store:
        assert isinstance(store, postgres.PostgresStore)
        assert store._conn.info.get_parameters()["tcp_user_timeout"] == "1000"
        with socket.socket(fileno=os.dup(store._conn.pgconn.socket)) as sock:
            port = sock.getsockname()[1]
        start = time.monotonic()
        with silenced(port, pg.port), pytest.raises(ConnectionLost) as lost:
            store.append([Draft(Noted(text="sent into the void"))], 1, command="void")
        assert time.monotonic() - start < 20
        assert "the command was not written: run it again" in str(lost.value)
        store.append([Draft(Noted(text="again"))], 1, command="again")
    with open_store(pg_url, readonly=True) as reader:
        assert [getattr(r.event, "text", None) for r in reader.records(1)] == ["again"]
