"""Snapshots of the fold are a cache: with one, without one, or with one that must not be used,
opening a table gives the same state, undo history and players' view as folding the whole log.

The sessions are those of the secrecy property (``test_secrecy.play``): every system,
hidden characters, secret rolls, undo, redo and reveals. A snapshot that does not match
the chain, or that another fold kept, holds a state that differs from the table's, so a
margin that used it would be caught.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import finds
from test_secrecy import SYSTEMS, _demo_sheets, _screen, actions, play

from margin.core import Projection, get_system
from margin.core import projection as projection_module
from margin.core import snapshot as snapshots
from margin.core.lens import PlayerLens, player_state
from margin.events import Snapshot, Store, open_store
from margin.events.sqlite import SQLiteStore
from margin.tui.table.reader import LiveTable, View
from margin.tui.table.table import Table


def folded(store: Store, upto: int) -> Projection:
    projection = Projection(lambda after, to: store.records(after, to))
    projection.extend(store.records(0, upto))
    return projection


def snapshot_at(store: Store, upto: int, lens: bool = True) -> bytes:
    """A snapshot of the log at record ``upto``, made as a table keeps one."""
    projection = folded(store, upto)
    index = None
    if lens:
        reader = PlayerLens()
        reader.feed(store.records(0, upto))
        index = snapshots.encode_lens(reader)
    return snapshots.encode(snapshots.encode_fold(projection.state, projection.history), index)


def wrong_snapshot(store: Store, at: int) -> bytes:
    """What a snapshot that must not be used holds: the fold of fewer records than it says."""
    early = snapshots.decode(snapshot_at(store, max(1, at - 3), False))
    assert early is not None
    early.state.seq = early.history.head = at
    return snapshots.encode(snapshots.encode_fold(early.state, early.history))


def seen(path: Path, player: str) -> tuple[Any, ...]:
    """The table's fold and a player's view of it, opened as ``margin play`` and ``margin
    watch`` open it."""
    table = Table.open(path, readonly=True)
    try:
        gm = (msgspec.to_builtins(table.state), table.projection.history)
    finally:
        table.close()
    live = LiveTable.open_live(str(path), readonly=True, lens=True)
    try:
        reader = live.reader
        assert reader is not None
        world = get_system(live.state.system).player_world
        lensed = player_state(live.state, reader, world, live.projection.history.voided)
        view = View(live, player=player)
        screen = list(_screen(view))
        return (*gm, msgspec.to_builtins(lensed), list(reader.seqs), screen, *replayed(live))
    finally:
        live.close()


def replayed(live: LiveTable) -> tuple[list[str], list[str]]:
    """A player's replay and the GM's, at every record, as it happened and as corrected."""
    player = replay(View(live, player=_player_of(live)))
    gm = replay(View(live))
    return player, gm


def replay(view: View) -> list[str]:
    out: list[str] = []
    for corrected in (False, True):
        view.set_corrected(corrected)
        for position in range(len(view.seqs())):
            view.goto(position)
            out.extend(_screen(view))
            out.append(repr(msgspec.to_builtins(view.state())))
    return out


def _player_of(live: LiveTable) -> str:
    return next(c.name for c in live.state.characters.values() if not c.hidden)


def check_snapshots(tmp: Path, system: str, steps: list[Any], cut: float) -> None:
    path = tmp / "t.margin"
    numbered = [(n, *step) for n, step in enumerate(steps)]
    play(path, system, numbered, "Zyxquil").close()
    player = _demo_sheets(system)[0][0]["name"]
    with open_store(path) as store:
        store.drop_snapshots()
        last = store.last_seq
        at = max(1, min(last - 1, round(cut * last)))
        good = snapshot_at(store, at)
        wrong = wrong_snapshot(store, at)
    whole = seen(path, player)

    with open_store(path) as store:
        assert store.keep_snapshot(at, snapshots.fold_version(), good)
    assert seen(path, player) == whole, "a good snapshot"

    with open_store(path) as store:
        store.drop_snapshots()
        assert store.keep_snapshot(at, snapshots.fold_version(), snapshot_at(store, at, False))
    assert seen(path, player) == whole, "a snapshot without the players' index"

    with open_store(path) as store:
        store.drop_snapshots()
        digest = next(iter(store.rows(at - 2, at - 1))).hash if at > 1 else "0" * 64
        store._keep_snapshots([Snapshot(at, digest, snapshots.fold_version(), wrong)], 3)
        assert store.keep_snapshot(at, "0-an-earlier-fold", wrong)
    assert seen(path, player) == whole, "snapshots of another chain and of another fold"

    with open_store(path) as store:
        store.drop_snapshots()
    assert seen(path, player) == whole, "no snapshot"


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=actions, cut=st.floats(0, 1))
def test_a_snapshot_good_bad_or_gone_gives_the_state_of_the_whole_fold(
    system: str, steps: list[Any], cut: float
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_snapshots(Path(tmp), system, steps, cut)


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=actions)
def test_a_players_index_read_beside_the_opening_fold_is_the_whole_logs(
    system: str, steps: list[Any]
) -> None:
    # A player's table opening from no snapshot indexes the log for players as its fold
    # reads it, for a reader none is addressed to; it keeps that index only for a player
    # nothing up to there is addressed to (a whisper, an ask), and reads the log again
    # for one something is. Either way: the index of the whole log, read for that player.
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.margin"
        play(path, system, [(n, *step) for n, step in enumerate(steps)], "Zyxquil").close()
        names = [sheet["name"] for sheet in _demo_sheets(system)[0]]
        for player in (None, *names):
            with open_store(path) as store:
                store.drop_snapshots()
            live = LiveTable.open_live(str(path), readonly=True, lens=True, player=player)
            try:
                reader = live.reader
                assert reader is not None
                alone = PlayerLens(live.state.revealed, reader.reader)
                alone.feed(live.store.records(0, live.projection.seq))
                assert snapshots.encode_lens(reader) == snapshots.encode_lens(alone)
                assert (reader.reader is None) == (player is None)
            finally:
                live.close()


def test_a_players_table_opening_from_no_snapshot_reads_the_log_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.margin"
    play(path, "2d10-edge", [(n, "note", 0, n) for n in range(40)], "Zyxquil").close()
    player = _demo_sheets("2d10-edge")[0][0]["name"]
    with open_store(path) as store:
        store.drop_snapshots()
        last = store.last_seq
    read: list[int] = []
    records = SQLiteStore.records

    def counted(self: SQLiteStore, after: int = 0, upto: int | None = None) -> Any:
        for record in records(self, after, upto):
            read.append(record.seq)
            yield record

    monkeypatch.setattr(SQLiteStore, "records", counted)
    live = LiveTable.open_live(str(path), readonly=True, lens=True, player=player)
    live.close()
    assert sorted(read) == list(range(1, last + 1))
    assert live.reader is not None
    assert live.reader.last == last


def test_the_wrong_snapshot_would_be_caught(tmp_path: Path) -> None:
    """The property's wrong snapshot, used as if good, gives another state."""
    path = tmp_path / "t.margin"
    steps = [(n, "roll", 0, n) for n in range(6)]
    play(path, "2d10-edge", steps, "Zyxquil").close()
    with open_store(path) as store:
        at = store.last_seq - 1
        body = wrong_snapshot(store, at)
    player = _demo_sheets("2d10-edge")[0][0]["name"]
    with open_store(path) as store:
        store.drop_snapshots()
    whole = seen(path, player)
    with open_store(path) as store:
        store.keep_snapshot(at, snapshots.fold_version(), body)
    assert seen(path, player) != whole


