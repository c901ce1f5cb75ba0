"""d100-chance arithmetic: checks, bands, attack gates, the damage pipeline, effects.

Pure functions shared by the table's commands and by ``margin resolve``; no
state, no dice. Damage is computed in exact fractions and rounded once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...errors import RuleError

#: Named situational modifiers of a skill check and their points.
MODIFIERS: dict[str, int] = {
    "proper-tools": 10,
    "ideal-conditions": 10,
    "helper": 10,
    "blueprint": 10,
    "no-tools": -30,
    "rushed": -20,
    "under-fire": -20,
}
MAX_HELPERS = 2
AUTO_LEAD = 25
CHANCE_FLOOR = 5
CHANCE_CEILING = 95

#: Bands of a check, best first.
BANDS = ("clean-success", "success", "recoverable-failure", "setback")

#: Difficulty ladder: (highest difficulty of the band, name).
DIFFICULTY_LADDER = (
    (10, "effortless"),
    (25, "easy"),
    (40, "moderate"),
    (60, "challenging"),
    (80, "hard"),
    (100, "extreme"),
)

#: Damage range profiles: name -> (min percent, max percent).
PROFILES: dict[str, tuple[int, int]] = {
    "standard": (50, 100),
    "calibrated": (65, 95),
    "high-power": (35, 110),
    "focused": (70, 90),
    "volatile": (25, 115),
}

#: Position of an attacker: (damage bonus percent, evasion lost).
POSITIONS: dict[str, tuple[int, int]] = {"front": (0, 0), "side": (15, 15), "rear": (25, 30)}
SURROUND_STEP = 5
UNAWARE_MIN, UNAWARE_MAX = 50, 100
MIN_CRIT_MULTIPLIER = Fraction(3, 2)

#: Attack types and the stats that scale their damage (mutant powers name their own).
ATTACK_TYPES: dict[str, tuple[str, ...]] = {
    "melee": ("str",),
    "ranged": ("dex",),
    "magic": ("int", "wis"),
    "mutant": (),
}
BASE_ACCURACY = 70


def difficulty_band(difficulty: int) -> str:
    """The ladder name of a difficulty (1..100)."""
    for top, name in DIFFICULTY_LADDER:
        if difficulty <= top:
            return name
    return DIFFICULTY_LADDER[-1][1]


def _middles() -> dict[str, int]:
    out, low = {}, 1
    for top, name in DIFFICULTY_LADDER:
        out[name] = (low + top) // 2
        low = top + 1
    return out


#: A difficulty named by its band: the middle of the band, halves rounded down.
DIFFICULTY_MIDDLES: dict[str, int] = _middles()


def difficulty_value(value: int | str, field: str = "difficulty") -> int:
    """A difficulty given as 1..100 or as a band's name (its middle value)."""
    if isinstance(value, str):
        name = value.strip().lower()
        if name in DIFFICULTY_MIDDLES:
            return DIFFICULTY_MIDDLES[name]
        if not name.isdigit():
            names = ", ".join(f"{n} {v}" for n, v in DIFFICULTY_MIDDLES.items())
            raise RuleError(f"{field}: {value!r} is not a difficulty (1..100, or a band: {names})")
        value = int(name)
    if isinstance(value, bool) or not 1 <= value <= 100:
        raise RuleError(f"{field}: {value} is out of range (1..100)")
    return value


def clamp(value: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, value))


def modifier_total(names: Sequence[str], field: str = "modifiers") -> tuple[int, list[str]]:
    """Points of a list of modifier names, and the names that counted.

    Helpers beyond the second do not count; other names may appear once, and
    ``proper-tools`` and ``no-tools`` exclude each other.
    """
    counted: list[str] = []
    helpers = 0
    for name in names:
        if name not in MODIFIERS:
            raise RuleError(
                f"{field}: {name!r} is not a modifier (modifiers: {', '.join(MODIFIERS)})"
            )
        if name == "helper":
            helpers += 1
            if helpers > MAX_HELPERS:
                continue
        elif name in counted:
            raise RuleError(f"{field}: {name!r} is listed twice (only helper may repeat)")
        counted.append(name)
    if "proper-tools" in counted and "no-tools" in counted:
        raise RuleError(f"{field}: proper-tools and no-tools exclude each other")
    return sum(MODIFIERS[n] for n in counted), counted


@dataclass(frozen=True, slots=True)
class CheckOdds:
    """A skill check before the roll: its chance, and whether it is automatic."""

    lead: int
    modifiers: int
    chance: int
    automatic: bool


def check_odds(proficiency: int, difficulty: int, modifiers: int) -> CheckOdds:
    lead = proficiency - difficulty
    chance = clamp(55 + lead * 2 + modifiers, CHANCE_FLOOR, CHANCE_CEILING)
    return CheckOdds(lead, modifiers, chance, lead >= AUTO_LEAD)


