"""A player's seat can change nothing but what its own character does: a property over random
command streams of every system.

Each stream is the system's demo commands (every kind of command the system has, the
GM's included) with the characters they name drawn again from the player's own, another
player's, a hidden character's and nobody's, some of the fields only the GM sets
switched on, given from one player's seat under ``trust`` or ``ask``. After each command:

- a refused command wrote nothing, and its line names no hidden character but as the
  player typed it, reading then as it does for a name nobody has;
- every record the seat wrote names the seat as its author;
- under ``ask`` a command (but ``say``, heard at once) wrote one request, addressed to
  the seat, and changed nothing else of the state;
- under ``trust`` the hidden character, the table's options, macros and reveals, and every
  visible character but the seat's own and those the command names as its targets are
  as they were, and nothing the seat wrote is GM-only or addressed to another player;
- what another player reads of the whole log names no hidden character.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_authority import Log

from margin.core import RuleError, get_system
from margin.core.authority import Seat
from margin.core.commands import player_commands

SYSTEMS = ("2d10-edge", "d100-chance", "d100-under", "2d6-effect")
HIDDEN = "Zyxquil"
#: the fields only the GM sets, switched on as a player might try
GM_VALUES: dict[str, Any] = {
    "secret_tn": True,
    "secret": False,
    "override": True,
    "aware": False,
    "unaware_percent": 50,
    "extra_attackers": 1,
    "proficiency": 50,
    "dice": 4,
    "initiative": 30,
    "disposition": "hostile",
    "target": 5,
}


#: commands beside the demo's, for what a demo does not show: a player's resources and
#: free rolls, and the GM's own commands a player might try
MORE: dict[str, list[dict[str, Any]]] = {
    "2d10-edge": [
        {"type": "start-encounter", "characters": ["Kael", "Moreau"]},
        {"type": "join", "character": "Kael"},
        {"type": "spend-edge", "character": "Kael", "purpose": "reaction"},
        {"type": "spend-edge", "character": "Kael", "purpose": "initiative"},
        {"type": "edge-burn", "character": "Kael"},
        {"type": "dismiss-pending", "character": "Kael"},
        {"type": "use-action", "character": "Kael", "action": "major"},
        {"type": "award-edge", "character": "Kael"},
        {"type": "heal", "character": "Kael", "points": 5},
    ],
    "d100-chance": [
        {"type": "bandage", "character": "Rook"},
        {"type": "move", "character": "Rook", "to": [5, 5]},
        {"type": "hp", "character": "Rook", "amount": 5},
    ],
    "d100-under": [
        {"type": "act", "character": "Kael", "action": "draw"},
        {"type": "interrupt", "character": "Kael"},
    ],
    "2d6-effect": [
        {"type": "start-encounter", "characters": ["Vex"]},
        {"type": "join", "character": "Vex"},
        {"type": "join", "character": "Vex", "initiative": 9},
    ],
}
GENERIC: list[dict[str, Any]] = [
    {"type": "roll", "dice": "2d6", "actor": "{me}"},
    {"type": "roll", "dice": "2d6", "actor": "gm"},
    {"type": "say", "text": "hello"},
    {"type": "note", "text": "a note"},
    {"type": "note", "text": "a GM note", "gm_only": True},
    {"type": "undo"},
    {"type": "set-option", "name": "players", "value": "trust"},
    {"type": "reveal", "seq": 2},
    {"type": "accept", "request": 3},
    {"type": "edit", "character": "{me}", "fields": {"name": "Boss"}},
    {"type": "adjust-counter", "character": "{me}", "name": "Health", "by": -3},
]


def _table(system: str, option: str) -> tuple[Log, list[str], list[dict[str, Any]]]:
    """A table of the demo's characters and a hidden one, and the demo's other commands."""
    log = Log(system, players="trust")
    demo = get_system(system).demo
    adds = [d for d in demo if d["type"] == "add-character"]
    for data in adds:
        log.do(**{**data, "hidden": False})
    log.do(type="add-character", name=HIDDEN, hidden=True, sheet=adds[0].get("sheet", {}))
    if option != "trust":
        log.do(type="set-option", name="players", value=option)
    names = [d["name"] for d in adds]
    generic = [{k: (names[0] if v == "{me}" else v) for k, v in c.items()} for c in GENERIC]
    pool = [d for d in demo if d["type"] != "add-character"] + MORE[system] + generic
    return log, names, pool


def _renamed(value: Any, names: list[str], draw: Any) -> Any:
    """Plain data with every character name in it drawn again."""
    if isinstance(value, str) and value.lower() in {n.lower() for n in names}:
        return draw(st.sampled_from([names[0], names[0], names[1], HIDDEN, "Nobody"]))
    if isinstance(value, list):
        return [_renamed(v, names, draw) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v, names, draw) for k, v in value.items()}
    return value


def _others(log: Log, data: dict[str, Any]) -> set[str]:
    """The ids of the characters a player's command names as those it acts on."""
    for kind, acting in player_commands(log.state.system).items():
        if kind.__struct_config__.tag == data.get("type"):
            found = {str(data.get(name, "")).lower() for name in acting.others}
            return {c.id for c in log.state.characters.values() if c.name.lower() in found}
    return set()


