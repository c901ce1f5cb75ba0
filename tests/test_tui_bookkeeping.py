"""The bookkeeping on the screens: panels, the turn cue, log search and filter, macros."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support import message, pilot_test

from margin.core import RuleError
from margin.core.commands import convert_command
from margin.tui.screens import app as appmod
from margin.tui.screens.commandline import parse_line
from margin.tui.screens.widgets import CommandLine, LogView
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

LINES = [
    "add Vex",
    "add Mira",
    "add Guard x2 npc",
    "counter vex health 10",
    "counter guard health 8",
    "start vex mira guard = 6 6 5 5 1 1 1 2",
    "cond mira prone 1r",
    "cond guard-2 marked gm",
    "alias hit = adjust guard health -1",
]


def build(path: Path, notes: int = 0) -> str:
    """A 2d6-effect table with a fight set up, ``notes`` notes before it and after it."""
    table = Table.create(path, "2d6-effect")
    table.dice = RandomDice(3)
    filler = [f"note the night wears on ({n})" for n in range(notes)]
    for line in [*filler, *LINES, *filler]:
        command = parse_line(line, table.state).command
        assert command is not None, line
        table.execute(command)
    table.close()
    return str(path)


async def typed(app, pilot, line: str) -> None:
    command = app.query_one(CommandLine)
    command.value = line
    await pilot.press("enter")
    await pilot.pause()


@pilot_test
async def test_panels_show_counters_and_conditions_and_a_macro_runs(tmp_path):
    app = appmod.play_app(build(tmp_path / "t.margin"))
    async with app.run_test(size=(100, 30)) as pilot:
        rows = {r.name: r.status for r in app.view.characters()}
        assert "health 10/10" in rows["Vex"]
        assert "prone, 1 round left" in rows["Mira"]
        assert "marked" in rows["Guard 2"]
        await typed(app, pilot, "hit")
        rows = {r.name: r.status for r in app.view.characters()}
        assert "health 7/8" in rows["Guard 1"]
        assert "health 7/8" in rows["Guard 2"]
        assert ("hit", "adjust guard health -1") in app.help_commands()
    app.view.table.close()


@pilot_test
async def test_slash_finds_text_in_the_log_and_at_filters_by_character(tmp_path):
    app = appmod.play_app(build(tmp_path / "t.margin", notes=60))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()  # the log settles at its newest record first
        await typed(app, pilot, "/prone")
        log = app.query_one(LogView)
        log.screen_lines()
        shown = app.view.rows(log.lowest, log.lowest + 1)[0]
        assert "prone" in shown.text
        assert "found at" in message(app)
        await typed(app, pilot, "/nothing like it")
        assert "not in the log" in message(app)
        await typed(app, pilot, "/@mira")
        texts = [r.text for r in app.view.rows(0, app.view.log_len())]
        assert texts
        assert all("mira" in t.lower() for t in texts)
        await typed(app, pilot, "/@")
        assert app.view.log_len() == app.view.table.projection.seq
    app.view.table.close()


@pilot_test
async def test_a_watching_player_sees_their_turn_and_no_gm_only_condition(tmp_path):
    path = build(tmp_path / "t.margin")
    watcher = appmod.watch_app(path, "Mira", bell=True)
    rang = []
    watcher.bell = lambda: rang.append(True)  # type: ignore[method-assign]
    async with watcher.run_test(size=(100, 30)) as pilot:
        assert not watcher.my_turn()
        assert "YOUR TURN" not in str(watcher.header_text())
        rows = {r.name: r.status for r in watcher.view.characters()}
        assert "marked" not in rows["Guard 2"]
        # vex (12) acts first, then mira (10): mira is on deck during vex's turn
        for cue in ("ON DECK", "YOUR TURN"):
            gm = Table.open(path)
            try:
                gm.execute(parse_line("next", gm.state).command)  # type: ignore[arg-type]
            finally:
                gm.close()
            await pilot.pause()
            deadline = asyncio.get_running_loop().time() + 10
            while cue not in str(watcher.header_text()):
                assert asyncio.get_running_loop().time() < deadline, cue
                await pilot.pause(0.02)
        assert watcher.my_turn()
        assert "your turn, Mira" in message(watcher)
        assert rang == [True, True]
    watcher.view.table.close()


@pilot_test
async def test_replay_searches_with_slash_and_n(tmp_path):
    app = appmod.replay_app(build(tmp_path / "t.margin"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("end")
        await pilot.press("slash")
        await pilot.pause()
        for key in "joins the table":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await pilot.pause()
        first, at = app.view.number, app.view.at
        assert at is not None
        assert "joins the table" in app.view.rows(at, at + 1)[0].text
        await pilot.press("n")
        await pilot.pause()
        assert app.view.number < first
        app._seek("@mira")
        await pilot.pause()
        assert app.view.only == "mira"
        texts = [r.text for r in app.view.rows(0, len(app.view.seqs()))]
        assert texts
        assert all("Mira" in t for t in texts)
        app._seek("@")
        assert app.view.only is None
    app.view.table.close()


def test_a_macro_cannot_take_a_commands_word(tmp_path):
    table = Table.create(tmp_path / "t.margin", "2d6-effect")
    try:
        for word in ("next", "check", "cond", "roll"):
            with pytest.raises(RuleError, match="is a command"):
                parse_line(f"alias {word} = note hi", table.state)
        # one written by margin do does not hide the command either
        table.execute(
            convert_command("2d6-effect", {"type": "alias", "name": "note", "line": "roll 1d6"})
        )
        command = parse_line("note the door creaks", table.state).command
        assert command is not None
        assert command.__struct_config__.tag == "note"
    finally:
        table.close()
