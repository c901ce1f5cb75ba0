"""2d6-effect sheets, characters and the table's tasks, and reading a sheet for a check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from ...errors import RuleError
from ...inputs import read_as
from ...state import Character, LastCheck, TableState, lookup
from . import rules

#: A further DM (weapon, range, gear) is bounded only to catch typos; so are the sheet's
#: numbers (skill levels, characteristic scores or DMs) and a world's law level.
MAX_DM = 20
MAX_ACTIONS = 6
MAX_SKILL = 20
MAX_SCORE = 99
MAX_LAW_LEVEL = 99


def rule_on(state: TableState, option: str, field: str) -> None:
    """Refuse ``field`` unless the rule option it belongs to is switched on."""
    if not state.options.get(option, False):
        raise RuleError(f"{field}: the {option} rule is off (set-option {option} true to use it)")


class PendingAssist(msgspec.Struct, kw_only=True):
    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    helper: str
    dm: int
    seq: int


class EffectLastCheck(LastCheck, kw_only=True):
    """A 2d6-effect character's last check: its total and Effect, and its band."""

    total: int
    effect: int
    #: an opposed check's side has none
    band: str = ""


class EffectCharacter(Character, kw_only=True):
    """A 2d6-effect character: help waiting on their next check, and their last result."""

    assists: dict[str, PendingAssist] = {}
    last: EffectLastCheck | None = None


class TaskState(msgspec.Struct, kw_only=True):
    status: str = "open"
    attempts: int = 0
    by: str = ""
    reason: str = ""


class EffectWorld(msgspec.Struct, kw_only=True):
    """Named tasks: how often tried, done (nothing new to gain) or closed by the GM."""

    tasks: dict[str, TaskState] = {}


class EffectSheet(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A 2d6-effect sheet: ``characteristics`` (name -> score, or a DM), ``skills`` (name ->
    level) and a ``disposition`` towards the party (``rules.DISPOSITIONS``)."""

    characteristics: dict[str, Annotated[int, Meta(ge=-MAX_DM, le=MAX_SCORE)]] = {}
    skills: dict[str, Annotated[int, Meta(ge=0, le=MAX_SKILL)]] = {}
    disposition: str | None = None


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet, refused in one line naming the field when it is not an ``EffectSheet``."""
    read = read_as(sheet, EffectSheet, "sheet.")
    for part in ("characteristics", "skills"):
        if any(not name.strip() for name in getattr(read, part)):
            raise RuleError(f"sheet.{part}: a name is empty")
    if read.disposition is not None:
        rules.disposition(read.disposition, "sheet.disposition")
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return EffectCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def initial_world(options: Mapping[str, Any]) -> EffectWorld:
    return EffectWorld()


#: players see none of the world: its tasks name who tried them, a hidden character too
player_world = None


def name_key(text: str) -> str:
    return " ".join(text.lower().split())


def named(field: str, text: str, what: str) -> str:
    """``text`` unless it is blank, which is refused naming ``field``."""
    if not text.strip():
        raise RuleError(f"{field}: empty; name the {what} (or leave the field out)")
    return text


def skill_of(char: Character, skill: str) -> tuple[str, int | None]:
    """(the skill's name, its level or None when the character has none)."""
    named("skill", skill, "skill")
    skills = char.sheet.get("skills", {})
    found = lookup(skills, skill)
    if found is None and "(" in skill:
        # a speciality in brackets, ``Electronics (security)``, is done with the skill
        base = skill.split("(", 1)[0]
        found = lookup(skills, base) if base.strip() else None
    return (found[0], found[1]) if found else (skill, None)


def characteristic_of(char: Character, name: str, state: TableState) -> tuple[str, int]:
    named("characteristic", name, "characteristic")
    found = lookup(char.sheet.get("characteristics", {}), name)
    if found is None:
        known = ", ".join(char.sheet.get("characteristics", {})) or "none"
        raise RuleError(
            f"characteristic {name!r}: {char.name} has no such characteristic ({known})"
        )
    if state.options.get("characteristic_dm", "table") == "sheet":
        return found[0], found[1]
    return found[0], rules.characteristic_dm(found[1])


def world(state: TableState) -> EffectWorld:
    world = state.world
    assert isinstance(world, EffectWorld)
    return world
