"""Pilot flows of the table screens: play, undo and redo, bad commands, watch, replay."""

from __future__ import annotations

import asyncio
import functools
import io
import time
from typing import Any

import pytest
from rich.console import Console
from support import (
    demo_sheet,
    margin_process,
    message,
    pilot_test,
    pilot_until,
    play,
    playing,
    saved_table,
)
from textual.binding import Binding
from textual.widgets import Static

from margin.core import get_system
from margin.core.commands import AddCharacter, Note, RollDice, Undo, convert_command
from margin.events import StoreError
from margin.tui.screens import app as appmod
from margin.tui.screens.base import SPEEDS
from margin.tui.screens.modals import HelpScreen, JumpScreen, UndoScreen
from margin.tui.screens.watch import WaitingScreen
from margin.tui.screens.widgets import CommandLine, LogView, OddsBar
from margin.tui.table import table as tablemod
from margin.tui.table.reader import LiveTable
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "d100-under"
#: The screen's part of typing the demo fight and the short forms is the same for every system,
#: so the Pilot tests type one system's (test_short_forms reads every system's without a screen).
DEMO_SYSTEM = "2d10-edge"
SHORT_FORMS_SYSTEM = "2d6-effect"
SIZE = (100, 30)

pytestmark = pytest.mark.usefixtures("fixed_command_ids")


def build(path, system=SYSTEM, demo=True):
    """A table with the system's demo party and fight, a secret roll, a GM note and a hidden NPC."""
    return saved_table(
        path,
        system,
        "test table",
        RollDice(dice="1d20", faces=[17], secret=True, reason="ambush"),
        Note(text="the cultist is a spy", gm_only=True),
        AddCharacter(name="Shade", sheet=demo_sheet(system, last=True), hidden=True),
        Note(text="the door creaks"),
        demo=demo,
    )


@pytest.fixture
def path(tmp_path):
    return build(tmp_path / "table.margin")


def log_texts(app):
    view = app.view
    return [row.text for row in view.rows(0, view.log_len())]


async def type_line(pilot, text):
    """Type a line: short ones key by key, long ones pasted (the keys are tested elsewhere)."""
    if len(text) <= 8:
        await pilot.press(*text)
    else:
        line = pilot.app.query_one(CommandLine)
        line.insert_text_at_cursor(text)
    await pilot.pause()


async def enter_line(pilot, text):
    """Type a line and press Enter, as a GM runs it."""
    await type_line(pilot, text)
    await pilot.press("enter")


# -- play ---------------------------------------------------------------------


@pilot_test
async def test_a_typed_roll_is_appended_and_shown(path):
    async with playing(path, SIZE) as (app, pilot):
        before = app.view.table.projection.seq
        await enter_line(pilot, "roll 3d6+2 = 1 2 3")
        await pilot.pause()
        table = app.view.table
        assert table.projection.seq == before + 1
        record = table.store.record(table.projection.seq)
        assert record.event.faces == [1, 2, 3]
        assert record.event.total == 8
        assert record.event.source == "typed"
        assert app.query_one(CommandLine).value == ""
        assert "[1, 2, 3] = 8" in log_texts(app)[-1]
        assert f"#{before + 1} " in message(app)


@pilot_test
async def test_a_bad_command_is_answered_in_place_and_appends_nothing(path):
    async with playing(path, SIZE) as (app, pilot):
        before = app.view.table.store.last_seq
        for line in ("roll 2d6 = 9 9", "check nobody melee", "fly"):
            await enter_line(pilot, line)
            await pilot.pause()
            assert app.query_one(CommandLine).value == line
            app.query_one(CommandLine).value = ""
        await enter_line(pilot, "roll 2d6 = 9 9")
        await pilot.pause()
        assert "faces: 9 is not a face of a d6" in message(app)
        assert app.view.table.store.last_seq == before


