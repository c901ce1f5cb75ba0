"""2d6-effect rules: the check total, Effect and its bands, the ladders and tables, odds.

Pure functions of numbers; the system module turns commands into events with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

from ...errors import RuleError
from ...inputs import is_whole, is_whole_in

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
    if not is_whole(value) or value not in RUNG_OF_DM:
        raise RuleError(f"{name}: {value!r} is not a rung of the ladder ({rungs})")
    return RUNG_OF_DM[value], value


def circumstance(value: Any, name: str = "circumstance") -> int:
    """A situational DM: one point either way; anything bigger is difficulty."""
    if not is_whole(value):
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


# -- tasks: the time ladder, task time, time trading and written task statements --

#: The rows of the time ladder, fastest first: a task takes 1D6 of its increment.
INCREMENTS: dict[str, int] = {
    "seconds": 1,
    "10-seconds": 10,
    "minutes": 60,
    "10-minutes": 600,
    "hours": 3600,
    "4-hours": 4 * 3600,
    "10-hours": 10 * 3600,
    "days": 86400,
}
ROWS = tuple(INCREMENTS)

#: A combat action takes one round of six seconds, never a rolled time.
ROUND_SECONDS = 6

#: Time trading moves at most this many rows either way.
MAX_TRADE = 2

_UNIT = {
    "second": "seconds",
    "seconds": "seconds",
    "minute": "minutes",
    "minutes": "minutes",
    "hour": "hours",
    "hours": "hours",
    "day": "days",
    "days": "days",
}


def increment(text: str, name: str = "increment") -> str:
    """A time increment typed any way (``minutes``, ``1D6x10 minutes``, ``4 hours``) as its row."""
    low = text.lower().replace("×", "x").replace("*", "x")
    low = re.sub(r"\b1?d6\s*x?\s*", "", low).strip()
    match = re.fullmatch(r"(?:(\d+)[\s-]*)?([a-z]+)", low)
    if match is not None and match.group(2) in _UNIT:
        unit = _UNIT[match.group(2)]
        key = unit if match.group(1) in (None, "1") else f"{match.group(1)}-{unit}"
        if key in INCREMENTS:
            return key
    raise RuleError(f"{name}: {text!r} is not a row of the time ladder ({', '.join(ROWS)})")


def trade(row: str, rows: int) -> tuple[str, int]:
    """The increment after trading ``rows`` (negative: faster) and the DM it gives."""
    if not is_whole_in(rows, -MAX_TRADE, MAX_TRADE):
        raise RuleError(
            f"time_rows: {rows!r} is not a trade (-2..2 rows: negative works faster at -1 a row)"
        )
    index = ROWS.index(row) + rows
    if not 0 <= index < len(ROWS):
        raise RuleError(
            f"time_rows: {rows:+d} from {row} runs off the time ladder ({', '.join(ROWS)})"
        )
    return ROWS[index], rows


def duration(row: str, die: int) -> int:
    """Seconds a task takes: the 1D6 rolled times its increment."""
    return die * INCREMENTS[row]


def show_seconds(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


@dataclass(frozen=True, slots=True)
class WrittenTask:
    """A task statement read apart: what it needs, and what the GM still has to supply."""

    description: str
    skill: str
    characteristic: str | None
    increment: str | None
    difficulty: str
    difficulty_dm: int


_DM = r"\(\s*([+-]?\d+)\s*\)"


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses (a skill may carry a speciality in them)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _rung(text: str, name: str) -> tuple[str, int]:
    """A difficulty written ``Very Difficult (-4)``, ``Difficult``, ``(-2)`` or ``-2``."""
    match = re.fullmatch(rf"\s*([A-Za-z][A-Za-z _-]*?)?\s*(?:{_DM})?\s*", text)
    bare = re.fullmatch(r"\s*([+-]?\d+)\s*", text)
    if bare is not None:
        return difficulty(int(bare.group(1)), name)
    if match is None or (match.group(1) is None and match.group(2) is None):
        return difficulty(text, name)
    if match.group(1) is None:
        return difficulty(int(match.group(2)), name)
    rung, dm = difficulty(match.group(1), name)
    if match.group(2) is not None and int(match.group(2)) != dm:
        raise RuleError(
            f"{name}: {text.strip()!r} gives {rung} a DM of {match.group(2)}; it is {dm:+d}"
        )
    return rung, dm


def parse(text: str) -> WrittenTask:
    """Read a formal (``Desc: Skill, CHAR, time, Difficulty (DM)``) or informal task statement."""
    name = "written"
    stripped = text.strip()
    if not stripped:
        raise RuleError(f"{name}: the task statement is empty")
    head, colon, body = stripped.partition(":")
    description, formal = (head.strip(), body) if colon else ("", stripped)
    parts = _split_top(formal)
    if len(parts) == 4:
        return _formal(parts, description, name)
    if len(parts) != 1:
        raise RuleError(
            f"{name}: {text!r} is neither 'Task: Skill, Characteristic, time, Difficulty' "
            "nor 'Difficulty (DM) Skill'"
        )
    found = _informal(formal, description, name)
    if found is None:
        raise RuleError(
            f"{name}: {text!r} does not start with a difficulty (as in 'Difficult (-2) Engineering')"
        )
    return found


def _formal(parts: list[str], description: str, name: str) -> WrittenTask:
    """A formal task statement's four parts: skill, characteristic, time, difficulty."""
    skill, characteristic, time, diff = parts
    if not skill or not characteristic:
        raise RuleError(f"{name}: a formal task names a skill and a characteristic")
    rung, dm = _rung(diff, name)
    return WrittenTask(
        description=description,
        skill=skill,
        characteristic=characteristic,
        increment=increment(time, name),
        difficulty=rung,
        difficulty_dm=dm,
    )


def _informal(formal: str, description: str, name: str) -> WrittenTask | None:
    """An informal task statement (``a Difficult (-2) Engineering task``); None when it does
    not start with a difficulty."""
    informal = re.sub(r"^(an?\s+)", "", formal.strip(), flags=re.IGNORECASE)
    informal = re.sub(r"\s+(task|check)$", "", informal, flags=re.IGNORECASE)
    for rung in sorted(LADDER, key=len, reverse=True):
        words = rung.replace("-", r"[\s_-]+")
        match = re.match(rf"({words})\s*(?:{_DM})?\s+(.+)$", informal, flags=re.IGNORECASE)
        if match is None:
            continue
        written_rung, dm = _rung(
            f"{match.group(1)}" + (f" ({match.group(2)})" if match.group(2) else ""), name
        )
        return WrittenTask(
            description=description,
            skill=match.group(3).strip(),
            characteristic=None,
            increment=None,
            difficulty=written_rung,
            difficulty_dm=dm,
        )
    return None
