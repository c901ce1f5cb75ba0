"""What every decider of d100-chance reads: its characters and world, the d100, places."""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from ....dice import Dice, roll_for
from ....errors import RuleError
from ....inputs import is_whole
from ....state import TableState, find_character
from .. import rules
from ..state import ChanceCharacter, ChanceWorld, sheet_of


def char_of(state: TableState, ref: str) -> ChanceCharacter:
    char = find_character(state, ref)
    assert isinstance(char, ChanceCharacter)
    return char


def world_of(state: TableState) -> ChanceWorld:
    world = state.world
    assert isinstance(world, ChanceWorld)
    return world


def d100(dice: Dice, what: str = "the check") -> int:
    """A d100 for ``what`` (named when typed faces run out before it)."""
    return roll_for(dice, what, 100)[0]


def proficiency_of(char: ChanceCharacter, skill: str, given: int | None, field: str) -> int:
    """The proficiency a check uses: the one given (an untrained try), else the sheet's."""
    if given is not None:
        return given
    skills = sheet_of(char).skills
    if skill not in skills:
        known = ", ".join(skills) or "none"
        raise RuleError(
            f"{field}: {char.name} has no skill {skill!r} (skills: {known}; "
            "give proficiency for an untrained try)"
        )
    return skills[skill]


def difficulty_of(value: int | str, field: str = "difficulty") -> int:
    return rules.difficulty_value(value, field)


def standing(char: ChanceCharacter, field: str, what: str) -> None:
    """Refuse an act of a character at 0 HP (down)."""
    if char.hp <= 0:
        raise RuleError(f"{field}: {char.name} is down (0 HP) and cannot {what}")


def secret_of(cmd_secret: bool | None, state: TableState) -> bool:
    return bool(state.options.get("secret_checks", True)) if cmd_secret is None else cmd_secret


#: farthest a place on the field may be from 0 along x or y, in feet
MAX_FEET = 1_000_000


def distance(a: list[int], b: list[int]) -> int:
    """Feet between two places: the larger offset (a diagonal step counts like a straight one)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def near(
    state: TableState, spot: list[int] | None, feet: int, besides: Container[str]
) -> list[ChanceCharacter]:
    """Everyone with a place within ``feet`` of ``spot`` but those ``besides``, in table order."""
    if spot is None:
        return []
    found = []
    for char in state.characters.values():
        assert isinstance(char, ChanceCharacter)
        where = char.position
        if char.id not in besides and where is not None and distance(where, spot) <= feet:
            found.append(char)
    return found


def place(value: Any, field: str) -> list[int]:
    if not isinstance(value, list) or len(value) != 2 or not all(is_whole(v) for v in value):
        raise RuleError(f"{field}: expected [x, y] in whole feet, got {value!r}")
    if not all(-MAX_FEET <= v <= MAX_FEET for v in value):
        raise RuleError(f"{field}: {value!r} is off the field (each of x, y in ±{MAX_FEET} ft)")
    return list(value)
