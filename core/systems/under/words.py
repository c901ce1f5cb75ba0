"""d100-under short forms: ``check kael melee``, ``opposed kael br vs cultist 30``, the track."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import TableState, find_character, lookup
from ..base import Usage
from ..words import (
    Grammar,
    Parser,
    cut_reason,
    opposed_sides,
    record_number,
    stray_words,
    take_flag,
    typed_text,
)

GRAMMAR = Grammar()


def _side_words(words: list[str], state: TableState, who: str = "check") -> dict[str, Any]:
    """``kael melee``, ``kael br``, ``ada library 60``, ``kael security aw``, ``... roll 73``."""
    if not words:
        raise RuleError(f"{who}: name a character, then a skill, an attribute or a target")
    char = find_character(state, words[0])
    out: dict[str, Any] = {"character": char.name}
    rest = _take_roll(words[1:], out)
    _take_target(rest, out, who)
    attributes = char.sheet.get("attributes", {})
    if rest and lookup(attributes, rest[-1]) is not None:
        out["attribute"] = rest.pop()
    if rest:
        out["skill"] = " ".join(rest)
        stray_words(char.sheet.get("skills", {}), rest, who, AFTER_SKILL)
    return out


def _take_roll(words: list[str], out: dict[str, Any]) -> list[str]:
    """The words without ``roll NN``, whose dice go into ``out``."""
    low = [w.lower() for w in words]
    if "roll" not in low:
        return words
    at = low.index("roll")
    out.update(_typed_roll(words[at + 1 : at + 2]))
    return words[:at] + words[at + 2 :]


def _take_target(words: list[str], out: dict[str, Any], who: str) -> None:
    """Take the one number among ``words`` out of them, as the check's target."""
    numbers = [i for i, word in enumerate(words) if record_number(word) is not None]
    if len(numbers) > 1:
        given = ", ".join(words[i] for i in numbers)
        raise RuleError(f"{who}: {given} are several targets; give one (or 'roll NN' for the dice)")
    if numbers:
        out["target"] = int(words.pop(numbers[0]))


def _typed_roll(dice: list[str]) -> dict[str, Any]:
    """``roll 73``: the two d10 as two digits (their faces), or the roll itself."""
    match dice:
        case [two] if record_number(two) is not None and len(two) == 2:
            return {"faces": [int(two[0]), int(two[1])]}
        case [one] if record_number(one) is not None:
            return {"roll": int(one)}
    raise RuleError("roll: type the two d10 as two digits after 'roll' (73, 07, 00)")


#: what may follow a skill's words in a d100-under check
AFTER_SKILL = "an attribute, a target, 'roll NN', 'secret' or 'for REASON'"


@GRAMMAR.form(
    "check", Usage(("character",), ("skill", "attribute", "roll|secret|for"), {"for": "text"})
)
def _check(words: list[str], state: TableState) -> dict[str, Any]:
    rest, reason = cut_reason(words[1:], "check")
    rest, secret = take_flag(rest, "secret", "check")
    if secret:
        reason["secret"] = True
    return {"type": "check", **_side_words(rest, state), **reason}


@GRAMMAR.form("opposed", Usage(("character",), ("skill", "attribute", "vs"), {"vs": "character"}))
def _opposed(words: list[str], state: TableState) -> dict[str, Any]:
    before, after = opposed_sides(words, "opposed kael br vs cultist 30")
    return {
        "type": "opposed",
        "a": _side_words(before, state, "opposed (before vs)"),
        "b": _side_words(after, state, "opposed (after vs)"),
    }


@GRAMMAR.form("track", Usage(makes="start-track"), also=("start-track",))
def _track(words: list[str], state: TableState) -> dict[str, Any]:
    return {"type": "start-track", "label": typed_text(words[1:])}


def _action(word: str) -> Parser:
    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case [_, who, *action, cost] if action and record_number(cost) is not None:
                return {
                    "type": word,
                    "character": who,
                    "cost": int(cost),
                    "action": typed_text(action),
                }
            case [_, who, *action] if action:
                return {"type": word, "character": who, "action": typed_text(action)}
        raise RuleError(f"{word}: write it as '{word} ada revolver' or '{word} ada spell 5'")

    return parse


GRAMMAR.form("act", Usage(("character", "action")))(_action("act"))


@GRAMMAR.form("advance", Usage(("next",)))
def _advance(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_]:
            return {"type": "advance"}
        case [_, word] if word.lower() == "next":
            return {"type": "advance", "next": True}
        case [_, counts] if record_number(counts) is not None:
            return {"type": "advance", "counts": int(counts)}
        case [_, word]:
            raise RuleError(f"advance: {word!r} is not a number of counts or 'next'")
    raise RuleError(
        f"advance: {' '.join(words[1:])!r} is more than one word "
        "(advance, advance 3 or advance next)"
    )


@GRAMMAR.form("interrupt", Usage(("character",)))
def _interrupt(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *reason]:
            return {"type": "interrupt", "character": who, "reason": typed_text(reason)}
    raise RuleError("interrupt: name the character whose action stops")


GRAMMAR.form("change", Usage(("character", "action")))(_action("change"))


@GRAMMAR.form("end-track")
def _end_track(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_]:
            return {"type": "end-track"}
    raise RuleError(f"end-track: takes nothing after it, got {' '.join(words[1:])!r}")
