"""Status effects, the encounter clock, retries, opposed checks and travel on a real table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import refused

from margin.core.commands import convert_command
from margin.core.errors import RuleError
from margin.core.systems.chance.state import ChanceCharacter
from margin.tui.table.table import Table

SYSTEM = "d100-chance"


def fighter(name: str, **sheet: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "hp": 100,
        "stats": {"str": 10, "dex": 10},
        "speed": 30,
        "speed_bonus": 10,
        "status_resistance": 0,
        "skills": {"lockpick": 30, "stealth": 40, "perception": 30},
        "weapons": {"blade": {"type": "melee", "base": 10, "range": 5}},
    }
    base.update(sheet)
    return {"type": "add-character", "name": name, "sheet": base}


class Game:
    def __init__(self, path: Path) -> None:
        self.table = Table.create(path, SYSTEM)

    def run(self, **command: Any) -> list[Any]:
        return self.table.execute(convert_command(SYSTEM, command))

    def char(self, name: str) -> ChanceCharacter:
        c = self.table.state.characters[name]
        assert isinstance(c, ChanceCharacter)
        return c

    def effects(self, name: str) -> dict[str, tuple[int, int]]:
        return {e.name: (e.stacks, e.turns) for e in self.char(name).effects}

    def undo(self) -> None:
        self.run(type="undo")


@pytest.fixture
def game(tmp_path: Path) -> Game:
    g = Game(tmp_path / "t.margin")
    for name in ("Ana", "Bo", "Cy"):
        g.run(**fighter(name))
    return g


def fight(g: Game, *order: str, **positions: list[int]) -> None:
    g.run(type="encounter", order=list(order), positions=positions)


def test_effect_needs_potency_above_resistance(game: Game) -> None:
    game.run(**fighter("Dee", status_resistance=40))
    [rec] = game.run(type="effect", target="Dee", effect="burning", potency=40)
    assert not rec.event.landed
    assert game.char("dee").effects == []
    [rec] = game.run(type="effect", target="Dee", effect="burning", potency=65)
    assert rec.event.landed
    assert (rec.event.turns, rec.event.stacks) == (3, 2)
    assert game.effects("dee") == {"burning": (2, 3)}


def test_options_change_duration_and_intensity(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "o.margin", SYSTEM, {"duration_step": 5, "intensity_step": 50})
    table.execute(convert_command(SYSTEM, fighter("Ana")))
    table.execute(convert_command(SYSTEM, {"type": "effect", "target": "Ana", "effect": "slowed",
                                           "potency": 30}))  # fmt: skip
    ana = table.state.characters["ana"]
    assert isinstance(ana, ChanceCharacter)
    assert (ana.effects[0].turns, ana.effects[0].stacks) == (7, 1)


def test_ticks_and_expiry_on_the_clock(game: Game) -> None:
    fight(game, "Ana", "Bo")
    game.run(type="effect", target="Ana", effect="burning", potency=15)  # 2 turns, 1 stack
    game.run(type="next")  # Ana's turn: burns, 1 turn left
    assert game.char("ana").hp == 95
    assert game.effects("ana") == {"burning": (1, 1)}
    game.run(type="next")  # Bo's turn: nothing on Ana
    assert game.char("ana").hp == 95
    game.run(type="next")  # Ana's turn again: burns the last time and goes out
    assert game.char("ana").hp == 90
    assert game.effects("ana") == {}
    assert game.table.state.world.encounter.round == 2
    game.undo()
    assert game.char("ana").hp == 95
    assert game.effects("ana") == {"burning": (1, 1)}


def test_bleeding_lasts_until_bandaged(game: Game) -> None:
    fight(game, "Ana")
    game.run(type="effect", target="Ana", effect="bleeding", potency=1)
    for _ in range(5):
        game.run(type="next")
    assert game.char("ana").hp == 100 - 5 * 3
    assert game.effects("ana") == {"bleeding": (1, 0)}
    game.run(type="bandage", character="Ana")
    game.run(type="next")
    assert game.char("ana").hp == 85
    assert game.effects("ana") == {}
    refused(game.table, "not bleeding", type="bandage", character="Ana")


def test_poison_hurts_and_lowers_a_stat(game: Game) -> None:
    fight(game, "Ana", "Bo")
    game.run(type="next")
    before = game.table.state.seq
    game.run(type="effect", target="Bo", effect="poisoned", potency=25, stat="dex")  # 2 stacks
    assert game.char("bo").effects[0].stat == "dex"
    [attack] = game.run(type="attack", attacker="Ana", target="Bo", faces=[99])
    # Bo's evasion: DEX 10 - 10 (poison) + speed bonus 10 = 10; Ana's accuracy 80
    assert attack.event.evasion == 10
    assert attack.event.hit_chance == 70
    game.run(type="next")
    game.run(type="next")  # Bo's turn: 2% of 100 x 2
    assert game.char("bo").hp == 96
    assert before < game.table.state.seq
    refused(game.table, "only a poison", type="effect", target="Bo", effect="burning", potency=5,
                 stat="str")  # fmt: skip


def test_chill_escalates_to_frozen(game: Game) -> None:
    fight(game, "Ana", "Bo", Ana=[0, 0], Bo=[5, 0])
    game.run(type="effect", target="Bo", effect="chilled", potency=25)  # 2 stacks
    assert game.effects("bo") == {"chilled": (2, 3)}
    [rec] = game.run(type="effect", target="Bo", effect="chilled", potency=5)
    assert rec.event.becomes == "frozen"
    assert game.effects("bo") == {"frozen": (1, 1)}
    # frozen: no dodge, so an aware target's attack needs no dodge roll
    game.run(type="next")
    [attack] = game.run(type="attack", attacker="Ana", target="Bo", faces=[10, 50])
    assert attack.event.hit
    assert attack.event.dodge_roll is None
    assert attack.event.aware
    game.run(type="next")  # Bo's turn: frozen, no actions, then it thaws
    assert game.table.state.world.encounter.actions == 0
    assert game.effects("bo") == {}


def test_shock_escalates_to_stunned_and_stunned_cannot_act(game: Game) -> None:
    fight(game, "Ana", "Bo", Ana=[0, 0], Bo=[5, 0])
    game.run(type="effect", target="Ana", effect="shocked", potency=45)  # 3 stacks at once
    assert game.effects("ana") == {"stunned": (1, 5)}
    game.run(type="next")
    assert game.table.state.world.encounter.actions == 0
    refused(game.table, "has no actions left", type="attack", attacker="Ana", target="Bo")
    [attack] = game.run(type="attack", attacker="Ana", target="Bo", override=True, faces=[99])
    assert attack.event.override
    assert not attack.event.action


def test_haste_gives_an_action_then_a_stun(game: Game) -> None:
    fight(game, "Ana", "Bo", Ana=[0, 0], Bo=[5, 0])
    game.run(type="effect", target="Ana", effect="haste", potency=5)  # 1 turn
    game.run(type="next")
    assert game.table.state.world.encounter.actions == 2
    assert game.effects("ana") == {"stunned": (1, 1)}
    game.run(type="attack", attacker="Ana", target="Bo", faces=[99])
    game.run(type="attack", attacker="Ana", target="Bo", faces=[99])
    refused(game.table, "no actions left", type="attack", attacker="Ana", target="Bo")
    refused(game.table, "it is Ana's turn", type="attack", attacker="Bo", target="Ana")
    game.run(type="next")
    game.run(type="next")  # Ana's turn: stunned, no action
    assert game.table.state.world.encounter.actions == 0
    assert game.effects("ana") == {}
    refused(game.table, "no actions left", type="attack", attacker="Ana", target="Bo")


def test_shield_absorbs_then_breaks(game: Game) -> None:
    game.run(type="effect", target="Ana", effect="shield", potency=25)  # 2 stacks: 20 HP
    assert game.char("ana").effects[0].pool == 20
    game.run(type="hp", character="Ana", amount=-15)
    assert game.char("ana").hp == 100
    assert game.char("ana").effects[0].pool == 5
    [rec] = game.run(type="attack", attacker="Bo", target="Ana", faces=[1, 99, 51])
    # 10 + 10 = 20 at 100%: 5 absorbed, 15 taken; the shield breaks
    assert (rec.event.damage, rec.event.absorbed, rec.event.taken) == (20, 5, 15)
    assert game.char("ana").hp == 85
    assert game.effects("ana") == {}


def test_regenerate_heals_up_to_max(game: Game) -> None:
    fight(game, "Ana")
    game.run(type="hp", character="Ana", amount=-7)
    game.run(type="effect", target="Ana", effect="regenerate", potency=30)  # 4 turns, 2 stacks
    game.run(type="next")
    assert game.char("ana").hp == 100  # 10 would overshoot: heals 7
    refused(game.table, "already at full HP", type="hp", character="Ana", amount=5)


def test_blessed_adds_accuracy(game: Game) -> None:
    [plain] = game.run(type="attack", attacker="Ana", target="Bo", faces=[99])
    game.run(type="effect", target="Ana", effect="blessed", potency=5)
    [blessed] = game.run(type="attack", attacker="Ana", target="Bo", faces=[99])
    assert blessed.event.accuracy == plain.event.accuracy + 10


def test_stealth_hides_and_the_first_strike_is_unaware(game: Game) -> None:
    game.run(type="effect", target="Ana", effect="stealthed", potency=5)
    refused(game.table, "stealthed", type="attack", attacker="Bo", target="Ana")
    [rec] = game.run(type="attack", attacker="Ana", target="Bo", faces=[50])
    assert not rec.event.aware
    assert rec.event.crit
    assert rec.event.unaware_percent == 50
    # (10 + 10) x 1.5 x 1.5 = 45
    assert rec.event.damage == 45
    assert game.effects("ana") == {}
    game.run(type="attack", attacker="Bo", target="Ana", faces=[99])


def test_fear_and_charm_hold_back_attacks(game: Game) -> None:
    game.run(type="effect", target="Ana", effect="feared", potency=5)
    refused(game.table, "feared", type="attack", attacker="Ana", target="Bo")
    game.run(type="effect", target="Bo", effect="charmed", potency=5, source="Cy")
    refused(game.table, "charmed by Cy", type="attack", attacker="Bo", target="Cy")
    game.run(
        type="attack",
        attacker="Bo",
        target="Ana",
        faces=[
            99,
        ],
    )


def test_confusion_picks_the_target_by_a_die(game: Game) -> None:
    fight(game, "Ana", "Bo", "Cy")
    game.run(type="next")
    game.run(type="effect", target="Ana", effect="confused", potency=5)
    [rec] = game.run(type="attack", attacker="Ana", target="Bo", faces=[2, 99])
    assert rec.event.target == "cy"
    assert rec.event.intended == "bo"
    assert rec.event.confusion_roll == 2


def test_movement_in_feet(game: Game) -> None:
    fight(game, "Ana", "Bo", Ana=[0, 0], Bo=[40, 0])
    refused(game.table, "reaches 5 ft", type="attack", attacker="Ana", target="Bo")
    refused(game.table, "more than Ana's 30 ft", type="move", character="Ana", to=[35, 0])
    [rec] = game.run(type="move", character="Ana", to=[30, 20])
    assert rec.event.feet == 30
    game.run(type="effect", target="Ana", effect="slowed", potency=5)
    refused(game.table, "more than Ana's 15 ft", type="move", character="Ana", to=[30, 0])
    game.run(type="move", character="Ana", to=[35, 5])
    game.run(type="effect", target="Ana", effect="rooted", potency=5)
    refused(game.table, "cannot move \\(rooted", type="move", character="Ana", to=[36, 5])
    refused(game.table, "expected \\[x, y\\]", type="move", character="Bo", to=[1, 2, 3])


def test_retry_needs_a_new_approach(game: Game) -> None:
    cmd = {"type": "check", "character": "Ana", "skill": "lockpick", "difficulty": 50}
    [fail] = game.run(**cmd, faces=[90])
    assert not fail.event.success
    assert fail.event.retry == ""
    refused(game.table, "failed 'lockpick' at record", **cmd)
    [changed] = game.run(**cmd, modifiers=["proper-tools"], faces=[90])
    assert changed.event.retry == "changed"
    [other] = game.run(**cmd, modifiers=["proper-tools"], approach="through the roof", faces=[90])
    assert other.event.retry == "changed"
    [forced] = game.run(**cmd, modifiers=["proper-tools"], approach="through the roof",
                        override=True, faces=[1])  # fmt: skip
    assert forced.event.retry == "override"
    assert forced.event.success
    [fresh] = game.run(**cmd, faces=[90])  # the success cleared the memory
    assert fresh.event.retry == ""
    [elsewhere] = game.run(**cmd, task="side gate", faces=[1])
    assert elsewhere.event.retry == ""


def test_automatic_check_rolls_nothing(game: Game) -> None:
    [rec] = game.run(type="check", character="Ana", skill="lockpick", difficulty=5)
    assert rec.event.automatic
    assert rec.event.roll is None
    assert rec.event.band == "success"
    refused(game.table, "faces: 1 given but the roll uses 0", type="check", character="Ana",
                 skill="lockpick", difficulty=5, faces=[10])  # fmt: skip


def test_open_check_hides_nothing(game: Game) -> None:
    [rec] = game.run(type="check", character="Ana", skill="lockpick", difficulty=30,
                     secret=False, faces=[50])  # fmt: skip
    assert rec.visibility.hidden == ()
    assert rec.event.band == "success"
    [secret] = game.run(type="check", character="Ana", skill="stealth", difficulty=30, faces=[4])
    assert "difficulty" in secret.visibility.hidden
    assert secret.event.band == "clean-success"


def test_opposed_defender_wins_ties(game: Game) -> None:
    [rec] = game.run(type="opposed", actor="Ana", skill="stealth", defender="Bo",
                     defender_skill="perception", faces=[50, 40])  # fmt: skip
    e = rec.event
    # each side's difficulty is the other's proficiency: 55 + 2 x (40 - 30) = 75; 55 - 20 = 35
    assert (e.actor_chance, e.defender_chance) == (75, 35)
    assert (e.actor_margin, e.defender_margin) == (25, -5)
    assert e.winner == "ana"
    [tie] = game.run(type="opposed", actor="Ana", skill="lockpick", defender="Bo",
                     faces=[45, 45])  # fmt: skip
    assert tie.event.actor_margin == tie.event.defender_margin
    assert tie.event.winner == "bo"


def test_burning_spreads_and_undo_of_the_fire_takes_its_ticks(game: Game) -> None:
    fight(game, "Ana", "Bo", "Cy", Ana=[0, 0], Bo=[5, 5], Cy=[20, 0])
    [fire] = game.run(type="effect", target="Ana", effect="burning", potency=45)  # 3 stacks
    [turn, tick, spread] = game.run(type="next")
    assert tick.cause == fire.seq
    assert spread.cause == tick.seq
    assert spread.event.reason == "spread"
    assert spread.event.target == "bo"
    assert game.effects("bo") == {"burning": (1, 4)}
    assert game.effects("cy") == {}
    assert game.char("ana").hp == 100 - 15
    game.run(type="undo", command=fire.command)
    assert game.effects("ana") == {}
    assert game.effects("bo") == {}
    assert game.char("ana").hp == 100
    assert game.table.state.world.encounter.current == 0  # the turn itself stands


def test_encounter_lifecycle(game: Game) -> None:
    refused(game.table, "name the characters", type="encounter", order=[])
    refused(game.table, "listed twice", type="encounter", order=["Ana", "ana"])
    fight(game, "Ana", "Bo")
    refused(game.table, "already running", type="encounter", order=["Ana"])
    game.run(type="next")
    game.run(type="end-encounter")
    assert game.table.state.world.encounter is None
    refused(game.table, "no fight is running", type="end-encounter")


def test_travel_in_domain_units(game: Game) -> None:
    game.run(type="travel", domain="sea", distance=40, unit="nmi", speed=12)
    game.run(type="travel", domain="space", distance=1.5, unit="au")
    game.run(type="travel", domain="station", distance=3, unit="decks")
    assert [(leg.domain, leg.unit) for leg in game.table.state.world.journey] == [
        ("sea", "nmi"), ("space", "au"), ("station", "decks")
    ]  # fmt: skip
    refused(
        game.table, "only sea and air", type="travel", domain="land", distance=3, unit="km", speed=4
    )
    refused(game.table, "domain: 'lava'", type="travel", domain="lava", distance=3, unit="km")
    refused(game.table, "above 0", type="travel", domain="land", distance=0, unit="km")


def test_sheet_is_checked(game: Game) -> None:
    refused(game.table, "sheet.hp: missing", type="add-character", name="X", sheet={})
    refused(game.table, "below the floor of 1.5", **fighter("X", crit_multiplier=1.2))
    refused(game.table, "sheet.colour: unknown field", **fighter("X", colour="red"))
    refused(game.table, "weapons.claw.stats: a mutant power", **fighter(
        "X", weapons={"claw": {"type": "mutant", "base": 5}}))  # fmt: skip
    refused(game.table, "weapons.claw.profile", **fighter(
        "X", weapons={"claw": {"base": 5, "profile": "wild"}}))  # fmt: skip
    refused(game.table, "skills.hack: 120 is out of range", **fighter("X", skills={"hack": 120}))
    refused(game.table, 'weapons.claw.base: expected a number, got "lots"', **fighter(
        "X", weapons={"claw": {"base": "lots"}}))  # fmt: skip
    refused(game.table, "weapons.claw.potency: missing", **fighter(
        "X", weapons={"claw": {"base": 5, "effect": "burning"}}))  # fmt: skip
    refused(game.table, "weapons.claw.effect: 'glowing' is not one of", **fighter(
        "X", weapons={"claw": {"base": 5, "effect": "glowing", "potency": 5}}))  # fmt: skip


def test_mutant_power_scales_with_its_stats(game: Game) -> None:
    game.run(**fighter("Mo", stats={"str": 3, "dex": 10, "con": 9, "wis": 4},
                       weapons={"spines": {"type": "mutant", "base": 5, "stats": ["con", "wis"],
                                           "profile": "focused"}}))  # fmt: skip
    [rec] = game.run(type="attack", attacker="Mo", target="Ana", faces=[1, 99, 11])
    assert rec.event.steps[0] == ["base", "5 + 13 = 18"]
    assert rec.event.range_percent == 80
    assert rec.event.damage == 14


def test_movement_budget_and_flight(game: Game) -> None:
    fight(game, "Ana", "Bo", Ana=[0, 0], Bo=[10, 0])
    game.run(type="next")
    game.run(type="move", character="Ana", to=[0, 20])
    refused(game.table, "\\(10 ft left\\)", type="move", character="Ana", to=[0, 35])
    game.run(type="move", character="Ana", to=[0, 30])
    game.run(type="next")
    game.run(type="next")  # Ana's turn again: a fresh 30 ft
    game.run(type="move", character="Ana", to=[0, 0])
    game.run(type="effect", target="Ana", effect="feared", potency=25, source="Bo")
    game.run(type="next")
    game.run(type="next")
    refused(game.table, "must flee first", type="move", character="Ana", to=[-15, 0])
    refused(game.table, "must move away from Bo", type="flee", character="Ana", to=[5, 0])
    game.run(type="flee", character="Ana", to=[-15, 0])
    refused(game.table, "must move away from Bo", type="move", character="Ana", to=[-10, 0])
    game.run(type="move", character="Ana", to=[10, 0], override=True)
    game.run(type="effect", target="Bo", effect="stunned", potency=5)
    refused(game.table, "cannot move \\(stunned", type="move", character="Bo", to=[15, 0])


def test_sheet_changes_are_read_like_new_sheets(game: Game) -> None:
    game.run(type="update-character", character="Ana", sheet={
        "skills": {"Hacking": 50}, "weapons": {"Pistol": {"type": "ranged", "base": 12}}})  # fmt: skip
    [check] = game.run(type="check", character="Ana", skill="hacking", difficulty=40, faces=[1])
    assert check.event.proficiency == 50
    [shot] = game.run(type="attack", attacker="Ana", target="Bo", weapon="pistol",
                      faces=[1, 99, 51])  # fmt: skip
    assert shot.event.weapon == "pistol"
    assert shot.event.damage == 22
    refused(game.table, "sheet.weapons.bow.base: missing", type="update-character", character="Ana",
                 sheet={"weapons": {"bow": {"type": "ranged"}}})  # fmt: skip


def test_weapon_pierce_reaches_the_attack(game: Game) -> None:
    game.run(**fighter("Dee", armor={"torso": 60},
                       weapons={"awl": {"base": 10, "pierce": 40}}))  # fmt: skip
    [rec] = game.run(type="attack", attacker="Dee", target="Ana",
                     faces=[1, 99, 51])  # fmt: skip
    assert rec.event.damage == 20  # Ana wears no armor: pierce changes nothing
    [rec] = game.run(type="attack", attacker="Ana", target="Dee", faces=[1, 99, 51])
    assert rec.event.damage == 13  # 20 x 100/160 = 12.5 -> 13
    game.run(type="update-character", character="Ana",
             sheet={"weapons": {"pick": {"base": 10, "pierce": 40}}})  # fmt: skip
    [rec] = game.run(type="attack", attacker="Ana", target="Dee", faces=[1, 99, 51])
    assert rec.event.damage == 17  # 60 - 40 = 20 armor: 20 x 100/120 = 16.67 -> 17


def test_a_burst_strikes_everyone_within_its_feet(game: Game) -> None:
    game.run(**fighter("Gren", weapons={"grenade": {"type": "ranged", "base": 12, "range": 30,
                                                    "burst": 5, "element": "fire"}}))  # fmt: skip
    fight(game, "Gren", "Ana", "Bo", "Cy", Gren=[0, 0], Ana=[20, 0], Bo=[25, 5], Cy=[25, -5])
    game.run(type="next")
    records = game.run(type="attack", attacker="Gren", target="Ana", position="side",
                       faces=[1, 99, 51, 1, 99, 26, 100])  # fmt: skip
    main, splash, miss = (r.event for r in records)
    assert (main.target, splash.target, miss.target) == ("ana", "bo", "cy")
    assert main.position == "side"
    assert main.action
    assert not splash.action
    assert splash.burst_of == "ana"
    assert splash.position == "front"
    assert records[1].cause == records[0].seq
    assert records[2].cause == records[0].seq
    # 12 + DEX 10 = 22: side +15% -> 25.3 -> 25; the splash at 75% -> 16.5 -> 17
    assert (main.damage, splash.damage, miss.hit) == (25, 17, False)
    assert game.table.state.world.encounter.actions == 0
    game.undo()
    assert game.char("bo").hp == 100
    assert game.table.state.world.encounter.actions == 1


def test_options_are_bounded(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "b.margin", SYSTEM)
    for name, value, message in (
        ("unaware_percent", 20, "unaware_percent: 20 is out of range \\(50..100\\)"),
        ("duration_step", 0, "duration_step: 0 is out of range \\(1..100\\)"),
        ("vitals_percent", 50, "vitals_percent: 50 is out of range"),
        ("spread_feet", True, "expected a whole number"),
    ):
        with pytest.raises(RuleError, match=message):
            table.execute(convert_command(SYSTEM, {"type": "set-option", "name": name,
                                                   "value": value}))  # fmt: skip
    table.execute(convert_command(SYSTEM, {"type": "set-option", "name": "unaware_percent",
                                           "value": 100}))  # fmt: skip
    assert table.state.options["unaware_percent"] == 100


def test_regeneration_heals_what_the_fire_took_the_same_turn(game: Game) -> None:
    fight(game, "Ana")
    game.run(type="effect", target="Ana", effect="burning", potency=15)
    game.run(type="effect", target="Ana", effect="regenerate", potency=15)
    [_, burn, heal] = game.run(type="next")
    assert (burn.event.hp, heal.event.hp) == (-5, 5)
    assert game.char("ana").hp == 100


# -- found in play: refusals ------------------------------------------------------


def sneaking(actor: str, past: str) -> dict[str, Any]:
    """The fields of ``actor``'s stealth opposed by the perception of the one they sneak ``past``."""
    return {
        "type": "opposed",
        "actor": actor,
        "skill": "stealth",
        "defender": past,
        "defender_skill": "perception",
    }


