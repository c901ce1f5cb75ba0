"""2d6-effect input a GM may get wrong: each refused in one clear line, nothing appended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import (
    add_character,
    assist,
    character,
    check,
    demo_opening,
    opening_fixture,
    records_of,
    refused,
)
from support import events_of as do

from margin.core.commands import convert_command
from margin.core.errors import RuleError
from margin.core.resolve import resolve
from margin.core.systems import get_system
from margin.core.systems.effect import present
from margin.core.systems.effect.state import EffectCharacter
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = get_system("2d6-effect")


def vex(table: Table) -> EffectCharacter:
    return character(table, "vex", EffectCharacter)


table = opening_fixture("2d6-effect", 4)


@pytest.mark.parametrize(
    ("command", "match"),
    [
        (check("Vex", ""), r"^skill: empty"),
        (check("Vex", "  ", characteristic=""), r"^skill: empty"),
        ({"type": "check", "character": "Vex", "characteristic": " "}, r"^characteristic: empty"),
        (check("Vex", "Electronics", characteristic=""), r"^characteristic: empty"),
        (assist("Mira", "Vex", ""), r"^skill: empty"),
        (
            {"type": "assist", "helper": "Mira", "character": "Vex", "characteristic": ""},
            r"^characteristic: empty",
        ),
    ],
)
def test_blank_skill_or_characteristic_is_refused(
    table: Table, command: dict[str, Any], match: str
) -> None:
    refused(table, match, **command)


@pytest.mark.parametrize(
    ("command", "match"),
    [
        (
            {"type": "check", "character": "Vex", "characteristic": "STR", "law_level": 10**22},
            r"^law_level: 10{22} is out of range \(0\.\.99\)$",
        ),
        (
            add_character("Huge", {"skills": {"Gun": 10**20}}),
            r"^sheet\.skills\.Gun: .* out of range \(0\.\.20\)$",
        ),
        (
            add_character("Huge", {"characteristics": {"STR": 10**26}}),
            r"^sheet\.characteristics\.STR: .* out of range \(-20\.\.99\)$",
        ),
    ],
)
def test_huge_numbers_are_refused(table: Table, command: dict[str, Any], match: str) -> None:
    refused(table, match, **command)


def test_huge_numbers_are_refused_by_resolve() -> None:
    with pytest.raises(RuleError, match=r"^law_level: .* out of range \(0\.\.99\)$"):
        resolve({"system": "2d6-effect", "action": "law-level", "law_level": 10**30}, RandomDice(1))
    with pytest.raises(RuleError, match=r"^skill: .* out of range \(0\.\.20\)$"):
        resolve(
            {"system": "2d6-effect", "action": "odds", "skill": 10**30, "characteristic_dm": 0},
            RandomDice(1),
        )


def test_a_disposition_in_capitals_is_read(table: Table) -> None:
    (event,) = do(
        table, **assist("Mira", "Vex", "Electronics", disposition="Friendly", faces=[3, 3])
    )
    assert event.disposition == "friendly"
    assert event.skill_used == 1
    assert vex(table).assists["electronics"].dm == event.dm


def test_odds_of_help_from_a_disposition_in_capitals(table: Table) -> None:
    assert SYSTEM.odds is not None
    command = convert_command(
        "2d6-effect", assist("Mira", "Vex", "Electronics", disposition="FRIENDLY")
    )
    odds = present.odds(command, table.state)
    assert odds is not None
    assert "+1 vs 8" in odds.label  # one level held back to, no INT given


@pytest.mark.parametrize(
    "line", ["check vex str law ²", "check vex str +²", "assist mira vex str +²"]
)
def test_digit_lookalikes_are_not_numbers(table: Table, line: str) -> None:
    data = SYSTEM.parse_words(line.split(), table.state)
    assert data is not None
    assert "law_level" not in data
    assert "difficulty" not in data


def test_a_written_skill_with_a_speciality_uses_the_skill(tmp_path: Path) -> None:
    t = demo_opening(tmp_path / "w.margin", "2d6-effect", 2, task_format=True)
    try:
        (event,) = do(
            t,
            type="check",
            character="Vex",
            written="Hack the lock: Electronics (security), INT, 1D6x10 minutes, Difficult (-2)",
            faces=[4, 4],
        )
        assert (event.skill, event.skill_level, event.unskilled) == ("Electronics", 2, False)
        assert event.total == 4 + 4 + 2 + 1 - 2
        # the statement's time is kept; with task_time off it is not rolled
        assert (event.increment, event.time_die, event.seconds) == ("10-minutes", None, None)
        (event,) = do(t, **check("Vex", "Streetwise (port)", faces=[4, 4]))
        assert (event.skill, event.skill_level, event.unskilled_dm) == (
            "Streetwise (port)",
            None,
            -3,
        )
    finally:
        t.close()


def test_law_without_a_level_is_refused(table: Table) -> None:
    with pytest.raises(RuleError, match=r"^check: 'law' needs the world's law level"):
        SYSTEM.parse_words(["check", "mira", "soc", "law"], table.state)
    # a skill whose name ends in 'law' still reads as a skill
    data = SYSTEM.parse_words(["check", "mira", "maritime", "law"], table.state)
    assert data is not None
    assert data["skill"] == "maritime law"


def test_undoing_help_undoes_the_check_that_used_it(table: Table) -> None:
    (helped,) = records_of(table, **assist("Mira", "Vex", "Electronics", faces=[6, 6]))
    (checked,) = records_of(
        table, **check("Vex", "Electronics", characteristic="INT", faces=[1, 1])
    )
    assert checked.event.assist_dm == helped.event.dm == 7
    assert checked.cause == helped.seq
    do(table, type="undo", command=helped.command)
    # the check counted on help that never happened: it goes too, and nothing waits on Vex
    assert vex(table).assists == {}
    assert vex(table).last is None
    do(table, type="redo")
    last = vex(table).last
    assert last is not None
    assert (last.label, last.total) == ("Electronics", 12)
    # undoing the check alone gives the help back for the next check
    do(table, type="undo", command=checked.command)
    assert vex(table).assists["electronics"].dm == 7


def test_opposed_short_form_takes_each_sides_dice(tmp_path: Path) -> None:
    t = demo_opening(tmp_path / "o.margin", "2d6-effect", 2, opposed_checks=True)
    try:
        line = "opposed vex electronics int roll 3 4 vs mira electronics int roll 6 5"
        opposed = SYSTEM.parse_words(line.split(), t.state)
        assert opposed is not None
        assert opposed["a"]["faces"] == [3, 4]
        assert opposed["b"]["faces"] == [6, 5]
        (event,) = do(t, **opposed)
        assert (event.a.total, event.b.total) == (3 + 4 + 2 + 1, 6 + 5 + 3 + 2)
        assert event.winner == "mira"
        with pytest.raises(RuleError, match=r"^opposed: type each side's two d6 after 'roll'"):
            SYSTEM.parse_words(
                ["opposed", "vex", "electronics", "roll", "3", "vs", "mira", "int"], t.state
            )
    finally:
        t.close()


def test_check_short_form_names_a_task(table: Table) -> None:
    line = "check vex electronics int difficult task the Port  Computer"
    data = SYSTEM.parse_words(line.split(), table.state)
    assert data == {
        "type": "check",
        "character": "Vex",
        "skill": "electronics",
        "characteristic": "int",
        "difficulty": "difficult",
        "task": "the Port Computer",
    }
    (event,) = do(table, **data, faces=[6, 6])
    assert event.task == "the port computer"
    again = SYSTEM.parse_words(
        ["check", "mira", "int", "task", "the", "port", "computer"], table.state
    )
    assert again is not None
    with pytest.raises(RuleError, match=r"^task 'the port computer': already done"):
        do(table, **again)
    with pytest.raises(RuleError, match=r"^task: give it after 'task'"):
        SYSTEM.parse_words(["check", "vex", "int", "task"], table.state)


def test_check_short_form_takes_a_reason_and_refuses_stray_words(table: Table) -> None:
    line = "check vex electronics int for the password task search for clues"
    data = SYSTEM.parse_words(line.split(), table.state)
    assert data is not None
    assert (data["skill"], data["reason"], data["task"]) == (
        "electronics",
        "the password",
        "search for clues",
    )
    # a typo after a skill on the sheet is not an unskilled check of a new skill
    with pytest.raises(RuleError, match=r"^check: 'difficlt' after 'int' is not a"):
        SYSTEM.parse_words(["check", "vex", "electronics", "int", "difficlt"], table.state)
    # a skill nobody at the table has is still an unskilled attempt
    data = SYSTEM.parse_words(["check", "vex", "streetwise", "soc"], table.state)
    assert data is not None
    assert data["skill"] == "streetwise"


def test_a_second_offer_of_help_under_another_spelling_is_refused(table: Table) -> None:
    do(table, **assist("Mira", "Vex", "Electronics", faces=[6, 6]))
    refused(
        table,
        "^assist: Vex already has mira's help on electronics \\(one helper per check\\)$",
        **assist("Mira", "Vex", "Electronics (security)", faces=[1, 1]),
    )
    assert vex(table).assists["electronics"].dm == 7


def test_log_lines_of_help_and_opposed_checks_add_up(tmp_path: Path) -> None:
    t = demo_opening(tmp_path / "l.margin", "2d6-effect", 3, opposed_checks=True)
    try:
        help_ = assist("Dock Boss", "Vex", "Broker", characteristic="INT", difficulty="difficult")
        (helped,) = do(t, **help_, faces=[5, 4])
        line = present.describe(msgspec.to_builtins(helped))
        assert line == (
            "dock-boss (friendly, holding back to 1 of 2 levels) helps vex with Broker: "
            "5+4 (typed) with Broker +1, INT +0, difficult -2 = 8, Effect +0 -> DM +0 on the check"
        )
        (opposed,) = do(
            t,
            type="opposed",
            a={"character": "Vex", "skill": "Electronics", "faces": [3, 4]},
            b={"character": "Mira", "characteristic": "INT", "faces": [6, 5]},
        )
        line = present.describe(msgspec.to_builtins(opposed))
        assert line == (
            "opposed: vex Electronics 3+4 (typed) +2 = 9 (Effect +1) against "
            "mira INT 6+5 (typed) +2 = 13 (Effect +5): mira wins"
        )
    finally:
        t.close()
