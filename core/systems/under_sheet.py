"""d100-under sheets and characters, and the target a check names."""

from __future__ import annotations

from typing import Any

from ..errors import RuleError
from ..state import Character
from . import under_rules as rules
from . import under_track as track


def helpers() -> Any:
    """``core.resolve`` (field helpers); it imports the system registry, so it is reached late."""
    from .. import resolve

    return resolve


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return helpers().integer(name, value, lo, hi)  # type: ignore[no-any-return]


def take(fields: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return helpers().take(fields, spec)  # type: ignore[no-any-return]


def required() -> Any:
    """The marker of a request field without a default."""
    return helpers().REQUIRED


class UnderCharacter(Character, kw_only=True):
    """A d100-under character: the sheet, plus the last check for the table screen."""

    last: str = ""


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``attributes`` (name -> rating), ``skills`` (name -> target), ``actions`` (name -> cost)."""
    unknown = sorted(set(sheet) - {"attributes", "skills", "actions"})
    if unknown:
        raise RuleError(f"sheet.{unknown[0]}: unknown field (fields: attributes, skills, actions)")
    limits = {
        "attributes": (rules.MIN_RATING, rules.MAX_RATING),
        "skills": (0, rules.MAX_TARGET),
        "actions": (1, track.MAX_COST),
    }
    for part, (lo, hi) in limits.items():
        table = sheet.get(part, {})
        if not isinstance(table, dict):
            raise RuleError(f"sheet.{part}: expected an object of name -> number")
        for name, value in table.items():
            if not str(name).strip():
                raise RuleError(f"sheet.{part}: a name is empty")
            integer(f"sheet.{part}.{name}", value, lo, hi)
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return UnderCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def lookup(table: dict[str, int], name: str) -> tuple[str, int] | None:
    key = " ".join(name.lower().split())
    for k, v in table.items():
        if " ".join(k.lower().split()) == key:
            return k, v
    return None


def target_for(
    char: Character, skill: str | None, attribute: str | None, target: int | None
) -> tuple[int, str, bool]:
    """(target, label, unskilled) from a given target, a skill, or an attribute rating."""
    sheet = char.sheet
    if target is not None:
        integer("target", target, 0, rules.MAX_TARGET)
        return target, skill or attribute or f"target {target}", False
    if skill is not None:
        found = lookup(sheet.get("skills", {}), skill)
        if found is not None:
            if attribute is not None:
                raise RuleError(
                    f"attribute: {char.name} has {found[0]} (target {found[1]}); "
                    "an attribute is only for unskilled attempts"
                )
            return found[1], found[0], False
        if attribute is None:
            known = ", ".join(sheet.get("skills", {})) or "none"
            raise RuleError(
                f"skill {skill!r}: {char.name} has no such skill (skills: {known}); "
                "name an attribute for an unskilled attempt"
            )
    if attribute is None:
        raise RuleError("check: name a skill, an attribute or a target")
    found = lookup(sheet.get("attributes", {}), attribute)
    if found is None:
        known = ", ".join(sheet.get("attributes", {})) or "none"
        raise RuleError(
            f"attribute {attribute!r}: {char.name} has no such attribute (attributes: {known})"
        )
    value = rules.rating_target(found[1])
    if skill is not None:
        return value, f"{skill} (unskilled, {found[0]})", True
    return value, found[0], False
