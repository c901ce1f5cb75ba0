"""2d6-effect at the table: checks, assistance, tasks and the reference rules, through the log."""

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
    log_json,
    margin_demo,
    margin_do,
    margin_output,
    refused,
    run_margin,
    short_form,
    state_json,
)
from support import events_of as do

from margin.core.commands import convert_command
from margin.core.systems import get_system
from margin.core.systems.effect import present
from margin.core.systems.effect.state import EffectCharacter
from margin.events.systems.effect import EVENTS
from margin.tui.table.table import Table

SYSTEM = get_system("2d6-effect")

PARTY = (
    add_character(
        "Vex",
        {
            "characteristics": {"STR": 6, "INT": 10, "SOC": 5},
            "skills": {"Electronics": 2, "Pilot": 0},
        },
    ),
    add_character("Mira", {"characteristics": {"INT": 12, "DEX": 3}, "skills": {"Electronics": 3}}),
    *(
        add_character(
            name, {"characteristics": {"INT": 7}, "skills": {"Electronics": 4}, "disposition": mood}
        )
        for name, mood in (("Dock Boss", "friendly"), ("Guard", "neutral"))
    ),
    add_character(
        "Bartender",
        {"characteristics": {"INT": 6}, "skills": {"Carouse": 2}, "disposition": "helpful"},
    ),
)


def vex(table: Table) -> EffectCharacter:
    return character(table, "vex", EffectCharacter)


def open_table(path: Path, **options: Any) -> Table:
    t = Table.create(path, "2d6-effect", options)
    for data in PARTY:
        t.execute(convert_command("2d6-effect", data))
    return t


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = open_table(tmp_path / "e.margin")
    yield t
    t.close()


@pytest.fixture
def reference(tmp_path: Path) -> Any:
    options = {
        name: True
        for name in (
            "opposed_checks",
            "task_time",
            "task_format",
            "time_trading",
            "multiple_actions",
        )
    }
    t = open_table(tmp_path / "r.margin", **options)
    yield t
    t.close()


def test_a_skill_check_adds_every_dm(table: Table) -> None:
    (e,) = do(
        table,
        **check(
            "vex",
            "electronics",
            characteristic="int",
            difficulty="Difficult",
            circumstance=1,
            faces=[3, 3],
        ),
    )
    assert (e.skill_level, e.characteristic_dm, e.difficulty_dm, e.circumstance) == (2, 1, -2, 1)
    assert (e.total, e.effect, e.success, e.band) == (8, 0, True, "success")


def test_unskilled_and_characteristic_checks(table: Table) -> None:
    (e,) = do(table, **check("vex", "Streetwise", characteristic="SOC", faces=[5, 5]))
    assert e.unskilled
    assert e.unskilled_dm == -3
    assert e.characteristic_dm == -1
    assert e.total == 6
    (e,) = do(table, type="check", character="vex", characteristic="STR", faces=[4, 4])
    assert not e.unskilled
    assert e.total == 8
    assert e.label == "STR"
    (e,) = do(table, **check("vex", "pilot", faces=[4, 4]))
    assert e.skill_level == 0
    assert not e.unskilled
    assert e.total == 8


def test_characteristic_dms_from_the_sheet_option(table: Table) -> None:
    do(table, type="set-option", name="characteristic_dm", value="sheet")
    (e,) = do(table, type="check", character="vex", characteristic="INT", faces=[1, 1])
    assert e.characteristic_dm == 10


def test_law_level_as_difficulty_and_its_switch(table: Table) -> None:
    (e,) = do(table, **check("vex", "electronics", law_level=8, faces=[4, 4]))
    assert (e.difficulty, e.difficulty_dm, e.law_level) == ("very-difficult", -4, 8)
    refused(
        table,
        "law_level: the law level sets",
        **check("vex", "pilot", law_level=2, difficulty="easy"),
    )
    do(table, type="set-option", name="law_level", value=False)
    refused(table, "law_level: the law_level rule is off", **check("vex", "pilot", law_level=2))


def test_bad_checks_are_refused_and_append_nothing(table: Table) -> None:
    refused(table, "circumstance: \\+2", **check("vex", "pilot", circumstance=2))
    refused(table, "difficulty: -1", **check("vex", "pilot", difficulty=-1))
    refused(table, "characteristic 'LUCK'", **check("vex", "pilot", characteristic="LUCK"))
    refused(table, "name a skill", type="check", character="vex")
    refused(table, "faces: 7", **check("vex", "pilot", faces=[7, 1]))
    refused(table, "faces: 3 given", **check("vex", "pilot", faces=[1, 2, 3]))


