"""d100-under rules: the text's own numbers, and `margin resolve` against a brute-force reading."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import Band, band_of

from margin.core.dice import TypedDice
from margin.core.errors import RuleError
from margin.core.resolve import resolve
from margin.core.systems.under import rules
from margin.core.systems.under.resolve import Reading
from margin.tui.table.rng import RandomDice


def ask(**request: Any) -> dict[str, Any]:
    return resolve({"system": "d100-under", **request}, RandomDice(7))


# -- the text's own numbers ------------------------------------------------------------


def test_unskilled_target_from_a_rating() -> None:
    assert rules.rating_target(1) == 30  # Kael's AW +1 on the padlock
    assert rules.rating_target(2) == 35  # Kael's raw BR
    assert rules.rating_target(-5) == 0


def test_kael_rolls_73_against_30_and_the_pick_snaps() -> None:
    out = ask(action="check", target=30, faces=[7, 3])
    assert out["roll"] == 73
    assert out["success"] is False
    assert out["margin"] == -43


def test_percentile_from_two_d10() -> None:
    assert rules.read_percentile(7, 3) == 73
    assert rules.read_percentile(0, 7) == 7
    assert rules.read_percentile(0, 0) == 100
    assert rules.read_percentile(1, 0) == 10
    assert [rules.read_percentile(*rules.faces_of(r)) for r in range(1, 101)] == list(range(1, 101))


def test_success_is_under_or_equal() -> None:
    assert rules.judge(30, 30).success
    assert not rules.judge(30, 31).success


def test_01_always_crits_and_00_always_fumbles() -> None:
    low = rules.judge(0, 1)
    assert low.success
    assert low.critical
    high = rules.judge(150, 100)
    assert not high.success
    assert high.fumble
    assert not high.critical
    assert ask(action="check", target=99, faces=[0, 0])["fumble"] is True
    assert ask(action="check", target=5, faces=[0, 1])["critical"] is True


@pytest.mark.parametrize(
    ("target", "points"),
    [(1, 0), (25, 0), (26, 1), (50, 1), (51, 2), (66, 2), (75, 2), (76, 3), (99, 3)],
)
def test_crit_range_by_bracket(target: int, points: int) -> None:
    assert rules.crit_range(target) == points


def crits(target: int, reading: str) -> list[int]:
    return [r for r in range(1, 101) if rules.judge(target, r, reading).critical]


def test_crit_on_by_the_table() -> None:
    assert crits(20, "table") == [1]
    assert crits(40, "table") == [1, 40]
    assert crits(66, "table") == [1, 65, 66]
    assert crits(90, "table") == [1, 88, 89, 90]


def test_crit_on_by_the_example() -> None:
    # Kael's Melee 66: the worked example crits on 64, 65 and 66
    assert crits(66, "example") == [1, 64, 65, 66]
    assert crits(40, "example") == [1, 39, 40]
    assert crits(90, "example") == [1, 87, 88, 89, 90]


def test_the_example_reading_is_an_option_of_resolve() -> None:
    assert ask(action="check", target=66, roll=64)["critical"] is False
    assert ask(action="check", target=66, roll=64, crit_reading="example")["critical"] is True
    with pytest.raises(RuleError, match="crit_reading"):
        ask(action="check", target=66, roll=64, crit_reading="both")


def test_opposed_from_the_text() -> None:
    out = ask(action="opposed", a={"target": 35, "roll": 22}, b={"target": 30, "roll": 28})
    assert out["a"]["margin"] == 13
    assert out["b"]["margin"] == 2
    assert out["winner"] == "a"
    assert out["escalation"] is False


def test_opposed_one_sided_and_stalemates() -> None:
    one = ask(action="opposed", a={"target": 35, "roll": 50}, b={"target": 30, "roll": 29})
    assert one["winner"] == "b"
    tie = ask(action="opposed", a={"target": 35, "roll": 25}, b={"target": 30, "roll": 20})
    assert tie["winner"] is None
    assert tie["stalemate"]
    assert not tie["escalation"]
    worse = ask(action="opposed", a={"target": 35, "roll": 90}, b={"target": 30, "faces": [0, 0]})
    assert worse["winner"] is None
    assert worse["escalation"] is True


def test_odds_are_exact() -> None:
    out = ask(action="odds", target=66)
    assert out["success"] == pytest.approx(0.66)
    assert out["bands"] == pytest.approx(
        {"critical": 0.03, "success": 0.63, "failure": 0.33, "fumble": 0.01}
    )
    assert sum(ask(action="opposed-odds", a={"target": 35}, b={"target": 30}).values()) > 0


def test_margin_d10s_read_ten_as_zero() -> None:
    faces, roll, source = rules.percentile(TypedDice([10, 10]))
    assert faces == [0, 0]
    assert roll == 100
    faces, roll, _ = rules.percentile(TypedDice([10, 7]))
    assert roll == 7


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ({"target": 30, "faces": [10, 3]}, "faces"),
        ({"target": 30, "faces": [3]}, "faces"),
        ({"target": 30, "roll": 0}, "roll"),
        ({"target": 30, "roll": 101}, "roll"),
        ({"target": 30, "roll": 5, "faces": [0, 5]}, "faces"),
        ({"target": -1, "roll": 5}, "target"),
        ({"target": "30", "roll": 5}, "target"),
        ({"roll": 5}, "target"),
        ({"target": 30, "roll": 5, "modifier": 3}, "modifier"),
    ],
)
def test_bad_requests_name_the_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(RuleError, match=field):
        ask(action="check", **request_)


# -- margin resolve against an independent brute force -----------------------------------


#: The rules text's critical range table: "| 1–25 | 0 | 01 only |", "| 26–50 | 1 | Target
#: value only |", "| 51–75 | 2 | Target and target−1 |", "| 76–99 | 3 | Target, target−1,
#: target−2 |".
CRIT_RANGES: list[Band] = [(1, 25, "0"), (26, 50, "1"), (51, 75, "2"), (76, 99, "3")]


def brute_check(target: int, roll: int, reading: str) -> dict[str, Any]:
    """The rules read straight off the text and the rulings, independently of margin's code."""
    # targets past the table's ends (below 1, above 99) keep the range of the row nearest
    points = int(band_of(min(max(target, 1), 99), CRIT_RANGES))
    if reading == "table":
        window = set(range(target - points + 1, target + 1))
    else:
        window = set(range(target - points, target + 1))
    success = roll != 100 and (roll <= target or roll == 1)
    critical = roll == 1 or (success and roll in window and roll != 100)
    return {
        "success": success,
        "critical": critical,
        "fumble": roll == 100,
        "margin": target - roll,
    }


