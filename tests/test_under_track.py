"""d100-under at the table: checks, opposed checks and the timing track, through the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import (
    add_character,
    log_json,
    margin_demo,
    margin_do,
    margin_output,
    player_state_of,
    refused,
    run_margin,
    short_form,
    state_json,
)
from support import events_of as do

from margin.core.commands import convert_command
from margin.core.systems import get_system
from margin.core.systems.under import present
from margin.events.systems.under import EVENTS
from margin.tui.table.table import Table

SYSTEM = get_system("d100-under")

PARTY = (
    add_character("Kael", {"attributes": {"AW": 1, "BR": 2}, "skills": {"Melee": 66}}),
    add_character("Kid", {"attributes": {"AW": 2}, "skills": {"Revolver": 55}}),
    add_character("Rifleman", {"attributes": {"BR": 3}, "actions": {"arc rifle": 6}}),
    add_character("Cultist", {"attributes": {"BR": 1}}),
)


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = Table.create(tmp_path / "u.margin", "d100-under")
    for data in PARTY:
        t.execute(convert_command("d100-under", data))
    yield t
    t.close()


def act(who: str, action: str, **more: Any) -> dict[str, Any]:
    """The fields of ``who`` declaring ``action`` on the timing track, with ``more``."""
    return {"type": "act", "character": who, "action": action, **more}


def world(table: Table) -> Any:
    return table.state.world


# -- checks ------------------------------------------------------------------------------


def test_unskilled_check_uses_the_attribute(table: Table) -> None:
    (event,) = do(
        table, type="check", character="kael", skill="Security", attribute="AW", faces=[7, 3]
    )
    assert (event.target, event.roll, event.success, event.unskilled) == (30, 73, False, True)
    assert event.source == "typed"


def test_skill_target_and_criticals_follow_the_option(table: Table) -> None:
    (event,) = do(table, type="check", character="kael", skill="melee", roll=64)
    assert event.target == 66
    assert event.success
    assert not event.critical
    do(table, type="set-option", name="crit_reading", value="example")
    (event,) = do(table, type="check", character="kael", skill="melee", roll=64)
    assert event.critical
    assert event.crit_reading == "example"


def test_raw_attribute_and_given_target(table: Table) -> None:
    (event,) = do(table, type="check", character="kael", attribute="br", faces=[2, 2])
    assert (event.label, event.target, event.margin) == ("BR", 35, 13)
    (event,) = do(table, type="check", character="kael", target=60, faces=[0, 0])
    assert event.fumble
    assert not event.success
    assert event.roll == 100


def test_check_errors_name_the_input_and_append_nothing(table: Table) -> None:
    refused(table, "skill 'Security'", type="check", character="kael", skill="Security")
    refused(table, "attribute 'XX'", type="check", character="kael", attribute="XX")
    refused(
        table,
        "attribute: Kael has Melee",
        type="check",
        character="kael",
        skill="Melee",
        attribute="AW",
    )
    refused(table, "faces: 10", type="check", character="kael", skill="Melee", faces=[10, 0])
    refused(table, "character 'nobody'", type="check", character="nobody", target=40)
    refused(table, "name a skill", type="check", character="kael")


def test_opposed_check_and_escalation_record(table: Table) -> None:
    (event,) = do(
        table,
        type="opposed",
        a={"character": "kael", "attribute": "BR", "roll": 22},
        b={"character": "cultist", "target": 30, "roll": 28},
    )
    assert event.winner == "kael"
    assert not event.escalation
    first = table.projection.seq + 1
    events = do(
        table,
        type="opposed",
        a={"character": "kael", "attribute": "BR", "roll": 80},
        b={"character": "cultist", "attribute": "BR", "faces": [9, 9]},
    )
    assert events[0].stalemate
    assert events[0].escalation
    assert events[0].winner is None
    assert events[1].actors == ["kael", "cultist"]
    records = list(table.store.records(first - 1))
    assert records[1].cause == first
    assert world(table).escalations == 1
    do(table, type="undo")
    assert world(table).escalations == 0


# -- the timing track --------------------------------------------------------------------


def test_the_track_must_be_started(table: Table) -> None:
    refused(table, "start-track", **act("kid", "draw"))
    refused(table, "start-track", type="advance")
    do(table, type="start-track")
    refused(table, "already running", type="start-track")


def test_costs_tokens_and_count_order(table: Table) -> None:
    do(table, type="start-track", label="Vicker Street")
    (draw,) = do(table, **act("kid", "draw"))
    (rifle,) = do(table, **act("rifleman", "arc rifle"))
    (spell,) = do(table, **act("kael", "spell bind", cost=7))
    assert (draw.at, rifle.at, spell.at) == (2, 6, 7)
    events = do(table, type="advance", next=True)
    assert [type(e).__name__ for e in events] == [
        "TrackAdvanced",
        "TrackAdvanced",
        "ActionsResolved",
    ]
    assert events[-1].count == 2
    assert [t.actor for t in events[-1].actions] == ["kid"]
    (revolver,) = do(table, **act("kid", "revolver"))
    assert (revolver.count, revolver.at) == (2, 5)
    events = do(table, type="advance", counts=4)
    resolved = [e for e in events if type(e).__name__ == "ActionsResolved"]
    assert [(e.count, [t.actor for t in e.actions]) for e in resolved] == [
        (5, ["kid"]),
        (6, ["rifleman"]),
    ]
    assert world(table).now == 6
    assert [t.actor for t in world(table).tokens] == ["kael"]


def test_ties_resolve_together_in_one_record(table: Table) -> None:
    do(table, type="start-track")
    do(table, **act("kid", "revolver"))
    do(table, **act("kael", "lunge", cost=3))
    events = do(table, type="advance", counts=3)
    (resolved,) = [e for e in events if type(e).__name__ == "ActionsResolved"]
    assert resolved.count == 3
    assert sorted(t.actor for t in resolved.actions) == ["kael", "kid"]
    line = present.describe({"type": "under.resolved", **_builtins(resolved)})
    assert line is not None
    assert "simultaneously" in line


def _builtins(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


def test_costs_are_data_and_spells_keep_to_their_range(table: Table) -> None:
    do(table, type="start-track")
    refused(table, "cost: a spell costs 2..8", **act("kael", "spell"))
    refused(table, "cost: 9 is not a spell", **act("kael", "spell", cost=9))
    refused(table, "has no usual cost", **act("kael", "climb"))
    refused(table, "cost: 0", **act("kael", "climb", cost=0))
    (event,) = do(table, **act("kael", "draw", cost=1))
    assert event.cost == 1
    refused(table, "already busy", **act("kael", "revolver"))


def test_interrupt_and_change_before_resolving(table: Table) -> None:
    do(table, type="start-track")
    do(table, **act("rifleman", "arc rifle"))
    do(table, **act("kid", "draw"))
    do(table, type="advance", counts=2)
    (cut,) = do(table, type="interrupt", character="rifleman", reason="shot")
    assert (cut.action, cut.at, cut.count) == ("arc rifle", 6, 2)
    assert world(table).tokens == []
    refused(table, "no pending action", type="interrupt", character="rifleman")
    do(table, **act("kael", "spell ward", cost=8))
    (swap,) = do(table, type="change", character="kael", action="draw")
    assert (swap.old_at, swap.at) == (10, 4)
    assert [(t.actor, t.action, t.at) for t in world(table).tokens] == [("kael", "draw", 4)]
    events = do(table, type="advance", next=True)
    assert events[-1].actions[0].action == "draw"


def test_undo_of_an_advance_puts_the_track_back(table: Table) -> None:
    do(table, type="start-track")
    do(table, **act("kid", "draw"))
    do(table, type="advance", counts=3)
    assert world(table).now == 3
    assert world(table).tokens == []
    do(table, type="undo")
    assert world(table).now == 0
    assert [t.action for t in world(table).tokens] == ["draw"]
    do(table, type="redo")
    assert world(table).now == 3


def test_clock_and_status_show_the_track(table: Table) -> None:
    assert present.clock(table.state) is None
    do(table, type="start-track")
    do(table, **act("kid", "revolver"))
    do(table, **act("kael", "draw"))
    clock = present.clock(table.state)
    assert clock is not None
    assert clock.title.startswith("Timing track: count 0")
    assert [(r.name, r.value, r.current) for r in clock.rows[:2]] == [
        ("Kael", "count 2", True),
        ("Kid", "count 3", False),
    ]
    assert ("Rifleman", "free") in [(r.name, r.value) for r in clock.rows]
    assert present.status(table.state.characters["kid"], table.state) == ["revolver @ 3"]
    do(table, type="end-track")
    assert present.clock(table.state) is None


def test_odds_of_a_check_and_an_opposed_check(table: Table) -> None:
    odds = present.odds(
        convert_command("d100-under", {"type": "check", "character": "kael", "skill": "melee"}),
        table.state,
    )
    assert odds is not None
    assert odds.success == pytest.approx(0.66)
    assert odds.bands["critical"] == pytest.approx(0.03)
    both = present.odds(
        convert_command(
            "d100-under",
            {
                "type": "opposed",
                "a": {"character": "kael", "attribute": "br"},
                "b": {"character": "cultist", "target": 30},
            },
        ),
        table.state,
    )
    assert both is not None
    assert sum(both.bands.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (
            "check kael library 60",
            {"type": "check", "character": "Kael", "target": 60, "skill": "library"},
        ),
        (
            "check kael security aw roll 07",
            {
                "type": "check",
                "character": "Kael",
                "faces": [0, 7],
                "attribute": "aw",
                "skill": "security",
            },
        ),
        ("act kid revolver", act("kid", "revolver")),
        (
            "act kael spell ward 5",
            act("kael", "spell ward", cost=5),
        ),
        ("advance", {"type": "advance"}),
        ("advance next", {"type": "advance", "next": True}),
    ],
)
def test_short_forms(table: Table, line: str, command: dict[str, Any]) -> None:
    assert short_form(line, table) == command


def test_short_form_opposed_vocabulary_and_what_is_not_ours(table: Table) -> None:
    opposed = short_form("opposed kael br vs cultist 30", table)
    assert opposed is not None
    assert opposed["b"] == {
        "character": "Cultist",
        "target": 30,
    }
    assert short_form("dance", table) is None
    assert {"check", "act", "advance"} <= set(present.vocabulary(table.state)["command"])
    for words in ("check kael melee", "act kid draw", "advance 2", "interrupt kid"):
        data = short_form(words, table)
        assert data is not None, words
        convert_command("d100-under", data)


def test_sheets_are_checked(table: Table) -> None:
    refused(
        table,
        "sheet.skills.Melee",
        type="add-character",
        name="Bad",
        sheet={"skills": {"Melee": "high"}},
    )
    refused(
        table,
        "sheet.attributes.AW",
        type="add-character",
        name="Bad",
        sheet={"attributes": {"AW": -6}},
    )
    refused(table, "sheet.powers", type="add-character", name="Bad", sheet={"powers": {}})


# -- a timing-track fight through `margin do`, undone and replayed -------------------------


def test_a_fight_through_margin_do_with_undo_and_replay(tmp_path: Path) -> None:
    path = str(tmp_path / "fight.margin")
    assert run_margin("new", path, "--system", "d100-under")[0] == 0
    script = [
        *PARTY,
        {"type": "start-track", "label": "Vicker Street"},
        act("Kid", "draw"),
        act("Rifleman", "arc rifle"),
        act("Kael", "spell ward", cost=4),
        {"type": "advance", "next": True},
        act("Kid", "revolver"),
        {"type": "advance", "counts": 2},
        act("Rifleman", "revolver"),
        {"type": "advance"},
        {"type": "check", "character": "Kid", "skill": "Revolver", "faces": [3, 1]},
        {"type": "interrupt", "character": "Rifleman", "reason": "shot"},
        {"type": "undo"},
    ]
    code, replies = margin_do(path, *script)
    assert code == 1
    assert "error" in replies[11]
    assert "already busy" in replies[11]["error"]
    assert all(r.get("ok") for i, r in enumerate(replies) if i != 11)

    state = state_json(path)
    # the interrupt was undone: the rifleman's shot is still coming on count 6
    assert state["world"]["now"] == 5
    assert [(t["actor"], t["at"]) for t in state["world"]["tokens"]] == [("rifleman", 6)]
    assert [t["actor"] for t in state["world"]["resolved"]["4"]] == ["kael"]
    assert [t["actor"] for t in state["world"]["resolved"]["5"]] == ["kid"]

    log = log_json(path)
    interrupted = [r for r in log if r["type"] == "under.interrupted"]
    assert len(interrupted) == 1
    assert interrupted[0]["undone"] is True
    declared = [r for r in log if r["type"] == "under.declared"]
    assert [(r["actor"], r["at"]) for r in declared] == [
        ("kid", 2),
        ("rifleman", 6),
        ("kael", 4),
        ("kid", 5),
    ]

    # replay: the track as it stood right after the first advance
    first_advance = next(r["seq"] for r in log if r["type"] == "under.resolved")
    then = state_json(path, "--at", str(first_advance))["world"]
    assert then["now"] == 2
    assert sorted((t["actor"], t["at"]) for t in then["tokens"]) == [("kael", 4), ("rifleman", 6)]

    # as it happened, the interrupt counted until it was undone
    assert state_json(path, "--at", str(interrupted[0]["seq"]))["world"]["tokens"] == []

    out = margin_output("log", path)
    assert "count 5: Kid revolver resolves" in out
    assert "(undone)" in out


def test_the_demo_table_builds(tmp_path: Path) -> None:
    path = margin_demo(tmp_path, "d100-under")
    state = state_json(path)
    assert state["world"]["running"]
    assert state["world"]["now"] == 5
    out = margin_output("rules", "d100-under")
    assert "timing track" in out.lower()
    assert "crit_reading" in out


def test_every_event_has_a_log_line(table: Table) -> None:
    do(table, type="check", character="kael", skill="melee", faces=[6, 6])
    do(
        table,
        type="opposed",
        a={"character": "kael", "attribute": "BR", "roll": 90},
        b={"character": "cultist", "attribute": "BR", "roll": 95},
        reason="the artifact",
    )
    do(table, type="start-track", label="alley")
    do(table, **act("kid", "draw"))
    do(table, **act("kael", "punch", cost=2))
    do(table, **act("rifleman", "arc rifle"))
    do(table, type="advance", counts=2)
    do(table, **act("kid", "revolver"))
    do(table, type="change", character="kid", action="spell flash", cost=2)
    do(table, type="interrupt", character="rifleman", reason="ducked")
    do(table, **act("rifleman", "draw"))
    do(table, type="end-track")
    describe = SYSTEM.describe
    assert describe is not None
    lines: dict[str, list[str]] = {}
    for record in table.store.records():
        data = msgspec.to_builtins(record.event)
        if data["type"].startswith("under."):
            line = describe(data)
            assert line, data
            lines.setdefault(data["type"], []).append(line)
    assert set(lines) == {e.__struct_config__.tag for e in EVENTS}
    assert lines["under.check"] == [
        "kael checks Melee: rolls 66 (typed) vs 66 -> critical success, margin 0"
    ]
    assert "stalemate, it escalates" in lines["under.opposed"][0]
    assert lines["under.resolved"] == ["count 2: kid draw, kael punch resolve simultaneously"]
    assert "switches from revolver to spell flash" in lines["under.changed"][0]
    assert lines["under.track-ended"] == ["timing track ends at count 2, dropping kid, rifleman"]


def test_records_about_hidden_characters_are_gm_only(tmp_path: Path) -> None:
    t = Table.create(tmp_path / "h.margin", "d100-under")
    try:
        for data in PARTY[:2]:
            t.execute(convert_command("d100-under", data))
        sniper = add_character("Sniper", {}, hidden=True)
        t.execute(convert_command("d100-under", sniper))
        t.execute(convert_command("d100-under", {"type": "start-track"}))
        hidden = t.execute(convert_command("d100-under", act("sniper", "revolver")))
        shown = t.execute(convert_command("d100-under", act("kid", "revolver")))
        assert hidden[0].visibility.gm_only
        assert not shown[0].visibility.gm_only
        resolved = t.execute(convert_command("d100-under", {"type": "advance", "counts": 3}))[-1]
        assert not resolved.visibility.gm_only  # the kid's shot is seen, alongside the sniper's
        do(t, **act("sniper", "draw"))
        gm_clock, player_clock = present.clock(t.state), present.clock(player_state_of(t))
        assert gm_clock is not None
        assert player_clock is not None
        gm_rows = [r.name for r in gm_clock.rows]
        player_rows = [r.name for r in player_clock.rows]
        assert "Sniper" in gm_rows
        assert "Sniper" not in player_rows
        assert SYSTEM.player_world is not None
        assert [tok.actor for tok in SYSTEM.player_world(t.state).tokens] == []
    finally:
        t.close()


def test_a_token_of_a_character_who_left_still_shows_on_the_gms_clock(table: Table) -> None:
    do(table, type="start-track")
    do(table, **act("kid", "revolver"))
    do(table, type="remove-character", character="kid")
    assert SYSTEM.clock is not None
    clock = present.clock(table.state)
    assert clock is not None
    rows = clock.rows
    assert ("kid", "count 3") in [(r.name, r.value) for r in rows]
