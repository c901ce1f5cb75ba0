"""The table screen at a real table: bursts and pastes, long records, many characters, history."""

from __future__ import annotations

import asyncio
import functools

import pytest
from textual import events

from core import get_system
from core.commands import AddCharacter, Note, convert_command
from tui import app as appmod
from tui.rng import RandomDice
from tui.screens import PasteScreen
from tui.table import Table
from tui.widgets import CommandLine

SYSTEM = "d100-under"
LONG_NOTE = " ".join(f"word{i:03d}" for i in range(43))[:300]


def pilot_test(test):
    @functools.wraps(test)
    def run(*args, **kwargs):
        asyncio.run(test(*args, **kwargs))

    return run


def build(path, system=SYSTEM, extra=0):
    """The system's demo table, ``extra`` more characters, and a 300-character note."""
    table = Table.create(path, system, title="a real table")
    table.dice = RandomDice(11)
    demo = get_system(system).demo
    for data in demo:
        table.execute(convert_command(system, data))
    sheet = next((c.get("sheet", {}) for c in demo if c["type"] == "add-character"), {})
    for i in range(extra):
        table.execute(AddCharacter(name=f"Extra{i + 1:02d}", sheet=sheet))
    table.execute(Note(text=LONG_NOTE))
    table.close()
    return str(path)


@pytest.fixture
def path(tmp_path):
    return build(tmp_path / "table.margin")


def play(path):
    app = appmod.play_app(path)
    app.view.table.dice = RandomDice(5)
    return app


def notes(app):
    return [
        r.event.text
        for r in app.view.table.store.records()
        if type(r.event).__name__ == "Noted" and r.event.text != LONG_NOTE
    ]


def message(app):
    return str(app.query_one("#message").render())


def burst(app, text):
    """Keys as a terminal delivers a fast burst: all queued before any is handled."""
    for ch in text:
        key = {"\r": "enter", " ": "space"}.get(ch, ch)
        app.post_message(events.Key(key, None if ch == "\r" else ch))


# -- bursts and pastes --------------------------------------------------------


@pilot_test
async def test_a_burst_of_lines_writes_each_line_once(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        burst(app, "note alpha\rnote beta\rnote gamma\r")
        await pilot.pause()
        await pilot.pause()
        assert notes(app) == ["alpha", "beta", "gamma"]
        assert app.query_one(CommandLine).value == ""


@pilot_test
async def test_a_refused_line_in_a_burst_does_not_swallow_the_next(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        burst(app, "fly\rnote after\r")
        await pilot.pause()
        await pilot.pause()
        assert notes(app) == ["after"]
        line = app.query_one(CommandLine)
        assert line.value == ""
        await pilot.press("up", "up")
        assert line.value == "fly"


@pilot_test
async def test_a_bracketed_paste_of_three_lines_runs_them_in_order_after_one_enter(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(CommandLine).post_message(events.Paste("note one\nnote two\r\nnote three\n"))
        await pilot.pause()
        assert isinstance(app.screen, PasteScreen)
        assert notes(app) == []
        await pilot.press("enter")
        await pilot.pause()
        assert notes(app) == ["one", "two", "three"]
        assert "ran 3 pasted lines" in message(app)


@pilot_test
async def test_a_paste_dropped_with_escape_runs_nothing(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(CommandLine).post_message(events.Paste("note one\nnote two"))
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert notes(app) == []
        assert "nothing run" in message(app)


@pilot_test
async def test_a_paste_stops_at_the_first_refused_line(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(CommandLine).post_message(events.Paste("note one\nroll 2d6 = 9 9\nnote x"))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert notes(app) == ["one"]
        assert "pasted line 2 of 3 refused" in message(app)
        assert "9 is not a face" in message(app)
        assert app.query_one(CommandLine).value == "roll 2d6 = 9 9"


@pilot_test
async def test_a_paste_with_a_line_that_opens_a_screen_is_refused_whole(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(CommandLine).post_message(events.Paste("note one\nundo"))
        await pilot.pause()
        assert not isinstance(app.screen, PasteScreen)
        assert notes(app) == []
        assert "paste refused, nothing run: line 2" in message(app)


@pilot_test
async def test_a_one_line_paste_goes_onto_the_command_line(path):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(CommandLine).post_message(events.Paste("note pasted\n"))
        await pilot.pause()
        assert app.query_one(CommandLine).value == "note pasted"
        assert notes(app) == []


# -- history ------------------------------------------------------------------


@pilot_test
async def test_history_survives_closing_the_screen_and_keeps_cleared_lines(path, data_home):
    app = play(path)
    async with app.run_test(size=(80, 24)) as pilot:
        burst(app, "note kept\r")
        await pilot.pause()
        app.query_one(CommandLine).value = "roll 2d6 = 9 9"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")
    app.view.table.close()
    files = list((data_home / "margin" / "history").iterdir())
    assert len(files) == 1 and files[0].name.startswith("table-")
    again = play(path)
    async with again.run_test(size=(80, 24)) as pilot:
        line = again.query_one(CommandLine)
        await pilot.press("up")
        assert line.value == "roll 2d6 = 9 9"
        await pilot.press("up")
        assert line.value == "note kept"
    again.view.table.close()
    records = [r.event for r in Table.open(path).store.records()]
    assert not any("roll 2d6 = 9 9" in str(e) for e in records)


def test_two_tables_of_one_name_keep_their_own_history(tmp_path):
    a = appmod.history_path(tmp_path / "a" / "fight.margin")
    b = appmod.history_path(tmp_path / "b" / "fight.margin")
    assert a != b and a.parent == b.parent and a.name.startswith("fight-")
