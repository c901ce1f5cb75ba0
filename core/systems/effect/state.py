"""2d6-effect sheets, characters and the table's tasks, and reading a sheet for a check."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from ...errors import RuleError
from ...state import Character, TableState
from . import rules


def helpers() -> Any:
    """``core.resolve`` (field helpers); it imports the system registry, so it is reached late."""
    from ... import resolve

    return resolve


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return helpers().integer(name, value, lo, hi)  # type: ignore[no-any-return]


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


class EffectCharacter(Character, kw_only=True):
    """A 2d6-effect character: help waiting on their next check, and their last result."""

    assists: dict[str, PendingAssist] = {}
    last: str = ""


class TaskState(msgspec.Struct, kw_only=True):
    status: str = "open"
    attempts: int = 0
    by: str = ""
    reason: str = ""


class EffectWorld(msgspec.Struct, kw_only=True):
    """Named tasks: how often tried, done (nothing new to gain) or closed by the GM."""

    tasks: dict[str, TaskState] = {}


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``characteristics`` (name -> score or DM), ``skills`` (name -> level), ``disposition``."""
    unknown = sorted(set(sheet) - {"characteristics", "skills", "disposition"})
    if unknown:
        raise RuleError(
            f"sheet.{unknown[0]}: unknown field (fields: characteristics, skills, disposition)"
        )
    for part, lo, hi in (("characteristics", -MAX_DM, MAX_SCORE), ("skills", 0, MAX_SKILL)):
        table = sheet.get(part, {})
        if not isinstance(table, dict):
            raise RuleError(f"sheet.{part}: expected an object of name -> number")
        for name, value in table.items():
            if not str(name).strip():
                raise RuleError(f"sheet.{part}: a name is empty")
            integer(f"sheet.{part}.{name}", value, lo, hi)
    if "disposition" in sheet:
        rules.disposition(sheet["disposition"], "sheet.disposition")
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return EffectCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def initial_world(options: Mapping[str, Any]) -> EffectWorld:
    return EffectWorld()


def name_key(text: str) -> str:
    return " ".join(text.lower().split())


def lookup(table: dict[str, int], name: str) -> tuple[str, int] | None:
    for k, v in table.items():
        if name_key(k) == name_key(name):
            return k, v
    return None


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
