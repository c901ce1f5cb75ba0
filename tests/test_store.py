"""The stores: the contract on SQLite and in memory, then what only the SQLite file does
(append-only triggers, WAL, foreign files, formats)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_contract import StoreContract
from support import tamper

from margin.events import (
    FORMAT,
    Draft,
    MemoryStore,
    Noted,
    SQLiteStore,
    StoreError,
    TableCreated,
)
from margin.events.history import Ledger
from margin.events.signing import SigningKey
from margin.events.sqlite import TABLE_FORMAT


class TestSQLiteStore(StoreContract):
    @pytest.fixture
    def name(self, tmp_path: Path) -> str:
        return str(tmp_path / "t.margin")


class TestMemoryStore(StoreContract):
    @pytest.fixture
    def name(self, request: pytest.FixtureRequest) -> Iterator[str]:
        name = f"memory:{request.node.name}"
        yield name
        for suffix in ("", "-gap", "-bad", "-good", "-branch"):
            MemoryStore.forget(name + suffix)


def new_store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "t.margin", create=True)
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    return store


def test_records_cannot_be_updated_or_deleted(tmp_path: Path) -> None:
    new_store(tmp_path).close()
    db = sqlite3.connect(tmp_path / "t.margin")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE records SET body = x'00' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM records")


def test_table_is_wal_and_synchronous_full(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_verify_finds_the_first_tampered_record(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    for i in range(5):
        store.append([Draft(Noted(text=f"n{i}"))], store.last_seq, command=f"c{i}")
    store.close()
    tamper(
        tmp_path / "t.margin",
        "DROP TRIGGER records_no_update",
        "UPDATE records SET body = replace(body, 'n2', 'XX') WHERE seq = 4",
    )
    assert SQLiteStore(tmp_path / "t.margin").verify() == 4


def test_verify_finds_a_record_that_does_not_decode(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.close()
    db = sqlite3.connect(tmp_path / "t.margin")
    prev = db.execute("SELECT hash FROM records WHERE seq = 1").fetchone()[0]
    body = b'{"seq":2,"at":"x","author":"gm","command":"c","event":{"type":"no.such"}}'
    digest = hashlib.sha256(prev.encode() + b"\n" + body).hexdigest()
    db.execute("INSERT INTO records VALUES (2, 'c', ?, ?, ?, ?)", (FORMAT, prev, digest, body))
    db.commit()
    db.close()
    assert SQLiteStore(tmp_path / "t.margin", readonly=True).verify() == 2


def test_foreign_sqlite_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    tamper(path, "CREATE TABLE x (a)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a margin table"):
        SQLiteStore(path)
    assert path.read_bytes() == before
    assert not Path(str(path) + "-wal").exists()


@pytest.mark.parametrize(
    "content", [b"", b"hello world, not a database", b"SQLite format 3\x00" + b"\xff" * 200]
)
def test_garbage_files_are_refused_and_left_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "junk.margin"
    path.write_bytes(content)
    with pytest.raises(StoreError):
        SQLiteStore(path)
    assert path.read_bytes() == content


def test_missing_file_and_existing_file_on_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such table file"):
        SQLiteStore(tmp_path / "nope.margin")
    new_store(tmp_path).close()
    with pytest.raises(StoreError, match="already exists"):
        SQLiteStore(tmp_path / "t.margin", create=True)


def test_newer_format_is_readable_but_not_writable(tmp_path: Path) -> None:
    new_store(tmp_path).close()
    tamper(tmp_path / "t.margin", f"PRAGMA user_version={TABLE_FORMAT + 1}")
    with pytest.raises(StoreError, match="newer margin"):
        SQLiteStore(tmp_path / "t.margin")
    ro = SQLiteStore(tmp_path / "t.margin", readonly=True)
    assert ro.last_seq == 1
    with pytest.raises(StoreError, match="read-only"):
        ro.append([Draft(Noted(text="x"))], 1, command="c")


def test_player_view_cuts_hidden_fields_and_nested_paths() -> None:
    from margin.core.lens import PlayerLens
    from margin.events import Record, Visibility
    from margin.events.table import CharacterAdded

    record = Record(
        seq=5,
        at="2026-11-29T20:00:00Z",
        author="gm",
        command="c",
        event=CharacterAdded(id="x", name="X", sheet={"hp": 10, "secret": {"a": 1, "b": 2}}),
        visibility=Visibility(hidden=("sheet.secret.a", "sheet.nope.z", "hidden")),
        # "sheet.nope.z" names no value of this record: nothing to cut
    )
    seen = PlayerLens().read(record)
    assert seen is not None
    assert seen["event"]["sheet"] == {"hp": 10, "secret": {"b": 2}}
    assert "hidden" not in seen["event"]
    assert seen["secret"] is True
    shown = PlayerLens(revealed={5}).read(record)
    assert shown is not None
    assert shown["event"]["sheet"]["secret"] == {"a": 1, "b": 2}
    import msgspec

    gm_only = msgspec.structs.replace(record, visibility=Visibility(gm_only=True))
    assert PlayerLens(revealed={5}).read(gm_only) is None


def test_a_table_runs_on_the_in_memory_store_as_on_a_file() -> None:
    from margin.core.commands import AddCharacter, RollDice
    from margin.tui.table.table import Table

    name = "memory:a-table"
    try:
        table = Table.create(name, "2d10-edge", title="in memory")
        table.execute(AddCharacter(name="Kael"))
        table.execute(RollDice(dice="2d10", actor="kael", faces=[3, 9]))
        again = Table.open(name, readonly=True)
        assert again.state == table.state
        assert again.projection.seq == 3
        assert again.store.verify() is None
        assert again.store.check(table.store.signer.public).bad is None  # type: ignore[union-attr]
    finally:
        MemoryStore.forget(name)


def test_a_record_changed_after_the_signer_checked_it_is_not_signed_after(
    tmp_path: Path,
) -> None:
    store = new_store(tmp_path)
    store.signer = SigningKey.generate()
    store.append([Draft(Noted(text="checked"))], 1, command="c1")
    tamper(
        tmp_path / "t.margin",
        "DROP TRIGGER records_no_update",
        "UPDATE records SET hash = 'changed' WHERE seq = 2",
    )
    with pytest.raises(
        StoreError, match="record 2 was changed outside margin after it was checked"
    ):
        store.append([Draft(Noted(text="next"))], 2, command="c2")
    assert store.refresh() == 2


def test_a_damaged_ledger_costs_a_check_of_the_whole_log_and_no_command(tmp_path: Path) -> None:
    key = SigningKey.generate()
    ledger = Ledger(tmp_path / "checked")
    store = new_store(tmp_path)
    store.signer, store.ledger = key, ledger
    store.append([Draft(Noted(text="a"))], 1, command="c1")
    store.close()
    (kept,) = (tmp_path / "checked").iterdir()
    kept.write_bytes(b'{"histories": [{"records": "many"}]}')
    again = SQLiteStore(tmp_path / "t.margin")
    again.signer, again.ledger = key, ledger
    assert again.append([Draft(Noted(text="b"))], 2, command="c2")[0].seq == 3
    assert again.vouched is not None
    assert again.vouched.records == 3
    again.close()


def test_records_past_a_batch_are_read_on_up_to_a_damaged_one(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.append([Draft(Noted(text=f"n{i}")) for i in range(9_000)], store.last_seq, command="many")
    store.close()
    tamper(
        tmp_path / "t.margin",
        "DROP TRIGGER records_no_update",
        # past the first batch the store reads: a body that is not JSON
        "UPDATE records SET body = X'7b7b' WHERE seq = 8000",
    )
    with SQLiteStore(tmp_path / "t.margin", readonly=True) as store:
        records = store.records(100)
        seen = [next(records).seq for _ in range(8000 - 101)]
        with pytest.raises(StoreError, match="8000"):
            next(records)
    assert seen == list(range(101, 8000))
