"""Snapshots of each table screen at fixed sizes (update with --snapshot-update after a deliberate change)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from margin.core import get_system
from margin.core.commands import AddCharacter, Note, RollDice, Undo, convert_command
from margin.tui.screens import app as appmod
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "d100-under"


pytestmark = pytest.mark.usefixtures("fixed_command_ids")


@pytest.fixture
def path(tmp_path):
    table = Table.create(tmp_path / "table.margin", SYSTEM, title="Vicker Street")
    table.dice = RandomDice(11)
    for data in get_system(SYSTEM).demo:
        table.execute(convert_command(SYSTEM, data))
    table.execute(RollDice(dice="1d20", faces=[17], secret=True, reason="ambush"))
    table.execute(Note(text="the cultist is a spy", gm_only=True))
    table.execute(AddCharacter(name="Shade", sheet={"attributes": {"BR": 2}}, hidden=True))
    table.execute(Note(text="a mistaken note"))
    table.execute(Undo())
    table.execute(Note(text="the door creaks"))
    table.close()
    return str(tmp_path / "table.margin")


async def no_blink(pilot):
    for widget in pilot.app.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


def play(path):
    app = appmod.play_app(path)
    app.view.table.dice = RandomDice(5)
    return app


def test_play_80x24(snap_compare, path):
    assert snap_compare(play(path), terminal_size=(80, 24), run_before=no_blink)


def test_play_odds_bar_100x30(snap_compare, path):
    assert snap_compare(
        play(path), terminal_size=(100, 30), run_before=no_blink, press=list("check kael melee")
    )


def test_play_bad_command_80x24(snap_compare, path):
    assert snap_compare(
        play(path), terminal_size=(80, 24), run_before=no_blink, press=[*"roll 2d6 = 9 9", "enter"]
    )


def test_undo_preview_80x24(snap_compare, path):
    assert snap_compare(play(path), terminal_size=(80, 24), run_before=no_blink, press=["ctrl+z"])


def test_help_80x24(snap_compare, path):
    assert snap_compare(play(path), terminal_size=(80, 24), run_before=no_blink, press=["f1"])


def test_watch_100x30(snap_compare, path):
    assert snap_compare(appmod.watch_app(path, "Kael"), terminal_size=(100, 30))


def test_replay_as_happened_100x30(snap_compare, path):
    # Stand on the mistaken note: it shows, marked as undone later.
    assert snap_compare(
        appmod.replay_app(path), terminal_size=(100, 30), press=["end", "left", "left"]
    )


def test_replay_as_corrected_80x24(snap_compare, path):
    assert snap_compare(appmod.replay_app(path), terminal_size=(80, 24), press=["end", "c"])


def test_play_edge_demo_80x24(snap_compare, tmp_path):
    from margin.tui.table.demo import build_demo

    build_demo(tmp_path / "edge.margin", "2d10-edge").close()
    app = play(str(tmp_path / "edge.margin"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=no_blink)


# -- a crowded table: ten characters and a 300-character note -----------------

NOTE = (
    "The warehouse on Vicker Street smells of lamp oil and wet rope. Behind the crates a "
    "ladder climbs to a loft where someone has chalked three names and a date on the "
    "beam; the last name is Kael's, written twice. Rain drums on the tin roof and the "
    "cultist by the door keeps glancing at the clock, again."
)


@pytest.fixture
def crowded(tmp_path):
    assert len(NOTE) == 300
    table = Table.create(tmp_path / "crowded.margin", SYSTEM, title="Vicker Street")
    table.dice = RandomDice(11)
    demo = get_system(SYSTEM).demo
    for data in demo:
        table.execute(convert_command(SYSTEM, data))
    sheet = next(c.get("sheet", {}) for c in demo if c["type"] == "add-character")
    for name in ("Bram", "Corrie", "Dunstan", "Edda", "Fenwick", "Gilda"):
        table.execute(AddCharacter(name=name, sheet=sheet))
    table.execute(Note(text=NOTE))
    table.close()
    return str(tmp_path / "crowded.margin")


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
def test_play_crowded(snap_compare, crowded, size):
    assert snap_compare(play(crowded), terminal_size=size, run_before=no_blink)


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
def test_watch_crowded_as_the_tenth(snap_compare, crowded, size):
    assert snap_compare(appmod.watch_app(crowded, "Gilda"), terminal_size=size)


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
def test_replay_crowded(snap_compare, crowded, size):
    assert snap_compare(appmod.replay_app(crowded), terminal_size=size, press=["end"])


def test_play_odds_bar_60x20(snap_compare, crowded):
    assert snap_compare(
        play(crowded), terminal_size=(60, 20), run_before=no_blink, press=list("check kael melee")
    )


# -- a narrow screen (a phone): the log takes the width, the clock and one's own
# character fold into a line above it, the panels are a key away


def test_watch_narrow_50x40(snap_compare, path):
    assert snap_compare(appmod.watch_app(path, "Ada"), terminal_size=(50, 40))


def test_watch_narrow_panels_50x40(snap_compare, path):
    assert snap_compare(appmod.watch_app(path, "Ada"), terminal_size=(50, 40), press=["p"])


def test_play_narrow_50x40(snap_compare, path):
    assert snap_compare(play(path), terminal_size=(50, 40), run_before=no_blink)


def test_replay_narrow_40x30(snap_compare, path):
    assert snap_compare(appmod.replay_app(path), terminal_size=(40, 30), press=["end"])


def test_the_panels_key_gives_a_wide_log_the_whole_screen(snap_compare, path):
    assert snap_compare(appmod.watch_app(path, "Ada"), terminal_size=(80, 24), press=["p"])
