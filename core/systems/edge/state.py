"""2d10-edge character sheets, weapon and armor presets, and the state a fold keeps."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import msgspec

from ...errors import RuleError
from ...state import Character, TableState, find_character

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


class Pending(msgspec.Struct, kw_only=True):
    """A MoS consequence waiting for the character's next (related) check."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    seq: int
    kind: str
    scope: str
    skill: str
    #: left by a check with a secret TN: players do not see it until the GM reveals that check
    secret: bool = False


class Injury(msgspec.Struct, kw_only=True):
    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    seq: int
    points: int
    severity: str
    stun: bool = False
    overwhelmed: bool = False
    burned: bool = False


class EdgeCharacter(Character, kw_only=True):
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


class Encounter(msgspec.Struct, kw_only=True):
    name: str = ""
    round: int = 0
    current: str = ""
    #: who has had a turn this round
    acted: list[str] = []
    order: list[Combatant] = []


class OpenAttack(msgspec.Struct, kw_only=True):
    """An attack that hit and whose damage is not rolled yet."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    seq: int
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


def _int(where: str, value: Any, lo: int = 0, hi: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"sheet {where}: expected a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise RuleError(f"sheet {where}: {value} is out of range ({lo}..{hi})")
    return value


def _weapon(raw: Any, index: int) -> dict[str, Any]:
    where = f"weapons[{index}]"
    if isinstance(raw, str):
        raw = {"preset": raw}
    if not isinstance(raw, dict):
        raise RuleError(f"sheet {where}: expected a preset name or an object")
    fields = {
        "name",
        "preset",
        "dice",
        "bonus",
        "melee",
        "stun",
        "burst",
        "pt_single",
        "pt_burst",
        "gauss",
        "skill",
    }
    unknown = sorted(set(raw) - fields)
    if unknown:
        raise RuleError(
            f"sheet {where}.{unknown[0]}: unknown field (fields: {', '.join(sorted(fields))})"
        )
    base: dict[str, Any] = {}
    if "preset" in raw:
        preset = key(raw["preset"])
        if preset not in WEAPON_PRESETS:
            raise RuleError(
                f"sheet {where}.preset: {raw['preset']!r} is not a weapon preset "
                f"({', '.join(WEAPON_PRESETS)})"
            )
        base = dict(WEAPON_PRESETS[preset])
        base.setdefault("name", preset)
    elif "dice" not in raw:
        raise RuleError(f"sheet {where}: give a preset or the weapon's dice")
    merged = {**base, **{k: v for k, v in raw.items() if k != "preset"}}
    gauss = merged.pop("gauss", False)
    if not isinstance(gauss, bool):
        raise RuleError(f"sheet {where}.gauss: expected true or false")
    if gauss:
        merged = {**GAUSS, **merged}
    name = str(merged.get("name", "")).strip()
    if not name:
        raise RuleError(f"sheet {where}.name: a custom weapon needs a name")
    melee = merged.get("melee", False)
    stun = merged.get("stun", False)
    if not isinstance(melee, bool) or not isinstance(stun, bool):
        raise RuleError(f"sheet {where}: melee and stun are true or false")
    out = {
        "name": name,
        "dice": _int(f"{where}.dice", merged["dice"], 1, 30),
        "bonus": _int(f"{where}.bonus", merged.get("bonus", 0), -20, 100),
        "melee": melee,
        "stun": stun,
        "burst": _int(f"{where}.burst", merged.get("burst", 0), 0, 10),
        "pt_single": _int(f"{where}.pt_single", merged.get("pt_single", 0), 0, 100),
        "pt_burst": _int(f"{where}.pt_burst", merged.get("pt_burst", 0), 0, 100),
        "skill": key(merged.get("skill", MELEE_SKILL if melee else RANGED_SKILL)),
    }
    return out


def armor_class_of(pt: int) -> str:
    """The class whose rule-of-thumb PT is nearest ``pt``; a tie goes to the lighter class."""
    return min(ARMOR_CLASSES, key=lambda c: abs(ARMOR_CLASSES[c] - pt))


def _armor(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        raw = {"preset": raw}
    if not isinstance(raw, dict):
        raise RuleError('sheet armor: expected a preset name or {"pt": .., "dr": ..}')
    unknown = sorted(set(raw) - {"name", "preset", "pt", "dr", "class"})
    if unknown:
        raise RuleError(
            f"sheet armor.{unknown[0]}: unknown field (fields: class, name, preset, pt, dr)"
        )
    base: dict[str, Any] = {}
    if "preset" in raw:
        preset = key(raw["preset"])
        if preset not in ARMOR_PRESETS:
            raise RuleError(
                f"sheet armor: {raw['preset']!r} is not an armor preset ({', '.join(ARMOR_PRESETS)})"
            )
        base = {"name": preset, **ARMOR_PRESETS[preset]}
        if preset in ARMOR_CLASSES:
            base["class"] = preset
    merged = {**base, **{k: v for k, v in raw.items() if k != "preset"}}
    if "pt" not in merged or "dr" not in merged:
        raise RuleError("sheet armor: give a preset or both pt and dr")
    pt = _int("armor.pt", merged["pt"], 0, 200)
    worn_class = merged.get("class", armor_class_of(pt))
    if worn_class not in ARMOR_CLASSES:
        raise RuleError(
            f"sheet armor.class: {worn_class!r} is not an armor class ({', '.join(ARMOR_CLASSES)})"
        )
    return {
        "name": str(merged.get("name", "armor")),
        "pt": pt,
        "dr": _int("armor.dr", merged["dr"], 0, 100),
        "class": worn_class,
    }


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """Validate a 2d10-edge sheet and return it normalised (see the rules doc for the format)."""
    known = {
        "attributes",
        "skills",
        "edge",
        "health",
        "initiative_dice",
        "weapons",
        "armor",
        "talents",
        "defense",
    }
    unknown = sorted(set(sheet) - known)
    if unknown:
        raise RuleError(f"sheet {unknown[0]}: unknown field (fields: {', '.join(sorted(known))})")
    attrs_raw = sheet.get("attributes", {})
    if not isinstance(attrs_raw, dict):
        raise RuleError('sheet attributes: expected an object such as {"ST": 9, "AG": 7}')
    attrs = {str(k).upper(): _int(f"attributes.{k}", v, -10, 100) for k, v in attrs_raw.items()}
    skills_raw = sheet.get("skills", {})
    if not isinstance(skills_raw, dict):
        raise RuleError("sheet skills: expected an object of skill -> {ranks, keys}")
    skills: dict[str, Any] = {}
    for name, spec in skills_raw.items():
        where = f"skills.{name}"
        if not isinstance(spec, dict) or set(spec) - {"ranks", "keys"}:
            raise RuleError(f'sheet {where}: expected {{"ranks": n, "keys": ["ST", "AG"]}}')
        keys = spec.get("keys")
        if (
            not isinstance(keys, list)
            or len(keys) != 2
            or not all(isinstance(k, str) for k in keys)
        ):
            raise RuleError(f"sheet {where}.keys: a skill has exactly two key attributes")
        keys = [k.upper() for k in keys]
        for k in keys:
            if k not in attrs:
                have = ", ".join(attrs) or "none"
                raise RuleError(
                    f"sheet {where}.keys: {k} is not an attribute of this sheet ({have})"
                )
        skills[key(name)] = {
            "ranks": _int(f"{where}.ranks", spec.get("ranks", 0), 0, 100),
            "keys": keys,
        }
    weapons_raw = sheet.get("weapons", [])
    if not isinstance(weapons_raw, list):
        raise RuleError("sheet weapons: expected a list of preset names or weapon objects")
    weapons = [_weapon(w, i) for i, w in enumerate(weapons_raw)]
    names = [key(w["name"]) for w in weapons]
    if len(set(names)) != len(names):
        raise RuleError("sheet weapons: two weapons share a name")
    talents_raw = sheet.get("talents", [])
    if not isinstance(talents_raw, list) or not all(isinstance(t, str) for t in talents_raw):
        raise RuleError("sheet talents: expected a list of talent names")
    out: dict[str, Any] = {
        "attributes": attrs,
        "skills": skills,
        "edge": _int("edge", sheet.get("edge", 0), 0, 100),
        "health": _int("health", sheet.get("health", 30), 1, 10000),
        "initiative_dice": _int("initiative_dice", sheet.get("initiative_dice", 1), 1, 20),
        "weapons": weapons,
        "armor": _armor(sheet.get("armor")),
        "talents": [key(t) for t in talents_raw],
    }
    if sheet.get("defense") is not None:
        out["defense"] = _int("defense", sheet["defense"], 1, 100)
    return out


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> EdgeCharacter:
    return EdgeCharacter(
        id=cid, name=name, sheet=sheet, hidden=hidden, edge=int(sheet.get("edge", 0))
    )


def initial_world(options: Any) -> EdgeWorld:
    return EdgeWorld()


# -- reading a character ------------------------------------------------------


def sheet_of(char: Character) -> dict[str, Any]:
    """A character's sheet in normal form.

    Sheets are normalised when a character is added, but an ``update-character``
    merges the fields as typed ("heavy" armor, "Armor Piercer"), so every read
    goes through the same normalisation.
    """
    return check_sheet(dict(char.sheet))


def character(state: TableState, ref: str) -> EdgeCharacter:
    char = find_character(state, ref)
    assert isinstance(char, EdgeCharacter)
    return char


def edge_max(char: EdgeCharacter) -> int:
    return max(0, int(sheet_of(char)["edge"]) - char.burns)


def health(char: EdgeCharacter) -> int:
    return int(sheet_of(char)["health"])


def attribute(char: EdgeCharacter, name: str) -> int:
    """An attribute's value; one the sheet lacks (a mook's) counts as 0 (see ``assumed``)."""
    return int(sheet_of(char)["attributes"].get(name, 0))


def assumed(char: EdgeCharacter, names: Iterable[str]) -> list[str]:
    """Which of ``names`` the sheet lacks (attributes, or skills of a sheet with none)."""
    sheet = sheet_of(char)
    have = {**sheet["attributes"], **sheet["skills"]}
    return [n for n in names if n not in have]


def skill_bonus(char: EdgeCharacter, skill: str) -> tuple[str, int]:
    """(skill id, ranks + the two key attributes), or a clear error naming the known skills."""
    skills = sheet_of(char)["skills"]
    sid = key(skill)
    if not skills:
        # a sheet with no skills at all (a mook's: Health and a weapon) rolls every skill at 0
        return sid, 0
    if sid not in skills:
        have = ", ".join(skills) or "none"
        raise RuleError(f"skill: {skill!r} is not a skill of {char.name} (skills: {have})")
    spec = skills[sid]
    return sid, int(spec["ranks"]) + sum(attribute(char, k) for k in spec["keys"])


def weapon(char: EdgeCharacter, name: str | None) -> dict[str, Any]:
    weapons = sheet_of(char)["weapons"]
    if not weapons:
        raise RuleError(f"weapon: {char.name} has no weapons on the sheet")
    if name is None:
        return dict(weapons[0])
    for w in weapons:
        if key(w["name"]) == key(name):
            return dict(w)
    have = ", ".join(w["name"] for w in weapons)
    raise RuleError(f"weapon: {name!r} is not a weapon of {char.name} (weapons: {have})")


def armor(char: EdgeCharacter) -> dict[str, Any] | None:
    value = sheet_of(char)["armor"]
    return dict(value) if value else None


def worn_armor(char: EdgeCharacter, options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The armor as it stands: its PT less the wear, and the degradation step of its class."""
    worn = armor(char)
    if worn is None:
        return None
    worn["pt"] = max(0, worn["pt"] - char.armor_wear)
    worn["degrade"] = int(options.get(f"armor_degrade_{worn['class']}", 0))
    return worn


