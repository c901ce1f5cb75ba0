"""2d6-effect on the table screen: log lines, status, odds and short forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import RuleError
from ...state import Character, TableState, find_character
from ..base import Command, Odds
from . import rules
from .commands import Assist, Check, Opposed
from .decide import plan_check
from .state import (
    EffectCharacter,
    characteristic_of,
    lookup,
    skill_of,
)


def _dms(e: Mapping[str, Any]) -> str:
    parts = []
    if e.get("skill_level") is not None:
        parts.append(f"{e['skill']} {e['skill_level']:+d}")
    if e.get("unskilled_dm"):
        parts.append(f"unskilled {e['unskilled_dm']:+d}")
    if e.get("characteristic"):
        parts.append(f"{e['characteristic']} {e.get('characteristic_dm', 0):+d}")
    law = f", law {e['law_level']}" if e.get("law_level") is not None else ""
    parts.append(f"{e.get('difficulty', 'average')}{law} {e.get('difficulty_dm', 0):+d}")
    for field, name in (
        ("circumstance", "situation"),
        ("dm", "DM"),
        ("assist_dm", "help"),
        ("actions_dm", "actions"),
        ("time_rows", "time traded"),
    ):
        if e.get(field):
            parts.append(f"{name} {e[field]:+d}")
    return ", ".join(parts)


def _side_text(side: Mapping[str, Any]) -> str:
    if "faces" not in side:
        # a side players may not see: only who
        return str(side.get("actor"))
    faces = "+".join(str(f) for f in side["faces"])
    typed = " (typed)" if side.get("source") == "typed" else ""
    return (
        f"{side['actor']} {side['label']} {faces}{typed} {side['modifier']:+d} = {side['total']}"
        f" (Effect {side['effect']:+d})"
    )


def describe(e: dict[str, Any]) -> str | None:
    tag = e.get("type")
    if tag == "effect.check":
        why = f" for {e['reason']}" if e.get("reason") else ""
        task = f" [task {e['task']}]" if e.get("task") else ""
        typed = " (typed)" if e.get("source") == "typed" else ""
        faces = "+".join(str(f) for f in e["faces"])
        time = ""
        if e.get("seconds") is not None:
            rolled = f" ({e['time_die']} x {e['increment']})" if e.get("time_die") else " (a round)"
            time = f"; takes {rules.show_seconds(e['seconds'])}{rolled}"
        return (
            f"{e['actor']} checks {e['label']}{why}{task}: {faces}{typed} with {_dms(e)}"
            f" = {e['total']} vs 8 -> {e['band']}, Effect {e['effect']:+d}{time}"
        )
    if tag == "effect.assist":
        if e.get("refused"):
            return f"{e['helper']} will not help {e['actor']} with {e['label']}: {e['reason']}"
        if "faces" not in e:
            # an unseen helper: players see that help came, not how much
            return f"{e['helper']} helps {e['actor']}"
        faces = "+".join(str(f) for f in e["faces"])
        typed = " (typed)" if e.get("source") == "typed" else ""
        level, used = e.get("skill_level"), e.get("skill_used")
        held = (
            f", holding back to {used} of {level} levels"
            if used is not None and used != level
            else ""
        )
        dms = []
        if used is not None:
            dms.append(f"{e['label']} {used:+d}")
        if e.get("characteristic"):
            dms.append(f"{e['characteristic']} {e.get('characteristic_dm', 0):+d}")
        dms.append(f"{e.get('difficulty', 'average')} {e.get('difficulty_dm', 0):+d}")
        return (
            f"{e['helper']} ({e['disposition']}{held}) helps {e['actor']} with {e['label']}: "
            f"{faces}{typed} with {', '.join(dms)} = {e['total']}, Effect {e['effect']:+d}"
            f" -> DM {e['dm']:+d} on the check"
        )
    if tag == "effect.opposed":
        a, b = e["a"], e["b"]
        result = f"{e['winner']} wins" if e.get("winner") else "equal Effect, nobody wins"
        return f"opposed: {_side_text(a)} against {_side_text(b)}: {result}"
    if tag == "effect.task-closed":
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"task {e['task']} is closed: no further attempts{why}"
    return None


def status(char: Character, state: TableState) -> list[str]:
    items = []
    if isinstance(char, EffectCharacter):
        for key, pending in char.assists.items():
            items.append(f"help {pending.dm:+d} on {key} ({pending.helper})")
        if char.last:
            items.append(char.last)
    return items


def odds(command: Command, state: TableState) -> Odds | None:
    if isinstance(command, Check):
        plan = plan_check(command, state)
        success, bands = rules.odds(plan.modifier)
        char = find_character(state, command.character)
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{char.name}: {plan.label} {plan.modifier:+d} vs 8",
        )
    if isinstance(command, Assist):
        helper = find_character(state, command.helper)
        skill, level = skill_of(helper, command.skill) if command.skill else (None, None)
        disposition = rules.disposition(
            command.disposition
            if command.disposition is not None
            else helper.sheet.get("disposition", "helpful")
        )
        if rules.assist_refusal(disposition, level, command.skill is not None):
            return None
        used = rules.skill_brought(disposition, level) if level is not None else 0
        char_dm = (
            characteristic_of(helper, command.characteristic, state)[1]
            if command.characteristic
            else 0
        )
        modifier = used + char_dm + rules.difficulty(command.difficulty)[1]
        success, bands = rules.odds(modifier)
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{helper.name} helping: {skill or command.characteristic} {modifier:+d} vs 8",
        )
    if isinstance(command, Opposed):
        mods = []
        for side in (command.a, command.b):
            check = Check(
                character=side.character,
                skill=side.skill,
                characteristic=side.characteristic,
                difficulty=side.difficulty,
                circumstance=side.circumstance,
                dm=side.dm,
            )
            plan = plan_check(check, state)
            mods.append(plan.modifier - plan.assist_dm)
        chances = rules.opposed_odds(mods[0], mods[1])
        return Odds(
            success=float(chances["a"]),
            bands={
                "a wins": float(chances["a"]),
                "b wins": float(chances["b"]),
                "tie": float(chances["tie"]),
            },
            label=f"{command.a.character} {mods[0]:+d} against {command.b.character} {mods[1]:+d}",
        )
    return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    characteristics: set[str] = set()
    for char in state.characters.values():
        skills.update(char.sheet.get("skills", {}))
        characteristics.update(char.sheet.get("characteristics", {}))
    return {
        "character": sorted(c.name for c in state.characters.values()),
        "skill": sorted(skills),
        "characteristic": sorted(characteristics),
        "difficulty": list(rules.LADDER),
        "disposition": list(rules.DISPOSITIONS),
        "increment": list(rules.ROWS),
        "command": ["check", "assist", "opposed", "close"],
    }


def _rung_at(words: list[str], i: int) -> tuple[str, int] | None:
    """A ladder rung starting at word ``i`` (one or two words) and how many words it takes."""
    for size in (2, 1):
        key = rules.rung_name(" ".join(words[i : i + size]))
        if i + size <= len(words) and key in rules.LADDER:
            return key, size
    return None


def _digits(word: str) -> bool:
    """True for a word of plain digits 0-9 (``isdigit`` also takes ``²``, which ``int`` refuses)."""
    return word.isascii() and word.isdigit()


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
    while i < len(words):
        word = words[i]
        rung = _rung_at(words, i)
        if rung is not None:
            put("difficulty", rung[0], " ".join(words[i : i + rung[1]]))
            i += rung[1]
            continue
        if word.lower() == "law" and i + 1 < len(words) and _digits(words[i + 1]):
            put("law_level", int(words[i + 1]), f"{word} {words[i + 1]}")
            i += 2
            continue
        if word.lower() == "law" and i + 1 == len(words) and not skill:
            raise RuleError(f"{who}: 'law' needs the world's law level after it (law 8)")
        if word in ("+1", "-1"):
            put("circumstance", int(word), word)
        elif word[:1] in "+-" and _digits(word[1:]):
            put("difficulty", int(word), word)
        elif lookup(char.sheet.get("characteristics", {}), word) is not None:
            put("characteristic", word, word)
        else:
            skill.append(word)
        i += 1
    if skill:
        out["skill"] = " ".join(skill)
        _stray_words(char, out["skill"], who)
    return out


def _stray_words(char: Character, typed: str, who: str) -> None:
    """Refuse skill words that are a skill on the sheet plus a stray word or two.

    ``electronics difficlt`` would otherwise be an unskilled check of a skill
    nobody has, quietly at -3.
    """
    skills = char.sheet.get("skills", {})
    if lookup(skills, typed) is not None:
        return
    words = typed.split()
    for size in range(len(words) - 1, 0, -1):
        found = lookup(skills, " ".join(words[:size]))
        if found is not None:
            stray = " ".join(words[size:])
            raise RuleError(
                f"{who}: {stray!r} after {found[0]} is not a characteristic, a rung of the "
                "ladder, +1/-1, 'law N', 'for REASON' or 'task NAME'"
            )


def _side_faces(words: list[str]) -> tuple[list[str], list[int] | None]:
    """One side's words without ``roll 3 4`` (the two d6 rolled at the table) and those faces."""
    low = [w.lower() for w in words]
    if "roll" not in low:
        return words, None
    at = low.index("roll")
    dice = words[at + 1 : at + 3]
    if len(dice) != 2 or not all(_digits(d) for d in dice):
        raise RuleError("opposed: type each side's two d6 after 'roll' (roll 3 4)")
    return words[:at] + words[at + 3 :], [int(d) for d in dice]


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head == "check":
        low = [w.lower() for w in rest]
        tail: dict[str, Any] = {}
        for word, field, example in (
            ("task", "task", "task the port computer"),
            ("for", "reason", "for the password"),
        ):
            if word in low:
                at = low.index(word)
                if at + 1 == len(rest):
                    raise RuleError(f"{field}: give it after '{word}' ({example})")
                tail[field] = " ".join(rest[at + 1 :])
                rest, low = rest[:at], low[:at]
        return {"type": "check", **_check_words(rest, state, "check"), **tail}
    if head == "assist":
        if len(rest) < 3:
            raise RuleError("assist: write it as 'assist mira vex electronics'")
        helper = find_character(state, rest[0])
        helped = _check_words(rest[1:], state, "assist")
        helped.pop("circumstance", None)
        helped.pop("law_level", None)
        return {"type": "assist", "helper": helper.name, **helped}
    if head == "opposed":
        low = [w.lower() for w in rest]
        if "vs" not in low:
            raise RuleError("opposed: write it as 'opposed vex electronics vs mira electronics'")
        cut = low.index("vs")
        sides = []
        for part in (rest[:cut], rest[cut + 1 :]):
            part, faces = _side_faces(part)
            side = _check_words(part, state, "opposed")
            side.pop("law_level", None)
            if faces is not None:
                side["faces"] = faces
            sides.append(side)
        return {"type": "opposed", "a": sides[0], "b": sides[1]}
    if head in ("close", "close-task"):
        if not rest:
            raise RuleError("close: name the task to close")
        return {"type": "close-task", "task": " ".join(rest)}
    return None
