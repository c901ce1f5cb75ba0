"""Players learn nothing the GM hides: a property over random sessions of every system.

Each session is a list of actions taken on a new table with two visible
characters: public ones (rolls, secret rolls, checks, secret checks, notes), GM-only ones
(a hidden character joins, rolls and checks; GM notes) and mixed ones (the
hidden character acts on a visible one, which players see masked), with undo
and redo among them. Every player-facing output is gathered: ``margin log
--as`` (text and JSON), ``margin state --as`` (text and JSON), and the
player's screen (log rows, characters and clock) live and at every replay
position. Three properties hold:

(a) non-interference: without its GM-only actions a session gives players
    exactly the same outputs;
(b) no hidden character's name or id appears in any player output;
(c) the same session with another hidden name and other secret dice gives
    players exactly the same outputs (a visible character's secret check comes to
    other numbers with the same outcome: its total or TN, its margin).

Whispers between the GM and the other player, and that player's requests from their
own seat, are among the actions the watched player never sees: a whisper to one
player changes nothing any other player receives. So are the checks the GM asks of the
other player (open, or secret and rolled by the GM at once); the watched player is
asked too, openly or in secret, and answers from their seat.

Dice are committed (``core.fairness``), from the same session keys in every run; the
one thing masked is a secret record's commitment to what it hides (``sealed``).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import margin_output

from margin.core import RuleError, get_system
from margin.core.authority import GM_SEAT, Seat
from margin.core.commands import convert_command
from margin.core.fairness import SessionKeys
from margin.tui.table.dicekeys import DiceKeys
from margin.tui.table.reader import LiveTable, View
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

#: what a hidden character is called in a session, and in its variant for (c)
HIDDEN = ("Zyxquil", "Qorvathe")


def _demo_sheets(system: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The demo's first two characters (visible here), and a sheet for the hidden one."""
    adds = [d for d in get_system(system).demo if d["type"] == "add-character"]
    visible = [{k: v for k, v in d.items() if k != "hidden"} for d in adds[:2]]
    # the hidden one can do all the first can (a 2d6-effect helper helps, and so on)
    return visible, dict(adds[0].get("sheet", {}))


def _checks(system: str, who: str) -> dict[str, Any]:
    """A check by ``who`` in each system."""
    checks: dict[str, dict[str, Any]] = {
        "2d10-edge": {"type": "check", "character": who, "skill": "athletics", "tn": 18},
        "d100-chance": {"type": "check", "character": who, "skill": "stealth", "difficulty": 30},
        "d100-under": {"type": "check", "character": who, "skill": "Melee"},
        "2d6-effect": {
            "type": "check",
            "character": who,
            "skill": "Electronics",
            "characteristic": "INT",
        },
    }
    return checks[system]


def _secret_check(system: str, who: str, variant: int) -> dict[str, Any]:
    """A secret check by the visible ``who``, with the demo's first sheet: the variant's
    numbers differ by one (dice typed, or a secret TN) and its outcome does not."""
    step = 1 if variant else 0
    checks: dict[str, dict[str, Any]] = {
        "2d10-edge": {"tn": 10 + step, "secret_tn": True, "faces": [5, 6]},
        "d100-chance": {"secret": True, "faces": [30 + step]},
        "d100-under": {"secret": True, "faces": [4, step]},
        "2d6-effect": {"secret": True, "faces": [3 + step, 4]},
    }
    return {**_checks(system, who), **checks[system]}


def _mixed(system: str, hidden: str, seen: str) -> dict[str, Any]:
    """The hidden character acting on a visible one: players see it, masked."""
    acts: dict[str, dict[str, Any]] = {
        "2d10-edge": {"type": "attack", "character": hidden, "target": seen, "tn": 15},
        "d100-chance": {"type": "opposed", "actor": seen, "defender": hidden, "skill": "stealth",
                        "defender_skill": "perception", "difficulty": 30,
                        "defender_difficulty": 30},
        "d100-under": {"type": "opposed", "a": {"character": seen, "attribute": "BR"},
                       "b": {"character": hidden, "attribute": "BR"}},
        "2d6-effect": {"type": "assist", "helper": hidden, "character": seen,
                       "skill": "Electronics"},
    }  # fmt: skip
    return acts[system]


