"""2d6-effect rules: the text's own numbers, and `margin resolve` against a brute-force reading."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import Band, band_of

from margin.core.errors import RuleError
from margin.core.resolve import resolve
from margin.core.systems.effect import rules
from margin.tui.table.rng import RandomDice


def ask(**request: Any) -> dict[str, Any]:
    return resolve({"system": "2d6-effect", **request}, RandomDice(5))


# -- the text's own numbers ------------------------------------------------------------


def test_the_target_is_eight_and_effect_is_the_distance() -> None:
    assert rules.judge([4, 4], 0) == (8, 0, True, "success")
    assert rules.judge([3, 4], 0) == (7, -1, False, "failure")


def test_no_natural_rolls() -> None:
    # a natural 12 that falls short after DMs fails; a natural 2 that reaches 8 succeeds
    assert ask(action="check", skill=0, difficulty="formidable", faces=[6, 6])["success"] is False
    assert ask(action="check", skill=3, difficulty="simple", faces=[1, 1])["success"] is True


def test_unskilled_is_minus_three() -> None:
    out = ask(action="check", skill=None, faces=[5, 5])
    assert (out["total"], out["effect"], out["unskilled"]) == (7, -1, True)
    assert ask(action="check", skill=0, faces=[5, 5])["total"] == 10


@pytest.mark.parametrize(
    ("name", "dm"),
    [
        ("simple", 6),
        ("easy", 4),
        ("routine", 2),
        ("average", 0),
        ("difficult", -2),
        ("very-difficult", -4),
        ("Very Difficult", -4),
        ("formidable", -6),
    ],
)
def test_the_ladder_by_name(name: str, dm: int) -> None:
    assert ask(action="check", skill=0, difficulty=name, faces=[3, 3])["total"] == 6 + dm


def test_the_ladder_by_dm_and_off_the_ladder() -> None:
    assert (
        ask(action="check", skill=0, difficulty=-4, faces=[3, 3])["difficulty"] == "very-difficult"
    )
    assert ask(action="check", skill=0, faces=[3, 3])["difficulty"] == "average"
    with pytest.raises(RuleError, match="difficulty: -3 is not a rung"):
        ask(action="check", skill=0, difficulty=-3, faces=[3, 3])
    with pytest.raises(RuleError, match="difficulty: 'impossible'"):
        ask(action="check", skill=0, difficulty="impossible", faces=[3, 3])


def test_bands() -> None:
    """Every Effect two dice and their DMs can give is in the band the text's list below
    (``EFFECT_BANDS``) names."""
    for effect in range(-30, 31):
        assert rules.band(effect) == brute_band(effect), effect


def test_exceptional_success_needs_modifiers() -> None:
    assert ask(action="odds", skill=0)["bands"]["exceptional-success"] == 0.0
    assert ask(action="odds", skill=2)["bands"]["exceptional-success"] == pytest.approx(1 / 36)


def test_situational_dm_is_one_either_way() -> None:
    assert ask(action="check", skill=0, circumstance=-1, faces=[4, 4])["success"] is False
    with pytest.raises(RuleError, match="circumstance: \\+2 .* difficulty"):
        ask(action="check", skill=0, circumstance=2, faces=[4, 4])
    with pytest.raises(RuleError, match="circumstance: -3"):
        ask(action="check", skill=0, circumstance=-3, faces=[4, 4])


@pytest.mark.parametrize(
    ("score", "dm"),
    [
        (0, -3),
        (1, -2),
        (2, -2),
        (3, -1),
        (5, -1),
        (6, 0),
        (8, 0),
        (9, 1),
        (11, 1),
        (12, 2),
        (14, 2),
        (15, 3),
    ],
)
def test_characteristic_dm_table(score: int, dm: int) -> None:
    assert rules.characteristic_dm(score) == dm
    assert ask(action="characteristic-dm", score=score)["dm"] == dm


@pytest.mark.parametrize(
    ("level", "rung"),
    [
        (0, "routine"),
        (1, "average"),
        (3, "average"),
        (4, "difficult"),
        (6, "difficult"),
        (7, "very-difficult"),
        (9, "very-difficult"),
        (10, "formidable"),
        (14, "formidable"),
    ],
)
def test_law_level_sets_the_difficulty(level: int, rung: str) -> None:
    assert rules.law_difficulty(level)[0] == rung
    assert ask(action="check", skill=0, law_level=level, faces=[4, 4])["difficulty"] == rung


def test_multiple_actions_cost_two_per_extra_thing() -> None:
    assert rules.multiple_action_dm(1) == 0
    assert rules.multiple_action_dm(2) == -2
    assert rules.multiple_action_dm(3) == -4
    assert ask(action="check", skill=0, actions=2, faces=[5, 5])["total"] == 8


# -- assistance ----------------------------------------------------------------------------


@pytest.mark.parametrize("disposition", ["hostile", "unfriendly", "neutral"])
def test_less_than_friendly_refuses(disposition: str) -> None:
    out = ask(action="assist", skill=3, disposition=disposition, faces=[6, 6])
    assert out["refused"] is True
    assert disposition in out["reason"]
    assert "dm" not in out


def test_a_helper_without_the_skill_refuses() -> None:
    out = ask(action="assist", skill=None, disposition="helpful", faces=[6, 6])
    assert out["refused"] is True
    assert "skill" in out["reason"]


def test_friendly_brings_one_level_helpful_brings_all() -> None:
    friendly = ask(action="assist", skill=3, disposition="friendly", faces=[4, 4])
    assert (friendly["skill_used"], friendly["effect"], friendly["dm"]) == (1, 1, 1)
    helpful = ask(action="assist", skill=3, disposition="helpful", faces=[4, 4])
    assert (helpful["skill_used"], helpful["dm"]) == (3, 3)
    zero = ask(action="assist", skill=0, disposition="friendly", faces=[4, 4])
    assert zero["skill_used"] == 0


def test_a_fumbling_helper_hands_over_a_penalty() -> None:
    out = ask(action="assist", skill=1, disposition="helpful", difficulty="difficult", faces=[1, 2])
    assert out["refused"] is False
    assert out["dm"] == -6


def test_bad_disposition_is_refused_by_name() -> None:
    with pytest.raises(RuleError, match="disposition: 'smitten'"):
        ask(action="assist", skill=1, disposition="smitten", faces=[1, 2])


# -- reference rules as resolve actions ------------------------------------------------------


def test_opposed_higher_effect_wins() -> None:
    out = ask(action="opposed", a={"skill": 2, "faces": [3, 3]}, b={"skill": 1, "faces": [4, 3]})
    assert (out["a"]["effect"], out["b"]["effect"], out["winner"]) == (0, 0, None)
    out = ask(action="opposed", a={"skill": 2, "faces": [3, 4]}, b={"skill": 1, "faces": [4, 3]})
    assert out["winner"] == "a"


def test_task_time_is_1d6_times_the_increment() -> None:
    assert ask(action="task-time", increment="minutes", faces=[4])["seconds"] == 240
    assert ask(action="task-time", increment="1D6x10 minutes", faces=[6])["seconds"] == 3600
    assert ask(action="task-time", combat=True) == {
        "combat": True,
        "faces": [],
        "seconds": 6,
        "dm": 0,
    }


def test_time_trading_moves_rows_for_dm() -> None:
    faster = ask(action="task-time", increment="hours", time_rows=-2, faces=[2])
    assert (faster["increment"], faster["dm"], faster["seconds"]) == ("minutes", -2, 120)
    slower = ask(action="task-time", increment="minutes", time_rows=1, faces=[2])
    assert (slower["increment"], slower["dm"]) == ("10-minutes", 1)
    with pytest.raises(RuleError, match="time_rows: 3"):
        ask(action="task-time", increment="minutes", time_rows=3, faces=[2])
    with pytest.raises(RuleError, match="runs off the time ladder"):
        ask(action="task-time", increment="seconds", time_rows=-1, faces=[2])
    assert ask(action="check", skill=0, time_rows=-1, faces=[4, 4])["total"] == 7


def test_the_informal_task_format() -> None:
    task = rules.parse("Very Difficult (-4) Engineering")
    assert (task.skill, task.difficulty, task.difficulty_dm) == (
        "Engineering",
        "very-difficult",
        -4,
    )
    assert task.characteristic is None
    assert task.increment is None
    assert (
        rules.parse("a Difficult (-2) Electronics (remote ops) task").skill
        == "Electronics (remote ops)"
    )


def test_the_formal_task_format() -> None:
    out = ask(
        action="parse-task",
        text="Bypass the lock: Electronics (security), INT, 1D6x10 minutes, Difficult (-2)",
    )
    assert out == {
        "description": "Bypass the lock",
        "skill": "Electronics (security)",
        "characteristic": "INT",
        "increment": "10-minutes",
        "difficulty": "difficult",
        "difficulty_dm": -2,
    }


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("Very Difficult (-2) Engineering", "it is -4"),
        ("Impossible Engineering", "does not start with a difficulty"),
        ("Electronics, INT, fortnights, Difficult", "fortnights"),
        ("Electronics, INT", "neither"),
        ("", "empty"),
    ],
)
def test_bad_task_statements(text: str, match: str) -> None:
    with pytest.raises(RuleError, match=match):
        rules.parse(text)


# -- margin resolve against an independent brute force -----------------------------------

#: "Difficulty is a modifier the referee sets before you roll, from +6 down to -6. When a task
#: states no difficulty, it is Average and worth nothing either way. Each rung is worth two
#: points": the ladder's rungs from easiest to hardest, as the text names them.
LADDER = ["simple", "easy", "routine", "average", "difficult", "very-difficult", "formidable"]
RUNGS = dict(zip(LADDER, range(6, -7, -2), strict=True))

#: "Effect is how far your total landed from the target: total minus 8. A success of exactly 8
#: has an Effect of 0, and a failure carries a negative Effect. ... Beat the target by 6 or more
#: and it is an exceptional success; miss it by 6 or more and it is an exceptional failure."
EFFECT_BANDS: list[Band] = [
    (6, None, "exceptional-success"),
    (0, 5, "success"),
    (-5, -1, "failure"),
    (None, -6, "exceptional-failure"),
]


def brute_band(effect: int) -> str:
    return band_of(effect, EFFECT_BANDS)


def brute_total(
    dice: tuple[int, ...], skill: int | None, cdm: int, difficulty: str, circ: int, dm: int
) -> int:
    return sum(dice) + (-3 if skill is None else skill) + cdm + RUNGS[difficulty] + circ + dm


def ask_of(action: str, skill: int | None, cdm: int, rung: str, **more: Any) -> dict[str, Any]:
    """``ask`` for ``action`` by one with ``skill`` and characteristic DM ``cdm``, at ``rung``."""
    return ask(action=action, skill=skill, characteristic_dm=cdm, difficulty=rung, **more)


skills = st.one_of(st.none(), st.integers(0, 5))
cdms = st.integers(-3, 3)
rungs = st.sampled_from(sorted(RUNGS))
circs = st.sampled_from([-1, 0, 1])
dms = st.integers(-6, 6)
d6 = st.integers(1, 6)


@settings(max_examples=300, deadline=None)
@given(skills, cdms, rungs, circs, dms, d6, d6)
def test_resolve_check_agrees_with_brute_force(
    skill: int | None, cdm: int, rung: str, circ: int, dm: int, a: int, b: int
) -> None:
    out = ask_of("check", skill, cdm, rung, circumstance=circ, dm=dm, faces=[a, b])
    total = brute_total((a, b), skill, cdm, rung, circ, dm)
    assert out["faces"] == [a, b]
    assert out["total"] == total
    assert out["effect"] == total - 8
    assert out["success"] == (total >= 8)
    assert out["band"] == brute_band(total - 8)


@settings(max_examples=100, deadline=None)
@given(skills, cdms, rungs, circs, dms)
def test_resolve_odds_agree_with_counting(
    skill: int | None, cdm: int, rung: str, circ: int, dm: int
) -> None:
    out = ask_of("odds", skill, cdm, rung, circumstance=circ, dm=dm)
    rolls = [brute_total(d, skill, cdm, rung, circ, dm) for d in product(range(1, 7), repeat=2)]
    assert out["success"] == pytest.approx(sum(t >= 8 for t in rolls) / 36)
    for band, chance in out["bands"].items():
        assert chance == pytest.approx(sum(brute_band(t - 8) == band for t in rolls) / 36)


dispositions = st.sampled_from(["hostile", "unfriendly", "neutral", "friendly", "helpful"])


@settings(max_examples=200, deadline=None)
@given(skills, cdms, rungs, dispositions, d6, d6)
def test_resolve_assist_agrees_with_brute_force(
    skill: int | None, cdm: int, rung: str, disposition: str, a: int, b: int
) -> None:
    out = ask_of("assist", skill, cdm, rung, disposition=disposition, faces=[a, b])
    willing = disposition in ("friendly", "helpful")
    assert out["refused"] == (not willing or skill is None)
    if out["refused"]:
        return
    assert skill is not None
    brought = min(skill, 1) if disposition == "friendly" else skill
    effect = a + b + brought + cdm + RUNGS[rung] - 8
    assert (out["skill_used"], out["effect"], out["dm"]) == (brought, effect, effect)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), d6, d6, d6, d6)
def test_resolve_opposed_agrees_with_brute_force(
    sa: int, sb: int, a1: int, a2: int, b1: int, b2: int
) -> None:
    out = ask(
        action="opposed", a={"skill": sa, "faces": [a1, a2]}, b={"skill": sb, "faces": [b1, b2]}
    )
    ea, eb = a1 + a2 + sa - 8, b1 + b2 + sb - 8
    assert out["winner"] == (None if ea == eb else "a" if ea > eb else "b")


def test_resolve_errors_name_the_field() -> None:
    with pytest.raises(RuleError, match="skill: missing"):
        ask(action="check", faces=[1, 1])
    with pytest.raises(RuleError, match="faces"):
        ask(action="check", skill=1, faces=[7, 1])
    with pytest.raises(RuleError, match="faces"):
        ask(action="check", skill=1, faces=[1, 1, 1])
    with pytest.raises(RuleError, match="colour: unknown field"):
        ask(action="check", skill=1, colour="red")
    with pytest.raises(RuleError, match="law_level"):
        ask(action="check", skill=1, difficulty="easy", law_level=3)
