"""`margin resolve` for 2d10-edge: the contract, checked against an independent brute force."""

from __future__ import annotations

import io
import itertools
import json
import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import Band, band_of, margin_process

from margin.core.errors import RuleError
from margin.core.resolve import resolve
from margin.tui.table.resolve import run
from margin.tui.table.rng import RandomDice

#: The rules text's Margin of Success bands, each as the text words it.
MOS_BANDS: list[Band] = [
    (10, None, "complete-success"),  # "10 or more: Complete success."
    (5, 9, "significant-success"),  # "5 to 9: Significant Success."
    (0, 4, "marginal-success"),  # "0 to 4: Marginal (but still a success)."
    (-5, -1, "marginal-failure"),  # "-1 to -5: Marginal failure."
    (-10, -6, "significant-failure"),  # "-6 to -10: Significant failure."
    (None, -11, "complete-failure"),  # "Below -10: Complete failure."
]
BANDS = [name for _, _, name in MOS_BANDS]

# -- an independent evaluation, straight from the rulings ------------------------


def brute_mode(adv: int, dis: int, remove: bool, edge: str | None) -> str | None:
    """None when Edge cannot be spent that way."""
    has_adv = adv > 0
    has_dis = dis > 0 and not remove
    if has_adv and has_dis:
        has_adv = has_dis = False
    if edge == "advantage":
        if has_adv:
            return None
        if has_dis:
            return "normal"
        return "advantage"
    if edge == "remove-disadvantage":
        return "normal" if has_dis else None
    return "advantage" if has_adv else "disadvantage" if has_dis else "normal"


def brute_score(pair: tuple[int, int], bonus: int, tn: int, edge: bool) -> tuple[int, int]:
    a, b = pair
    plain = a + b + bonus
    if a != b:
        adj = 0
    elif a == 1:
        adj = 0 if edge else -5
    elif a == 10 or edge:
        adj = 5
    else:
        adj = 5 if plain >= tn else -5
    return adj, plain + adj


def brute_band(mos: int) -> str:
    return band_of(mos, MOS_BANDS)


def brute_check(faces: list[int], mode: str, bonus: int, tn: int, edge: bool) -> int:
    """The MoS of the default keep choice."""
    if mode == "normal":
        return brute_score((faces[0], faces[1]), bonus, tn, edge)[1] - tn
    scores = [
        brute_score((faces[i], faces[j]), bonus, tn, edge)[1] - tn
        for i, j in itertools.combinations(range(3), 2)
    ]
    return max(scores) if mode == "advantage" else min(scores)


def req(**fields: Any) -> dict[str, Any]:
    return resolve({"system": "2d10-edge", **fields}, RandomDice(1))


checks = st.fixed_dictionaries(
    {
        "bonus": st.integers(-5, 40),
        "tn": st.integers(5, 50),
        "advantage": st.integers(0, 2),
        "disadvantage": st.integers(0, 2),
        "remove_disadvantage": st.booleans(),
        "edge": st.sampled_from([None, "advantage", "remove-disadvantage"]),
    }
)


@settings(max_examples=300, deadline=None)
@given(checks, st.lists(st.integers(1, 10), min_size=3, max_size=3))
def test_check_matches_brute_force(fields: dict[str, Any], three: list[int]) -> None:
    mode = brute_mode(
        fields["advantage"], fields["disadvantage"], fields["remove_disadvantage"], fields["edge"]
    )
    if mode is None:
        with pytest.raises(RuleError, match="edge"):
            req(action="check", faces=three, **fields)
        return
    faces = three if mode != "normal" else three[:2]
    out = req(action="check", faces=faces, **fields)
    edge = fields["edge"] is not None
    mos = brute_check(faces, mode, fields["bonus"], fields["tn"], edge)
    assert out["mode"] == mode
    assert out["faces"] == faces
    assert out["mos"] == mos
    assert out["total"] == mos + fields["tn"]
    assert out["success"] == (mos >= 0)
    assert out["band"] == brute_band(mos)
    assert out["damage_dice"] == (2 if mos >= 10 else 1 if mos >= 5 else 0)
    kept = out["kept"]
    assert len(kept) == 2
    assert out["double"] == (kept[0] == kept[1])
    adj, total = brute_score((kept[0], kept[1]), fields["bonus"], fields["tn"], edge)
    assert (out["adjustment"], out["total"]) == (adj, total)


@settings(max_examples=40, deadline=None)
@given(checks)
def test_odds_match_brute_force(fields: dict[str, Any]) -> None:
    mode = brute_mode(
        fields["advantage"], fields["disadvantage"], fields["remove_disadvantage"], fields["edge"]
    )
    if mode is None:
        with pytest.raises(RuleError):
            req(action="odds", **fields)
        return
    out = req(action="odds", **fields)
    n = 2 if mode == "normal" else 3
    counts = dict.fromkeys(BANDS, 0)
    wins = 0
    for faces in itertools.product(range(1, 11), repeat=n):
        mos = brute_check(
            list(faces), mode, fields["bonus"], fields["tn"], fields["edge"] is not None
        )
        counts[brute_band(mos)] += 1
        wins += mos >= 0
    assert out["success"] == pytest.approx(wins / 10**n, abs=1e-12)
    for band in BANDS:
        assert out["bands"][band] == pytest.approx(counts[band] / 10**n, abs=1e-12)


