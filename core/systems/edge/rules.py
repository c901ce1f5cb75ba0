"""The arithmetic of 2d10-edge: checks, doubles, bands, odds, damage and armor.

Pure functions of numbers; the commands and the fold build on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

from ...errors import RuleError
from ...inputs import is_whole, is_whole_in

#: Difficulty ladder: name -> TN.
LADDER: dict[str, int] = {
    "very-easy": 10,
    "easy": 15,
    "moderate": 20,
    "challenging": 25,
    "difficult": 30,
    "very-difficult": 35,
    "near-impossible": 40,
}

#: Bands of the Margin of Success, best first.
BANDS: tuple[str, ...] = (
    "complete-success",
    "significant-success",
    "marginal-success",
    "marginal-failure",
    "significant-failure",
    "complete-failure",
)

#: Largest TN taken. The text sets no upper limit ("anything above 40 is virtually
#: impossible"); the odds show how impossible. This bound only keeps numbers storable.
MAX_TN = 1_000_000

#: Severity ladder of injuries, mildest first.
SEVERITIES: tuple[str, ...] = ("grazing", "moderate", "serious", "life-threatening", "fatal")


def tn_value(tn: object, field: str = "tn") -> tuple[int, str]:
    """A TN given as a number or a ladder name -> (TN, ladder name or "")."""
    if isinstance(tn, bool):
        raise RuleError(f"{field}: expected a number or a difficulty name, got {tn!r}")
    if isinstance(tn, int):
        if not 1 <= tn <= MAX_TN:
            raise RuleError(f"{field}: {tn} is out of range (1 or more, at most {MAX_TN})")
        return tn, ""
    found = _named_tn(tn, field) if isinstance(tn, str) else None
    if found is not None:
        return found
    names = ", ".join(f"{k} {v}" for k, v in LADDER.items())
    raise RuleError(f"{field}: {tn!r} is not a TN or a difficulty ({names})")


def _named_tn(tn: str, field: str) -> tuple[int, str] | None:
    """A TN typed as text: a rung of the ladder, or digits; None for anything else."""
    key = "-".join(tn.lower().replace("_", "-").split())
    if key == "impossible":
        raise RuleError(f"{field}: an impossible task cannot be attempted; it fails without a roll")
    if key in LADDER:
        return LADDER[key], key
    return tn_value(int(key), field) if key.isdigit() else None


def check_mode(
    advantage: int, disadvantage: int, remove_disadvantage: bool, edge: str | None
) -> str:
    """The dice mode of a check from counted sources, removals and Edge (which acts last)."""
    if advantage < 0 or disadvantage < 0:
        raise RuleError("advantage/disadvantage: source counts cannot be negative")
    if remove_disadvantage:
        disadvantage = 0
    # Advantage and Disadvantage cancel out, however many sources of each
    if bool(advantage) == bool(disadvantage):
        base = "normal"
    else:
        base = "advantage" if advantage else "disadvantage"
    return _with_edge(base, edge)


def _with_edge(base: str, edge: str | None) -> str:
    """The mode ``base`` after Edge spent on the roll: Advantage, or Disadvantage removed."""
    if not edge:
        return base
    if edge == "advantage":
        if base == "advantage":
            raise RuleError("edge: the check already has Advantage; Edge cannot add a second")
        return "normal" if base == "disadvantage" else "advantage"
    if edge == "remove-disadvantage":
        if base != "disadvantage":
            raise RuleError("edge: the check has no Disadvantage to remove")
        return "normal"
    raise RuleError(
        f"edge: {edge!r} is not a use of Edge on a roll (advantage, remove-disadvantage)"
    )


def dice_count(mode: str) -> int:
    return 2 if mode == "normal" else 3


def band_of(mos: int) -> str:
    if mos >= 10:
        return BANDS[0]
    if mos >= 5:
        return BANDS[1]
    if mos >= 0:
        return BANDS[2]
    if mos >= -5:
        return BANDS[3]
    if mos >= -10:
        return BANDS[4]
    return BANDS[5]


def damage_dice_of(mos: int) -> int:
    """Extra d6 an attack's MoS adds to the damage pool."""
    return 2 if mos >= 10 else 1 if mos >= 5 else 0


