"""The 2d10-edge dice system: 2d10 + skill bonus vs TN, Advantage, Edge, damage and armor."""

from __future__ import annotations

from typing import Any

import msgspec

from margin.events import Event
from margin.events.systems import edge as edge_events

from ...state import Character, Moment, TableState
from ..base import Option
from ..shape import shaped
from . import state

OPTIONS = (
    Option(
        "edge_recovery",
        "simple",
        "how spent Edge comes back: simple (all at session end, single GM awards) or complex "
        "(long rests, scenario end, sized awards, the final boss)",
        ("simple", "complex"),
    ),
    Option("edge_burn", True, "Edge Burn may be used against a fatal result"),
    Option("injuries", True, "hits set an injury severity by their share of Health"),
    Option(
        "initiative_brackets",
        True,
        "initiative sets the actions of a turn (below 6: no Minor; 16-25: one bonus; 26+: two)",
    ),
    Option(
        "mos_consequences",
        True,
        "significant and complete results leave Advantage/Disadvantage pending on the next check",
    ),
    *(
        Option(
            f"armor_dodge_{worn}",
            0,
            f"{worn} armor slows its wearer: their defense (the TN of attacks on them) "
            "drops by this much (0: off)",
            lo=0,
            hi=100,
        )
        for worn in ("medium", "heavy")
    ),
    *(
        Option(
            f"armor_degrade_{worn}",
            0,
            f"{worn} armor loses this much PT each time it stops a blow below its PT "
            "(0: off; repair-armor restores it)",
            lo=0,
            hi=100,
        )
        for worn in ("light", "medium", "heavy")
    ),
)


def _pc(name: str, sheet: dict[str, Any], hidden: bool = False) -> dict[str, Any]:
    return {"type": "add-character", "name": name, "sheet": sheet, "hidden": hidden}


def _npc(
    name: str,
    attributes: dict[str, int],
    skills: dict[str, Any],
    health: int,
    weapon: str,
    armor: str,
) -> dict[str, Any]:
    """One of the ambush's NPCs: no Edge, one weapon, and the defense of trained fighters."""
    sheet = {
        "attributes": attributes,
        "skills": skills,
        "health": health,
        "weapons": [weapon],
        "armor": armor,
        "defense": 20,
    }
    return _pc(name, sheet)


DEMO: tuple[dict[str, Any], ...] = (
    _pc(
        "Kael",
        {
            "attributes": {"ST": 9, "AG": 7, "CU": 5, "IN": 4, "WI": 5},
            "skills": {
                "athletics": {"ranks": 4, "keys": ["ST", "AG"]},
                "melee": {"ranks": 3, "keys": ["ST", "AG"]},
                "firearms": {"ranks": 2, "keys": ["AG", "IN"]},
                "perception": {"ranks": 2, "keys": ["IN", "WI"]},
            },
            "edge": 3,
            "health": 40,
            "initiative_dice": 2,
            "weapons": ["sword", "heavy-pistol", "punch"],
            "armor": "light",
        },
    ),
    _pc(
        "Moreau",
        {
            "attributes": {"ST": 6, "AG": 6, "CU": 5, "IN": 5, "WI": 4},
            "skills": {
                "firearms": {"ranks": 4, "keys": ["AG", "IN"]},
                "athletics": {"ranks": 3, "keys": ["ST", "AG"]},
            },
            "edge": 2,
            "health": 35,
            "weapons": ["fam-90", "dagger"],
            "armor": "medium",
        },
    ),
    _pc(
        "Vask",
        {
            "attributes": {"ST": 5, "AG": 5, "CU": 5, "IN": 5, "WI": 4},
            "skills": {"firearms": {"ranks": 3, "keys": ["AG", "IN"]}},
            "edge": 2,
            "health": 30,
            "weapons": ["stracher-p11"],
            "armor": "light",
        },
    ),
    _npc(
        "Guard",
        {"ST": 5, "AG": 4, "CU": 3, "IN": 3},
        {"firearms": {"ranks": 2, "keys": ["AG", "IN"]}},
        health=30,
        weapon="assault-rifle",
        armor="medium",
    ),
    _npc(
        "Enforcer",
        {"ST": 7, "AG": 5, "CU": 4, "IN": 3},
        {"melee": {"ranks": 3, "keys": ["ST", "AG"]}},
        health=35,
        weapon="sword",
        armor="inertial",
    ),
    # Kael climbs the cliff: Athletics +20 vs Difficult (30); 7+8 is a significant
    # success, leaving Advantage pending on his next Athletics check.
    {
        "type": "check",
        "character": "Kael",
        "skill": "athletics",
        "tn": "difficult",
        "faces": [7, 8],
        "reason": "climbing the cliff away from the wolves",
    },
    {
        "type": "start-encounter",
        "name": "Ambush at the cliff top",
        "characters": ["Kael", "Moreau", "Vask", "Guard", "Enforcer"],
        "faces": [1, 1, 6, 5, 3, 2],
    },
    {"type": "next-turn"},
    # The legionnaire's FAM-90 burst against medium armor: 6d6+1 = 24 vs PT 25-3.
    {
        "type": "attack",
        "character": "Moreau",
        "target": "Guard",
        "weapon": "fam-90",
        "mode": "burst",
        "tn": 20,
        "faces": [3, 4, 4, 4, 4, 4, 4, 3],
    },
    {"type": "next-turn"},
    # The P-11 against inertial armor: a solid hit (+1d6) and Edge (+2d6), 24 damage.
    {
        "type": "attack",
        "character": "Vask",
        "target": "Enforcer",
        "tn": 20,
        "edge_damage": True,
        "faces": [6, 7, 4, 4, 4, 4, 3, 3],
    },
    {"type": "next-turn"},
)