def test_reference_rules_are_off_by_default(table: Table) -> None:
    refused(table, "multiple_actions rule is off", **check("vex", "pilot", actions=2))
    refused(table, "task_time rule is off", **check("vex", "pilot", increment="minutes"))
    refused(table, "time_trading rule is off", **check("vex", "pilot", time_rows=1))
    refused(
        table, "task_format rule is off", type="check", character="vex", written="Easy (+4) Pilot"
    )
    refused(
        table,
        "opposed_checks rule is off",
        type="opposed",
        a={"character": "vex", "skill": "pilot"},
        b={"character": "mira", "skill": "pilot"},
    )


# -- assistance --------------------------------------------------------------------------


def test_assistance_becomes_a_dm_on_the_next_check(table: Table) -> None:
    (help_,) = do(
        table,
        **assist(
            "mira", "vex", "electronics", characteristic="int", difficulty="difficult", faces=[5, 4]
        ),
    )
    assert (help_.skill_used, help_.effect, help_.dm) == (3, 4, 4)
    assert (
        present.status(table.state.characters["vex"], table.state)[0]
        == "help +4 on electronics (mira)"
    )
    refused(table, "already has mira's help", **assist("dock boss", "vex", "electronics"))
    (e,) = do(table, **check("vex", "electronics", faces=[1, 1]))
    assert (e.assist_dm, e.assist_by, e.total) == (4, "mira", 8)
    (e,) = do(table, **check("vex", "electronics", faces=[1, 1]))
    assert e.assist_dm == 0


def test_friendly_helpers_hold_back_and_others_refuse(table: Table) -> None:
    (e,) = do(table, **assist("dock boss", "vex", "electronics", faces=[4, 4]))
    assert (e.disposition, e.skill_level, e.skill_used, e.dm) == ("friendly", 4, 1, 1)
    do(table, type="undo")
    (e,) = do(
        table, **assist("dock boss", "vex", "electronics", disposition="helpful", faces=[4, 4])
    )
    assert e.skill_used == 4
    do(table, type="undo")
    (e,) = do(table, **assist("guard", "vex", "electronics"))
    assert e.refused
    assert "neutral" in e.reason
    assert e.faces == []
    (e,) = do(table, **assist("bartender", "vex", "electronics", faces=[6, 6]))
    assert e.refused
    assert "does not know" in e.reason
    assert vex(table).assists == {}
    refused(table, "cannot help themself", **assist("vex", "vex", "pilot"))


def test_a_bad_helper_makes_it_worse(table: Table) -> None:
    do(table, **assist("mira", "vex", "electronics", difficulty="formidable", faces=[1, 1]))
    (e,) = do(table, **check("vex", "electronics", faces=[6, 6]))
    assert e.assist_dm == -9
    assert e.total == 5
    assert not e.success


# -- retries -------------------------------------------------------------------------------


def test_a_done_task_gives_nothing_new(table: Table) -> None:
    (e,) = do(table, **check("vex", "electronics", task="Port Computer", faces=[1, 1]))
    assert not e.success
    (e,) = do(table, **check("vex", "electronics", task="port computer", faces=[5, 5]))
    assert e.success
    assert table.state.world.tasks["port computer"].attempts == 2
    refused(table, "already done by Vex", **check("mira", "electronics", task="port computer"))
    do(table, type="undo")
    (e,) = do(table, **check("mira", "electronics", task="port computer", faces=[5, 5]))
    assert e.success


def test_the_gm_can_close_the_door(table: Table) -> None:
    do(table, type="check", character="vex", characteristic="str", task="cliff", faces=[1, 1])
    do(table, type="close-task", task="Cliff", reason="fell off it")
    refused(
        table,
        "the GM closed it \\(fell off it\\)",
        type="check",
        character="vex",
        characteristic="str",
        task="cliff",
    )
    refused(table, "already closed", type="close-task", task="cliff")
    do(table, type="undo")
    do(table, type="check", character="vex", characteristic="str", task="cliff", faces=[6, 6])


# -- reference rules switched on -------------------------------------------------------------


def test_opposed_checks(reference: Table) -> None:
    (e,) = do(
        reference,
        type="opposed",
        a={"character": "vex", "skill": "electronics", "characteristic": "int", "faces": [4, 4]},
        b={"character": "mira", "skill": "electronics", "characteristic": "int", "faces": [3, 3]},
    )
    assert (e.a.effect, e.b.effect, e.winner) == (3, 3, None)
    (e,) = do(
        reference,
        type="opposed",
        a={"character": "vex", "skill": "electronics", "faces": [4, 4]},
        b={"character": "mira", "skill": "electronics", "faces": [1, 1]},
    )
    assert e.winner == "vex"