@pilot_test
async def test_the_demo_fight_typed_line_by_line_ends_where_margin_demo_ends(tmp_path):
    """The demo fight, each command typed as its JSON line, ends where margin demo ends (one
    system here: test_short_forms reads every system's demo lines without the screen)."""
    import json

    import msgspec

    from margin.tui.table.demo import build_demo

    system = get_system(DEMO_SYSTEM)
    expected = build_demo(tmp_path / "demo.margin", DEMO_SYSTEM)
    path = tmp_path / "typed.margin"
    Table.create(path, DEMO_SYSTEM, title=f"{system.title} demo").close()
    async with playing(str(path), (80, 24)) as (app, pilot):
        line = app.query_one(CommandLine)
        for data in system.demo:
            line.value = json.dumps(data)
            await pilot.press("enter")
            await pilot.pause()
            assert line.value == "", message(app)
        got = msgspec.to_builtins(app.view.table.state)
        want = msgspec.to_builtins(expected.state)
        assert got["characters"] == want["characters"]
        assert got["world"] == want["world"]
        assert system.clock is not None
        assert app.view.clock() == system.clock(expected.state)
    app.view.table.close()
    expected.close()


@pilot_test
async def test_edge_mistaken_attack_undone_injury_vanishes_and_players_see_no_secret(tmp_path):
    from margin.tui.table.demo import build_demo

    path = tmp_path / "edge.margin"
    build_demo(path, "2d10-edge").close()
    async with playing(str(path), (80, 24)) as (app, pilot):
        before = str(app.query_one("#party").render())
        await enter_line(pilot, "attack kael guard vs 5")
        await pilot.pause()
        hit = str(app.query_one("#party").render())
        assert hit != before
        assert "guard" in message(app).lower()
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert "attack on Guard" in str(app.screen.query_one("#undo-list").render())
        await pilot.press("enter")
        await pilot.pause()
        assert str(app.query_one("#party").render()) == before
        await enter_line(pilot, "check moreau athletics vs 27 secret = 7 8")
        await pilot.pause()
        gm_row = app.view.rows(0, app.view.log_len())[-1]
        assert gm_row.secret, message(app)
        assert "27" in gm_row.text, message(app)
        await enter_line(pilot, "roll 1d20 secret for perception = 13")
        await pilot.pause()
    app.view.table.close()
    watcher = appmod.watch_app(str(path), "Kael")
    async with watcher.run_test(size=(80, 24)):
        check, roll = watcher.view.rows(0, watcher.view.log_len())[-2:]
        assert roll.secret
        assert "13" not in roll.text
        assert "perception" in roll.text
        assert check.secret
        assert "secret TN" in check.text
        assert "27" not in check.text
        assert "MoS" not in check.text


@pilot_test
async def test_odds_show_as_a_check_is_typed(path):
    async with playing(path, SIZE) as (app, pilot):
        bar = app.query_one(OddsBar)
        await type_line(pilot, "check kael")
        await type_line(pilot, " melee")
        assert bar.has_class("shown")
        state = app.view.state()
        cmd = convert_command(SYSTEM, {"type": "check", "character": "kael", "skill": "melee"})
        system_odds = get_system(SYSTEM).odds
        assert system_odds is not None
        odds = system_odds(cmd, state)
        assert odds is not None
        shown = str(bar.render())
        assert f"success {odds.success:.1%}" in shown
        assert "█" in shown
        for band, p in odds.bands.items():
            assert f"{band} {p:.1%}" in shown
        app.query_one(CommandLine).value = ""
        await pilot.pause()
        assert not bar.has_class("shown")


@pilot_test
async def test_tab_completes_commands_and_names(path):
    async with playing(path, SIZE) as (app, pilot):
        line = app.query_one(CommandLine)
        for typed, completed in (
            ("ch", "check "),
            ("ka", "check Kael "),
            ("mel", "check Kael Melee "),
        ):
            await type_line(pilot, typed)
            await pilot.press("tab")
            assert line.value == completed


@pilot_test
async def test_up_recalls_earlier_lines(path):
    async with playing(path, SIZE) as (app, pilot):
        await enter_line(pilot, "note one")
        await enter_line(pilot, "note two")
        await pilot.press("up")
        assert app.query_one(CommandLine).value == "note two"
        await pilot.press("up")
        assert app.query_one(CommandLine).value == "note one"
        await pilot.press("down", "down")
        assert app.query_one(CommandLine).value == ""