#: "Attack: Add 1d6 to your damage pool" on a Significant Success, "Add 2d6" on a Complete one.
MOS_DAMAGE_DICE = {"significant-success": 1, "complete-success": 2}


def brute_convert(dice: int, st_bonus: int) -> tuple[int, int]:
    """ "convert THREE (3) points of that bonus for each damage die of the base weapon": ST 3
    cannot convert, ST 4 makes 2d6+3 into 3d6+1, a dagger (1d6) converts 3 points only."""
    extra = 0
    if st_bonus > 3:
        extra = min(dice, st_bonus // 3)
    return dice + extra, st_bonus - 3 * extra


damages = st.fixed_dictionaries(
    {
        "dice": st.integers(1, 6),
        "bonus": st.integers(0, 12),
        "melee": st.booleans(),
        "mos": st.one_of(st.none(), st.integers(0, 15)),
        "edge_boost": st.booleans(),
        "extra_dice": st.integers(0, 2),
        "pt": st.integers(0, 40),
        "dr": st.integers(0, 80),
        "pt_reduction": st.integers(0, 6),
    }
)


@settings(max_examples=300, deadline=None)
@given(damages, st.data())
def test_damage_matches_brute_force(fields: dict[str, Any], data: st.DataObject) -> None:
    dice, bonus = fields["dice"], fields["bonus"]
    if fields["melee"]:
        dice, bonus = brute_convert(dice, bonus)
    mos = fields["mos"]
    dice += 0 if mos is None else MOS_DAMAGE_DICE.get(brute_band(mos), 0)
    dice += 2 * fields["edge_boost"] + fields["extra_dice"]
    faces = data.draw(st.lists(st.integers(1, 6), min_size=dice, max_size=dice))
    out = req(action="damage", faces=faces, **fields)
    raw = sum(faces) + bonus
    pt = max(0, fields["pt"] - fields["pt_reduction"])
    assert out["pool"] == {"dice": dice, "bonus": bonus}
    assert out["faces"] == faces
    assert out["raw"] == raw
    assert out["penetrated"] == (raw >= pt)
    assert out["taken"] == brute_taken(raw, pt, fields["dr"])
    if raw >= pt:
        assert out["soaked"] == raw - out["taken"]


def brute_taken(raw: int, pt: int, dr: int) -> int:
    if raw < pt:
        return 0
    soaked = int((Decimal(raw * dr) / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return raw - soaked


small_pools = st.fixed_dictionaries(
    {
        "dice": st.integers(1, 2),
        "bonus": st.integers(0, 12),
        "mos": st.one_of(st.none(), st.integers(0, 15)),
        "extra_dice": st.integers(0, 1),
        "pt": st.integers(0, 30),
        "dr": st.integers(0, 80),
        "pt_reduction": st.integers(0, 6),
    }
)


@settings(max_examples=30, deadline=None)
@given(small_pools)
def test_damage_odds_match_brute_force(fields: dict[str, Any]) -> None:
    out = req(action="damage-odds", **fields)
    mos = fields["mos"]
    n = fields["dice"] + fields["extra_dice"]
    n += 0 if mos is None else 2 if mos >= 10 else 1 if mos >= 5 else 0
    assert out["pool"] == {"dice": n, "bonus": fields["bonus"]}
    pt = max(0, fields["pt"] - fields["pt_reduction"])
    counts: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=n):
        taken = brute_taken(sum(faces) + fields["bonus"], pt, fields["dr"])
        counts[taken] = counts.get(taken, 0) + 1
    assert {int(k): v for k, v in out["taken"].items()} == pytest.approx(
        {k: v / 6**n for k, v in counts.items()}
    )
    assert math.isclose(sum(out["taken"].values()), 1.0)
    assert out["any_damage"] == pytest.approx(sum(v for k, v in counts.items() if k > 0) / 6**n)


# -- the worked examples through resolve -------------------------------------------


def test_p11_example_through_resolve() -> None:
    out = req(
        action="damage",
        dice=3,
        bonus=2,
        mos=5,
        edge_boost=True,
        pt=20,
        dr=40,
        faces=[4, 4, 4, 4, 3, 3],
    )
    assert out["pool"] == {"dice": 6, "bonus": 2}
    assert (out["raw"], out["penetrated"], out["soaked"], out["taken"]) == (24, True, 10, 14)


def test_fam90_example_through_resolve() -> None:
    base = {"action": "damage", "dice": 5, "bonus": 1, "extra_dice": 1, "pt": 25, "dr": 40}
    faces = [4, 4, 4, 4, 4, 3]
    shy = req(**base, faces=faces)
    assert (shy["raw"], shy["penetrated"], shy["taken"]) == (24, False, 0)
    gauss = req(**base, faces=faces, pt_reduction=3)
    assert (gauss["raw"], gauss["penetrated"], gauss["soaked"], gauss["taken"]) == (
        24,
        True,
        10,
        14,
    )


def test_edge_doubles_example_through_resolve() -> None:
    out = req(action="check", bonus=12, tn=20, edge="advantage", faces=[2, 2, 4])
    assert out["kept"] == [2, 2]
    assert (out["total"], out["mos"], out["band"], out["adjustment"]) == (
        21,
        1,
        "marginal-success",
        5,
    )


def test_kept_override_through_resolve() -> None:
    out = req(action="check", bonus=12, tn=20, advantage=1, faces=[2, 2, 4], keep=[0, 1])
    assert out["kept"] == [2, 2]
    assert out["total"] == 11


# -- errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"action": "check", "bonus": 5, "tn": 20, "faces": [3, 11]},
            "faces: 11 is not a face of a d10",
        ),
        (
            {"action": "check", "bonus": 5, "tn": 20, "faces": [3, 4, 5]},
            "faces: a normal check rolls 2",
        ),
        (
            {"action": "check", "bonus": 5, "tn": 20, "advantage": 1, "faces": [3, 4]},
            "advantage check rolls 3",
        ),
        ({"action": "check", "bonus": 5, "tn": 20, "colour": "red"}, "colour: unknown field"),
        ({"action": "check", "tn": 20}, "bonus: missing"),
        ({"action": "check", "bonus": 5, "tn": "hard-ish"}, "tn: 'hard-ish' is not a TN"),
        (
            {"action": "check", "bonus": 5, "tn": 20, "advantage": 1, "edge": "advantage"},
            "already has Advantage",
        ),
        (
            {"action": "check", "bonus": 5, "tn": 20, "edge": "remove-disadvantage"},
            "no Disadvantage",
        ),
        ({"action": "check", "bonus": 5, "tn": 20, "edge": "yes"}, "edge: 'yes'"),
        ({"action": "odds", "bonus": 5, "tn": 20, "faces": [1, 2]}, "faces: unknown field"),
        ({"action": "damage", "dice": 2, "faces": [1, 7]}, "faces: 7 is not a face of a d6"),
        ({"action": "damage", "dice": 2, "faces": [1]}, "faces: the pool 2d6 rolls 2"),
        ({"action": "damage", "dice": 2, "mos": -2}, "mos: -2 is a miss"),
        ({"action": "damage", "dice": 2, "edge_boost": True, "attack_edge": True}, "edge_boost"),
        ({"action": "damage", "dice": 0}, "dice: 0 is out of range"),
        ({"action": "damage", "dice": 2, "dr": 120}, "dr: 120 is out of range"),
        ({"action": "fly"}, "action: 'fly' is not an action of 2d10-edge"),
    ],
)
def test_errors_name_the_field(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(RuleError, match=message.replace("(", r"\(")):
        req(**fields)


def test_rolled_checks_echo_their_faces_and_are_reproducible() -> None:
    a = resolve(
        {"system": "2d10-edge", "action": "check", "bonus": 10, "tn": 20, "advantage": 1},
        RandomDice(7),
    )
    b = resolve(
        {"system": "2d10-edge", "action": "check", "bonus": 10, "tn": 20, "advantage": 1},
        RandomDice(7),
    )
    assert a == b
    assert len(a["faces"]) == 3


def test_jsonl_filter_goes_on_after_an_error() -> None:
    lines = "\n".join(
        [
            json.dumps(
                {
                    "system": "2d10-edge",
                    "action": "check",
                    "bonus": 20,
                    "tn": "difficult",
                    "faces": [5, 5],
                }
            ),
            json.dumps(
                {"system": "2d10-edge", "action": "check", "bonus": 20, "tn": 30, "faces": [5, 11]}
            ),
            json.dumps({"system": "2d10-edge", "action": "odds", "bonus": 20, "tn": 30}),
        ]
    )
    out = io.StringIO()
    assert run(io.StringIO(lines), out, seed=3) == 1
    first, second, third = (json.loads(x) for x in out.getvalue().splitlines())
    assert (first["total"], first["band"]) == (35, "significant-success")
    assert "11" in second["error"]
    assert third["success"] == pytest.approx(0.64)


def test_margin_resolve_process() -> None:
    line = json.dumps({"system": "2d10-edge", "action": "odds", "bonus": 15, "tn": 20}) + "\n"
    done = margin_process("resolve", stdin=line)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["success"] == pytest.approx(0.94)
