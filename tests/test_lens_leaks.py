"""One test per way players once learned what the GM hides, on each system's tables.

Each builds a small table with a visible character and a hidden one called
Shade, does the thing that used to leak, and reads what a player gets:
``margin log --as`` and ``margin state --as`` (text and JSON), through the
helpers that call the same lens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import events_of, player_log, player_state_of, run_margin

from margin.core import RuleError, get_system
from margin.core.lens import UNSEEN
from margin.tui.table.demo import build_demo
from margin.tui.table.reader import LiveTable, View, parse_jump
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table
from margin.tui.text.render import describe


def _demo_sheet(system: str, n: int = 0) -> dict[str, Any]:
    adds = [d for d in get_system(system).demo if d["type"] == "add-character"]
    return dict(adds[n]["sheet"])


def table_with_shade(path: Path, system: str) -> Table:
    """A table with the demo's first character, visible, and Shade, hidden, with the same sheet."""
    table = Table.create(path, system)
    table.dice = RandomDice(5)
    first = next(d for d in get_system(system).demo if d["type"] == "add-character")
    events_of(table, type="add-character", name=first["name"], sheet=first["sheet"])
    events_of(table, type="add-character", name="Shade", sheet=first["sheet"], hidden=True)
    return table


def player_text(table: Table) -> str:
    """Everything the lens gives a player of the table, as one lower-case text."""
    system = table.state.system
    lines = [json.dumps(d) + " " + describe(system, d) for d in player_log(table)]
    lines.append(json.dumps(__import__("msgspec").to_builtins(player_state_of(table))))
    return "\n".join(lines).lower()


def first_name(system: str) -> str:
    return str(next(d["name"] for d in get_system(system).demo if d["type"] == "add-character"))


@pytest.mark.parametrize("system", ["2d10-edge", "d100-chance", "d100-under", "2d6-effect"])
def test_free_rolls_of_a_hidden_character_are_not_seen_at_all(tmp_path: Path, system: str) -> None:
    table = table_with_shade(tmp_path / "t.margin", system)
    before = player_log(table)
    events_of(table, type="roll", actor="Shade", dice="1d6", reason="wind")
    events_of(table, type="roll", actor="Shade", dice="1d20", secret=True)
    assert player_log(table) == before
    assert "shade" not in player_text(table)


