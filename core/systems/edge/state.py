"""2d10-edge character sheets, weapon and armor presets, and the state a fold keeps."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ...errors import RuleError
from ...inputs import read_as
from ...state import (
    Character,
    FromRecord,
    Rounds,
    TableState,
    find_character,
    hidden_ids,
    typed_sheet,
)

#: Ranged weapons carry their own damage; melee weapons add the wielder's ST.
#: ``burst`` is the extra d6 of burst fire (0: no burst mode); ``pt_single`` and
#: ``pt_burst`` are the PT reductions of each fire mode (a Gauss weapon: 5 and 3).
WEAPON_PRESETS: dict[str, dict[str, Any]] = {
    "light-pistol": {"dice": 2, "bonus": 4},
    "heavy-pistol": {"dice": 3, "bonus": 5},
    "assault-rifle": {"dice": 4, "bonus": 6},
    "sniper-rifle": {"dice": 6, "bonus": 8},
    "assault-cannon": {"dice": 8, "bonus": 10},
    "stracher-p11": {"dice": 3, "bonus": 2},
    "fam-90": {"dice": 5, "bonus": 1, "burst": 1, "gauss": True},
    "sword": {"dice": 2, "melee": True},
    "dagger": {"dice": 1, "melee": True},
    "punch": {"dice": 1, "melee": True, "stun": True},
}

#: Armor classes, lightest first, with the rule-of-thumb PT of each.
ARMOR_CLASSES: dict[str, int] = {"light": 15, "medium": 25, "heavy": 35}

ARMOR_PRESETS: dict[str, dict[str, int]] = {
    "light": {"pt": 15, "dr": 20},
    "medium": {"pt": 25, "dr": 40},
    "heavy": {"pt": 35, "dr": 60},
    "inertial": {"pt": 20, "dr": 40},
}

#: PT reductions of a Gauss weapon (``"gauss": true`` on a weapon), by fire mode.
GAUSS: dict[str, int] = {"pt_single": 5, "pt_burst": 3}

#: Talents that reduce the PT of the armor an attack meets, by how much.
PT_TALENTS: dict[str, int] = {"armor-piercer": 2}

RANGED_SKILL = "firearms"
MELEE_SKILL = "melee"


def key(name: str) -> str:
    """The id a skill, weapon or talent name gives: lower case, words joined by '-'."""
    return "-".join(str(name).lower().replace("_", "-").split())


class Pending(FromRecord, kw_only=True):
    """A MoS consequence waiting for the character's next (related) check."""

    kind: str
    scope: str
    skill: str
    #: left by a check with a secret TN: players do not see it until the GM reveals that check
    secret: bool = False


class Injury(FromRecord, kw_only=True):
    """An injury a blow left, and what became of it."""

    points: int
    severity: str
    stun: bool = False
    overwhelmed: bool = False
    burned: bool = False


class EdgeCharacter(Character, kw_only=True, dict=True):
    """A character's live status; everything else is read from the sheet."""

    edge: int = 0
    #: points of maximum Edge lost to Edge Burn
    burns: int = 0
    damage: int = 0
    stun: int = 0
    injuries: list[Injury] = []
    pending: list[Pending] = []
    urgent_care: bool = False
    #: PT worn off the armor by blows it stopped (options armor_degrade_*), until repaired
    armor_wear: int = 0
    dead: bool = False
    knocked_out: bool = False


class Combatant(msgspec.Struct, kw_only=True):
    id: str
    initiative: int
    bonus: int
    faces: list[int] = []
    #: an Edge initiative boost waiting for (or lasting through) one turn
    boost: int = 0
    boost_active: bool = False
    actions: list[str] = []
    reactions: int = 1
    extra_reaction: bool = False
    hidden: bool = False


class Encounter(Rounds, kw_only=True):
    order: list[Combatant] = []


class OpenAttack(FromRecord, kw_only=True):
    """An attack that hit and whose damage is not rolled yet."""

    attacker: str
    target: str
    weapon: str
    base_dice: int
    bonus: int
    extra_dice: int
    mos: int
    stun: bool
    pt_reduction: int
    edge_on_roll: bool


class EdgeWorld(msgspec.Struct, kw_only=True):
    encounter: Encounter | None = None
    open_attacks: list[OpenAttack] = []
    #: true in the world a player's view is drawn from (see ``player_world``)
    players: bool = False


# -- sheet ------------------------------------------------------------------

