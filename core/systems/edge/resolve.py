"""``margin resolve`` for 2d10-edge: check, odds, damage and damage-odds."""

from __future__ import annotations

from typing import Any

from ...dice import Dice
from ...errors import RuleError
from . import rules


def _helpers() -> Any:
    # core.resolve imports the system registry, which imports this module: import late.
    from ... import resolve

    return resolve


def take(fields: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    helpers = _helpers()
    required = {k: helpers.REQUIRED if v is _REQUIRED else v for k, v in spec.items()}
    return helpers.take(fields, required)  # type: ignore[no-any-return]


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return _helpers().integer(name, value, lo, hi)  # type: ignore[no-any-return]


def boolean(name: str, value: Any) -> bool:
    return _helpers().boolean(name, value)  # type: ignore[no-any-return]


_REQUIRED = object()

_CHECK = {
    "bonus": _REQUIRED,
    "tn": _REQUIRED,
    "advantage": 0,
    "disadvantage": 0,
    "remove_disadvantage": False,
    "edge": None,
}

_DAMAGE = {
    "dice": _REQUIRED,
    "bonus": 0,
    "melee": False,
    "mos": None,
    "edge_boost": False,
    "attack_edge": False,
    "extra_dice": 0,
    "pt": 0,
    "dr": 0,
    "pt_reduction": 0,
}


def _check_inputs(f: dict[str, Any]) -> tuple[str, int, int, bool]:
    bonus = integer("bonus", f["bonus"], -100, 200)
    tn, _ = rules.tn_value(f["tn"])
    adv = integer("advantage", f["advantage"], 0, 20)
    dis = integer("disadvantage", f["disadvantage"], 0, 20)
    remove = boolean("remove_disadvantage", f["remove_disadvantage"])
    edge = f["edge"]
    if edge is not None and edge not in rules.EDGE_USES:
        raise RuleError(f'edge: {edge!r} is not null, "advantage" or "remove-disadvantage"')
    mode = rules.check_mode(adv, dis, remove, edge)
    return mode, bonus, tn, edge is not None


def check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {**_CHECK, "faces": None, "keep": None})
    mode, bonus, tn, edge = _check_inputs(f)
    need = rules.dice_count(mode)
    if f["faces"] is not None and len(f["faces"]) != need:
        raise RuleError(f"faces: a {mode} check rolls {need} d10, {len(f['faces'])} faces given")
    keep = f["keep"]
    if keep is not None and (not isinstance(keep, list)):
        raise RuleError("keep: expected two indices into faces")
    faces = dice.roll(10, need)
    r = rules.resolve_check(faces, mode, bonus, tn, edge, keep)
    return {
        "mode": r.mode,
        "faces": list(r.faces),
        "keep": list(r.keep),
        "kept": r.kept,
        "double": r.double,
        "adjustment": r.adjustment,
        "total": r.total,
        "tn": tn,
        "mos": r.mos,
        "success": r.success,
        "band": r.band,
        "damage_dice": r.damage_dice,
    }


def odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, _CHECK)
    mode, bonus, tn, edge = _check_inputs(f)
    o = rules.check_odds(mode, bonus, tn, edge)
    return {
        "mode": mode,
        "success": float(o.success),
        "bands": {name: float(p) for name, p in o.bands.items()},
    }


def _pool(f: dict[str, Any]) -> tuple[rules.Pool, int, int, int]:
    base = integer("dice", f["dice"], 1, 30)
    bonus = integer("bonus", f["bonus"], -100, 200)
    melee = boolean("melee", f["melee"])
    mos = f["mos"]
    if mos is not None:
        mos = integer("mos", mos, -200, 200)
        if mos < 0:
            raise RuleError(f"mos: {mos} is a miss; a missed attack deals no damage")
    boost = boolean("edge_boost", f["edge_boost"])
    if boost and boolean("attack_edge", f["attack_edge"]):
        raise RuleError(
            "edge_boost: Edge was spent on the attack roll; it cannot also boost damage"
        )
    extra = integer("extra_dice", f["extra_dice"], 0, 20)
    pt = integer("pt", f["pt"], 0, 200)
    dr = integer("dr", f["dr"], 0, 100)
    reduction = integer("pt_reduction", f["pt_reduction"], 0, 200)
    return rules.damage_pool(base, bonus, melee, mos, boost, extra), pt, dr, reduction


def damage(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {**_DAMAGE, "faces": None})
    pool, pt, dr, reduction = _pool(f)
    if f["faces"] is not None and len(f["faces"]) != pool.dice:
        raise RuleError(
            f"faces: the pool {pool} rolls {pool.dice} d6, {len(f['faces'])} faces given"
        )
    faces = dice.roll(6, pool.dice)
    r = rules.apply_armor(sum(faces) + pool.bonus, pt, dr, reduction)
    return {
        "pool": {"dice": pool.dice, "bonus": pool.bonus},
        "faces": faces,
        "raw": r.raw,
        "effective_pt": r.pt,
        "penetrated": r.penetrated,
        "soaked": r.soaked,
        "taken": r.taken,
    }


def damage_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    """The exact distribution of damage taken after armor, before rolling."""
    f = take(fields, _DAMAGE)
    pool, pt, dr, reduction = _pool(f)
    dist = rules.taken_distribution(pool, pt, dr, reduction)
    penetrate = sum((p for t, p in dist.items() if t > 0), start=rules.Fraction(0))
    mean = sum((t * p for t, p in dist.items()), start=rules.Fraction(0))
    return {
        "pool": {"dice": pool.dice, "bonus": pool.bonus},
        "any_damage": float(penetrate),
        "mean_taken": float(mean),
        "taken": {str(t): float(p) for t, p in dist.items()},
    }


RESOLVE = {"check": check, "odds": odds, "damage": damage, "damage-odds": damage_odds}
