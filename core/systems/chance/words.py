"""d100-chance short forms: ``check rook lockpick 12 tools``, ``attack rook marn knife side``."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import TableState, find_character
from ..base import Usage
from ..words import Grammar, bare, cut_reason, name_then, name_value_text, number, whole, whole_as
from . import rules
from .state import sheet_of

GRAMMAR = Grammar()


MODIFIER_WORDS = {
    "tools": "proper-tools",
    "ideal": "ideal-conditions",
    "helper": "helper",
    "help": "helper",
    "blueprint": "blueprint",
    "recipe": "blueprint",
    "notools": "no-tools",
    "rushed": "rushed",
    "fire": "under-fire",
    "hostile": "under-fire",
}
MODIFIER_WORDS.update({name: name for name in rules.MODIFIERS})


def _no_more(head: str, extra: list[str], usage: str) -> None:
    if extra:
        raise RuleError(f"{head}: {extra[0]!r} is not understood ({usage})")


#: the words of a check or an attack that set one field of the command
CHECK_FLAGS: dict[str, tuple[str, bool]] = {
    "open": ("secret", False),
    "secret": ("secret", True),
    "override": ("override", True),
}
ATTACK_FLAGS: dict[str, tuple[str, bool]] = {
    "vitals": ("vitals", True),
    "override": ("override", True),
}


def _difficulty(word: str) -> str | int:
    """A check's difficulty: a band of the ladder (``hard``) or a number."""
    given = word.lower()
    if given in rules.DIFFICULTY_MIDDLES:
        return given
    if not given.lstrip("-").isdigit():
        bands = ", ".join(rules.DIFFICULTY_MIDDLES)
        raise RuleError(f"difficulty: expected 1..100 or a band ({bands}), got {word!r}")
    return int(given)


def _check_words(rest: list[str]) -> dict[str, Any]:
    if len(rest) < 3:
        raise RuleError(
            "check: check WHO SKILL DIFFICULTY [tools ideal helper ... open override] [for REASON]"
        )
    out: dict[str, Any] = {
        "type": "check",
        "character": rest[0],
        "skill": rest[1],
        "difficulty": _difficulty(rest[2]),
    }
    mods: list[str] = []
    for word in rest[3:]:
        low = word.lower()
        if low in MODIFIER_WORDS:
            mods.append(MODIFIER_WORDS[low])
        elif low in CHECK_FLAGS:
            key, value = CHECK_FLAGS[low]
            out[key] = value
        else:
            words = ", ".join(sorted(MODIFIER_WORDS))
            raise RuleError(
                f"check: {word!r} is not a modifier word ({words}, open, secret, override; "
                "then for REASON)"
            )
    if mods:
        out["modifiers"] = mods
    return out


def _attack_words(rest: list[str], state: TableState) -> dict[str, Any]:
    if len(rest) < 2:
        raise RuleError(
            "attack: attack WHO TARGET [weapon] [side|rear] [unaware [PCT]] [vitals] "
            "[+N] [location]"
        )
    out: dict[str, Any] = {"type": "attack", "attacker": rest[0], "target": rest[1]}
    attacker = find_character(state, rest[0])
    target = find_character(state, rest[1])
    # a word both sheets name is the attacker's weapon
    named = {
        **dict.fromkeys(sheet_of(target).armor, "location"),
        **dict.fromkeys(sheet_of(attacker).weapons, "weapon"),
    }
    words = rest[2:]
    i = 0
    while i < len(words):
        low = words[i].lower()
        if low == "unaware":
            out["aware"] = False
            if i + 1 < len(words) and words[i + 1].isdigit():
                i += 1
                out["unaware_percent"] = int(words[i])
        else:
            key, value = _attack_word(low, named)
            if key is None:
                raise RuleError(
                    f"attack: {words[i]!r} is not a weapon of {attacker.name}, a location, or "
                    "one of front, side, rear, unaware, vitals, +N, override"
                )
            out[key] = value
        i += 1
    return out


def _attack_word(low: str, named: dict[str, str]) -> tuple[str | None, Any]:
    """The field an attack's word sets and its value (None: the word is not understood):
    a position, a flag, ``+N`` more attackers, or a weapon or location the sheets name."""
    if low in rules.POSITIONS:
        return "position", low
    if low in ATTACK_FLAGS:
        return ATTACK_FLAGS[low]
    if low.startswith("+") and low[1:].isdigit():
        return "extra_attackers", int(low[1:])
    return named.get(low), low


@GRAMMAR.form(
    "check",
    Usage(
        ("character", "skill", "number"), ("modifier", "open|secret|override|for"), {"for": "text"}
    ),
)
def _check(words: list[str], state: TableState) -> dict[str, Any]:
    rest, reason = cut_reason(words[1:], "check")
    return {**_check_words(rest), **reason}


@GRAMMAR.form(
    "attack",
    Usage(
        ("character", "character"), ("weapon", "location", "position", "unaware|vitals|override")
    ),
)
def _attack(words: list[str], state: TableState) -> dict[str, Any]:
    return _attack_words(words[1:], state)


