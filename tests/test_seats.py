"""Seats at the table: a player's margin gives the dice its entropy as it sits down.

Given a table whose session of dice players have seen committed, when a player's view
opens, then its entropy is in the log before the next die margin draws, and once the
session is opened every die verifies; a session committed while the player sits gets
their entropy too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import pilot_test, run_margin

from margin.core.commands import convert_command
from margin.core.dicecheck import check_dice
from margin.events import Record
from margin.tui.screens import app as appmod
from margin.tui.table.table import Table

SIZE = (100, 30)


def _gm(path: str, *commands: dict[str, object]) -> list[Record]:
    """The GM's margin gives ``commands``; every record they wrote."""
    table = Table.open(path)
    try:
        out: list[Record] = []
        for command in commands:
            out += table.execute(convert_command(table.state.system, command))
        return out
    finally:
        table.close()


def _records(path: str) -> list[Record]:
    table = Table.open(path, readonly=True)
    try:
        return list(table.store.records())
    finally:
        table.close()


def _tag(record: Record) -> str:
    return str(record.event.__struct_config__.tag)


@pytest.fixture
def path(tmp_path: Path) -> str:
    target = str(tmp_path / "t.margin")
    Table.create(target, "2d10-edge").close()
    _gm(target, {"type": "add-character", "name": "Kael"}, {"type": "roll", "dice": "1d6"})
    return target


@pilot_test
async def test_a_player_sitting_down_gives_entropy_before_the_next_die(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await player.workers.wait_for_complete()
        await pilot.pause()
        given = [r for r in _records(path) if _tag(r) == "dice.entropy"]
        assert [(r.event.seat, r.author.split(" (")[0]) for r in given] == [("kael", "kael")]
        (rolled,) = _gm(path, {"type": "roll", "dice": "1d20"})
        assert rolled.drawn is not None
        assert rolled.seq > given[0].seq
        # a new session, committed as the old one is opened: the seated player gives again
        _gm(path, {"type": "end-session"})
        await pilot.pause()
        await player.workers.wait_for_complete()
        await pilot.pause()
        again = [r for r in _records(path) if _tag(r) == "dice.entropy"]
        assert len(again) == 2
        assert again[1].seq > next(r.seq for r in _records(path) if _tag(r) == "dice.opened")
    report = check_dice(_records(path))
    assert report.problems == []
    assert report.tallies["gm"].checked == 2
    done = run_margin("verify", "--dice", path)
    assert done.code == 0, done.err


@pilot_test
async def test_no_entropy_before_players_see_a_session_committed(tmp_path: Path) -> None:
    target = str(tmp_path / "t.margin")
    Table.create(target, "2d10-edge").close()
    _gm(
        target,
        {"type": "add-character", "name": "Kael"},
        {"type": "add-character", "name": "Spy", "hidden": True},
        # the session is committed by a roll players do not see: they saw no commitment
        {"type": "roll", "dice": "1d6", "actor": "spy"},
    )
    before = len(_records(target))
    player = appmod.watch_app(target, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await player.workers.wait_for_complete()
        await pilot.pause()
        assert len(_records(target)) == before
        _gm(target, {"type": "roll", "dice": "1d8"})
        await pilot.pause()
        await player.workers.wait_for_complete()
        await pilot.pause()
        assert _tag(_records(target)[-1]) == "dice.entropy"