@pilot_test
async def test_next_turn_key_moves_the_clock(path):
    async with playing(path, SIZE) as (app, pilot):
        await enter_line(pilot, "act kael spell 2")
        await pilot.pause()
        before = str(app.query_one("#clock").render())
        seq = app.view.table.projection.seq
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.view.table.projection.seq > seq
        assert str(app.query_one("#clock").render()) != before


@pilot_test
async def test_help_lists_every_key(path):
    async with playing(path, SIZE) as (app, pilot):
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(app.screen.query_one("#help-text", Static).content)
        shown = console.export_text()
        for binding in Binding.make_bindings(appmod.PlayApp.BINDINGS):
            key = binding.key
            label = {
                "ctrl+n": "Ctrl+N",
                "ctrl+z": "Ctrl+Z",
                "ctrl+y": "Ctrl+Y",
                "f1": "F1",
                "f2": "F2",
                "f4": "F4",
                "f5": "F5",
                "f6": "F6",
                "f7": "F7",
                "f8": "F8",
                "pageup": "PageUp",
                "pagedown": "PageDown",
                "escape": "Escape",
                "ctrl+q": "Ctrl+Q",
            }[key]
            assert label in shown
        for word in ("roll", "gmnote", "reveal"):
            assert word in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


def test_help_is_built_from_the_bindings_tooltips() -> None:

    from margin.tui.screens.modals import help_keys, key_name

    assert [key_name(k) for k in ("ctrl+n", "question_mark", "pageup", "shift+up", "q", "f1")] == [
        "Ctrl+N", "?", "PageUp", "Shift+Up", "q", "F1",
    ]  # fmt: skip
    bindings = [
        Binding("f3", "read", "Read", tooltip="read a record"),
        Binding("x", "secret", "Secret"),  # no tooltip: not listed
        Binding("n", "next", "Next", key_display="n / p", tooltip="next and previous"),
        Binding("enter,f3", "read", "Read", tooltip="read a record in full"),
    ]
    assert help_keys(bindings) == [
        ("n / p", "next and previous"),
        ("Enter or F3", "read a record in full"),
    ]


def test_each_screens_help_lists_each_key_it_explains(path: str) -> None:
    """Every action a screen binds with words for help is listed, with the words of the class
    that bound it last (a screen over the keys every screen shares), once."""
    for app in (play(path), appmod.watch_app(path, "Kael"), appmod.replay_app(path)):
        shown = app.help_keys()
        words: dict[str, str] = {}
        for cls in reversed(type(app).__mro__):
            if cls.__module__.startswith("margin."):
                for binding in cls.__dict__.get("BINDINGS", ()):
                    if binding.tooltip:
                        words[binding.action] = binding.tooltip
        assert set(words.values()) <= {what for _, what in shown}, type(app).__name__
        assert len({what for _, what in shown}) == len(shown), "each line once"
        app.view.table.close()


@pilot_test
async def test_palette_offers_undo_and_the_systems_commands(path):
    app = play(path)
    async with app.run_test(size=SIZE):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Undo", "Redo", "Next turn", "Help"} <= set(titles)
        assert "Type: check" in titles


# -- undo and redo ------------------------------------------------------------


@pilot_test
async def test_undo_previews_then_voids_and_redo_restores(path):
    async with playing(path, SIZE) as (app, pilot):
        table = app.view.table
        await enter_line(pilot, "check kael melee = 9 9")
        await pilot.pause()
        check_seqs = list(
            range(
                table.projection.history.seqs(table.projection.history.order[-1])[0],
                table.projection.seq + 1,
            )
        )
        status_after = str(app.query_one("#party").render())
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert isinstance(app.screen, UndoScreen)
        assert [r.seq for r in app.screen.rows] == check_seqs
        shown = str(app.screen.query_one("#undo-list").render())
        assert "Kael checks Melee" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not set(check_seqs) & table.projection.history.voided
        assert "cancelled" in message(app)

        await pilot.press("ctrl+z")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert set(check_seqs) <= table.projection.history.voided
        rows = {r.seq: r for r in app.view.rows(0, app.view.log_len())}
        assert all(rows[s].undone for s in check_seqs)
        assert rows[table.projection.seq].text.startswith("undo")
        assert str(app.query_one("#party").render()) != status_after

        await pilot.press("ctrl+y")
        await pilot.pause()
        assert not set(check_seqs) & table.projection.history.voided
        assert str(app.query_one("#party").render()) == status_after
        assert app.view.rows(0, app.view.log_len())[-1].text.startswith("redo")