EFFECT_USAGE = "effect SOURCE TARGET EFFECT POTENCY [STAT] (source may be gm)"


@GRAMMAR.form("effect", Usage(("character", "character", "effect")))
def _effect(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, source, target, effect, potency, *stat]:
            _no_more("effect", stat[1:], EFFECT_USAGE)
            out: dict[str, Any] = {
                "type": "effect",
                "source": source,
                "target": target,
                "effect": effect,
                "potency": whole(potency, "potency"),
            }
            return {**out, "stat": stat[0]} if stat else out
    raise RuleError(f"effect: {EFFECT_USAGE}")


GRAMMAR.form("next")(bare("next", "next"))


OPPOSED_USAGE = "opposed WHO SKILL DEFENDER [DEFENDER-SKILL]; modifiers in the JSON form"


@GRAMMAR.form("opposed", Usage(("character", "skill", "character", "skill")))
def _opposed(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, actor, skill, defender, *defence]:
            _no_more("opposed", defence[1:], OPPOSED_USAGE)
            out = {"type": "opposed", "actor": actor, "skill": skill, "defender": defender}
            return {**out, "defender_skill": defence[0]} if defence else out
    raise RuleError(f"opposed: {OPPOSED_USAGE}")


def _place(x: str, y: str) -> list[int]:
    return [whole(x, "x"), whole(y, "y")]


@GRAMMAR.form("move", Usage(("character",)))
def _move(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, x, y]:
            return {"type": "move", "character": who, "to": _place(x, y)}
    raise RuleError("move: move WHO X Y (feet)")


@GRAMMAR.form("flee", Usage(("character",)))
def _flee(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who]:
            return {"type": "flee", "character": who}
        case [_, who, x, y]:
            return {"type": "flee", "character": who, "to": _place(x, y)}
        case [_, who, x, y, override] if override.lower() == "override":
            return {"type": "flee", "character": who, "to": _place(x, y), "override": True}
    raise RuleError("flee: flee WHO [X Y [override]] (feet; the place proposed if none)")


GRAMMAR.form("side", Usage(("character",)))(
    name_then(
        "switch-side",
        "side",
        str,
        "side: side WHO [SIDE] (a charmed character; the charmer's side if none)",
    )
)


@GRAMMAR.form("bandage", Usage(("character",)))
def _bandage(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who]:
            return {"type": "bandage", "character": who}
    raise RuleError("bandage: bandage WHO")


@GRAMMAR.form("fight", Usage((), ("character",)))
def _fight(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, *order] if order:
            return {"type": "encounter", "order": order}
    raise RuleError("fight: fight WHO WHO ... (in turn order)")


JOIN_USAGE = "join WHO [after WHO] [at X Y] (at the end of the turn order if no after)"


def _join_tail(rest: list[str], out: dict[str, Any]) -> dict[str, Any]:
    match rest:
        case []:
            return out
        case [after, who, *more] if after.lower() == "after":
            return _join_tail(more, {**out, "after": who})
        case [at, x, y, *more] if at.lower() == "at":
            return _join_tail(more, {**out, "position": _place(x, y)})
        case [word, *_]:
            raise RuleError(f"join: {word!r} not understood ({JOIN_USAGE})")
    raise AssertionError("unreachable")  # pragma: no cover


@GRAMMAR.form("join", Usage(("character",), ("after|at",), {"after": "character"}))
def _join(words: list[str], state: TableState) -> dict[str, Any]:
    """``join WHO [after WHO] [at X Y]``: into the running fight."""
    match words:
        case [_, who, *rest] if who.lower() not in ("after", "at"):
            return _join_tail(rest, {"type": "join", "character": who})
    raise RuleError(f"join: {JOIN_USAGE}")


GRAMMAR.form("endfight", Usage(makes="end-encounter"))(bare("end-encounter", "endfight"))


GRAMMAR.form("hp", Usage(("character",)))(
    name_value_text(
        "hp",
        "amount",
        whole_as("amount"),
        "reason",
        "hp: hp WHO AMOUNT [reason] (negative for damage)",
    )
)


@GRAMMAR.form("clear", Usage(("character", "effect"), makes="clear-effect"))
def _clear(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, effect]:
            return {"type": "clear-effect", "character": who, "effect": effect}
    raise RuleError("clear: clear WHO EFFECT")


TRAVEL_USAGE = "travel DOMAIN DISTANCE UNIT [KNOTS]"


@GRAMMAR.form("travel")
def _travel(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, domain, distance, unit, *knots]:
            _no_more("travel", knots[1:], TRAVEL_USAGE)
            leg: dict[str, Any] = {
                "type": "travel",
                "domain": domain,
                "distance": number(distance, "distance"),
                "unit": unit,
            }
            return {**leg, "speed": number(knots[0], "knots")} if knots else leg
    raise RuleError(f"travel: {TRAVEL_USAGE}")
