"""The GM's ask on the screens: the player's banner to roll now, the GM's list of what waits.

The GM types ``ask kael,moreau athletics vs 25``; the GM's screen lists the ask with
who is waiting. Each player's watch screen shows a banner that takes the keys: Enter
rolls margin's dice, ``=`` puts ``= `` on the command line for the faces they rolled,
Escape hides it and ``r`` brings it back. A secret ask shows no banner: the log says a
check is being made, nothing more. A player's completion offers a player's words only.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support import margin_demo, pilot_test
from test_players_screens import _records
from textual.pilot import Pilot
from textual.widgets import Static

from margin.core.commands import Ask
from margin.tui.screens import app as appmod
from margin.tui.screens.commandline import candidates
from margin.tui.screens.prompts import PromptBar, PromptsPanel
from margin.tui.screens.widgets import CommandLine, LogView
from margin.tui.table.table import Table

SIZE = (100, 34)


@pytest.fixture
def path(tmp_path: Path) -> str:
    return margin_demo(tmp_path, "2d10-edge", "t.margin")


def _ask(path: str, *names: str, secret: bool = False) -> None:
    table = Table.open(path)
    try:
        check = {"skill": "athletics", "tn": 25}
        table.execute(Ask(characters=list(names), check=check, secret=secret))
    finally:
        table.close()


async def _type(pilot: Any, app: Any, text: str) -> None:
    line = app.query_one(CommandLine)
    line.focus()
    line.value = text
    line.cursor_position = len(text)
    await _enter(pilot, app)


async def _enter(pilot: Any, app: Any) -> None:
    """Enter, and what it writes written and drawn."""
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _last(path: str, *kinds: str) -> list[dict[str, Any]]:
    """The last record of each kind, in the order asked (a seat's entropy falls between)."""
    records: list[dict[str, Any]] = _records(path)
    return [next(r for r in reversed(records) if r["event"]["type"] == k) for k in kinds]


@contextlib.asynccontextmanager
async def seated(path: str, name: str) -> AsyncIterator[tuple[Any, Pilot[Any]]]:
    """``name``'s player's screen on ``path``, once it has settled, and its Pilot."""
    player = appmod.watch_app(path, name)
    async with player.run_test(size=SIZE) as pilot:
        await pilot.pause()
        yield player, pilot


def _text(widget: Any) -> str:
    return str(widget.render())


@pilot_test
async def test_the_gm_asks_and_sees_who_is_waiting_then_rolls_for_the_one_who_is(
    path: str,
) -> None:
    gm = appmod.play_app(path)
    async with gm.run_test(size=SIZE) as pilot:
        await _type(pilot, gm, "ask kael,moreau athletics vs 25")
        panel = gm.query_one(PromptsPanel)
        assert panel.has_class("shown")
        assert "Kael waiting, Moreau waiting" in _text(panel)
        assert "ask roll NAME" in _text(panel)
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await _enter(pilot, player)
    gm = appmod.play_app(path)
    async with gm.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "Kael answered, Moreau waiting" in _text(gm.query_one(PromptsPanel))
        await pilot.press("f8")
        assert gm.query_one(CommandLine).value == "ask roll Moreau "
        await _enter(pilot, gm)
        assert not gm.query_one(PromptsPanel).has_class("shown")
        await pilot.press("f8")
        assert "no check asked of a player is waiting" in _text(gm.query_one("#message"))
    check, done = _last(path, "edge.check", "player.answered")
    assert (check["author"], done["author"]) == ("gm", "gm")


@pilot_test
async def test_a_players_banner_takes_the_keys_and_enter_rolls_their_check(path: str) -> None:
    _ask(path, "Kael", "Moreau")
    async with seated(path, "Kael") as (player, pilot):
        bar = player.query_one(PromptBar)
        assert bar.has_class("shown")
        assert player.focused is bar
        assert "THE GM ASKS YOU TO ROLL" in _text(bar)
        assert "Kael: athletics +20 vs TN 25" in _text(bar)
        assert "to succeed" in _text(bar)
        # Escape hides it; r brings it back, with the keys
        await pilot.press("escape")
        assert not bar.has_class("shown")
        await pilot.press("r")
        assert bar.has_class("shown")
        assert player.focused is bar
        await _enter(pilot, player)
        assert not bar.has_class("shown")
        await pilot.press("r")
        assert "the GM asks no check of you now" in _text(player.query_one("#message", Static))
    check, done = _last(path, "edge.check", "player.answered")
    assert check["event"]["source"] != "typed"
    assert str(check["author"]).startswith("kael (local ")
    assert done["cause"] == check["cause"]


@pilot_test
async def test_a_banner_names_the_task_asked_and_its_chance_once(tmp_path: Path) -> None:
    path = margin_demo(tmp_path, "d100-chance", "t.margin")
    table = Table.open(path)
    try:
        check = {"skill": "lockpick", "difficulty": 12, "secret": False, "task": "the second lock"}
        table.execute(Ask(characters=["Rook"], check=check, secret=False))
    finally:
        table.close()
    async with seated(path, "Rook") as (player, pilot):
        shown = _text(player.query_one(PromptBar)).splitlines()[0]
        chance = re.search(r"(\d+)% to succeed", shown)
        assert chance is not None, shown
        assert shown.count(f"{chance[1]}%") == 1, shown
        assert shown.endswith("· task: the second lock"), shown


@pilot_test
async def test_a_banner_shown_again_at_once_keeps_the_keys(path: str) -> None:
    # the banner hid and said so, then showed the GM's next ask before the screen heard it
    _ask(path, "Kael")
    async with seated(path, "Kael") as (player, pilot):
        bar = player.query_one(PromptBar)
        assert player.focused is bar
        bar.post_message(PromptBar.Hidden())
        await pilot.pause()
        assert player.focused is bar
        await pilot.press("escape")
        await pilot.pause()
        assert player.focused is player.query_one(LogView)


@pilot_test
async def test_a_player_types_the_faces_they_rolled_after_equals(path: str) -> None:
    _ask(path, "Kael", "Moreau")
    async with seated(path, "Moreau") as (player, pilot):
        await pilot.press("equals_sign")
        line = player.query_one(CommandLine)
        assert player.focused is line
        assert line.value == "= "
        await pilot.press("7", "space", "3")
        assert line.value == "= 7 3"
        await _enter(pilot, player)
        assert not player.query_one(PromptBar).has_class("shown")
    check, done = _last(path, "edge.check", "player.answered")
    assert check["event"]["faces"] == [7, 3]
    assert check["event"]["source"] == "typed"
    assert done["event"]["seat"] == "moreau"


@pilot_test
async def test_a_secret_ask_shows_its_player_only_that_a_check_is_made(path: str) -> None:
    _ask(path, "Kael", secret=True)
    async with seated(path, "Kael") as (player, pilot):
        assert not player.query_one(PromptBar).has_class("shown")
        lines = [row.text for row in player.view.rows(0, player.view.log_len())]
        [told] = [line for line in lines if "secret check" in line]
        assert told.endswith("GM makes a secret check for Kael")
        assert not any("athletics" in line.lower() for line in lines[-3:])
    async with seated(path, "Moreau") as (other, pilot):
        assert not any(
            "secret check" in row.text for row in other.view.rows(0, other.view.log_len())
        )
        assert other.query_one(LogView) is not None


@pilot_test
async def test_a_players_completion_offers_a_players_words_alone(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await pilot.press("colon")
        line = player.query_one(CommandLine)
        state = player.view.state()
        assert "ask" not in candidates("", state, "kael")
        assert "note" not in candidates("", state, "kael")
        assert candidates("check ", state, "kael") == ["kael"]
        assert "perception" in candidates("check kael ", state, "kael")
        line.value = "a"
        line.cursor_position = 1
        await pilot.press("tab")
        assert line.value == "attack "
        line.value = "check k"
        line.cursor_position = len(line.value)
        await pilot.press("tab")
        assert line.value == "check kael "
