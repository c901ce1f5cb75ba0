"""``margin resolve`` actions of d100-chance: check, opposed, damage, attack, effect, odds."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ...dice import Dice
from ...errors import RuleError
from . import rules


def _fields() -> ModuleType:
    """``core.resolve``'s field helpers, reached late: that module imports the system registry."""
    from ... import resolve

    return resolve


def take(fields: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    helpers = _fields()
    spec = {k: helpers.REQUIRED if v is REQUIRED else v for k, v in spec.items()}
    return helpers.take(fields, spec)  # type: ignore[no-any-return]


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return _fields().integer(name, value, lo, hi)  # type: ignore[no-any-return]


def boolean(name: str, value: Any) -> bool:
    return _fields().boolean(name, value)  # type: ignore[no-any-return]


class _Required:
    """Stands for ``core.resolve.REQUIRED`` in field specs until the module is reachable."""


REQUIRED: Any = _Required()


#: no number a request gives is larger than this, either way (as on a sheet)
LIMIT = 1_000_000
#: most potency or resistance an effect contest takes, either way (as the effect command)
MAX_POTENCY = 1000


def _number(name: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RuleError(f"{name}: expected a number, got {value!r}")
    if not -LIMIT <= value <= LIMIT:
        raise RuleError(f"{name}: {value} is out of range (-{LIMIT}..{LIMIT})")
    return value


def _d100(name: str, given: Any, dice: Dice) -> int:
    if given is None:
        return dice.roll(100)[0]
    return integer(name, given, 1, 100)


def _modifiers(value: Any, name: str = "modifiers") -> tuple[int, list[str]]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleError(f"{name}: expected a list of modifier names ({', '.join(rules.MODIFIERS)})")
    return rules.modifier_total(value, name)


def _choice(name: str, value: Any, choices: Any) -> str:
    if not isinstance(value, str) or value not in choices:
        raise RuleError(f"{name}: {value!r} is not one of {', '.join(choices)}")
    return str(value)


def _difficulty(value: Any) -> int:
    """1..100, or a band of the difficulty ladder by name (its middle value)."""
    if isinstance(value, str):
        return rules.difficulty_value(value)
    return integer("difficulty", value, 1, 100)


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(
        fields, {"proficiency": REQUIRED, "difficulty": REQUIRED, "modifiers": [], "roll": None}
    )
    proficiency = integer("proficiency", f["proficiency"], 0, 100)
    difficulty = _difficulty(f["difficulty"])
    total, counted = _modifiers(f["modifiers"])
    odds = rules.check_odds(proficiency, difficulty, total)
    out: dict[str, Any] = {
        "automatic": odds.automatic,
        "chance": odds.chance,
        "modifier_total": total,
        "modifiers": counted,
        "difficulty_band": rules.difficulty_band(difficulty),
    }
    if odds.automatic:
        if f["roll"] is not None:
            integer("roll", f["roll"], 1, 100)
        out.update(roll=None, success=True, margin=None, band=rules.AUTOMATIC_BAND)
        return out
    roll = _d100("roll", f["roll"], dice)
    margin = odds.chance - roll
    out.update(roll=roll, success=margin >= 0, margin=margin, band=rules.band_of(margin))
    return out


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"proficiency": REQUIRED, "difficulty": REQUIRED, "modifiers": []})
    proficiency = integer("proficiency", f["proficiency"], 0, 100)
    difficulty = _difficulty(f["difficulty"])
    total, _ = _modifiers(f["modifiers"])
    odds = rules.check_odds(proficiency, difficulty, total)
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


