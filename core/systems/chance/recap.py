"""What a d100-chance recap reads from each event (see ``core.facts``)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

from ...facts import Begins, Check, Damage, Ends, Fact, Harm, Notable, Reader, Turn, number, typed
from . import rules


def _check(e: dict[str, Any]) -> list[Fact]:
    who, skill = e.get("character", ""), e.get("skill", "check")
    chance = bands = None
    if e.get("automatic"):
        chance, bands = Fraction(1), {rules.AUTOMATIC_BAND: Fraction(1)}
    elif number(e, "chance") is not None:
        chance = Fraction(e.get("chance", 0), 100)
        bands = rules.band_probabilities(e.get("chance", 0))
    facts: list[Fact] = [
        Check(
            who,
            skill,
            bool(e.get("success")),
            chance,
            band=e.get("band", ""),
            bands=bands,
            typed=typed(e),
        )
    ]
    if e.get("automatic"):
        facts.append(Notable(who, f"automatic success: {skill}"))
    return facts


@cache
def _actor_wins(a_chance: int, b_chance: int) -> Fraction:
    """Exact chance that the actor wins an opposed check, over the 10,000 pairs of rolls."""
    wins = sum(
        1
        for a_roll in range(1, 101)
        for b_roll in range(1, 101)
        if rules.opposed_winner(a_chance - a_roll, b_chance - b_roll) == "a"
    )
    return Fraction(wins, 10_000)


def _opposed(e: dict[str, Any]) -> list[Fact]:
    a, b = e.get("actor", ""), e.get("defender", "")
    ca, cb = number(e, "actor_chance"), number(e, "defender_chance")
    win = _actor_wins(ca, cb) if ca is not None and cb is not None else None
    src = typed(e)
    return [
        Check(a, e.get("actor_skill", ""), e.get("winner") == a, win, typed=src, target=b),
        Check(
            b,
            e.get("defender_skill", ""),
            e.get("winner") == b,
            None if win is None else 1 - win,
            typed=src,
            target=a,
        ),
    ]


def _attack(e: dict[str, Any]) -> list[Fact]:
    attacker, target = e.get("attacker", ""), e.get("target", "")
    hit, dodge = number(e, "hit_chance"), number(e, "dodge_chance")
    chance = None
    if hit is not None and dodge is not None:
        chance = Fraction(hit, 100) * (1 - Fraction(dodge, 100))
    facts: list[Fact] = [
        Check(
            attacker,
            e.get("weapon", ""),
            bool(e.get("connects")),
            chance,
            typed=typed(e),
            attack=True,
            target=target,
        )
    ]
    taken = number(e, "taken")
    if e.get("connects") and taken is not None:
        facts.append(Damage(target, taken, by=attacker))
    if e.get("crit"):
        facts.append(Notable(attacker, "critical hit"))
    return facts


def _effect(e: dict[str, Any]) -> list[Fact]:
    if not e.get("landed"):
        return []
    stacks = number(e, "total_stacks") or 0
    name = e.get("becomes") or e.get("effect", "")
    return [Harm(e.get("target", ""), name + (f" x{stacks}" if stacks > 1 else ""))]


def _tick(e: dict[str, Any]) -> list[Fact]:
    hp = number(e, "hp") or 0
    return [Damage(e.get("character", ""), -hp)] if hp < 0 else []


def _hp(e: dict[str, Any]) -> list[Fact]:
    amount = number(e, "amount") or 0
    if amount >= 0:
        return []
    return [Damage(e.get("character", ""), -amount - (number(e, "absorbed") or 0))]


def _removed(e: dict[str, Any]) -> list[Fact]:
    return [Harm(e.get("character", ""), f"{e.get('effect', '')} removed")]


def _ended(e: dict[str, Any]) -> list[Fact]:
    rounds = number(e, "rounds") or 0
    return [Ends(f"after {rounds} round{'s' if rounds != 1 else ''}" if rounds else "")]


READERS: dict[str, Reader] = {
    "chance.check": _check,
    "chance.opposed": _opposed,
    "chance.attack": _attack,
    "chance.effect": _effect,
    "chance.tick": _tick,
    "chance.hp": _hp,
    "chance.removed": _removed,
    "chance.encounter": lambda e: [Begins()],
    "chance.turn": lambda e: [Turn(e.get("actor", ""), number(e, "round") or 0)],
    "chance.encounter-ended": _ended,
}
