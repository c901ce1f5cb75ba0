"""d100-chance state: the character with its HP and effects, the world, and the sheet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta

from ...errors import RuleError
from ...inputs import read_as
from ...state import Character, TableState, hidden_ids, typed_sheet
from . import rules
from .commands import AttackType, Profile
from .rules import BASE_ACCURACY, MIN_CRIT_MULTIPLIER, exact


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


class ChanceCharacter(Character, kw_only=True, dict=True):
    """A character with current HP, effects and a place on the battlefield (feet)."""

    hp: int = 0
    effects: list[Effect] = []
    position: list[int] | None = None
    #: the side a charm made it fight for; None while it fights on its sheet's ``side``
    side: str | None = None

    @property
    def max_hp(self) -> int:
        return sheet_of(self).hp

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
    world: ChanceWorld | None = state.world
    if world is None or world.encounter is None:
        return world
    enc = world.encounter
    hidden = hidden_ids(state)
    hidden |= {c for c in enc.hidden if c not in state.characters}
    shown = [c for c in enc.order if c not in hidden]
    current = _last_seen(enc.order, enc.current, hidden)
    visible = Encounter(
        order=shown,
        current=-1 if current is None else shown.index(current),
        round=enc.round,
        actions=enc.actions,
    )
    return ChanceWorld(encounter=visible, failed=world.failed, journey=world.journey)


def _last_seen(order: list[str], current: int, hidden: set[str]) -> str | None:
    """The participant players saw act last: the one acting (at ``current`` in ``order``, -1
    before the first), or while a hidden one acts, the last shown one before it."""
    return next((order[i] for i in range(current, -1, -1) if order[i] not in hidden), None)


# -- the sheet ------------------------------------------------------------------

#: the effects a weapon may put on what it hits (``EFFECTS``)
EffectName = Literal[
    "burning",
    "bleeding",
    "poisoned",
    "chilled",
    "frozen",
    "shocked",
    "stunned",
    "rooted",
    "slowed",
    "feared",
    "charmed",
    "confused",
    "haste",
    "shield",
    "regenerate",
    "blessed",
    "stealthed",
]

#: no number on a sheet is larger than this, either way
SHEET_LIMIT = 1_000_000

Whole = Annotated[int, Meta(ge=-SHEET_LIMIT, le=SHEET_LIMIT)]
Count = Annotated[int, Meta(ge=0, le=SHEET_LIMIT)]
Number = Whole | Annotated[float, Meta(ge=-SHEET_LIMIT, le=SHEET_LIMIT)]
Percent = Annotated[int, Meta(ge=0, le=100)]


class Weapon(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A weapon (or power) of a sheet, by the name the sheet gives it."""

    type: AttackType = "melee"
    #: base damage
    base: Number
    accuracy: Whole = 0
    profile: Profile = "standard"
    element: str = "physical"
    crit_chance: Whole = 0
    #: added to the wielder's crit multiplier
    crit_bonus: Count | Annotated[float, Meta(ge=0, le=SHEET_LIMIT)] = 0
    #: feet it reaches
    range: Count = 5
    #: the stats that govern it (a mutant power names them)
    stats: list[str] = []
    effect: EffectName | None = None
    potency: Count | None = None
    #: percent of armor it ignores
    pierce: Count = 0
    #: extra attacks of a burst
    burst: Count = 0