def defense(char: EdgeCharacter, options: Mapping[str, Any]) -> tuple[int, int] | None:
    """The TN of attacks on the character from its sheet, and what its armor took off it.

    Armor heavier than light slows the wearer and lowers their Dodge defense by the
    option of its class (``armor_dodge_medium``, ``armor_dodge_heavy``); the TN stays 1 or more.
    """
    base = sheet_of(char).get("defense")
    if base is None:
        return None
    worn = armor(char)
    penalty = int(options.get(f"armor_dodge_{worn['class']}", 0)) if worn else 0
    penalty = min(penalty, int(base) - 1)
    return int(base) - penalty, penalty


def talent_pt_reduction(char: EdgeCharacter) -> int:
    return sum(PT_TALENTS.get(t, 0) for t in sheet_of(char)["talents"])


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
    hidden = {c.id for c in state.characters.values() if c.hidden}
    hidden |= {c.id for c in enc.order if c.hidden and c.id not in state.characters}
    shown = [msgspec.structs.replace(c, hidden=False) for c in enc.order if c.id not in hidden]
    current = enc.current
    if current in hidden:
        acted = [a for a in enc.acted if a not in hidden and a != current]
        current = acted[-1] if acted else ""
    return EdgeWorld(
        encounter=msgspec.structs.replace(
            enc, order=shown, current=current, acted=[a for a in enc.acted if a not in hidden]
        ),
        open_attacks=[
            a for a in w.open_attacks if a.attacker not in hidden and a.target not in hidden
        ],
        players=True,
    )


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
