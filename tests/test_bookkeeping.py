"""The GM's bookkeeping in every system: conditions, counters, joins, edits, groups, undo.

Each system runs the same fight twice, once through ``margin do`` and once
through the table screen's short forms: a condition lasting one round (one
count on a timing track) that is gone after one round of the system's clock,
a counter, someone joining mid-fight, an edit, a group of four, and an undo
of every command, each undo leaving the state exactly as it was before the
command it undid.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import message, run_margin, settled

from margin.core import get_system
from margin.core.commands import Undo
from margin.tui.screens.app import play_app
from margin.tui.screens.base import Step
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEMS = ("2d10-edge", "d100-chance", "d100-under", "2d6-effect")

#: a 2d10-edge mook: only Health and a weapon (missing attributes count as 0)
MOOK = {"health": 12, "weapons": ["punch"]}


def _seats(system: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo's first two characters, and the sheet of the group of four."""
    adds = [d for d in get_system(system).demo if d["type"] == "add-character"][:2]
    group_sheet = MOOK if system == "2d10-edge" else dict(adds[0].get("sheet", {}))
    return [{k: v for k, v in a.items() if k != "hidden"} for a in adds], group_sheet


#: a sheet field each system's edit changes, and the value it is set to
EDITS = {
    "2d10-edge": ("skills.melee.ranks", 5),
    "d100-chance": ("skills.stealth", 50),
    "d100-under": ("skills.Melee", 70),
    "2d6-effect": ("skills.Electronics", 3),
}


def _json_fight(system: str, a: str, b: str) -> list[dict[str, Any]]:
    """Commands in ``margin do`` JSON: the fight begins and the first turn starts."""
    starts: dict[str, dict[str, Any]] = {
        "2d10-edge": {"type": "start-encounter", "characters": [a, b], "faces": [6, 6, 1]},
        "d100-chance": {"type": "encounter", "order": [a, b]},
        "d100-under": {"type": "start-track"},
        "2d6-effect": {"type": "start-encounter", "characters": [a, b], "faces": [6, 6, 1, 1]},
    }
    start = starts[system]
    return [start, *([] if system == "d100-under" else [_json_next(system)])]


def _json_next(system: str) -> dict[str, Any]:
    nexts: dict[str, dict[str, Any]] = {
        "2d10-edge": {"type": "next-turn"},
        "d100-chance": {"type": "next"},
        "d100-under": {"type": "advance", "counts": 1},
        "2d6-effect": {"type": "next-turn"},
    }
    return nexts[system]


def _json_join(system: str, who: str) -> dict[str, Any]:
    joins: dict[str, dict[str, Any]] = {
        "2d10-edge": {"type": "join", "character": who, "faces": [1]},
        "d100-chance": {"type": "join", "character": who},
        "d100-under": {"type": "act", "character": who, "action": "draw"},
        "2d6-effect": {"type": "join", "character": who, "initiative": 2},
    }
    return joins[system]


def _json_steps(system: str) -> list[dict[str, Any]]:
    seats, group_sheet = _seats(system)
    a, b = seats[0]["name"], seats[1]["name"]
    field, value = EDITS[system]
    duration = {"counts": 1} if system == "d100-under" else {"rounds": 1}
    return [
        *seats,
        {"type": "add-character", "name": "Guard", "count": 4, "sheet": group_sheet, "npc": True},
        *_json_fight(system, a, b),
        {"type": "add-condition", "character": a, "name": "prone", **duration},
        {"type": "set-counter", "character": "Guard", "name": "Ammo", "max": 6},
        {"type": "adjust-counter", "character": ["Guard 1", "Guard 2"], "name": "ammo", "by": -2},
        _json_join(system, "Guard 1"),
        {"type": "edit", "character": a, "fields": {field: value}},
        *[_json_next(system)] * (1 if system == "d100-under" else 3),
    ]


def _state(table: Table) -> Any:
    table.catch_up()
    data = msgspec.to_builtins(table.state)
    data.pop("seq")
    return data


def _a(system: str) -> str:
    return str(_seats(system)[0][0]["name"])


