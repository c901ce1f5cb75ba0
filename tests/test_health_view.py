"""What players see of NPCs' health: exact, descriptive or hidden, per table or character."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import events_of, player_log, player_state_of

from margin.core import RuleError
from margin.core.health import word
from margin.core.panels import character_status
from margin.core.systems.edge.state import EdgeCharacter
from margin.tui.table.table import Table

ORC = {"health": 12, "weapons": ["punch"]}


@pytest.fixture
def table(tmp_path: Path):
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    events_of(table, type="add-character", name="Kael", sheet={"health": 30})
    events_of(table, type="add-character", name="Orc", count=2, npc=True, sheet=ORC)
    yield table
    table.close()


def _players_status(table: Table, name: str) -> list[str]:
    state = player_state_of(table)
    char = next(c for c in state.characters.values() if c.name == name)
    return character_status(char, state)


def test_words_for_health() -> None:
    assert [word(n, 12) for n in (12, 11, 7, 6, 1, 0, -3)] == [
        "healthy", "hurt", "hurt", "bloodied", "bloodied", "down", "down",
    ]  # fmt: skip


def test_exact_by_default_then_descriptive_for_npcs_only(table: Table) -> None:
    events_of(table, type="damage", target="Orc 1", dice=1, faces=[5], armor=False)
    events_of(table, type="damage", target="Kael", dice=1, faces=[5], armor=False)
    assert "Health 7/12" in _players_status(table, "Orc 1")
    events_of(table, type="set-option", name="npc_health", value="descriptive")
    orc = _players_status(table, "Orc 1")
    assert "hurt" in orc
    assert not any("/12" in item for item in orc)
    assert _players_status(table, "Orc 2")[:1] == ["healthy"]
    # a player character is not an NPC: their health shows as it is
    assert "Health 25/30" in _players_status(table, "Kael")
    # the GM still sees every number
    gm = table.state.characters["orc-1"]
    assert "Health 7/12" in character_status(gm, table.state)


def test_hidden_for_one_character_cuts_the_numbers_from_records_and_state(table: Table) -> None:
    events_of(table, type="health-view", character="Orc 2", view="hidden")
    events_of(table, type="set-counter", character="Orc 2", name="HP", max=9)
    events_of(table, type="adjust-counter", character="Orc 2", name="hp", by=-4)
    events_of(table, type="damage", target="Orc 2", dice=1, faces=[3], armor=False)
    events_of(table, type="set-counter", character="Orc 2", name="ammo", max=3)
    status = _players_status(table, "Orc 2")
    assert status[:1] == ["Edge 0/0"]
    assert "ammo 3/3" in status
    assert not any(word in item for item in status for word in ("Health", "HP", "injury"))
    shown = player_log(table)
    counters = [r["event"] for r in shown if r["event"]["type"] == "counter.set"]
    assert [("value" in e, e["name"]) for e in counters] == [
        (False, "HP"), (False, "HP"), (True, "ammo"),
    ]  # fmt: skip
    injury = next(r["event"] for r in shown if r["event"]["type"] == "edge.injury")
    assert "health" not in injury
    assert "accumulated" not in injury
    assert player_state_of(table).characters["orc-2"].health_shown == "hidden"
    orc = player_state_of(table).characters["orc-2"]
    assert isinstance(orc, EdgeCharacter)
    assert orc.damage == 0
    # the GM's own view is whole
    assert table.state.characters["orc-2"].counters["hp"].value == 5


def test_the_gm_marks_a_seated_character_as_an_npc_by_edit(table: Table) -> None:
    events_of(table, type="set-option", name="npc_health", value="hidden")
    assert "Health 30/30" in _players_status(table, "Kael")
    events_of(table, type="edit", character="Kael", fields={"npc": True})
    assert not any("Health" in item for item in _players_status(table, "Kael"))
    events_of(table, type="undo")
    assert "Health 30/30" in _players_status(table, "Kael")


def test_an_edit_sets_a_counter_by_name_and_refuses_what_is_no_value(table: Table) -> None:
    events_of(table, type="set-counter", character="Kael", name="Ammo", value=6, max=12)

    def ammo() -> tuple[int, int | None]:
        counter = table.state.characters["kael"].counters["ammo"]
        return counter.value, counter.max

    events_of(table, type="edit", character="Kael", fields={"ammo": "4/10"})
    assert ammo() == (4, 10)
    events_of(table, type="edit", character="Kael", fields={"Ammo": "/8"})
    assert ammo() == (4, 8)
    events_of(table, type="edit", character="Kael", fields={"ammo": 7})
    assert ammo() == (7, 8)
    for value, says in (
        (True, "edit: ammo=true is not a value (8, 8/12 or /12)"),
        ("lots", "edit ammo: 'lots' is not a value (8, 8/12 or /12)"),
        (99, "Kael Ammo: 99 is above its maximum 8"),
    ):
        with pytest.raises(RuleError) as refused:
            events_of(table, type="edit", character="Kael", fields={"ammo": value})
        assert str(refused.value) == says
    with pytest.raises(RuleError, match=r"^edit: npc=null: give npc=true or npc=false$"):
        events_of(table, type="edit", character="Kael", fields={"npc": None})
    assert ammo() == (7, 8)
