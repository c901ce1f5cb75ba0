"""What a 2d10-edge recap reads from each event (see ``core.facts``)."""

from __future__ import annotations

from functools import cache
from typing import Any

from ...facts import (
    Begins,
    Check,
    Damage,
    Ends,
    Fact,
    Harm,
    Notable,
    Reader,
    Spent,
    Turn,
    number,
    typed,
)
from . import rules

# a long session asks the same few checks again and again
_check_odds = cache(rules.check_odds)


def _check(e: dict[str, Any]) -> list[Fact]:
    tn = number(e, "tn")
    label = e.get("skill", "check") + (f" vs TN {tn}" if tn is not None else "")
    odds = _odds(e, tn)
    chance, bands = (odds.success, odds.bands) if odds is not None else (None, None)
    attack = e.get("type") == "edge.attack"
    facts: list[Fact] = [
        Check(
            actor=e.get("character", ""),
            label=label,
            success=bool(e.get("success")),
            chance=chance,
            band=e.get("band", ""),
            bands=bands,
            typed=typed(e),
            attack=attack,
            target=e.get("target", "") if attack else "",
        )
    ]
    kept = e.get("kept")
    if e.get("double") and kept:
        facts.append(_doubles(e, kept, label))
    return facts


def _odds(e: dict[str, Any], tn: int | None) -> rules.CheckOdds | None:
    """The odds a check had before its roll; None when its record lacks the numbers."""
    bonus, mode = number(e, "bonus"), e.get("mode")
    # a kept pair the player chose is not the default keep the odds assume
    if bonus is None or tn is None or mode is None or e.get("keep_chosen"):
        return None
    return _check_odds(mode, bonus, tn, bool(e.get("edge")))


def _doubles(e: dict[str, Any], kept: list[int], label: str) -> Notable:
    """A check whose kept pair is a double, as the recap notes it."""
    adjustment = number(e, "adjustment")
    shift = f" ({adjustment:+d})" if adjustment else ""
    return Notable(e.get("character", ""), f"doubles {kept[0]}-{kept[1]}{shift} on {label}")


def _spent(e: dict[str, Any]) -> list[Fact]:
    return [Spent(e.get("character", ""), "Edge", 1, e.get("purpose", ""))]


def _damage(e: dict[str, Any]) -> list[Fact]:
    taken = number(e, "taken")
    if taken is None:
        return []
    return [
        Damage(
            e.get("target", ""), taken, attack=number(e, "attack") or 0, stun=bool(e.get("stun"))
        )
    ]


def _injury(e: dict[str, Any]) -> list[Fact]:
    who = e.get("character", "")
    kind = "stun" if e.get("stun") else "injury"
    facts: list[Fact] = []
    if e.get("severity"):
        facts.append(Harm(who, f"{e.get('severity')} {kind} ({e.get('points', 0)} points)"))
    if e.get("overwhelmed"):
        facts.append(Harm(who, "knocked out" if e.get("stun") else "killed", down=True))
    return facts


def _lessened(e: dict[str, Any]) -> list[Fact]:
    return [Harm(e.get("character", ""), f"injury lessened to {e.get('severity_to', '')}")]


def _burned(e: dict[str, Any]) -> list[Fact]:
    return [
        Harm(e.get("character", ""), "burned Edge to live, needs urgent care"),
        Spent(e.get("character", ""), "Edge", 1, "burn"),
    ]


def _turn(e: dict[str, Any]) -> list[Fact]:
    return [Turn(e.get("character", ""), number(e, "round") or 0)]


READERS: dict[str, Reader] = {
    "edge.check": _check,
    "edge.attack": _check,
    "edge.spent": _spent,
    "edge.damage": _damage,
    "edge.injury": _injury,
    "edge.injury-lessened": _lessened,
    "edge.burned": _burned,
    "edge.encounter-started": lambda e: [Begins(e.get("name", ""))],
    "edge.turn": _turn,
    "edge.encounter-ended": lambda e: [Ends()],
}
