"""d100-under on the table screen: log lines, status, the clock, odds and short forms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...state import Character, TableState, find_character
from ..base import Clock, ClockRow, Command, Odds, describer
from ..shared_face import if_given
from . import rules
from .commands import Check, Opposed
from .decide import reading
from .state import (
    STANDARD_COSTS,
    TrackWorld,
    UnderCharacter,
    next_count,
    target_for,
    token_of,
)
from .words import GRAMMAR

#: the words a log line says for the bands it does not call by their names
_SAID = {"fumble": "critical failure", "critical": "critical success"}


def _verdict(e: Mapping[str, Any]) -> str:
    band = rules.recorded_band(e)
    return _SAID.get(band, band)


def _side_text(s: Mapping[str, Any]) -> str:
    if "roll" not in s:
        # a side players may not see: only who
        return str(s.get("actor"))
    result = f"{_verdict(s)}, margin {s['margin']}"
    return f"{s['actor']} {s['label']} {s['roll']:02d} vs {s['target']} ({result})"


def _line_check(e: dict[str, Any]) -> str:
    typed = " (typed)" if e.get("source") == "typed" else ""
    why = if_given(e, "reason", " for {}")
    if "roll" not in e:
        # a secret check as players see it: how it went, not its numbers
        return f"{e['actor']} checks {e['label']}{why} in secret -> {_verdict(e)}"
    secret = if_given(e, "secret", " in secret")
    return (
        f"{e['actor']} checks {e['label']}{why}{secret}: rolls {e['roll']:02d}{typed} vs "
        f"{e['target']} -> {_verdict(e)}, margin {e['margin']}"
    )


def _line_opposed(e: dict[str, Any]) -> str:
    if e.get("winner"):
        result = f"{e['winner']} wins"
    else:
        result = "stalemate, it escalates" if e.get("escalation") else "stalemate"
    return f"opposed: {_side_text(e['a'])} against {_side_text(e['b'])}: {result}"


def _line_escalation(e: dict[str, Any]) -> str:
    return f"escalation: both {' and '.join(e['actors'])} failed; the GM says how it gets worse"


def _line_track_started(e: dict[str, Any]) -> str:
    return "timing track starts at count 0" + if_given(e, "label", " ({})")


def _line_track_ended(e: dict[str, Any]) -> str:
    dropped = f", dropping {', '.join(e['dropped'])}" if e.get("dropped") else ""
    return f"timing track ends at count {e['count']}{dropped}"


def _line_declared(e: dict[str, Any]) -> str:
    return f"{e['actor']} starts {e['action']} ({e['cost']} counts), completes on count {e['at']}"


def _line_advanced(e: dict[str, Any]) -> str:
    return f"count {e['count']}"


def _line_resolved(e: dict[str, Any]) -> str:
    acts = ", ".join(f"{t['actor']} {t['action']}" for t in e["actions"])
    together = " simultaneously" if len(e["actions"]) > 1 else ""
    return f"count {e['count']}: {acts} resolve{'s' if len(e['actions']) == 1 else ''}{together}"


def _line_interrupted(e: dict[str, Any]) -> str:
    why = if_given(e, "reason", " ({})")
    return f"{e['actor']}'s {e['action']} (due on count {e['at']}) is interrupted{why}"


def _line_changed(e: dict[str, Any]) -> str:
    return (
        f"{e['actor']} switches from {e['old_action']} to {e['action']} "
        f"({e['cost']} counts), completes on count {e['at']}"
    )


#: one log line for a d100-under event, by its tag (the event given as a dict, possibly
#: lensed); None for a tag not here
describe = describer(
    {
        "under.check": _line_check,
        "under.opposed": _line_opposed,
        "under.escalation": _line_escalation,
        "under.track-started": _line_track_started,
        "under.track-ended": _line_track_ended,
        "under.declared": _line_declared,
        "under.advanced": _line_advanced,
        "under.resolved": _line_resolved,
        "under.interrupted": _line_interrupted,
        "under.changed": _line_changed,
    }
)


def status(char: Character, state: TableState) -> list[str]:
    items = []
    world = state.world
    if isinstance(world, TrackWorld) and world.running:
        token = token_of(world, char.id)
        due = [t.action for t in world.resolved.get(world.now, []) if t.actor == char.id]
        if token is not None:
            items.append(f"{token.action} @ {token.at}")
        else:
            items.append(f"{due[0]} due now" if due else "free")
    return [*items, *field_lines(char).values()]


def field_lines(char: Character) -> dict[str, str]:
    """The last check, as the status line says it."""
    if not isinstance(char, UnderCharacter) or char.last is None:
        return {}
    last = char.last
    won = " (wins)" if last.won else ""
    return {"last": f"{last.label} {last.roll:02d}/{last.target} {last.verdict}{won}"}


def clock(state: TableState) -> Clock | None:
    """The timing track: tokens in count order, then who is free.

    A token whose character has left the table still resolves, so it is shown
    by the character's id.
    """
    world = state.world
    if not isinstance(world, TrackWorld) or not world.running:
        return None
    rows = (*_token_rows(world, state), *_free_rows(world, state))
    title = f"Timing track: count {world.now}" + (f" ({world.label})" if world.label else "")
    return Clock(title=title, rows=rows, count=world.now)


def _token_rows(world: TrackWorld, state: TableState) -> list[ClockRow]:
    """A row of each token on the track, in count order, the next count's marked."""
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
                on_deck=token.at == upcoming,
            )
        )
    return rows


def _free_rows(world: TrackWorld, state: TableState) -> list[ClockRow]:
    """A row of each character with no token on the track: due or free.

    An action comes due when the track reaches its count: its actor's turn,
    until they declare their next action or the track moves on.
    """
    busy = {t.actor for t in world.tokens}
    due = {t.actor: t.action for t in world.resolved.get(world.now, [])}
    rows = []
    for char in state.characters.values():
        if char.id in busy:
            continue
        if char.id in due:
            note = f"{due[char.id]} came due on count {world.now}"
            rows.append(ClockRow(name=char.name, value="due", note=note, turn=True))
        else:
            rows.append(ClockRow(name=char.name, value="free", note="no action on the track"))
    return rows


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
        "command": list(GRAMMAR.usages),
    }
