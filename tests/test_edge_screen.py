"""What the table screen gets from 2d10-edge: short forms, log lines, status, clock, odds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from margin.core import RuleError
from margin.core.commands import convert_command
from margin.core.systems.edge import SYSTEM, present
from margin.core.systems.edge.words import GRAMMAR
from margin.events import event_fields
from margin.events.systems.edge import EVENTS
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Table:
    return build_demo(Path(tmp_path_factory.mktemp("demo")) / "demo.margin", "2d10-edge")


def words(text: str, table: Table) -> dict[str, Any] | None:
    return GRAMMAR.parse(text.split(), table.state)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        (
            "check kael athletics vs 30 adv",
            {"type": "check", "character": "kael", "skill": "athletics", "tn": 30, "advantage": 1},
        ),
        (
            "check kael athletics vs very difficult edge",
            {
                "type": "check",
                "character": "kael",
                "skill": "athletics",
                "tn": "very-difficult",
                "edge": "advantage",
            },
        ),
        (
            "check kael perception vs 20 dis edge",
            {
                "type": "check",
                "character": "kael",
                "skill": "perception",
                "tn": 20,
                "disadvantage": 1,
                "edge": "remove-disadvantage",
            },
        ),
        (
            "check kael athletics vs 25 mod -2 keep 0 2 faces 3 4 9",
            {
                "type": "check",
                "character": "kael",
                "skill": "athletics",
                "tn": 25,
                "modifier": -2,
                "keep": [0, 2],
                "faces": [3, 4, 9],
            },
        ),
        (
            "attack moreau guard fam-90 burst vs 20",
            {
                "type": "attack",
                "character": "moreau",
                "target": "guard",
                "weapon": "fam-90",
                "mode": "burst",
                "tn": 20,
            },
        ),
        (
            "attack vask enforcer edge-damage hold reaction",
            {
                "type": "attack",
                "character": "vask",
                "target": "enforcer",
                "edge_damage": True,
                "damage": False,
                "action": "reaction",
            },
        ),
        ("edge kael damage", {"type": "damage", "attacker": "kael", "edge_boost": True}),
        (
            "edge kael initiative faces 3 4",
            {"type": "spend-edge", "character": "kael", "purpose": "initiative", "faces": [3, 4]},
        ),
        ("edge kael reaction", {"type": "spend-edge", "character": "kael", "purpose": "reaction"}),
        ("edge kael lessen 17", {"type": "lessen-injury", "character": "kael", "injury": 17}),
        ("burn kael", {"type": "edge-burn", "character": "kael"}),
        ("damage kael", {"type": "damage", "attacker": "kael"}),
        (
            "damage guard 3d6+2 stun pt-3",
            {
                "type": "damage",
                "target": "guard",
                "dice": 3,
                "bonus": 2,
                "stun": True,
                "pt_reduction": 3,
            },
        ),
        (
            "check kael athletics vs 22 secret option-dis",
            {
                "type": "check",
                "character": "kael",
                "skill": "athletics",
                "tn": 22,
                "secret_tn": True,
                "chosen_disadvantage": 1,
            },
        ),
        ("next", {"type": "next-turn"}),
        ("start cliff top", {"type": "start-encounter", "name": "cliff top"}),
        ("join kael faces 3 4", {"type": "join", "character": "kael", "faces": [3, 4]}),
        ("leave kael", {"type": "leave", "character": "kael"}),
        ("end", {"type": "end-encounter"}),
        (
            "use kael move to cover",
            {"type": "use-action", "character": "kael", "action": "move", "what": "to cover"},
        ),
        (
            "recover session-end",
            {"type": "recover-edge", "reason": "session-end", "characters": []},
        ),
        ("award kael major", {"type": "award-edge", "character": "kael", "size": "major"}),
        ("dismiss kael 7", {"type": "dismiss-pending", "character": "kael", "pending": 7}),
        (
            "heal kael 5 cared",
            {"type": "heal", "character": "kael", "points": 5, "stun": False, "cared": True},
        ),
    ],
)
def test_short_forms(demo: Table, text: str, command: dict[str, Any]) -> None:
    parsed = words(text, demo)
    assert parsed == command
    convert_command("2d10-edge", parsed)


def test_unknown_words_are_not_ours(demo: Table) -> None:
    assert words("roll 2d6", demo) is None
    with pytest.raises(RuleError, match="usage: check NAME SKILL"):
        words("check kael", demo)
    with pytest.raises(RuleError, match="'fly' is not a use of Edge"):
        words("edge kael fly", demo)
    with pytest.raises(RuleError, match="vs: give a TN"):
        words("check kael athletics vs", demo)


def test_every_event_has_a_log_line(demo: Table) -> None:
    seen = set()
    for record in demo.store.records():
        data = event_fields(record.event)
        line = present.describe(data)
        if data["type"].startswith("edge."):
            assert line, data
            seen.add(data["type"])
    assert {
        "edge.check",
        "edge.attack",
        "edge.damage",
        "edge.injury",
        "edge.spent",
        "edge.turn",
    } <= seen
    for event_type in EVENTS:
        tag = event_type.__struct_config__.tag
        assert present.describe({"type": tag}) is not None, tag


def test_log_lines_of_the_worked_examples(demo: Table) -> None:
    lines = [present.describe(event_fields(r.event)) or "" for r in demo.store.records()]
    assert any("24 vs PT 25-3/DR 40: 10 soaked, 14 taken" in x for x in lines)
    assert any("24 vs PT 20/DR 40: 10 soaked, 14 taken" in x for x in lines)
    assert any(
        "athletics +20 [7,8] = 35 vs TN 30 (difficult): MoS 5, significant success" in x
        for x in lines
    )


def test_status_and_clock(demo: Table) -> None:
    assert SYSTEM.status is not None
    assert SYSTEM.clock is not None
    kael = demo.state.characters["kael"]
    status = SYSTEM.status(kael, demo.state)
    assert status[:2] == ["Edge 3/3", "Health 40/40"]
    assert any(s.startswith("adv pending: athletics") for s in status)
    guard = SYSTEM.status(demo.state.characters["guard"], demo.state)
    assert "Health 16/30" in guard
    assert any("serious injury 14" in s for s in guard)
    clock = SYSTEM.clock(demo.state)
    assert clock is not None
    assert clock.title == "Round 1, turn 3 (Ambush at the cliff top)"
    assert [r.name for r in clock.rows] == ["Moreau", "Vask", "Kael", "Enforcer", "Guard"]
    current = [r for r in clock.rows if r.current]
    assert [r.name for r in current] == ["Kael"]
    assert current[0].note.startswith("major move minor")


def test_damage_past_health_is_said_apart(demo: Table) -> None:
    import msgspec

    guard = demo.state.characters["guard"]
    # alive and conscious with 51 damage against Health 30: no negative Health
    hurt = msgspec.structs.replace(guard, damage=51)
    status = SYSTEM.status(hurt, demo.state)
    assert "Health 0/30 (21 damage past 0)" in status
    assert not any(s.startswith("Health -") for s in status)
    assert "Health 0/30" in SYSTEM.status(msgspec.structs.replace(guard, damage=30), demo.state)


def test_odds_before_rolling(demo: Table) -> None:
    assert SYSTEM.odds is not None
    climb = convert_command(
        "2d10-edge", {"type": "check", "character": "kael", "skill": "athletics", "tn": 30}
    )
    odds = SYSTEM.odds(climb, demo.state)
    assert odds is not None
    assert "advantage" in odds.label, "the pending Advantage counts"
    plain = convert_command(
        "2d10-edge",
        {"type": "check", "character": "kael", "skill": "athletics", "tn": 30, "pending": "none"},
    )
    base = SYSTEM.odds(plain, demo.state)
    assert base is not None
    assert base.success == pytest.approx(0.64)
    assert odds.success > base.success
    attack = convert_command(
        "2d10-edge", {"type": "attack", "character": "kael", "target": "guard"}
    )
    on_guard = SYSTEM.odds(attack, demo.state)
    assert on_guard is not None
    assert on_guard.label.startswith("Kael: melee +19 vs TN 20")
    roll = convert_command("2d10-edge", {"type": "next-turn"})
    assert SYSTEM.odds(roll, demo.state) is None


def test_faces_may_come_before_keep_as_in_the_rules_doc(demo: Table) -> None:
    assert words("check kael athletics vs 25 faces 3 4 9 keep 0 1", demo) == {
        "type": "check",
        "character": "kael",
        "skill": "athletics",
        "tn": 25,
        "faces": [3, 4, 9],
        "keep": [0, 1],
    }
    with pytest.raises(RuleError, match=r"faces: give the dice rolled"):
        words("check kael athletics vs 25 faces", demo)


def test_a_stray_word_after_the_options_is_named(demo: Table) -> None:
    with pytest.raises(RuleError, match=r"^'advv' is not a word of this command \(vs, adv,"):
        words("check kael athletics vs 25 advv", demo)
    with pytest.raises(RuleError, match=r"^'sword' is not a word of this command \(.*burst"):
        words("attack kael guard vs 20 sword", demo)
    with pytest.raises(RuleError, match=r"^'adv' is not a word of this command \(faces \.\.\.\)"):
        words("join kael adv", demo)
    # words before the options are the skill (or weapon), several words joined by '-'
    parsed = words("check kael heavy weapons vs 20", demo)
    assert parsed is not None
    assert parsed["skill"] == "heavy-weapons"


def test_the_clock_drops_who_left_the_table_and_marks_the_dead(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "demo.margin", "2d10-edge")
    for cmd in (
        {"type": "remove-character", "character": "Vask"},
        {"type": "damage", "target": "Guard", "dice": 10, "armor": False, "faces": [6] * 10},
    ):
        table.execute(convert_command("2d10-edge", cmd))
    assert SYSTEM.clock is not None
    clock = SYSTEM.clock(table.state)
    assert clock is not None
    assert [r.name for r in clock.rows] == ["Moreau", "Kael", "Enforcer", "Guard"]
    assert clock.rows[-1].note == "dead"
