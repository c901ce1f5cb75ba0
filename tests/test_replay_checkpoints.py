"""Checkpoints as corrected kept beside those as it happened: where an undo reaches back past
a checkpoint, a replay stands at any record by folding from the nearest one, and one that
does not belong to the log is passed over, never shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import finds
from test_secrecy import _demo_sheets, play
from test_snapshots import seen

from margin.core import projection as projection_module
from margin.core import snapshot as snapshots
from margin.events import open_store
from margin.tui.table import table as table_module
from margin.tui.table.table import Table

#: rolls and checks, then undos, a redo and an undo that reach back past checkpoints
STEPS = [
    (n, kind, who, n)
    for n, (kind, who) in enumerate(
        [("roll", 0), ("check", 0), ("roll", "h"), ("note", 1), ("check", 1)] * 3
        + [("undo", 0), ("undo", 0), ("redo", 0), ("undo", "h"), ("roll", 1), ("undo", 1)]
    )
]


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A table whose first opening kept checkpoints every 4 records, both kinds."""
    monkeypatch.setattr(snapshots, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(projection_module, "RECALL_AFTER", 0)
    monkeypatch.setattr(Table, "snapshot_at_close", 1)
    path = tmp_path / "t.margin"
    play(path, "2d10-edge", STEPS, "Zyxquil").close()
    with open_store(path) as store:
        store.drop_snapshots()
    Table(open_store(path), every=4).close()
    return path


def amended(path: Path) -> list[int]:
    """The records the store keeps checkpoints as corrected after."""
    with open_store(path, readonly=True) as store:
        last = store.last_seq
        fold = table_module._amended_fold()
        return [s for s in range(last + 1) if (p := store.snapshot(fold, s)) and p.seq == s]


def found_amended(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each ask for a kept checkpoint as corrected found one, from now on."""
    return finds(monkeypatch, Table, "_amended")


def player(path: Path) -> str:
    return str(_demo_sheets("2d10-edge")[0][0]["name"])


def whole_fold(path: Path) -> tuple[Any, ...]:
    with open_store(path) as store:
        store.drop_snapshots()
    return seen(path, player(path))


def test_a_replay_folds_from_the_checkpoints_as_corrected_and_stands_where_a_whole_fold_does(
    table: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert amended(table)
    used = found_amended(monkeypatch)
    kept = seen(table, player(table))
    assert any(used)
    assert kept == whole_fold(table)


@pytest.mark.parametrize(
    "other",
    [
        lambda made, last: (0, last),
        lambda made, last: (made + 10_000, last),
        lambda made, last: (made, last + 1),
    ],
    ids=["no changes", "more changes than the log", "another last change"],
)
def test_a_checkpoint_as_corrected_of_other_changes_is_passed_over(
    table: Path, other: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One that names more changes than the log holds, or a last change that is not the
    log's, holds a state folded otherwise: it is not used."""
    fold = table_module._amended_fold()
    with open_store(table) as store:
        points = []
        for seq in amended(table):
            point = store.snapshot(fold, seq)
            assert point is not None
            size = table_module._AMENDS.size
            named = other(*table_module._AMENDS.unpack_from(point.body))
            body = table_module._AMENDS.pack(*named) + point.body[size:]
            points.append((seq, body))
        assert store.keep_snapshots(fold, points, keep=0) == len(points)
    used = found_amended(monkeypatch)
    kept = seen(table, player(table))
    assert used
    assert not any(used)
    assert kept == whole_fold(table)
