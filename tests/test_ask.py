"""The GM asks players for a check, and each answers from their own seat.

Given a table of any dice system, when the GM asks players for a check (``ask kael,vex
...``, the system's own check form after the names), then each named player gets a
prompt addressed to them alone; their answer (margin's dice or the faces they typed)
writes their check, as theirs, caused by the prompt. A secret ask (or a check the
system rolls in secret) is rolled by the GM's dice at once and its player learns only
that a check is being made. The GM rolls a prompt nobody answered; undo works as
everywhere.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from test_authority import Log

from margin.core import RuleError, get_system
from margin.core.authority import GM, Refused, Seat
from margin.core.lens import PlayerLens, player_state
from margin.core.systems.words import parse_generic, split_words
from margin.events.players import Answered, Prompted

#: per system: the two players asked, the check's words after the names, the faces one
#: answer types, and a check the system rolls in secret unless told otherwise (or None)
SYSTEMS: dict[str, dict[str, Any]] = {
    "2d10-edge": {"who": ("Kael", "Moreau"), "check": "athletics vs 25", "faces": [7, 3]},
    "d100-chance": {
        "who": ("Kessler", "Marn"),
        "check": "perception 40 open",
        "faces": [38],
        "secret_by_default": "perception 40",
    },
    "d100-under": {"who": ("Kael", "Ada"), "check": "br", "faces": [3, 7]},
    "2d6-effect": {"who": ("Vex", "Mira"), "check": "dex routine", "faces": [3, 4]},
}


def table(system: str, **options: Any) -> Log:
    log = Log(system, **options)
    for data in get_system(system).demo:
        if data["type"] == "add-character":
            log.do(**data)
    return log


def typed(log: Log, line: str, seat: str | Seat = GM) -> list[Any]:
    """A line typed on the GM's command line (a short form), given from ``seat``."""
    data = parse_generic(list(split_words(line)), log.state)
    assert data is not None, line
    return log.do(seat, **data)


def ids(log: Log, *names: str) -> list[str]:
    return [log.state.characters[n.lower()].id for n in names]


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_player_asked_answers_their_check_with_dice_or_typed_faces(system: str) -> None:
    case = SYSTEMS[system]
    log = table(system)
    first, second = ids(log, *case["who"])
    prompts = typed(log, f"ask {first},{second} {case['check']}")
    assert [type(r.event) for r in prompts] == [Prompted, Prompted]
    assert [r.visibility.to for r in prompts] == [first, second]
    assert set(log.state.prompts) == {r.seq for r in prompts}
    # each player sees their own prompt, the check in it; nobody else sees it at all
    for who, prompt in zip((first, second), prompts, strict=True):
        [seen] = [d for d in log.seen_by(who) if d["event"]["type"] == "player.prompted"]
        assert seen["event"]["check"]["character"] == who
        assert prompt.event.check["character"] == who
    assert not [d for d in log.seen_by(None) if d["event"]["type"] == "player.prompted"]

    # the first answers with margin's dice, from their seat: applied at once under ask
    answered = log.do(Seat(first, "ssh", "SHA256:abc"), type="answer")
    *check, done = answered
    assert check
    assert all(r.author == f"{first} (ssh SHA256:abc)" for r in answered)
    assert all(r.cause == prompts[0].seq for r in answered)
    assert type(done.event) is Answered
    assert done.visibility.to == first
    assert check[0].visibility.to == ""  # the check itself is the table's, as any check
    assert log.state.prompts[prompts[0].seq].answered == done.seq
    # the second types the faces they rolled at the table
    *check, done = log.do(second, type="answer", faces=case["faces"])
    assert getattr(check[0].event, "source", "typed") == "typed"
    assert check[0].author == f"{second} (local alice)"
    # every player of the ask has answered: nothing waits
    assert log.state.prompts == {}


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_secret_ask_is_rolled_by_the_gm_and_its_player_learns_only_that(system: str) -> None:
    case = SYSTEMS[system]
    log = table(system)
    first, second = ids(log, *case["who"])
    before = [d["seq"] for d in log.seen_by(second)]
    check = case.get("secret_by_default") or case["check"]
    records = typed(log, f"ask {first} {check}{'' if 'secret_by_default' in case else ' secret'}")
    prompt, *rolled = records
    assert prompt.event.secret
    assert prompt.visibility.to == first
    assert rolled
    assert all(r.visibility.gm_only and r.cause == prompt.seq for r in rolled)
    assert all(r.author == GM for r in records)
    # the player is told a check is being made: no skill, no target, no result
    seen = [d["event"] for d in log.seen_by(first)][-1]
    assert seen == {"type": "player.prompted", "seat": first, "secret": True}
    # another player, and players at large, get nothing of it
    assert [d["seq"] for d in log.seen_by(second)] == before
    assert log.state.prompts == {}
    with pytest.raises(Refused, match="no check the GM asked of .* is waiting"):
        log.do(first, type="answer")
    # nor does their state show what the check left (its result as their last check)
    lens = PlayerLens(log.state.revealed, first)
    lens.feed(log.records)
    assert getattr(player_state(log.state, lens, None).characters[first], "last", None) is None


