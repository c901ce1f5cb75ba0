"""The table's clock: margin's own turn order, and conditions ending on every system's clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import events_of, refused

from margin.core import get_system
from margin.tui.screens.app import play_app
from margin.tui.screens.commandline import parse_line
from margin.tui.table.table import Table
from margin.tui.text.render import rules_text


@pytest.fixture
def effect(tmp_path: Path):
    table = Table.create(tmp_path / "t.margin", "2d6-effect")
    for name in ("Vex", "Mira", "Oona"):
        events_of(table, type="add-character", name=name)
    yield table
    table.close()


def _turns(table: Table, count: int) -> list[tuple[int, str]]:
    out = []
    for _ in range(count):
        (turn,) = [
            e for e in events_of(table, type="next-turn") if e.__struct_config__.tag == "fight.turn"
        ]
        out.append((turn.round, turn.character))
    return out


def test_the_turn_order_goes_by_initiative_ties_by_who_joined_first(effect: Table) -> None:
    events_of(effect, type="start-encounter")
    events_of(effect, type="join", character="Mira", initiative=5)
    events_of(effect, type="join", character="Vex", initiative=5)
    (joined,) = events_of(effect, type="join", character="Oona", dice="1d6+10", faces=[3])
    assert (joined.initiative, joined.dice, joined.faces, joined.source) == (
        13,
        "1d6+10",
        [3],
        "typed",
    )
    assert _turns(effect, 4) == [(1, "oona"), (1, "mira"), (1, "vex"), (2, "oona")]


def test_joining_and_leaving_while_it_runs(effect: Table) -> None:
    events_of(effect, type="start-encounter", characters=["Vex", "Mira"], faces=[6, 6, 1, 1])
    assert _turns(effect, 1) == [(1, "vex")]
    events_of(effect, type="join", character="Oona", initiative=7)
    events_of(effect, type="leave", character="Mira")
    assert _turns(effect, 3) == [(1, "oona"), (2, "vex"), (2, "oona")]
    refused(effect, "already in the turn order", type="join", character="Vex", initiative=1)
    refused(effect, "not in the turn order", type="leave", character="Mira")
    refused(
        effect, "an initiative or dice", type="join", character="Mira", initiative=2, dice="2d6"
    )
    refused(effect, "not understood|dice", type="join", character="Mira", dice="2q6")
    events_of(effect, type="end-encounter")
    refused(effect, "no encounter is running", type="next-turn")


def test_a_condition_put_on_before_a_fight_lasts_its_first_rounds(effect: Table) -> None:
    events_of(effect, type="add-condition", character="Vex", name="hasted", rounds=1)
    events_of(effect, type="add-condition", character="Mira", name="braced")
    events_of(effect, type="start-encounter", characters=["Vex", "Mira"], faces=[6, 6, 1, 1])
    _turns(effect, 2)
    assert [c.name for c in effect.state.characters["vex"].conditions] == ["hasted"]
    ended = [
        e
        for e in events_of(effect, type="next-turn")
        if e.__struct_config__.tag == "condition.ended"
    ]
    assert [(e.character, e.name, e.expired) for e in ended] == [("vex", "hasted", True)]


def test_every_timed_condition_ends_with_the_encounter_and_undo_brings_it_back(
    effect: Table,
) -> None:
    events_of(effect, type="start-encounter", characters=["Vex", "Mira"], faces=[6, 6, 1, 1])
    _turns(effect, 1)
    events_of(effect, type="add-condition", character="Vex,Mira", name="burning", turns=3)
    events_of(effect, type="add-condition", character="Mira", name="cursed")
    records = effect.execute(parse_line("end", effect.state).command)  # type: ignore[arg-type]
    ended = [r for r in records if r.event.__struct_config__.tag == "condition.ended"]
    assert sorted(r.event.character for r in ended) == ["mira", "vex"]
    assert all(r.cause == records[0].seq for r in ended)
    assert [c.name for c in effect.state.characters["mira"].conditions] == ["cursed"]
    events_of(effect, type="undo")
    assert [c.name for c in effect.state.characters["mira"].conditions] == ["burning", "cursed"]


def test_a_condition_lasting_turns_counts_the_bearers_turns(effect: Table) -> None:
    events_of(effect, type="start-encounter", characters=["Vex", "Mira"], faces=[6, 6, 1, 1])
    _turns(effect, 1)  # vex acting
    events_of(effect, type="add-condition", character="Vex", name="dazed", turns=1)
    _turns(effect, 2)  # mira, then vex's next turn: dazed through it
    assert [c.name for c in effect.state.characters["vex"].conditions] == ["dazed"]
    _turns(effect, 1)  # vex's turn is over
    assert effect.state.characters["vex"].conditions == []


def test_durations_a_system_does_not_count_are_refused(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "u.margin", "d100-under")
    try:
        events_of(table, type="add-character", name="Kael")
        refused(table, "rounds are not counted in d100-under", type="add-condition",
                character="Kael", name="prone", rounds=1)  # fmt: skip
        refused(table, "counts need a running timing track", type="add-condition",
                character="Kael", name="prone", counts=1)  # fmt: skip
        refused(table, "one duration", type="add-condition", character="Kael", name="x",
                rounds=1, turns=1)  # fmt: skip
    finally:
        table.close()


@pytest.mark.parametrize("system", ["2d10-edge", "d100-chance", "d100-under", "2d6-effect"])
def test_rules_and_help_list_the_bookkeeping_in_every_system(system: str, tmp_path: Path) -> None:
    text = rules_text(system)
    for word in ("add-condition", "cond kael prone 2r", "set-counter", "adjust-counter", "edit",
                 "rename", "health-view", "alias", "margin new NEW --from OLD"):  # fmt: skip
        assert word in text, word
    own_clock = get_system(system).moment is not None
    assert ("margin keeps one" in text) is not own_clock
    Table.create(tmp_path / "t.margin", system).close()
    app = play_app(str(tmp_path / "t.margin"))
    try:
        lines = " ".join(str(line) for line in app.help_commands())
        for word in ("cond NAMES", "counter NAMES", "adjust NAMES", "edit NAMES", "rename NAME",
                     "alias NAME", "/TEXT"):  # fmt: skip
            assert word in lines, word
        assert ("join NAMES [N|DICE]" in lines) is not own_clock
    finally:
        app.view.table.close()


def test_players_never_see_a_hidden_combatant_in_the_turn_order(effect: Table) -> None:
    from support import player_log, player_state_of

    from margin.core.clock import fight_clock

    events_of(effect, type="add-character", name="Shade", hidden=True)
    events_of(effect, type="start-encounter", characters=["Vex", "Shade", "Mira"],
              faces=[6, 6, 6, 5, 1, 1])  # fmt: skip
    seen: list[Any] = []
    for _ in range(4):
        events_of(effect, type="next-turn")
        gm_turn = effect.state.fight.current  # type: ignore[union-attr]
        shown = player_state_of(effect).fight
        assert shown is not None
        assert "shade" not in [c.id for c in shown.order]
        if gm_turn == "shade":
            # the players' clock stays with the last one they saw act
            assert shown.current == seen[-1]
        else:
            assert shown.current == gm_turn
            seen.append(gm_turn)
        rows = fight_clock(player_state_of(effect))
        assert rows is not None
        assert "Shade" not in [r.name for r in rows.rows]
    assert seen == ["vex", "mira", "vex"]
    assert "shade" not in str(player_log(effect)).lower()