@pytest.mark.parametrize(
    ("command", "match"),
    [
        (
            {"type": "check", "character": "Ana", "skill": "lockpick", "difficulty": 20},
            r"character: Ana is down \(0 HP\) and cannot make a check",
        ),
        (
            sneaking("Ana", past="Bo"),
            r"actor: Ana is down \(0 HP\)",
        ),
        (
            sneaking("Bo", past="Ana"),
            r"defender: Ana is down \(0 HP\)",
        ),
        (
            {"type": "attack", "attacker": "Ana", "target": "Bo"},
            r"attacker: Ana is down \(0 HP\) and cannot attack \(override\)",
        ),
        (
            {"type": "move", "character": "Ana", "to": [5, 0]},
            r"character: Ana is down \(0 HP\) and cannot move \(override\)",
        ),
    ],
)
def test_a_character_at_0_hp_cannot_check_attack_or_move(
    game: Game, command: dict[str, Any], match: str
) -> None:
    game.run(type="hp", character="Ana", amount=-100)
    refused(game.table, match, **command)


def test_a_character_at_0_hp_moves_when_the_gm_overrides(game: Game) -> None:
    game.run(type="hp", character="Ana", amount=-100)
    game.run(type="move", character="Ana", to=[5, 0], override=True)
    assert game.char("ana").position == [5, 0]


