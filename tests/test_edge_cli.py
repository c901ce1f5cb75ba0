"""A full 2d10-edge fight run through `margin do`, read back with `margin state` and `margin log`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import check, demo_sheet, log_json, margin_do, run_margin, state_json

#: the demo's Kael and Moreau, with fewer points of Edge, Moreau as hard to hit as the guard
HERO = {**demo_sheet("2d10-edge"), "edge": 2}
LEGIONNAIRE = {**demo_sheet("2d10-edge", name="Moreau"), "edge": 1, "defense": 20}


@pytest.mark.slow
def test_a_full_fight_through_margin_do(tmp_path: Path) -> None:
    path = tmp_path / "fight.margin"
    assert run_margin("new", str(path), "--system", "2d10-edge").code == 0
    _, replies = margin_do(
        path,
        {"type": "add-character", "name": "Kael", "sheet": HERO},
        {"type": "add-character", "name": "Moreau", "sheet": LEGIONNAIRE},
        check("Kael", "athletics", tn="difficult", faces=[6, 5]),
        {
            "type": "start-encounter",
            "name": "cliff top",
            "characters": ["Kael", "Moreau"],
            "faces": [2, 2, 6],
        },
        {"type": "next-turn"},
        {
            "type": "attack",
            "character": "Moreau",
            "target": "Kael",
            "tn": 20,
            "mode": "burst",
            "faces": [3, 4, 4, 4, 4, 4, 4, 3],
        },
        {"type": "spend-edge", "character": "Kael", "purpose": "reaction"},
        {"type": "next-turn"},
        {"type": "attack", "character": "Kael", "target": "Moreau", "faces": [10, 11]},
        {"type": "spend-edge", "character": "Moreau", "purpose": "flying"},
        {
            "type": "attack",
            "character": "Kael",
            "target": "Moreau",
            "edge": "advantage",
            "faces": [2, 2, 4, 6, 6, 6, 6, 6],
        },
    )
    errors = [r for r in replies if "error" in r]
    assert [e["error"] for e in errors] == [
        "line 9: faces: 11 is not a face of a d10 (1..10)",
        "line 10: purpose: 'flying' is not a use of Edge (initiative, reaction, lessen-injury; "
        "advantage and damage go on the check/attack)",
    ]
    burst = replies[5]
    s = state_json(path)
    kael, moreau = s["characters"]["kael"], s["characters"]["moreau"]
    # the burst: 6d6+1 = 24 vs light armor (PT 15 - 3, DR 20): 5 soaked, 19 taken
    assert kael["damage"] == 19
    assert kael["injuries"][0]["severity"] == "serious"
    assert kael["edge"] == 0, "one for the reaction, one for Advantage"
    # Kael's sword with Edge-bought Advantage: 2,2,4 keeps the double, +5 with Edge, +19 = 28
    # vs TN 20 (MoS 8, +1d6); ST 9 makes the sword 4d6+3, so 5d6+3 = 33 vs medium armor
    # PT 25/DR 40: 13 soaked, 20 taken
    assert moreau["damage"] == 20
    assert s["world"]["encounter"]["current"] == "kael"
    records = log_json(path)
    tags = [r["type"] for r in records]
    assert tags.count("edge.injury") == 2
    assert "edge.burned" not in tags

    _, undo = margin_do(path, {"type": "undo", "command": burst["command"]})
    assert undo[0]["ok"]
    s = state_json(path)
    kael = s["characters"]["kael"]
    assert (kael["damage"], kael["injuries"]) == (0, [])
    records = log_json(path)
    injuries = [r for r in records if r["type"] == "edge.injury"]
    assert [r["undone"] for r in injuries] == [True, False]
    text = run_margin("log", str(path)).out
    assert "Kael: serious injury, 19 points" in text
    assert "(undone)" in text


def test_demo_and_rules_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "demo.margin"
    assert run_margin("demo", str(path)).code == 0
    s = state_json(path)
    assert s["characters"]["guard"]["damage"] == 14
    assert s["characters"]["enforcer"]["damage"] == 14
    rules = run_margin("rules", "2d10-edge")
    assert rules.code == 0
    assert "Edge Burn" in rules.out


def test_commands_are_in_the_schema() -> None:
    done = run_margin("do", "--schema", "--system", "2d10-edge")
    assert done.code == 0, done.err
    schema = json.loads(done.out)
    tags = {
        d["properties"]["type"]["enum"][0]
        for d in schema["$defs"].values()
        if "type" in d.get("properties", {})
    }
    assert {
        "check",
        "attack",
        "damage",
        "spend-edge",
        "lessen-injury",
        "edge-burn",
        "recover-edge",
        "award-edge",
        "dismiss-pending",
        "heal",
        "start-encounter",
        "join",
        "leave",
        "next-turn",
        "use-action",
        "end-encounter",
    } <= tags
