"""``margin resolve`` for 2d10-edge: check, odds, damage and damage-odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ...dice import Dice
from ...errors import RuleError
from ...inputs import read_as
from . import rules


class OddsRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A check to give the odds of: the skill bonus, the TN and the sources of its mode."""

    bonus: Annotated[int, Meta(ge=-100, le=200)]
    tn: int | str
    advantage: Annotated[int, Meta(ge=0, le=20)] = 0
    disadvantage: Annotated[int, Meta(ge=0, le=20)] = 0
    remove_disadvantage: bool = False
    edge: Literal["advantage", "remove-disadvantage"] | None = None


class CheckRequest(OddsRequest, kw_only=True):
    """A check to roll, with the faces rolled at the table if given."""

    faces: list[int] | None = None
    #: two indices into the faces to keep
    keep: list[int] | None = None


class DamageOddsRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A damage pool against armor: the pool's dice and bonus, its extras, the armor."""

    dice: Annotated[int, Meta(ge=1, le=30)]
    bonus: Annotated[int, Meta(ge=-100, le=200)] = 0
    melee: bool = False
    mos: Annotated[int, Meta(ge=-200, le=200)] | None = None
    edge_boost: bool = False
    attack_edge: bool = False
    extra_dice: Annotated[int, Meta(ge=0, le=20)] = 0
    pt: Annotated[int, Meta(ge=0, le=200)] = 0
    dr: Annotated[int, Meta(ge=0, le=100)] = 0
    pt_reduction: Annotated[int, Meta(ge=0, le=200)] = 0


class DamageRequest(DamageOddsRequest, kw_only=True):
    faces: list[int] | None = None


def _check_inputs(f: OddsRequest) -> tuple[str, int, int, bool]:
    tn, _ = rules.tn_value(f.tn)
    mode = rules.check_mode(f.advantage, f.disadvantage, f.remove_disadvantage, f.edge)
    return mode, f.bonus, tn, f.edge is not None


def _rolled(dice: Dice, faces: list[int] | None, sides: int, count: int, what: str) -> list[int]:
    """``count`` dice of ``sides`` from ``dice``, refusing typed ``faces`` of another count
    (``what``: the roll that takes them)."""
    if faces is not None and len(faces) != count:
        raise RuleError(f"faces: {what} rolls {count} d{sides}, {len(faces)} faces given")
    return dice.roll(sides, count)


def check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, CheckRequest)
    mode, bonus, tn, edge = _check_inputs(f)
    faces = _rolled(dice, f.faces, 10, rules.dice_count(mode), f"a {mode} check")
    r = rules.resolve_check(faces, mode, bonus, tn, edge, f.keep)
    return {**r.recorded(), "tn": tn}


def odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    mode, bonus, tn, edge = _check_inputs(read_as(fields, OddsRequest))
    o = rules.check_odds(mode, bonus, tn, edge)
    return {
        "mode": mode,
        "success": float(o.success),
        "bands": {name: float(p) for name, p in o.bands.items()},
    }


def _pool(f: DamageOddsRequest) -> tuple[rules.Pool, int, int, int]:
    if f.mos is not None and f.mos < 0:
        raise RuleError(f"mos: {f.mos} is a miss; a missed attack deals no damage")
    if f.edge_boost and f.attack_edge:
        raise RuleError(
            "edge_boost: Edge was spent on the attack roll; it cannot also boost damage"
        )
    pool = rules.damage_pool(f.dice, f.bonus, f.melee, f.mos, f.edge_boost, f.extra_dice)
    return pool, f.pt, f.dr, f.pt_reduction


def damage(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = read_as(fields, DamageRequest)
    pool, pt, dr, reduction = _pool(f)
    faces = _rolled(dice, f.faces, 6, pool.dice, f"the pool {pool}")
    r = rules.apply_armor(sum(faces) + pool.bonus, pt, dr, reduction)
    return {
        "pool": {"dice": pool.dice, "bonus": pool.bonus},
        "faces": faces,
        "effective_pt": r.pt,
        **r.recorded(),
    }


def damage_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    """The exact distribution of damage taken after armor, before rolling."""
    pool, pt, dr, reduction = _pool(read_as(fields, DamageOddsRequest))
    dist = rules.taken_distribution(pool, pt, dr, reduction)
    penetrate = sum((p for t, p in dist.items() if t > 0), start=Fraction(0))
    mean = sum((t * p for t, p in dist.items()), start=Fraction(0))
    return {
        "pool": {"dice": pool.dice, "bonus": pool.bonus},
        "any_damage": float(penetrate),
        "mean_taken": float(mean),
        "taken": {str(t): float(p) for t, p in dist.items()},
    }


RESOLVE = {"check": check, "odds": odds, "damage": damage, "damage-odds": damage_odds}
