"""The table screen at a real table: bursts and pastes, long records, many characters, history."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading

import pytest
from support import (
    HELD_NOTE,
    demo_sheet,
    message,
    pilot_test,
    pilot_until,
    play,
    playing,
    saved_table,
    settled,
    turn_held,
    unsettled,
)
from textual import events
from textual.widgets import Input

from margin.core.commands import AddCharacter, Note, convert_command
from margin.events import StoreError
from margin.tui.screens import app as appmod
from margin.tui.screens.base import history_path
from margin.tui.screens.messages import StepAnswered
from margin.tui.screens.modals import HelpScreen, PasteScreen, RecordScreen, UndoScreen
from margin.tui.screens.widgets import CommandLine
from margin.tui.table.sheets import SheetFiles
from margin.tui.table.table import Table

SYSTEM = "d100-under"
LONG_NOTE = " ".join(f"word{i:03d}" for i in range(43))[:300]


def build(path, system=SYSTEM, extra=0):
    """The system's demo table, ``extra`` more characters, and a 300-character note."""
    sheet = demo_sheet(system)
    extras = [AddCharacter(name=f"Extra{i + 1:02d}", sheet=sheet) for i in range(extra)]
    return saved_table(path, system, "a real table", *extras, Note(text=LONG_NOTE))


@pytest.fixture
def path(tmp_path):
    return build(tmp_path / "table.margin")


def notes(app):
    return [
        r.event.text
        for r in app.view.table.store.records()
        if type(r.event).__name__ == "Noted" and r.event.text != LONG_NOTE
    ]


async def paste(app, pilot, text):
    """A bracketed paste, as the terminal hands it over: one event with every line."""
    app.query_one(CommandLine).post_message(events.Paste(text))
    await pilot.pause()


def burst(app, text):
    """Keys as a terminal delivers a fast burst: all queued before any is handled."""
    for ch in text:
        key = {"\r": "enter", " ": "space"}.get(ch, ch)
        app.post_message(events.Key(key, None if ch == "\r" else ch))


async def burst_run(app, pilot, text):
    """A ``burst``, then a pause for its keys and one for the lines they ran."""
    burst(app, text)
    await pilot.pause()
    await pilot.pause()


# -- bursts and pastes --------------------------------------------------------


