"""2d10-edge: the last details the rules text states, each test quoting the text it plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import character, demo_sheet, one, player_log, refused, run_margin
from support import events_of as do

from margin.core.systems.edge import present
from margin.core.systems.edge.commands import Attack, Check
from margin.core.systems.edge.state import EdgeCharacter, armor_class_of, check_sheet
from margin.core.systems.edge.words import GRAMMAR
from margin.events.systems.edge import ArmorRepaired, Attacked, Checked, Damaged
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

#: the demo's Kael, drawing the heavy pistol first
HERO = {**demo_sheet("2d10-edge"), "weapons": ["heavy-pistol", "sword"]}


def foe(armor: Any, defense: int = 20) -> dict[str, Any]:
    """The demo's guard in ``armor``, hit on ``defense``."""
    return {**demo_sheet("2d10-edge", name="Guard"), "armor": armor, "defense": defense}


def new_table(tmp_path: Path, **options: Any) -> Table:
    t = Table.create(tmp_path / "t.margin", "2d10-edge", options)
    t.dice = RandomDice(3)
    do(t, type="add-character", name="Kael", sheet=HERO)
    return t


def char(t: Table, name: str) -> EdgeCharacter:
    return character(t, name, EdgeCharacter)


# -- "There is no hard upper limit for TNs, but anything above 40 is virtually impossible"


def test_a_tn_above_100_is_accepted_and_the_odds_show_how_impossible(tmp_path: Path) -> None:
    """ "There is no hard upper limit for TNs, but anything above 40 is virtually impossible." """
    t = new_table(tmp_path)
    check = one(
        do(t, type="check", character="Kael", skill="athletics", tn=101, faces=[10, 10]),
        Checked,
    )
    # 10+10 +5 for a double ten, + skill 20 = 45 against 101
    assert (check.tn, check.total, check.mos, check.success) == (101, 45, -56, False)
    odds = present.odds(Check(character="Kael", skill="athletics", tn=101), t.state)
    assert odds is not None
    assert odds.success == 0.0
    near = present.odds(Check(character="Kael", skill="athletics", tn=45), t.state)
    assert near is not None
    assert 0 < near.success < 0.01
    refused(t, r"tn: 0 is out of range \(1 or more", type="check", character="Kael",
            skill="athletics", tn=0)  # fmt: skip


