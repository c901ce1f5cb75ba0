"""Old records always load: the event schema is pinned, and old formats upgrade."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from margin import events
from margin.events import Draft, Noted, SQLiteStore, TableCreated, event_schema
from margin.events import record as record_module


def test_event_schema_is_unchanged(snapshot: SnapshotAssertion) -> None:
    """Any change to an event's shape shows here; update the snapshot only on purpose."""
    assert event_schema() == snapshot


def test_every_tag_is_unique_and_namespaced() -> None:
    tags = [t.__struct_config__.tag for t in events.ALL_EVENTS]
    assert len(tags) == len(set(tags))
    assert all(isinstance(tag, str) and "." in tag for tag in tags)


def test_an_old_format_record_is_upgraded_on_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-written record of an older format (where a note's text was called ``body``)."""
    store = SQLiteStore(tmp_path / "t.margin", create=True)
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    store.close()
    old_body = b'{"seq":2,"at":"2026-01-01T00:00:00Z","author":"gm","command":"c1","event":{"type":"table.note","body":"from the past"}}'
    db = sqlite3.connect(tmp_path / "t.margin")
    prev = db.execute("SELECT hash FROM records WHERE seq = 1").fetchone()[0]
    digest = hashlib.sha256(prev.encode() + b"\n" + old_body).hexdigest()
    old_format = record_module.FORMAT
    db.execute(
        "INSERT INTO records VALUES (2, 'c1', ?, ?, ?, ?)", (old_format, prev, digest, old_body)
    )
    db.commit()
    db.close()

    def rename_body(data: dict[str, Any]) -> dict[str, Any]:
        event = data["event"]
        if event["type"] == "table.note" and "body" in event:
            event["text"] = event.pop("body")
        return data

    monkeypatch.setattr(record_module, "FORMAT", old_format + 1)
    monkeypatch.setitem(record_module.UPGRADES, old_format, rename_body)
    store = SQLiteStore(tmp_path / "t.margin", readonly=True)
    records = list(store.records())
    assert records[1].event == Noted(text="from the past")
    assert store.verify() is None  # the chain covers the bytes as stored


def test_a_missing_upgrade_step_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_module, "FORMAT", record_module.FORMAT + 1)
    with pytest.raises(events.DecodeError, match="no upgrade from record format"):
        record_module.decode_body(b"{}", record_module.FORMAT - 1)