@pilot_test
async def test_a_burst_of_lines_writes_each_line_once(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await burst_run(app, pilot, "note alpha\rnote beta\rnote gamma\r")
        assert notes(app) == ["alpha", "beta", "gamma"]
        assert app.query_one(CommandLine).value == ""


@pilot_test
async def test_a_refused_line_in_a_burst_does_not_swallow_the_next(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await burst_run(app, pilot, "fly\rnote after\r")
        assert notes(app) == ["after"]
        line = app.query_one(CommandLine)
        assert line.value == ""
        await pilot.press("up", "up")
        assert line.value == "fly"


@pilot_test
async def test_a_refused_line_put_back_keeps_its_reason_in_sight(tmp_path):
    # the line ends in a word that completes to another: the hint must not cover the reason
    path = saved_table(tmp_path / "edge.margin", "2d10-edge", "edge")
    async with playing(path, (100, 30)) as (app, pilot):
        line = app.query_one(CommandLine)
        await burst_run(app, pilot, "check kael athletics vs 18 edge\r")
        await settled(pilot)
        assert line.value == "check kael athletics vs 18 edge"
        assert message(app).startswith("edge: the check already has Advantage"), message(app)
        # once the GM edits the line, hints come back
        await pilot.press("backspace")
        await pilot.pause()
        assert "edge" in message(app), message(app)
        assert "Advantage" not in message(app), message(app)


class Hold:
    """``obj.name`` made to wait, once called, until the test lets it go (as on a slow network)."""

    def __init__(self, monkeypatch, obj, name):
        self.begun, self.go = threading.Event(), threading.Event()
        real = getattr(obj, name)

        def held(*args, **kwargs):
            self.begun.set()
            assert self.go.wait(30), "the test never let it go"
            return real(*args, **kwargs)

        monkeypatch.setattr(obj, name, held)

    async def begin(self):
        """Wait until it has been called (and is held)."""
        assert await asyncio.to_thread(self.begun.wait, 30)


def elsewhere(path, text):
    """A note written to the table at ``path`` as another process writes it."""
    other = Table.open(path)
    try:
        other.execute(Note(text=text))
    finally:
        other.close()


# -- sheet files --------------------------------------------------------------


def seated(app):
    return sorted(c.name for c in app.view.state().characters.values())


@pilot_test
async def test_a_sheet_file_is_read_in_a_worker_while_the_screen_answers_keys(
    path, tmp_path, monkeypatch
):
    sheet = tmp_path / "rat.json"
    sheet.write_text(json.dumps(demo_sheet(SYSTEM)), encoding="utf-8")
    hold = Hold(monkeypatch, SheetFiles, "read")
    app = play(path)
    before = seated(app)
    async with app.run_test(size=(80, 24)) as pilot:
        with unsettled():
            burst(app, f"add Rat from {sheet}\r")
            await hold.begin()
            line = app.query_one(CommandLine)
            await pilot.press(*"note ")
            assert line.value == "note "
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            assert app.busy
        hold.go.set()
        await settled(pilot)
        assert seated(app) == sorted([*before, "Rat"])
    app.view.table.close()


@pilot_test
async def test_a_sheet_file_that_is_a_pipe_a_device_or_hostile_gets_one_line(path, tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    dated = tmp_path / "dated.toml"
    dated.write_text("born = 1979-05-27\n", encoding="utf-8")
    async with playing(path, (100, 24)) as (app, pilot):
        before = seated(app)
        for name, said in (
            (fifo, "not a regular file"),
            ("/dev/zero", "not a regular file"),
            (dated, "born: a date, which a sheet cannot hold"),
        ):
            await burst_run(app, pilot, f"add Rat from {name}\r")
            assert message(app).startswith(f"sheet {name}: ")
            assert said in message(app)
            line = app.query_one(CommandLine)
            assert line.value == f"add Rat from {name}", "a refused line stays to be fixed"
            line.value = ""
        await burst_run(app, pilot, "note still answering\r")
        assert notes(app) == ["still answering"]
        assert seated(app) == before


#: what the GM's screen says while a line is being written
WRITING = "writing to the table..."


@contextlib.asynccontextmanager
async def held_write(path, monkeypatch, lines):
    """The GM's screen with ``lines`` typed in a burst, the first of them held in the store's
    append until the block ends; keys and pauses in the block do not wait for it. The screen
    has landed every line it was going to when the block is left."""
    app = play(path)
    hold = Hold(monkeypatch, app.view.table.store, "append_decided")
    async with app.run_test(size=(80, 24)) as pilot:
        with unsettled():
            burst(app, lines)
            await hold.begin()
            yield app, pilot
        hold.go.set()
        await settled(pilot)


@pilot_test
async def test_the_screen_answers_keys_while_a_slow_write_is_in_flight(path, monkeypatch):
    monkeypatch.setattr(appmod, "BUSY_NOTICE", 0.001)
    async with held_write(path, monkeypatch, "note one\r") as (app, pilot):
        await pilot_until(pilot, lambda: message(app) == WRITING, "the screen never said it writes")
        burst(app, "note two\r")
        await pilot.pause()
        line = app.query_one(CommandLine)
        # the line typed behind the one being written waits its turn; the screen goes on
        await pilot.press(*"check ")
        assert line.value == "check "
        assert message(app).startswith("character: "), "the table is read while written"
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.busy
        assert notes(app) == []
    assert notes(app) == ["one", "two"]
    assert line.value == "check "
    assert not app.busy


@pilot_test
async def test_a_line_typed_while_another_process_writes_waits_its_turn(path, monkeypatch):
    monkeypatch.setattr(appmod, "BUSY_NOTICE", 0.001)
    with turn_held(path) as let_go:
        async with playing(path, (80, 24)) as (app, pilot):
            with unsettled():
                burst(app, "note mine\r")
                await pilot_until(
                    pilot, lambda: message(app) == WRITING, "the screen never said it writes"
                )
            let_go()
            await settled(pilot)
            assert notes(app) == [HELD_NOTE, "mine"]
            assert message(app).endswith("mine")


@pilot_test
async def test_a_paste_behind_a_slow_write_lands_in_order_after_it(path, monkeypatch):
    async with held_write(path, monkeypatch, "note first\r") as (app, pilot):
        await paste(app, pilot, "note second\nnote third")
        await pilot.press("enter")
        burst(app, "note fourth\r")
        await pilot.pause()
    assert notes(app) == ["first", "second", "third", "fourth"]


@pilot_test
async def test_every_step_is_answered_once_in_the_order_entered(path, monkeypatch):
    """A burst of keys, a bracketed paste and an undo, all entered while the first line is
    held in its write: the steps' worker answers each once, in the order entered (the
    messages the screen handled), and the undo previews the last line pasted."""
    answered: list[tuple[str, str | None]] = []

    def hook(message):
        if isinstance(message, StepAnswered):
            answered.append((type(message).__name__, message.step.text))

    app = play(path)
    hold = Hold(monkeypatch, app.view.table.store, "append_decided")
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        with unsettled():
            burst(app, "note one\rfly\rnote two\r")
            await hold.begin()
            await paste(app, pilot, "note three\nnote four")
            await pilot.press("enter")
            await pilot.press("ctrl+z")
            hold.go.set()
        await settled(pilot)
        assert isinstance(app.screen, UndoScreen)
        assert "note: four" in str(app.screen.query_one("#undo-list").render())
        await pilot.press("enter")
        await pilot.pause()
    assert answered == [
        ("Written", "note one"),
        ("Refused", "fly"),
        ("Written", "note two"),
        ("Written", "note three"),
        ("Written", "note four"),
        ("UndoDecided", None),
        ("Written", None),
    ]
    assert notes(app) == ["one", "two", "three", "four"]
    assert type(app.view.table.store.record(app.view.table.store.last_seq).event).__name__ == (
        "Undone"
    )


@pilot_test
async def test_a_players_screen_folds_what_the_gm_wrote_while_it_answers_keys(path, monkeypatch):
    watcher = appmod.watch_app(path, "Kael")
    hold = Hold(monkeypatch, watcher.view.table, "catch_up")
    async with watcher.run_test(size=(80, 24)) as pilot:
        elsewhere(path, "the bridge is out")
        with unsettled():
            await hold.begin()
            await pilot.press("f1")
            assert isinstance(watcher.screen, HelpScreen)
            await pilot.press("escape")
            assert "the bridge is out" not in screen_text(watcher)
        hold.go.set()
        await settled(pilot)
        assert "the bridge is out" in screen_text(watcher)
    watcher.view.table.close()


@pilot_test
async def test_a_players_screen_that_cannot_read_the_table_says_so_and_goes_on(path, monkeypatch):
    watcher = appmod.watch_app(path, "Kael")

    def gone(*args, **kwargs):
        raise StoreError(f"{path}: disk I/O error")

    monkeypatch.setattr(watcher.view.table, "catch_up", gone)
    async with watcher.run_test(size=(80, 24)) as pilot:
        elsewhere(path, "the bridge is out")
        await pilot_until(
            pilot, lambda: "cannot read" in message(watcher), "the watcher never said so"
        )
        assert message(watcher) == f"cannot read the table: {path}: disk I/O error"
        await pilot.press("f1")
        assert isinstance(watcher.screen, HelpScreen)
    watcher.view.table.close()


@pilot_test
async def test_quitting_an_idle_screen_quits_at_once(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await pilot.press("ctrl+q")
        assert app.return_code == 0


@pilot_test
async def test_quitting_while_the_screen_folds_another_processs_record_quits_once_folded(
    path, monkeypatch
):
    app = play(path)
    hold = Hold(monkeypatch, app.view.table, "catch_up")
    async with app.run_test(size=(80, 24)) as pilot:
        elsewhere(path, "from the other process")
        with unsettled():
            await hold.begin()  # the screen is folding that record
            await pilot.press("ctrl+q")
            assert app.return_code is None, "the screen waits for its fold"
            hold.go.set()
            await pilot_until(pilot, lambda: app.return_code is not None, "the screen never quit")
    assert app.return_code == 0


@pytest.mark.parametrize(
    ("quits", "written"),
    [
        # every line entered before the quit lands, then the screen goes
        (1, ["kept", "after"]),
        # a second Ctrl+Q: only the line being written still lands
        (2, ["kept"]),
    ],
)
@pilot_test
async def test_quitting_while_a_write_is_in_flight_keeps_its_record(
    path, monkeypatch, quits, written
):
    said_busy = threading.Event()
    say_busy = appmod.PlayApp._say_busy

    def busy(app):
        say_busy(app)
        said_busy.set()

    monkeypatch.setattr(appmod.PlayApp, "_say_busy", busy)
    monkeypatch.setattr(appmod, "BUSY_NOTICE", 0.05)
    async with held_write(path, monkeypatch, "note kept\rnote after\r") as (app, pilot):
        for _ in range(quits):
            await pilot.press("ctrl+q")
        # the notice that the write is slow, whether it comes before the quit or after it,
        # leaves the quitting message on the screen
        await pilot_until(pilot, said_busy.is_set, "the screen never said the table is busy")
        assert app.return_code is None, "the screen stays until the write lands"
        assert "quitting once the" in message(app)
    assert app.return_code == 0
    assert notes(app) == written


@pytest.mark.parametrize(
    ("text", "key", "ran", "said", "left"),
    [
        # every line runs, in order, after one enter
        (
            "note one\nnote two\r\nnote three\n",
            "enter",
            ["one", "two", "three"],
            ["ran 3 pasted lines"],
            "",
        ),
        ("note one\nnote two", "escape", [], ["nothing run"], ""),
        # the refused line stays on the command line to be mended, and nothing after it runs
        (
            "note one\nroll 2d6 = 9 9\nnote x",
            "enter",
            ["one"],
            ["pasted line 2 of 3 refused", "9 is not a face"],
            "roll 2d6 = 9 9",
        ),
    ],
)
@pilot_test
async def test_a_bracketed_paste_of_lines_waits_for_enter_or_escape(
    path, text, key, ran, said, left
):
    async with playing(path, (80, 24)) as (app, pilot):
        await paste(app, pilot, text)
        assert isinstance(app.screen, PasteScreen)
        assert notes(app) == []
        await pilot.press(key)
        await pilot.pause()
        assert notes(app) == ran
        for words in said:
            assert words in message(app)
        assert app.query_one(CommandLine).value == left


@pilot_test
async def test_a_paste_with_a_line_that_opens_a_screen_is_refused_whole(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await paste(app, pilot, "note one\nundo")
        assert not isinstance(app.screen, PasteScreen)
        assert notes(app) == []
        assert "paste refused, nothing run: line 2" in message(app)


@pilot_test
async def test_a_one_line_paste_goes_onto_the_command_line(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await paste(app, pilot, "note pasted\n")
        assert app.query_one(CommandLine).value == "note pasted"
        assert notes(app) == []


# -- history ------------------------------------------------------------------


@pilot_test
async def test_history_survives_closing_the_screen_and_keeps_cleared_lines(path, data_home):
    async with playing(path, (80, 24)) as (app, pilot):
        burst(app, "note kept\r")
        await pilot.pause()
        app.query_one(CommandLine).value = "roll 2d6 = 9 9"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")
    app.view.table.close()
    files = list((data_home / "margin" / "history").iterdir())
    assert len(files) == 1
    assert files[0].name.startswith("table-")
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
    a = history_path(tmp_path / "a" / "fight.margin")
    b = history_path(tmp_path / "b" / "fight.margin")
    assert a != b
    assert a.parent == b.parent
    assert a.name.startswith("fight-")


# -- long records -------------------------------------------------------------


def screen_text(app):
    """Every line the log panel draws, joined, without the wrapping's line breaks."""
    from margin.tui.screens.widgets import LogView

    lines = app.query_one(LogView).screen_lines()[1]
    return " ".join(" ".join(str(line).split()) for line in lines)


def shown_whole(app, text):
    return " ".join(text.split()) in screen_text(app)


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
@pilot_test
async def test_a_long_note_and_a_100d100_total_are_read_whole_by_the_gm(path, size):
    async with playing(path, size) as (app, pilot):
        await pilot.pause()
        assert shown_whole(app, LONG_NOTE)
        app.query_one(CommandLine).value = "roll 100d100"
        await pilot.press("enter")
        await pilot.pause()
        record = app.view.table.store.record(app.view.table.projection.seq)
        total = f"= {record.event.total}"
        assert total in screen_text(app)
        assert total in message(app)
        assert str(record.event.faces[-1]) in message(app)


@pilot_test
async def test_a_long_note_is_read_whole_by_a_player_and_in_replay(path):
    watcher = appmod.watch_app(path, "Kael")
    async with watcher.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert shown_whole(watcher, LONG_NOTE)
    watcher.view.table.close()
    replay = appmod.replay_app(path)
    async with replay.run_test(size=(60, 20)) as pilot:
        await pilot.press("end")
        await pilot.pause()
        assert shown_whole(replay, LONG_NOTE)
    replay.view.table.close()


@pilot_test
async def test_every_record_shows_whole_at_some_scroll_position(tmp_path):
    """Long records early in the log, among short ones: scrolling up brings each one whole."""
    table = Table.create(tmp_path / "long.margin", SYSTEM)
    texts = [f"{i:02d} " + ("long " * 40 if i % 3 == 0 else "short") for i in range(30)]
    for text in texts:
        table.execute(Note(text=text.strip()))
    table.close()
    async with playing(str(tmp_path / "long.margin"), (60, 20)) as (app, pilot):
        from margin.tui.screens.widgets import LogView

        log = app.query_one(LogView)
        log.focus()
        seen: set[str] = set()
        for _ in range(40):
            await pilot.pause()
            seen.update(t for t in texts if shown_whole(app, "note: " + t.strip()))
            await pilot.press("up")
        assert seen == set(texts)
        await pilot.press("end")
        await pilot.pause()
        assert shown_whole(app, "note: " + texts[-1].strip())


# -- panels -------------------------------------------------------------------


@pytest.fixture
def crowded(tmp_path):
    """Ten characters (the demo's four and six more) and a long note."""
    return build(tmp_path / "crowded.margin", extra=6)


@pilot_test
async def test_a_player_seated_tenth_sees_themselves_at_80x24(crowded):
    app = appmod.watch_app(crowded, "Extra06")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        party = app.query_one("#party-scroll")
        assert party.region.height > 0
        first_lines = str(app.query_one("#party").render()).splitlines()[: party.region.height]
        assert first_lines[0].startswith("Extra06 (you)")
    app.view.table.close()


@pilot_test
async def test_the_party_panel_scrolls_to_the_last_character(crowded):
    async with playing(crowded, (80, 24)) as (app, pilot):
        await pilot.pause()
        party = app.query_one("#party-scroll")
        assert party.max_scroll_y > 0
        await pilot.press("shift+down", "shift+down", "shift+down")
        await pilot.pause()
        assert party.scroll_offset.y > 0
    app.view.table.close()


@pilot_test
async def test_the_side_panel_grows_with_a_wide_terminal(crowded):
    async with playing(crowded, (200, 40)) as (app, pilot):
        await pilot.pause()
        assert app.query_one("#side").size.width > 60
    app.view.table.close()


# -- completion ---------------------------------------------------------------


@pytest.fixture
def edge(tmp_path):
    from margin.tui.table.demo import build_demo

    table = build_demo(tmp_path / "edge.margin", "2d10-edge")
    yield table
    table.close()


@pytest.mark.parametrize(
    ("typed", "completed"),
    [
        ("check kael athletics vs d", "check kael athletics vs difficult "),
        ("attack moreau guard b", "attack moreau guard burst "),
        ("attack moreau guard da", "attack moreau guard dagger "),
        ("edge kael da", "edge kael damage "),
        ("check kael at", "check kael athletics "),
        ("set edge_r", "set edge_recovery "),
        ("ro", "roll "),
    ],
)
def test_completion_follows_the_grammar(edge, typed, completed):
    from margin.tui.screens import commandline

    assert commandline.complete(typed, edge.state) == completed


def test_a_word_not_begun_is_never_filled_in(edge):
    from margin.tui.screens import commandline

    assert commandline.complete("attack moreau guard burst ", edge.state) is None
    assert commandline.complete("check ", edge.state) is None


def test_candidates_are_of_the_kind_the_place_takes(edge):
    from margin.tui.screens import commandline

    state = edge.state
    assert commandline.candidates("check ", state) == sorted(state.characters)
    assert "dagger" not in commandline.candidates("check kael athletics vs ", state)
    assert commandline.candidates("edge kael ", state) == [
        "damage",
        "initiative",
        "reaction",
        "lessen",
        "burn",
    ]
    assert commandline.kinds("check kael ", state) == ["skill"]


@pilot_test
async def test_the_message_line_names_what_the_next_word_may_be(path):
    async with playing(path, (80, 24)) as (app, pilot):
        app.query_one(CommandLine).value = "check "
        await pilot.pause()
        assert message(app).startswith("character: ")
        assert "Melee" not in message(app)


# -- the odds bar -------------------------------------------------------------


def test_six_bands_are_six_glyphs_and_six_colours():
    from margin.tui.screens.widgets import BAND_STYLES

    six = BAND_STYLES[:6]
    assert len({glyph for glyph, _ in six}) == 6
    assert len({style for _, style in six}) == 6


def test_the_odds_bar_fits_60_columns_with_its_whole_legend():
    from margin.core.systems.base import Odds
    from margin.tui.screens.widgets import BAND_STYLES, odds_text

    bands = {
        "critical success": 0.05,
        "complete success": 0.2,
        "marginal success": 0.25,
        "marginal failure": 0.25,
        "complete failure": 0.2,
        "critical failure": 0.05,
    }
    text = odds_text(Odds(success=0.5, bands=bands, label="Kael: athletics +5 vs TN 30"), 58)
    lines = text.plain.splitlines()
    assert all(len(line) <= 58 for line in lines)
    legend = " ".join(lines[2:])
    for (name, p), (glyph, _) in zip(bands.items(), BAND_STYLES, strict=False):
        assert f"{glyph} {name} {p:.1%}" in legend
    bar = lines[1]
    assert len(bar) == 58
    assert [bar.count(glyph) for glyph, _ in BAND_STYLES[:6]] == [3, 12, 14, 14, 12, 3]


@pilot_test
async def test_typed_faces_show_the_result_they_give(path):
    from margin.tui.screens.widgets import OddsBar

    async with playing(path, (60, 20)) as (app, pilot):
        app.query_one(CommandLine).value = "check kael melee"
        await pilot.pause()
        bar = app.query_one(OddsBar)
        assert "these faces" not in str(bar.render())
        app.query_one(CommandLine).value = "check kael melee = 9 9"
        await pilot.pause()
        shown = str(bar.render())
        assert "these faces: Kael checks Melee: rolls 99 (typed)" in " ".join(shown.split())
        assert "failure" in shown
        assert app.view.table.projection.seq == app.view.table.store.last_seq


# -- words --------------------------------------------------------------------


@pilot_test
async def test_refusals_use_the_words_the_gm_types(tmp_path):
    path = tmp_path / "edge.margin"
    Table.create(path, "2d10-edge").close()
    async with playing(str(path), (80, 24)) as (app, pilot):
        app.query_one(CommandLine).value = "next"
        await pilot.press("enter")
        await pilot.pause()
        assert message(app) == "next: no encounter is running (start first)"
        app.query_one(CommandLine).value = "undo 1"
        await pilot.press("enter")
        await pilot.pause()
        assert "record #1 created the table; it cannot be undone" in message(app)
        assert "redo" not in message(app)
        await pilot.press("f2")
        await pilot.pause()
        rules = app.screen.text
        assert "`set-option`" not in rules
        assert "the `set` command" in rules
    app.view.table.close()


def test_json_inside_a_message_keeps_its_command_types(edge):
    from margin.tui.screens import commandline

    said = commandline.typed_words('lessen-injury is off: {"type": "set-option"}', edge.state)
    assert said == 'lessen is off: {"type": "set-option"}'


@pilot_test
async def test_undo_lines_say_what_they_undid_and_records_read_as_references(path):
    async with playing(path, (80, 24)) as (app, pilot):
        app.query_one(CommandLine).value = "check kael melee = 9 9"
        await pilot.press("enter")
        await pilot.pause()
        check = app.view.table.projection.seq
        await pilot.press("ctrl+z")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        undo = app.view.rows(0, app.view.log_len())[-1].text
        assert undo.startswith(f"undo of #{check} Kael checks Melee: rolls 99")
        assert undo.endswith("(voids 1 record)")
        assert "cmd" not in undo
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.view.rows(0, app.view.log_len())[-1].text.startswith(f"redo of #{check} ")
    app.view.table.close()
    watcher = appmod.watch_app(path, "Kael")
    async with watcher.run_test(size=(80, 24)):
        texts = [r.text for r in watcher.view.rows(0, watcher.view.log_len())]
        undo = next(t for t in texts if t.startswith("undo"))
        assert undo.startswith("undo of #")
        assert "(voids 1 record)" in undo
    watcher.view.table.close()


@pilot_test
async def test_log_lines_say_characters_by_name(tmp_path):
    path = tmp_path / "names.margin"
    table = Table.create(path, SYSTEM)
    table.execute(AddCharacter(name="Old Tom", sheet={"attributes": {"BR": 40}}))
    table.execute(convert_command(SYSTEM, {"type": "update-character", "character": "old-tom",
                                           "hidden": True}))  # fmt: skip
    table.close()
    app = play(str(path))
    async with app.run_test(size=(80, 24)):
        texts = [r.text for r in app.view.rows(0, app.view.log_len())]
        assert texts[-1] == "Old Tom is hidden from the players"
        assert not any("old-tom" in t for t in texts)
    app.view.table.close()


@pilot_test
async def test_a_system_without_a_clock_of_its_own_gets_the_turn_orders_next_turn_key(tmp_path):
    path = tmp_path / "effect.margin"
    Table.create(path, "2d6-effect").close()
    async with playing(str(path), (80, 24)) as (app, pilot):
        assert app.check_action("next_turn", ()) is True
        assert "Next turn" in [c.title for c in app.get_system_commands(app.screen)]
        await burst_run(app, pilot, "add Vex\radd Guard x2\rstart vex guard\r")
        assert app.view.clock().title == "Not begun: next begins it"
        await pilot.press("ctrl+n")
        await pilot.pause()
        clock = app.view.clock()
        assert clock.title == "Round 1"
        assert [r.name for r in clock.rows if r.current] == [clock.rows[0].name]
    app.view.table.close()


@pilot_test
async def test_help_lists_each_system_command_once_in_order(edge):
    app = play(str(edge.store.name))
    async with app.run_test(size=(80, 24)):
        lines = app.help_commands()
        own = [s for s in lines if isinstance(s, str) and s.startswith("2d10-edge commands: ")]
        assert len(own) == 1
        words = own[0].split(": ", 1)[1].split(", ")
        assert words == sorted(words)
        assert words.count("next") == 1
    app.view.table.close()


def test_broken_json_in_add_is_named_as_json(edge):
    from margin.core import RuleError
    from margin.tui.screens import commandline

    with pytest.raises(RuleError, match=r"add: skills=\{\"melee\": 3 is not valid JSON"):
        commandline.parse_line('add Bob skills={"melee": 3', edge.state)


# -- replay -------------------------------------------------------------------


@pilot_test
async def test_replay_jumps_say_where_they_went_and_refuse_a_turn_with_no_round(path):
    from margin.tui.screens.modals import JumpScreen

    app = appmod.replay_app(path)
    async with app.run_test(size=(80, 24)) as pilot:

        async def jump(text):
            await pilot.press("g")
            await pilot.pause()
            assert isinstance(app.screen, JumpScreen)
            app.screen.query_one("#jump-input", Input).value = text
            await pilot.press("enter")
            await pilot.pause()

        await jump("turn 2")
        assert "no round is running here" in message(app)
        assert app.view.at == 0
        await jump("sideways")
        assert "not understood" in message(app)
        await jump("5")
        assert message(app) == "jumped to 5: record 5"
    app.view.table.close()


@pilot_test
async def test_an_empty_table_in_replay_does_not_ask_to_add(tmp_path):
    path = tmp_path / "empty.margin"
    Table.create(path, SYSTEM).close()
    app = appmod.replay_app(str(path))
    async with app.run_test(size=(80, 24)):
        party = str(app.query_one("#party").render())
        assert party == "nobody at the table yet"
    app.view.table.close()
    gm = play(str(path))
    async with gm.run_test(size=(80, 24)):
        assert "add NAME" in str(gm.query_one("#party").render())
    gm.view.table.close()


@pilot_test
async def test_a_record_taller_than_the_log_is_read_whole_with_f3_or_enter(path):
    huge = " ".join(f"line{i:04d}" for i in range(300))
    gm = Table.open(path)
    gm.execute(Note(text=huge))
    gm.execute(Note(text="after it"))
    gm.close()
    async with playing(path, (60, 20)) as (app, pilot):
        assert not shown_whole(app, huge)
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)
        shown = " ".join(str(app.screen.query_one("#record-text").render()).split())
        assert "note: after it" in shown
        await pilot.press("up")
        await pilot.pause()
        shown = " ".join(str(app.screen.query_one("#record-text").render()).split())
        assert f"note: {huge}" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RecordScreen)
    app.view.table.close()
    watcher = appmod.watch_app(path, "Kael")
    async with watcher.run_test(size=(60, 20)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("up")
        await pilot.pause()
        shown = " ".join(str(watcher.screen.query_one("#record-text").render()).split())
        assert f"note: {huge}" in shown
    watcher.view.table.close()


@pilot_test
async def test_a_command_as_json_pasted_on_several_lines_is_one_line(path):
    async with playing(path, (80, 24)) as (app, pilot):
        await paste(app, pilot, '{\n  "type": "note",\n  "text": "laid out"\n}\n')
        line = app.query_one(CommandLine)
        assert line.value == '{ "type": "note", "text": "laid out" }'
        await pilot.press("enter")
        await pilot.pause()
        assert notes(app) == ["laid out"]


def clock_lines(app):
    """The clock panel as drawn, one string per line."""
    return str(app.query_one("#clock").render()).splitlines()


@pytest.mark.parametrize("width", [80, 100])
@pilot_test
async def test_the_clocks_title_is_said_in_words_whole_and_marks_whom_players_do_not_see(
    tmp_path, width
):
    path = tmp_path / "edge.margin"
    Table.create(path, "2d10-edge").close()
    async with playing(str(path), (width, 30)) as (app, pilot):
        await burst_run(
            app,
            pilot,
            'add Kael\radd "Sniper in the tower" hidden\rstart Ambush on the old bridge road\r'
            'join kael\rjoin "Sniper in the tower"\r',
        )
        lines = clock_lines(app)
        # the title wraps at its words rather than being cut, and says what to type
        title = lines[: next(i for i, line in enumerate(lines) if "Kael" in line)]
        said = " ".join(" ".join(title).split())
        assert said == "Not begun: next begins it (Ambush on the old bridge road)"
        [sniper] = [line for line in lines if "Sniper" in line]
        assert "(hidden)" in sniper
    app.view.table.close()
    watcher = appmod.watch_app(str(path), "Kael")
    async with watcher.run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        assert not any("Sniper" in line or "hidden" in line for line in clock_lines(watcher))
    watcher.view.table.close()


@pilot_test
async def test_a_log_that_cannot_be_read_is_said_on_the_message_line_not_a_crash(path, monkeypatch):
    async with playing(path, (80, 24)) as (app, pilot):
        reads = app.view.table.reads

        def lost(*args, **kwargs):
            raise StoreError(f"{path}: the connection to the database was lost")

        monkeypatch.setattr(reads, "records", lost)
        monkeypatch.setattr(reads, "record", lost)
        await pilot.resize_terminal(90, 26)  # the log reads its rows again
        await pilot_until(pilot, lambda: "cannot read" in message(app), "nothing was said")
        assert message(app) == (
            f"cannot read the table: {path}: the connection to the database was lost"
        )
        assert app.return_code is None
        # what else reads the log says so too: a write's answer, a search, a record in full
        await paste(app, pilot, "note written while the log is unread")
        await pilot.press("enter")
        await settled(pilot)
        assert message(app).startswith("written: #")
        assert "(cannot read it back now: " in message(app)
        await paste(app, pilot, "/Kael")
        await pilot.press("enter")
        await settled(pilot)
        assert message(app).startswith("cannot read the table: ")
        await pilot.press("f3")
        assert isinstance(app.screen, RecordScreen)
        assert "cannot read the table: " in str(app.screen.query_one("#record-text").render())
        await pilot.press("escape")
        monkeypatch.undo()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        last = app.view.rows(app.view.log_len() - 1, app.view.log_len())[0]
        assert last.text.split()[0] in screen_text(app)
        await pilot.press("ctrl+q")
    assert app.return_code == 0
