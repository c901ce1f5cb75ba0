"""The encounter clock of each dice system says where it stands as numbers, which replay's jumps read."""

from __future__ import annotations

from pathlib import Path

from margin.core import get_system
from margin.core.systems.base import Clock
from margin.core.systems.edge.state import EdgeWorld
from margin.core.systems.under.state import track
from margin.tui.table.demo import build_demo
from margin.tui.table.reader import clock_position
from margin.tui.table.table import Table


def demo_clock(tmp_path: Path, system: str) -> tuple[Table, Clock | None]:
    """The system's demo table, and its clock as the screen shows it."""
    table = build_demo(tmp_path / "demo.margin", system)
    clock = get_system(system).clock
    assert clock is not None
    return table, clock(table.state)


def test_an_initiative_order_gives_its_round_and_turn(tmp_path: Path) -> None:
    table, shown = demo_clock(tmp_path, "2d10-edge")
    world = table.state.world
    assert isinstance(world, EdgeWorld)
    assert world.encounter is not None
    assert shown is not None
    assert (shown.round, shown.turn) == (world.encounter.round, len(world.encounter.acted))
    assert clock_position(shown) == {"round": shown.round, "turn": shown.turn}


def test_a_timing_track_gives_its_count(tmp_path: Path) -> None:
    table, shown = demo_clock(tmp_path, "d100-under")
    assert shown is not None
    assert shown.count == track(table.state).now
    assert shown.round is None
    assert clock_position(shown) == {"count": shown.count}


def test_a_fight_gives_its_round_and_the_turn_is_who_acts(tmp_path: Path) -> None:
    table, shown = demo_clock(tmp_path, "d100-chance")
    assert shown is not None
    assert shown.round is not None
    acting = [i for i, row in enumerate(shown.rows) if row.current]
    assert clock_position(shown) == {"round": shown.round, "turn": acting[0] + 1}