#: commands with a number out of bounds or a field that names nothing, and each refusal
OUT_OF_BOUNDS = [
    (
        {"type": "effect", "target": "Bo", "effect": "burning", "potency": 10**20},
        r"potency: 100000000000000000000 is out of range \(0..1000\)",
    ),
    (
        {
            "type": "effect",
            "target": "Bo",
            "effect": "burning",
            "potency": 50,
            "resistance": -999999999999,
        },
        r"resistance: -999999999999 is out of range \(-1000..1000\)",
    ),
    (
        {"type": "hp", "character": "Bo", "amount": -(10**20)},
        r"amount: -100000000000000000000 is out of range \(-100000..100000\)",
    ),
    (
        {"type": "effect", "target": "Bo", "effect": "poisoned", "potency": 50, "stat": "luck"},
        r"stat: Bo has no stat 'luck' \(stats: str, dex\)",
    ),
    (
        {"type": "move", "character": "Ana", "to": [10_000_000, 0], "override": True},
        r"to: \[10000000, 0\] is off the field \(each of x, y in ±1000000 ft\)",
    ),
    (
        {"type": "attack", "attacker": "Ana", "target": "Bo", "extra_attackers": 101},
        r"extra_attackers: 101 is out of range \(0..100\)",
    ),
    (
        {"type": "travel", "domain": "sea", "distance": 1e308, "unit": "nmi"},
        r"distance: 1e\+308 is more than 1e\+12 nmi",
    ),
    (
        {"type": "travel", "domain": "sea", "distance": 40, "unit": "nmi", "speed": 1e20},
        r"speed: 1e\+20 is more than 1e\+12 knots",
    ),
]


