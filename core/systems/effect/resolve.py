"""``margin resolve`` for 2d6-effect: checks, odds, assistance and the reference rules."""

from __future__ import annotations

from typing import Any

from ...dice import Dice, TypedDice
from ...errors import RuleError
from . import rules
from .decide import two_d6
from .state import (
    MAX_ACTIONS,
    MAX_DM,
    MAX_LAW_LEVEL,
    MAX_SKILL,
    helpers,
    integer,
)


def _skill_level(value: Any, name: str = "skill") -> int | None:
    return None if value is None else integer(name, value, 0, MAX_SKILL)


def _modifier(f: dict[str, Any], prefix: str = "") -> tuple[int, dict[str, Any]]:
    """The sum of a resolve request's DMs, and the breakdown echoed back."""
    level = _skill_level(f["skill"], f"{prefix}skill")
    char_dm = integer(f"{prefix}characteristic_dm", f["characteristic_dm"], -MAX_DM, MAX_DM)
    if f.get("law_level") is not None:
        if f["difficulty"] is not None:
            raise RuleError(
                f"{prefix}law_level: the law level sets the difficulty; give one or the other"
            )
        rung, diff_dm = rules.law_difficulty(
            integer(f"{prefix}law_level", f["law_level"], 0, MAX_LAW_LEVEL)
        )
    else:
        rung, diff_dm = rules.difficulty(f["difficulty"], f"{prefix}difficulty")
    circumstance = rules.circumstance(f["circumstance"], f"{prefix}circumstance")
    dm = integer(f"{prefix}dm", f["dm"], -MAX_DM, MAX_DM)
    actions_dm = rules.multiple_action_dm(
        integer(f"{prefix}actions", f.get("actions", 1), 1, MAX_ACTIONS)
    )
    rows = f.get("time_rows", 0)
    if rows:
        rules.trade("minutes", rows)
    unskilled = rules.UNSKILLED_DM if level is None else 0
    total = (level or 0) + unskilled + char_dm + diff_dm + circumstance + dm + actions_dm + rows
    return total, {
        "modifier": total,
        "difficulty": rung,
        "difficulty_dm": diff_dm,
        "unskilled": level is None,
    }


_CHECK = {
    "skill": "REQUIRED",
    "characteristic_dm": 0,
    "difficulty": None,
    "law_level": None,
    "circumstance": 0,
    "dm": 0,
    "actions": 1,
    "time_rows": 0,
}


def _spec(spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    required = helpers().REQUIRED
    return {k: required if v == "REQUIRED" else v for k, v in {**spec, **extra}.items()}


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
    f = helpers().take(fields, _spec(_CHECK, faces=None))
    modifier, breakdown = _modifier(f)
    return _result(dice.roll(6, 2), modifier, breakdown)


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = helpers().take(fields, _spec(_CHECK))
    modifier, breakdown = _modifier(f)
    success, bands = rules.odds(modifier)
    return {
        "success": float(success),
        "bands": {k: float(v) for k, v in bands.items()},
        **breakdown,
    }


def resolve_assist(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    spec = {
        "skill": "REQUIRED",
        "characteristic_dm": 0,
        "difficulty": None,
        "disposition": "REQUIRED",
    }
    f = helpers().take(fields, _spec(spec, faces=None))
    level = _skill_level(f["skill"])
    char_dm = integer("characteristic_dm", f["characteristic_dm"], -MAX_DM, MAX_DM)
    rung, diff_dm = rules.difficulty(f["difficulty"])
    disposition = rules.disposition(f["disposition"])
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
    f = helpers().take(fields, _spec({"a": "REQUIRED", "b": "REQUIRED"}))
    out: dict[str, Any] = {}
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with the fields of a check")
        s = helpers().take(side, _spec(_CHECK, faces=None))
        modifier, breakdown = _modifier(s, f"{name}.")
        faces, _ = two_d6(dice, s["faces"], name)
        out[name] = _result(faces, modifier, breakdown)
    out["winner"] = rules.opposed_winner(out["a"]["effect"], out["b"]["effect"])
    return out


def resolve_task_time(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    spec = {"increment": None, "time_rows": 0, "combat": False, "faces": None}
    f = helpers().take(fields, spec)
    if helpers().boolean("combat", f["combat"]):
        if f["increment"] is not None or f["time_rows"]:
            raise RuleError(
                "combat: a combat action takes one round; give no increment or time_rows"
            )
        return {"combat": True, "faces": [], "seconds": rules.ROUND_SECONDS, "dm": 0}
    if not isinstance(f["increment"], str):
        raise RuleError(f"increment: expected a row of the time ladder ({', '.join(rules.ROWS)})")
    row, dm = rules.trade(rules.increment(f["increment"]), f["time_rows"])
    die = dice.roll(6, 1)
    return {
        "combat": False,
        "increment": row,
        "faces": die,
        "seconds": rules.duration(row, die[0]),
        "dm": dm,
    }


def resolve_parse_task(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = helpers().take(fields, _spec({"text": "REQUIRED"}))
    if not isinstance(f["text"], str):
        raise RuleError("text: expected the task statement as a string")
    task = rules.parse(f["text"])
    return {
        "description": task.description,
        "skill": task.skill,
        "characteristic": task.characteristic,
        "increment": task.increment,
        "difficulty": task.difficulty,
        "difficulty_dm": task.difficulty_dm,
    }


def resolve_characteristic(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = helpers().take(fields, _spec({"score": "REQUIRED"}))
    return {"dm": rules.characteristic_dm(integer("score", f["score"], 0))}


def resolve_law(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = helpers().take(fields, _spec({"law_level": "REQUIRED"}))
    rung, dm = rules.law_difficulty(integer("law_level", f["law_level"], 0, MAX_LAW_LEVEL))
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