def band_of(margin: int) -> str:
    """The outcome band of a rolled check from ``margin = chance - roll``."""
    if margin >= 10:
        return "clean-success"
    if margin >= 0:
        return "success"
    if margin >= -10:
        return "recoverable-failure"
    return "setback"


#: The band of a check that needed no roll.
AUTOMATIC_BAND = "success"


@dataclass(frozen=True, slots=True)
class Rolled:
    """What a check came to: its d100 against the chance, ``margin = chance - roll``, and
    the success and band of that margin (no roll and no margin: an automatic success)."""

    roll: int | None
    success: bool
    margin: int | None
    band: str

    def recorded(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: A check that needed no roll.
AUTOMATIC = Rolled(None, True, None, AUTOMATIC_BAND)


def rolled(chance: int, roll: int) -> Rolled:
    """A d100 ``roll`` against ``chance``."""
    margin = chance - roll
    return Rolled(roll, margin >= 0, margin, band_of(margin))


def band_probabilities(chance: int) -> dict[str, Fraction]:
    """Exact chance of each band for a d100 roll against ``chance``."""
    clean = max(0, chance - 10)
    success = chance - clean
    recoverable = min(100, chance + 10) - chance
    setback = 100 - chance - recoverable
    return {
        "clean-success": Fraction(clean, 100),
        "success": Fraction(success, 100),
        "recoverable-failure": Fraction(recoverable, 100),
        "setback": Fraction(setback, 100),
    }


def opposed_winner(a_margin: int | None, b_margin: int | None) -> str:
    """``"a"`` (the actor) or ``"b"`` (the defender) from each side's margin.

    A success (margin >= 0) beats a failure; two successes go to the larger
    margin; ties and double failures go to the defender.
    """
    a_ok = a_margin is not None and a_margin >= 0
    b_ok = b_margin is not None and b_margin >= 0
    if a_ok and (not b_ok or (a_margin or 0) > (b_margin or 0)):
        return "a"
    return "b"


# -- attacks --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Gates:
    """The two gates of an attack before they are rolled."""

    evasion: int
    hit_chance: int
    dodge_chance: int
    can_dodge: bool


def gates(
    accuracy: int, evasion: int, position: str, extra_attackers: int, can_dodge: bool
) -> Gates:
    """Hit and dodge chances; the target's evasion loses its position and surround penalties."""
    if position not in POSITIONS:
        raise RuleError(f"position: {position!r} is not one of {', '.join(POSITIONS)}")
    if extra_attackers < 0:
        raise RuleError(f"extra_attackers: {extra_attackers} is below 0")
    effective = evasion - POSITIONS[position][1] - SURROUND_STEP * extra_attackers
    hit = clamp(accuracy - effective, CHANCE_FLOOR, CHANCE_CEILING)
    dodge = clamp(effective, 0, CHANCE_CEILING) if can_dodge else 0
    return Gates(effective, hit, dodge, can_dodge)


def connect_probability(g: Gates) -> Fraction:
    return Fraction(g.hit_chance, 100) * (1 - Fraction(g.dodge_chance, 100))


# -- damage -----------------------------------------------------------------------


def exact(value: int | float | Fraction) -> Fraction:
    """A number as an exact fraction (floats through their shortest decimal form)."""
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def round_half_up(value: Fraction) -> int:
    return int((value + Fraction(1, 2)).__floor__())


def show(value: Fraction) -> str:
    """A fraction for the breakdown: whole numbers plain, others to two places."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}"


@dataclass(frozen=True, slots=True)
class Damage:
    """The pipeline's result and every step of it, for the GM's breakdown."""

    damage: int
    steps: tuple[tuple[str, str], ...]
    base: Fraction


def _one_of(field: str, value: str, known: Mapping[str, Any]) -> None:
    if value not in known:
        raise RuleError(f"{field}: {value!r} is not one of {', '.join(known)}")


def _at_least(field: str, value: int | float | Fraction, floor: Fraction, said: str) -> Fraction:
    """``value`` as an exact number, refused below ``floor`` (``said`` as the error says it)."""
    number = exact(value)
    if number < floor:
        raise RuleError(f"{field}: {show(number)} is below {said}")
    return number


def _check_unaware(percent: int) -> None:
    """The bonus of striking an unaware target: none (0), or within its bounds."""
    if percent and not UNAWARE_MIN <= percent <= UNAWARE_MAX:
        raise RuleError(f"unaware_percent: {percent} must be 0 or {UNAWARE_MIN}..{UNAWARE_MAX}")


def _resistance(percent: int | float | Fraction) -> Fraction:
    """A resistance as an exact percentage, -100 (double damage) to 100 (immune)."""
    res = exact(percent)
    if not -100 <= res <= 100:
        raise RuleError(f"resistance_percent: {show(res)} is out of range (-100..100)")
    return res


def damage_pipeline(
    base: int | float | Fraction,
    scaling: int | float | Fraction,
    profile: str,
    range_percent: int | None,
    crit: bool,
    crit_multiplier: int | float | Fraction,
    vitals: int | float | Fraction,
    position: str,
    unaware_percent: int,
    armor: int | float | Fraction,
    resistance_percent: int | float | Fraction,
    pierce: int | float | Fraction = 0,
) -> Damage:
    """The seven steps, in order: base, range or crit, vitals, position and surprise, armor
    (less the weapon's pierce), resistance, then one rounding half up and a floor of 1."""
    _one_of("profile", profile, PROFILES)
    _one_of("position", position, POSITIONS)
    mult = _at_least("crit_multiplier", crit_multiplier, MIN_CRIT_MULTIPLIER, "the floor of 1.5")
    _check_unaware(unaware_percent)
    vit = _at_least("vitals", vitals, Fraction(1), "1 (1 is no called shot)")
    arm = _at_least("armor", armor, Fraction(0), "0")
    pierced = _at_least("pierce", pierce, Fraction(0), "0")
    res = _resistance(resistance_percent)
    crit = crit or unaware_percent > 0
    b = exact(base) + exact(scaling)
    steps: list[tuple[str, str]] = [
        ("base", f"{show(exact(base))} + {show(exact(scaling))} = {show(b)}")
    ]
    d, step = _crit_or_range(b, mult) if crit else _at_range(b, profile, range_percent)
    steps.append(step)
    if vit != 1:
        d *= vit
        steps.append(("vitals", f"x {show(vit)} = {show(d)}"))
    bonus = POSITIONS[position][0] + unaware_percent
    if bonus:
        d *= 1 + Fraction(bonus, 100)
        steps.append(("position", f"+{bonus}% = {show(d)}"))
    if arm:
        d, step = _through_armor(d, arm, pierced)
        steps.append(step)
    if res:
        d *= 1 - res / 100
        steps.append(("resistance", f"{show(res)}% = {show(d)}"))
    final = max(1, round_half_up(d))
    steps.append(("final", f"rounded half up, at least 1 = {final}"))
    return Damage(final, tuple(steps), b)


def _crit_or_range(b: Fraction, mult: Fraction) -> tuple[Fraction, tuple[str, str]]:
    d = b * mult
    return d, ("crit", f"x {show(mult)} = {show(d)}")


def _at_range(
    b: Fraction, profile: str, range_percent: int | None
) -> tuple[Fraction, tuple[str, str]]:
    """Damage at a range, a percent within the weapon's profile."""
    lo, hi = PROFILES[profile]
    if range_percent is None or not lo <= range_percent <= hi:
        raise RuleError(f"range_percent: {range_percent!r} is not in {profile}'s {lo}..{hi}")
    d = b * range_percent / 100
    return d, ("range", f"x {range_percent}% = {show(d)}")


def _through_armor(
    d: Fraction, arm: Fraction, pierced: Fraction
) -> tuple[Fraction, tuple[str, str]]:
    """Damage through armor ``arm`` less the weapon's pierce: a cut of worn/(worn+100)."""
    worn = max(Fraction(0), arm - pierced)
    if not worn:
        return d, ("armor", f"{show(arm)} - {show(pierced)} pierce: no cut")
    d *= 1 - worn / (worn + 100)
    less = f" - {show(pierced)} pierce" if pierced else ""
    cut = show(100 * worn / (worn + 100))
    return d, ("armor", f"{show(arm)}{less}: -{cut}% = {show(d)}")


def scaling_of(stats: dict[str, int], attack_type: str, governing: Iterable[str] = ()) -> int:
    """Stat scaling of an attack: the sum of the stats its type (or power) names."""
    names = tuple(governing) if attack_type == "mutant" else ATTACK_TYPES[attack_type]
    return sum(stats.get(n, 0) for n in names)


# -- status effects ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Landing:
    landed: bool
    gap: int
    turns: int
    stacks: int


def landing(potency: int, resistance: int, duration_step: int, intensity_step: int) -> Landing:
    """Potency against resistance: lands iff it is higher, scaled by the gap."""
    gap = potency - resistance
    if gap <= 0:
        return Landing(False, gap, 0, 0)
    return Landing(True, gap, 1 + gap // duration_step, 1 + gap // intensity_step)


def percent_of(percent: int, whole: int, stacks: int = 1) -> int:
    """``percent`` of ``whole`` per stack, rounded half up, at least 1."""
    return max(1, round_half_up(Fraction(percent * stacks * whole, 100)))
