"""2d10-edge arithmetic against the rules text's own numbers and margin's rulings."""

from __future__ import annotations

from fractions import Fraction

import pytest

from margin.core.dice import chance_at_least, distribution, mean, parse
from margin.core.errors import RuleError
from margin.core.systems.edge import rules

# -- difficulty ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "tn"),
    [
        ("very easy", 10),
        ("easy", 15),
        ("moderate", 20),
        ("challenging", 25),
        ("difficult", 30),
        ("Very Difficult", 35),
        ("near-impossible", 40),
        (22, 22),
    ],
)
def test_tn_by_number_or_ladder_name(name: str | int, tn: int) -> None:
    assert rules.tn_value(name)[0] == tn


def test_an_impossible_task_cannot_be_rolled() -> None:
    with pytest.raises(RuleError, match="cannot be attempted"):
        rules.tn_value("impossible")
    with pytest.raises(RuleError, match="very-easy 10"):
        rules.tn_value("hardish")


# -- Advantage and Disadvantage -------------------------------------------------


def test_two_sources_of_disadvantage_are_one_disadvantage() -> None:
    assert rules.check_mode(0, 2, False, None) == "disadvantage"


def test_edge_advantage_against_two_disadvantages_leaves_neither() -> None:
    assert rules.check_mode(0, 2, False, "advantage") == "normal"


def test_advantage_and_disadvantage_cancel_then_edge_grants_advantage() -> None:
    assert rules.check_mode(1, 1, False, None) == "normal"
    assert rules.check_mode(1, 1, False, "advantage") == "advantage"


def test_removing_disadvantage_happens_before_cancelling() -> None:
    """Night-vision goggles remove the Disadvantage, so the Advantage stands."""
    assert rules.check_mode(1, 1, True, None) == "advantage"


def test_edge_never_gives_both() -> None:
    with pytest.raises(RuleError, match="already has Advantage"):
        rules.check_mode(1, 0, False, "advantage")
    with pytest.raises(RuleError, match="no Disadvantage to remove"):
        rules.check_mode(0, 0, False, "remove-disadvantage")
    assert rules.check_mode(0, 1, False, "remove-disadvantage") == "normal"


# -- doubles and the keep choice -----------------------------------------------


def test_the_texts_edge_doubles_example_is_a_marginal_success() -> None:
    """2, 2, 4 with Edge-bought Advantage, +12 vs TN 20: keep the double, 2+2+5+12 = 21."""
    r = rules.resolve_check([2, 2, 4], "advantage", 12, 20, edge=True)
    assert r.kept == [2, 2]
    assert (r.adjustment, r.total, r.mos, r.band) == (5, 21, 1, "marginal-success")


def test_without_edge_the_same_dice_are_a_marginal_failure_of_18() -> None:
    r = rules.resolve_check([2, 2, 4], "advantage", 12, 20, edge=False)
    assert sorted(r.kept) == [2, 4]
    assert (r.total, r.band) == (18, "marginal-failure")


def test_advantage_keeps_a_double_when_it_is_worth_more() -> None:
    r = rules.resolve_check([6, 6, 7], "advantage", 10, 20, edge=False)
    assert r.kept == [6, 6]
    assert r.mos == 7


def test_disadvantage_forces_a_double_to_fail_harder() -> None:
    r = rules.resolve_check([4, 4, 9], "disadvantage", 10, 20, edge=False)
    assert r.kept == [4, 4]
    assert (r.adjustment, r.total, r.mos, r.band) == (-5, 13, -7, "significant-failure")


def test_keep_can_be_overridden() -> None:
    r = rules.resolve_check([4, 4, 9], "disadvantage", 10, 20, edge=False, keep=[1, 2])
    assert r.kept == [4, 9]
    assert r.mos == 3
    with pytest.raises(RuleError, match="keep"):
        rules.resolve_check([4, 4, 9], "disadvantage", 10, 20, edge=False, keep=[1, 1])


def test_double_on_success_adds_five_and_on_failure_takes_five() -> None:
    assert rules.resolve_check([5, 5], "normal", 12, 20, False).mos == 7
    assert rules.resolve_check([3, 3], "normal", 12, 20, False).mos == -7


def test_double_ten_always_adds_five_but_is_no_automatic_success() -> None:
    r = rules.resolve_check([10, 10], "normal", 0, 30, False)
    assert (r.adjustment, r.total, r.success) == (5, 25, False)


def test_double_one_always_takes_five_and_nets_zero_with_edge() -> None:
    narrow = rules.resolve_check([1, 1], "normal", 18, 20, False)
    assert (narrow.adjustment, narrow.total, narrow.success) == (-5, 15, False)
    edged = rules.resolve_check([1, 1], "normal", 18, 20, True)
    assert (edged.adjustment, edged.total, edged.success) == (0, 20, True)


def test_edge_turns_a_failed_double_into_plus_five() -> None:
    r = rules.resolve_check([3, 3], "normal", 12, 20, True)
    assert (r.adjustment, r.total, r.success) == (5, 23, True)