#: (kind, who): who is 0 or 1 for a visible character, "h" for the hidden one
PUBLIC = (
    "roll", "secret-roll", "check", "secret-check", "note", "undo", "redo", "reveal",
    "cond", "counter", "npc-hurt", "ask", "secret-ask", "answer",
)  # fmt: skip
GM_ONLY = (
    "roll", "secret-roll", "check", "gm-note", "undo", "cond", "counter", "gm-cond",
    "whisper", "request", "their-whisper", "ask-other", "secret-ask-other",
)  # fmt: skip
#: the GM asks the watched player (the first) for a check, and they answer from their seat;
#: the GM asks the other player, who never answers (their answer is a check all see)
ASKS = ("ask", "secret-ask", "ask-other", "secret-ask-other")
#: what the other player's seat does, which the player watched (the first) never sees:
#: whispers between the GM and them, and their requests
OTHER_SEAT = ("request", "their-whisper")
#: a visible NPC whose health the GM keeps from players
BRUTE = "Brute"
#: players see these, so a session without its GM-only actions cannot have them
MIXED = ("mixed", "reveal-note")

actions = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(PUBLIC), st.sampled_from([0, 1]), st.integers(0, 20)),
        st.tuples(st.sampled_from(GM_ONLY), st.just("h"), st.integers(0, 20)),
        st.tuples(st.sampled_from(MIXED), st.sampled_from([0, 1]), st.integers(0, 20)),
    ),
    min_size=1,
    max_size=10,
)


def _command(
    system: str,
    kind: str,
    who: Any,
    names: list[str],
    hidden: str,
    ids: list[str],
    pick: int,
    variant: int = 0,
) -> dict[str, Any] | None:
    actor = hidden if who == "h" else names[who]
    if kind == "cond":
        # a d100-under table counts time on its track alone, so its conditions last until removed
        lasting = {} if system == "d100-under" else {"rounds": 1 + pick % 3}
        return {"type": "add-condition", "character": actor, "name": "prone", **lasting}
    if kind == "gm-cond":
        return {"type": "add-condition", "character": names[0], "name": "marked", "gm_only": True}
    if kind == "counter":
        return {"type": "set-counter", "character": actor, "name": "stress", "max": 5,
                "value": pick % 6}  # fmt: skip
    if kind == "npc-hurt":
        # the variant hurts the brute by another amount: players must not be able to tell
        return {"type": "adjust-counter", "character": BRUTE, "name": "Health",
                "by": -(1 + (pick + 3 * variant) % 4)}  # fmt: skip
    if kind == "roll":
        return {"type": "roll", "actor": actor, "dice": "2d6", "reason": "luck"}
    if kind == "secret-roll":
        return {"type": "roll", "actor": actor, "dice": "1d20", "secret": True}
    if kind == "check":
        return _checks(system, actor)
    if kind == "secret-check":
        # by the first visible character, whose sheet the variant's numbers are made for
        return _secret_check(system, names[0], variant)
    if kind == "note":
        return {"type": "note", "text": "the lights go out"}
    if kind in ("whisper", "their-whisper", "request", "answer", *ASKS):
        return _between(system, kind, names, pick)
    if kind == "gm-note":
        return {"type": "note", "text": "reinforcements in two rounds", "gm_only": True}
    if kind == "mixed":
        return _mixed(system, hidden, names[who])
    if kind == "redo":
        return {"type": "redo"}
    # undo: a command of the same side taken earlier (by its id, so both sessions agree)
    if not ids:
        return None
    return {"type": "undo", "command": ids[pick % len(ids)]}


def _between(system: str, kind: str, names: list[str], pick: int) -> dict[str, Any]:
    """What passes between the GM and a player: whispers and the other player's request,
    checks the GM asks of either, and the watched player's answer."""
    other = names[1]
    if kind in ASKS:
        return _asked(system, other if kind.endswith("other") else names[0], "secret" in kind)
    if kind == "answer":
        return {"type": "answer"}
    if kind == "whisper":
        return {"type": "whisper", "to": other, "text": f"a secret for you alone {pick}"}
    if kind == "their-whisper":
        return {"type": "whisper", "to": "gm", "text": f"I pocket the gem {pick}"}
    return _checks(system, other)


