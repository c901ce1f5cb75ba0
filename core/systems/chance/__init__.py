"""The d100-chance dice system."""

from __future__ import annotations

from typing import Any

import msgspec

from margin.events import Event
from margin.events.systems import chance as chance_events

from ...state import Character, Moment, TableState
from ..base import Option
from ..shape import shaped
from . import rules, state

OPTIONS: tuple[Option, ...] = (
    Option(
        "secret_checks",
        True,
        "skill checks are rolled by the GM in secret unless a check says otherwise",
    ),
    Option(
        "unaware_percent",
        50,
        "extra damage against an unaware target when the attack names none",
        lo=rules.UNAWARE_MIN,
        hi=rules.UNAWARE_MAX,
    ),
    Option(
        "vitals_percent", 150, "damage multiplier of a called shot to the vitals", lo=100, hi=1000
    ),
    Option("duration_step", 10, "an effect lasts 1 turn plus 1 per this much gap", lo=1, hi=100),
    Option("intensity_step", 20, "an effect has 1 stack plus 1 per this much gap", lo=1, hi=100),
    Option("escalate_at", 3, "stacks at which chilled freezes and shocked stuns", lo=1, hi=100),
    Option("spread_stacks", 3, "stacks at which burning spreads to neighbours", lo=1, hi=100),
    Option("spread_feet", 5, "how near (feet) a neighbour catches fire", lo=0, hi=1000),
    Option(
        "crit_dex_step",
        0,
        "crit chance +1 per this much DEX, on top of the sheet's and the weapon's (0: off)",
        lo=0,
        hi=1000,
    ),
    Option(
        "crit_multiplier_step",
        0,
        "crit multiplier +0.1 per this much STR + DEX, on top of the sheet's (0: off)",
        lo=0,
        hi=1000,
    ),
)

_HUMAN_ARMOR = {"head": 0, "torso": 40, "arms": 10, "legs": 10}


def _sheet(**fields: Any) -> dict[str, Any]:
    return fields


def _guard(name: str, hp: int, perception: int, weapons: dict[str, Any]) -> dict[str, Any]:
    """One of the station's guards: a human in light armor, watchful."""
    sheet = _sheet(
        hp=hp,
        stats={"str": 8, "dex": 10},
        skills={"perception": perception},
        speed=30,
        speed_bonus=5,
        armor_weight=5,
        crit_chance=5,
        armor=_HUMAN_ARMOR,
        status_resistance=10,
        weapons=weapons,
    )
    return {"type": "add-character", "name": name, "sheet": sheet}


