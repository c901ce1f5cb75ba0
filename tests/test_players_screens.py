"""A player's command line on the watch screen, and the GM's requests on the table screen.

The player presses ``:``, types a command and Enter: under ``ask`` it becomes a request
the GM's screen lists, where F5 accepts the first, F6 puts its refusal on the command
line and F7 its command, to amend; under ``trust`` it is applied at once; under ``off``
the line says the player watches only. Refusals are the core's one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import margin_demo, pilot_test, pilot_until, settled
from textual.widgets import Static

from margin.tui.screens import app as appmod
from margin.tui.screens import watch as watchmod
from margin.tui.screens.base import TableApp
from margin.tui.screens.widgets import CommandLine, OddsBar
from margin.tui.table.table import Table

SIZE = (100, 30)


@pytest.fixture
def path(tmp_path: Path) -> str:
    return margin_demo(tmp_path, "2d10-edge", "t.margin")


def _option(path: str, value: str) -> None:
    table = Table.open(path)
    try:
        from margin.core.commands import SetOption

        table.execute(SetOption(name="players", value=value))
    finally:
        table.close()


def _records(path: str) -> list[dict[str, object]]:
    table = Table.open(path, readonly=True)
    try:
        import msgspec

        return [msgspec.to_builtins(r) for r in table.store.records()]
    finally:
        table.close()


async def _type(pilot: object, app: TableApp, text: str) -> None:
    line = app.query_one(CommandLine)
    line.value = text
    line.cursor_position = len(text)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]


def _message(app: TableApp) -> str:
    return str(app.query_one("#message", Static).render())


@pilot_test
async def test_a_players_check_is_a_request_the_gm_accepts_with_one_key(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        assert player.seat is not None
        await pilot.press("colon")
        assert player.focused is player.query_one(CommandLine)
        player.query_one(CommandLine).insert_text_at_cursor("check kael melee vs 15")
        await pilot.pause()
        assert "vs TN 15" in str(player.query_one(OddsBar).render())
        player.query_one(CommandLine).value = ""
        await _type(pilot, player, "check kael melee vs 15")
        assert _message(player).startswith("asked the GM (request #")
    asked = _records(path)[-1]
    assert asked["event"]["type"] == "player.requested"  # type: ignore[index]
    assert str(asked["author"]).startswith("kael (local ")
    gm = appmod.play_app(path)
    async with gm.run_test(size=SIZE) as pilot:
        await pilot.pause()
        panel = str(gm.query_one("#requests", Static).render())
        assert f"#{asked['seq']} Kael: check Kael melee vs 15" in panel
        assert gm.query_one("#requests").display
        await pilot.press("f5")
        await gm.workers.wait_for_complete()
        await pilot.pause()
        assert f"GM accepts Kael's request #{asked['seq']}" in _message(gm)
        assert not gm.query_one("#requests").display
    check, ruled = _records(path)[-2:]
    assert str(check["author"]).startswith("kael (local ")
    assert ruled["event"]["ruling"] == "accepted"  # type: ignore[index]


@pilot_test
async def test_the_gm_refuses_with_a_reason_and_amends_on_the_command_line(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        await _type(pilot, player, "check kael melee vs 15")
        await _type(pilot, player, "check kael athletics vs 10")
    first, second = (r["seq"] for r in _records(path)[-2:])
    gm = appmod.play_app(path)
    async with gm.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f6")
        line = gm.query_one(CommandLine)
        assert line.value == f"refuse {first} "
        await _type(pilot, gm, f"refuse {first} not while you hang there")
        assert f"GM refuses Kael's request #{first}: not while you hang there" in _message(gm)
        await pilot.press("f7")
        assert line.value.startswith(f"amend {second} ")
        data = json.loads(line.value.split(" ", 2)[2])
        assert data == {"type": "check", "character": "kael", "skill": "athletics", "tn": 10}
        await _type(pilot, gm, line.value.replace('"tn": 10', '"tn": 25'))
        assert "vs TN 25" in _message(gm)
        assert f"GM amends Kael's request #{second}" in _message(gm)


@pilot_test
async def test_trust_applies_at_once_and_a_refusal_is_one_line(path: str) -> None:
    _option(path, "trust")
    before = len(_records(path))
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        await _type(pilot, player, "check moreau firearms vs 15")
        assert _message(player) == (
            "Kael: check character: a player commands their own character only (Kael)"
        )
        assert player.query_one(CommandLine).value == "check moreau firearms vs 15"
        assert len(_records(path)) == before
        await _type(pilot, player, "say I go first")
        assert _message(player) == "done: say I go first"
        player.query_one(CommandLine).value = ""
        await _type(pilot, player, "check kael melee vs 15")
    *_, check, entropy = _records(path)
    assert check["event"]["type"] == "edge.check"  # type: ignore[index]
    assert str(check["author"]).startswith("kael (local ")
    # the check committed the table's first session of dice: the seat gives its entropy to it
    assert check["committed"]
    assert entropy["event"]["type"] == "dice.entropy"  # type: ignore[index]
    assert entropy["author"] == check["author"]


@pilot_test
async def test_a_players_unknown_word_is_told_the_players_words(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        # ':' again, on the line it opened, is not typed into it
        await pilot.press("colon")
        line = player.query_one(CommandLine)
        assert line.value == ""
        await _type(pilot, player, "atack enforcer")
        said = _message(player)
        assert said.startswith("'atack' is not a command (did you mean 'attack'?); commands: ")
        words = said.split("commands: ", 1)[1].split(", ")
        assert {"check", "attack", "say", "whisper", "edge"} <= set(words), words
        assert not {"undo", "gmnote", "reveal", "hide", "accept", "ask"} & set(words), words


@pilot_test
async def test_off_leaves_the_player_watching_and_the_line_says_so(path: str) -> None:
    _option(path, "off")
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.pause()
        line = player.query_one(CommandLine)
        assert line.disabled
        assert line.placeholder == watchmod.LINE_SAYS["off"]
        await pilot.press("colon")
        assert _message(player) == watchmod.LINE_SAYS["off"]


@pilot_test
async def test_a_table_this_account_cannot_write_is_watched_only(path: str) -> None:
    player = appmod.watch_app(path, "Kael", act=False)
    async with player.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert player.seat is None
        assert not player.query(CommandLine)
        await pilot.press("colon")
        assert _message(player) == "this view watches only"


@pilot_test
async def test_the_gms_ruling_on_a_request_is_said_on_its_players_message_line(path: str) -> None:
    from margin.core.commands import Accept, Note, Refuse

    gm = Table.open(path)
    gm.execute(Note(text="the ledge will give way", gm_only=True))  # numbers part from seqs
    player = appmod.watch_app(path, "Kael")
    other = appmod.watch_app(path, "Vask")
    async with player.run_test(size=SIZE) as pilot, other.run_test(size=SIZE) as watching:
        await pilot.press("colon")
        await _type(pilot, player, "check kael athletics vs 10")
        said = _message(player)
        assert said.startswith("asked the GM (request #")
        number = int(said.split("#")[1].split(")")[0])
        seq = _records(path)[-1]["seq"]
        assert number == int(str(seq)) - 1
        gm.execute(Refuse(request=int(str(seq)), reason="the ledge is loose"))
        await pilot_until(pilot, lambda: "refuses" in _message(player), "no ruling was said")
        assert _message(player) == f"GM refuses Kael's request #{number}: the ledge is loose"
        await _type(pilot, player, "check kael melee vs 15")
        seq = _records(path)[-1]["seq"]
        gm.execute(Accept(request=int(str(seq))))
        await pilot_until(pilot, lambda: "accepts" in _message(player), "no ruling was said")
        assert _message(player) == f"GM accepts Kael's request #{number + 2}"
        await settled(watching)
        assert "request" not in _message(other)
    gm.close()


def _queued(app: TableApp, *keys: str) -> None:
    """Keys as a terminal delivers a fast burst or a paste: all queued before any is handled."""
    from textual import events

    names = {":": "colon", " ": "space"}
    for key in keys:
        character = key if len(key) == 1 else ("\r" if key == "enter" else None)
        app.post_message(events.Key(names.get(key, key), character))


@pilot_test
async def test_what_a_player_types_right_after_the_colon_is_their_line_not_the_screens_keys(
    path: str,
) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # "q" quits the watch screen, "r" shows the GM's ask, "p" the panels: typed in one
        # burst after ':' they are the line's letters
        _queued(player, *":quiet please")
        await pilot.pause()
        await pilot.pause()
        assert player.is_running
        assert player.query_one(CommandLine).value == "quiet please"


@pilot_test
async def test_a_burst_of_a_players_lines_gives_every_one_in_order(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await player.workers.wait_for_complete()
        await pilot.pause()
        before = len(_records(path))
        # typed as fast as a terminal delivers them: each line entered while the one
        # before is still being written
        _queued(player, *":say a1", "enter", *"say b1", "enter", *"say c1", "enter")
        await pilot_until(pilot, lambda: len(_records(path)) >= before + 3, "three lines written")
        await player.workers.wait_for_complete()
    said = [r["event"]["text"] for r in _records(path)[before:]]  # type: ignore[index]
    assert said == ["a1", "b1", "c1"]


@pilot_test
async def test_a_players_whisper_is_said_delivered_not_asked(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        await _type(pilot, player, "whisper gm I pocket the idol")
        assert _message(player) == "done: whisper gm I pocket the idol"
        await _type(pilot, player, "check kael athletics vs 10")
        assert _message(player).startswith("asked the GM (request #")
    whispered = _records(path)[-2]
    assert whispered["event"]["type"] == "player.whispered"  # type: ignore[index]
