"""Dice notation, typed faces and exact distributions."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from margin.core.dice import (
    DiceTerm,
    TypedDice,
    chance_at_least,
    dice_count,
    distribution,
    parse,
    roll,
)
from margin.core.errors import NotationError, RuleError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("2d10", "2d10"),
        ("3d10kh2", "3d10kh2"),
        ("4d6kl3", "4d6kl3"),
        ("d6", "1d6"),
        ("d%", "1d100"),
        ("2d6 + 1d4 - 1", "2d6+1d4-1"),
        ("-1+2d6", "-1+2d6"),
        ("2D6+3", "2d6+3"),
    ],
)
def test_parse_canonical(text: str, canonical: str) -> None:
    assert str(parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "position", "reason"),
    [
        ("2x6", 2, "unexpected 'x'"),
        ("3d", 3, "number of sides"),
        ("2d6+", 5, "term after the sign"),
        ("4d6kh5", 6, "keep 5 is out of range (1..4)"),
        ("2d6k2", 4, "'kh'"),
        ("d1", 2, "1 sides is out of range (2..1000)"),
        ("1d0", 3, "0 sides is out of range (2..1000)"),
        ("101d6", 1, "101 dice is out of range (1..100)"),
        ("7", 1, "no dice"),
        ("", 1, "empty"),
        ("2d6 ++ 1", 6, "expected a number"),
    ],
)
def test_bad_notation_points_at_the_character(text: str, position: int, reason: str) -> None:
    with pytest.raises(NotationError) as err:
        parse(text)
    assert f"position {position}" in str(err.value)
    assert reason in str(err.value)
    assert err.value.pointer.splitlines()[-1].index("^") == position - 1


def test_typed_faces_are_used_in_order_and_checked() -> None:
    result = roll(parse("3d10kh2+1"), TypedDice([2, 9, 5]))
    assert result.faces == [2, 9, 5]
    assert result.kept == [False, True, True]
    assert result.total == 15
    with pytest.raises(RuleError, match=r"11 is not a face of a d10 \(1..10\)"):
        roll(parse("2d10"), TypedDice([3, 11]))
    with pytest.raises(RuleError, match="more are needed"):
        roll(parse("2d10"), TypedDice([3]))
    leftover = TypedDice([1, 2, 3])
    roll(parse("2d6"), leftover)
    with pytest.raises(RuleError, match="3 given but the roll uses 2"):
        leftover.finish()


def test_two_d10_figures_of_the_rules_text() -> None:
    dist = distribution(parse("2d10"))
    assert chance_at_least(dist, 5) == Fraction(94, 100)
    assert chance_at_least(dist, 10) == Fraction(64, 100)
    assert chance_at_least(dist, 15) == Fraction(21, 100)
    assert chance_at_least(dist, 20) == Fraction(1, 100)


def _brute(text: str) -> dict[int, int]:
    expr = parse(text)
    out: dict[int, int] = {}
    n = dice_count(expr)
    sides = [t.sides for t in expr.terms if isinstance(t, DiceTerm) for _ in range(t.count)]
    assert len(sides) == n
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        total = roll(expr, TypedDice(faces)).total
        out[total] = out.get(total, 0) + 1
    return dict(sorted(out.items()))


@pytest.mark.parametrize(
    "text", ["3d10kh2", "3d10kl2", "4d6kl3", "4d6kh3", "2d6+1d4-1", "1d8-2d4", "3d6"]
)
def test_distribution_matches_brute_force(text: str) -> None:
    assert distribution(parse(text)) == _brute(text)


term = st.builds(
    lambda n, s, keep, k, neg: (
        f"{'-' if neg else '+'}{n}d{s}" + (f"{keep}{min(k, n)}" if keep else "")
    ),
    st.integers(1, 3),
    st.sampled_from([2, 3, 4, 6]),
    st.sampled_from(["", "kh", "kl"]),
    st.integers(1, 3),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(term, min_size=1, max_size=2), st.integers(-5, 5))
def test_random_expressions_match_brute_force(terms: list[str], k: int) -> None:
    text = "".join(terms).lstrip("+") + (f"{k:+d}" if k else "")
    assert distribution(parse(text)) == _brute(text)
    assert sum(distribution(parse(text)).values()) == sum(_brute(text).values())


def test_resolve_errors_show_values_as_json() -> None:
    from margin.core.resolve import resolve
    from margin.tui.table.rng import RandomDice

    def ask(**fields: object) -> None:
        resolve({"system": "2d10-edge", **fields}, RandomDice(1))

    with pytest.raises(RuleError, match="got true$"):
        ask(action="odds", bonus=True, tn=20)
    with pytest.raises(RuleError, match='got "3"$'):
        ask(action="odds", bonus="3", tn=20)
    with pytest.raises(RuleError, match="got null$"):
        ask(action="damage", dice=2, melee=None)
