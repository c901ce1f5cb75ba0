"""2d6-effect tasks: the time ladder, task time, time trading and written task statements."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RuleError
from . import effect_rules as rules

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
    if isinstance(rows, bool) or not isinstance(rows, int) or abs(rows) > MAX_TRADE:
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
        return rules.difficulty(int(bare.group(1)), name)
    if match is None or (match.group(1) is None and match.group(2) is None):
        return rules.difficulty(text, name)
    if match.group(1) is None:
        return rules.difficulty(int(match.group(2)), name)
    rung, dm = rules.difficulty(match.group(1), name)
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
    formal = body if colon else stripped
    parts = _split_top(formal)
    if len(parts) == 4:
        skill, characteristic, time, diff = parts
        if not skill or not characteristic:
            raise RuleError(f"{name}: a formal task names a skill and a characteristic")
        rung, dm = _rung(diff, name)
        return WrittenTask(
            description=head.strip() if colon else "",
            skill=skill,
            characteristic=characteristic,
            increment=increment(time, name),
            difficulty=rung,
            difficulty_dm=dm,
        )
    if len(parts) != 1:
        raise RuleError(
            f"{name}: {text!r} is neither 'Task: Skill, Characteristic, time, Difficulty' "
            "nor 'Difficulty (DM) Skill'"
        )
    informal = re.sub(r"^(an?\s+)", "", formal.strip(), flags=re.IGNORECASE)
    informal = re.sub(r"\s+(task|check)$", "", informal, flags=re.IGNORECASE)
    for rung in sorted(rules.LADDER, key=len, reverse=True):
        words = rung.replace("-", r"[\s_-]+")
        match = re.match(rf"({words})\s*(?:{_DM})?\s+(.+)$", informal, flags=re.IGNORECASE)
        if match is None:
            continue
        written_rung, dm = _rung(
            f"{match.group(1)}" + (f" ({match.group(2)})" if match.group(2) else ""), name
        )
        return WrittenTask(
            description=head.strip() if colon else "",
            skill=match.group(3).strip(),
            characteristic=None,
            increment=None,
            difficulty=written_rung,
            difficulty_dm=dm,
        )
    raise RuleError(
        f"{name}: {text!r} does not start with a difficulty (as in 'Difficult (-2) Engineering')"
    )
