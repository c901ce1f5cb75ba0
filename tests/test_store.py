"""The SQLite store: atomic appends, concurrency, append-only, chain, foreign files."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from margin.events import (
    FORMAT,
    ConcurrencyError,
    Draft,
    Noted,
    Rolled,
    SQLiteStore,
    StoreError,
    TableCreated,
)
from margin.events.store import TABLE_FORMAT


def new_store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "t.margin", create=True)
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    return store


def test_append_numbers_records_gaplessly_and_chains_them(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    recs = store.append([Draft(Noted(text="a")), Draft(Noted(text="b"), cause=2)], 1, command="c1")
    assert [r.seq for r in recs] == [2, 3]
    assert recs[1].cause == 2
    rows = list(store.rows())
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[1].prev == rows[0].hash
    assert rows[2].prev == rows[1].hash
    assert store.verify() is None


def test_stale_writer_gets_a_concurrency_error_and_nothing_is_written(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    other = SQLiteStore(tmp_path / "t.margin")
    other.append([Draft(Noted(text="first"))], 1, command="c1")
    with pytest.raises(ConcurrencyError) as err:
        store.append([Draft(Noted(text="late")), Draft(Noted(text="late too"))], 1, command="c2")
    assert err.value.actual == 2
    assert [r.event.text for r in store.records(1)] == ["first"]


def test_a_failing_batch_appends_none_of_its_events(tmp_path: Path) -> None:
    store = new_store(tmp_path)

    class Boom(Exception):
        pass

    class BadEvent:
        def __getattr__(self, name: str) -> object:
            raise Boom

    with pytest.raises(Exception):  # noqa: B017, PT011 - any encoding failure must roll back
        store.append([Draft(Noted(text="ok")), Draft(BadEvent())], 1, command="c1")  # type: ignore[arg-type]
    assert store.last_seq == 1
    assert store.append([Draft(Noted(text="next"))], 1, command="c2")[0].seq == 2


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
    db = sqlite3.connect(tmp_path / "t.margin")
    db.execute("DROP TRIGGER records_no_update")
    db.execute("UPDATE records SET body = replace(body, 'n2', 'XX') WHERE seq = 4")
    db.commit()
    db.close()
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
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE x (a)")
    db.commit()
    db.close()
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
    db = sqlite3.connect(tmp_path / "t.margin")
    db.execute(f"PRAGMA user_version={TABLE_FORMAT + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer margin"):
        SQLiteStore(tmp_path / "t.margin")
    ro = SQLiteStore(tmp_path / "t.margin", readonly=True)
    assert ro.last_seq == 1
    with pytest.raises(StoreError, match="read-only"):
        ro.append([Draft(Noted(text="x"))], 1, command="c")


def test_data_version_changes_when_another_connection_commits(tmp_path: Path) -> None:
    writer = new_store(tmp_path)
    reader = SQLiteStore(tmp_path / "t.margin", readonly=True)
    before = reader.data_version()
    writer.append([Draft(Rolled(actor="gm", dice="1d6", faces=[3], total=3))], 1, command="c1")
    assert reader.data_version() != before
    assert [r.seq for r in reader.records(1)] == [2]


def test_follow_delivers_new_records_quickly(tmp_path: Path) -> None:
    from margin.events import follow

    writer = new_store(tmp_path)
    reader = SQLiteStore(tmp_path / "t.margin", readonly=True)
    seen: list[tuple[int, float]] = []
    done = threading.Event()

    def on_records(batch: list) -> None:  # type: ignore[type-arg]
        now = time.perf_counter()
        seen.extend((r.seq, now) for r in batch)
        if seen[-1][0] >= 6:
            done.set()

    thread = threading.Thread(
        target=follow, args=(reader, 1, on_records), kwargs={"stop": done.is_set}
    )
    thread.start()
    sent = {}
    for i in range(5):
        sent[i + 2] = time.perf_counter()
        writer.append([Draft(Noted(text=str(i)))], writer.last_seq, command=f"c{i}")
        time.sleep(0.02)
    done.wait(5)
    thread.join(5)
    assert [s for s, _ in seen] == [2, 3, 4, 5, 6]
    # generous bound: the benchmark measures the real latency
    assert max(t - sent[s] for s, t in seen) < 1.0


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


def test_public_seqs_match_decoding_even_when_a_note_quotes_the_mark(tmp_path: Path) -> None:
    from margin.events import Visibility

    store = new_store(tmp_path)
    store.append([Draft(Noted(text='"visibility":{"gm_only":true'))], 1, command="c1")
    store.append(
        [Draft(Noted(text="secret", gm_only=True), visibility=Visibility(gm_only=True))],
        2,
        command="c2",
    )
    store.append(
        [Draft(Noted(text="shown"), visibility=Visibility(hidden=("text",)))], 3, command="c3"
    )
    decoded = [r.seq for r in store.records() if not r.visibility.gm_only]
    assert store.public_seqs(store.last_seq) == decoded == [1, 2, 4]
    assert store.public_seqs(2) == [1, 2]
