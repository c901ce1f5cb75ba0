"""Turn cues: whose turn it is, as each system's clock means it, and who is on deck."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import events_of

from margin.core import get_system
from margin.core.clock import cue, table_clock
from margin.core.commands import convert_command
from margin.tui.table.table import Table


def _demo(tmp_path: Path, system: str) -> Table:
    table = Table.create(tmp_path / "t.margin", system)
    for data in get_system(system).demo:
        table.execute(convert_command(system, data))
    return table


def _cued(table: Table, kind: str) -> list[str]:
    clock = table_clock(table.state)
    assert clock is not None
    return [row.name for row in clock.rows if cue(clock, row.name) == kind]


@pytest.mark.parametrize(
    ("system", "start", "next_turn"),
    [
        ("2d10-edge", None, "next-turn"),
        ("d100-chance", None, "next"),
        ("2d6-effect", None, "next-turn"),
    ],
)
def test_who_is_on_deck_gets_the_next_turn(tmp_path: Path, system: str, start, next_turn) -> None:
    table = _demo(tmp_path, system)
    if start is not None:
        events_of(table, **start)
    for _ in range(8):
        (on_deck,) = _cued(table, "on deck")
        events_of(table, type=next_turn)
        assert _cued(table, "turn") == [on_deck]
    table.close()


def test_on_the_timing_track_the_turn_comes_when_the_action_comes_due(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "d100-under")
    for name in ("Ada", "Kael"):
        events_of(table, type="add-character", name=name)
    events_of(table, type="start-track")
    events_of(table, type="act", character="Ada", action="revolver")  # due on count 3
    events_of(table, type="act", character="Kael", action="spell ward", cost=5)
    # counting down is not a turn: Ada is on deck until her count comes
    assert (_cued(table, "turn"), _cued(table, "on deck")) == ([], ["Ada"])
    events_of(table, type="advance")
    assert (_cued(table, "turn"), _cued(table, "on deck")) == ([], ["Ada"])
    events_of(table, type="advance", next=True)
    assert (_cued(table, "turn"), _cued(table, "on deck")) == (["Ada"], ["Kael"])
    clock = table_clock(table.state)
    assert clock is not None
    (ada,) = [row for row in clock.rows if row.name == "Ada"]
    assert (ada.value, ada.note) == ("due", "revolver came due on count 3")
    # declaring the next action ends the turn
    events_of(table, type="act", character="Ada", action="draw")
    assert _cued(table, "turn") == []
    events_of(table, type="advance", next=True)
    assert (_cued(table, "turn"), _cued(table, "on deck")) == (["Ada", "Kael"], [])
    # the track moving on ends it too
    events_of(table, type="advance")
    assert _cued(table, "turn") == []
    table.close()


def test_no_clock_no_cue() -> None:
    assert cue(None, "Ada") == ""
