"""d100-under rules: targets, the percentile read from two d10, criticals, opposed checks, odds.

Pure functions of numbers; the system module turns commands into events with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...dice import Dice, TypedDice
from ...errors import RuleError
from ...inputs import is_whole_in

#: The two readings of the critical range (see the rules document).
CRIT_READINGS = ("table", "example")

#: The lowest attribute rating a sheet may hold: (5 + rating) x 5 must not go below 0.
MIN_RATING = -5

#: The highest target margin takes, and the rating that gives it; anything past 99 only
#: matters for the margin, so this bound only keeps a typo from reaching the log.
MAX_TARGET = 1000
MAX_RATING = MAX_TARGET // 5 - 5

#: The highest roll that can succeed other than by 01: 00 (100) always fails.
TOP_ROLL = 99


def rating_target(rating: int) -> int:
    """The target an attribute rating gives on its own (raw or unskilled)."""
    return (5 + rating) * 5


def read_percentile(tens: int, ones: int) -> int:
    """The percentile two d10 faces read as: tens and ones, 0,0 is 100."""
    value = tens * 10 + ones
    return 100 if value == 0 else value


def faces_of(roll: int) -> list[int]:
    """The tens and ones faces that read as ``roll`` (1..100)."""
    value = roll % 100
    return [value // 10, value % 10]


def crit_range(target: int) -> int:
    """Points of critical range a target's bracket gives (one per full quarter above the first)."""
    if target <= 25:
        return 0
    if target <= 50:
        return 1
    if target <= 75:
        return 2
    return 3


def crit_window(target: int, reading: str) -> tuple[int, int] | None:
    """The rolls (low, high) that are criticals besides 01, or None when only 01 is.

    The table reading counts the target itself as the first point of range;
    the example reading adds the range below the target.
    """
    points = crit_range(target)
    if reading == "table":
        if points == 0:
            return None
        low = target - points + 1
    else:
        low = target - points
    high = min(target, TOP_ROLL)
    low = max(low, 1)
    return (low, high) if low <= high else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A percentile roll judged against a target."""

    target: int
    roll: int
    success: bool
    critical: bool
    fumble: bool
    margin: int
    crit_range: int

    @property
    def band(self) -> str:
        return band_of(self.success, self.critical, self.fumble)


def band_of(success: bool, critical: bool, fumble: bool) -> str:
    """The band a judged roll falls in: a fumble or a critical before plain success."""
    if fumble:
        return "fumble"
    if critical:
        return "critical"
    return "success" if success else "failure"


def recorded_band(judged: Mapping[str, Any]) -> str:
    """The band of a check, or a side of an opposed one, as its event (a dict) records it."""
    return band_of(
        bool(judged.get("success")), bool(judged.get("critical")), bool(judged.get("fumble"))
    )


def judge(target: int, roll: int, reading: str = "table") -> Outcome:
    """Judge ``roll`` (1..100) against ``target``: 01 always succeeds, 00 always fails."""
    fumble = roll == 100
    success = not fumble and (roll == 1 or roll <= target)
    window = crit_window(target, reading)
    critical = roll == 1 or (success and window is not None and window[0] <= roll <= window[1])
    return Outcome(
        target=target,
        roll=roll,
        success=success,
        critical=critical,
        fumble=fumble,
        margin=target - roll,
        crit_range=crit_range(target),
    )


#: Band names in order, best first.
BANDS = ("critical", "success", "failure", "fumble")


def odds(target: int, reading: str = "table") -> dict[str, Fraction]:
    """Exact chance of each band, by counting the hundred equally likely rolls."""
    counts = dict.fromkeys(BANDS, 0)
    for roll in range(1, 101):
        counts[judge(target, roll, reading).band] += 1
    return {band: Fraction(n, 100) for band, n in counts.items()}


def success_chance(target: int) -> Fraction:
    return Fraction(sum(1 for r in range(1, 101) if judge(target, r).success), 100)


def opposed_winner(a: Outcome, b: Outcome) -> str | None:
    """``"a"``, ``"b"`` or None (stalemate): success beats failure, then the larger margin."""
    if a.success and b.success:
        if a.margin == b.margin:
            return None
        return "a" if a.margin > b.margin else "b"
    if a.success:
        return "a"
    if b.success:
        return "b"
    return None


#: Opposed outcome names in order, for odds.
OPPOSED_BANDS = ("a wins", "b wins", "stalemate", "escalation")


def opposed_odds(target_a: int, target_b: int) -> dict[str, Fraction]:
    """Exact chances of an opposed check, over the 10,000 pairs of rolls."""
    counts = dict.fromkeys(OPPOSED_BANDS, 0)
    judged_b = [judge(target_b, r) for r in range(1, 101)]
    for ra in range(1, 101):
        oa = judge(target_a, ra)
        for ob in judged_b:
            winner = opposed_winner(oa, ob)
            if winner is None:
                # nobody wins: both succeeded alike (a stalemate) or both failed (escalation)
                counts["stalemate" if oa.success else "escalation"] += 1
            else:
                counts[f"{winner} wins"] += 1
    return {k: Fraction(v, 10_000) for k, v in counts.items()}


# -- reading dice ---------------------------------------------------------------


def check_faces(name: str, faces: Any) -> list[int]:
    """Two typed d10 faces, tens then ones, each 0..9."""
    if not isinstance(faces, list) or len(faces) != 2:
        raise RuleError(f"{name}: expected two d10 faces [tens, ones], each 0..9 (0,0 reads 100)")
    for face in faces:
        if not is_whole_in(face, 0, 9):
            raise RuleError(f"{name}: {face!r} is not a d10 face here (0..9; 0,0 reads 100)")
    return list(faces)


def check_roll(name: str, roll: Any) -> int:
    if not is_whole_in(roll, 1, 100):
        raise RuleError(f"{name}: expected a percentile roll 1..100, got {roll!r}")
    return roll


def percentile(
    dice: Dice, faces: Any = None, roll: Any = None, name: str = ""
) -> tuple[list[int], int, str]:
    """(faces, roll, source) from typed faces, a typed roll, or two d10 from ``dice``.

    Typed faces are read as 0..9 (physical d10s show 0); margin's own d10s
    roll 1..10 and their 10 is read as 0. Typed faces wrapped by the caller
    in a ``TypedDice`` are released here, since they do not fit its 1..10 check.
    """
    prefix = f"{name}." if name else ""
    if faces is not None and roll is not None:
        raise RuleError(f"{prefix}faces, {prefix}roll: give the dice one way, not both")
    if faces is not None:
        return _typed_faces(dice, faces, f"{prefix}faces")
    if roll is not None:
        value = check_roll(f"{prefix}roll", roll)
        return faces_of(value), value, "typed"
    tens, ones = (f % 10 for f in dice.roll(10, 2))
    return [tens, ones], read_percentile(tens, ones), dice.source


def _typed_faces(dice: Dice, faces: Any, name: str) -> tuple[list[int], int, str]:
    """Typed faces read as a percentile roll; ``dice`` wrapping them lets them go."""
    read = check_faces(name, faces)
    if isinstance(dice, TypedDice) and dice.faces == faces:
        dice.release()
    return read, read_percentile(*read), "typed"
