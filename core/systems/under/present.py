"""d100-under on the table screen: log lines, status, the clock, odds and short forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ...errors import RuleError
from ...state import Character, TableState, find_character
from ..base import Clock, ClockRow, Command, Odds
from . import rules
from .commands import Check, Opposed
from .decide import reading
from .state import (
    STANDARD_COSTS,
    TrackWorld,
    UnderCharacter,
    lookup,
    next_count,
    target_for,
    token_of,
    track,
)


def _verdict(e: Mapping[str, Any]) -> str:
    if e.get("fumble"):
        return "critical failure"
    if e.get("critical"):
        return "critical success"
    return "success" if e.get("success") else "failure"


def _side_text(s: Mapping[str, Any]) -> str:
    if "roll" not in s:
        # a side players may not see: only who
        return str(s.get("actor"))
    result = f"{_verdict(s)}, margin {s['margin']}"
    return f"{s['actor']} {s['label']} {s['roll']:02d} vs {s['target']} ({result})"


def describe(e: dict[str, Any]) -> str | None:
    tag = e.get("type")
    if tag == "under.check":
        typed = " (typed)" if e.get("source") == "typed" else ""
        why = f" for {e['reason']}" if e.get("reason") else ""
        return (
            f"{e['actor']} checks {e['label']}{why}: rolls {e['roll']:02d}{typed} vs {e['target']}"
            f" -> {_verdict(e)}, margin {e['margin']}"
        )
    if tag == "under.opposed":
        if e.get("winner"):
            result = f"{e['winner']} wins"
        else:
            result = "stalemate, it escalates" if e.get("escalation") else "stalemate"
        return f"opposed: {_side_text(e['a'])} against {_side_text(e['b'])}: {result}"
    if tag == "under.escalation":
        return f"escalation: both {' and '.join(e['actors'])} failed; the GM says how it gets worse"
    if tag == "under.track-started":
        return "timing track starts at count 0" + (f" ({e['label']})" if e.get("label") else "")
    if tag == "under.track-ended":
        dropped = f", dropping {', '.join(e['dropped'])}" if e.get("dropped") else ""
        return f"timing track ends at count {e['count']}{dropped}"
    if tag == "under.declared":
        return (
            f"{e['actor']} starts {e['action']} ({e['cost']} counts), completes on count {e['at']}"
        )
    if tag == "under.advanced":
        return f"count {e['count']}"
    if tag == "under.resolved":
        acts = ", ".join(f"{t['actor']} {t['action']}" for t in e["actions"])
        together = " simultaneously" if len(e["actions"]) > 1 else ""
        return (
            f"count {e['count']}: {acts} resolve{'s' if len(e['actions']) == 1 else ''}{together}"
        )
    if tag == "under.interrupted":
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"{e['actor']}'s {e['action']} (due on count {e['at']}) is interrupted{why}"
    if tag == "under.changed":
        return (
            f"{e['actor']} switches from {e['old_action']} to {e['action']} "
            f"({e['cost']} counts), completes on count {e['at']}"
        )
    return None


def status(char: Character, state: TableState) -> list[str]:
    items = []
    world = state.world
    if isinstance(world, TrackWorld) and world.running:
        token = token_of(world, char.id)
        items.append(f"{token.action} @ {token.at}" if token else "free")
    if isinstance(char, UnderCharacter) and char.last:
        items.append(char.last)
    return items


def clock(state: TableState) -> Clock | None:
    """The timing track: tokens in count order, then who is free.

    A token whose character has left the table still resolves, so it is shown
    by the character's id.
    """
    world = state.world
    if not isinstance(world, TrackWorld) or not world.running:
        return None
    upcoming = next_count(world)
    rows = []
    for token in sorted(world.tokens, key=lambda t: (t.at, t.declared)):
        char = state.characters.get(token.actor)
        rows.append(
            ClockRow(
                name=char.name if char is not None else token.actor,
                value=f"count {token.at}",
                current=token.at == upcoming,
                note=f"{token.action} ({token.cost}, from {token.declared})",
            )
        )
    busy = {t.actor for t in world.tokens}
    for char in state.characters.values():
        if char.id not in busy:
            rows.append(ClockRow(name=char.name, value="free", note="no action on the track"))
    title = f"Timing track: count {world.now}" + (f" ({world.label})" if world.label else "")
    return Clock(title=title, rows=tuple(rows))


def odds(command: Command, state: TableState) -> Odds | None:
    crits = reading(state)
    if isinstance(command, Check):
        char = find_character(state, command.character)
        target, label, _ = target_for(char, command.skill, command.attribute, command.target)
        bands = rules.odds(target, crits)
        success = bands["critical"] + bands["success"]
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{char.name}: {label} vs {target}",
        )
    if isinstance(command, Opposed):
        sides = []
        for side in (command.a, command.b):
            char = find_character(state, side.character)
            target, label, _ = target_for(char, side.skill, side.attribute, side.target)
            sides.append((char.name, label, target))
        bands = rules.opposed_odds(sides[0][2], sides[1][2])
        (na, la, ta), (nb, lb, tb) = sides
        return Odds(
            success=float(bands["a wins"]),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{na} {la} {ta} against {nb} {lb} {tb}",
        )
    return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    attributes: set[str] = set()
    actions = set(STANDARD_COSTS) | {"spell"}
    for char in state.characters.values():
        skills.update(char.sheet.get("skills", {}))
        attributes.update(char.sheet.get("attributes", {}))
        actions.update(char.sheet.get("actions", {}))
    return {
        "character": sorted(c.name for c in state.characters.values()),
        "skill": sorted(skills),
        "attribute": sorted(attributes),
        "action": sorted(actions),
        "command": [
            "check",
            "opposed",
            "track",
            "act",
            "advance",
            "interrupt",
            "change",
            "end-track",
        ],
    }


def _digits(word: str) -> bool:
    """True for a word of plain digits 0-9 (``isdigit`` also takes ``²``, which ``int`` refuses)."""
    return word.isascii() and word.isdigit()


def _side_words(words: list[str], state: TableState, who: str = "check") -> dict[str, Any]:
    """``kael melee``, ``kael br``, ``ada library 60``, ``kael security aw``, ``... roll 73``."""
    if not words:
        raise RuleError(f"{who}: name a character, then a skill, an attribute or a target")
    char = find_character(state, words[0])
    out: dict[str, Any] = {"character": char.name}
    rest = words[1:]
    low = [w.lower() for w in rest]
    if "roll" in low:
        at = low.index("roll")
        dice = rest[at + 1 : at + 2]
        if len(dice) != 1 or not _digits(dice[0]):
            raise RuleError("roll: type the two d10 as two digits after 'roll' (73, 07, 00)")
        if len(dice[0]) == 2:
            out["faces"] = [int(dice[0][0]), int(dice[0][1])]
        else:
            out["roll"] = int(dice[0])
        rest = rest[:at] + rest[at + 2 :]
    numbers = [i for i, word in enumerate(rest) if _digits(word)]
    if len(numbers) > 1:
        given = ", ".join(rest[i] for i in numbers)
        raise RuleError(f"{who}: {given} are several targets; give one (or 'roll NN' for the dice)")
    if numbers:
        out["target"] = int(rest.pop(numbers[0]))
    attributes = char.sheet.get("attributes", {})
    if rest and lookup(attributes, rest[-1]) is not None:
        out["attribute"] = rest.pop()
    if rest:
        out["skill"] = " ".join(rest)
        _stray_words(char, rest, who)
    return out


def _stray_words(char: Character, words: list[str], who: str) -> None:
    """Refuse skill words that are a skill on the sheet plus a stray word or two.

    ``melee typo aw`` would otherwise be an unskilled attempt at a skill
    nobody has, quietly against the attribute's target.
    """
    skills = char.sheet.get("skills", {})
    if lookup(skills, " ".join(words)) is not None:
        return
    for size in range(len(words) - 1, 0, -1):
        found = lookup(skills, " ".join(words[:size]))
        if found is not None:
            stray = " ".join(words[size:])
            raise RuleError(
                f"{who}: {stray!r} after {found[0]} is not an attribute, a target, "
                "'roll NN' or 'for REASON'"
            )


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head == "check":
        low = [w.lower() for w in rest]
        reason: dict[str, Any] = {}
        if "for" in low:
            at = low.index("for")
            if at + 1 == len(rest):
                raise RuleError("reason: give it after 'for' (for the warehouse padlock)")
            reason = {"reason": " ".join(rest[at + 1 :])}
            rest = rest[:at]
        return {"type": "check", **_side_words(rest, state), **reason}
    if head == "opposed":
        low = [w.lower() for w in rest]
        if "vs" not in low:
            raise RuleError("opposed: write it as 'opposed kael br vs cultist 30'")
        cut = low.index("vs")
        return {
            "type": "opposed",
            "a": _side_words(rest[:cut], state, "opposed (before vs)"),
            "b": _side_words(rest[cut + 1 :], state, "opposed (after vs)"),
        }
    if head in ("track", "start-track"):
        return {"type": "start-track", "label": " ".join(rest)}
    if head == "end-track":
        if rest:
            raise RuleError(f"end-track: takes nothing after it, got {' '.join(rest)!r}")
        return {"type": "end-track"}
    if head in ("act", "change"):
        if len(rest) < 2:
            raise RuleError(f"{head}: write it as '{head} ada revolver' or '{head} ada spell 5'")
        out: dict[str, Any] = {"type": head, "character": rest[0]}
        tail = rest[1:]
        if len(tail) > 1 and _digits(tail[-1]):
            out["cost"] = int(tail.pop())
        out["action"] = " ".join(tail)
        return out
    if head == "advance":
        if len(rest) > 1:
            raise RuleError(
                f"advance: {' '.join(rest)!r} is more than one word "
                "(advance, advance 3 or advance next)"
            )
        if not rest:
            return {"type": "advance"}
        if rest[0].lower() == "next":
            return {"type": "advance", "next": True}
        if _digits(rest[0]):
            return {"type": "advance", "counts": int(rest[0])}
        raise RuleError(f"advance: {rest[0]!r} is not a number of counts or 'next'")
    if head == "interrupt":
        if not rest:
            raise RuleError("interrupt: name the character whose action stops")
        return {"type": "interrupt", "character": rest[0], "reason": " ".join(rest[1:])}
    return None


def player_world(state: TableState) -> TrackWorld:
    """The track without the tokens of hidden characters (theirs are the GM's secret)."""
    world = track(state)
    hidden = {c.id for c in state.characters.values() if c.hidden}
    return msgspec.structs.replace(
        world,
        escalations=world.escalations - world.gm_escalations,
        gm_escalations=0,
        tokens=[t for t in world.tokens if t.actor not in hidden],
        resolved={
            count: [t for t in done if t.actor not in hidden]
            for count, done in world.resolved.items()
        },
        sources={actor: seq for actor, seq in world.sources.items() if actor not in hidden},
    )
