"""``margin resolve`` actions of d100-chance: check, opposed, damage, attack, effect, odds."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from ...dice import Dice
from ...errors import RuleError
from ...inputs import read_as
from . import rules
from .commands import MAX_POTENCY, Position, Profile

#: no number a request gives is larger than this, either way (as on a sheet)
LIMIT = 1_000_000


Number = Annotated[float, Meta(ge=-LIMIT, le=LIMIT)]
Percent = Annotated[int, Meta(ge=1, le=100)]
Proficiency = Annotated[int, Meta(ge=0, le=100)]
#: 1..100, or a band of the difficulty ladder by name (its middle value)
Difficulty = Percent | str


class OddsRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    proficiency: Proficiency
    difficulty: Difficulty
    #: modifier names (``rules.MODIFIERS``)
    modifiers: list[str] = []


class CheckRequest(OddsRequest, kw_only=True):
    roll: Percent | None = None


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    proficiency: Proficiency
    difficulty: Percent
    modifiers: list[str] = []
    roll: Percent | None = None


class OpposedRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    a: Side
    b: Side


class DamageRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    base: Number
    scaling: Number = 0
    profile: Profile = "standard"
    range_percent: int | None = None
    crit: bool = False
    crit_multiplier: Number = 1.5
    vitals: Number = 1
    position: Position = "front"
    unaware_percent: Annotated[int, Meta(ge=0, le=rules.UNAWARE_MAX)] = 0
    armor: Number = 0
    resistance_percent: Number = 0
    pierce: Number = 0


class AttackRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    accuracy: Annotated[int, Meta(ge=-LIMIT, le=LIMIT)]
    evasion: Annotated[int, Meta(ge=-LIMIT, le=LIMIT)]
    position: Position = "front"
    extra_attackers: Annotated[int, Meta(ge=0, le=LIMIT)] = 0
    aware: bool = True
    roll: Percent | None = None
    dodge_roll: Percent | None = None


class EffectRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    potency: Annotated[int, Meta(ge=0, le=MAX_POTENCY)]
    resistance: Annotated[int, Meta(ge=-MAX_POTENCY, le=MAX_POTENCY)] = 0
    duration_step: Percent = 10
    intensity_step: Percent = 20


def _whole(value: float) -> int | float:
    """A number as given: a whole number stays one, so the steps read ``10``, not ``10.0``."""
    return int(value) if value == int(value) else value


def _d100(given: int | None, dice: Dice) -> int:
    return dice.roll(100)[0] if given is None else given


def _difficulty(value: int | str) -> int:
    return rules.difficulty_value(value) if isinstance(value, str) else value


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, CheckRequest)
    difficulty = _difficulty(f.difficulty)
    total, counted = rules.modifier_total(f.modifiers)
    odds = rules.check_odds(f.proficiency, difficulty, total)
    out: dict[str, Any] = {
        "automatic": odds.automatic,
        "chance": odds.chance,
        "modifier_total": total,
        "modifiers": counted,
        "difficulty_band": rules.difficulty_band(difficulty),
    }
    outcome = rules.AUTOMATIC if odds.automatic else rules.rolled(odds.chance, _d100(f.roll, dice))
    return {**out, **outcome.recorded()}


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, OddsRequest)
    total, _ = rules.modifier_total(f.modifiers)
    odds = rules.check_odds(f.proficiency, _difficulty(f.difficulty), total)
    if odds.automatic:
        bands = {b: float(b == rules.AUTOMATIC_BAND) for b in rules.BANDS}
        return {"automatic": True, "chance": odds.chance, "success": 1.0, "bands": bands}
    probs = rules.band_probabilities(odds.chance)
    return {
        "automatic": False,
        "chance": odds.chance,
        "success": odds.chance / 100,
        "bands": {k: float(v) for k, v in probs.items()},
    }


def _side(name: str, side: Side, dice: Dice) -> dict[str, Any]:
    total, _ = rules.modifier_total(side.modifiers, f"{name}.modifiers")
    chance = rules.check_odds(side.proficiency, side.difficulty, total).chance
    return {"chance": chance, **rules.rolled(chance, _d100(side.roll, dice)).recorded()}


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, OpposedRequest)
    a = _side("a", f.a, dice)
    b = _side("b", f.b, dice)
    return {"a": a, "b": b, "winner": rules.opposed_winner(a["margin"], b["margin"])}


def resolve_damage(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, DamageRequest)
    crit = f.crit or f.unaware_percent > 0
    lo, hi = rules.PROFILES[f.profile]
    given = f.range_percent
    if given is not None and not lo <= given <= hi:
        raise RuleError(f"range_percent: {given} is out of range ({lo}..{hi})")
    percent = None
    if not crit:
        percent = given if given is not None else lo - 1 + dice.roll(hi - lo + 1)[0]
    result = rules.damage_pipeline(
        base=_whole(f.base),
        scaling=_whole(f.scaling),
        profile=f.profile,
        range_percent=percent,
        crit=crit,
        crit_multiplier=f.crit_multiplier,
        vitals=_whole(f.vitals),
        position=f.position,
        unaware_percent=f.unaware_percent,
        armor=_whole(f.armor),
        resistance_percent=_whole(f.resistance_percent),
        pierce=_whole(f.pierce),
    )
    return {
        "damage": result.damage,
        "crit": crit,
        "range_percent": percent,
        "steps": [list(s) for s in result.steps],
    }


def resolve_attack(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, AttackRequest)
    aware = f.aware
    g = rules.gates(f.accuracy, f.evasion, f.position, f.extra_attackers, aware)
    roll = _d100(f.roll, dice)
    hit = roll <= g.hit_chance
    dodge_roll = None
    dodged = False
    if hit and aware:
        dodge_roll = _d100(f.dodge_roll, dice)
        dodged = dodge_roll <= g.dodge_chance
    return {
        "evasion": g.evasion,
        "hit_chance": g.hit_chance,
        "dodge_chance": g.dodge_chance,
        "roll": roll,
        "hit": hit,
        "dodge_roll": dodge_roll,
        "dodged": dodged,
        "connects": hit and not dodged,
        "crit": hit and not dodged and not aware,
        "connect_probability": float(rules.connect_probability(g)),
    }


def resolve_effect(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, EffectRequest)
    land = rules.landing(f.potency, f.resistance, f.duration_step, f.intensity_step)
    return {"landed": land.landed, "gap": land.gap, "turns": land.turns, "stacks": land.stacks}


RESOLVE = {
    "check": resolve_check,
    "odds": resolve_odds,
    "opposed": resolve_opposed,
    "damage": resolve_damage,
    "attack": resolve_attack,
    "effect": resolve_effect,
}
