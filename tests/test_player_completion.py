"""A player's completion offers only what the player may type: never a word that makes a
command give a field only the GM sets (a secret TN, an override), which the player's
seat would be refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from margin.core import TableState
from margin.core.authority import Refused, Seat, authorize, gm_given
from margin.core.systems import SYSTEMS
from margin.tui.screens.commandline import candidates, parse_line
from margin.tui.table.demo import build_demo

#: a check's line by system, up to where its option words come
CHECKS = {
    "2d10-edge": "check {who} athletics vs 15 ",
    "d100-chance": "check {who} athletics 50 ",
    "d100-under": "check {who} Melee ",
    "2d6-effect": "check {who} Pilot DEX average ",
}


def _state(tmp_path: Path, system: str) -> tuple[TableState, str]:
    table = build_demo(tmp_path / "t.margin", system)
    try:
        state = table.state
    finally:
        table.close()
    player = next(c.id for c in state.characters.values() if not c.npc and not c.hidden)
    return state, player


def test_a_players_check_is_not_offered_the_gms_secret_tn(tmp_path: Path) -> None:
    state, player = _state(tmp_path, "2d10-edge")
    line = CHECKS["2d10-edge"].format(who=player)
    assert "secret" in candidates(line, state)
    offered = candidates(line, state, player)
    assert "secret" not in offered
    # what a player may choose stays offered
    assert {"adv", "dis", "edge", "mod", "faces", "for"} <= set(offered)
    assert candidates(line + "s", state, player) == []
    assert candidates(line + "s", state) == ["secret"]


def test_a_players_free_roll_is_not_offered_secret(tmp_path: Path) -> None:
    state, player = _state(tmp_path, "2d10-edge")
    assert "secret" in candidates("roll 2d6 ", state)
    assert candidates("roll 2d6 ", state, player) == ["as", "for"]


def test_a_d100_chance_player_is_not_offered_the_gms_override(tmp_path: Path) -> None:
    state, player = _state(tmp_path, "d100-chance")
    line = CHECKS["d100-chance"].format(who=player)
    gm = candidates(line, state)
    assert {"secret", "override"} <= set(gm)
    offered = candidates(line, state, player)
    assert "secret" not in offered
    assert "override" not in offered
    assert "for" in offered


@pytest.mark.parametrize("system", sorted(CHECKS))
def test_every_word_a_player_is_offered_is_one_their_seat_may_give(
    tmp_path: Path, system: str
) -> None:
    assert system in SYSTEMS
    state, player = _state(tmp_path, system)
    line = CHECKS[system].format(who=player)
    seat = Seat(player, "ssh", "SHA256:test")
    base = parse_line(line, state).command
    assert base is not None
    authorize(seat, base, state)
    refused = []
    for word in candidates(line, state, player):
        for trial in (f"{line}{word}", f"{line}{word} 1"):
            try:
                command = parse_line(trial, state).command
            except Exception:
                continue
            assert command is not None
            try:
                authorize(seat, command, state)
            except Refused as exc:
                refused.append((word, str(exc)))
            break
    assert refused == []
    # and the GM's words it leaves out are exactly those a player's seat is refused
    for word in set(candidates(line, state)) - set(candidates(line, state, player)):
        command = parse_line(f"{line}{word}", state).command
        assert command is not None
        assert gm_given(system, command, base)
        with pytest.raises(Refused, match="that is the GM's to set"):
            authorize(seat, command, state)