DEMO: tuple[dict[str, Any], ...] = (
    {
        "type": "add-character",
        "name": "Rook",
        "sheet": _sheet(
            hp=40,
            stats={"str": 6, "dex": 14, "int": 8, "wis": 6},
            skills={"lockpick": 8, "stealth": 45, "hacking": 30},
            speed=30,
            speed_bonus=10,
            armor_weight=0,
            crit_chance=20,
            crit_multiplier=1.75,
            armor={"head": 0, "torso": 20, "arms": 0, "legs": 0},
            status_resistance=15,
            weapons={
                "knife": {
                    "type": "melee",
                    "base": 10,
                    "accuracy": 5,
                    "profile": "volatile",
                    "crit_chance": 10,
                    "range": 5,
                },
                "pistol": {"type": "ranged", "base": 12, "profile": "calibrated", "range": 60},
            },
        ),
    },
    {
        "type": "add-character",
        "name": "Vex",
        "sheet": _sheet(
            hp=32,
            stats={"str": 4, "dex": 8, "int": 14, "wis": 10},
            skills={"arcana": 50, "persuasion": 35},
            speed=30,
            speed_bonus=0,
            crit_chance=5,
            armor={"torso": 10},
            resistances={"fire": 50},
            status_resistance=20,
            weapons={
                "firebolt": {
                    "type": "magic",
                    "base": 8,
                    "profile": "focused",
                    "element": "fire",
                    "range": 40,
                    "effect": "burning",
                    "potency": 70,
                },
            },
        ),
    },
    {
        "type": "add-character",
        "name": "Brakk",
        "sheet": _sheet(
            hp=55,
            stats={"str": 14, "dex": 6, "con": 12},
            skills={"athletics": 40, "intimidation": 30},
            speed=25,
            speed_bonus=0,
            armor_weight=10,
            crit_chance=10,
            crit_multiplier=2,
            armor={"head": 20, "torso": 60, "arms": 30, "legs": 30},
            weapons={"maul": {"type": "melee", "base": 16, "profile": "high-power", "range": 5}},
        ),
    },
    _guard("Kessler", 50, 25, {"baton": {"type": "melee", "base": 8, "range": 5}}),
    _guard(
        "Marn",
        30,
        20,
        {"rifle": {"type": "ranged", "base": 14, "range": 90, "profile": "standard"}},
    ),
    # record 7: the GM rolls Rook's lockpicking in secret (41% before tools, 51% with them)
    {
        "type": "check",
        "character": "Rook",
        "skill": "lockpick",
        "difficulty": 15,
        "modifiers": ["proper-tools"],
        "task": "vault door",
        "faces": [38],
    },
    {
        "type": "encounter",
        "order": ["Rook", "Vex", "Brakk", "Kessler", "Marn"],
        "positions": {
            "Rook": [0, 0],
            "Vex": [0, 30],
            "Brakk": [10, 5],
            "Kessler": [5, 0],
            "Marn": [10, 0],
        },
    },
    {"type": "next"},
    # Rook knifes Kessler from behind: unaware, no dodge, a certain crit
    {
        "type": "attack",
        "attacker": "Rook",
        "target": "Kessler",
        "weapon": "knife",
        "position": "rear",
        "aware": False,
        "unaware_percent": 75,
        "faces": [30],
    },
    {"type": "next"},
    # Vex's firebolt sets Marn alight (potency 70 against resistance 10)
    {"type": "attack", "attacker": "Vex", "target": "Marn", "faces": [22, 80, 60, 3]},
    {"type": "next"},
    # Brakk flanks Kessler from the side while Rook presses him too
    {
        "type": "attack",
        "attacker": "Brakk",
        "target": "Kessler",
        "position": "side",
        "extra_attackers": 1,
        "location": "arms",
        "faces": [40, 95, 50, 60],
    },
    {"type": "next"},
    {"type": "next"},
    # the GM shows the players how the lock went
    {"type": "reveal", "seq": 7},
)


def moment(table: TableState) -> Moment | None:
    """Where the encounter stands: the round and whose turn."""
    world = table.world
    enc = world.encounter if isinstance(world, state.ChanceWorld) else None
    if enc is None:
        return None
    actor = enc.actor
    return Moment(round=enc.round, actor=actor or "")


def health(char: Character) -> tuple[int, int] | None:
    if not isinstance(char, state.ChanceCharacter):
        return None
    return char.hp, char.max_hp


def mask_health(char: Character) -> Character:
    """Unhurt, for players who may not see how hurt."""
    if not isinstance(char, state.ChanceCharacter):
        return char
    return msgspec.structs.replace(char, hp=char.max_hp)


#: the table screen's short forms, in an order that runs on the demo table
SHORT_FORMS: tuple[tuple[str, str], ...] = (
    ("check rook lockpick 12 tools = 38", "a secret check with proper tools, the die typed"),
    ("check rook hacking 40 helper open for the door", "an open check with a helper, a reason"),
    ("check vex arcana hard = 20", "a difficulty named by its band (hard: 70)"),
    ("opposed rook stealth marn perception", "an opposed check"),
    ("move rook 5 5", "move to a place (feet)"),
    ("attack rook marn knife side +1 = 10 50 90 1", "a flank attack, the dice typed"),
    ("effect vex marn bleeding 40", "a status effect: potency against resistance"),
    ("bandage marn", "stop the bleeding"),
    ("clear brakk burning", "the GM ends an effect"),
    ("hp rook -5 a fall", "damage outside an attack, with a reason"),
    ("next", "the next turn; effects tick at its start"),
    ("attack vex brakk firebolt = 99", "a miss"),
    ("travel sea 40 nmi 12", "a leg of a journey at 12 knots"),
    ("endfight", "end the fight"),
    ("fight rook vex", "a new fight, in turn order"),
    ("next", "its first turn"),
    ("join brakk after rook", "brakk joins the running fight, acting after rook"),
)

#: the events that move the system's own clock
CLOCK_EVENTS: tuple[type[Event], ...] = (
    chance_events.EncounterStarted,
    chance_events.EncounterJoined,
    chance_events.TurnStarted,
    chance_events.EncounterEnded,
)


SYSTEM = shaped(
    __name__,
    id="d100-chance",
    title="d100-chance",
    summary="d100 against a chance from proficiency and difficulty, secret by default",
    health_label="HP",
)