@dataclass(frozen=True, slots=True)
class CheckResult:
    mode: str
    faces: tuple[int, ...]
    keep: tuple[int, int]
    double: bool
    adjustment: int
    total: int
    mos: int
    success: bool
    band: str

    @property
    def kept(self) -> list[int]:
        return [self.faces[i] for i in self.keep]

    @property
    def damage_dice(self) -> int:
        return damage_dice_of(self.mos)

    def recorded(self) -> dict[str, Any]:
        """The dice and what they came to, by name, as a check's record and ``margin
        resolve`` both give them."""
        return {
            "mode": self.mode,
            "faces": list(self.faces),
            "keep": list(self.keep),
            "kept": self.kept,
            "double": self.double,
            "adjustment": self.adjustment,
            "total": self.total,
            "mos": self.mos,
            "success": self.success,
            "band": self.band,
            "damage_dice": self.damage_dice,
        }


def doubles_adjustment(a: int, b: int, bonus: int, tn: int, edge: bool) -> int:
    """What a kept pair adds to the total: +5, -5 or 0."""
    if a != b:
        return 0
    if a == 1:
        return 0 if edge else -5
    if edge or a == 10:
        return 5
    return 5 if a + b + bonus >= tn else -5


def outcome(
    mode: str, faces: Sequence[int], keep: tuple[int, int], bonus: int, tn: int, edge: bool
) -> CheckResult:
    """The result of keeping the pair ``keep`` of ``faces``."""
    a, b = faces[keep[0]], faces[keep[1]]
    adjustment = doubles_adjustment(a, b, bonus, tn, edge)
    total = a + b + bonus + adjustment
    mos = total - tn
    return CheckResult(
        mode, tuple(faces), keep, a == b, adjustment, total, mos, mos >= 0, band_of(mos)
    )


PAIRS: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 2))


def resolve_check(
    faces: Sequence[int],
    mode: str,
    bonus: int,
    tn: int,
    edge: bool,
    keep: Sequence[int] | None = None,
) -> CheckResult:
    """Resolve rolled faces: the default keep is the best (Advantage) or worst (Disadvantage) MoS."""
    need = _check_faces(faces, mode)
    if keep is not None:
        return outcome(mode, faces, _pair(keep, need), bonus, tn, edge)
    if mode == "normal":
        return outcome(mode, faces, (0, 1), bonus, tn, edge)
    results = [outcome(mode, faces, p, bonus, tn, edge) for p in PAIRS]
    best = max if mode == "advantage" else min
    return best(results, key=lambda r: r.mos)


def _check_faces(faces: Sequence[int], mode: str) -> int:
    """How many d10 a check of ``mode`` rolls, which ``faces`` must be."""
    need = dice_count(mode)
    if len(faces) != need:
        raise RuleError(f"faces: a {mode} check rolls {need}d10, {len(faces)} faces given")
    for f in faces:
        if not is_whole_in(f, 1, 10):
            raise RuleError(f"faces: {f!r} is not a face of a d10 (1..10)")
    return need


def _pair(keep: Sequence[int], dice: int) -> tuple[int, int]:
    """The two faces a check keeps, given as indices into its ``dice`` faces."""
    whole = all(is_whole(i) for i in keep)
    if len(keep) != 2 or not whole or not all(0 <= i < dice for i in keep) or keep[0] == keep[1]:
        raise RuleError(
            f"keep: {list(keep)!r} must be two different indices 0..{dice - 1} into faces"
        )
    return min(keep), max(keep)


@cache
def _mos_weights(mode: str, bonus: int, tn: int, edge: bool) -> tuple[tuple[int, int], ...]:
    weights: dict[int, int] = {}
    for faces in product(range(1, 11), repeat=dice_count(mode)):
        mos = resolve_check(faces, mode, bonus, tn, edge).mos
        weights[mos] = weights.get(mos, 0) + 1
    return tuple(sorted(weights.items()))


@dataclass(frozen=True, slots=True)
class CheckOdds:
    success: Fraction
    bands: dict[str, Fraction]


def check_odds(mode: str, bonus: int, tn: int, edge: bool) -> CheckOdds:
    """Exact chances of success and of each band, with the default keep choice."""
    weights = _mos_weights(mode, bonus, tn, edge)
    whole = 10 ** dice_count(mode)
    bands = dict.fromkeys(BANDS, Fraction(0))
    success = Fraction(0)
    for mos, w in weights:
        bands[band_of(mos)] += Fraction(w, whole)
        if mos >= 0:
            success += Fraction(w, whole)
    return CheckOdds(success, bands)


# -- damage -----------------------------------------------------------------


