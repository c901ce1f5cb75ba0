"""The encounter clock of each dice system says where it stands as numbers, which replay's jumps read."""

from __future__ import annotations

from pathlib import Path

from margin.core import get_system
from margin.core.systems.edge.state import EdgeWorld
from margin.core.systems.under.state import track
from margin.tui.demo import build_demo
from margin.tui.view import clock_position


def test_an_initiative_order_gives_its_round_and_turn(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "e.margin", "2d10-edge")
    clock = get_system("2d10-edge").clock
    assert clock is not None
    shown = clock(table.state)
    world = table.state.world
    assert isinstance(world, EdgeWorld)
    assert world.encounter is not None
    assert shown is not None
    assert (shown.round, shown.turn) == (world.encounter.round, len(world.encounter.acted))
    assert clock_position(shown) == {"round": shown.round, "turn": shown.turn}


def test_a_timing_track_gives_its_count(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "u.margin", "d100-under")
    clock = get_system("d100-under").clock
    assert clock is not None
    shown = clock(table.state)
    assert shown is not None
    assert shown.count == track(table.state).now
    assert shown.round is None
    assert clock_position(shown) == {"count": shown.count}


def test_a_fight_gives_its_round_and_the_turn_is_who_acts(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "c.margin", "d100-chance")
    clock = get_system("d100-chance").clock
    assert clock is not None
    shown = clock(table.state)
    assert shown is not None
    assert shown.round is not None
    acting = [i for i, row in enumerate(shown.rows) if row.current]
    assert clock_position(shown) == {"round": shown.round, "turn": acting[0] + 1}