def _asked(system: str, who: str, secret: bool) -> dict[str, Any]:
    """The GM asks ``who`` for the system's check, openly (a d100-chance check said open) or
    in secret."""
    check = {k: v for k, v in _checks(system, who).items() if k not in ("type", "character")}
    if system == "d100-chance" and not secret:
        check["secret"] = False
    return {"type": "ask", "characters": [who], "check": check, "secret": secret}


def play(
    path: Path, system: str, steps: list[tuple[int, str, Any, int]], hidden: str, variant: int = 0
) -> Table:
    """A table where ``steps`` (numbered as in the whole session) were taken; returns it open.

    Dice are committed, from the same session keys in every run, so a step rolls the
    same whatever GM-only steps the session holds; ``variant`` changes the dice of the
    GM's secrets only.
    """
    visible, hidden_sheet = _demo_sheets(system)
    table = Table.create(path, system)
    table._keys = DiceKeys(
        path.parent / "dice", lambda: SessionKeys(b"s" * 32, b"t" * 16, b"u" * 32)
    )
    for n, add in enumerate(visible):
        table.execute(convert_command(system, add), command_id=f"add{n}")
    names = [v["name"] for v in visible]
    brute: tuple[dict[str, Any], ...] = (
        {"type": "add-character", "name": BRUTE, "sheet": hidden_sheet, "npc": True},
        {"type": "set-counter", "character": BRUTE, "name": "Health", "max": 20},
        {"type": "health-view", "character": BRUTE, "view": "hidden"},
    )
    for n, step in enumerate(brute):
        table.execute(convert_command(system, step), command_id=f"brute{n}")
    gm_steps = [s for s in steps if s[2] == "h"]
    if gm_steps:
        add = {"type": "add-character", "name": hidden, "sheet": hidden_sheet, "hidden": True}
        table.execute(convert_command(system, add), command_id="hidden")
    done: dict[bool, list[str]] = {True: [], False: []}
    firsts: dict[str, int] = {}
    gm_notes: list[str] = []
    # a reveal of the hidden character's blow would name them, one of the brute's hurt
    # would show its health, and one of a secret check its numbers (other in the
    # variant): those stay unrevealed here
    revealable: list[str] = []
    for n, kind, who, pick in steps:
        gm = who == "h"
        if kind in ("reveal", "reveal-note"):
            # a public command's first record (a secret roll's dice), or a GM note
            pool = revealable if kind == "reveal" else gm_notes
            if not pool:
                continue
            data: dict[str, Any] | None = {"type": "reveal", "seq": firsts[pool[pick % len(pool)]]}
        else:
            data = _command(system, kind, who, names, hidden, done[gm], pick, variant)
        if data is None:
            continue
        # the dice are committed (the same session keys in every run): a die's place
        # counts only what players see, so a step rolls the same whatever GM-only steps
        # came before it; the variant rolls other dice where nothing can follow from
        # them, the GM's secret free rolls (a hidden check's result may rightly shape a
        # later blow)
        secret = gm and kind == "secret-roll"
        table.dice = RandomDice(n * 7919 + variant) if secret else None
        seat = Seat(names[1], "ssh", "SHA256:other") if kind in OTHER_SEAT else GM_SEAT
        if kind == "answer":
            seat = Seat(names[0], "local", "watched")
        with contextlib.suppress(RuleError):
            records = table.execute(convert_command(system, data), command_id=f"c{n}", seat=seat)
            firsts[f"c{n}"] = records[0].seq
            if kind == "gm-note":
                gm_notes.append(f"c{n}")
            if kind not in ("undo", "redo", "reveal", "reveal-note"):
                done[gm].append(f"c{n}")
                if not gm and kind not in ("mixed", "npc-hurt", "secret-check"):
                    revealable.append(f"c{n}")
    return table


_CLOCK = re.compile(r"\b\d\d:\d\d:\d\d\b")