@pytest.mark.parametrize(("command", "match"), OUT_OF_BOUNDS)
def test_numbers_out_of_bounds_and_missing_stats_are_refused(
    game: Game, command: dict[str, Any], match: str
) -> None:
    refused(game.table, match, **command)
    assert game.effects("bo") == {}
    assert game.char("bo").hp == 100


@pytest.mark.parametrize(
    ("sheet", "match"),
    [
        ({"hp": 0}, r"sheet.hp: 0 is out of range \(1..1000000\)"),
        (
            {"hp": 10, "armor": {"torso": -5}},
            r"sheet.armor.torso: -5 is out of range \(0..1000000\)",
        ),
        ({"hp": 10**20}, r"sheet.hp: 100000000000000000000 is out of range \(1..1000000\)"),
        (
            {"hp": 10, "weapons": {"w": {"base": 10**20}}},
            r"sheet.weapons.w.base: 100000000000000000000 is out of range",
        ),
        ({"hp": 10, "crit_multiplier": 1e300}, r"sheet.crit_multiplier: 1e\+300 is out of range"),
    ],
)
def test_sheet_numbers_have_printed_bounds(game: Game, sheet: dict[str, Any], match: str) -> None:
    refused(game.table, match, type="add-character", name="Dee", sheet=sheet)


def test_a_tick_records_the_hp_really_lost(game: Game) -> None:
    fight(game, "Ana", "Bo")
    game.run(type="hp", character="Ana", amount=-97)
    game.run(type="effect", target="Ana", effect="burning", potency=40)  # 3 stacks: 15 a turn
    records = game.run(type="next")
    tick = next(r.event for r in records if r.event.__struct_config__.tag == "chance.tick")
    assert tick.hp == -3
    assert game.char("ana").hp == 0