def _side(name: str, value: Any, dice: Dice) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RuleError(f"{name}: expected {{proficiency, difficulty, modifiers, roll}}")
    try:
        f = take(
            value, {"proficiency": REQUIRED, "difficulty": REQUIRED, "modifiers": [], "roll": None}
        )
    except RuleError as exc:
        raise RuleError(f"{name}.{exc}") from None
    total, _ = _modifiers(f["modifiers"], f"{name}.modifiers")
    chance = rules.check_odds(
        integer(f"{name}.proficiency", f["proficiency"], 0, 100),
        integer(f"{name}.difficulty", f["difficulty"], 1, 100),
        total,
    ).chance
    roll = _d100(f"{name}.roll", f["roll"], dice)
    margin = chance - roll
    return {
        "chance": chance,
        "roll": roll,
        "margin": margin,
        "success": margin >= 0,
        "band": rules.band_of(margin),
    }


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"a": REQUIRED, "b": REQUIRED})
    a = _side("a", f["a"], dice)
    b = _side("b", f["b"], dice)
    return {"a": a, "b": b, "winner": rules.opposed_winner(a["margin"], b["margin"])}


def resolve_damage(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(
        fields,
        {
            "base": REQUIRED,
            "scaling": 0,
            "profile": "standard",
            "range_percent": None,
            "crit": False,
            "crit_multiplier": 1.5,
            "vitals": 1,
            "position": "front",
            "unaware_percent": 0,
            "armor": 0,
            "resistance_percent": 0,
            "pierce": 0,
        },
    )
    profile = _choice("profile", f["profile"], rules.PROFILES)
    _choice("position", f["position"], rules.POSITIONS)
    unaware = integer("unaware_percent", f["unaware_percent"], 0, rules.UNAWARE_MAX)
    crit = boolean("crit", f["crit"]) or unaware > 0
    lo, hi = rules.PROFILES[profile]
    given = f["range_percent"]
    if given is not None:
        integer("range_percent", given, lo, hi)
    percent = None
    if not crit:
        percent = given if given is not None else lo - 1 + dice.roll(hi - lo + 1)[0]
    result = rules.damage_pipeline(
        base=_number("base", f["base"]),
        scaling=_number("scaling", f["scaling"]),
        profile=profile,
        range_percent=percent,
        crit=crit,
        crit_multiplier=_number("crit_multiplier", f["crit_multiplier"]),
        vitals=_number("vitals", f["vitals"]),
        position=f["position"],
        unaware_percent=unaware,
        armor=_number("armor", f["armor"]),
        resistance_percent=_number("resistance_percent", f["resistance_percent"]),
        pierce=_number("pierce", f["pierce"]),
    )
    return {
        "damage": result.damage,
        "crit": crit,
        "range_percent": percent,
        "steps": [list(s) for s in result.steps],
    }


def resolve_attack(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(
        fields,
        {
            "accuracy": REQUIRED,
            "evasion": REQUIRED,
            "position": "front",
            "extra_attackers": 0,
            "aware": True,
            "roll": None,
            "dodge_roll": None,
        },
    )
    aware = boolean("aware", f["aware"])
    g = rules.gates(
        integer("accuracy", f["accuracy"], -LIMIT, LIMIT),
        integer("evasion", f["evasion"], -LIMIT, LIMIT),
        _choice("position", f["position"], rules.POSITIONS),
        integer("extra_attackers", f["extra_attackers"], 0, LIMIT),
        aware,
    )
    if f["dodge_roll"] is not None:
        integer("dodge_roll", f["dodge_roll"], 1, 100)
    roll = _d100("roll", f["roll"], dice)
    hit = roll <= g.hit_chance
    dodge_roll = None
    dodged = False
    if hit and aware:
        dodge_roll = _d100("dodge_roll", f["dodge_roll"], dice)
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
    f = take(
        fields, {"potency": REQUIRED, "resistance": 0, "duration_step": 10, "intensity_step": 20}
    )
    land = rules.landing(
        integer("potency", f["potency"], 0, MAX_POTENCY),
        integer("resistance", f["resistance"], -MAX_POTENCY, MAX_POTENCY),
        integer("duration_step", f["duration_step"], 1, 100),
        integer("intensity_step", f["intensity_step"], 1, 100),
    )
    return {"landed": land.landed, "gap": land.gap, "turns": land.turns, "stacks": land.stacks}


RESOLVE = {
    "check": resolve_check,
    "odds": resolve_odds,
    "opposed": resolve_opposed,
    "damage": resolve_damage,
    "attack": resolve_attack,
    "effect": resolve_effect,
}