def player_outputs(path: Path, player: str) -> list[str]:
    """Everything a player gets of the table, times and the creation's id left out."""
    out = [_CLOCK.sub("", margin_output("log", str(path), "--as", player))]
    for line in margin_output("log", str(path), "--as", player, "--json").splitlines():
        data = json.loads(line)
        data.pop("at", None)
        if data.get("type") == "table.created":
            data.pop("command", None)
        if "sealed" in data:
            # a secret record's commitment differs with what it hides, and tells nothing
            # of it (an HMAC under a key players get only with a reveal): the one mask
            data["sealed"] = "sealed"
        out.append(json.dumps(data, sort_keys=True))
    out.append(margin_output("state", str(path), "--as", player).replace(str(path), "TABLE"))
    state = json.loads(margin_output("state", str(path), "--as", player, "--json"))
    out.append(json.dumps(state, sort_keys=True))
    table = LiveTable.open_live(str(path), readonly=True, lens=True)
    try:
        view = View(table, player=player)
        out.extend(_screen(view))
        for position in range(len(view.seqs())):
            view.goto(position)
            out.extend(_screen(view))
    finally:
        table.close()
    return out


def _screen(view: View) -> Iterator[str]:
    for row in view.rows(0, view.log_len()):
        yield f"{row.number} {row.author} {row.text} {row.undone} {row.mistake} {row.secret}"
    for char in view.characters():
        yield f"{char.name} {char.status} {char.hidden}"
    yield repr(view.clock())


SYSTEMS = ("2d10-edge", "d100-chance", "d100-under", "2d6-effect")


def check_session(tmp: Path, system: str, steps: list[tuple[str, Any, int]]) -> None:
    """The three properties for one session."""
    visible, _ = _demo_sheets(system)
    player = visible[0]["name"]
    runs = {}
    numbered = [(n, *step) for n, step in enumerate(steps)]
    for name, kept, hidden, variant in (
        ("all", numbered, HIDDEN[0], 0),
        ("variant", numbered, HIDDEN[1], 1),
        ("no-mixed", [s for s in numbered if s[1] not in MIXED], HIDDEN[0], 0),
        ("public", [s for s in numbered if s[2] != "h" and s[1] not in MIXED], HIDDEN[0], 0),
    ):
        (tmp / name).mkdir()
        path = tmp / name / "table.margin"
        play(path, system, kept, hidden, variant).close()
        runs[name] = player_outputs(path, player)
    # (a) non-interference
    assert runs["no-mixed"] == runs["public"], _diff(runs["no-mixed"], runs["public"])
    # (b) no hidden name or id
    text = "\n".join(runs["all"]).lower()
    assert HIDDEN[0].lower() not in text
    # (c) another hidden name, other secret dice: the same for players
    assert runs["all"] == runs["variant"], _diff(runs["all"], runs["variant"])


def _diff(a: list[str], b: list[str]) -> str:
    lines = difflib.unified_diff("\n".join(a).splitlines(), "\n".join(b).splitlines(), n=0)
    return "\n".join(list(lines)[:40])


