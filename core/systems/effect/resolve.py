"""``margin resolve`` for 2d6-effect: checks, odds, assistance and the reference rules."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from ...dice import Dice, TypedDice
from ...errors import RuleError
from ...inputs import read_as
from . import rules
from .decide import two_d6
from .state import (
    MAX_ACTIONS,
    MAX_DM,
    MAX_LAW_LEVEL,
    MAX_SKILL,
)

Skill = Annotated[int, Meta(ge=0, le=MAX_SKILL)]
DM = Annotated[int, Meta(ge=-MAX_DM, le=MAX_DM)]
LawLevel = Annotated[int, Meta(ge=0, le=MAX_LAW_LEVEL)]


class OddsRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A check's DMs: the skill level (null: unskilled), characteristic, difficulty and more."""

    skill: Skill | None
    characteristic_dm: DM = 0
    #: a ladder rung by name, or its DM; Average when omitted
    difficulty: str | int | None = None
    law_level: LawLevel | None = None
    circumstance: int = 0
    dm: DM = 0
    actions: Annotated[int, Meta(ge=1, le=MAX_ACTIONS)] = 1
    #: rows of the time ladder traded for a DM (the rules refuse more than two)
    time_rows: int = 0


class CheckRequest(OddsRequest, kw_only=True):
    faces: list[int] | None = None


class AssistRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    skill: Skill | None
    disposition: str
    characteristic_dm: DM = 0
    difficulty: str | int | None = None
    faces: list[int] | None = None


class OpposedRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    a: CheckRequest
    b: CheckRequest


class TaskTimeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    increment: str | None = None
    time_rows: int = 0
    combat: bool = False
    faces: list[int] | None = None


class ParseTaskRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    text: str


class CharacteristicRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    score: Annotated[int, Meta(ge=0)]


class LawRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    law_level: LawLevel


def _modifier(f: OddsRequest, prefix: str = "") -> tuple[int, dict[str, Any]]:
    """The sum of a resolve request's DMs, and the breakdown echoed back."""
    if f.law_level is not None:
        if f.difficulty is not None:
            raise RuleError(
                f"{prefix}law_level: the law level sets the difficulty; give one or the other"
            )
        rung, diff_dm = rules.law_difficulty(f.law_level)
    else:
        rung, diff_dm = rules.difficulty(f.difficulty, f"{prefix}difficulty")
    circumstance = rules.circumstance(f.circumstance, f"{prefix}circumstance")
    actions_dm = rules.multiple_action_dm(f.actions)
    if f.time_rows:
        rules.trade("minutes", f.time_rows)
    unskilled = rules.UNSKILLED_DM if f.skill is None else 0
    total = (
        (f.skill or 0)
        + unskilled
        + f.characteristic_dm
        + diff_dm
        + circumstance
        + f.dm
        + actions_dm
        + f.time_rows
    )
    return total, {
        "modifier": total,
        "difficulty": rung,
        "difficulty_dm": diff_dm,
        "unskilled": f.skill is None,
    }


def _result(faces: list[int], modifier: int, breakdown: dict[str, Any]) -> dict[str, Any]:
    total, effect, success, band = rules.judge(faces, modifier)
    return {
        "faces": faces,
        "total": total,
        "effect": effect,
        "success": success,
        "band": band,
        **breakdown,
    }


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    modifier, breakdown = _modifier(read_as(fields, CheckRequest))
    return _result(dice.roll(6, 2), modifier, breakdown)


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    modifier, breakdown = _modifier(read_as(fields, OddsRequest))
    success, bands = rules.odds(modifier)
    return {
        "success": float(success),
        "bands": {k: float(v) for k, v in bands.items()},
        **breakdown,
    }


def resolve_assist(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, AssistRequest)
    level, char_dm = f.skill, f.characteristic_dm
    rung, diff_dm = rules.difficulty(f.difficulty)
    disposition = rules.disposition(f.disposition)
    refusal = rules.assist_refusal(disposition, level, True)
    if refusal is not None:
        if isinstance(dice, TypedDice):
            dice.release()
        return {"refused": True, "reason": f"the helper {refusal}", "faces": []}
    assert level is not None
    used = rules.skill_brought(disposition, level)
    faces = dice.roll(6, 2)
    total, effect, _, _ = rules.judge(faces, used + char_dm + diff_dm)
    return {
        "refused": False,
        "reason": None,
        "faces": faces,
        "skill_used": used,
        "total": total,
        "effect": effect,
        "dm": effect,
        "difficulty": rung,
    }


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, OpposedRequest)
    out: dict[str, Any] = {}
    for name, side in (("a", f.a), ("b", f.b)):
        modifier, breakdown = _modifier(side, f"{name}.")
        faces, _ = two_d6(dice, side.faces, name)
        out[name] = _result(faces, modifier, breakdown)
    out["winner"] = rules.opposed_winner(out["a"]["effect"], out["b"]["effect"])
    return out


def resolve_task_time(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, TaskTimeRequest)
    if f.combat:
        if f.increment is not None or f.time_rows:
            raise RuleError(
                "combat: a combat action takes one round; give no increment or time_rows"
            )
        return {"combat": True, "faces": [], "seconds": rules.ROUND_SECONDS, "dm": 0}
    if f.increment is None:
        raise RuleError(f"increment: expected a row of the time ladder ({', '.join(rules.ROWS)})")
    row, dm = rules.trade(rules.increment(f.increment), f.time_rows)
    die = dice.roll(6, 1)
    return {
        "combat": False,
        "increment": row,
        "faces": die,
        "seconds": rules.duration(row, die[0]),
        "dm": dm,
    }


def resolve_parse_task(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    task = rules.parse(read_as(fields, ParseTaskRequest).text)
    return {
        "description": task.description,
        "skill": task.skill,
        "characteristic": task.characteristic,
        "increment": task.increment,
        "difficulty": task.difficulty,
        "difficulty_dm": task.difficulty_dm,
    }


def resolve_characteristic(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    return {"dm": rules.characteristic_dm(read_as(fields, CharacteristicRequest).score)}


def resolve_law(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    rung, dm = rules.law_difficulty(read_as(fields, LawRequest).law_level)
    return {"difficulty": rung, "difficulty_dm": dm}


RESOLVE = {
    "check": resolve_check,
    "odds": resolve_odds,
    "assist": resolve_assist,
    "opposed": resolve_opposed,
    "task-time": resolve_task_time,
    "parse-task": resolve_parse_task,
    "characteristic-dm": resolve_characteristic,
    "law-level": resolve_law,
}