def test_task_time_and_combat_rounds(reference: Table) -> None:
    (e,) = do(reference, **check("vex", "electronics", increment="10 minutes", faces=[4, 4, 3]))
    assert (e.increment, e.time_die, e.seconds) == ("10-minutes", 3, 1800)
    (e,) = do(reference, **check("vex", "pilot", combat=True, faces=[4, 4]))
    assert (e.seconds, e.time_die) == (6, None)
    refused(reference, "one round", **check("vex", "pilot", combat=True, increment="minutes"))


def test_time_trading_is_declared_with_the_check(reference: Table) -> None:
    (e,) = do(
        reference, **check("vex", "electronics", increment="hours", time_rows=-2, faces=[4, 4, 2])
    )
    assert (e.increment, e.time_rows, e.total, e.seconds) == ("minutes", -2, 8, 120)
    refused(reference, "time_rows: 3", **check("vex", "pilot", increment="hours", time_rows=3))
    refused(reference, "needs the task's increment", **check("vex", "pilot", time_rows=1))
    refused(reference, "combat round is fixed", **check("vex", "pilot", combat=True, time_rows=1))


def test_written_tasks(reference: Table) -> None:
    (e,) = do(
        reference,
        type="check",
        character="vex",
        written="Very Difficult (-4) Engineering",
        characteristic="INT",
        faces=[6, 6],
    )
    assert (e.skill, e.unskilled, e.difficulty_dm, e.characteristic_dm, e.total) == (
        "Engineering",
        True,
        -4,
        1,
        6,
    )
    (e,) = do(
        reference,
        type="check",
        character="vex",
        written="Splice the feed: Electronics, INT, 1D6 minutes, Routine (+2)",
        faces=[2, 2, 5],
    )
    assert (e.skill_level, e.difficulty, e.increment, e.seconds, e.total) == (
        2,
        "routine",
        "minutes",
        300,
        9,
    )
    refused(
        reference,
        "difficulty: already stated",
        type="check",
        character="vex",
        written="Easy Pilot",
        difficulty="easy",
    )


def test_multiple_actions_penalise_every_check(reference: Table) -> None:
    (e,) = do(reference, **check("vex", "pilot", actions=2, faces=[5, 5]))
    assert (e.actions_dm, e.total) == (-2, 8)
    (e,) = do(reference, **check("vex", "electronics", actions=3, faces=[5, 5]))
    assert (e.actions_dm, e.total) == (-4, 8)


# -- screens ---------------------------------------------------------------------------------


def test_odds_include_waiting_help(table: Table) -> None:
    check = convert_command(
        "2d6-effect", {"type": "check", "character": "vex", "skill": "electronics"}
    )
    before = present.odds(check, table.state)
    assert before is not None
    assert before.success == pytest.approx(26 / 36)
    do(table, **assist("mira", "vex", "electronics", faces=[6, 6]))
    after = present.odds(check, table.state)
    assert after is not None
    assert after.success == pytest.approx(1.0)
    assert sum(after.bands.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (
            "check vex electronics difficult",
            {
                "type": "check",
                "character": "Vex",
                "difficulty": "difficult",
                "skill": "electronics",
            },
        ),
        (
            "check vex electronics int very difficult +1",
            {
                "type": "check",
                "character": "Vex",
                "characteristic": "int",
                "difficulty": "very-difficult",
                "circumstance": 1,
                "skill": "electronics",
            },
        ),
        (
            "assist mira vex electronics",
            {"type": "assist", "helper": "Mira", "character": "Vex", "skill": "electronics"},
        ),
        (
            "check vex electronics -4 -1",
            {
                "type": "check",
                "character": "Vex",
                "difficulty": -4,
                "circumstance": -1,
                "skill": "electronics",
            },
        ),
        ("close the cargo door", {"type": "close-task", "task": "the cargo door"}),
    ],
)
def test_short_forms(table: Table, line: str, command: dict[str, Any]) -> None:
    assert short_form(line, table) == command


def test_short_form_law_level_and_what_is_not_ours(table: Table) -> None:
    law = short_form("check vex streetwise soc law 9", table)
    assert law is not None
    assert law["law_level"] == 9
    assert short_form("wave", table) is None
    for line in ("check vex pilot", "assist mira vex electronics"):
        data = short_form(line, table)
        assert data is not None, line
        convert_command("2d6-effect", data)


# -- a scene through `margin do`, undone and replayed ------------------------------------------


