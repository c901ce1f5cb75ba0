"""Tables in PostgreSQL from the command line: URLs wherever a path goes, tables moved between
the stores, passwords kept out of sight, one-line errors, and a server that drops the writer."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from forging import Row, appended, chained, shell, sql
from pg_server import Server
from support import MARGIN, margin_writer
from support import run_margin as run

from margin.events import open_store
from margin.events.postgres import parse_url


def lines(*commands: dict[str, Any]) -> str:
    return "".join(json.dumps(c) + "\n" for c in commands)


def admin(pg: Server) -> psycopg.Connection[Any]:
    return psycopg.connect(pg.conninfo(), autocommit=True)


def test_tables_move_between_the_stores(pg_url: str, tmp_path: Path) -> None:
    source = str(tmp_path / "source.margin")
    assert run("new", source, "--system", "2d10-edge")[0] == 0
    run(
        "do",
        source,
        stdin=lines(
            {"type": "add-character", "name": "Kael", "sheet": {"note": "é ✓"}},
            {"type": "roll", "dice": "3d6"},
            {"type": "note", "text": "the butler", "gm_only": True},
            {"type": "undo"},
        ),
    )
    _, exported, _ = run("export", source)
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported)
    n = exported.count("\n") - 1
    assert n >= 4
    code, out, err = run("import", str(dump), pg_url)
    assert code == 0, err
    assert out == f"imported {n} records into {pg_url}\n"
    assert run("export", pg_url)[1] == exported
    code, out, _ = run("verify", pg_url)
    assert code == 0
    assert f"{n} records checked from table" in out
    assert "signed by" in out
    back = tmp_path / "back.margin"
    code, out, _ = run("backup", pg_url, str(back))
    assert code == 0
    assert f"copied {n} records" in out
    assert run("export", str(back))[1] == exported
    second = pg_url + "-copy"
    assert run("backup", source, second)[0] == 0
    assert run("export", second)[1] == exported
    states = [run("state", t, "--json")[1] for t in (source, pg_url, second)]
    assert states[0] == states[1] == states[2]
    # the other commands that take a table take a URL too
    assert "the butler" not in run("log", pg_url, "--as", "Kael")[1]
    assert run("recap", pg_url)[0] == 0
    assert run("luck", pg_url)[0] == 0
    code, out, err = run("branch", pg_url, "--at", "3", pg_url + "-what-if")
    assert code == 0, err
    code, out, _ = run("diff", pg_url, pg_url + "-what-if")
    assert code == 0
    assert "and part at record 4:" in out
    code, _, err = run("import", str(dump), pg_url)
    assert code == 1
    assert "already exists" in err


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://127.0.0.1/margin_test", "name one table with ?table=NAME"),
        ("postgresql://127.0.0.1/margin_test?table=a%20b", "is not a table name"),
        ("postgresql://127.0.0.1/?table=t", "name the database"),
        ("postgresql://127.0.0.1:99999/margin_test?table=t", "not a PostgreSQL table URL"),
        ("postgresql://127.0.0.1:1/margin_test?table=t", "cannot reach the database"),
        ("postgresql://nobody:pw@{host}:{port}/margin_test?table=t", "cannot reach the database"),
        ("postgresql://{user}@{host}:{port}/margin_test?table=never", "no such table"),
    ],
)
def test_bad_urls_and_unreachable_servers_are_one_line(pg: Server, url: str, message: str) -> None:
    url = url.format(host=pg.host, port=pg.port, user=pg.user)
    for command in (["log", url], ["verify", url], ["do", url]):
        code, _, err = run(*command)
        assert code == 1
        assert message in err, err
        assert err.count("\n") == 1
        assert "Traceback" not in err
        assert ":pw@" not in err


def test_a_password_logs_in_but_is_never_shown_or_stored(pg: Server, tmp_path: Path) -> None:
    secret = "s3cret-for-the-gm"
    with admin(pg) as conn:
        conn.execute(f"CREATE ROLE gm_only_role LOGIN PASSWORD '{secret}'")
        conn.execute("GRANT CREATE ON DATABASE margin_test TO gm_only_role")
        conn.execute("GRANT USAGE, CREATE ON SCHEMA public TO gm_only_role")
    try:
        url = f"postgresql://gm_only_role:{secret}@{pg.host}:{pg.port}/other_db?table=t"
        with admin(pg) as conn:
            conn.execute("CREATE DATABASE other_db OWNER gm_only_role")
        outputs = [run("new", url, "--system", "2d10-edge")]
        outputs.append(run("do", url, stdin=lines({"type": "note", "text": "hi"})))
        outputs += [run(c, url) for c in ("log", "verify", "export", "state")]
        outputs.append(run("branch", url, "--at", "2", url + "2"))
        assert all(code == 0 for code, _, _ in outputs), outputs
        assert [o for o in outputs if secret in o[1] + o[2]] == []
        for table in (url, url + "2"):
            with open_store(table, readonly=True) as store:
                assert not any(secret.encode() in row.body for row in store.rows())
        # the same table with the password from the environment, in another process
        env = {**os.environ, "PGPASSWORD": secret, "PGPASSFILE": "/dev/null"}
        bare = url.replace(f":{secret}@", "@")
        done = subprocess.run([*MARGIN, "log", bare], env=env, capture_output=True, text=True)
        assert done.returncode == 0
        assert "hi" in done.stdout
        env["PGPASSWORD"] = "wrong"
        done = subprocess.run([*MARGIN, "log", bare], env=env, capture_output=True, text=True)
        assert done.returncode == 1
        assert done.stderr.count("\n") == 1
        assert "cannot reach the database" in done.stderr
        assert "password" in done.stderr
        # the owner of the tables may add records, never change or remove them
        with psycopg.connect(bare.partition("?")[0], password=secret, autocommit=True) as owner:
            for statement in (
                "UPDATE margin.records SET body = 'x'",
                "DELETE FROM margin.records",
                "TRUNCATE margin.records",
                "DELETE FROM margin.signatures",
                "UPDATE margin.records_3 SET command = 'x'",
                "DELETE FROM margin.tables",
            ):
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    owner.execute(statement)
    finally:
        with admin(pg) as conn:
            conn.execute("DROP DATABASE IF EXISTS other_db")
            conn.execute("REVOKE ALL ON SCHEMA public FROM gm_only_role")
            conn.execute("REVOKE ALL ON DATABASE margin_test FROM gm_only_role")
            conn.execute("DROP ROLE gm_only_role")


def test_even_a_superuser_meets_the_append_only_trigger(pg: Server, pg_url: str) -> None:
    assert run("new", pg_url, "--system", "2d10-edge")[0] == 0
    with admin(pg) as conn:
        for statement in ("UPDATE margin.records SET body = 'x'", "DELETE FROM margin.signatures"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(statement)


def margin_backends(pg: Server) -> list[int]:
    with admin(pg) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'margin' "
            "AND datname = %s AND pid <> pg_backend_pid()",
            (pg.dbname,),
        ).fetchall()
    return [int(r[0]) for r in rows]


def test_a_writer_whose_backend_is_terminated_mid_stream_writes_each_command_once_or_refuses_it(
    pg: Server, pg_url: str
) -> None:
    assert subprocess.run([*MARGIN, "new", pg_url, "--system", "2d10-edge"]).returncode == 0
    proc = margin_writer(pg_url)
    assert proc.stdin is not None
    assert proc.stdout is not None
    replies: list[dict[str, Any]] = []
    terminated = 0

    def terminate() -> None:
        nonlocal terminated
        with admin(pg) as conn:
            for pid in margin_backends(pg):
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
                terminated += 1

    count = 300
    for i in range(count):
        proc.stdin.write(json.dumps({"type": "note", "text": f"n{i}"}) + "\n")
        proc.stdin.flush()
        if i % 40 == 20:
            # while the command just sent is being decided, appended or committed
            killer = threading.Thread(target=terminate)
            killer.start()
            replies.append(json.loads(proc.stdout.readline()))
            killer.join()
        else:
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    proc.wait(30)
    assert terminated >= 5
    with open_store(pg_url, readonly=True) as store:
        texts = [getattr(r.event, "text", None) for r in store.records(1)]
        assert store.verify() is None
    refused = [i for i, r in enumerate(replies) if "error" in r]
    assert all("connection to the database was lost" in replies[i]["error"] for i in refused)
    for i, reply in enumerate(replies):
        # present once, or refused once and absent: never twice
        assert texts.count(f"n{i}") == (0 if "error" in reply else 1), (i, reply)
    assert len(texts) == count - len(refused)


def test_a_command_committed_as_the_connection_drops_is_found_not_written_again(
    pg: Server, pg_url: str, monkeypatch: Any
) -> None:
    from contextlib import contextmanager

    from store_contract import created

    from margin.events import Draft, Noted, build_store
    from margin.events.postgres import PostgresStore

    with build_store(pg_url) as made:
        created(made)
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    real = store._conn.transaction

    @contextmanager
    def drops_after_commit() -> Any:
        with real():
            yield
        # committed; the server ends the session before the client hears of it
        pid = store._conn.info.backend_pid
        with admin(pg) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
        store._conn.execute("SELECT 1")

    monkeypatch.setattr(store._conn, "transaction", drops_after_commit)
    records = store.append([Draft(Noted(text="once"))], 1, command="c-once")
    assert [r.seq for r in records] == [2]
    assert records[0].command == "c-once"
    assert store.last_seq == 2
    assert [r.command for r in store.records()] == ["c0", "c-once"]
    store.close()


def test_a_command_lost_before_its_commit_is_refused_once(pg: Server, pg_url: str) -> None:
    from store_contract import created

    from margin.events import ConnectionLost, Draft, Noted, build_store
    from margin.events.postgres import PostgresStore

    with build_store(pg_url) as made:
        created(made)
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    insert = store._insert

    def insert_then_drop(rows: Any) -> None:
        insert(rows)
        with admin(pg) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (store._conn.info.backend_pid,))

    store._insert = insert_then_drop  # type: ignore[method-assign]
    with pytest.raises(ConnectionLost, match="not written: run it again"):
        store.append([Draft(Noted(text="lost"))], 1, command="c-lost")
    store._insert = insert  # type: ignore[method-assign]
    assert store.last_seq == 1
    assert store.append([Draft(Noted(text="again"))], 1, command="c-again")[0].seq == 2
    assert [r.command for r in store.records()] == ["c0", "c-again"]
    store.close()


def test_a_watcher_whose_connection_drops_reconnects_and_catches_up(
    pg: Server, pg_url: str
) -> None:
    from store_contract import created

    from margin.events import Draft, Noted, build_store
    from margin.events.postgres import PostgresStore

    with build_store(pg_url) as made:
        created(made)
    writer = open_store(pg_url)
    watcher = open_store(pg_url, readonly=True)
    assert isinstance(watcher, PostgresStore)
    with admin(pg) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (watcher._conn.info.backend_pid,))
    writer.append([Draft(Noted(text="while you were away"))], 1, command="c1")
    assert watcher.wait(5.0) is True
    assert [r.seq for r in watcher.records(1)] == [2]
    # and it is woken by NOTIFY again on its new connection
    writer.append([Draft(Noted(text="and now"))], 2, command="c2")
    started = time.monotonic()
    assert watcher.wait(5.0) is True
    assert time.monotonic() - started < 5
    assert watcher.refresh() == 3
    writer.close()
    watcher.close()


def test_many_tables_in_one_database_keep_their_own_logs(pg_url: str) -> None:
    from store_contract import created

    from margin.events import Draft, Noted, build_store

    names = [pg_url + "-a", pg_url + "-b"]
    for name in names:
        with build_store(name) as made:
            created(made)
    a, b = (open_store(n) for n in names)
    a_watch = open_store(names[0], readonly=True)
    b.append([Draft(Noted(text="only b"))], 1, command="b1")
    assert a_watch.wait(0.2) is False, "a commit to b must not wake a's followers"
    a.append([Draft(Noted(text="only a"))], 1, command="a1")
    assert a_watch.wait(5.0) is True
    assert [r.command for r in a.records()] == ["c0", "a1"]
    assert [r.command for r in b.records()] == ["c0", "b1"]
    for s in (a, b, a_watch):
        s.close()


def forged_by(
    url: str, owner_url: str, write: Callable[[str, list[Row]], str]
) -> subprocess.CompletedProcess[str]:
    """psql, logged in as ``url`` names, adding a note chained onto the last record of the
    table ``owner_url`` names, by the SQL ``write`` gives."""
    with open_store(owner_url, readonly=True) as store:
        rows = list(store.rows())
    return shell(owner_url, write(owner_url, [chained(rows[-1])]), url.partition("?")[0])


def test_a_players_role_granted_as_the_docs_say_reads_but_cannot_write(
    pg: Server, pg_url: str
) -> None:
    assert run("new", pg_url, "--system", "2d10-edge")[0] == 0
    run(
        "do",
        pg_url,
        stdin=lines({"type": "add-character", "name": "Kael"}, {"type": "note", "text": "hello"}),
    )
    with admin(pg) as conn:
        conn.execute("CREATE ROLE players_role LOGIN PASSWORD 'pw-of-the-players'")
        conn.execute(f"GRANT CONNECT ON DATABASE {pg.dbname} TO players_role")
        conn.execute("GRANT USAGE ON SCHEMA margin TO players_role")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA margin TO players_role")
    try:
        url = pg.url(pg_url.rpartition("=")[2], user="players_role:pw-of-the-players")
        code, out, err = run("log", url, "--as", "Kael")
        assert code == 0, err
        assert "hello" in out
        code, out, _ = run("do", url, stdin=lines({"type": "note", "text": "forged"}))
        assert code == 1
        assert "not allowed" in json.loads(out)["error"]
        assert run("verify", url)[0] == 0
        # nor through the function writers append with
        done = forged_by(url, pg_url, appended)
        assert done.returncode != 0
        assert "players_role may not add records" in done.stderr
    finally:
        with admin(pg) as conn:
            conn.execute("REVOKE ALL ON ALL TABLES IN SCHEMA margin FROM players_role")
            conn.execute("REVOKE ALL ON SCHEMA margin FROM players_role")
            conn.execute(f"REVOKE ALL ON DATABASE {pg.dbname} FROM players_role")
            conn.execute("DROP ROLE players_role")


#: What docs/postgresql.md grants a writing role other than the schema's owner.
WRITER_GRANTS = (
    "GRANT CONNECT ON DATABASE {db} TO {role}",
    "GRANT USAGE ON SCHEMA margin TO {role}",
    "GRANT SELECT, INSERT ON margin.tables, margin.records, margin.signatures TO {role}",
)


@contextmanager
def role(pg: Server, name: str, *grants: str, dbname: str | None = None) -> Iterator[str]:
    """A login role with ``grants`` in the database ``dbname``; its ``user:password``."""
    db = dbname or pg.dbname
    with admin(pg) as conn:
        conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD 'pw-of-{name}'")
    try:
        with psycopg.connect(pg.conninfo(db), autocommit=True) as conn:
            for grant in grants:
                conn.execute(grant.format(db=db, role=name))
        yield f"{name}:pw-of-{name}"
    finally:
        with psycopg.connect(pg.conninfo(db), autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {name}")
        with admin(pg) as conn:
            conn.execute(f"REVOKE ALL ON DATABASE {db} FROM {name}")
            conn.execute(f"DROP ROLE {name}")


def as_role(pg: Server, url: str, user: str, dbname: str | None = None) -> str:
    return pg.url(parse_url(url).table, dbname=dbname, user=user)


def test_a_writers_role_adds_records_only_through_margin_append(pg: Server, pg_url: str) -> None:
    assert run("new", pg_url, "--system", "2d10-edge")[0] == 0
    assert run("do", pg_url, stdin=lines({"type": "note", "text": "the GM's"}))[0] == 0
    with role(pg, f"writer_{os.getpid()}", *WRITER_GRANTS) as writer:
        url = as_role(pg, pg_url, writer)
        conninfo = url.partition("?")[0]
        # margin, as the role, writes as ever
        code, out, _ = run("do", url, stdin=lines({"type": "note", "text": "the writer's"}))
        assert code == 0, out
        rows = list(open_store(pg_url, readonly=True).rows())
        forged = chained(rows[-1])
        # the role's own INSERTs, COPY and partitions are closed
        for text in (
            sql(pg_url, [forged]),
            f"INSERT INTO margin.signatures VALUES ('{parse_url(pg_url).table}', 1, 'k', 's');\n",
            f"COPY margin.records FROM STDIN;\n{parse_url(pg_url).table}\t{forged.seq}\tx\t1\tp\th\t\\\\x00\n\\.\n",
            "INSERT INTO margin.records_3 VALUES ('x', 1, 'c', 1, '', 'h', '\\x00');\n",
        ):
            done = shell(pg_url, text, conninfo)
            assert done.returncode != 0, text
            assert "row-level security" in done.stderr or "permission denied" in done.stderr
        # margin.append takes only the continuation of the chain
        for broken in (
            Row(forged.seq + 1, forged.command, forged.prev, forged.hash, forged.body),
            Row(forged.seq, forged.command, rows[-2].hash, forged.hash, forged.body),
            Row(forged.seq, forged.command, forged.prev, rows[-1].hash, forged.body),
        ):
            done = shell(pg_url, appended(pg_url, [broken]), conninfo)
            assert done.returncode != 0
            assert "is not the continuation of its chain" in done.stderr
        assert list(open_store(pg_url, readonly=True).rows()) == rows
        # a chained row the schema cannot tell from margin's: the GM's margin refuses to sign after it
        done = shell(pg_url, appended(pg_url, [forged]), conninfo)
        assert done.returncode == 0, done.stderr
        code, out, _ = run("do", pg_url, stdin=lines({"type": "note", "text": "the GM's next"}))
        assert code == 1
        assert f"record {forged.seq} is not signed (inserted outside margin?)" in out
        # new tables the role builds itself: new, import, branch
        made = url + "-made"
        assert run("new", made, "--system", "2d10-edge")[0] == 0
        assert run("do", made, stdin=lines({"type": "note", "text": "in a new table"}))[0] == 0
        assert run("branch", made, "--at", "2", made + "-b")[0] == 0
        dump = run("export", made)[1]
        code, _, err = run("import", "-", made + "-i", stdin=dump)
        assert code == 0, err
        for table in (made, made + "-b", made + "-i"):
            assert run("verify", table)[0] == 0


def test_a_schema_an_earlier_margin_made_is_guarded_by_its_owners_next_margin(
    pg: Server,
) -> None:
    """Tables written before the guard keep working; once a margin of the schema's owner
    writes, the writers' roles add records only through margin.append."""
    from margin.events import postgres

    db = f"earlier_{os.getpid()}"
    owner = f"owner_{os.getpid()}"
    with admin(pg) as conn:
        conn.execute(f"CREATE ROLE {owner} LOGIN PASSWORD 'pw-of-{owner}'")
        conn.execute(f"CREATE DATABASE {db} OWNER {owner}")
    try:
        owner_url = pg.url("old", dbname=db, user=f"{owner}:pw-of-{owner}")
        with psycopg.connect(owner_url.partition("?")[0], autocommit=True) as conn:
            for (
                statement
            ) in postgres._schema_statements():  # the schema as an earlier margin made it
                conn.execute(statement)
        with role(pg, f"oldwriter_{os.getpid()}", *WRITER_GRANTS, dbname=db) as writer:
            url = as_role(pg, owner_url, writer, dbname=db)
            # the writer cannot guard the schema: it writes as an earlier margin did
            assert run("new", url, "--system", "2d10-edge")[0] == 0
            assert run("do", url, stdin=lines({"type": "note", "text": "before"}))[0] == 0
            with psycopg.connect(owner_url.partition("?")[0]) as conn:
                assert conn.execute("SELECT to_regproc('margin.append')").fetchone() == (None,)
            # the owner's margin writes: the schema is guarded, the table goes on
            code, out, _ = run("do", owner_url, stdin=lines({"type": "note", "text": "upgraded"}))
            assert code == 0, out
            assert run("do", url, stdin=lines({"type": "note", "text": "after"}))[0] == 0
            code, out, _ = run("verify", owner_url)
            assert code == 0
            assert "4 records checked" in out
            done = forged_by(url, owner_url, sql)
            assert done.returncode != 0
            assert "row-level security" in done.stderr
    finally:
        with admin(pg) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
            conn.execute(f"DROP ROLE IF EXISTS {owner}")