@pytest.mark.parametrize("system", SYSTEMS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=actions)
def test_players_learn_nothing_the_gm_hides(
    system: str, steps: list[tuple[str, Any, int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    check_session(tmp_path_factory.mktemp(system), system, steps)


#: a session with every kind of action, run in every system
EVERY_KIND: list[tuple[str, Any, int]] = [
    ("roll", 0, 0),
    ("roll", "h", 0),
    ("secret-roll", "h", 0),
    ("check", "h", 0),
    ("check", 0, 0),
    ("secret-check", 0, 0),
    ("gm-note", "h", 0),
    ("mixed", 1, 0),
    ("secret-roll", 1, 0),
    ("undo", "h", 1),
    ("note", 0, 0),
    ("undo", 0, 2),
    ("redo", 0, 0),
    ("reveal", 0, 5),
    ("reveal-note", 0, 0),
    ("whisper", "h", 0),
    ("request", "h", 0),
    ("their-whisper", "h", 1),
    ("undo", "h", 3),
    ("cond", 0, 1),
    ("cond", "h", 0),
    ("gm-cond", "h", 0),
    ("counter", 1, 3),
    ("counter", "h", 2),
    ("npc-hurt", 0, 1),
    ("undo", 0, 0),
    ("npc-hurt", 1, 2),
    ("ask-other", "h", 0),
    ("ask", 0, 0),
    ("secret-ask-other", "h", 0),
    ("answer", 0, 0),
    ("secret-ask", 1, 0),
    ("ask", 1, 0),
    ("undo", 0, 0),
    ("undo", "h", 1),
    ("answer", 0, 0),
]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_session_with_every_kind_of_action(system: str, tmp_path: Path) -> None:
    check_session(tmp_path, system, EVERY_KIND)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_revealed_check_keeps_its_hidden_helper_unseen(system: str, tmp_path: Path) -> None:
    """A check helped by a hidden character, then revealed: the reveal shows its secrets
    (a secret roll's dice, a secret target), never who is still hidden."""
    steps: list[tuple[str, Any, int]] = [("mixed", 0, 0), ("check", 0, 0), ("reveal", 0, 0)]
    check_session(tmp_path, system, [*steps, ("roll", "h", 0)])


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_visible_characters_secret_check_tells_players_how_it_went_only(
    system: str, tmp_path: Path
) -> None:
    """A secret check by a character players see, helped by a hidden one in the 2d6-effect
    system: its numbers (other in the variant) reach no player, nor its last check."""
    steps: list[tuple[str, Any, int]] = [("mixed", 0, 0), ("secret-check", 1, 0), ("note", 0, 0)]
    check_session(tmp_path, system, steps)


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize(
    "steps",
    [
        [("secret-ask-other", "h", 0), ("roll", 0, 0)],
        [("roll", "h", 0), ("secret-ask", 0, 0)],
    ],
)
def test_a_check_the_gm_rolls_for_one_player_tells_none_whether_the_dice_were_new(
    system: str, steps: list[tuple[str, Any, int]], tmp_path: Path
) -> None:
    """A secret ask draws the GM's dice for one player's check: the session's commitment
    and the dice go on a record no player sees, so whether it was the first to draw
    changes nothing another command shows, nor its own prompt."""
    check_session(tmp_path, system, steps)


def test_the_property_fails_when_a_leak_is_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lens that forgets GM-only records shows them, and the property says so."""

    from margin.core import lens, policy

    judge = lens.judge

    def leaky(
        event: Any, visibility: Any, hidden: Any, via_unseen: bool = False, reader: Any = None
    ) -> Any:
        if visibility.gm_only:
            return policy.SHOWN
        return judge(event, visibility, hidden, via_unseen, reader)

    monkeypatch.setattr(lens, "judge", leaky)
    with pytest.raises(AssertionError):
        check_session(tmp_path, "2d10-edge", [("roll", 0, 0), ("gm-note", "h", 0)])


def test_every_event_type_says_in_the_docs_what_players_see() -> None:
    from margin.events import ALL_EVENTS

    doc = (Path(__file__).parent.parent / "docs" / "players.md").read_text(encoding="utf-8")
    missing = [
        kind.__struct_config__.tag
        for kind in ALL_EVENTS
        if f"`{kind.__struct_config__.tag}`" not in doc
    ]
    assert not missing, missing


def test_a_player_form_naming_no_field_stops_margin_at_load() -> None:
    from margin.events import Event, PlayerForm
    from margin.events.base import check_player_forms

    class Probe(Event, frozen=True, tag="test.probe"):
        actor: str

    Probe.PLAYER = PlayerForm(about=("actor",), secret=("totl",))
    with pytest.raises(TypeError, match="totl"):
        check_player_forms((Probe,))


def test_players_clock_stays_while_a_hidden_combatant_acts_and_takes_in_one_shown(
    tmp_path: Path,
) -> None:
    from support import player_state_of

    from margin.tui.table.demo import build_demo

    def do(**data: Any) -> None:
        table.execute(convert_command("2d10-edge", data))

    table = build_demo(tmp_path / "t.margin", "2d10-edge", dice=RandomDice(3))
    try:
        do(type="update-character", character="Guard", hidden=True)
        seen_before: list[str] = []
        for _ in range(7):
            gm_turn = table.state.world.encounter.current
            current = player_state_of(table).world.encounter.current
            assert current != "guard"
            if gm_turn == "guard":
                # a hidden combatant's turn: the players' clock is where it was
                assert current == (seen_before[-1] if seen_before else "")
            else:
                assert current == gm_turn
                seen_before.append(current)
            do(type="next-turn")
        assert "guard" not in [c.id for c in player_state_of(table).world.encounter.order]
        do(type="update-character", character="Guard", hidden=False)
        order = [c.id for c in player_state_of(table).world.encounter.order]
        gm_order = [c.id for c in table.state.world.encounter.order]
        assert order == gm_order
        assert "guard" in order
    finally:
        table.close()