def test_a_scene_through_margin_do_with_undo_and_replay(tmp_path: Path) -> None:
    path = str(tmp_path / "scene.margin")
    assert run_margin("new", path, "--system", "2d6-effect")[0] == 0
    script = [
        *PARTY,
        assist("Guard", "Vex", "Electronics"),
        assist("Mira", "Vex", "Electronics", faces=[2, 2]),
        check("Vex", "Electronics", task="vault", faces=[1, 1]),
        check("Vex", "Electronics", task="vault", faces=[5, 1]),
        {"type": "undo"},
        check("Vex", "Electronics", task="vault", circumstance=3),
        check("Vex", "Electronics", task="vault", faces=[6, 5]),
        check("Mira", "Electronics", task="vault"),
    ]
    code, replies = margin_do(path, *script)
    assert code == 1
    assert "circumstance: +3" in replies[10]["error"]
    assert "already done" in replies[12]["error"]
    assert [bool(r.get("ok")) for r in replies] == [True] * 10 + [False, True, False]

    log = log_json(path)
    checks = [r for r in log if r["type"] == "effect.check"]
    # Mira's help (level 3, no characteristic: Effect 2+2+3-8 = -1) lands on the first check only
    assert [(c["total"], c["assist_dm"], c["undone"]) for c in checks] == [
        (3, -1, False),
        (8, 0, True),
        (13, 0, False),
    ]
    assert [r["refused"] for r in log if r["type"] == "effect.assist"] == [True, False]

    state = state_json(path)
    assert state["world"]["tasks"]["vault"] == {
        "status": "done",
        "attempts": 2,
        "by": "Vex",
        "reason": "",
    }

    # replay: right after the first check the help is spent; right before it, it was waiting
    first = checks[0]["seq"]
    waiting = state_json(path, "--at", str(first - 1))
    assert waiting["characters"]["vex"]["assists"]["electronics"]["dm"] == -1
    second = str(checks[1]["seq"])
    assert state_json(path, "--at", second)["world"]["tasks"]["vault"]["status"] == "done"
    corrected = state_json(path, "--at", second, "--corrected")
    assert corrected["world"]["tasks"]["vault"]["status"] == "open"

    out = margin_output("log", path)
    assert "Guard will not help Vex" in out
    assert "(undone)" in out


def test_the_demo_table_builds(tmp_path: Path) -> None:
    path = margin_demo(tmp_path, "2d6-effect")
    tasks = state_json(path)["world"]["tasks"]
    assert tasks["the port computer"]["status"] == "done"
    assert tasks["the cargo door"]["status"] == "closed"
    out = margin_output("rules", "2d6-effect")
    assert "Effect" in out
    assert "law_level" in out


def test_every_event_has_a_log_line(reference: Table) -> None:
    do(reference, **assist("guard", "vex", "electronics"))
    do(reference, **assist("dock boss", "vex", "electronics", faces=[4, 4]))
    do(reference, **check("vex", "electronics", task="vault", faces=[6, 6]))
    do(reference, type="close-task", task="cliff", reason="fell")
    do(
        reference,
        type="opposed",
        a={"character": "vex", "skill": "pilot", "faces": [1, 2]},
        b={"character": "mira", "skill": "pilot", "faces": [3, 4]},
    )
    do(reference, **check("vex", "pilot", increment="hours", faces=[3, 3, 2]))
    describe = present.describe
    lines: dict[str, list[str]] = {}
    for record in reference.store.records():
        data = msgspec.to_builtins(record.event)
        line = describe(data)
        if data["type"].startswith("effect."):
            assert line, data
            lines.setdefault(data["type"], []).append(line)
    assert set(lines) == {e.__struct_config__.tag for e in EVENTS}
    assert "guard will not help vex" in lines["effect.assist"][0]
    assert "holding back to 1 of 4 levels" in lines["effect.assist"][1]
    assert "mira wins" in lines["effect.opposed"][0]
    assert "takes 2 hours (2 x hours)" in lines["effect.check"][-1]


def test_options_at_creation_from_the_command_line(tmp_path: Path) -> None:
    path = str(tmp_path / "o.margin")
    args = ("new", path, "--system", "2d6-effect", "--option", "opposed_checks=on")
    assert run_margin(*args)[0] == 0
    options = state_json(path)["options"]
    assert options["opposed_checks"] is True
    assert options["task_time"] is False
    assert options["law_level"] is True
    assert options["characteristic_dm"] == "table"


def test_records_about_hidden_characters_are_gm_only(table: Table) -> None:
    spy = {
        "type": "add-character",
        "name": "Spy",
        "hidden": True,
        "sheet": {"skills": {"Deception": 2}},
    }
    table.execute(convert_command("2d6-effect", spy))
    secret = table.execute(
        convert_command("2d6-effect", {"type": "check", "character": "spy", "skill": "deception"})
    )
    seen = table.execute(
        convert_command("2d6-effect", {"type": "check", "character": "vex", "skill": "pilot"})
    )
    assert secret[0].visibility.gm_only
    assert not seen[0].visibility.gm_only
    helped = table.execute(
        convert_command(
            "2d6-effect",
            {"type": "assist", "helper": "spy", "character": "vex", "skill": "deception"},
        )
    )
    assert not helped[0].visibility.gm_only