def moment(table: TableState) -> Moment | None:
    """Where the encounter's initiative stands: the round and whose turn."""
    enc = state.world(table).encounter
    return None if enc is None else Moment(round=enc.round, actor=enc.current)


def health(char: Character) -> tuple[int, int] | None:
    """Health left and the sheet's Health (none left when dead or knocked out)."""
    if not isinstance(char, state.EdgeCharacter):
        return None
    top = state.health(char)
    return (0 if char.dead or char.knocked_out else top - char.damage), top


def mask_health(char: Character) -> Character:
    """Unhurt, for players who may not see how hurt: no damage, injuries or death."""
    if not isinstance(char, state.EdgeCharacter):
        return char
    return msgspec.structs.replace(
        char, damage=0, stun=0, injuries=[], dead=False, knocked_out=False, urgent_care=False
    )


#: the table screen's short forms, in an order that runs on the demo table
SHORT_FORMS: tuple[tuple[str, str], ...] = (
    ("check kael athletics vs 30 adv = 9 9 2", "a check with Advantage, physical dice typed"),
    ("dismiss kael", "drop a pending Advantage/Disadvantage (the oldest)"),
    ("check kael perception vs difficult edge = 4 4 9", "Edge buys Advantage"),
    (
        "check kael athletics vs 25 dis mod -2 secret = 2 10 7",
        "Disadvantage, a -2, a secret TN",
    ),
    ("use kael move to cover", "spend one of the turn's actions"),
    ("edge kael initiative", "+2d6 initiative for the turn (here: a bonus action)"),
    ("attack kael enforcer sword vs 20 = 9 8 6 6 6 6 6 6", "an attack: check, then damage"),
    ("attack kael guard sword vs 15 = 5 5", "the hit's dice alone: its damage waits for its own"),
    ("edge kael damage = 1 1 1 1 1 1 1 1", "roll the waiting damage, +2d6 for Edge"),
    ("damage guard 3d6+2 stun = 6 6 6", "direct damage to a target, stun"),
    ("edge vask reaction", "an extra reaction outside one's turn"),
    ("attack vask guard vs 20 reaction = 2 3", "an attack as a reaction"),
    ("heal guard 5", "take points off the damage"),
    ("next", "the next turn"),
    ("award kael", "a GM award of Edge"),
    ("leave vask", "leave the encounter"),
    ("end", "end the encounter"),
    ("recover session-end", "Edge refills at the end of a session"),
    ("start Second wave", "start an encounter"),
    ("join kael faces 3 4", "roll initiative and join, physical dice typed"),
    ("next", "the first turn"),
    ("check moreau athletics vs 20 for the guard's keys = 2 3", "a reason comes last"),
)

#: the events that move the system's own clock
CLOCK_EVENTS: tuple[type[Event], ...] = (
    edge_events.EncounterStarted,
    edge_events.Joined,
    edge_events.Left,
    edge_events.TurnStarted,
    edge_events.EncounterEnded,
)


SYSTEM = shaped(
    __name__,
    id="2d10-edge",
    title="2d10-edge",
    summary="2d10 + skill bonus against a Target Number, with Advantage, Edge and armor",
    health_label="Health",
)
