"""A damaged table still gives up what it holds: ``margin salvage``, ``export --salvage`` and
``branch --salvage`` keep every whole command before the first damaged record.

Each test damages a table behind margin's back (a file with ``tamper``, a table in
PostgreSQL as its superuser with the append-only trigger set aside) and runs the
commands a user would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support import margin_do, margin_output, run_margin, tamper

from margin.events import Draft, Noted, display_name, is_url, open_store
from margin.events.postgres import parse_url
from margin.tui.table.keys import signing_key

RECORDS = 60


def damage(table: str, sql: str, *params: Any) -> None:
    """Run ``sql`` on the table's records behind margin's back (``{records}`` names them)."""
    if not is_url(table):
        tamper(
            table,
            "DROP TRIGGER IF EXISTS records_no_update",
            "DROP TRIGGER IF EXISTS records_no_delete",
            (sql.format(records="records", where="1 = 1"), params),
        )
        return
    target = parse_url(table)
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        # the superuser, with the append-only trigger set aside for this session
        conn.execute("SET session_replication_role = replica")
        where = "tbl = %s"
        conn.execute(
            sql.replace("?", "%s").format(records="margin.records", where=where),
            (*params, target.table),
        )


@pytest.fixture
def noted(table_name: str) -> str:
    """A table of ``RECORDS`` records: its creation and a note a command."""
    assert run_margin("new", table_name, "--system", "2d10-edge").code == 0
    notes = [{"type": "note", "text": f"n{i}"} for i in range(2, RECORDS + 1)]
    assert margin_do(table_name, *notes)[0] == 0
    return table_name


def beside(table: str, name: str) -> str:
    """Another table next to ``table``: a file in its folder, or a table in its database."""
    if is_url(table):
        return table.replace(
            f"table={parse_url(table).table}", f"table={parse_url(table).table}{name}"
        )
    return str(Path(table).with_name(f"{name}.margin"))


def names_beside(table: str) -> list[str]:
    """The tables beside ``table``: the files in its folder, or the tables in its database."""
    if not is_url(table):
        return sorted(p.name for p in Path(table).parent.iterdir())
    target = parse_url(table)
    with psycopg.connect(target.conninfo, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT name FROM margin.tables WHERE name LIKE %s", (target.table + "%",)
        )
        return sorted(row[0][len(target.table) :] or "table" for row in rows)


def rows_of(table: str, upto: int | None = None) -> list[Any]:
    with open_store(table, readonly=True) as store:
        return list(store.rows(0, upto))


def test_a_damaged_record_in_the_middle_is_salvaged(noted: str) -> None:
    damage(noted, "UPDATE {records} SET hash = 'x' WHERE seq = ? AND {where}", 42)
    assert run_margin("verify", noted).err == (
        f"margin: {display_name(noted)}: record 42 breaks the hash chain\n"
    )
    new = beside(noted, "salvaged")
    said = margin_output("salvage", noted, new)
    assert said == (
        f"salvaged {display_name(noted)} into {display_name(new)} (verified): kept records "
        "1-41 of 60; record 42 breaks the hash chain; 18 records after it not kept\n"
    )
    # the records before the damage, byte for byte, with the GM's signatures
    assert rows_of(new) == rows_of(noted, 41)
    verified = run_margin("verify", new, "--key", signing_key().public)
    assert verified.code == 0, verified.err
    assert "41 records checked" in verified.out
    texts = [
        json.loads(line).get("text") for line in margin_output("log", new, "--json").splitlines()
    ]
    assert texts == [None, *(f"n{i}" for i in range(2, 42))]


def test_export_and_branch_stop_at_the_last_whole_command(noted: str, tmp_path: Path) -> None:
    damage(noted, "UPDATE {records} SET v = 99 WHERE seq = ? AND {where}", 42)
    # the reason salvage gives is the one margin verify gives
    reason = run_margin("verify", noted).err.split("record 42 ", 1)[1].rstrip("\n")
    assert reason.startswith("cannot be decoded")
    done = run_margin("export", noted, "--salvage")
    assert done.code == 0, done.err
    said = f"kept records 1-41 of 60; record 42 {reason}; 18 records after it not kept"
    assert done.err == f"{display_name(noted)}: exported: {said}\n"
    dump = tmp_path / "salvaged.jsonl"
    dump.write_text(done.out)
    imported = beside(noted, "imported")
    assert margin_output("import", str(dump), imported) == (
        f"imported 41 records into {display_name(imported)}\n"
    )
    assert rows_of(imported) == rows_of(noted, 41)

    branched = beside(noted, "branched")
    done = run_margin("branch", noted, "--salvage", branched)
    assert done.code == 0, done.err
    assert done.out == (
        f"created {display_name(branched)}: a branch of {display_name(noted)} at record 41 "
        "(42 records)\n"
    )
    assert done.err == f"{display_name(noted)}: branched from: {said}\n"
    assert rows_of(branched, 41) == rows_of(noted, 41)
    assert run_margin("verify", branched).code == 0
    # a branch before the damage needs no --salvage; one past it is refused
    assert run_margin("branch", noted, "--at", "30", beside(noted, "early")).code == 0
    late = run_margin("branch", noted, "--at", "50", beside(noted, "late"))
    assert late.code == 1
    assert late.err == (
        f"margin: --at 50: {display_name(noted)}: record 42 {reason}; a branch shares records "
        "1..41 at most (or --salvage)\n"
    )


def test_a_command_the_damage_cuts_short_is_left_out_whole(table_name: str) -> None:
    assert run_margin("new", table_name, "--system", "2d10-edge").code == 0
    with open_store(table_name, signer=signing_key()) as store:
        for k in range(10):
            drafts = [Draft(Noted(text=f"c{k} r{i}")) for i in range(3)]
            store.append(drafts, store.last_seq, command=f"c{k}")
    # record 18 is the second of command c5 (records 17-19)
    damage(table_name, "UPDATE {records} SET hash = 'x' WHERE seq = ? AND {where}", 18)
    new = beside(table_name, "salvaged")
    assert margin_output("salvage", table_name, new).endswith(
        ": kept records 1-16 of 31; record 18 breaks the hash chain; record 17 not kept either "
        "(the command it cuts short); 13 records after it not kept\n"
    )
    assert rows_of(new) == rows_of(table_name, 16)
    assert run_margin("verify", new, "--key", signing_key().public).code == 0


def test_a_missing_record_is_damage_too(noted: str) -> None:
    damage(noted, "DELETE FROM {records} WHERE seq = ? AND {where}", 10)
    kept = margin_output("salvage", noted, beside(noted, "b")).split(": ", 1)[1]
    assert kept == (
        "kept records 1-9 of 59; record 10 is missing or out of order; "
        "50 records after it not kept\n"
    )


def test_a_record_that_cannot_be_read_is_damage_too(tmp_path: Path) -> None:
    path = str(tmp_path / "t.margin")
    assert run_margin("new", path, "--system", "2d10-edge").code == 0
    assert margin_do(path, *({"type": "note", "text": f"n{i}"} for i in range(9)))[0] == 0
    damage(path, "UPDATE {records} SET command = CAST('c' AS BLOB) WHERE seq = ? AND {where}", 5)
    damage(path, "UPDATE {records} SET v = 'x' WHERE seq = ? AND {where}", 8)
    kept = margin_output("salvage", path, str(tmp_path / "new.margin")).split(": ", 1)[1]
    assert kept == (
        "kept records 1-4 of at least 7; record 5 cannot be read (a column holds the wrong kind of "
        "value); at least 2 records after it not kept\n"
    )


def test_a_whole_table_is_salvaged_whole(noted: str) -> None:
    new = beside(noted, "copy")
    assert margin_output("salvage", noted, new).endswith(
        ": kept records 1-60 of 60; every record is intact\n"
    )
    assert rows_of(new) == rows_of(noted)


def test_what_salvage_cannot_use_is_one_line_and_writes_nothing(noted: str, tmp_path: Path) -> None:
    new = beside(noted, "new")
    assert run_margin("salvage", noted, new).code == 0
    for args, message in [
        ((noted, new), f"{display_name(new)}: already exists; salvage writes a new table"),
        (
            (str(tmp_path / "nothing.margin"), beside(noted, "x")),
            "nothing.margin: no such table file",
        ),
        ((str(Path(__file__)), beside(noted, "y")), "not a margin table"),
    ]:
        done = run_margin("salvage", *args)
        assert done.code == 1
        assert message in done.err
        assert done.err.count("\n") == 1
    damage(noted, "UPDATE {records} SET hash = 'x' WHERE seq = ? AND {where}", 1)
    done = run_margin("salvage", noted, beside(noted, "z"))
    assert done.err == (
        f"margin: {display_name(noted)}: record 1 breaks the hash chain; no whole command "
        "before it to salvage, nothing written\n"
    )
    assert not any("z" in name for name in names_beside(noted))
    assert run_margin("export", noted, "--salvage").code == 1