def strength_conversion(dice: int, bonus: int) -> tuple[int, int]:
    """A melee pool after converting 3 points of a bonus above 3 into 1d6, once per base die."""
    if bonus <= 3:
        return dice, bonus
    converted = 0
    while bonus >= 3 and converted < dice:
        bonus -= 3
        converted += 1
    return dice + converted, bonus


@dataclass(frozen=True, slots=True)
class Pool:
    dice: int
    bonus: int

    def __str__(self) -> str:
        if self.bonus > 0:
            return f"{self.dice}d6+{self.bonus}"
        if self.bonus < 0:
            return f"{self.dice}d6{self.bonus}"
        return f"{self.dice}d6"


def damage_pool(
    dice: int,
    bonus: int,
    melee: bool = False,
    mos: int | None = None,
    edge_boost: bool = False,
    extra_dice: int = 0,
) -> Pool:
    """Base dice (converted for melee), + MoS dice, + 2d6 Edge boost, + weapon extras."""
    if melee:
        dice, bonus = strength_conversion(dice, bonus)
    if mos is not None:
        dice += damage_dice_of(mos)
    if edge_boost:
        dice += 2
    return Pool(dice + extra_dice, bonus)


def round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest whole number, halves up (both >= 0)."""
    return (2 * numerator + denominator) // (2 * denominator)


@dataclass(frozen=True, slots=True)
class ArmorResult:
    raw: int
    pt: int
    penetrated: bool
    soaked: int
    taken: int

    def recorded(self) -> dict[str, Any]:
        """What the armor did to the blow, as a damage record and ``margin resolve`` both
        give it (the PT it met, less any reduction, is ``pt``: each names it its own way)."""
        return {
            "raw": self.raw,
            "penetrated": self.penetrated,
            "soaked": self.soaked,
            "taken": self.taken,
        }


def apply_armor(raw: int, pt: int = 0, dr: int = 0, pt_reduction: int = 0) -> ArmorResult:
    """Damage against PT/DR: below the (reduced) PT nothing gets through; else DR% is soaked."""
    raw = max(0, raw)
    effective = max(0, pt - pt_reduction)
    if raw < effective or raw == 0:
        return ArmorResult(raw, effective, False, raw, 0)
    soaked = round_half_up(raw * dr, 100)
    return ArmorResult(raw, effective, True, soaked, raw - soaked)


def taken_distribution(
    pool: Pool, pt: int = 0, dr: int = 0, pt_reduction: int = 0
) -> dict[int, Fraction]:
    """Exact distribution of damage taken after armor for a pool of d6."""
    weights: dict[int, int] = {0: 1}
    for _ in range(pool.dice):
        nxt: dict[int, int] = {}
        for s, w in weights.items():
            for f in range(1, 7):
                nxt[s + f] = nxt.get(s + f, 0) + w
        weights = nxt
    whole = 6**pool.dice
    out: dict[int, Fraction] = {}
    for s, w in weights.items():
        taken = apply_armor(s + pool.bonus, pt, dr, pt_reduction).taken
        out[taken] = out.get(taken, Fraction(0)) + Fraction(w, whole)
    return dict(sorted(out.items()))


# -- injuries, initiative, recovery ------------------------------------------


def severity_of(points: int, health: int) -> str:
    """Severity of one hit by its share of Health."""
    if health <= 0:
        return SEVERITIES[-1]
    share = Fraction(points, health)
    if share < Fraction(1, 10):
        return "grazing"
    if share < Fraction(1, 4):
        return "moderate"
    if share < Fraction(1, 2):
        return "serious"
    if share < 1:
        return "life-threatening"
    return "fatal"


def bracket_actions(initiative: int, brackets: bool) -> list[str]:
    """Actions a turn allows at an effective initiative (all three when brackets are off)."""
    if not brackets:
        return ["major", "move", "minor"]
    if initiative < 6:
        return ["major", "move"]
    if initiative <= 15:
        return ["major", "move", "minor"]
    if initiative <= 25:
        return ["major", "move", "minor", "bonus"]
    return ["major", "move", "minor", "bonus", "bonus"]


AWARD_SIZES = {"minor": 1, "major": 2, "boss": 3}


def award_amount(current: int, maximum: int, size: str) -> int:
    """Edge a complex-method award restores: max(1, round(gap x size / 3)), capped at the gap."""
    gap = maximum - current
    if gap <= 0:
        return 0
    return min(gap, max(1, round_half_up(gap * AWARD_SIZES[size], 3)))