def test_a_replay_from_kept_checkpoints_stands_where_a_whole_fold_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkpoints kept beside the snapshots, one a few records, with undos reaching back
    past them: every record of a replay, both ways, is the whole fold's."""
    monkeypatch.setattr(snapshots, "CHECKPOINT_EVERY", 4)
    monkeypatch.setattr(projection_module, "RECALL_AFTER", 0)
    recalled = finds(monkeypatch, Table, "_recall")
    monkeypatch.setattr(Table, "snapshot_at_close", 1)
    path = tmp_path / "t.margin"
    steps = [
        (n, kind, who, n)
        for n, (kind, who) in enumerate(
            [("roll", 0), ("check", 0), ("roll", "h"), ("note", 1), ("check", 1)] * 3
            + [("undo", 0), ("undo", 0), ("redo", 0), ("undo", "h"), ("roll", 1)]
        )
    ]
    play(path, "2d10-edge", steps, "Zyxquil").close()
    with open_store(path) as store:
        store.drop_snapshots()
    Table(open_store(path), every=4).close()
    with open_store(path, readonly=True) as store:
        assert store.snapshot(snapshots.checkpoint_fold(), 8) is not None
    kept = seen(path, _demo_sheets("2d10-edge")[0][0]["name"])
    assert any(recalled)
    with open_store(path) as store:
        store.drop_snapshots()
    assert kept == seen(path, _demo_sheets("2d10-edge")[0][0]["name"])


