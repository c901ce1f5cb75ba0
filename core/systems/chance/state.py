"""d100-chance state: the character with its HP and effects, the world, and the sheet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import msgspec

from ...errors import RuleError
from ...state import Character, TableState
from .rules import ATTACK_TYPES, BASE_ACCURACY, MIN_CRIT_MULTIPLIER, PROFILES, exact


@dataclass(frozen=True, slots=True)
class EffectKind:
    """What a status effect does; every behaviour is read from here by the rules."""

    name: str
    harmful: bool
    what: str
    #: percent of max HP lost (or, for a helpful effect, healed) per stack per turn
    tick: int = 0
    #: lasts until removed (bandaged) instead of counting down
    until_removed: bool = False
    #: becomes this effect once its stacks reach the escalation threshold
    escalates_to: str = ""
    can_act: bool = True
    can_dodge: bool = True
    #: 1 normal, 0 cannot move, 2 moves at half speed
    move_divisor: int = 1


EFFECTS: dict[str, EffectKind] = {
    k.name: k
    for k in (
        EffectKind("burning", True, "5% max HP per stack each turn; spreads at 3+ stacks", tick=5),
        EffectKind(
            "bleeding",
            True,
            "3% max HP per stack each turn until bandaged",
            tick=3,
            until_removed=True,
        ),
        EffectKind(
            "poisoned", True, "2% max HP per stack each turn; -5 per stack to one stat", tick=2
        ),
        EffectKind(
            "chilled",
            True,
            "half speed; becomes frozen at the threshold",
            escalates_to="frozen",
            move_divisor=2,
        ),
        EffectKind(
            "frozen",
            True,
            "immobilized: no move, no action, no dodge",
            can_act=False,
            can_dodge=False,
            move_divisor=0,
        ),
        EffectKind(
            "shocked", True, "builds toward stunned at the threshold", escalates_to="stunned"
        ),
        EffectKind(
            "stunned",
            True,
            "cannot act, move or dodge",
            can_act=False,
            can_dodge=False,
            move_divisor=0,
        ),
        EffectKind("rooted", True, "cannot move", move_divisor=0),
        EffectKind("slowed", True, "half speed", move_divisor=2),
        EffectKind("feared", True, "flees: cannot attack, moves only away from its source"),
        EffectKind("charmed", True, "cannot attack the one who charmed it"),
        EffectKind("confused", True, "each attack goes to a target picked by a die"),
        EffectKind("haste", False, "+1 action each turn; stunned for a turn when it ends"),
        EffectKind("shield", False, "absorbs 10% max HP per stack of damage"),
        EffectKind("regenerate", False, "heals 5% max HP per stack each turn", tick=5),
        EffectKind("blessed", False, "+10 accuracy"),
        EffectKind(
            "stealthed", False, "enemies lose you; your attack finds them unaware, and ends it"
        ),
    )
}
POISON_PENALTY = 5
SHIELD_PERCENT = 10
BLESSED_ACCURACY = 10


class Effect(msgspec.Struct, kw_only=True):
    """A status effect on a character."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("applied",)

    name: str
    stacks: int
    #: turns left; 0 for an effect that lasts until removed
    turns: int
    source: str = ""
    #: the stat a poison lowers
    stat: str = ""
    #: damage a shield still absorbs
    pool: int = 0
    #: the record that applied it (its ticks answer that record)
    applied: int = 0


class ChanceCharacter(Character, kw_only=True):
    """A character with current HP, effects and a place on the battlefield (feet)."""

    hp: int = 0
    effects: list[Effect] = []
    position: list[int] | None = None
    #: the side a charm made it fight for; None while it fights on its sheet's ``side``
    side: str | None = None

    @property
    def max_hp(self) -> int:
        return int(self.sheet.get("hp", 1))

    def effect(self, name: str) -> Effect | None:
        for e in self.effects:
            if e.name == name:
                return e
        return None

    def has(self, name: str) -> bool:
        return self.effect(name) is not None