def _as_for_nobody(log: Log, seat: Seat, given_: dict[str, Any], line: str) -> None:
    """A refusal names no hidden character, but as the player typed it, and then reads
    as it would for a name nobody has."""
    if HIDDEN.lower() not in line.lower():
        return
    typed = msgspec.json.encode(given_).decode()
    assert HIDDEN in typed, line
    nobody = msgspec.json.decode(typed.replace(HIDDEN, "Qorvathe"))
    with pytest.raises(RuleError) as refused:
        log.do(seat, **nobody)
    assert str(refused.value).replace("Qorvathe", HIDDEN) == line


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(system=st.sampled_from(SYSTEMS), option=st.sampled_from(["trust", "ask"]), data=st.data())
def test_a_players_seat_changes_only_what_its_own_character_does(
    system: str, option: str, data: st.DataObject
) -> None:
    log, names, commands = _table(system, option)
    seat = Seat(names[0], "ssh", "SHA256:player")
    me = log.state.characters[names[0].lower().replace(" ", "-")].id
    author = seat.author(me)
    hidden_id = HIDDEN.lower()
    for _ in range(data.draw(st.integers(1, 12))):
        given_ = _renamed(data.draw(st.sampled_from(commands)), names, data.draw)
        for name in data.draw(st.lists(st.sampled_from(sorted(GM_VALUES)), max_size=2)):
            given_[name] = GM_VALUES[name]
        if data.draw(st.booleans()):
            given_.pop("faces", None)
        before = msgspec.structs.replace(log.state)
        chars = _plain(log.state.characters)
        keep = _plain((log.state.options, log.state.aliases, log.state.revealed))
        count = len(log.records)
        try:
            written = log.do(seat, **given_)
        except RuleError as exc:
            assert len(log.records) == count
            _as_for_nobody(log, seat, given_, str(exc))
            continue
        assert all(r.author == author for r in written)
        now = _plain(log.state.characters)
        assert now[hidden_id] == chars[hidden_id]
        assert _plain((log.state.options, log.state.aliases, log.state.revealed)) == keep
        if option == "ask" and given_["type"] != "say":
            [asked] = written
            assert type(asked.event).__name__ == "Requested"
            assert asked.visibility.to == me
            assert now == chars
            assert set(log.state.requests) == set(before.requests) | {asked.seq}
            continue
        free = {me} | _others(log, given_)
        for cid, char in chars.items():
            if cid not in free:
                assert now[cid] == char, f"{cid} changed by {given_}"
        for record in written:
            assert not record.visibility.gm_only
            assert record.visibility.to in ("", me)
    other = names[1].lower().replace(" ", "-")
    for shown in log.seen_by(other):
        assert hidden_id not in msgspec.json.encode(shown).decode().lower()
