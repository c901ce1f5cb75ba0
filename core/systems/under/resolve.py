"""``margin resolve`` for d100-under: check, opposed, odds and opposed-odds."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ...dice import Dice
from ...inputs import read_as
from . import rules

Target = Annotated[int, Meta(ge=0, le=rules.MAX_TARGET)]
#: how criticals are read (``rules.CRIT_READINGS``)
Reading = Literal["table", "example"]


class Odds(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    target: Target
    crit_reading: Reading = "table"


class Roll(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A target, and the roll made at the table (or its two d10 faces) if any."""

    target: Target
    roll: int | None = None
    faces: list[int] | None = None


class Check(Roll, kw_only=True):
    crit_reading: Reading = "table"


class Opposed(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    a: Roll
    b: Roll
    crit_reading: Reading = "table"


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    target: Target


class OpposedOdds(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    a: Side
    b: Side


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
    f = read_as(fields, Check)
    faces, roll, _ = rules.percentile(dice, f.faces, f.roll)
    return _judged(f.target, faces, roll, f.crit_reading)


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, Opposed)
    sides = {}
    for name, side in (("a", f.a), ("b", f.b)):
        faces, roll, _ = rules.percentile(dice, side.faces, side.roll, name)
        sides[name] = _judged(side.target, faces, roll, f.crit_reading)
    a, b = (rules.judge(sides[n]["target"], sides[n]["roll"], f.crit_reading) for n in ("a", "b"))
    winner = rules.opposed_winner(a, b)
    return {
        "a": sides["a"],
        "b": sides["b"],
        "winner": winner,
        "stalemate": winner is None,
        "escalation": not a.success and not b.success,
    }


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, Odds)
    bands = rules.odds(f.target, f.crit_reading)
    return {
        "target": f.target,
        "success": float(bands["critical"] + bands["success"]),
        "bands": {k: float(v) for k, v in bands.items()},
    }


def resolve_opposed_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, OpposedOdds)
    bands = rules.opposed_odds(f.a.target, f.b.target)
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
