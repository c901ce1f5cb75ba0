"""2d6-effect on the table screen: log lines, status, odds and short forms."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...state import Character, TableState, find_character
from ..base import Command, Odds, describer
from ..shared_face import if_given
from . import rules
from .commands import Assist, Check, Opposed
from .decide import plan_assist, plan_check
from .state import (
    EffectCharacter,
)
from .words import GRAMMAR


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


def _line_check(e: dict[str, Any]) -> str:
    why = if_given(e, "reason", " for {}")
    task = if_given(e, "task", " [task {}]")
    if "faces" not in e:
        # a secret check as players see it: how it went, not its numbers
        return f"{e['actor']} checks {e['label']}{why}{task} in secret -> {e['band']}"
    typed = " (typed)" if e.get("source") == "typed" else ""
    secret = if_given(e, "secret", " in secret")
    faces = "+".join(str(f) for f in e["faces"])
    time = ""
    if e.get("seconds") is not None:
        rolled = f" ({e['time_die']} x {e['increment']})" if e.get("time_die") else " (a round)"
        time = f"; takes {rules.show_seconds(e['seconds'])}{rolled}"
    return (
        f"{e['actor']} checks {e['label']}{why}{task}{secret}: {faces}{typed} with {_dms(e)}"
        f" = {e['total']} vs 8 -> {e['band']}, Effect {e['effect']:+d}{time}"
    )


def _line_assist(e: dict[str, Any]) -> str:
    if e.get("refused"):
        return f"{e['helper']} will not help {e['actor']} with {e['label']}: {e['reason']}"
    if "faces" not in e:
        # an unseen helper: players see that help came, not how much
        return f"{e['helper']} helps {e['actor']}"
    faces = "+".join(str(f) for f in e["faces"])
    typed = " (typed)" if e.get("source") == "typed" else ""
    level, used = e.get("skill_level"), e.get("skill_used")
    held = (
        f", holding back to {used} of {level} levels" if used is not None and used != level else ""
    )
    return (
        f"{e['helper']} ({e['disposition']}{held}) helps {e['actor']} with {e['label']}: "
        f"{faces}{typed} with {', '.join(_assist_dms(e, used))} = {e['total']}, "
        f"Effect {e['effect']:+d} -> DM {e['dm']:+d} on the check"
    )


def _assist_dms(e: dict[str, Any], used: int | None) -> list[str]:
    """The DMs of a helper's roll: the skill level brought, a characteristic, the difficulty."""
    dms = []
    if used is not None:
        dms.append(f"{e['label']} {used:+d}")
    if e.get("characteristic"):
        dms.append(f"{e['characteristic']} {e.get('characteristic_dm', 0):+d}")
    dms.append(f"{e.get('difficulty', 'average')} {e.get('difficulty_dm', 0):+d}")
    return dms


def _line_opposed(e: dict[str, Any]) -> str:
    a, b = e["a"], e["b"]
    result = f"{e['winner']} wins" if e.get("winner") else "equal Effect, nobody wins"
    return f"opposed: {_side_text(a)} against {_side_text(b)}: {result}"


def _line_task_closed(e: dict[str, Any]) -> str:
    why = if_given(e, "reason", " ({})")
    return f"task {e['task']} is closed: no further attempts{why}"


#: one log line for a 2d6-effect event, by its tag (the event given as a dict, possibly
#: lensed); None for a tag not here
describe = describer(
    {
        "effect.check": _line_check,
        "effect.assist": _line_assist,
        "effect.opposed": _line_opposed,
        "effect.task-closed": _line_task_closed,
    }
)


def status(char: Character, state: TableState) -> list[str]:
    items = []
    if isinstance(char, EffectCharacter):
        for key, pending in char.assists.items():
            items.append(f"help {pending.dm:+d} on {key} ({pending.helper})")
    return [*items, *field_lines(char).values()]


def field_lines(char: Character) -> dict[str, str]:
    """The last check, as the status line says it."""
    if not isinstance(char, EffectCharacter) or char.last is None:
        return {}
    last = char.last
    band = f", {last.band}" if last.band else ""
    won = " (wins)" if last.won else ""
    return {"last": f"{last.label} {last.total} (Effect {last.effect:+d}{band}){won}"}


def odds(command: Command, state: TableState) -> Odds | None:
    """Exact odds of a check, an offer of help or an opposed check, from the plan it rolls by."""
    estimate = _ODDS.get(type(command))
    return None if estimate is None else estimate(command, state)


def _check_odds(command: Check, state: TableState) -> Odds:
    plan = plan_check(command, state)
    success, bands = rules.odds(plan.modifier)
    char = find_character(state, command.character)
    return Odds(
        success=float(success),
        bands={k: float(v) for k, v in bands.items()},
        label=f"{char.name}: {plan.label} {plan.modifier:+d} vs 8",
    )


def _assist_odds(command: Assist, state: TableState) -> Odds | None:
    plan = plan_assist(command, state)
    if plan.refusal is not None:
        return None
    success, bands = rules.odds(plan.modifier)
    return Odds(
        success=float(success),
        bands={k: float(v) for k, v in bands.items()},
        label=f"{plan.helper.name} helping: {plan.label} {plan.modifier:+d} vs 8",
    )


def _opposed_odds(command: Opposed, state: TableState) -> Odds:
    mods = []
    for side in (command.a, command.b):
        plan = plan_check(side.check(), state)
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


#: the odds of each kind of command that rolls a check
_ODDS: dict[type[Command], Callable[[Any, TableState], Odds | None]] = {
    Check: _check_odds,
    Assist: _assist_odds,
    Opposed: _opposed_odds,
}


#: the clock is margin's turn order's (``core.clock``): 2d6-effect keeps none of its own
clock = None


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
        "command": list(GRAMMAR.usages),
    }