def kept_with_lens(path: Path) -> tuple[Snapshot, bytes]:
    """The newest snapshot a table keeps of this fold, and the players' index it carries."""
    with open_store(path, readonly=True) as store:
        kept = store.snapshot(snapshots.fold_version())
    assert kept is not None
    restored = snapshots.decode(kept.body)
    assert restored is not None
    assert restored.lens is not None
    return kept, restored.lens


def test_a_table_keeps_a_snapshot_and_opens_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Table, "snapshot_every", 5)
    monkeypatch.setattr(Table, "snapshot_at_close", 1)
    path = tmp_path / "t.margin"
    play(path, "2d10-edge", [(n, "roll", 0, n) for n in range(8)], "Zyxquil").close()
    with open_store(path, readonly=True) as store:
        kept = store.snapshot(snapshots.fold_version())
        assert kept is not None
        assert kept.seq == store.last_seq
        assert snapshots.decode(kept.body) is not None
    table = Table.open(path)
    assert table.snapshot_seq == table.projection.seq
    table.close()
    # a player's screen opening on the GM's snapshot indexes the log and keeps its index
    live = LiveTable.open_live(str(path), readonly=True, lens=True)
    live.close()
    kept_with_lens(path)
    # and the GM's next snapshot carries it on
    table = Table.open(path)
    for _ in range(5):
        table.execute(convert_note("on"))
    assert table.snapshot_seq == table.projection.seq
    table.close()
    kept, lens_body = kept_with_lens(path)
    lens = snapshots.decode_lens(lens_body, kept.seq)
    assert lens is not None
    with open_store(path, readonly=True) as store:
        whole = PlayerLens()
        whole.feed(store.records())
    assert list(lens.seqs) == list(whole.seqs)


def convert_note(text: str) -> Any:
    from margin.core.commands import Note

    return Note(text=text)


def test_the_fold_version_names_the_code_of_the_fold_and_of_its_types() -> None:
    version = snapshots.fold_version()
    assert version.startswith(f"{snapshots.FOLD_NUMBER}-")
    assert version == snapshots.fold_version()
    named = set(snapshots._sources())
    # every fold step (core) and every type a state is made of (core and events)
    for part in ("core/decider.py", "core/systems/edge/state.py", "events/record.py"):
        assert part.encode() in named


def test_a_snapshot_that_will_not_decode_is_passed_over(tmp_path: Path) -> None:
    assert snapshots.decode(b"not a snapshot") is None
    assert snapshots.decode(msgspec.msgpack.encode([3, "no-such-system", 1, 2, None])) is None
    assert snapshots.decode_lens(b"\x00", 1) is None