@pilot_test
async def test_undo_voids_what_the_command_caused(path):
    """Revealing a secret roll answers it: undoing the roll voids the reveal too."""
    async with playing(path, SIZE) as (app, pilot):
        table = app.view.table
        history = table.projection.history
        secret = next(r for r in table.store.records() if r.visibility.hidden)
        await enter_line(pilot, f"reveal {secret.seq}")
        await pilot.pause()
        reveal = table.projection.seq
        await enter_line(pilot, "note meanwhile")
        await enter_line(pilot, f"undo {secret.command}")
        await pilot.pause()
        assert isinstance(app.screen, UndoScreen)
        assert [r.seq for r in app.screen.rows] == [secret.seq, reveal]
        await pilot.press("enter")
        await pilot.pause()
        assert {secret.seq, reveal} <= history.voided
        assert secret.seq not in table.state.revealed
        rows = {r.seq: r for r in app.view.rows(0, app.view.log_len())}
        assert rows[secret.seq].undone
        assert rows[reveal].undone
        assert not rows[reveal + 1].undone


@pilot_test
async def test_typed_undo_word_opens_the_preview(path):
    async with playing(path, SIZE) as (app, pilot):
        await enter_line(pilot, "undo")
        await pilot.pause()
        assert isinstance(app.screen, UndoScreen)
        assert "the door creaks" in str(app.screen.query_one("#undo-list").render())


@pilot_test
async def test_nothing_to_redo_is_said_in_place(path):
    async with playing(path, SIZE) as (app, pilot):
        seq = app.view.table.store.last_seq
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert "nothing to redo" in message(app)
        assert app.view.table.store.last_seq == seq


# -- the log ------------------------------------------------------------------


@pilot_test
async def test_gm_log_marks_secret_rolls(path):
    app = play(path)
    async with app.run_test(size=SIZE):
        rows = app.view.rows(0, app.view.log_len())
        secret = [r for r in rows if r.secret]
        assert len(secret) == 1
        assert "17" in secret[0].text
        assert any("the cultist is a spy" in r.text for r in rows)


@pilot_test
async def test_the_log_reads_only_what_is_on_screen(tmp_path, monkeypatch):
    path = tmp_path / "long.margin"
    table = Table.create(path, SYSTEM)
    from margin.events import Draft, Noted

    for block in range(20):
        drafts = [Draft(Noted(text=f"line {block}-{i}")) for i in range(250)]
        table.store.append(drafts, table.store.last_seq, command=f"bulk{block}")
    table.close()
    app = play(str(path))
    read = []
    original = app.view.rows

    def counting(start, stop):
        rows = original(start, stop)
        read.append(len(rows))
        return rows

    monkeypatch.setattr(app.view, "rows", counting)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        log = app.query_one(LogView)
        assert "line 19-249" in str(log.screen_lines()[1][-1])
        assert max(read) <= 3 * log.size.height + 2
        assert log.scroll_offset.y == log.max_scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert log.scroll_offset.y < log.max_scroll_y
        assert max(read) <= 3 * log.size.height + 2


# -- watch --------------------------------------------------------------------


@pilot_test
async def test_watch_shows_no_secrets(path):
    app = appmod.watch_app(path, "Kael")
    async with app.run_test(size=SIZE):
        texts = log_texts(app)
        party = str(app.query_one("#party").render())
        assert "Shade" not in party
        assert "Shade" not in " ".join(texts)
        assert not any("the cultist is a spy" in t for t in texts)
        secret = [r for r in app.view.rows(0, app.view.log_len()) if r.secret]
        assert len(secret) == 1
        assert "17" not in secret[0].text
        assert "ambush" in secret[0].text
        assert "watching as Kael" in str(app.query_one("#header").render())


