"""``margin resolve`` for d100-under: check, opposed, odds and opposed-odds."""

from __future__ import annotations

from typing import Any

from ...dice import Dice
from ...errors import RuleError
from . import rules
from .state import integer, required, take


def _crit_reading(value: Any) -> str:
    if value not in rules.CRIT_READINGS:
        raise RuleError(f"crit_reading: {value!r} is not one of {', '.join(rules.CRIT_READINGS)}")
    return str(value)


def _judged(target: int, faces: list[int], roll: int, reading: str) -> dict[str, Any]:
    out = rules.judge(target, roll, reading)
    window = rules.crit_window(target, reading)
    return {
        "target": target,
        "faces": faces,
        "roll": roll,
        "success": out.success,
        "critical": out.critical,
        "fumble": out.fumble,
        "margin": out.margin,
        "band": out.band,
        "crit_range": out.crit_range,
        "crit_on": [1] if window is None else sorted({1, *range(window[0], window[1] + 1)}),
    }


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"target": required(), "roll": None, "faces": None, "crit_reading": "table"})
    target = integer("target", f["target"], 0, rules.MAX_TARGET)
    reading = _crit_reading(f["crit_reading"])
    faces, roll, _ = rules.percentile(dice, f["faces"], f["roll"])
    return _judged(target, faces, roll, reading)


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"a": required(), "b": required(), "crit_reading": "table"})
    reading = _crit_reading(f["crit_reading"])
    sides = {}
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with target and roll (or faces)")
        s = take(side, {"target": required(), "roll": None, "faces": None})
        target = integer(f"{name}.target", s["target"], 0, rules.MAX_TARGET)
        faces, roll, _ = rules.percentile(dice, s["faces"], s["roll"], name)
        sides[name] = _judged(target, faces, roll, reading)
    a, b = (rules.judge(sides[n]["target"], sides[n]["roll"], reading) for n in ("a", "b"))
    winner = rules.opposed_winner(a, b)
    return {
        "a": sides["a"],
        "b": sides["b"],
        "winner": winner,
        "stalemate": winner is None,
        "escalation": not a.success and not b.success,
    }


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"target": required(), "crit_reading": "table"})
    target = integer("target", f["target"], 0, rules.MAX_TARGET)
    bands = rules.odds(target, _crit_reading(f["crit_reading"]))
    return {
        "target": target,
        "success": float(bands["critical"] + bands["success"]),
        "bands": {k: float(v) for k, v in bands.items()},
    }


def resolve_opposed_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"a": required(), "b": required()})
    targets = []
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with a target")
        targets.append(
            integer(
                f"{name}.target", take(side, {"target": required()})["target"], 0, rules.MAX_TARGET
            )
        )
    bands = rules.opposed_odds(*targets)
    return {
        "a": float(bands["a wins"]),
        "b": float(bands["b wins"]),
        "stalemate": float(bands["stalemate"] + bands["escalation"]),
        "escalation": float(bands["escalation"]),
    }


RESOLVE = {
    "check": resolve_check,
    "opposed": resolve_opposed,
    "odds": resolve_odds,
    "opposed-odds": resolve_opposed_odds,
}