Dice = Annotated[int, Meta(ge=1, le=30)]
Bonus = Annotated[int, Meta(ge=-20, le=100)]
Reduction = Annotated[int, Meta(ge=0, le=100)]


class WeaponForm(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """A weapon as a sheet gives it: a preset, fields of its own, or a preset with some
    fields changed."""

    name: str = ""
    preset: str = ""
    dice: Dice | None = None
    bonus: Bonus | None = None
    melee: bool | None = None
    stun: bool | None = None
    burst: Annotated[int, Meta(ge=0, le=10)] | None = None
    pt_single: Reduction | None = None
    pt_burst: Reduction | None = None
    #: a Gauss weapon: the PT reductions of ``GAUSS`` unless it gives its own
    gauss: bool | None = None
    skill: str | None = None


class ArmorForm(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Armor as a sheet gives it: a preset, or its PT and DR (and class)."""

    name: str | None = None
    preset: str = ""
    pt: Annotated[int, Meta(ge=0, le=200)] | None = None
    dr: Annotated[int, Meta(ge=0, le=100)] | None = None
    #: the class of its weight (what the armor options key on); by default the class whose
    #: rule-of-thumb PT is nearest
    worn_class: Literal["light", "medium", "heavy"] | None = msgspec.field(
        default=None, name="class"
    )


class SkillForm(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ranks: Annotated[int, Meta(ge=0, le=100)] = 0
    #: the two key attributes whose values add to the ranks
    keys: list[str] = []


class SheetForm(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A 2d10-edge sheet as it is given (see the rules doc for the format)."""

    attributes: dict[str, Annotated[int, Meta(ge=-10, le=100)]] = {}
    skills: dict[str, SkillForm] = {}
    edge: Annotated[int, Meta(ge=0, le=100)] = 0
    health: Annotated[int, Meta(ge=1, le=10000)] = 30
    initiative_dice: Annotated[int, Meta(ge=1, le=20)] = 1
    weapons: list[str | WeaponForm] = []
    armor: str | ArmorForm | None = None
    talents: list[str] = []
    defense: Annotated[int, Meta(ge=1, le=100)] | None = None


class Skill(msgspec.Struct, frozen=True, kw_only=True):
    ranks: int
    keys: list[str]


class Weapon(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    dice: int
    bonus: int
    melee: bool
    stun: bool
    #: the extra d6 of burst fire (0: no burst mode)
    burst: int
    #: the PT reductions of each fire mode
    pt_single: int
    pt_burst: int
    skill: str


class Armor(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    pt: int
    dr: int
    worn_class: str = msgspec.field(name="class")


class EdgeSheet(msgspec.Struct, frozen=True, kw_only=True):
    """A 2d10-edge sheet in normal form: presets filled in, names as ids, attributes in
    upper case. Its plain data is what a record holds."""

    attributes: dict[str, int]
    skills: dict[str, Skill]
    edge: int
    health: int
    initiative_dice: int
    weapons: list[Weapon]
    armor: Armor | None
    talents: list[str]
    #: the TN of attacks on the character (absent: the attacker names it)
    defense: int | UnsetType = UNSET


def _preset(
    presets: Mapping[str, Mapping[str, Any]], name: str, field: str, kind: str
) -> dict[str, Any]:
    """A preset's fields and its name, or a clear error naming the presets there are."""
    preset = key(name)
    if preset not in presets:
        raise RuleError(f"{field}: {name!r} is not {kind} preset ({', '.join(presets)})")
    return {"name": preset, **presets[preset]}


def _weapon(given: str | WeaponForm, where: str) -> Weapon:
    merged = _weapon_fields(WeaponForm(preset=given) if isinstance(given, str) else given, where)
    name = str(merged.get("name", "")).strip()
    if not name:
        raise RuleError(f"{where}.name: a custom weapon needs a name")
    melee = bool(merged.get("melee", False))
    return Weapon(
        name=name,
        dice=merged["dice"],
        bonus=merged.get("bonus", 0),
        melee=melee,
        stun=bool(merged.get("stun", False)),
        burst=merged.get("burst", 0),
        pt_single=merged.get("pt_single", 0),
        pt_burst=merged.get("pt_burst", 0),
        skill=key(merged.get("skill") or (MELEE_SKILL if melee else RANGED_SKILL)),
    )


def _weapon_fields(form: WeaponForm, where: str) -> dict[str, Any]:
    """A weapon form's fields over its preset's (and a gauss weapon's), those it gives."""
    mine = _given(form)
    if not form.name:
        mine.pop("name")
    base: dict[str, Any] = {}
    if form.preset:
        base = _preset(WEAPON_PRESETS, form.preset, f"{where}.preset", "a weapon")
    elif form.dice is None:
        raise RuleError(f"{where}: give a preset or the weapon's dice")
    merged = {**base, **mine}
    if merged.pop("gauss", False):
        merged = {**GAUSS, **merged}
    return merged


def _given(form: WeaponForm | ArmorForm) -> dict[str, Any]:
    """The fields a sheet's weapon or armor gives (those it leaves out are None), which
    win over its preset's; the preset's name aside."""
    fields = msgspec.structs.asdict(form)
    return {k: v for k, v in fields.items() if v is not None and k != "preset"}


def armor_class_of(pt: int) -> str:
    """The class whose rule-of-thumb PT is nearest ``pt``; a tie goes to the lighter class."""
    return min(ARMOR_CLASSES, key=lambda c: abs(ARMOR_CLASSES[c] - pt))


def _armor(given: str | ArmorForm | None) -> Armor | None:
    if given is None:
        return None
    form = ArmorForm(preset=given) if isinstance(given, str) else given
    base = _armor_preset(form.preset) if form.preset else {}
    merged = {**base, **_given(form)}
    if "pt" not in merged or "dr" not in merged:
        raise RuleError("sheet.armor: give a preset or both pt and dr")
    return Armor(
        name=str(merged.get("name", "armor")),
        pt=merged["pt"],
        dr=merged["dr"],
        worn_class=merged.get("worn_class") or armor_class_of(merged["pt"]),
    )


def _armor_preset(preset: str) -> dict[str, Any]:
    """The fields of a named armor; one named after a class is worn as that class."""
    base = _preset(ARMOR_PRESETS, preset, "sheet.armor", "an armor")
    if base["name"] in ARMOR_CLASSES:
        return {**base, "worn_class": base["name"]}
    return base


def _skill(name: str, form: SkillForm, attributes: dict[str, int]) -> Skill:
    where = f"sheet.skills.{name}.keys"
    if len(form.keys) != 2:
        raise RuleError(f"{where}: a skill has exactly two key attributes")
    keys = [k.upper() for k in form.keys]
    for k in keys:
        if k not in attributes:
            have = ", ".join(attributes) or "none"
            raise RuleError(f"{where}: {k} is not an attribute of this sheet ({have})")
    return Skill(ranks=form.ranks, keys=keys)


def normal_sheet(sheet: dict[str, Any]) -> EdgeSheet:
    """A sheet as given, read once into normal form, or a one-line RuleError naming the field."""
    form = read_as(sheet, SheetForm, "sheet.")
    attributes = {k.upper(): v for k, v in form.attributes.items()}
    weapons = [_weapon(w, f"sheet.weapons[{i}]") for i, w in enumerate(form.weapons)]
    names = [key(w.name) for w in weapons]
    if len(set(names)) != len(names):
        raise RuleError("sheet.weapons: two weapons share a name")
    return EdgeSheet(
        attributes=attributes,
        skills={key(n): _skill(n, s, attributes) for n, s in form.skills.items()},
        edge=form.edge,
        health=form.health,
        initiative_dice=form.initiative_dice,
        weapons=weapons,
        armor=_armor(form.armor),
        talents=[key(t) for t in form.talents],
        defense=UNSET if form.defense is None else form.defense,
    )


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """A 2d10-edge sheet in normal form, as the plain data a record holds."""
    data: dict[str, Any] = msgspec.to_builtins(normal_sheet(sheet))
    return data


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> EdgeCharacter:
    return EdgeCharacter(
        id=cid, name=name, sheet=sheet, hidden=hidden, edge=int(sheet.get("edge", 0))
    )


def initial_world(options: Any) -> EdgeWorld:
    return EdgeWorld()


# -- reading a character ------------------------------------------------------


def sheet_of(char: Character) -> EdgeSheet:
    """A character's sheet, typed (read once for each sheet the character holds)."""
    return typed_sheet(char, normal_sheet)


def character(state: TableState, ref: str) -> EdgeCharacter:
    char = find_character(state, ref)
    assert isinstance(char, EdgeCharacter)
    return char


def edge_max(char: EdgeCharacter) -> int:
    return max(0, sheet_of(char).edge - char.burns)


def health(char: EdgeCharacter) -> int:
    return sheet_of(char).health


def attribute(char: EdgeCharacter, name: str) -> int:
    """An attribute's value; one the sheet lacks (a mook's) counts as 0 (see ``assumed``)."""
    return sheet_of(char).attributes.get(name, 0)


def assumed(char: EdgeCharacter, names: Iterable[str]) -> list[str]:
    """Which of ``names`` the sheet lacks (attributes, or skills of a sheet with none)."""
    sheet = sheet_of(char)
    have = {*sheet.attributes, *sheet.skills}
    return [n for n in names if n not in have]


def skill_bonus(char: EdgeCharacter, skill: str) -> tuple[str, int]:
    """(skill id, ranks + the two key attributes), or a clear error naming the known skills."""
    skills = sheet_of(char).skills
    sid = key(skill)
    if not skills:
        # a sheet with no skills at all (a mook's: Health and a weapon) rolls every skill at 0
        return sid, 0
    if sid not in skills:
        have = ", ".join(skills) or "none"
        raise RuleError(f"skill: {skill!r} is not a skill of {char.name} (skills: {have})")
    spec = skills[sid]
    return sid, spec.ranks + sum(attribute(char, k) for k in spec.keys)


def weapon(char: EdgeCharacter, name: str | None) -> Weapon:
    weapons = sheet_of(char).weapons
    if not weapons:
        raise RuleError(f"weapon: {char.name} has no weapons on the sheet")
    if name is None:
        return weapons[0]
    for w in weapons:
        if key(w.name) == key(name):
            return w
    have = ", ".join(w.name for w in weapons)
    raise RuleError(f"weapon: {name!r} is not a weapon of {char.name} (weapons: {have})")


class WornArmor(msgspec.Struct, frozen=True, kw_only=True):
    """Armor as it stands: its PT less the wear, and the PT a blow it stops wears off."""

    pt: int
    dr: int
    degrade: int


def worn_armor(char: EdgeCharacter, options: Mapping[str, Any]) -> WornArmor | None:
    """The armor as it stands: its PT less the wear, and the degradation step of its class."""
    worn = sheet_of(char).armor
    if worn is None:
        return None
    return WornArmor(
        pt=max(0, worn.pt - char.armor_wear),
        dr=worn.dr,
        degrade=int(options.get(f"armor_degrade_{worn.worn_class}", 0)),
    )


def defense(char: EdgeCharacter, options: Mapping[str, Any]) -> tuple[int, int] | None:
    """The TN of attacks on the character from its sheet, and what its armor took off it.

    Armor heavier than light slows the wearer and lowers their Dodge defense by the
    option of its class (``armor_dodge_medium``, ``armor_dodge_heavy``); the TN stays 1 or more.
    """
    sheet = sheet_of(char)
    base = sheet.defense
    if base is UNSET:
        return None
    worn = sheet.armor
    penalty = int(options.get(f"armor_dodge_{worn.worn_class}", 0)) if worn else 0
    penalty = min(penalty, base - 1)
    return base - penalty, penalty


def talent_pt_reduction(char: EdgeCharacter) -> int:
    return sum(PT_TALENTS.get(t, 0) for t in sheet_of(char).talents)


def player_world(state: TableState) -> EdgeWorld:
    """The world without hidden combatants or hits by or on them.

    Who is hidden is who is hidden now (a combatant shown after joining takes
    their place in the order); while a hidden combatant acts, the players'
    clock stays with the last one they saw act this round.
    """
    w = world(state)
    enc = w.encounter
    if enc is None:
        return msgspec.structs.replace(w, players=True)
    hidden = hidden_ids(state)
    hidden |= {c.id for c in enc.order if c.hidden and c.id not in state.characters}
    seen = [a for a in w.open_attacks if a.attacker not in hidden and a.target not in hidden]
    return EdgeWorld(encounter=_players_encounter(enc, hidden), open_attacks=seen, players=True)


def _players_encounter(enc: Encounter, hidden: set[str]) -> Encounter:
    shown = [msgspec.structs.replace(c, hidden=False) for c in enc.order if c.id not in hidden]
    acted = [a for a in enc.acted if a not in hidden]
    current = enc.current
    if current in hidden:
        # the players' clock stays with the last one they saw act
        current = acted[-1] if acted else ""
    return msgspec.structs.replace(enc, order=shown, current=current, acted=acted)


def world(state: TableState) -> EdgeWorld:
    w = state.world
    assert isinstance(w, EdgeWorld)
    return w


def combatant(state: TableState, cid: str) -> Combatant | None:
    enc = world(state).encounter
    if enc is None:
        return None
    for c in enc.order:
        if c.id == cid:
            return c
    return None
