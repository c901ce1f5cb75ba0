"""2d6-effect short forms: ``check vex electronics int difficult``, ``assist``, ``opposed``."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import Character, TableState, find_character, lookup
from ..base import Usage
from ..words import (
    Grammar,
    cut_reason,
    name_text,
    opposed_sides,
    quoted,
    record_number,
    stray_words,
    take_flag,
)
from . import rules

GRAMMAR = Grammar()


def _whole(word: str) -> bool:
    return record_number(word) is not None


def _rung_at(words: list[str], i: int) -> tuple[str, int] | None:
    """A ladder rung starting at word ``i`` (one or two words) and how many words it takes."""
    for size in (2, 1):
        key = rules.rung_name(" ".join(words[i : i + size]))
        if i + size <= len(words) and key in rules.LADDER:
            return key, size
    return None


def _check_words(words: list[str], state: TableState, who: str) -> dict[str, Any]:
    """``vex electronics int difficult +1``: skill words, a characteristic, a rung, a +/-1.

    A rung may be its DM (``-2``); +1 and -1 are always the situation, never a rung.
    Each of them may be given once.
    """
    if not words:
        raise RuleError(f"{who}: name a character, then a skill or characteristic")
    char = find_character(state, words[0])
    out: dict[str, Any] = {"character": char.name}
    skill: list[str] = []

    def put(field: str, value: Any, typed: str) -> None:
        if field in out:
            raise RuleError(f"{who}: {typed!r} is a second {field} (already {out[field]})")
        out[field] = value

    i = 1
    #: the words of the last field read after the skill's, if any: a skill's name is
    #: one run of words, so a word past them is a stray (``streetwise soc foo``)
    after: str | None = None
    while i < len(words):
        field, value, typed, size = _read_word(words, i, char, who, bool(skill))
        if field == "skill" and after is not None:
            stray = " ".join(words[i:])
            raise RuleError(f"{who}: {stray!r} after {after!r} is not {AFTER_SKILL}")
        if field == "skill":
            skill.append(value)
        else:
            put(field, value, typed)
            after = typed if skill else None
        i += size
    if skill:
        out["skill"] = " ".join(skill)
        stray_words(char.sheet.get("skills", {}), skill, who, AFTER_SKILL)
    return out


def _read_word(
    words: list[str], i: int, char: Character, who: str, in_skill: bool
) -> tuple[str, Any, str, int]:
    """What the words of a check from word ``i`` on give: the field, its value, the words
    as typed and how many they are; a word of the skill's name gives ``skill``."""
    rung = _rung_at(words, i)
    if rung is not None:
        return "difficulty", rung[0], " ".join(words[i : i + rung[1]]), rung[1]
    word = words[i]
    law = _law(words, i, who, in_skill) if word.lower() == "law" else None
    if law is not None:
        return "law_level", law, " ".join(words[i : i + 2]), 2
    if word in ("+1", "-1"):
        return "circumstance", int(word), word, 1
    if word[:1] in "+-" and _whole(word[1:]):
        return "difficulty", int(word), word, 1
    if lookup(char.sheet.get("characteristics", {}), word) is not None:
        return "characteristic", word, word, 1
    return "skill", word, word, 1


def _law(words: list[str], i: int, who: str, in_skill: bool) -> int | None:
    """The law level after ``law`` at word ``i``; None when ``law`` is a word of the skill."""
    if i + 1 < len(words) and _whole(words[i + 1]):
        return int(words[i + 1])
    if i + 1 == len(words) and not in_skill:
        raise RuleError(f"{who}: 'law' needs the world's law level after it (law 8)")
    return None


#: what may follow a skill's words in a 2d6-effect check
AFTER_SKILL = (
    "a characteristic, a rung of the ladder, +1/-1, 'law N', 'secret', 'task NAME' or 'for REASON'"
)


def _side_faces(words: list[str]) -> tuple[list[str], list[int] | None]:
    """One side's words without ``roll 3 4`` (the two d6 rolled at the table) and those faces."""
    low = [w.lower() for w in words]
    if "roll" not in low:
        return words, None
    at = low.index("roll")
    dice = words[at + 1 : at + 3]
    if len(dice) != 2 or not all(_whole(d) for d in dice):
        raise RuleError("opposed: type each side's two d6 after 'roll' (roll 3 4)")
    return words[:at] + words[at + 3 :], [int(d) for d in dice]


def _cut_tail(rest: list[str]) -> tuple[list[str], dict[str, Any]]:
    """A check's words without ``task NAME`` and ``for REASON``, and those fields: either
    comes last, and the one typed first may stand before the other."""
    tail: dict[str, Any] = {}
    at = next((i for i, w in enumerate(rest) if w.lower() == "task" and not quoted(w)), None)
    if at is not None:
        if at + 1 == len(rest):
            raise RuleError("task: give it after 'task' (task the port computer)")
        tail["task"] = name_text(rest[at + 1 :])
        rest = rest[:at]
    rest, reason = cut_reason(rest, "check")
    return rest, {**tail, **reason}


@GRAMMAR.form(
    "check",
    Usage(
        ("character",),
        ("skill", "characteristic", "difficulty", "law|task|secret|for"),
        {"for": "text"},
    ),
)
def _check(words: list[str], state: TableState) -> dict[str, Any]:
    rest, tail = _cut_tail(words[1:])
    rest, secret = take_flag(rest, "secret", "check")
    if secret:
        tail["secret"] = True
    return {"type": "check", **_check_words(rest, state, "check"), **tail}


@GRAMMAR.form(
    "assist", Usage(("character", "character"), ("skill", "characteristic", "difficulty"))
)
def _assist(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, helper, *helped] if len(helped) >= 2:
            name = find_character(state, helper).name
            check = _check_words(helped, state, "assist")
            check.pop("circumstance", None)
            check.pop("law_level", None)
            return {"type": "assist", "helper": name, **check}
    raise RuleError("assist: write it as 'assist mira vex electronics'")


@GRAMMAR.form(
    "opposed",
    Usage(("character",), ("skill", "characteristic", "difficulty", "vs"), {"vs": "character"}),
)
def _opposed(words: list[str], state: TableState) -> dict[str, Any]:
    sides = []
    for part in opposed_sides(words, "opposed vex electronics vs mira electronics"):
        part, faces = _side_faces(part)
        side = _check_words(part, state, "opposed")
        side.pop("law_level", None)
        if faces is not None:
            side["faces"] = faces
        sides.append(side)
    return {"type": "opposed", "a": sides[0], "b": sides[1]}


@GRAMMAR.form("close", Usage(makes="close-task"), also=("close-task",))
def _close(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, *task] if task:
            return {"type": "close-task", "task": name_text(task)}
    raise RuleError("close: name the task to close")
