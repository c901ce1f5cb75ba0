"""d100-under from the table screen's command line: odd input is refused in one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import demo_opening, margin_output, opening_fixture

from margin.core.commands import convert_command
from margin.core.errors import RuleError
from margin.core.resolve import resolve
from margin.core.systems import get_system
from margin.core.systems.under import rules
from margin.core.systems.under.state import track
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = get_system("d100-under")


table = opening_fixture("d100-under", 4)


@pytest.mark.parametrize(
    "line",
    [
        "check kael melee roll ²",
        "check kael melee roll ①",
        "advance ²",
        "opposed kael br vs cultist ³",
    ],
)
def test_digit_lookalikes_are_refused_not_crashed_on(table: Table, line: str) -> None:
    parse = SYSTEM.parse_words
    assert parse is not None
    try:
        data = parse(line.split(), table.state)
    except RuleError as error:
        answer = str(error)
    else:
        assert data is not None, "every line here starts with a short form's word"
        # read as a word, not a number: the command is then refused by the rules
        with pytest.raises(RuleError) as refused:
            table.execute(convert_command("d100-under", data))
        answer = str(refused.value)
    assert "\n" not in answer


def test_a_cost_lookalike_is_part_of_the_action_name(table: Table) -> None:
    parse = SYSTEM.parse_words
    assert parse is not None
    assert parse(["act", "ada", "draw", "²"], table.state) == {
        "type": "act",
        "character": "ada",
        "action": "draw ²",
    }


def crits(target: int, reading: str) -> list[int]:
    return [r for r in range(1, 101) if rules.judge(target, r, reading).critical]


def test_targets_above_99_count_down_from_the_target() -> None:
    assert crits(99, "table") == [1, 97, 98, 99]
    assert crits(100, "table") == [1, 98, 99]
    assert crits(101, "table") == [1, 99]
    assert crits(120, "table") == [1]
    assert crits(100, "example") == [1, 97, 98, 99]


def test_huge_targets_are_refused_and_append_nothing(table: Table) -> None:
    before = table.projection.seq
    with pytest.raises(RuleError, match=r"^target: 10{22} is out of range \(0\.\.1000\)$"):
        table.execute(
            convert_command("d100-under", {"type": "check", "character": "Kael", "target": 10**22})
        )
    with pytest.raises(RuleError, match=r"^sheet\.skills\.Melee: .* out of range \(0\.\.1000\)$"):
        table.execute(
            convert_command(
                "d100-under",
                {"type": "add-character", "name": "Big", "sheet": {"skills": {"Melee": 10**9}}},
            )
        )
    with pytest.raises(RuleError, match=r"^sheet\.attributes\.BR: .* out of range \(-5\.\.195\)$"):
        table.execute(
            convert_command(
                "d100-under",
                {"type": "add-character", "name": "Big", "sheet": {"attributes": {"BR": 10**9}}},
            )
        )
    assert table.projection.seq == before
    records = table.execute(
        convert_command(
            "d100-under", {"type": "check", "character": "Kael", "target": 1000, "roll": 99}
        )
    )
    assert records[0].event.success
    assert records[0].event.margin == 901


def test_resolve_refuses_huge_targets() -> None:
    for request in (
        {"action": "check", "target": 10**30, "roll": 5},
        {"action": "odds", "target": 1001},
        {"action": "opposed", "a": {"target": 10**30, "roll": 5}, "b": {"target": 5, "roll": 5}},
        {"action": "opposed-odds", "a": {"target": 30}, "b": {"target": 10**30}},
    ):
        with pytest.raises(RuleError, match=r"target: .* out of range \(0\.\.1000\)$"):
            resolve({"system": "d100-under", **request}, RandomDice(1))


def run(table: Table, **data: Any) -> list[Any]:
    return table.execute(convert_command("d100-under", data))


def test_undoing_an_act_undoes_its_change_and_interruption(table: Table) -> None:
    run(table, type="start-track")
    (declared,) = run(table, type="act", character="Kael", action="draw")
    (changed,) = run(table, type="change", character="Kael", action="revolver")
    assert changed.cause == declared.seq
    run(table, type="undo", command=declared.command)
    # the change was of an action that never was: it goes too, and Kael is free
    assert track(table.state).tokens == []
    run(table, type="redo")
    (token,) = track(table.state).tokens
    assert (token.action, token.at) == ("revolver", 3)

    (declared,) = run(table, type="act", character="Ada", action="draw")
    (stopped,) = run(table, type="interrupt", character="Ada")
    assert stopped.cause == declared.seq
    run(table, type="undo", command=declared.command)
    assert [t.actor for t in track(table.state).tokens] == ["kael"]

    # a change answers the change before it: undoing the first change undoes the second
    (first,) = run(table, type="change", character="Kael", action="draw")
    (second,) = run(table, type="change", character="Kael", action="spell ward", cost=5)
    assert second.cause == first.seq
    run(table, type="undo", command=first.command)
    (token,) = track(table.state).tokens
    assert (token.action, token.at) == ("revolver", 3)


def test_the_players_world_names_no_hidden_token_source(table: Table) -> None:
    run(table, type="update-character", character="Rifleman", hidden=True)
    run(table, type="start-track")
    run(table, type="act", character="Rifleman", action="arc rifle")
    run(table, type="act", character="Kael", action="draw")
    assert set(track(table.state).sources) == {"rifleman", "kael"}
    assert SYSTEM.player_world is not None
    assert set(SYSTEM.player_world(table.state).sources) == {"kael"}


def test_a_target_may_come_before_the_attribute(table: Table) -> None:
    assert SYSTEM.parse_words is not None
    assert SYSTEM.parse_words(["check", "kael", "60", "aw"], table.state) == {
        "type": "check",
        "character": "Kael",
        "target": 60,
        "attribute": "aw",
    }
    with pytest.raises(RuleError, match=r"^check: 60, 70 are several targets"):
        SYSTEM.parse_words(["check", "kael", "melee", "60", "70"], table.state)


def test_ending_the_track_does_not_name_hidden_tokens_to_players(tmp_path: Path) -> None:
    path = tmp_path / "end.margin"
    t = demo_opening(path, "d100-under", 4)
    try:
        run(t, type="update-character", character="Rifleman", hidden=True)
        run(t, type="start-track")
        run(t, type="act", character="Rifleman", action="arc rifle")
        run(t, type="act", character="Kael", action="draw")
        stopped, ended = run(t, type="end-track")
        assert (stopped.event.actor, stopped.event.reason) == ("rifleman", "the track ends")
        assert stopped.visibility.gm_only
        assert not ended.visibility.gm_only
        assert ended.event.dropped == ["kael"]
        assert track(t.state).tokens == []
    finally:
        t.close()
    lines = margin_output("log", str(path)).splitlines()
    assert "timing track ends at count 0, dropping Kael" in lines[-1]
    assert "Rifleman's arc rifle (due on count 6) is interrupted (the track ends)" in lines[-2]
    player = margin_output("log", str(path), "--as", "Kael").splitlines()[-1]
    assert player.endswith("timing track ends at count 0, dropping Kael")
    out = margin_output("log", str(path), "--as", "Kael", "--json").splitlines()
    assert json.loads(out[-1])["dropped"] == ["kael"]
    assert json.loads(out[-2])["type"] != "under.interrupted"


def test_check_short_form_takes_a_reason_and_refuses_stray_words(table: Table) -> None:
    assert SYSTEM.parse_words is not None
    data = SYSTEM.parse_words(
        ["check", "kael", "security", "aw", "for", "the", "padlock"], table.state
    )
    assert data == {
        "type": "check",
        "character": "Kael",
        "attribute": "aw",
        "skill": "security",
        "reason": "the padlock",
    }
    with pytest.raises(RuleError, match=r"^check: 'typo' after Melee is not an attribute"):
        SYSTEM.parse_words(["check", "kael", "melee", "typo", "aw"], table.state)
    with pytest.raises(RuleError, match=r"^check: give the reason after 'for'"):
        SYSTEM.parse_words(["check", "kael", "melee", "for"], table.state)


def test_players_do_not_count_escalations_they_never_saw(table: Table) -> None:
    for name in ("Rifleman", "Cultist"):
        run(table, type="update-character", character=name, hidden=True)
    sides = {"a": {"character": "Rifleman", "roll": 90}, "b": {"character": "Cultist", "roll": 95}}
    sides["a"]["attribute"] = sides["b"]["attribute"] = "BR"
    records = run(table, type="opposed", **sides)
    assert all(r.visibility.gm_only for r in records)
    run(
        table,
        type="opposed",
        a={"character": "Kael", "attribute": "BR", "roll": 90},
        b={"character": "Ada", "attribute": "AW", "roll": 95},
    )
    run(table, type="start-track")
    assert track(table.state).escalations == 2
    assert SYSTEM.player_world is not None
    assert SYSTEM.player_world(table.state).escalations == 1
