"""What a d100-under recap reads from each event (see ``core.facts``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from ...facts import (
    Begins,
    Check,
    Ends,
    Fact,
    Notable,
    Reader,
    Round,
    Turn,
    number,
    opposed_checks,
    typed,
)
from . import rules

# a long session asks the same few targets again and again
_success_chance = cache(rules.success_chance)
_odds = cache(rules.odds)
_opposed_odds = cache(rules.opposed_odds)


def _notable(side: dict[str, Any], label: str) -> list[Fact]:
    if side.get("fumble"):
        return [Notable(side.get("actor", ""), f"fumble on {label}")]
    if side.get("critical"):
        return [Notable(side.get("actor", ""), f"critical on {label}")]
    return []


def _check(e: dict[str, Any]) -> list[Fact]:
    target, label = number(e, "target"), e.get("label", "check")
    chance = bands = None
    if target is not None:
        chance = _success_chance(target)
        bands = _odds(target, e.get("crit_reading", "table"))
    check = Check(
        e.get("actor", ""),
        label + (f" vs {target}" if target is not None else ""),
        bool(e.get("success")),
        chance,
        band=rules.recorded_band(e),
        bands=bands,
        typed=typed(e),
    )
    return [check, *_notable(e, label)]


def _opposed(e: dict[str, Any]) -> list[Fact]:
    ta, tb = number(e.get("a", {}), "target"), number(e.get("b", {}), "target")
    odds = _opposed_odds(ta, tb) if ta is not None and tb is not None else None
    return opposed_checks(
        e, odds, ("a wins", "b wins"), lambda side: _notable(side, side.get("label", ""))
    )


def _ended(e: dict[str, Any]) -> list[Fact]:
    count = number(e, "count")
    return [Ends(f"at count {count}" if count is not None else "")]


READERS: dict[str, Reader] = {
    "under.check": _check,
    "under.opposed": _opposed,
    "under.track-started": lambda e: [Begins(e.get("label", ""))],
    "under.advanced": lambda e: [Round(number(e, "count") or 0)],
    "under.declared": lambda e: [Turn(e.get("actor", ""), number(e, "count") or 0)],
    "under.track-ended": _ended,
}