class Encounter(msgspec.Struct, kw_only=True):
    """A fight: the turn order, whose turn it is, the round, and actions left."""

    order: list[str]
    current: int = -1
    round: int = 0
    actions: int = 0
    #: feet the current actor has moved this turn
    moved: int = 0
    #: participants the players do not see
    hidden: list[str] = []
    #: the current actor is feared and must flee before anything else: from whom
    #: ("gm" for the GM's own fear), and the place margin proposed (None: the GM names one)
    flee_from: str = ""
    flee_to: list[int] | None = None

    @property
    def actor(self) -> str | None:
        return self.order[self.current] if 0 <= self.current < len(self.order) else None


class FailedTask(msgspec.Struct, kw_only=True):
    """The approach of a failed task, which a retry must change."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    modifiers: list[str]
    approach: str = ""
    seq: int = 0


class Leg(msgspec.Struct, kw_only=True):
    domain: str
    distance: float
    unit: str
    note: str = ""


class ChanceWorld(msgspec.Struct, kw_only=True):
    encounter: Encounter | None = None
    #: character id -> task -> the approach that failed
    failed: dict[str, dict[str, FailedTask]] = {}
    journey: list[Leg] = []


def initial_world(options: Any) -> ChanceWorld:
    return ChanceWorld()


def player_world(state: TableState) -> ChanceWorld | None:
    """The world without hidden participants in the turn order.

    Who is hidden is who is hidden now (a participant shown after the start
    takes their place); while a hidden participant acts, the players' clock
    stays with the last one they saw act.
    """
    world = state.world
    if world is None or world.encounter is None:
        return world
    enc = world.encounter
    hidden = {c.id for c in state.characters.values() if c.hidden}
    hidden |= {c for c in enc.hidden if c not in state.characters}
    shown = [c for c in enc.order if c not in hidden]
    current = -1
    for i in range(enc.current, -1, -1) if enc.current >= 0 else ():
        if enc.order[i] not in hidden:
            current = shown.index(enc.order[i])
            break
    visible = Encounter(order=shown, current=current, round=enc.round, actions=enc.actions)
    return ChanceWorld(encounter=visible, failed=world.failed, journey=world.journey)


# -- the sheet ------------------------------------------------------------------

STATS = ("str", "dex", "int", "wis", "con", "cha")
SHEET_KEYS = (
    "hp",
    "stats",
    "skills",
    "speed",
    "speed_bonus",
    "armor_weight",
    "crit_chance",
    "crit_multiplier",
    "armor",
    "resistances",
    "status_resistance",
    "weapons",
    "side",
)
WEAPON_KEYS = (
    "type",
    "base",
    "accuracy",
    "profile",
    "element",
    "crit_chance",
    "crit_bonus",
    "range",
    "stats",
    "effect",
    "potency",
    "pierce",
    "burst",
)


#: no number on a sheet is larger than this, either way
SHEET_LIMIT = 1_000_000


def _int(where: str, value: Any, lo: int = -SHEET_LIMIT, hi: int = SHEET_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"sheet {where}: expected a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise RuleError(f"sheet {where}: {value} is out of range ({lo}..{hi})")
    return value


def _number(where: str, value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RuleError(f"sheet {where}: expected a number, got {value!r}")
    if not -SHEET_LIMIT <= value <= SHEET_LIMIT:
        raise RuleError(f"sheet {where}: {value} is out of range (-{SHEET_LIMIT}..{SHEET_LIMIT})")
    return value


def _table(where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RuleError(f"sheet {where}: expected an object of names to values")
    return {str(k).lower(): v for k, v in value.items()}


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """Refuse a sheet the rules cannot use; names lower-cased."""
    unknown = sorted(set(sheet) - set(SHEET_KEYS))
    if unknown:
        raise RuleError(f"sheet {unknown[0]}: unknown field (fields: {', '.join(SHEET_KEYS)})")
    out = dict(sheet)
    if "hp" not in out:
        raise RuleError("sheet hp: missing (the character's maximum HP)")
    _int("hp", out["hp"], 1)
    out["stats"] = {
        k: _int(f"stats.{k}", v) for k, v in _table("stats", out.get("stats", {})).items()
    }
    out["skills"] = {
        k: _int(f"skills.{k}", v, 0, 100)
        for k, v in _table("skills", out.get("skills", {})).items()
    }
    for key in ("speed", "armor_weight", "status_resistance"):
        if key in out:
            _int(key, out[key], 0)
    if "speed_bonus" in out:
        _int("speed_bonus", out["speed_bonus"])
    if "crit_chance" in out:
        _int("crit_chance", out["crit_chance"], 0, 100)
    if "crit_multiplier" in out:
        m = _number("crit_multiplier", out["crit_multiplier"])
        if exact(m) < MIN_CRIT_MULTIPLIER:
            raise RuleError(f"sheet crit_multiplier: {m} is below the floor of 1.5")
    out["armor"] = {
        k: _int(f"armor.{k}", v, 0) for k, v in _table("armor", out.get("armor", {})).items()
    }
    out["resistances"] = {
        k: _int(f"resistances.{k}", v, -100, 100)
        for k, v in _table("resistances", out.get("resistances", {})).items()
    }
    out["weapons"] = {
        k: _check_weapon(k, v) for k, v in _table("weapons", out.get("weapons", {})).items()
    }
    if "side" in out and not isinstance(out["side"], str):
        raise RuleError(f"sheet side: expected the name of a side, got {out['side']!r}")
    return out


def _check_weapon(name: str, weapon: Any) -> dict[str, Any]:
    w = _table(f"weapons.{name}", weapon)
    unknown = sorted(set(w) - set(WEAPON_KEYS))
    if unknown:
        raise RuleError(
            f"sheet weapons.{name}.{unknown[0]}: unknown field (fields: {', '.join(WEAPON_KEYS)})"
        )
    kind = w.get("type", "melee")
    if kind not in ATTACK_TYPES:
        raise RuleError(
            f"sheet weapons.{name}.type: {kind!r} is not one of {', '.join(ATTACK_TYPES)}"
        )
    w["type"] = kind
    if "base" not in w:
        raise RuleError(f"sheet weapons.{name}.base: missing (the weapon's base damage)")
    _number(f"weapons.{name}.base", w["base"])
    profile = w.get("profile", "standard")
    if profile not in PROFILES:
        raise RuleError(
            f"sheet weapons.{name}.profile: {profile!r} is not one of {', '.join(PROFILES)}"
        )
    w["profile"] = profile
    for key in ("accuracy", "crit_chance"):
        if key in w:
            _int(f"weapons.{name}.{key}", w[key])
    for key in ("pierce", "burst"):
        if key in w:
            _int(f"weapons.{name}.{key}", w[key], 0)
    if "crit_bonus" in w and _number(f"weapons.{name}.crit_bonus", w["crit_bonus"]) < 0:
        raise RuleError(f"sheet weapons.{name}.crit_bonus: a crit multiplier never goes down")
    w["range"] = _int(f"weapons.{name}.range", w.get("range", 5), 0)
    stats = w.get("stats", [])
    if not isinstance(stats, list) or not all(isinstance(s, str) for s in stats):
        raise RuleError(f"sheet weapons.{name}.stats: expected a list of stat names")
    if kind == "mutant" and not stats:
        raise RuleError(
            f"sheet weapons.{name}.stats: a mutant power names the stats that govern it"
        )
    w["stats"] = [s.lower() for s in stats]
    if "effect" in w:
        if w["effect"] not in EFFECTS:
            raise RuleError(
                f"sheet weapons.{name}.effect: {w['effect']!r} is not one of {', '.join(EFFECTS)}"
            )
        _int(f"weapons.{name}.potency", w.get("potency"), 0)
    w["element"] = str(w.get("element", "physical")).lower()
    return w


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> ChanceCharacter:
    return ChanceCharacter(
        id=cid, name=name, sheet=sheet, hidden=hidden, hp=int(sheet.get("hp", 1))
    )


# -- numbers derived from the sheet and effects ----------------------------------------


def table_of(char: Character, key: str) -> dict[str, Any]:
    """A name table of the sheet (skills, stats, armor...) with lower-case names.

    Sheet changes merge as typed, so names are folded to lower case on reading.
    """
    value = char.sheet.get(key, {})
    return {str(k).lower(): v for k, v in value.items()} if isinstance(value, dict) else {}


def stat(char: ChanceCharacter, name: str) -> int:
    """A stat after poison penalties."""
    value = int(table_of(char, "stats").get(name, 0))
    for e in char.effects:
        if e.name == "poisoned" and e.stat == name:
            value -= POISON_PENALTY * e.stacks
    return value


def stats(char: ChanceCharacter) -> dict[str, int]:
    names = set(table_of(char, "stats")) | {e.stat for e in char.effects if e.stat}
    return {n: stat(char, n) for n in names}


def weapon(char: ChanceCharacter, name: str | None) -> tuple[str, dict[str, Any]]:
    """A weapon by name (the first on the sheet when None), its defaults filled in."""
    weapons = table_of(char, "weapons")
    if not weapons:
        raise RuleError(f"weapon: {char.name} has no weapons on the sheet")
    key = next(iter(weapons)) if name is None else name.strip().lower()
    if key not in weapons:
        raise RuleError(f"weapon: {name!r} is not {char.name}'s (weapons: {', '.join(weapons)})")
    return key, _check_weapon(key, weapons[key])


def accuracy(char: ChanceCharacter, w: dict[str, Any]) -> int:
    bless = BLESSED_ACCURACY if char.has("blessed") else 0
    return BASE_ACCURACY + stat(char, "dex") + int(w.get("accuracy", 0)) + bless


def evasion(char: ChanceCharacter) -> int:
    """DEX + speed bonus (halved when slowed, lost when it cannot move) - armor weight."""
    bonus = int(char.sheet.get("speed_bonus", 0))
    divisor = move_divisor(char)
    bonus = 0 if divisor == 0 else bonus // divisor
    return stat(char, "dex") + bonus - int(char.sheet.get("armor_weight", 0))


def move_divisor(char: ChanceCharacter) -> int:
    divisor = 1
    for e in char.effects:
        d = EFFECTS[e.name].move_divisor
        if d == 0:
            return 0
        divisor = max(divisor, d)
    return divisor


def speed(char: ChanceCharacter) -> int:
    """Feet the character may move in a turn."""
    divisor = move_divisor(char)
    return 0 if divisor == 0 else int(char.sheet.get("speed", 30)) // divisor


def can_act(char: ChanceCharacter) -> bool:
    return all(EFFECTS[e.name].can_act for e in char.effects)


def can_dodge(char: ChanceCharacter) -> bool:
    return all(EFFECTS[e.name].can_dodge for e in char.effects)


#: what each step of ``crit_multiplier_step`` adds to the crit multiplier
CRIT_MULTIPLIER_STEP = Fraction(1, 10)


def crit_chance(
    char: ChanceCharacter, w: dict[str, Any], options: Mapping[str, Any] | None = None
) -> int:
    """The sheet's and the weapon's crit chance, plus 1 per ``crit_dex_step`` of DEX (option)."""
    step = int((options or {}).get("crit_dex_step", 0))
    derived = max(0, stat(char, "dex")) // step if step else 0
    gear = int(char.sheet.get("crit_chance", 0)) + int(w.get("crit_chance", 0))
    return max(0, min(100, gear + derived))


def crit_multiplier(
    char: ChanceCharacter, w: dict[str, Any], options: Mapping[str, Any] | None = None
) -> Any:
    """The sheet's multiplier (1.5 when not given) and the weapon's ``crit_bonus``, plus 0.1
    per ``crit_multiplier_step`` of STR + DEX (option)."""
    step = int((options or {}).get("crit_multiplier_step", 0))
    strength = max(0, stat(char, "str")) + max(0, stat(char, "dex"))
    derived = CRIT_MULTIPLIER_STEP * (strength // step) if step else 0
    return exact(char.sheet.get("crit_multiplier", 1.5)) + exact(w.get("crit_bonus", 0)) + derived


def side_of(char: ChanceCharacter) -> str:
    """The side a character fights on: a charm's, else its sheet's ("" when it names none)."""
    return char.side if char.side is not None else str(char.sheet.get("side", ""))


def actions_per_turn(char: ChanceCharacter) -> int:
    if not can_act(char):
        return 0
    return 2 if char.has("haste") else 1
