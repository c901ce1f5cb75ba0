"""Players act from their own seats: who may give which command, decided once in core.

Given a table, when a seat gives a command, then it is applied, made a request for the
GM, or refused with one line and nothing written. Requests and rulings are records
with their author, addressed to the player they concern; undo of a ruling undoes
what it applied and leaves the request waiting again.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from margin.core import RuleError, get_system
from margin.core.authority import GM, Refused, Seat, author_seat, authorize
from margin.core.commands import convert_command, player_commands
from margin.core.decider import create_table, decide
from margin.core.dice import Dice
from margin.core.lens import PlayerLens, player_state
from margin.core.projection import Projection
from margin.core.systems.base import Acting, Command
from margin.core.systems.shape import ShapeError, check_acting
from margin.events import Draft, Record, records_after


class Seeded(Dice):
    """margin's dice, seeded, for tests."""

    source = "rng"

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)

    def roll(self, sides: int, count: int = 1) -> list[int]:
        return [self.rng.randint(1, sides) for _ in range(count)]


class Log:
    """A table in memory: commands decided and folded as a table's writer does."""

    def __init__(self, system: str, **options: Any) -> None:
        self.records: list[Record] = []
        self.projection = Projection(lambda after, upto: self.records[after:upto])
        self.dice = Seeded()
        self._append([Draft(create_table(system, options))], GM)
        self.n = 0

    @property
    def state(self) -> Any:
        return self.projection.state

    def _append(self, drafts: list[Draft], author: str) -> list[Record]:
        self.n = getattr(self, "n", 0) + 1
        new = records_after(drafts, len(self.records), command=f"c{self.n}", author=author)
        self.records += new
        self.projection.extend(new)
        return new

    def do(self, seat: str | Seat = GM, **data: Any) -> list[Record]:
        seat = seat if isinstance(seat, Seat) else Seat(seat, "local", "alice")
        command = convert_command(self.state.system, data)
        drafts = decide(command, self.state, self.dice, self.projection.history, seat)
        return self._append(drafts, GM)

    def seen_by(self, reader: str | None) -> list[dict[str, Any]]:
        lens = PlayerLens(self.state.revealed, reader)
        return [d for d in map(lens.read, self.records) if d is not None]


def edge(**options: Any) -> Log:
    log = Log("2d10-edge", **options)
    for data in get_system("2d10-edge").demo:
        if data["type"] == "add-character":
            log.do(**data)
    return log


KAEL = "kael"


def test_every_door_gives_commands_to_one_decision_and_the_gm_may_give_any() -> None:
    log = edge()
    permit = authorize(
        Seat(), convert_command("2d10-edge", {"type": "note", "text": "x"}), log.state
    )
    assert (permit.route, permit.author) == ("apply", "gm")


def test_a_players_check_asked_for_becomes_a_request_addressed_to_them() -> None:
    log = edge()
    before = msgspec.to_builtins(log.state.characters)
    [req] = log.do(
        Seat(KAEL, "ssh", "SHA256:abc"), type="check", character="Kael", skill="athletics"
    )
    assert type(req.event).__name__ == "Requested"
    assert req.author == "kael (ssh SHA256:abc)"
    assert author_seat(req.author) == KAEL
    assert req.visibility.to == KAEL
    assert msgspec.to_builtins(log.state.characters) == before
    assert list(log.state.requests) == [req.seq]
    # kael sees their request; Moreau's player and players at large see nothing of it
    assert any(d["event"]["type"] == "player.requested" for d in log.seen_by(KAEL))
    assert all(d["event"]["type"] != "player.requested" for d in log.seen_by("moreau"))
    assert all(d["event"]["type"] != "player.requested" for d in log.seen_by(None))


def test_accepting_applies_the_players_command_in_their_name_and_undo_puts_it_back() -> None:
    log = edge()
    [req] = log.do(KAEL, type="check", character="Kael", skill="athletics", edge="advantage")
    applied = log.do(type="accept", request=req.seq)
    check, ruled = applied[0], applied[-1]
    assert check.author == "kael (local alice)"
    assert check.cause == req.seq
    assert ruled.author == GM
    assert ruled.event.ruling == "accepted"
    assert ruled.visibility.to == KAEL
    assert log.state.requests == {}
    assert log.state.characters[KAEL].edge == 2
    undo = log.do(type="undo", command=ruled.command)
    assert set(undo[0].event.voids) == {r.seq for r in applied}
    assert list(log.state.requests) == [req.seq]
    assert log.state.characters[KAEL].edge == 3
    # the undo reaches everyone: the check it voids was public
    assert any(d["event"]["type"] == "table.undone" for d in log.seen_by("moreau"))


