"""d100-chance arithmetic against the rules text's own numbers."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import get_args

import pytest
from support import margin_output

from margin.core.errors import RuleError
from margin.core.systems.chance import rules
from margin.core.systems.chance.commands import AttackType, Position, Profile
from margin.core.systems.chance.state import EFFECTS, EffectName


def test_the_41_percent_task_is_difficulty_15_and_automatic_at_proficiency_40() -> None:
    gamble = rules.check_odds(8, 15, 0)
    assert gamble.chance == 41
    assert not gamble.automatic
    assert rules.check_odds(40, 15, 0).automatic
    # 39 is a 24-point lead: still a roll (at the 95% ceiling)
    near = rules.check_odds(39, 15, 0)
    assert (near.automatic, near.chance) == (False, 95)


def test_maxed_skill_makes_everything_up_to_difficulty_75_automatic() -> None:
    assert all(rules.check_odds(100, d, 0).automatic for d in range(1, 76))
    assert not rules.check_odds(100, 76, 0).automatic


def test_auto_success_is_judged_before_modifiers() -> None:
    assert rules.check_odds(40, 15, -50).automatic
    assert not rules.check_odds(39, 15, 30).automatic


def test_chance_clamps_to_5_and_95() -> None:
    assert rules.check_odds(0, 100, 0).chance == 5
    assert rules.check_odds(50, 30, 40).chance == 95
    assert rules.check_odds(30, 30, 0).chance == 55  # a coin flip at proficiency = difficulty


def test_modifier_table_is_the_one_the_rules_document_prints() -> None:
    """The text's "Modifiers shift how hard a roll ends" table (proper tools +10, ideal
    conditions +10, each helper +10, blueprint +10, no tools -30, rushed -20, under fire -20),
    under the names the table in ``margin rules d100-chance`` gives them."""
    printed = margin_output("rules", "d100-chance")
    rows = re.findall(r"^\| `([a-z-]+)`[^|]*\| ([+-]\d+)", printed, re.MULTILINE)
    assert len(rows) == 7
    assert {name: int(points) for name, points in rows} == rules.MODIFIERS
    assert rules.modifier_total(["proper-tools", "rushed"]) == (-10, ["proper-tools", "rushed"])


def test_at_most_two_helpers_count() -> None:
    total, counted = rules.modifier_total(["helper", "helper", "helper", "blueprint"])
    assert total == 30
    assert counted == ["helper", "helper", "blueprint"]


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["lucky"], "'lucky' is not a modifier"),
        (["rushed", "rushed"], "listed twice"),
        (["proper-tools", "no-tools"], "exclude each other"),
    ],
)
def test_bad_modifiers_are_refused(names: list[str], message: str) -> None:
    with pytest.raises(RuleError, match=message):
        rules.modifier_total(names)


@pytest.mark.parametrize(
    ("margin", "band"),
    [
        (10, "clean-success"),
        (35, "clean-success"),
        (9, "success"),
        (0, "success"),
        (-1, "recoverable-failure"),
        (-10, "recoverable-failure"),
        (-11, "setback"),
    ],
)
def test_bands(margin: int, band: str) -> None:
    assert rules.band_of(margin) == band


def test_band_probabilities_enumerate_the_d100() -> None:
    for chance in range(5, 96):
        counts = dict.fromkeys(rules.BANDS, 0)
        for roll in range(1, 101):
            counts[rules.band_of(chance - roll)] += 1
        assert rules.band_probabilities(chance) == {k: Fraction(v, 100) for k, v in counts.items()}


def test_difficulty_ladder() -> None:
    names = [rules.difficulty_band(d) for d in (1, 10, 11, 25, 26, 40, 41, 60, 61, 80, 81, 100)]
    assert names == [
        "effortless", "effortless", "easy", "easy", "moderate", "moderate",
        "challenging", "challenging", "hard", "hard", "extreme", "extreme",
    ]  # fmt: skip


def test_opposed_higher_success_wins_ties_to_the_defender() -> None:
    assert rules.opposed_winner(12, 3) == "a"
    assert rules.opposed_winner(3, 12) == "b"
    assert rules.opposed_winner(5, 5) == "b"
    assert rules.opposed_winner(0, -1) == "a"
    assert rules.opposed_winner(-1, -30) == "b"


def test_armor_value_over_value_plus_100() -> None:
    fifty = rules.damage_pipeline(90, 0, "standard", 100, False, 1.5, 1, "front", 0, 50, 0)
    assert fifty.damage == 60  # a third cut
    one_fifty = rules.damage_pipeline(100, 0, "standard", 100, False, 1.5, 1, "front", 0, 150, 0)
    assert one_fifty.damage == 40  # 60% cut


def test_profiles() -> None:
    assert rules.PROFILES == {
        "standard": (50, 100),
        "calibrated": (65, 95),
        "high-power": (35, 110),
        "focused": (70, 90),
        "volatile": (25, 115),
    }


def test_crit_ignores_the_range_roll_and_uses_full_base() -> None:
    # base 20 + 10 scaling: a volatile crit at x2 is 60 whatever the range would have been
    d = rules.damage_pipeline(20, 10, "volatile", None, True, 2, 1, "front", 0, 0, 0)
    assert d.damage == 60
    assert [s[0] for s in d.steps] == ["base", "crit", "final"]


def test_pipeline_order_and_single_rounding() -> None:
    # 12 + 5 = 17; x 83% = 14.11; vitals x1.5 = 21.165; rear +25% = 26.456;
    # armor 30 -> x 100/130 = 20.351; fire resistance 20% -> 16.281 -> 16
    d = rules.damage_pipeline(12, 5, "standard", 83, False, 1.5, 1.5, "rear", 0, 30, 20)
    assert d.damage == 16
    assert [s[0] for s in d.steps] == [
        "base",
        "range",
        "vitals",
        "position",
        "armor",
        "resistance",
        "final",
    ]


def test_unaware_adds_to_position_and_forces_a_crit() -> None:
    # (10 + 6) x 1.75 = 28; side 15 + unaware 75 = +90% -> 53.2 -> 53
    d = rules.damage_pipeline(10, 6, "standard", None, False, 1.75, 1, "side", 75, 0, 0)
    assert d.damage == 53


def test_minimum_one_damage() -> None:
    d = rules.damage_pipeline(1, 0, "volatile", 25, False, 1.5, 1, "front", 0, 400, 90)
    assert d.damage == 1


def test_round_half_up_at_the_end() -> None:
    assert rules.damage_pipeline(5, 0, "standard", 50, False, 1.5, 1, "front", 0, 0, 0).damage == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"crit_multiplier": 1.4}, "below the floor of 1.5"),
        ({"range_percent": 49}, "not in standard's 50..100"),
        ({"unaware_percent": 30}, "must be 0 or 50..100"),
        ({"vitals": 0.5}, "vitals"),
        ({"armor": -1}, "armor"),
        ({"resistance_percent": 120}, "resistance_percent"),
        ({"profile": "wild"}, "profile"),
        ({"position": "above"}, "position"),
    ],
)
def test_pipeline_refuses_bad_inputs(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "base": 10, "scaling": 0, "profile": "standard", "range_percent": 70, "crit": False,
        "crit_multiplier": 1.5, "vitals": 1, "position": "front", "unaware_percent": 0,
        "armor": 0, "resistance_percent": 0,
    }  # fmt: skip
    args.update(kwargs)
    with pytest.raises(RuleError, match=message):
        rules.damage_pipeline(**args)  # type: ignore[arg-type]


def test_gates_position_and_surround() -> None:
    front = rules.gates(90, 30, "front", 0, True)
    assert (front.evasion, front.hit_chance, front.dodge_chance) == (30, 60, 30)
    side = rules.gates(90, 30, "side", 0, True)
    assert (side.evasion, side.hit_chance, side.dodge_chance) == (15, 75, 15)
    rear = rules.gates(90, 30, "rear", 2, True)
    assert (rear.evasion, rear.hit_chance, rear.dodge_chance) == (-10, 95, 0)
    unaware = rules.gates(50, 60, "front", 0, False)
    assert (unaware.hit_chance, unaware.dodge_chance) == (5, 0)


def test_scaling_by_attack_type() -> None:
    stats = {"str": 7, "dex": 11, "int": 5, "wis": 4, "con": 9}
    assert rules.scaling_of(stats, "melee") == 7
    assert rules.scaling_of(stats, "ranged") == 11
    assert rules.scaling_of(stats, "magic") == 9
    assert rules.scaling_of(stats, "mutant", ["con", "str"]) == 16


def test_effect_landing_scales_with_the_gap() -> None:
    assert rules.landing(40, 40, 10, 20) == rules.Landing(False, 0, 0, 0)
    assert rules.landing(41, 40, 10, 20) == rules.Landing(True, 1, 1, 1)
    assert rules.landing(70, 10, 10, 20) == rules.Landing(True, 60, 7, 4)
    assert rules.landing(70, 10, 20, 30) == rules.Landing(True, 60, 4, 3)


def test_percent_of_max_hp() -> None:
    assert rules.percent_of(5, 40) == 2
    assert rules.percent_of(5, 30, 4) == 6
    assert rules.percent_of(3, 10) == 1  # 0.3 rounds to 0, the floor is 1
    assert rules.percent_of(5, 50) == 3  # 2.5 rounds half up


def test_armor_pierce_lowers_the_armor_never_below_zero() -> None:
    # 150 armor less 50 pierce is 100: half the damage
    d = rules.damage_pipeline(100, 0, "standard", 100, False, 1.5, 1, "front", 0, 150, 0, 50)
    assert d.damage == 50
    assert d.steps[-2] == ("armor", "150 - 50 pierce: -50% = 50")
    through = rules.damage_pipeline(100, 0, "standard", 100, False, 1.5, 1, "front", 0, 30, 0, 60)
    assert through.damage == 100
    with pytest.raises(RuleError, match="pierce: -1 is below 0"):
        rules.damage_pipeline(10, 0, "standard", 100, False, 1.5, 1, "front", 0, 0, 0, -1)


def test_the_attack_commands_positions_are_the_rules_positions() -> None:
    assert get_args(Position) == tuple(rules.POSITIONS)


def test_a_damage_requests_profiles_are_the_rules_profiles() -> None:
    assert get_args(Profile) == tuple(rules.PROFILES)


def test_a_sheets_attack_types_and_effects_are_the_rules_ones() -> None:
    assert get_args(AttackType) == tuple(rules.ATTACK_TYPES)
    assert get_args(EffectName) == tuple(EFFECTS)