def test_hide_show_and_sheet_edits(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d10-edge")
    before = player_log(table)
    events_of(table, type="update-character", character="Shade", sheet={"edge": 1})
    assert player_log(table) == before, "a hidden character's sheet edit is GM-only"
    events_of(table, type="update-character", character="Shade", hidden=False)
    events_of(table, type="update-character", character="Kael", hidden=True)
    lines = [describe("2d10-edge", d) for d in player_log(table)][len(before) :]
    # by name, though neither is in the player's sight now
    events_of(table, type="update-character", character="Shade", hidden=True)
    lines = [describe("2d10-edge", d) for d in player_log(table)][len(before) :]
    assert lines == [
        "Shade is shown to the players",
        "Kael is hidden from the players",
        "Shade is hidden from the players",
    ]
    assert "visibility" not in " ".join(lines)


@pytest.mark.parametrize("system", ["2d10-edge", "d100-chance", "d100-under", "2d6-effect"])
def test_hiding_a_character_already_hidden_tells_players_nothing(
    tmp_path: Path, system: str
) -> None:
    table = table_with_shade(tmp_path / "t.margin", system)
    before = player_log(table)
    events_of(table, type="update-character", character="Shade", hidden=True)
    assert player_log(table) == before
    assert "shade" not in player_text(table)


def test_opposed_checks_against_a_hidden_character_mask_them(tmp_path: Path) -> None:
    under = table_with_shade(tmp_path / "u.margin", "d100-under")
    events_of(under, type="opposed", a={"character": "Kael", "attribute": "BR", "roll": 22},
              b={"character": "Shade", "attribute": "BR", "roll": 28})  # fmt: skip
    effect = table_with_shade(tmp_path / "e.margin", "2d6-effect")
    events_of(effect, type="set-option", name="opposed_checks", value=True)
    events_of(effect, type="opposed",
              a={"character": "Vex", "skill": "Electronics", "faces": [4, 4]},
              b={"character": "Shade", "skill": "Electronics", "faces": [2, 2]})  # fmt: skip
    for table in (under, effect):
        text = player_text(table)
        assert "shade" not in text
        assert "someone unseen" in text


def test_help_from_a_hidden_helper_shows_no_helper(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d6-effect")
    events_of(table, type="assist", helper="Shade", character="Vex", skill="Electronics",
              faces=[5, 4])  # fmt: skip
    seen = player_log(table)[-1]
    assert seen["event"]["helper"] == UNSEEN
    assert "faces" not in seen["event"]
    assert describe("2d6-effect", seen) == "someone unseen helps vex"
    vex = player_state_of(table).characters["vex"]
    assert [a.helper for a in vex.assists.values()] == [UNSEEN]  # type: ignore[attr-defined]
    assert "shade" not in player_text(table)


def test_a_hidden_token_on_the_timing_track_is_not_named(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "d100-under")
    events_of(table, type="start-track")
    events_of(table, type="act", character="Shade", action="stab", cost=2)
    events_of(table, type="act", character="Kael", action="swing", cost=2)
    events_of(table, type="advance", next=True)
    resolved = [d for d in player_log(table) if d["event"]["type"] == "under.resolved"]
    assert resolved
    assert [t["actor"] for t in resolved[-1]["event"]["actions"]] == ["kael"]
    assert "shade" not in player_text(table)


def test_an_effect_from_a_hidden_source_keeps_the_source_unseen(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "d100-chance")
    events_of(table, type="effect", target="Rook", effect="burning", potency=90, source="Shade")
    assert "shade" not in player_text(table)


def test_attacks_between_a_visible_and_a_hidden_character(tmp_path: Path) -> None:
    edge = table_with_shade(tmp_path / "e.margin", "2d10-edge")
    events_of(edge, type="attack", character="Kael", target="Shade", tn=15)
    seen = next(d for d in player_log(edge) if d["event"]["type"] == "edge.attack")
    assert seen["event"]["character"] == "kael"
    assert seen["event"]["target"] == UNSEEN
    assert "tn" not in seen["event"], "the hidden target's defence"
    # d100-chance: the attacker's own attack reaches its player, the target unseen
    chance = table_with_shade(tmp_path / "c.margin", "d100-chance")
    events_of(chance, type="attack", attacker="Rook", target="Shade")
    shot = next(d for d in player_log(chance) if d["event"]["type"] == "chance.attack")
    assert shot["event"]["attacker"] == "rook"
    assert shot["event"]["target"] == UNSEEN
    for table in (edge, chance):
        assert "shade" not in player_text(table)


def test_a_hidden_attacker_gives_away_no_bonus_or_weapon(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d10-edge")
    events_of(table, type="attack", character="Shade", target="Kael", tn=15,
              faces=[9, 8, 1, 1, 1, 1, 1, 1])  # fmt: skip
    seen = {d["event"]["type"]: d["event"] for d in player_log(table)}
    attack, damage = seen["edge.attack"], seen["edge.damage"]
    for name in ("bonus", "skill", "weapon", "faces", "total", "damage_dice", "mos"):
        assert name not in attack, name
    for name in ("dice", "bonus", "faces", "raw"):
        assert name not in damage, name
    assert attack["success"] is True
    assert damage["taken"] >= 0
    # revealing the blow lifts its secrets, not who struck nor what would tell them
    attack_seq = next(
        r.seq for r in table.store.records() if r.event.__struct_config__.tag == "edge.attack"
    )
    events_of(table, type="reveal", seq=attack_seq)
    seen = {d["event"]["type"]: d["event"] for d in player_log(table)}
    for name in ("bonus", "skill", "weapon", "faces", "total", "damage_dice", "mos"):
        assert name not in seen["edge.attack"], name
    assert "shade" not in player_text(table)


def test_undo_and_reveal_leave_no_trace_of_unseen_records(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d10-edge")
    before = player_log(table)
    [note] = events_of(table, type="note", text="the sniper is on the roof", gm_only=True)
    events_of(table, type="roll", actor="Shade", dice="1d6")
    events_of(table, type="undo")
    assert player_log(table) == before, "an undo of a GM-only roll is unseen"
    gm_note_seq = table.projection.seq - 2
    events_of(table, type="reveal", seq=gm_note_seq)
    seen = player_log(table)[-1]
    assert seen["seq"] == len(before) + 1
    assert describe("2d10-edge", seen) == "GM reveals: GM note: the sniper is on the roof"
    assert note.text == "the sniper is on the roof"
    # a record players always saw whole cannot be revealed
    with pytest.raises(RuleError, match="never secret"):
        events_of(table, type="reveal", seq=2)


def test_a_revealed_check_of_a_hidden_character_shows_the_dice_not_who(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d10-edge")
    events_of(table, type="check", character="Shade", skill="athletics", tn=20, faces=[6, 5])
    check_seq = table.projection.seq
    assert "shade" not in player_text(table).lower()
    events_of(table, type="reveal", seq=check_seq)
    line = describe("2d10-edge", player_log(table)[-1])
    assert line.startswith("GM reveals: someone unseen: athletics +20 [6,5] = 31"), line
    assert "shade" not in player_text(table).lower()


def test_players_state_is_numbered_as_they_number_the_log(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d10-edge")
    events_of(table, type="note", text="a", gm_only=True)
    events_of(table, type="check", character="Kael", skill="athletics", tn=20,
              faces=[6, 5])  # fmt: skip
    events_of(table, type="check", character="Kael", skill="athletics", tn=27, secret_tn=True,
              advantage=1, faces=[6, 5, 9])  # fmt: skip
    table.close()
    code, out, _ = run_margin("state", str(tmp_path / "t.margin"),
                              "--as", "Kael", "--json")  # fmt: skip
    state = json.loads(out)
    code2, log, _ = run_margin("log", str(tmp_path / "t.margin"),
                               "--as", "Kael", "--json")  # fmt: skip
    assert code == code2 == 0
    assert state["seq"] == len(log.splitlines())
    pending = state["characters"]["kael"]["pending"]
    seqs = [json.loads(line)["seq"] for line in log.splitlines()]
    assert all(p["seq"] in seqs for p in pending)


def test_2d6_effect_players_world_names_no_hidden_character(tmp_path: Path) -> None:
    table = table_with_shade(tmp_path / "t.margin", "2d6-effect")
    events_of(table, type="check", character="Shade", skill="Electronics", characteristic="INT",
              task="the lock", faces=[6, 6])  # fmt: skip
    assert "shade" not in player_text(table)


def test_replay_as_a_player_jumps_by_the_players_numbers(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "t.margin", "2d10-edge", dice=RandomDice(1))
    events_of(table, type="add-character", name="Shade", hidden=True)
    events_of(table, type="note", text="x", gm_only=True)
    events_of(table, type="note", text="seen")
    table.close()
    live = LiveTable.open_live(str(tmp_path / "t.margin"), readonly=True, lens=True)
    try:
        view = View(live, player="kael")
        last = len(view.seqs())
        view.goto(parse_jump(str(last), view))
        assert view.number == last
        assert view.rows(last - 1, last)[0].text == "note: seen"
    finally:
        live.close()