@pilot_test
async def test_watch_waits_for_its_character_to_be_seated(path, tmp_path):
    app = appmod.watch_app(path, "Nobody")
    hidden = appmod.watch_app(path, "Shade")  # the GM's hidden character: never a view
    async with app.run_test(size=SIZE) as pilot, hidden.run_test(size=SIZE) as other:
        assert isinstance(app.screen, WaitingScreen)
        assert isinstance(hidden.screen, WaitingScreen)
        waiting = str(app.query_one("#waiting", Static).render())
        assert "Waiting for the GM to seat Nobody" in waiting
        gm = Table.open(path)
        try:
            gm.execute(AddCharacter(name="Nobody"))
            gm.execute(Note(text="Nobody sits down"))
            last = gm.projection.seq
        finally:
            gm.close()
        await pilot_until(pilot, lambda: app.query("#log"), "the view opens")
        await pilot_until(
            pilot, lambda: "watching as Nobody" in str(app.header_text()), "the header"
        )
        # the hidden character's waiting screen has folded those records and looked again
        shade = hidden.screen
        assert isinstance(shade, WaitingScreen)
        await pilot_until(
            other,
            lambda: hidden.table.projection.seq == last and not shade.folding,
            "the waiting screen never read the GM's records",
        )
        assert hidden.screen is shade
        assert not hidden.watching
        assert not hidden.query("#log")
    app.table.close()
    hidden.table.close()
    with pytest.raises(StoreError, match="no such table file"):
        appmod.watch_app(str(tmp_path / "missing.margin"), "Kael")


@pilot_test
async def test_revealed_record_shows_to_the_watcher(path):
    gm = Table.open(path)
    secret = next(r.seq for r in gm.store.records() if r.visibility.hidden)
    app = appmod.watch_app(path, "Kael")
    async with app.run_test(size=SIZE) as pilot:
        gm.execute(convert_command(SYSTEM, {"type": "reveal", "seq": secret}))
        await pilot_until(
            pilot,
            lambda: app.view.table.projection.seq == gm.projection.seq,
            "the watcher never folded the reveal",
        )
        await pilot.pause()
        row = next(r for r in app.view.rows(0, app.view.log_len()) if r.seq == secret)
        assert "17" in row.text
        assert not row.secret
    gm.close()


@pilot_test
async def test_watch_follows_another_process_writing_through_margin_do(path):
    app = appmod.watch_app(path, "Kael")
    async with app.run_test(size=SIZE) as pilot:
        start = app.view.table.projection.seq
        lines = "\n".join(
            ['{"type": "note", "text": "from another terminal"}']
            + [f'{{"type": "roll", "dice": "1d6", "faces": [{i % 6 + 1}]}}' for i in range(60)]
        )
        proc = margin_process("do", path, stdin=lines)
        assert proc.returncode == 0, proc.stderr
        await pilot_until(
            pilot,
            lambda: app.view.table.projection.seq >= start + 61,
            "the watcher never folded what margin do wrote",
        )
        await pilot.pause()
        texts = log_texts(app)
        assert "note: from another terminal" in texts
        assert app.view.table.projection.seq == start + 61
        log = app.query_one(LogView)
        assert log.scroll_offset.y == log.max_scroll_y
        assert texts[-1] in str(log.screen_lines()[1][-1])


@pilot_test
async def test_gm_screen_follows_other_writers_too(path):
    async with playing(path, SIZE) as (app, pilot):
        other = Table.open(path)
        other.execute(Note(text="co-GM says hi"))
        other.close()
        await pilot_until(
            pilot, lambda: "note: co-GM says hi" in log_texts(app), "the co-GM's note never shown"
        )
        assert log_texts(app)[-1] == "note: co-GM says hi"


# -- replay -------------------------------------------------------------------


def with_mistake(path):
    table = Table.open(path)
    table.execute(Note(text="a mistake"))
    mistake = table.projection.history.order[-1]
    table.execute(Undo())
    table.execute(Note(text="after the fix"))
    table.close()
    return mistake