def test_refusing_writes_only_the_ruling_and_its_undo_reaches_only_the_player() -> None:
    log = edge()
    [req] = log.do(KAEL, type="check", character="Kael", skill="melee", edge="advantage")
    [ruled] = log.do(type="refuse", request=req.seq, reason="  not   now ")
    assert ruled.event.reason == "not now"
    assert log.state.requests == {}
    assert log.state.characters[KAEL].edge == 3
    [undo] = log.do(type="undo")
    assert undo.visibility.to == KAEL
    assert [d["event"]["type"] for d in log.seen_by(KAEL)][-3:] == [
        "player.requested",
        "player.ruled",
        "table.undone",
    ]
    moreau = log.seen_by("moreau")
    assert all(d["event"]["type"].startswith(("table.created", "character")) for d in moreau)
    assert list(log.state.requests) == [req.seq]


def test_amending_applies_the_gms_command_and_a_ruled_request_is_ruled_once() -> None:
    log = edge()
    [req] = log.do(KAEL, type="check", character="Kael", skill="athletics", tn=10)
    amended = log.do(
        type="amend",
        request=req.seq,
        command={"type": "check", "character": "Kael", "skill": "athletics", "tn": 25},
    )
    assert amended[0].author == GM
    assert amended[0].event.tn == 25
    assert amended[-1].event.ruling == "amended"
    assert amended[-1].event.applied["tn"] == 25
    with pytest.raises(RuleError, match=r"accept: record #\d+ is no request waiting"):
        log.do(type="accept", request=req.seq)
    [again] = log.do(KAEL, type="check", character="Kael", skill="athletics")
    with pytest.raises(RuleError, match="amend: a request is ruled by one command"):
        log.do(type="amend", request=again.seq, command={"type": "undo"})


def test_trust_applies_at_once_and_off_refuses_every_player_command() -> None:
    log = edge(players="trust")
    records = log.do(KAEL, type="check", character="Kael", skill="athletics")
    assert type(records[0].event).__name__ != "Requested"
    assert all(r.author == "kael (local alice)" for r in records)
    log.do(type="set-option", name="players", value="off")
    with pytest.raises(Refused, match="^Kael: players watch only at this table"):
        log.do(KAEL, type="check", character="Kael", skill="athletics")
    with pytest.raises(Refused, match="players watch only"):
        log.do(KAEL, type="say", text="hello")


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"type": "check", "character": "Moreau", "skill": "athletics"}, "their own character"),
        ({"type": "damage", "target": "Kael", "dice": 2}, "'damage' is the GM's command"),
        ({"type": "note", "text": "I win"}, "'note' is the GM's command"),
        ({"type": "undo"}, "'undo' is the GM's command"),
        ({"type": "accept", "request": 1}, "'accept' is the GM's command"),
        ({"type": "check", "character": "Kael", "skill": "athletics", "secret_tn": True},
         "secret_tn: that is the GM's to set"),
        ({"type": "roll", "dice": "2d6", "actor": "Moreau"}, "their own character"),
        ({"type": "roll", "dice": "2d6", "actor": "Kael", "secret": True}, "GM's to set"),
        ({"type": "attack", "character": "Kael", "target": "Nobody", "tn": 10},
         "'Nobody' is not at the table"),
    ],
)  # fmt: skip
def test_a_player_is_refused_with_one_line(data: dict[str, Any], why: str) -> None:
    log = edge(players="trust")
    before = len(log.records)
    with pytest.raises(Refused) as refused:
        log.do(KAEL, **data)
    assert why in str(refused.value)
    assert "\n" not in str(refused.value)
    assert len(log.records) == before