def brute_winner(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    if a["success"] and b["success"]:
        return None if a["margin"] == b["margin"] else ("a" if a["margin"] > b["margin"] else "b")
    if a["success"] != b["success"]:
        return "a" if a["success"] else "b"
    return None


readings = st.sampled_from(["table", "example"])
targets = st.integers(0, 130)
digits = st.integers(0, 9)


@settings(max_examples=300, deadline=None)
@given(targets, digits, digits, readings)
def test_resolve_check_agrees_with_brute_force(
    target: int, tens: int, ones: int, reading: str
) -> None:
    out = ask(action="check", target=target, faces=[tens, ones], crit_reading=reading)
    roll = tens * 10 + ones or 100
    assert out["roll"] == roll
    assert out["faces"] == [tens, ones]
    expected = brute_check(target, roll, reading)
    assert {k: out[k] for k in expected} == expected


@settings(max_examples=200, deadline=None)
@given(targets, st.integers(1, 100), targets, st.integers(1, 100), readings)
def test_resolve_opposed_agrees_with_brute_force(
    ta: int, ra: int, tb: int, rb: int, reading: str
) -> None:
    out = ask(
        action="opposed",
        a={"target": ta, "roll": ra},
        b={"target": tb, "roll": rb},
        crit_reading=reading,
    )
    a, b = brute_check(ta, ra, reading), brute_check(tb, rb, reading)
    assert out["winner"] == brute_winner(a, b)
    assert out["escalation"] == (not a["success"] and not b["success"])


@settings(max_examples=40, deadline=None)
@given(targets, readings)
def test_resolve_odds_agree_with_counting(target: int, reading: str) -> None:
    out = ask(action="odds", target=target, crit_reading=reading)
    judged = [brute_check(target, r, reading) for r in range(1, 101)]
    assert out["success"] == pytest.approx(sum(j["success"] for j in judged) / 100)
    assert out["bands"]["critical"] == pytest.approx(sum(j["critical"] for j in judged) / 100)
    assert out["bands"]["fumble"] == pytest.approx(0.01)


def test_opposed_odds_agree_with_counting() -> None:
    out = ask(action="opposed-odds", a={"target": 35}, b={"target": 30})
    wins = {"a": 0, "b": 0, None: 0}
    both_fail = 0
    for ra in range(1, 101):
        a = brute_check(35, ra, "table")
        for rb in range(1, 101):
            b = brute_check(30, rb, "table")
            wins[brute_winner(a, b)] += 1
            both_fail += not a["success"] and not b["success"]
    assert out["a"] == pytest.approx(wins["a"] / 10_000)
    assert out["b"] == pytest.approx(wins["b"] / 10_000)
    assert out["stalemate"] == pytest.approx(wins[None] / 10_000)
    assert out["escalation"] == pytest.approx(both_fail / 10_000)


def test_rolled_dice_are_echoed_and_reproducible() -> None:
    first = resolve({"system": "d100-under", "action": "check", "target": 50}, RandomDice(11))
    again = resolve({"system": "d100-under", "action": "check", "target": 50}, RandomDice(11))
    assert first == again
    assert rules.read_percentile(*first["faces"]) == first["roll"]


def test_a_requests_crit_readings_are_the_rules_readings() -> None:
    assert get_args(Reading) == rules.CRIT_READINGS