@pilot_test
async def test_replay_steps_and_shows_the_table_as_it_was(path):
    with_mistake(path)
    app = appmod.replay_app(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.view
        assert view.at == 0
        assert view.seq == 1
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert view.seq == 4
        assert view.state().seq == 4
        assert len(view.state().characters) == 3
        assert log_texts(app)[-1] == "Cultist joins the table" or len(log_texts(app)) == 4
        await pilot.press("left")
        assert view.seq == 3
        await pilot.press("end")
        assert view.seq == view.table.projection.seq
        await pilot.press("home")
        assert view.seq == 1
        await pilot.press("pagedown")
        assert view.seq == 26


@pilot_test
async def test_replay_as_happened_and_as_corrected(path):
    mistake_cmd = with_mistake(path)
    app = appmod.replay_app(path)
    async with app.run_test(size=SIZE) as pilot:
        view = app.view
        mistake = view.table.projection.history.seqs(mistake_cmd)[0]
        view.goto_seq(mistake)
        app.redraw()
        row = view.rows(0, view.log_len())[-1]
        assert row.text == "note: a mistake"
        assert row.mistake
        assert not row.undone
        view.goto_seq(mistake + 1)
        rows = {r.seq: r for r in view.rows(0, view.log_len())}
        assert rows[mistake].undone
        await pilot.press("c")
        await pilot.pause()
        assert view.corrected
        texts = log_texts(app)
        assert "note: a mistake" not in texts
        assert not any(t.startswith("undo") for t in texts)
        assert "as corrected" in str(app.query_one("#header").render())
        await pilot.press("end")
        assert log_texts(app)[-1] == "note: after the fix"


@pilot_test
async def test_replay_plays_and_changes_speed(path):
    app = appmod.replay_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus")
        assert app.speed == 3
        await pilot.press("space")
        start = app.view.at
        assert start is not None
        assert app.playing
        await pilot_until(pilot, lambda: (app.view.at or 0) > start, "the replay never moved on")
        await pilot.press("space")
        await pilot.pause()
        assert not app.playing
        stopped = app.view.at
        # a paused replay moves on no tick: it stays put while two of its ticks go by
        ticks: list[None] = []
        beat = app.set_interval(1 / SPEEDS[app.speed], lambda: ticks.append(None))
        await pilot_until(pilot, lambda: len(ticks) >= 2, "two ticks never went by")
        beat.stop()
        assert app.view.at == stopped


@pilot_test
async def test_replay_jumps_to_a_count(path):
    app = appmod.replay_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen)
        await enter_line(pilot, "count 4")
        await pilot.pause()
        view = app.view
        at, clock = view.at, view.clock()
        assert at is not None
        assert clock is not None
        assert "count 4" in clock.title
        view.goto(at - 1)
        earlier = view.clock()
        assert earlier is not None
        assert "count 4" not in earlier.title


@pilot_test
async def test_replay_as_a_player_sees_what_they_saw(path):
    app = appmod.replay_app(path, "Kael")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        texts = log_texts(app)
        assert not any("the cultist is a spy" in t for t in texts)
        assert "Shade" not in str(app.query_one("#party").render())


def test_default_table_is_made_on_first_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = appmod.default_table()
    assert path == tmp_path / "data" / "margin" / "default.margin"
    table = LiveTable.open_live(str(path), readonly=True, lens=False)
    assert table.state.system == "2d10-edge"
    assert len(table.state.characters) == sum(
        1 for c in get_system("2d10-edge").demo if c["type"] == "add-character"
    )
    table.close()
    assert appmod.default_table() == path


def test_replay_as_corrected_matches_the_core_fold(path):
    with_mistake(path)
    app = appmod.replay_app(path)
    view = app.view
    view.set_corrected(True)
    projection = view.table.projection
    for position in range(len(view.seqs())):
        view.goto(position)
        assert view.state() == projection.state_at(view.seq, corrected=True)
    view.table.close()


@pilot_test
async def test_replay_jumps_to_a_round_and_turn_of_an_initiative_order(tmp_path):
    from margin.tui.table.demo import build_demo

    path = tmp_path / "edge.margin"
    build_demo(path, "2d10-edge").close()
    app = appmod.replay_app(str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"round 1 turn 2", "enter")
        await pilot.pause()
        clock, at = app.view.clock(), app.view.at
        assert clock is not None
        assert at is not None
        assert clock.title.lower().startswith("round 1")
        assert [r.current for r in clock.rows].index(True) == 1
        app.view.goto(at - 1)
        before = app.view.clock()
        assert before is None or [r.current for r in before.rows].index(True) != 1
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"round 9", "enter")
        await pilot.pause()
        assert "never reaches round 9" in message(app)