class ChanceSheet(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A d100-chance sheet: table names in lower case (see the rules doc for the format)."""

    #: maximum HP
    hp: Annotated[int, Meta(ge=1, le=SHEET_LIMIT)]
    stats: dict[str, Whole] = {}
    skills: dict[str, Percent] = {}
    speed: Count = 30
    speed_bonus: Whole = 0
    armor_weight: Count = 0
    crit_chance: Percent = 0
    crit_multiplier: Number = 1.5
    #: hit location -> armor
    armor: dict[str, Count] = {}
    #: element -> percent resisted
    resistances: dict[str, Annotated[int, Meta(ge=-100, le=100)]] = {}
    status_resistance: Count = 0
    weapons: dict[str, Weapon] = {}
    #: the side it fights on ("": none named)
    side: str = ""


#: what a record holds of a sheet beyond the fields it gave: its tables, and of each weapon
#: what the rules read it by
FILLED = ("stats", "skills", "armor", "resistances", "weapons")
FILLED_WEAPON = ("type", "profile", "range", "stats", "element")


def _lower(table: Any) -> Any:
    return {str(k).lower(): v for k, v in table.items()} if isinstance(table, dict) else table


def _given(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with the names of its tables, and of its weapons' fields, in lower case."""
    out = {k: _lower(v) if k in FILLED else v for k, v in sheet.items()}
    if isinstance(out.get("weapons"), dict):
        out["weapons"] = {k: _lower(w) for k, w in out["weapons"].items()}
    return out


def normal_sheet(sheet: dict[str, Any]) -> ChanceSheet:
    """A sheet read once into a ``ChanceSheet``, or a one-line RuleError naming the field."""
    read = read_as(_given(sheet), ChanceSheet, "sheet.")
    if rules.exact(read.crit_multiplier) < MIN_CRIT_MULTIPLIER:
        raise RuleError(f"sheet.crit_multiplier: {read.crit_multiplier} is below the floor of 1.5")
    for name, w in read.weapons.items():
        _check_weapon(name, w)
    weapons = {
        k: msgspec.structs.replace(w, element=w.element.lower(), stats=[s.lower() for s in w.stats])
        for k, w in read.weapons.items()
    }
    return msgspec.structs.replace(read, weapons=weapons)


def _check_weapon(name: str, w: Weapon) -> None:
    """Refuse a weapon missing what its kind needs: a mutant power's stats, an effect's potency."""
    if w.type == "mutant" and not w.stats:
        raise RuleError(
            f"sheet.weapons.{name}.stats: a mutant power names the stats that govern it"
        )
    if w.effect is not None and w.potency is None:
        raise RuleError(f"sheet.weapons.{name}.potency: missing (the {w.effect}'s potency)")


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet as a record holds it: the fields given, checked, with its tables filled in
    and names in lower case."""
    given = _given(sheet)
    data: dict[str, Any] = msgspec.to_builtins(normal_sheet(sheet))
    weapons = given.get("weapons", {})
    data["weapons"] = {
        k: {f: v for f, v in w.items() if f in weapons[k] or f in FILLED_WEAPON}
        for k, w in data["weapons"].items()
    }
    return {k: v for k, v in data.items() if k in given or k in FILLED}


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> ChanceCharacter:
    return ChanceCharacter(
        id=cid, name=name, sheet=sheet, hidden=hidden, hp=int(sheet.get("hp", 1))
    )


def sheet_of(char: Character) -> ChanceSheet:
    """A character's sheet, typed (read once for each sheet the character holds)."""
    return typed_sheet(char, normal_sheet)


# -- numbers derived from the sheet and effects ----------------------------------------


def stat(char: ChanceCharacter, name: str) -> int:
    """A stat after poison penalties."""
    value = sheet_of(char).stats.get(name, 0)
    for e in char.effects:
        if e.name == "poisoned" and e.stat == name:
            value -= POISON_PENALTY * e.stacks
    return value


def stats(char: ChanceCharacter) -> dict[str, int]:
    names = set(sheet_of(char).stats) | {e.stat for e in char.effects if e.stat}
    return {n: stat(char, n) for n in names}


def weapon(char: ChanceCharacter, name: str | None) -> tuple[str, Weapon]:
    """A weapon by name (the first on the sheet when None)."""
    weapons = sheet_of(char).weapons
    if not weapons:
        raise RuleError(f"weapon: {char.name} has no weapons on the sheet")
    key = next(iter(weapons)) if name is None else name.strip().lower()
    if key not in weapons:
        raise RuleError(f"weapon: {name!r} is not {char.name}'s (weapons: {', '.join(weapons)})")
    return key, weapons[key]


def accuracy(char: ChanceCharacter, w: Weapon) -> int:
    bless = BLESSED_ACCURACY if char.has("blessed") else 0
    return BASE_ACCURACY + stat(char, "dex") + w.accuracy + bless


def evasion(char: ChanceCharacter) -> int:
    """DEX + speed bonus (halved when slowed, lost when it cannot move) - armor weight."""
    sheet = sheet_of(char)
    divisor = move_divisor(char)
    bonus = 0 if divisor == 0 else sheet.speed_bonus // divisor
    return stat(char, "dex") + bonus - sheet.armor_weight


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
    return 0 if divisor == 0 else sheet_of(char).speed // divisor


def can_act(char: ChanceCharacter) -> bool:
    return all(EFFECTS[e.name].can_act for e in char.effects)


def can_dodge(char: ChanceCharacter) -> bool:
    return all(EFFECTS[e.name].can_dodge for e in char.effects)


#: what each step of ``crit_multiplier_step`` adds to the crit multiplier
CRIT_MULTIPLIER_STEP = Fraction(1, 10)


def crit_chance(char: ChanceCharacter, w: Weapon, options: Mapping[str, Any] | None = None) -> int:
    """The sheet's and the weapon's crit chance, plus 1 per ``crit_dex_step`` of DEX (option)."""
    step = int((options or {}).get("crit_dex_step", 0))
    derived = max(0, stat(char, "dex")) // step if step else 0
    gear = sheet_of(char).crit_chance + w.crit_chance
    return max(0, min(100, gear + derived))


def crit_multiplier(
    char: ChanceCharacter, w: Weapon, options: Mapping[str, Any] | None = None
) -> Any:
    """The sheet's multiplier (1.5 when not given) and the weapon's ``crit_bonus``, plus 0.1
    per ``crit_multiplier_step`` of STR + DEX (option)."""
    step = int((options or {}).get("crit_multiplier_step", 0))
    strength = max(0, stat(char, "str")) + max(0, stat(char, "dex"))
    derived = CRIT_MULTIPLIER_STEP * (strength // step) if step else 0
    return exact(sheet_of(char).crit_multiplier) + exact(w.crit_bonus) + derived


def side_of(char: ChanceCharacter) -> str:
    """The side a character fights on: a charm's, else its sheet's ("" when it names none)."""
    return char.side if char.side is not None else sheet_of(char).side


def actions_per_turn(char: ChanceCharacter) -> int:
    if not can_act(char):
        return 0
    return 2 if char.has("haste") else 1