def _check_fight(table: Table, system: str, states: list[Any]) -> None:
    """The fight's bookkeeping as it should stand, then every command undone in turn."""
    state = table.state
    a = next(c for c in state.characters.values() if c.name == _a(system))
    ended = [
        r.event for r in table.store.records() if r.event.__struct_config__.tag == "condition.ended"
    ]
    assert [(e.character, e.name, e.expired) for e in ended] == [(a.id, "prone", True)]
    assert a.conditions == []
    guards = [c for c in state.characters.values() if c.name.startswith("Guard ")]
    assert [g.name for g in guards] == ["Guard 1", "Guard 2", "Guard 3", "Guard 4"]
    assert [g.counters["ammo"].value for g in guards] == [4, 4, 6, 6]
    field, value = EDITS[system]
    sheet: Any = a.sheet
    for part in field.split("."):
        sheet = sheet[next(k for k in sheet if k.lower() == part.lower())]
    assert sheet == value
    # every command undone, last first: each leaves the state it found
    for before in reversed(states[:-1]):
        table.execute(Undo())
        assert _state(table) == before


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_fight_through_margin_do(system: str, tmp_path: Path) -> None:
    path = str(tmp_path / "t.margin")
    run_margin("new", path, "--system", system)
    table = Table.open(path, readonly=True)
    states = [_state(table)]
    lasting = None
    for n, step in enumerate(_json_steps(system)):
        code, out, _ = run_margin("do", path, stdin=json.dumps(step) + "\n")
        assert code == 0, (step, out)
        states.append(_state(table))
        if step["type"] == "add-condition":
            lasting = n
        if lasting is not None and n == lasting + 1:
            # a turn later the condition still holds
            assert any(c.conditions for c in table.state.characters.values())
    table.close()
    table = Table.open(path)
    try:
        _check_fight(table, system, states)
    finally:
        table.close()


#: the same fight in the table screen's short forms
LINES = {
    "2d10-edge": [
        "start",
        "join kael faces 6 6",
        "join moreau faces 1",
        "next",
        "cond kael prone 1r",
        "counter guard ammo 6",
        "adjust guard-1,guard-2 ammo -2",
        "join guard-1 faces 1",
        "edit kael skills.melee.ranks=5",
        "next",
        "next",
        "next",
    ],
    "d100-chance": [
        "fight rook vex",
        "next",
        "cond rook prone 1r",
        "counter guard ammo 6",
        "adjust guard-1,guard-2 ammo -2",
        "join guard-1",
        "edit rook skills.stealth=50",
        "next",
        "next",
        "next",
    ],
    "d100-under": [
        "track",
        "cond kael prone 1c",
        "counter guard ammo 6",
        "adjust guard-1,guard-2 ammo -2",
        "act guard-1 draw",
        "edit kael skills.Melee=70",
        "advance",
    ],
    "2d6-effect": [
        "start vex mira = 6 6 1 1",
        "next",
        "cond vex prone 1r",
        "counter guard ammo 6",
        "adjust guard-1,guard-2 ammo -2",
        "join guard-1 2",
        "edit vex skills.Electronics=3",
        "next",
        "next",
        "next",
    ],
}


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_same_fight_in_short_forms(system: str, tmp_path: Path) -> None:
    """Typed on the GM's table screen, line by line."""
    path = tmp_path / "t.margin"
    Table.create(path, system).close()
    seats, group_sheet = _seats(system)
    sheet = " ".join(f"{k}={json.dumps(v)}" for k, v in group_sheet.items())
    lines = [*(json.dumps(seat) for seat in seats), f"add Guard x4 npc {sheet}", *LINES[system]]
    states: list[Any] = []

    async def play() -> None:
        app = play_app(str(path))
        app.view.table.dice = RandomDice(5)
        async with app.run_test(size=(100, 30)) as pilot:
            states.append(_state(app.view.table))
            for line in lines:
                before = app.view.table.projection.seq
                app.enqueue(Step(text=line))
                await settled(pilot)  # the line is written in a worker
                assert app.view.table.projection.seq > before, (line, message(app))
                states.append(_state(app.view.table))
        app.view.table.close()

    asyncio.run(play())
    table = Table.open(path)
    try:
        _check_fight(table, system, states)
    finally:
        table.close()