def test_a_tn_above_100_is_typed_on_the_command_line(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    cmd = GRAMMAR.parse(["check", "kael", "athletics", "vs", "120", "faces", "5", "6"], t.state)
    assert cmd is not None
    assert cmd["tn"] == 120
    assert do(t, **cmd)[0].tn == 120


# -- "If you already have Disadvantage, you cannot use a game effect ... that would incur
# Disadvantage"


def test_a_second_chosen_disadvantage_option_is_refused(tmp_path: Path) -> None:
    """ "If you already have Disadvantage, you cannot use a game effect, such as a talent or
    attack option that would incur Disadvantage." The first option gives the check
    Disadvantage, so the second finds it already there."""
    t = new_table(tmp_path)
    refused(
        t,
        r"chosen_disadvantage: 2 options that add Disadvantage.*at most 1",
        type="check",
        character="Kael",
        skill="athletics",
        tn=20,
        chosen_disadvantage=2,
    )
    ok = one(
        do(
            t,
            type="check",
            character="Kael",
            skill="athletics",
            tn=20,
            chosen_disadvantage=1,
            faces=[3, 4, 5],
        ),
        Checked,
    )
    assert (ok.mode, ok.disadvantage) == ("disadvantage", 1)


# -- "Anything heavier than light armor will slow the wearer and reduce their Dodge defense"


@pytest.mark.parametrize(
    ("armor", "worn_class"),
    [
        ("light", "light"),
        ("medium", "medium"),
        ("heavy", "heavy"),
        ("inertial", "light"),
        ({"pt": 28, "dr": 30}, "medium"),
        ({"pt": 33, "dr": 30, "class": "medium"}, "medium"),
    ],
)
def test_armor_has_a_class(armor: Any, worn_class: str) -> None:
    """ "As a rule of thumb, light armor is PT15/DR20, medium armor is PT25/DR40, and heavy
    armor is PT35/DR60": a custom armor's class is the nearest of these unless named."""
    assert check_sheet(foe(armor))["armor"]["class"] == worn_class


def test_armor_class_ties_go_to_the_lighter_class() -> None:
    assert [armor_class_of(pt) for pt in (0, 20, 21, 30, 31, 200)] == [
        "light",
        "light",
        "medium",
        "medium",
        "heavy",
        "heavy",
    ]


def test_heavier_armor_lowers_the_wearers_defense_when_the_option_is_set(tmp_path: Path) -> None:
    """ "Anything heavier than light armor will slow the wearer and reduce their Dodge
    defense." Off by default; the GM sets the penalty per class."""
    t = new_table(tmp_path)
    do(t, type="add-character", name="Trooper", sheet=foe("heavy", defense=20))
    do(t, type="add-character", name="Scout", sheet=foe("light", defense=20))
    plain = one(
        do(t, type="attack", character="Kael", target="Trooper", faces=[5, 5], damage=False),
        Attacked,
    )
    assert (plain.tn, plain.dodge_penalty) == (20, 0)
    do(t, type="set-option", name="armor_dodge_heavy", value=6)
    slowed = one(
        do(t, type="attack", character="Kael", target="Trooper", faces=[3, 4], damage=False),
        Attacked,
    )
    assert (slowed.tn, slowed.dodge_penalty) == (14, 6)
    # 3 + 4 + firearms 13 = 20: a miss against 20, a hit against 14
    assert slowed.success
    assert slowed.mos == 6
    assert "defense -6 for the target's armor" in (
        present.describe({"type": "edge.attack", **_builtins(slowed)}) or ""
    )
    light = one(
        do(t, type="attack", character="Kael", target="Scout", faces=[3, 4], damage=False),
        Attacked,
    )
    assert (light.tn, light.dodge_penalty) == (20, 0)
    # the GM's own TN is the GM's ruling: no penalty on top
    named = one(
        do(t, type="attack", character="Kael", target="Trooper", tn=20, faces=[3, 4], damage=False),
        Attacked,
    )
    assert (named.tn, named.dodge_penalty) == (20, 0)
    odds = present.odds(Attack(character="Kael", target="Trooper"), t.state)
    assert odds is not None
    assert "TN 14" in odds.label


def test_the_dodge_penalty_is_cut_with_a_secret_tn(tmp_path: Path) -> None:
    t = new_table(tmp_path, armor_dodge_medium=4)
    do(t, type="add-character", name="Guard", sheet=foe("medium"))
    attack = one(
        do(t, type="attack", character="Kael", target="Guard", secret_tn=True, damage=False,
           faces=[5, 5]),
        Attacked,
    )  # fmt: skip
    assert attack.dodge_penalty == 4
    seen = player_log(t)[-1]["event"]
    assert seen["type"] == "edge.attack"
    assert "dodge_penalty" not in seen
    assert "tn" not in seen


def _builtins(event: Any) -> dict[str, Any]:
    return msgspec.to_builtins(event)  # type: ignore[no-any-return]


# -- "Damage below the PT is entirely negated (although the armor itself can become degraded)"


def test_armor_that_stops_a_blow_degrades_when_the_option_is_set(tmp_path: Path) -> None:
    """ "Damage below the PT is entirely negated (although the armor itself can become
    degraded)." Off by default; the GM sets the PT lost per class."""
    t = new_table(tmp_path)
    do(t, type="add-character", name="Guard", sheet=foe("medium"))
    stopped = one(
        do(t, type="damage", target="Guard", dice=3, faces=[6, 6, 6]), Damaged
    )  # 18 < PT 25
    assert (stopped.penetrated, stopped.degraded) == (False, 0)
    do(t, type="set-option", name="armor_degrade_medium", value=3)
    worn = one(do(t, type="damage", target="Guard", dice=3, faces=[6, 6, 6]), Damaged)
    assert (worn.pt, worn.penetrated, worn.degraded) == (25, False, 3)
    assert char(t, "guard").armor_wear == 3
    line = present.describe({"type": "edge.damage", **_builtins(worn)}) or ""
    assert "stopped by the armor, the armor degrades: PT -3" in line
    again = one(do(t, type="damage", target="Guard", dice=4, faces=[6, 6, 6, 5]), Damaged)
    # 23 gets through the worn PT 22: a blow that penetrates does not degrade the armor
    assert (again.pt, again.penetrated, again.degraded) == (22, True, 0)
    assert "armor worn: PT -3" in present.status(char(t, "guard"), t.state)
    # a stopped blow of 0 damage does nothing to the armor
    nothing = one(do(t, type="damage", target="Guard", dice=1, bonus=-6, faces=[1]), Damaged)
    assert nothing.degraded == 0


def test_degradation_is_per_class_and_never_below_zero_pt(tmp_path: Path) -> None:
    t = new_table(tmp_path, armor_degrade_light=10)
    do(t, type="add-character", name="Guard", sheet=foe({"pt": 12, "dr": 10}))
    first = one(do(t, type="damage", target="Guard", dice=1, faces=[3]), Damaged)
    second = one(do(t, type="damage", target="Guard", dice=1, faces=[1]), Damaged)
    assert (first.degraded, second.pt, second.degraded) == (10, 2, 2)
    assert char(t, "guard").armor_wear == 12
    # no armor to stop anything now: every blow gets through
    third = one(do(t, type="damage", target="Guard", dice=1, faces=[1]), Damaged)
    assert (third.pt, third.penetrated) == (0, True)


def test_repair_restores_worn_pt_and_undo_takes_the_wear_back(tmp_path: Path) -> None:
    t = new_table(tmp_path, armor_degrade_heavy=2)
    do(t, type="add-character", name="Trooper", sheet=foe("heavy"))
    for _ in range(3):
        do(t, type="damage", target="Trooper", dice=2, faces=[6, 6])
    assert char(t, "trooper").armor_wear == 6
    part = one(do(t, type="repair-armor", character="Trooper", points=4), ArmorRepaired)
    assert (part.points, part.wear_after) == (4, 2)
    refused(t, r"points: 3 is out of range \(1..2", type="repair-armor", character="Trooper",
            points=3)  # fmt: skip
    cmd = GRAMMAR.parse(["repair", "trooper"], t.state)
    assert cmd == {"type": "repair-armor", "character": "trooper"}
    do(t, **cmd)
    assert char(t, "trooper").armor_wear == 0
    refused(t, "has no PT worn off", type="repair-armor", character="Trooper")
    do(t, type="damage", target="Trooper", dice=2, faces=[6, 6])
    assert char(t, "trooper").armor_wear == 2
    do(t, type="undo")
    assert char(t, "trooper").armor_wear == 0


def test_a_table_without_the_armor_options_plays_as_before(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    do(t, type="add-character", name="Trooper", sheet=foe("heavy"))
    for _ in range(2):
        assert one(do(t, type="damage", target="Trooper", dice=2, faces=[6, 6]), Damaged).pt == 35
    assert char(t, "trooper").armor_wear == 0


def test_margin_rules_documents_the_new_options() -> None:
    code, out, _ = run_margin("rules", "2d10-edge")
    assert code == 0
    for name in (
        "armor_dodge_medium",
        "armor_dodge_heavy",
        "armor_degrade_light",
        "armor_degrade_medium",
        "armor_degrade_heavy",
        "repair-armor",
        "no hard upper limit",
        "a second option",
    ):
        assert name in out, name