@pilot_test
async def test_resizing_keeps_the_newest_record_in_sight(path):
    async with playing(path, (80, 24)) as (app, pilot):
        log = app.query_one(LogView)
        for size in ((120, 40), (60, 16), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert log.scroll_offset.y == log.max_scroll_y, size
            assert app.query_one(CommandLine).region.bottom <= size[1]


@pilot_test
async def test_players_see_no_gaps_where_gm_only_records_are(path):
    app = appmod.watch_app(path, "Kael")
    async with app.run_test(size=SIZE):
        rows = app.view.rows(0, app.view.log_len())
        assert [r.number for r in rows] == list(range(1, len(rows) + 1))
        assert rows[-1].seq > len(rows)
        assert f"record {len(rows)} " in str(app.query_one("#header").render()) + " "


@pilot_test
async def test_palette_runs_undo_from_the_keyboard(path):
    from textual.command import CommandList

    async with playing(path, SIZE) as (app, pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Undo")
        await pilot_until(
            pilot,
            lambda: (found := app.screen.query(CommandList)) and found.first().option_count,
            "the palette never offered Undo",
        )
        await pilot.press("enter")
        await pilot_until(
            pilot, lambda: isinstance(app.screen, UndoScreen), "the palette never ran Undo"
        )


@pilot_test
async def test_the_gm_and_two_watchers_at_once_see_a_new_record(path):
    """Both watchers show the GM's new record (how soon is bench/host.py's to measure)."""
    gm = play(path)
    kael = appmod.watch_app(path, "Kael")
    other = appmod.watch_app(path, "Kael")
    async with (
        gm.run_test(size=SIZE) as pilot,
        kael.run_test(size=SIZE) as kael_pilot,
        other.run_test(size=(80, 24)) as other_pilot,
    ):
        await enter_line(pilot, "note the bridge collapses")
        committed = time.monotonic()
        seen: set[str] = set()
        while len(seen) < 2 and time.monotonic() - committed < 10:
            await asyncio.sleep(0.005)
            for name, app in (("kael", kael), ("other", other)):
                if "note: the bridge collapses" in log_texts(app):
                    seen.add(name)
        await kael_pilot.pause()
        await other_pilot.pause()
        assert seen == {"kael", "other"}
        assert log_texts(gm)[-1] == "note: the bridge collapses"


@pilot_test
async def test_a_bug_in_a_command_is_reported_in_place_and_the_table_goes_on(path):
    from _pytest.monkeypatch import MonkeyPatch

    from margin.tui.screens import commandline

    def boom(*args, **kwargs):
        raise ZeroDivisionError("division by zero")

    async with playing(path, SIZE) as (app, pilot):
        seq = app.view.table.projection.seq
        with MonkeyPatch.context() as mp:
            mp.setattr(tablemod, "decide", boom)
            await enter_line(pilot, "roll 2d6")
            await pilot.pause()
            assert "ZeroDivisionError" in message(app)
            assert "nothing was written" in message(app)
        with MonkeyPatch.context() as mp:
            mp.setattr(commandline, "parse_line", boom)
            await pilot.press("enter")
            await pilot.pause()
            assert "could not read that line" in message(app)
        assert app.view.table.projection.seq == seq
        await pilot.press("enter")  # the same line, now that nothing is broken
        await pilot.pause()
        assert app.view.table.projection.seq == seq + 1


@pilot_test
async def test_a_fight_in_short_forms_typed_on_the_command_line(tmp_path):
    """A GM at the demo table types the system's short forms, one after another (one system
    here: test_short_forms runs every system's short forms without the screen)."""
    from margin.tui.table.demo import build_demo

    path = tmp_path / "demo.margin"
    build_demo(path, SHORT_FORMS_SYSTEM, dice=RandomDice(0)).close()
    app = appmod.play_app(str(path))
    app.view.table.dice = RandomDice(0)
    async with app.run_test(size=(80, 24)) as pilot:
        line = app.query_one(CommandLine)
        for text, _ in get_system(SHORT_FORMS_SYSTEM).short_forms:
            before = app.view.table.projection.seq
            await enter_line(pilot, text)
            await pilot.pause()
            assert app.view.table.projection.seq > before, (text, message(app))
            assert line.value == ""
    app.view.table.close()


@pilot_test
async def test_the_rules_open_from_a_key_and_a_word_for_gm_and_players(path):
    from margin.tui.screens.modals import RulesScreen

    for app in (play(path), appmod.watch_app(path, "Kael")):
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f2")
            await pilot.pause()
            assert isinstance(app.screen, RulesScreen)
            assert app.screen.text.startswith("# d100-under")
            await pilot.press("pagedown")
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, RulesScreen)
    async with playing(path, SIZE) as (app, pilot):
        await enter_line(pilot, "rules")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)