def test_faces_must_match_the_mode() -> None:
    with pytest.raises(RuleError, match="3d10"):
        rules.resolve_check([3, 3], "advantage", 12, 20, False)
    with pytest.raises(RuleError, match="11 is not a face of a d10"):
        rules.resolve_check([3, 11], "normal", 12, 20, False)


@pytest.mark.parametrize(
    ("mos", "band", "dice"),
    [
        (15, "complete-success", 2),
        (10, "complete-success", 2),
        (9, "significant-success", 1),
        (5, "significant-success", 1),
        (4, "marginal-success", 0),
        (0, "marginal-success", 0),
        (-1, "marginal-failure", 0),
        (-5, "marginal-failure", 0),
        (-6, "significant-failure", 0),
        (-10, "significant-failure", 0),
        (-11, "complete-failure", 0),
    ],
)
def test_mos_bands(mos: int, band: str, dice: int) -> None:
    assert rules.band_of(mos) == band
    assert rules.damage_dice_of(mos) == dice


# -- odds: the text's figures -------------------------------------------------


@pytest.mark.parametrize(
    ("target", "about"),
    [(5, 0.94), (10, 0.64), (15, 0.21), (20, 0.01)],
)
def test_bare_2d10_figures(target: int, about: float) -> None:
    """2d10 alone: 94% for 5+, 64% for 10+, 21% for 15+, 1% for a 20 (exact: 0.94, 0.64, 0.21, 0.01)."""
    assert float(chance_at_least(distribution(parse("2d10")), target)) == pytest.approx(about)


def test_the_cliff_climb_is_about_64_percent() -> None:
    """Athletics +20 (ST 9 + AG 7 + rank 4) vs TN 30: exactly 64/100; no double moves it
    (a failing double stays failing, a succeeding one stays succeeding, 1-1 fails anyway)."""
    odds = rules.check_odds("normal", 20, 30, False)
    assert odds.success == Fraction(64, 100)


def test_a_professional_at_moderate_is_about_95_percent() -> None:
    """+15 vs TN 20: exactly 94%; "about 95%". Doubles do not move it (1-1 and 2-2 already fail)."""
    odds = rules.check_odds("normal", 15, 20, False)
    assert odds.success == Fraction(94, 100)
    assert float(odds.success) == pytest.approx(0.95, abs=0.015)


def test_trained_at_moderate_and_professional_at_challenging_are_about_two_thirds() -> None:
    """+10 vs 20 and +15 vs 25 both need 10+ on 2d10: exactly 64%, "about 2/3"."""
    for bonus, tn in ((10, 20), (15, 25)):
        odds = rules.check_odds("normal", bonus, tn, False)
        assert odds.success == Fraction(64, 100)
        assert float(odds.success) == pytest.approx(2 / 3, abs=0.03)


def test_professional_at_difficult_is_about_one_fifth() -> None:
    """+15 vs TN 30: exactly 21% (10-10 succeeds either way), "about 1/5"."""
    odds = rules.check_odds("normal", 15, 30, False)
    assert odds.success == Fraction(21, 100)
    assert float(odds.success) == pytest.approx(0.2, abs=0.015)


def test_double_one_moves_a_near_certain_check() -> None:
    """+18 vs TN 20 would succeed on any 2+; 1-1 takes 5 and fails, so exactly 99%."""
    assert rules.check_odds("normal", 18, 20, False).success == Fraction(99, 100)
    assert rules.check_odds("normal", 18, 20, True).success == Fraction(100, 100)


def test_advantage_then_edge_improve_the_odds() -> None:
    plain = rules.check_odds("normal", 15, 30, False).success
    adv = rules.check_odds("advantage", 15, 30, False).success
    edge = rules.check_odds("advantage", 15, 30, True).success
    dis = rules.check_odds("disadvantage", 15, 30, False).success
    assert dis < plain < adv < edge


def test_band_odds_sum_to_one() -> None:
    odds = rules.check_odds("disadvantage", 12, 22, False)
    assert sum(odds.bands.values()) == 1
    assert odds.success == sum(odds.bands[b] for b in rules.BANDS[:3])


# -- damage ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "st", "pool"),
    [
        (2, 3, (2, 3)),
        (2, 4, (3, 1)),
        (2, 5, (3, 2)),
        (2, 6, (4, 0)),
        (2, 9, (4, 3)),
        (1, 6, (2, 3)),
    ],
)
def test_strength_conversion_table(dice: int, st: int, pool: tuple[int, int]) -> None:
    assert rules.strength_conversion(dice, st) == pool


def test_p11_against_inertial_armor() -> None:
    """3d6+2 vs PT 20/DR 40: 18+ on 3d6 needed ("close to impossible": 1 in 216); a solid
    hit and Edge make it 6d6+2; 24 damage, 9.6 soaked rounds to 10, 14 taken."""
    base = rules.damage_pool(3, 2)
    needed = 20 - base.bonus
    assert needed == 18
    assert chance_at_least(distribution(parse("3d6")), needed) == Fraction(1, 216)
    pool = rules.damage_pool(3, 2, mos=5, edge_boost=True)
    assert (pool.dice, pool.bonus) == (6, 2)
    # "not automatic, but very likely": exactly 9263/11664, about 79%
    assert chance_at_least(distribution(parse("6d6")), 18) == Fraction(9263, 11664)
    hit = rules.apply_armor(24, 20, 40)
    assert (hit.penetrated, hit.soaked, hit.taken) == (True, 10, 14)


