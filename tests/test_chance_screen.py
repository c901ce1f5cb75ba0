"""What the screens get from d100-chance: log lines through the lens, status, clock, odds,
short forms, vocabulary, the player's world, and the demo table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from margin.core import get_system
from margin.core.commands import convert_command
from margin.core.errors import RuleError
from margin.core.lens import PlayerLens
from margin.core.systems.chance import present
from margin.core.systems.chance.commands import Attack, Check
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table

SYSTEM = get_system("d100-chance")


@pytest.fixture
def demo(tmp_path: Path) -> Table:
    return build_demo(tmp_path / "demo.margin", "d100-chance")


def line(table: Table, seq: int, as_player: bool = False) -> str:
    record = next(r for r in table.store.records() if r.seq == seq)
    data = PlayerLens().read(record) if as_player else None
    event = data["event"] if data is not None else record.event
    if not isinstance(event, dict):
        import msgspec

        event = msgspec.to_builtins(event)
    assert SYSTEM.describe is not None
    text = present.describe(event)
    assert text is not None
    return text


def test_demo_has_the_promised_fight(demo: Table) -> None:
    tags = [type(r.event).__name__ for r in demo.store.records()]
    assert tags.count("AttackRolled") == 3
    assert "CheckRolled" in tags
    assert "Revealed" in tags
    attacks = [r.event for r in demo.store.records() if type(r.event).__name__ == "AttackRolled"]
    assert any(not a.aware and a.crit for a in attacks)
    assert any(a.position == "side" and a.extra_attackers for a in attacks)
    spread = [r.event for r in demo.store.records()
              if type(r.event).__name__ == "EffectApplied" and r.event.reason == "spread"]  # fmt: skip
    assert spread
    assert spread[0].effect == "burning"
    assert 7 in demo.state.revealed


def test_log_lines_gm_and_player(demo: Table) -> None:
    gm = line(demo, 7)
    assert "difficulty 15" in gm
    assert "chance 51%" in gm
    assert "rolled 38" in gm
    player = line(demo, 7, as_player=True)
    assert "15" not in player
    assert "51" not in player
    assert "38" not in player
    assert "clean-success" in player
    gm_attack = line(demo, 10)
    assert "hit 95%" in gm_attack
    assert "crit x 1.75" in gm_attack
    seen = line(demo, 10, as_player=True)
    assert "critical hit" in seen
    assert "95%" not in seen
    assert "x 1.75" not in seen


def test_status_and_clock(demo: Table) -> None:
    assert SYSTEM.status is not None
    assert SYSTEM.clock is not None
    marn = demo.state.characters["marn"]
    items = present.status(marn, demo.state)
    assert items[0] == "HP 8/30"
    assert "burning x4 (6t)" in items
    kessler = present.status(demo.state.characters["kessler"], demo.state)
    assert "down" in kessler
    clock = present.clock(demo.state)
    assert clock is not None
    assert clock.title == "Round 2"
    current = [row for row in clock.rows if row.current]
    assert [r.name for r in current] == ["Rook"]
    assert current[0].value == "1 action"
    assert any(row.name == "Brakk" and "burning" in row.note for row in clock.rows)


def test_odds(demo: Table) -> None:
    assert SYSTEM.odds is not None
    o = present.odds(Check(character="rook", skill="lockpick", difficulty=15), demo.state)
    assert o is not None
    assert o.success == 0.41
    assert o.bands == {"clean-success": 0.31, "success": 0.10, "recoverable-failure": 0.10,
                       "setback": 0.49}  # fmt: skip
    auto = present.odds(Check(character="rook", skill="stealth", difficulty=10), demo.state)
    assert auto is not None
    assert auto.success == 1.0
    assert "automatic" in auto.label
    atk = present.odds(Attack(attacker="vex", target="marn", position="rear"), demo.state)
    # Vex accuracy 78; Marn evasion 10 + 5 - 5 - 30 = -20 -> 95% to hit, no dodge left
    assert atk is not None
    assert atk.success == 0.95
    assert present.odds(Check(character="rook", skill="flying", difficulty=15), demo.state) is None


def test_short_forms(demo: Table) -> None:
    parse = SYSTEM.parse_words
    assert parse is not None
    state = demo.state
    assert parse(["check", "rook", "lockpick", "12", "tools", "helper"], state) == {
        "type": "check", "character": "rook", "skill": "lockpick", "difficulty": 12,
        "modifiers": ["proper-tools", "helper"],
    }  # fmt: skip
    assert parse(["attack", "rook", "marn", "side", "unaware", "75"], state) == {
        "type": "attack", "attacker": "rook", "target": "marn", "position": "side",
        "aware": False, "unaware_percent": 75,
    }  # fmt: skip
    assert parse(["attack", "rook", "marn", "pistol", "rear", "+2", "vitals", "head"], state) == {
        "type": "attack", "attacker": "rook", "target": "marn", "weapon": "pistol",
        "position": "rear", "extra_attackers": 2, "vitals": True, "location": "head",
    }  # fmt: skip
    assert parse(["effect", "rook", "marn", "burning", "40"], state) == {
        "type": "effect", "source": "rook", "target": "marn", "effect": "burning", "potency": 40,
    }  # fmt: skip
    assert parse(["next"], state) == {"type": "next"}
    assert parse(["move", "rook", "10", "5"], state) == {"type": "move", "character": "rook",
                                                       "to": [10, 5]}  # fmt: skip
    assert parse(["hp", "rook", "-5", "a", "fall"], state) == {
        "type": "hp", "character": "rook", "amount": -5, "reason": "a fall"
    }  # fmt: skip
    assert parse(["clear", "brakk", "burning"], state) == {
        "type": "clear-effect", "character": "brakk", "effect": "burning"
    }  # fmt: skip
    assert parse(["travel", "sea", "40", "nmi", "12"], state) == {
        "type": "travel", "domain": "sea", "distance": 40.0, "unit": "nmi", "speed": 12.0
    }  # fmt: skip
    assert parse(["roll", "2d6"], state) is None
    with pytest.raises(RuleError, match="'sword' is not a weapon of Rook"):
        parse(["attack", "rook", "marn", "sword"], state)
    assert parse(["check", "rook", "lockpick", "Hard"], state) == {
        "type": "check", "character": "rook", "skill": "lockpick", "difficulty": "hard",
    }  # fmt: skip
    with pytest.raises(
        RuleError, match=r"difficulty: expected 1..100 or a band \(effortless, easy"
    ):
        parse(["check", "rook", "lockpick", "hardish"], state)
    # every short form becomes a command the table accepts
    convert_command("d100-chance", parse(["check", "rook", "lockpick", "12", "tools"], state) or {})


def test_player_world_hides_hidden_fighters(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "h.margin", "d100-chance")
    for name, hidden in (("Ana", False), ("Sniper", True)):
        table.execute(convert_command("d100-chance", {
            "type": "add-character", "name": name, "hidden": hidden, "sheet": {"hp": 10}}))  # fmt: skip
    table.execute(convert_command("d100-chance", {"type": "encounter",
                                                  "order": ["Sniper", "Ana"]}))  # fmt: skip
    table.execute(convert_command("d100-chance", {"type": "next"}))
    assert SYSTEM.player_world is not None
    seen = SYSTEM.player_world(table.state)
    assert seen.encounter.order == ["ana"]
    assert seen.encounter.current == -1
    assert table.state.world.encounter.order == ["sniper", "ana"]


def test_a_first_place_is_not_a_move_of_0_ft() -> None:
    describe = present.describe
    first = {"type": "chance.moved", "character": "rook", "to": [10, 5], "feet": 0}
    assert describe(first) == "rook takes a place at [10, 5]"
    later = first | {"feet": 5, "start": [5, 5]}
    assert describe(later) == "rook moves 5 ft to [10, 5]"


def test_a_poison_stat_and_secret_in_short_forms(demo: Table) -> None:
    assert SYSTEM.parse_words is not None
    parsed = SYSTEM.parse_words(["effect", "vex", "marn", "poisoned", "40", "str"], demo.state)
    assert parsed is not None
    assert parsed["stat"] == "str"
    parsed = SYSTEM.parse_words(["check", "rook", "lockpick", "12", "secret"], demo.state)
    assert parsed is not None
    assert parsed["secret"] is True


def landed(target: str, effect: str, stacks: int, turns: int) -> dict[str, Any]:
    """A ``chance.effect`` record's event that landed, leaving ``stacks`` for ``turns``."""
    return {
        "type": "chance.effect",
        "target": target,
        "effect": effect,
        "becomes": effect,
        "landed": True,
        "total_stacks": stacks,
        "total_turns": turns,
    }


def test_an_effect_named_by_a_noun_reads_has() -> None:
    describe = present.describe
    assert describe(landed("a", "shield", 2, 4)) == "a has shield, 2 stacks, 4 turns"
    assert describe(landed("a", "burning", 2, 4)) == "a is burning, 2 stacks, 4 turns"


def test_one_turn_and_one_round_are_singular() -> None:
    describe = present.describe
    assert describe(landed("gren", "stunned", 1, 1)) == "gren is stunned, 1 stack, 1 turn"
    tick = {"type": "chance.tick", "character": "gren", "effect": "confused", "stacks": 2}
    assert describe(tick | {"turns_left": 1}) == "gren confused x2; 1 turn left"
    assert describe({"type": "chance.encounter-ended", "rounds": 1}) == "fight ends after 1 round"


def test_no_odds_for_a_difficulty_out_of_range(demo: Table) -> None:
    assert SYSTEM.odds is not None
    ok = Check(character="rook", skill="lockpick", difficulty=12)
    assert present.odds(ok, demo.state) is not None
    huge = Check(character="rook", skill="lockpick", difficulty=10**20)
    assert present.odds(huge, demo.state) is None