def queued(app, *keys):
    """Keys as a terminal delivers a fast burst: all queued before any is handled."""
    from textual import events

    for key in keys:
        character = None if len(key) > 1 and key != "space" else (" " if key == "space" else key)
        app.post_message(events.Key(key, character))


@pytest.mark.parametrize("opener", ["f1", "f2"])
@pilot_test
async def test_keys_typed_while_a_dialog_opens_or_closes_reach_the_command_line(path, opener):
    from margin.tui.screens.modals import HelpScreen, RulesScreen

    dialog = RulesScreen if opener == "f2" else HelpScreen
    async with playing(path, SIZE) as (app, pilot):
        before = len(log_texts(app))
        # typed while the dialog opens (it closes, and the line is typed beneath), then
        # typed while it closes
        for n, keys in enumerate(([*"roll 1d6", "enter"], ["escape", *"roll 1d8", "enter"]), 1):
            await pilot.press(opener)
            queued(app, *keys)
            await pilot.pause()
            await pilot.pause()
            assert not isinstance(app.screen, dialog)
            assert len(log_texts(app)) == before + n
            assert "".join(keys[-4:-1]) in log_texts(app)[-1]
        # the dialog's own keys still are its own
        await pilot.press(opener)
        await pilot.pause()
        assert isinstance(app.screen, dialog)
        await pilot.press("pagedown", "q")
        await pilot.pause()
        assert not isinstance(app.screen, dialog)
        assert app.query_one(CommandLine).value == ""


def footer_actions(app: Any) -> set[str]:
    """The actions of the keys the screen's footer lists."""
    from textual.widgets._footer import FooterKey

    return {key.action for key in app.screen.query(FooterKey)}


@pilot_test
async def test_the_footer_shows_quit_and_ctrl_c_says_how_to_quit(path):
    for app, quits in ((play(path), "Ctrl+Q quits"), (appmod.watch_app(path, "Kael"), "q or")):
        async with app.run_test(size=(80, 24)) as pilot:
            # the footer lists its keys once the screen's bindings have settled
            keys = functools.partial(footer_actions, app)
            await pilot_until(pilot, keys, "the footer never listed its keys")
            shown = keys()
            assert "quit" in shown, shown
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert message(app).startswith(quits), message(app)
            assert app.return_code is None


@pilot_test
async def test_completion_offers_the_attackers_own_weapons_each_under_its_kind(tmp_path):
    from margin.tui.table.demo import build_demo

    path = tmp_path / "edge.margin"
    build_demo(path, "2d10-edge", dice=RandomDice(0)).close()
    async with playing(str(path), (120, 30)) as (app, pilot):
        line = app.query_one(CommandLine)
        await type_line(pilot, "attack kael ")
        # the attacker is not offered as the target
        assert message(app) == "character: enforcer  guard  moreau  vask"
        await type_line(pilot, "moreau ")
        # Kael's weapons alone, and the option words said as such, not as weapons
        assert message(app).startswith("weapon: heavy-pistol  punch  sword; or: burst  single")
        await type_line(pilot, "sw")
        await pilot.press("tab")
        assert line.value == "attack kael moreau sword "
        await pilot.pause()
        # a weapon is given: no more are offered
        assert message(app).startswith("or: burst  single")
    app.view.table.close()