def test_a_d100_chance_ask_is_secret_unless_the_gm_says_open() -> None:
    log = table("d100-chance")
    [prompt, rolled] = typed(log, "ask rook lockpick 12 tools")
    assert prompt.event.secret
    assert rolled.visibility.gm_only
    [prompt] = typed(log, "ask rook lockpick 12 tools open")
    assert not prompt.event.secret
    [check, _] = log.do("rook", type="answer", faces=[38])
    assert check.event.roll == 38
    assert not check.visibility.hidden


def test_a_secret_tn_keeps_the_ask_the_gms() -> None:
    log = table("2d10-edge")
    [prompt, rolled] = log.do(
        type="ask", characters=["Kael"], check={"skill": "perception", "tn": 30, "secret_tn": True}
    )
    assert prompt.event.secret
    assert rolled.visibility.gm_only


def test_the_gm_rolls_the_prompt_nobody_answered() -> None:
    log = table("2d10-edge")
    kael, moreau = typed(log, "ask kael,moreau athletics vs 20")
    *check, done = typed(log, "ask roll moreau")
    assert all(r.author == GM for r in [*check, done])
    assert done.event.prompt == moreau.seq
    assert check[0].event.character == "moreau"
    # the GM's dice or the faces the player said they rolled; by the prompt's number too
    [*_, done] = log.do(type="answer", prompt=kael.seq, faces=[4, 4])
    assert done.event.prompt == kael.seq
    assert log.state.prompts == {}
    with pytest.raises(RuleError, match=r"no check waiting for its answer \(waiting: none\)"):
        log.do(type="answer", prompt=kael.seq)


def test_open_prompts_say_who_has_answered_until_all_have() -> None:
    log = table("2d6-effect")
    vex, mira = typed(log, "ask vex,mira electronics routine")
    log.do("vex", type="answer")
    waiting = {s: (p.seat, bool(p.answered)) for s, p in log.state.prompts.items()}
    assert waiting == {vex.seq: ("vex", True), mira.seq: ("mira", False)}


def test_asking_a_character_no_player_plays_is_refused_and_writes_nothing() -> None:
    log = table("2d10-edge")
    log.do(type="add-character", name="Thug", npc=True, sheet={})
    log.do(type="add-character", name="Spy", hidden=True, sheet={})
    size = len(log.records)
    with pytest.raises(RuleError, match="ask: Thug has no player to ask"):
        typed(log, "ask kael,thug perception vs 20")
    with pytest.raises(RuleError, match="ask: Spy has no player to ask"):
        typed(log, "ask spy perception vs 20")
    with pytest.raises(RuleError, match="not at the table"):
        typed(log, "ask nobody perception vs 20")
    # a check the rules refuse is refused at the ask, naming whose check it is
    with pytest.raises(RuleError, match="ask: Moreau: "):
        log.do(type="ask", characters=["Moreau"], check={"skill": "athletics", "tn": "nope"})
    with pytest.raises(RuleError, match="the GM asks for a check, not 'attack'"):
        log.do(type="ask", characters=["Kael"], check={"type": "attack", "target": "guard"})
    with pytest.raises(RuleError, match="the check names no faces"):
        log.do(type="ask", characters=["Kael"], check={"skill": "melee", "faces": [1, 2]})
    assert len(log.records) == size


