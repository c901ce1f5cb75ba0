"""One plan per check: the odds shown before a roll and the roll itself read the same plan,
so the numbers the odds name are the numbers the event records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from margin.core import get_system
from margin.core.commands import convert_command
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table


@pytest.fixture
def edge(tmp_path: Path) -> Table:
    return build_demo(tmp_path / "e.margin", "2d10-edge")


@pytest.fixture
def chance(tmp_path: Path) -> Table:
    return build_demo(tmp_path / "c.margin", "d100-chance")


@pytest.mark.parametrize(
    "data",
    [
        {"type": "check", "character": "Kael", "skill": "athletics", "tn": 25, "advantage": 1},
        {
            "type": "check",
            "character": "Kael",
            "skill": "athletics",
            "tn": "difficult",
            "modifier": -3,
        },
        {"type": "check", "character": "Moreau", "skill": "athletics", "tn": 15, "disadvantage": 2},
    ],
)
def test_edge_odds_name_the_bonus_tn_and_mode_the_check_rolls(
    edge: Table, data: dict[str, Any]
) -> None:
    system = get_system("2d10-edge")
    cmd = convert_command("2d10-edge", data)
    assert system.odds is not None
    shown = system.odds(cmd, edge.state)
    assert shown is not None
    (record,) = [r for r in edge.execute(cmd) if r.event.__struct_config__.tag == "edge.check"]
    event = record.event
    mode = "" if event.mode == "normal" else f" ({event.mode})"
    assert shown.label.endswith(f"{event.skill} +{event.bonus} vs TN {event.tn}{mode}")


def test_chance_odds_name_the_chance_the_check_rolls_against(chance: Table) -> None:
    system = get_system("d100-chance")
    data = {
        "type": "check",
        "character": "Rook",
        "skill": "stealth",
        "difficulty": 40,
        "modifiers": ["proper-tools"],
    }
    cmd = convert_command("d100-chance", data)
    assert system.odds is not None
    shown = system.odds(cmd, chance.state)
    assert shown is not None
    (record,) = chance.execute(cmd)
    assert shown.label.endswith(f": {record.event.chance}%")
    assert shown.success == pytest.approx(record.event.chance / 100)