def test_a_hidden_character_is_to_a_player_as_one_not_at_the_table() -> None:
    log = edge(players="trust")
    log.do(type="add-character", name="Zyxquil", hidden=True, sheet={})
    hidden = msgspec.to_builtins(log.state.characters["zyxquil"])
    with pytest.raises(Refused) as one:
        log.do(KAEL, type="attack", character="Kael", target="Zyxquil", tn=10)
    with pytest.raises(Refused) as other:
        log.do(KAEL, type="attack", character="Kael", target="Qorvathe", tn=10)
    assert str(one.value).replace("Zyxquil", "X") == str(other.value).replace("Qorvathe", "X")
    with pytest.raises(Refused, match="no character of that name"):
        log.do("zyxquil", type="check", character="Zyxquil", skill="athletics")
    assert msgspec.to_builtins(log.state.characters["zyxquil"]) == hidden


def test_a_rules_refusal_naming_a_hidden_character_says_only_that_the_rules_refuse() -> None:
    log = edge(players="trust")
    log.do(type="add-character", name="Zyxquil", hidden=True, sheet={})
    with pytest.raises(Refused) as refused:
        log.do(KAEL, type="check", character="Kael", skill="zyxquil-lore")
    assert "zyxquil" not in str(refused.value).lower()


def test_an_npc_is_the_gms_to_play() -> None:
    log = edge(players="trust")
    log.do(type="add-character", name="Goon", npc=True, sheet={})
    with pytest.raises(Refused, match="Goon is an NPC"):
        log.do("goon", type="roll", dice="1d6", actor="Goon")


def test_say_is_heard_at_once_even_when_players_ask() -> None:
    log = edge()
    [said] = log.do(KAEL, type="say", text="I  open the door")
    assert (said.event.seat, said.event.text, said.visibility.to) == (KAEL, "I open the door", "")
    assert log.seen_by("moreau")[-1]["event"]["text"] == "I open the door"
    [gm] = log.do(type="say", text="It creaks")
    assert gm.event.seat == GM


def test_the_state_a_player_sees_holds_only_their_own_requests() -> None:
    log = edge()
    log.do(KAEL, type="check", character="Kael", skill="athletics")
    log.do("moreau", type="check", character="Moreau", skill="athletics")
    assert len(log.state.requests) == 2
    for reader in (KAEL, "moreau", None):
        lens = PlayerLens(log.state.revealed, reader)
        lens.feed(log.records)
        mine = player_state(log.state, lens, None).requests
        assert [r.seat for r in mine.values()] == ([reader] if reader else [])


def test_every_system_declares_player_commands_naming_its_own_fields() -> None:
    for system in ("2d10-edge", "d100-chance", "d100-under", "2d6-effect"):
        mine = player_commands(system)
        assert any(k.__struct_config__.tag == "check" for k in mine)
        assert all(k in get_system(system).commands or k.__module__.endswith("commands")
                   for k in mine)  # fmt: skip


def test_a_player_command_naming_no_field_stops_margin_at_load() -> None:
    class Poke(Command, tag="poke"):
        character: str

    with pytest.raises(ShapeError, match="PLAYERS names no field of Poke: who"):
        check_acting("test", Poke, Acting("who"))


def test_a_whisper_reaches_its_one_player_and_the_gm() -> None:
    log = edge()
    [to_kael] = log.do(type="whisper", to="Kael", text="the idol  is fake")
    assert (to_kael.event.seat, to_kael.event.to, to_kael.visibility.to) == ("gm", KAEL, KAEL)
    [to_gm] = log.do(KAEL, type="whisper", to="gm", text="I pocket it")
    assert (to_gm.event.seat, to_gm.event.to, to_gm.visibility.to) == (KAEL, "gm", KAEL)
    texts = [d["event"].get("text") for d in log.seen_by(KAEL)]
    assert texts[-2:] == ["the idol is fake", "I pocket it"]
    assert all(d["event"]["type"] != "player.whispered" for d in log.seen_by("moreau"))
    with pytest.raises(Refused, match="a player whispers to the GM only"):
        log.do(KAEL, type="whisper", to="Moreau", text="psst")
    log.do(type="add-character", name="Zyxquil", hidden=True, sheet={})
    with pytest.raises(RuleError, match="Zyxquil has no player"):
        log.do(type="whisper", to="Zyxquil", text="you are seen")


def test_a_players_free_roll_is_their_own_characters() -> None:
    log = edge(players="trust")
    [rolled] = log.do(KAEL, type="roll", dice="2d6")
    assert rolled.event.actor == KAEL