def test_a_player_answers_their_own_prompt_once_and_no_one_elses() -> None:
    log = table("2d10-edge")
    kael, moreau = typed(log, "ask kael,moreau athletics vs 20")
    size = len(log.records)
    with pytest.raises(Refused, match="a player commands their own character only"):
        log.do("kael", type="answer", character="Moreau")
    with pytest.raises(Refused, match="prompt: that is the GM's to set"):
        log.do("kael", type="answer", prompt=moreau.seq)
    with pytest.raises(Refused, match="Vask: answer: no check the GM asked of Vask is waiting"):
        log.do("vask", type="answer")
    with pytest.raises(Refused, match="'ask' is the GM's command"):
        log.do("kael", type="ask", characters=["Kael"], check={"skill": "melee"})
    assert len(log.records) == size
    log.do("kael", type="answer", faces=[5, 5])
    with pytest.raises(Refused, match="Kael: answer: no check the GM asked of Kael is waiting"):
        log.do("kael", type="answer")


def test_with_players_off_the_gm_is_told_and_players_cannot_answer() -> None:
    log = table("2d10-edge", players="off")
    with pytest.raises(RuleError, match="ask: players watch only at this table"):
        typed(log, "ask kael perception vs 20")
    # a secret ask is the GM's to roll anyway
    prompt, _ = typed(log, "ask kael perception vs 20 secret")
    assert prompt.event.secret
    log.do(type="set-option", name="players", value="ask")
    typed(log, "ask kael perception vs 20")
    log.do(type="set-option", name="players", value="off")
    with pytest.raises(Refused, match="players watch only at this table"):
        log.do("kael", type="answer")
    assert len(log.state.prompts) == 1


def test_trust_answers_as_ask_does_at_once() -> None:
    log = table("d100-under", players="trust")
    [prompt] = typed(log, "ask kael melee")
    check, done = log.do("kael", type="answer", faces=[0, 4])
    assert check.event.roll == 4
    assert done.event.prompt == prompt.seq


def test_undo_of_an_answer_puts_the_prompt_back_and_undo_of_the_ask_voids_all() -> None:
    log = table("2d10-edge")
    [prompt] = typed(log, "ask kael perception vs 20")
    log.do("kael", type="answer")
    assert log.state.prompts == {}
    log.do(type="undo")
    assert list(log.state.prompts) == [prompt.seq]
    assert not log.state.prompts[prompt.seq].answered
    answered = log.do("kael", type="answer", faces=[9, 9])
    [undo] = log.do(type="undo", command=prompt.command)
    assert set(undo.event.voids) == {prompt.seq, *(r.seq for r in answered)}
    assert log.state.prompts == {}
    [redo] = log.do(type="redo")
    assert log.state.prompts == {}  # answered, as before the undo
    assert redo.event.restores == undo.event.voids


def test_the_players_state_holds_their_own_waiting_prompts_alone() -> None:
    log = table("2d10-edge")
    typed(log, "ask kael,moreau athletics vs 20")
    for who in ("kael", "moreau", "vask"):
        lens = PlayerLens(log.state.revealed, who)
        lens.feed(log.records)
        mine = player_state(log.state, lens, None).prompts
        assert [p.seat for p in mine.values()] == ([] if who == "vask" else [who])
        for number, prompt in mine.items():
            seen = [d for d in log.seen_by(who) if d["seq"] == number]
            assert seen[0]["event"]["check"] == prompt.check


def test_the_ask_short_form_reads_each_systems_check_words() -> None:
    cases: dict[str, tuple[str, dict[str, Any]]] = {
        "2d10-edge": ("ask kael,moreau athletics vs 25 adv", {"skill": "athletics", "tn": 25}),
        "d100-chance": ("ask rook lockpick 12 tools", {"difficulty": 12}),
        "d100-under": ("ask kael melee", {"skill": "melee"}),
        "2d6-effect": ("ask vex electronics difficult", {"difficulty": "difficult"}),
    }
    for system, (line, part) in cases.items():
        log = table(system)
        data = parse_generic(list(split_words(line)), log.state)
        assert data is not None
        assert data["type"] == "ask"
        assert "character" not in data["check"]
        assert part.items() <= data["check"].items(), (system, data)
        assert msgspec.convert(data["characters"], list[str])
    log = table("2d10-edge")
    assert parse_generic(["ask", "roll", "kael"], log.state) == {
        "type": "answer",
        "character": "kael",
    }
    with pytest.raises(RuleError, match="ask: write it as"):
        parse_generic(["ask", "kael"], log.state)
