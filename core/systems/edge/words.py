"""2d10-edge short forms: ``check kael athletics vs 30 adv``, ``attack kael guard sword``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...dice import ConstTerm, DiceTerm, parse
from ...errors import RuleError
from ...state import TableState
from ..base import Usage
from ..words import (
    Grammar,
    Parser,
    bare,
    cut_reason,
    name_then,
    name_value_text,
    nothing_after,
    typed_text,
    whole,
    whole_as,
)

#: an option word's reader: the words, the option's index, the command -> the next index
Option = Callable[[list[str], int, dict[str, Any]], int]


FLAG_WORDS = {
    "adv": ("advantage", 1),
    "adv2": ("advantage", 2),
    "dis": ("disadvantage", 1),
    "dis2": ("disadvantage", 2),
}


CHECK_WORDS = (
    "vs, adv, adv2, dis, dis2, remove-dis, edge, edge-remove, mod N, keep I J, no-pending, "
    "secret, option-dis, faces ..., for REASON"
)
ATTACK_WORDS = CHECK_WORDS + ", burst, single, edge-damage, hold, reaction, bonus, free"


def _flag(field: str, value: Any, add: bool = False) -> Option:
    def read(words: list[str], i: int, cmd: dict[str, Any]) -> int:
        cmd[field] = cmd.get(field, 0) + value if add else value
        return i + 1

    return read


def _vs(words: list[str], i: int, cmd: dict[str, Any]) -> int:
    """``vs 30`` or ``vs very difficult``: the TN, or a ladder name of one or more words."""
    j = i + 1
    ladder = []
    while j < len(words) and not words[j].isdigit() and words[j].lower() not in _ALL_WORDS:
        ladder.append(words[j])
        j += 1
    if j < len(words) and words[j].isdigit() and not ladder:
        cmd["tn"] = int(words[j])
        return j + 1
    if not ladder:
        raise RuleError("vs: give a TN or a difficulty (vs 30, vs difficult)")
    cmd["tn"] = "-".join(ladder).lower()
    return j


def _mod(words: list[str], i: int, cmd: dict[str, Any]) -> int:
    match words[i + 1 : i + 2]:
        case [value]:
            cmd["modifier"] = whole(value, "mod")
            return i + 2
    raise RuleError("mod: give a number (mod -2)")


def _faces(words: list[str], i: int, cmd: dict[str, Any]) -> int:
    j = i + 1
    while j < len(words) and words[j].lstrip("-").isdigit():
        j += 1
    if j == i + 1:
        raise RuleError("faces: give the dice rolled, in order (faces 3 4 9)")
    cmd["faces"] = [int(x) for x in words[i + 1 : j]]
    return j


def _keep(words: list[str], i: int, cmd: dict[str, Any]) -> int:
    match words[i + 1 : i + 3]:
        case [first, second]:
            cmd["keep"] = [whole(first, "keep"), whole(second, "keep")]
            return i + 3
    raise RuleError("keep: give two die positions, counted from 0 (keep 0 2)")


#: marks an Edge spend whose use (Advantage, or removing Disadvantage) the check's
#: sources decide once every word is read
_EDGE = "edge?"

#: the option words of a check (and so of an attack): word -> its reader, which
#: takes the words, the option's index and the command, and returns the next index
CHECK_OPTIONS: dict[str, Option] = {
    **{word: _flag(field, n, add=True) for word, (field, n) in FLAG_WORDS.items()},
    "remove-dis": _flag("remove_disadvantage", True),
    "nv": _flag("remove_disadvantage", True),
    "edge": _flag(_EDGE, True),
    "edge-adv": _flag(_EDGE, True),
    "edge-remove": _flag("edge", "remove-disadvantage"),
    "vs": _vs,
    "mod": _mod,
    "modifier": _mod,
    "faces": _faces,
    "keep": _keep,
    "no-pending": _flag("pending", "none"),
    "secret": _flag("secret_tn", True),
    # counted, so a doubled word is refused as the JSON form's 2 is
    "option-dis": _flag("chosen_disadvantage", 1, add=True),
}


def _tail(
    words: list[str], cmd: dict[str, Any], allowed: set[str], known: str = CHECK_WORDS
) -> list[str]:
    """Read the options common to checks and attacks; return the words left over.

    The words left over (a skill or a weapon name) come before the options; a
    word after the first option that is not one of them is refused by name
    (``known`` lists the words the command takes). Without ``check`` in
    ``allowed``, only ``faces`` is an option.
    """
    rest: list[str] = []
    optioned = False
    i = 0
    while i < len(words):
        word = words[i].lower()
        if word not in _ALL_WORDS and not optioned:
            rest.append(words[i])
            i += 1
            continue
        optioned = True
        read = CHECK_OPTIONS.get(word) if "check" in allowed or word == "faces" else None
        if read is None:
            raise RuleError(f"{words[i]!r} is not a word of this command ({known})")
        i = read(words, i, cmd)
    if cmd.pop(_EDGE, False):
        cmd["edge"] = _edge_use(cmd)
    return rest


def _edge_use(cmd: dict[str, Any]) -> str:
    """What the word ``edge`` spends Edge on: removing a check's Disadvantage when it has
    only that, Advantage otherwise."""
    if cmd.get("disadvantage") and not cmd.get("advantage"):
        return "remove-disadvantage"
    return "advantage"


_ALL_WORDS = {
    *FLAG_WORDS,
    "remove-dis",
    "nv",
    "edge",
    "edge-adv",
    "edge-remove",
    "vs",
    "mod",
    "modifier",
    "faces",
    "keep",
    "no-pending",
    "secret",
    "option-dis",
    "burst",
    "single",
    "edge-damage",
    "hold",
    "reaction",
    "bonus",
    "free",
}


def _usage(usage: str) -> RuleError:
    return RuleError(f"usage: {usage}")


def _check_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *tail] if tail:
            tail, reason = cut_reason(tail, "check")
            cmd: dict[str, Any] = {"type": "check", "character": who, **reason}
            rest = _tail(tail, cmd, {"check"})
            if not rest:
                raise RuleError("check: name the skill (check kael athletics vs 30)")
            return {**cmd, "skill": "-".join(rest)}
    raise _usage("check NAME SKILL [vs TN|difficulty] [adv|dis|edge|...] [faces ...] [for REASON]")


#: the words only an attack takes, and what each sets
ATTACK_FLAGS: dict[str, tuple[str, Any]] = {
    "burst": ("mode", "burst"),
    "single": ("mode", "single"),
    "hold": ("damage", False),
    "reaction": ("action", "reaction"),
    "bonus": ("action", "bonus"),
    "free": ("action", "none"),
    "edge-damage": ("edge_damage", True),
}


def _attack_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, attacker, target, *tail]:
            tail, reason = cut_reason(tail, "attack")
            cmd: dict[str, Any] = {
                "type": "attack",
                "character": attacker,
                "target": target,
                **reason,
            }
            for word in tail:
                if word.lower() in ATTACK_FLAGS:
                    field, value = ATTACK_FLAGS[word.lower()]
                    cmd[field] = value
            tail = [w for w in tail if w.lower() not in ATTACK_FLAGS]
            rest = _tail(tail, cmd, {"check"}, ATTACK_WORDS)
            return {**cmd, "weapon": "-".join(rest)} if rest else cmd
    raise _usage(
        "attack ATTACKER TARGET [WEAPON] [burst] [vs TN] [edge|edge-damage] [faces ...] "
        "[for REASON]"
    )


def _injury(more: list[str], use: str) -> dict[str, Any]:
    match more:
        case []:
            return {}
        case [seq, *extra]:
            nothing_after(extra, "edge", f"edge NAME {use} [INJURY]")
            return {"injury": whole(seq, "injury")}
    return {}


def _initiative_faces(more: list[str]) -> dict[str, Any]:
    """The initiative dice typed after ``edge NAME initiative faces``, if any."""
    match more:
        case [faces, *typed] if faces.lower() == "faces":
            return {"faces": [whole(w, "faces") for w in typed]}
    nothing_after(more, "edge", "edge NAME initiative [faces ...]")
    return {}


def _edge_words(words: list[str], state: TableState) -> dict[str, Any]:
    match [w.lower() if i == 2 else w for i, w in enumerate(words)]:
        case [_, name, "damage", *more]:
            nothing_after(more, "edge", "edge NAME damage takes nothing after it")
            return {"type": "damage", "attacker": name, "edge_boost": True}
        case [_, name, "initiative" | "init", *more]:
            return {
                "type": "spend-edge",
                "character": name,
                "purpose": "initiative",
                **_initiative_faces(more),
            }
        case [_, name, "reaction", *more]:
            nothing_after(more, "edge", "edge NAME reaction takes nothing after it")
            return {"type": "spend-edge", "character": name, "purpose": "reaction"}
        case [_, name, "lessen" | "lessen-injury", *more]:
            return {"type": "lessen-injury", "character": name, **_injury(more, "lessen")}
        case [_, name, "burn", *more]:
            return {"type": "edge-burn", "character": name, **_injury(more, "burn")}
        case [_, _, what, *_]:
            raise RuleError(
                f"edge: {what!r} is not a use of Edge here (damage, initiative, reaction, lessen, burn)"
            )
    raise _usage("edge NAME damage|initiative|reaction|lessen [INJURY]|burn [INJURY]")


def _damage_pool(notation: str) -> dict[str, int]:
    """``3d6+2``: the d6 and the flat bonus of direct damage."""
    out: dict[str, int] = {}
    for term in parse(notation).terms:
        if isinstance(term, DiceTerm):
            if term.sides != 6 or term.keep or term.sign < 0:
                raise RuleError(f"damage: {notation!r} must be d6 plus or minus a number (3d6+2)")
            out["dice"] = out.get("dice", 0) + term.count
        elif isinstance(term, ConstTerm):
            out["bonus"] = out.get("bonus", 0) + term.sign * term.value
    return out


#: the words of direct damage that set a field of their own: the field and its value
_DAMAGE_FLAGS = {"stun": ("stun", True), "no-armor": ("armor", False)}


def _damage_options(rest: list[str], cmd: dict[str, Any]) -> dict[str, Any]:
    for i, w in enumerate(rest):
        low = w.lower()
        if low in _DAMAGE_FLAGS:
            field, value = _DAMAGE_FLAGS[low]
            cmd[field] = value
        elif low.startswith("pt-"):
            cmd["pt_reduction"] = whole(low[3:], "pt")
        elif low == "faces":
            cmd["faces"] = [whole(x, "faces") for x in rest[i + 1 :]]
            break
        else:
            raise RuleError(f"damage: {w!r} is not understood (stun, no-armor, pt-N, faces ...)")
    return cmd


def _damage_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, attacker]:
            return {"type": "damage", "attacker": attacker}
        case [_, target, notation, *rest]:
            cmd = {"type": "damage", "target": target, **_damage_pool(notation)}
            return _damage_options(rest, cmd)
    raise _usage("damage ATTACKER | damage TARGET 3d6+2 [stun] [no-armor] [pt-2]")


def _simple(kind: str, field: str = "character") -> Parser:
    def build(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case [_, who, *more]:
                nothing_after(more, words[0], f"{words[0]} NAME")
                return {"type": kind, field: who}
        raise _usage(f"{words[0]} NAME")

    return build


def _join_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *tail]:
            cmd: dict[str, Any] = {"type": "join", "character": who}
            rest = _tail(tail, cmd, set(), "faces ...")
            if rest:
                raise RuleError(f"join: {rest[0]!r} is not understood (join NAME [faces ...])")
            return cmd
    raise _usage("join NAME [faces ...]")


def _start_words(words: list[str], state: TableState) -> dict[str, Any]:
    return {"type": "start-encounter", "name": typed_text(words[1:])}


def _recover_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, reason, *characters]:
            return {"type": "recover-edge", "reason": reason.lower(), "characters": characters}
    raise _usage("recover session-end|refresh|long-rest|scenario-end|final-boss [NAME ...]")


def _heal_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, points, *more]:
            flags = {w.lower() for w in more}
            unknown = flags - {"stun", "cared"}
            if unknown:
                raise RuleError(f"heal: {sorted(unknown)[0]!r} is not understood (stun, cared)")
            return {
                "type": "heal",
                "character": who,
                "points": whole(points, "points"),
                "stun": "stun" in flags,
                "cared": "cared" in flags,
            }
    raise _usage("heal NAME POINTS [stun] [cared]")


def _repair_words(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who]:
            return {"type": "repair-armor", "character": who}
        case [_, who, points]:
            return {"type": "repair-armor", "character": who, "points": whole(points, "points")}
        case [_, _, _, extra, *_]:
            raise RuleError(f"repair: {extra!r} is not understood (repair NAME [POINTS])")
    raise _usage("repair NAME [POINTS]")


def _named(kind: str, option: str, read: Callable[[str], Any], usage: str) -> Parser:
    """A ``WORD NAME [VALUE]`` form; a word after VALUE is refused with ``usage``."""
    return name_then(kind, option, read, f"usage: {usage}")


#: every short form: its word, what its words are (for completion) and its parser
GRAMMAR = Grammar.of(
    (
        "check",
        Usage(
            ("character", "skill"),
            (
                "vs|adv|adv2|dis|dis2|remove-dis|edge|edge-remove|mod|keep|no-pending|secret|option-dis|faces|for",
            ),
            {"vs": "difficulty", "for": "text"},
        ),
        _check_words,
    ),
    (
        "attack",
        Usage(
            ("character", "character"),
            (
                "weapon",
                "burst|single|edge-damage|hold|reaction|bonus|free",
                "vs|adv|adv2|dis|dis2|remove-dis|edge|edge-remove|mod|keep|no-pending|secret|option-dis|faces|for",
            ),
            {"vs": "difficulty", "for": "text"},
        ),
        _attack_words,
    ),
    (
        "edge",
        Usage(("character", "damage|initiative|reaction|lessen|burn"), makes="spend-edge"),
        _edge_words,
    ),
    ("damage", Usage(("character",), ("stun|no-armor|faces",)), _damage_words),
    (
        "burn",
        Usage(("character",), makes="edge-burn"),
        _named("edge-burn", "injury", whole_as("injury"), "burn NAME [INJURY]"),
    ),
    (
        "lessen",
        Usage(("character",), makes="lessen-injury"),
        _named("lessen-injury", "injury", whole_as("injury"), "lessen NAME [INJURY]"),
    ),
    ("next", Usage(makes="next-turn"), bare("next-turn", "next")),
    ("start", Usage(makes="start-encounter"), _start_words),
    ("join", Usage(("character",), ("faces",)), _join_words),
    ("leave", Usage(("character",)), _simple("leave")),
    ("end", Usage(makes="end-encounter"), bare("end-encounter", "end")),
    (
        "use",
        Usage(("character", "major|move|minor|bonus|reaction"), makes="use-action"),
        name_value_text(
            "use-action",
            "action",
            str.lower,
            "what",
            "usage: use NAME major|move|minor|bonus|reaction [what ...]",
        ),
    ),
    (
        "recover",
        Usage(
            ("session-end|refresh|long-rest|scenario-end|final-boss",),
            ("character",),
            makes="recover-edge",
        ),
        _recover_words,
    ),
    (
        "award",
        Usage(("character", "minor|major|boss"), makes="award-edge"),
        _named("award-edge", "size", str.lower, "award NAME [minor|major|boss]"),
    ),
    (
        "dismiss",
        Usage(("character",), makes="dismiss-pending"),
        _named("dismiss-pending", "pending", whole_as("pending"), "dismiss NAME [PENDING]"),
    ),
    ("heal", Usage(("character", "number"), ("stun|cared",)), _heal_words),
    ("repair", Usage(), _repair_words),
)
