"""What a 2d6-effect recap reads from each event (see ``core.facts``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from ...facts import Check, Fact, Notable, Reader, number, opposed_checks, typed
from . import rules

# a long session asks the same few modifiers again and again
_odds = cache(rules.odds)
_opposed_odds = cache(rules.opposed_odds)


def _modifier(side: dict[str, Any]) -> int | None:
    """The sum of every DM: the total less the dice (None when the lens cut either)."""
    total, faces = number(side, "total"), side.get("faces")
    if total is None or not faces:
        return None
    dice: int = sum(faces)
    return total - dice


def _notable(who: str, band: str, label: str) -> list[Fact]:
    if band.startswith("exceptional-"):
        return [Notable(who, f"{band.replace('-', ' ')} on {label}")]
    return []


def _check(e: dict[str, Any]) -> list[Fact]:
    modifier, label = _modifier(e), e.get("label", "check")
    chance = bands = None
    if modifier is not None:
        chance, bands = _odds(modifier)
    band = e.get("band", "")
    check = Check(
        e.get("actor", ""),
        label,
        bool(e.get("success")),
        chance,
        band=band,
        bands=bands,
        typed=typed(e),
    )
    return [check, *_notable(e.get("actor", ""), band, label)]


def _opposed(e: dict[str, Any]) -> list[Fact]:
    ma, mb = _modifier(e.get("a", {})), _modifier(e.get("b", {}))
    odds = _opposed_odds(ma, mb) if ma is not None and mb is not None else None
    return opposed_checks(
        e,
        odds,
        ("a", "b"),
        lambda side: _notable(side.get("actor", ""), side.get("band", ""), side.get("label", "")),
    )


READERS: dict[str, Reader] = {
    "effect.check": _check,
    "effect.opposed": _opposed,
}
