"""The fight of issue 5 through ``margin do``: flanking, an unaware target, a secret check
revealed later, burning that spreads; undo and replay included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import log_json, margin_do, run_margin, state_json

SECRET_NUMBERS = ("difficulty", "chance", "roll", "margin", "modifier_total")


def ok(path: Path, *commands: dict[str, Any]) -> list[dict[str, Any]]:
    _, replies = margin_do(path, *commands)
    assert all(r.get("ok") for r in replies), replies
    return replies


def guard(name: str, hp: int = 30) -> dict[str, Any]:
    return {
        "type": "add-character",
        "name": name,
        "sheet": {
            "hp": hp,
            "stats": {"str": 8, "dex": 10},
            "speed_bonus": 5,
            "armor_weight": 5,
            "armor": {"torso": 40, "arms": 10},
            "status_resistance": 10,
            "weapons": {"baton": {"type": "melee", "base": 8}},
        },
    }


PARTY = (
    {
        "type": "add-character",
        "name": "Rook",
        "sheet": {
            "hp": 40,
            "stats": {"str": 6, "dex": 14},
            "skills": {"lockpick": 8},
            "speed_bonus": 10,
            "crit_chance": 20,
            "crit_multiplier": 1.75,
            "weapons": {"knife": {"type": "melee", "base": 10, "accuracy": 5,
                                  "profile": "volatile"}},
        },
    },
    {
        "type": "add-character",
        "name": "Brakk",
        "sheet": {
            "hp": 55,
            "stats": {"str": 14, "dex": 6},
            "crit_chance": 10,
            "crit_multiplier": 2,
            "weapons": {"maul": {"type": "melee", "base": 16, "profile": "high-power"}},
        },
    },
    guard("Kessler"),
    guard("Marn", hp=60),
)  # fmt: skip


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "fight.margin"
    code, _, err = run_margin("new", str(path), "--system", "d100-chance")
    assert code == 0, err
    ok(path, *PARTY)
    return path


def test_the_fight(table: Path) -> None:
    # record 6: the GM rolls Rook's lockpicking in secret (the text's 41% task, with tools)
    [check] = ok(table, {"type": "check", "character": "rook", "skill": "lockpick",
                         "difficulty": 15, "modifiers": ["proper-tools"], "faces": [38]})  # fmt: skip
    check_seq = check["seq"][0]
    seen = [r for r in log_json(table, "--as", "rook") if r["seq"] == check_seq][0]
    assert seen["band"] == "clean-success"
    assert seen["narration"]
    assert seen["secret"]
    assert not any(k in seen for k in SECRET_NUMBERS)
    gm = [r for r in log_json(table) if r["seq"] == check_seq][0]
    assert (gm["difficulty"], gm["chance"], gm["roll"], gm["margin"]) == (15, 51, 38, 13)

    ok(table, {"type": "encounter", "order": ["Rook", "Brakk", "Kessler", "Marn"],
               "positions": {"Rook": [0, 0], "Brakk": [10, 5], "Kessler": [5, 0],
                             "Marn": [10, 0]}},
         {"type": "next"})  # fmt: skip

    # an unaware target: no dodge roll, an automatic crit, +75%
    ok(table, {"type": "attack", "attacker": "Rook", "target": "Kessler", "position": "rear",
               "aware": False, "unaware_percent": 75, "faces": [30]})  # fmt: skip
    stab = log_json(table)[-1]
    assert stab["connects"]
    assert stab["crit"]
    assert stab["dodge_roll"] is None
    # (10 + 6) x 1.75 = 28; rear 25 + unaware 75 = +100% -> 56; torso armor 40 -> 40
    assert stab["damage"] == 40
    assert stab["crit_roll"] is None
    assert stab["range_percent"] is None
    assert state_json(table)["characters"]["kessler"]["hp"] == 0

    # flanking from the side, one more attacker: evasion 10 + 5 - 5 - 15 - 5 = -10; 76 + 10 = 86
    ok(table, {"type": "next"},
         {"type": "attack", "attacker": "Brakk", "target": "Marn", "position": "side",
          "extra_attackers": 1, "location": "arms", "faces": [80, 5, 50, 60]})  # fmt: skip
    flank = log_json(table)[-1]
    assert flank["evasion"] == -10
    assert flank["hit_chance"] == 86
    assert flank["hit"]
    assert flank["dodge_chance"] == 0
    assert not flank["dodged"]
    # 16 + 14 = 30; high-power 35 + 60 - 1 = 94% -> 28.2; side +15% -> 32.43; arms 10 -> 29.48
    assert flank["range_percent"] == 94
    assert flank["damage"] == 29
    assert [s[0] for s in flank["steps"]] == ["base", "range", "position", "armor", "final"]

    # burning at 4 stacks on Marn, standing 5 ft from Brakk
    ok(table, {"type": "effect", "source": "gm", "target": "Marn", "effect": "burning",
               "potency": 70})  # fmt: skip
    marn = state_json(table)["characters"]["marn"]
    assert marn["effects"][0]["stacks"] == 4
    assert marn["effects"][0]["turns"] == 7
    before_turn = state_json(table)
    [turn] = ok(table, {"type": "next"})
    after = state_json(table)
    assert after["world"]["encounter"]["current"] == 3  # Kessler is down: Marn's turn
    marn = after["characters"]["marn"]
    assert marn["hp"] == 60 - 29 - 12  # 5% of 60 per stack, 4 stacks
    assert marn["effects"][0]["turns"] == 6
    brakk = after["characters"]["brakk"]
    assert [(e["name"], e["stacks"], e["turns"]) for e in brakk["effects"]] == [("burning", 1, 6)]
    # Kessler is down, so the fire does not reach him; Rook stands 10 ft away
    assert after["characters"]["rook"]["effects"] == []

    # replay: the state at any record is the fold up to it
    assert state_json(table, "--at", str(turn["seq"][0] - 1)) == before_turn
    assert state_json(table, "--at", str(turn["seq"][1])) == after

    # undo the turn: the tick and the spread go with it
    ok(table, {"type": "undo"})
    assert state_json(table)["characters"] == before_turn["characters"]
    assert state_json(table)["world"] == before_turn["world"]
    ok(table, {"type": "redo"})
    assert state_json(table)["characters"] == after["characters"]

    # the GM reveals the lock check: the numbers reach the players from then on
    ok(table, {"type": "reveal", "seq": check_seq})
    seen = [r for r in log_json(table, "--as", "rook") if r["seq"] == check_seq][0]
    assert (seen["difficulty"], seen["chance"], seen["roll"]) == (15, 51, 38)
    code, text, _ = run_margin("log", str(table), "--as", "rook")
    assert code == 0
    assert "chance 51%" in text
    assert "fire spreads from Marn" in text


def test_errors_append_nothing(table: Path) -> None:
    before = state_json(table)["seq"]
    _, replies = margin_do(
        table,
        {"type": "check", "character": "rook", "skill": "lockpick", "difficulty": 0},
        {"type": "check", "character": "rook", "skill": "flying", "difficulty": 10},
        {"type": "check", "character": "nobody", "skill": "lockpick", "difficulty": 10},
        {"type": "attack", "attacker": "rook", "target": "kessler", "position": "above"},
        {"type": "attack", "attacker": "rook", "target": "kessler", "weapon": "bow"},
        {"type": "effect", "target": "kessler", "effect": "itchy", "potency": 30},
        {"type": "next"},
        {"type": "travel", "domain": "sea", "distance": 10, "unit": "km"},
        {"type": "check", "character": "rook", "skill": "lockpick", "difficulty": 10,
         "colour": "red"},
    )  # fmt: skip
    errors = [r["error"] for r in replies]
    assert "difficulty: 0 is out of range (1..100)" in errors[0]
    assert "has no skill 'flying'" in errors[1]
    assert "character 'nobody' is not at the table" in errors[2]
    assert "position: 'above'" in errors[3]
    assert "weapon: 'bow'" in errors[4]
    assert "effect: 'itchy'" in errors[5]
    assert "next: no fight is running" in errors[6]
    assert "unit: sea travel is measured in nmi" in errors[7]
    assert "colour" in errors[8]
    assert all("\n" not in e for e in errors)
    assert state_json(table)["seq"] == before


def test_state_as_a_player_hides_hidden_characters(table: Path) -> None:
    ok(table, guard("Sniper") | {"hidden": True})
    assert "sniper" in state_json(table)["characters"]
    assert "sniper" not in state_json(table, "--as", "rook")["characters"]


def test_rules_document_is_readable() -> None:
    code, text, _ = run_margin("rules", "d100-chance")
    assert code == 0
    for word in ("Difficulty", "automatic", "secret", "reveal", "flank", "unaware", "burning",
                 "haste", "override", "feet", "resolve"):  # fmt: skip
        assert word.lower() in text.lower(), word


def test_hidden_fighters_stay_hidden_from_players(table: Path) -> None:
    sniper = guard("Sniper") | {"hidden": True}
    sniper["sheet"] = sniper["sheet"] | {
        "weapons": {"rifle": {"type": "ranged", "base": 14, "range": 120}}
    }
    ok(
        table,
        sniper,
        {"type": "encounter", "order": ["Sniper", "Rook"],
         "positions": {"Sniper": [100, 0], "Rook": [0, 0]}},
        {"type": "effect", "target": "Sniper", "effect": "burning", "potency": 30},
        {"type": "next"},
        {"type": "attack", "attacker": "Sniper", "target": "Rook", "faces": [1, 99, 51]},
        {"type": "check", "character": "Sniper", "skill": "perception", "proficiency": 40,
         "difficulty": 30, "faces": [10]},
    )  # fmt: skip
    gm = log_json(table)
    # players' records are numbered without gaps, so match them by command and type
    seen = {(r["command"], r["type"]): r for r in log_json(table, "--as", "rook")}

    def key(record: dict[str, Any]) -> tuple[str, str]:
        return record["command"], record["type"]

    start = next(r for r in gm if r["type"] == "chance.encounter")
    assert seen[key(start)]["order"] == ["rook"]
    assert list(seen[key(start)]["positions"]) == ["rook"]
    for tag in ("chance.effect", "chance.turn", "chance.tick", "chance.check"):
        record = next(r for r in gm if r["type"] == tag)
        assert key(record) not in seen, tag
    shot = next(r for r in gm if r["type"] == "chance.attack")
    assert shot["attacker"] == "sniper"
    assert seen[key(shot)]["attacker"] == "someone unseen"
    assert "weapon" not in seen[key(shot)]
    assert seen[key(shot)]["damage"] == shot["damage"]
    assert shot["damage"] > 0
    assert [r["seq"] for r in log_json(table, "--as", "rook")] == list(range(1, len(seen) + 1))
    code, text, _ = run_margin("log", str(table), "--as", "rook")
    assert code == 0
    assert "sniper" not in text.lower()
    assert "someone unseen attacks Rook" in text


def test_replay_shows_the_reveal_from_its_record_on(table: Path) -> None:
    [check] = ok(table, {"type": "check", "character": "rook", "skill": "lockpick",
                         "difficulty": 15, "faces": [70]})  # fmt: skip
    seq = check["seq"][0]
    [reveal] = ok(table, {"type": "reveal", "seq": seq})
    assert seq not in state_json(table, "--at", str(reveal["seq"][0] - 1))["revealed"]
    assert seq in state_json(table, "--at", str(reveal["seq"][0]))["revealed"]
