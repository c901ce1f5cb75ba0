"""2d6-effect rules: the check total, Effect and its bands, the ladders and tables, odds.

Pure functions of numbers; the system module turns commands into events with them.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from ..errors import RuleError

#: The target of every check; difficulty moves the modifier, never this.
TARGET = 8

#: An attempt without any level in the skill.
UNSKILLED_DM = -3

#: Difficulty rungs, easiest first, with the DM each gives.
LADDER: dict[str, int] = {
    "simple": 6,
    "easy": 4,
    "routine": 2,
    "average": 0,
    "difficult": -2,
    "very-difficult": -4,
    "formidable": -6,
}
RUNG_OF_DM = {dm: name for name, dm in LADDER.items()}

#: Effect bands, best first.
BANDS = ("exceptional-success", "success", "failure", "exceptional-failure")

#: Situational DMs the GM picks from: a hindrance, nothing, an advantage.
CIRCUMSTANCES = (-1, 0, 1)

#: How willing somebody is, coldest first; helpers start at friendly.
DISPOSITIONS = ("hostile", "unfriendly", "neutral", "friendly", "helpful")

#: Each extra thing done at once costs this on every check involved.
MULTIPLE_ACTION_DM = -2

#: Characteristic score -> DM, upper bound of each row (the last row has none).
CHARACTERISTIC_ROWS = ((0, -3), (2, -2), (5, -1), (8, 0), (11, 1), (14, 2))
CHARACTERISTIC_TOP = 3

#: Law level -> difficulty rung, upper bound of each row (the last row has none).
LAW_ROWS = ((0, "routine"), (3, "average"), (6, "difficult"), (9, "very-difficult"))
LAW_TOP = "formidable"


def rung_name(text: str) -> str:
    """A ladder rung typed any way (``Very Difficult``, ``very_difficult``) as its key."""
    return "-".join(text.lower().replace("_", " ").replace("-", " ").split())


def difficulty(value: Any, name: str = "difficulty") -> tuple[str, int]:
    """(rung, DM) from a rung's name or its DM; None is Average."""
    if value is None:
        return "average", 0
    rungs = ", ".join(f"{k} {v:+d}" for k, v in LADDER.items())
    if isinstance(value, str):
        key = rung_name(value)
        if key in LADDER:
            return key, LADDER[key]
        try:
            value = int(value)
        except ValueError:
            raise RuleError(f"{name}: {value!r} is not a rung of the ladder ({rungs})") from None
    if isinstance(value, bool) or not isinstance(value, int) or value not in RUNG_OF_DM:
        raise RuleError(f"{name}: {value!r} is not a rung of the ladder ({rungs})")
    return RUNG_OF_DM[value], value


def circumstance(value: Any, name: str = "circumstance") -> int:
    """A situational DM: one point either way; anything bigger is difficulty."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{name}: expected -1, 0 or 1, got {value!r}")
    if value not in CIRCUMSTANCES:
        raise RuleError(
            f"{name}: {value:+d} is more than one point either way; a bigger shift is difficulty "
            "(set it on the ladder: simple +6 ... average 0 ... formidable -6)"
        )
    return value


def characteristic_dm(score: int) -> int:
    """The DM a characteristic score gives."""
    for upper, dm in CHARACTERISTIC_ROWS:
        if score <= upper:
            return dm
    return CHARACTERISTIC_TOP


def law_difficulty(level: int) -> tuple[str, int]:
    """The difficulty a world's law level sets for a task that runs into it."""
    for upper, rung in LAW_ROWS:
        if level <= upper:
            return rung, LADDER[rung]
    return LAW_TOP, LADDER[LAW_TOP]


def multiple_action_dm(actions: int) -> int:
    """The DM on every check when doing ``actions`` things at once."""
    return MULTIPLE_ACTION_DM * (actions - 1)


def band(effect: int) -> str:
    if effect >= 6:
        return "exceptional-success"
    if effect >= 0:
        return "success"
    if effect > -6:
        return "failure"
    return "exceptional-failure"


def judge(faces: list[int], modifier: int) -> tuple[int, int, bool, str]:
    """(total, effect, success, band) of two d6 and the sum of every DM; no natural rolls."""
    total = sum(faces) + modifier
    effect = total - TARGET
    return total, effect, effect >= 0, band(effect)


def odds(modifier: int) -> tuple[Fraction, dict[str, Fraction]]:
    """Exact chance of success and of each band, over the 36 rolls of 2D6."""
    counts = dict.fromkeys(BANDS, 0)
    for faces in product(range(1, 7), repeat=2):
        counts[judge(list(faces), modifier)[3]] += 1
    bands = {k: Fraction(v, 36) for k, v in counts.items()}
    return bands["exceptional-success"] + bands["success"], bands


def opposed_odds(mod_a: int, mod_b: int) -> dict[str, Fraction]:
    """Exact chances that a's Effect beats b's, the reverse, or they tie."""
    counts = {"a": 0, "b": 0, "tie": 0}
    for fa in product(range(1, 7), repeat=2):
        ea = sum(fa) + mod_a
        for fb in product(range(1, 7), repeat=2):
            eb = sum(fb) + mod_b
            counts["a" if ea > eb else "b" if eb > ea else "tie"] += 1
    return {k: Fraction(v, 1296) for k, v in counts.items()}


def opposed_winner(effect_a: int, effect_b: int) -> str | None:
    if effect_a == effect_b:
        return None
    return "a" if effect_a > effect_b else "b"


def disposition(value: Any, name: str = "disposition") -> str:
    """A disposition typed in any case (``Friendly``) as its key."""
    key = " ".join(value.lower().split()) if isinstance(value, str) else value
    if key not in DISPOSITIONS:
        raise RuleError(f"{name}: {value!r} is not one of {', '.join(DISPOSITIONS)}")
    return str(key)


def assist_refusal(disposition_: str, skill_level: int | None, needs_skill: bool) -> str | None:
    """Why a would-be helper declines (a phrase after their name), or None when they help."""
    if DISPOSITIONS.index(disposition_) < DISPOSITIONS.index("friendly"):
        return f"is {disposition_}: only someone friendly or closer lends a hand"
    if needs_skill and skill_level is None:
        return "does not know the skill and begs off rather than make a hash of it"
    return None


def skill_brought(disposition_: str, level: int) -> int:
    """A friendly helper holds back to one level; a helpful one brings everything."""
    return min(level, 1) if disposition_ == "friendly" else level