def test_fam90_burst_against_medium_armor() -> None:
    """5d6+1 plus 1d6 burst = 6d6+1; 24 is shy of PT 25, the talent's -2 would get through,
    and the Gauss burst's -3 does: 14 taken."""
    pool = rules.damage_pool(5, 1, extra_dice=1)
    assert (pool.dice, pool.bonus) == (6, 1)
    assert not rules.apply_armor(24, 25, 40).penetrated
    assert rules.apply_armor(24, 25, 40, pt_reduction=2).penetrated
    hit = rules.apply_armor(24, 25, 40, pt_reduction=3)
    assert (hit.pt, hit.penetrated, hit.soaked, hit.taken) == (22, True, 10, 14)


def test_damage_below_pt_is_entirely_stopped() -> None:
    hit = rules.apply_armor(14, 15, 20)
    assert (hit.penetrated, hit.taken) == (False, 0)
    assert rules.apply_armor(15, 15, 20).taken == 12


def test_soak_rounds_half_up() -> None:
    assert rules.apply_armor(11, 0, 50).soaked == 6
    assert rules.apply_armor(21, 0, 10).soaked == 2


def test_mos_and_edge_add_dice() -> None:
    assert rules.damage_pool(4, 6, mos=10).dice == 6
    assert rules.damage_pool(4, 6, mos=4, edge_boost=True).dice == 6


def test_taken_distribution_is_exact() -> None:
    dist = rules.taken_distribution(rules.Pool(3, 2), 20, 40)
    assert dist[0] == Fraction(215, 216)
    assert sum(dist.values()) == 1


# -- injuries, initiative, recovery ----------------------------------------------


@pytest.mark.parametrize(
    ("points", "severity"),
    [
        (3, "grazing"),
        (4, "moderate"),
        (9, "moderate"),
        (10, "serious"),
        (19, "serious"),
        (20, "life-threatening"),
        (39, "life-threatening"),
        (40, "fatal"),
    ],
)
def test_severity_by_share_of_health(points: int, severity: str) -> None:
    assert rules.severity_of(points, 40) == severity


@pytest.mark.parametrize(
    ("init", "actions"),
    [
        (5, ["major", "move"]),
        (6, ["major", "move", "minor"]),
        (15, ["major", "move", "minor"]),
        (16, ["major", "move", "minor", "bonus"]),
        (25, ["major", "move", "minor", "bonus"]),
        (26, ["major", "move", "minor", "bonus", "bonus"]),
    ],
)
def test_initiative_brackets(init: int, actions: list[str]) -> None:
    assert rules.bracket_actions(init, True) == actions
    assert rules.bracket_actions(init, False) == ["major", "move", "minor"]


def test_awards_grow_with_the_gap_and_the_feat() -> None:
    """max 7 / current 1 recovers more easily than max 2 / current 1."""
    assert rules.award_amount(1, 7, "minor") == 2
    assert rules.award_amount(1, 2, "minor") == 1
    assert rules.award_amount(1, 7, "major") == 4
    assert rules.award_amount(1, 7, "boss") == 6
    assert rules.award_amount(0, 2, "boss") == 2
    assert rules.award_amount(3, 3, "boss") == 0


def test_advantage_is_worth_about_two_and_a_half() -> None:
    """Keeping the best two of 3d10 averages 13.475 against 11 for 2d10: +2.475, and the
    worst two 8.525 (doubles aside); the range stays 2..20 either way."""
    keep_high = distribution(parse("3d10kh2"))
    keep_low = distribution(parse("3d10kl2"))
    plain = distribution(parse("2d10"))
    assert mean(keep_high) - mean(plain) == Fraction(99, 40)
    assert mean(plain) - mean(keep_low) == Fraction(99, 40)
    assert (min(keep_high), max(keep_high), min(keep_low), max(keep_low)) == (2, 20, 2, 20)


@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
@pytest.mark.parametrize("edge", [False, True])
def test_check_odds_count_every_roll_the_rules_resolve(mode: str, edge: bool) -> None:
    # the odds are shared between checks whose TN stands as far above their bonus; each
    # is still the count of every roll resolved as the rules resolve it
    from itertools import product

    for bonus, tn in ((0, 15), (4, 19), (-2, 13), (7, 25), (11, 20)):
        margins: dict[int, int] = {}
        for faces in product(range(1, 11), repeat=rules.dice_count(mode)):
            mos = rules.resolve_check(faces, mode, bonus, tn, edge).mos
            margins[mos] = margins.get(mos, 0) + 1
        whole = 10 ** rules.dice_count(mode)
        odds = rules.check_odds(mode, bonus, tn, edge)
        assert odds.success == Fraction(sum(w for m, w in margins.items() if m >= 0), whole)
        for band in odds.bands:
            at = sum(w for m, w in margins.items() if rules.band_of(m) == band)
            assert odds.bands[band] == Fraction(at, whole), (bonus, tn, band)
