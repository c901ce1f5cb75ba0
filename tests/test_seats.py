"""Seats at the table: entropy for the dice, presence on the GM's screen, and the digest
a returning player reads.

Given a table whose session of dice players have seen committed, when a player's view
opens, then its entropy is in the log before the next die margin draws, and once the
session is opened every die verifies; a session committed while the player sits gets
their entropy too. The GM's screen lists who sits now, by which door, and how far each
has read; a player who comes back first reads what happened while they were away,
through their lens only.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from support import pilot_test, run_margin, until
from textual.widgets import Static

from margin.core.commands import convert_command
from margin.core.dicecheck import check_dice
from margin.events import Record
from margin.tui.screens import app as appmod
from margin.tui.screens.seats import DigestScreen, SeatsLine
from margin.tui.screens.watch import WatchApp
from margin.tui.table import seats
from margin.tui.table.reader import LiveTable, View
from margin.tui.table.table import Table

SIZE = (100, 30)


def _gm(path: str, *commands: dict[str, object]) -> list[Record]:
    """The GM's margin gives ``commands``; every record they wrote."""
    table = Table.open(path)
    try:
        out: list[Record] = []
        for command in commands:
            out += table.execute(convert_command(table.state.system, command))
        return out
    finally:
        table.close()


def _records(path: str) -> list[Record]:
    table = Table.open(path, readonly=True)
    try:
        return list(table.store.records())
    finally:
        table.close()


def _tag(record: Record) -> str:
    return str(record.event.__struct_config__.tag)


@pytest.fixture
def path(tmp_path: Path) -> str:
    target = str(tmp_path / "t.margin")
    Table.create(target, "2d10-edge").close()
    _gm(target, {"type": "add-character", "name": "Kael"}, {"type": "roll", "dice": "1d6"})
    return target


async def _settle(app: WatchApp, pilot: Any) -> None:
    """Let the view follow what was written and finish what it writes in turn."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


@pilot_test
async def test_a_player_sitting_down_gives_entropy_before_the_next_die(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await _settle(player, pilot)
        given = [r for r in _records(path) if _tag(r) == "dice.entropy"]
        assert [(r.event.seat, r.author.split(" (")[0]) for r in given] == [("kael", "kael")]
        (rolled,) = _gm(path, {"type": "roll", "dice": "1d20"})
        assert rolled.drawn is not None
        assert rolled.seq > given[0].seq
        # a new session, committed as the old one is opened: the seated player gives again
        _gm(path, {"type": "end-session"})
        await _settle(player, pilot)
        again = [r for r in _records(path) if _tag(r) == "dice.entropy"]
        assert len(again) == 2
        assert again[1].seq > next(r.seq for r in _records(path) if _tag(r) == "dice.opened")
    report = check_dice(_records(path))
    assert report.problems == []
    assert report.tallies["gm"].checked == 2
    done = run_margin("verify", "--dice", path)
    assert done.code == 0, done.err


@pilot_test
async def test_a_player_sitting_down_again_gives_no_second_entropy_to_one_session(
    path: str,
) -> None:
    """Each connection of a hosted seat is a new screen: reconnecting, or a seat's key
    holder connecting over and over, writes no record; a new session takes theirs again."""

    def given() -> list[str]:
        return [r.event.seat for r in _records(path) if _tag(r) == "dice.entropy"]

    for _ in range(3):
        player = appmod.watch_app(path, "Kael")
        async with player.run_test(size=SIZE) as pilot:
            await _settle(player, pilot)
        assert given() == ["kael"]
    _gm(path, {"type": "end-session"})
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await _settle(player, pilot)
    assert given() == ["kael", "kael"]
    assert run_margin("verify", "--dice", path).code == 0


@pilot_test
async def test_no_entropy_before_players_see_a_session_committed(tmp_path: Path) -> None:
    target = str(tmp_path / "t.margin")
    Table.create(target, "2d10-edge").close()
    _gm(
        target,
        {"type": "add-character", "name": "Kael"},
        {"type": "add-character", "name": "Spy", "hidden": True},
        # the session is committed by a roll players do not see: they saw no commitment
        {"type": "roll", "dice": "1d6", "actor": "spy"},
    )
    before = len(_records(target))
    player = appmod.watch_app(target, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await _settle(player, pilot)
        assert len(_records(target)) == before
        _gm(target, {"type": "roll", "dice": "1d8"})
        await _settle(player, pilot)
        assert _tag(_records(target)[-1]) == "dice.entropy"


# -- presence ------------------------------------------------------------------------


def _line(app: appmod.PlayApp) -> str:
    line = app.query_one(SeatsLine)
    line.look()
    return line.shown


@pilot_test
async def test_the_gms_screen_lists_who_is_seated_and_how_far_they_read(path: str) -> None:
    gm = appmod.play_app(path)
    async with gm.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert _line(gm) == ""
        assert not gm.query_one(SeatsLine).display
        head = gm.view.table.projection.seq
        kael = seats.SeatFile(path, "Kael", "ssh")
        kael.sit(head)
        vex = seats.SeatFile(path, "Vex", "web")
        vex.sit(head - 1)
        assert _line(gm) == f"seated: Kael (ssh) up to date · Vex (web) read to #{head - 1}"
        assert "Kael (ssh) up to date" in str(gm.query_one(SeatsLine).render())
        assert gm.query_one(SeatsLine).display
        vex.leave()
        assert _line(gm) == "seated: Kael (ssh) up to date"
        kael.leave()
        assert _line(gm) == ""


def test_a_seat_whose_process_is_gone_or_silent_drops_off(path: str) -> None:
    seats.SeatFile(path, "Kael", "local").sit(3)
    (found,) = seats.seated(path)
    assert (found.name, found.door, found.read) == ("Kael", "local", 3)
    # silent past GONE: a machine that went away
    assert seats.seated(path, now=found.at + seats.GONE + 1) == []
    assert list(seats.seats_folder(path).iterdir()) == []
    # a process that ended without a word
    gone = seats.Presence("Vex", "local", 2, _ended_pid(), found.machine, found.at)
    (seats.seats_folder(path) / "1-x.json").write_bytes(seats._encode(gone))
    assert seats.seated(path) == []


def _ended_pid() -> int:
    import subprocess

    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


# -- the digest of a returning player ------------------------------------------------


def _say(table: str, *texts: str, gm_only: bool = False) -> None:
    _gm(table, *({"type": "note", "text": t, "gm_only": gm_only} for t in texts))


@pilot_test
async def test_a_returning_player_reads_what_happened_before_the_live_view(path: str) -> None:
    player = appmod.watch_app(path, "Kael")
    async with player.run_test(size=SIZE) as pilot:
        await _settle(player, pilot)
        assert not isinstance(player.screen, DigestScreen)  # the first time: straight in
        assert [(p.name, p.door) for p in seats.seated(path)] == [("Kael", "local")]
        left_at = player.view.log_len()
    assert seats.seated(path) == []  # the seat left with its screen
    mark = seats.last_read(path, "kael")
    assert mark is not None
    assert mark.read == left_at
    _say(path, "the bridge falls", "the gulls scatter")
    _say(path, "the ambush is set", gm_only=True)
    # back at once (a dropped connection): straight to the live view (the seat gave the
    # session its entropy already: no record)
    again = appmod.watch_app(path, "Kael")
    async with again.run_test(size=SIZE) as pilot:
        await _settle(again, pilot)
        assert not isinstance(again.screen, DigestScreen)
    # back after a while: the digest first
    seats.keep_read(path, "kael", left_at, at=mark.at - seats.AWAY)
    back = appmod.watch_app(path, "Kael")
    async with back.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(back.screen, DigestScreen)
        shown = str(back.screen.query_one("#digest-body", Static).render())
        assert "the bridge falls" in shown
        assert "the gulls scatter" in shown
        assert "ambush" not in shown
        head = str(back.screen.query_one("#digest-head", Static).render())
        assert (
            head
            == f"While you were away: 2 records since you left (#{left_at + 1} to #{left_at + 2}):"
        )
        await pilot.press("enter")
        assert not isinstance(back.screen, DigestScreen)
        assert "watching as Kael" in str(back.query_one("#header", Static).render())
        # the live view reads on from the digest's last record: nothing more was written
        now = back.view.log_len()
        assert now == left_at + 2
    assert seats.last_read(path, "kael") == seats.Mark(now, seats.last_read(path, "kael").at)


def _digest(path: str, since: int) -> list[str]:
    table = LiveTable.open_live(path, readonly=True, lens=True, player="Kael")
    try:
        return seats.digest(View(table, "kael"), since)
    finally:
        table.close()


def test_the_digest_is_the_same_whatever_the_gm_did_out_of_sight(tmp_path: Path) -> None:
    """Given one session with GM-only actions among the public ones and the same session
    without them, the digest a returning player reads is the same, byte for byte."""
    tables = []
    for n, hidden in enumerate((False, True)):
        target = str(tmp_path / f"t{n}.margin")
        Table.create(target, "2d10-edge").close()
        _gm(target, {"type": "add-character", "name": "Kael"})
        _say(target, "before")
        if hidden:
            _gm(
                target,
                {"type": "add-character", "name": "Spy", "hidden": True},
                {"type": "roll", "dice": "1d6", "actor": "spy"},
            )
            _say(target, "reinforcements in two rounds", gm_only=True)
        _gm(target, {"type": "roll", "dice": "2d6", "faces": [3, 4], "actor": "kael"})
        _say(target, "after")
        if hidden:
            _gm(
                target,
                {"type": "add-condition", "character": "kael", "name": "marked", "gm_only": True},
            )
        _gm(target, {"type": "roll", "dice": "1d20", "faces": [17], "secret": True})
        tables.append(target)
    plain, with_hidden = (_digest(t, 2) for t in tables)
    assert plain == with_hidden
    assert plain[0] == "4 records since you left (#3 to #6):"
    assert len(plain) == 5
    assert "17" not in "\n".join(plain)


# -- real processes -----------------------------------------------------------------


def test_the_gm_sees_a_local_watch_seated_beside_play(path: str, tmp_path: Path) -> None:
    """``margin play`` and ``margin watch --as Kael`` in two terminals of one machine: the
    GM's screen lists Kael's seat, up to date, and drops it once Kael quits."""
    if shutil.which("tmux") is None:
        pytest.skip("needs tmux")
    from hosting import Terminals
    from support import MARGIN

    terms = Terminals(tmp_path)
    try:
        gm = terms.open("gm", [*MARGIN, "play", path], (120, 40))
        gm.wait_for("record ", timeout=60)
        assert "seated:" not in gm.screen()
        kael = terms.open("kael", [*MARGIN, "watch", path, "--as", "Kael"], (100, 30))
        kael.wait_for("watching as Kael", timeout=60)
        gm.wait_for("seated: Kael (local) up to date", timeout=60)
        gm.type("note the rain starts")
        gm.key("Enter")
        kael.wait_for("the rain starts", timeout=30)
        gm.wait_for("seated: Kael (local) up to date", timeout=30)
        kael.type("q")
        until(
            lambda: "seated: Kael" not in gm.screen(),
            "Kael's seat never dropped off the GM's screen",
            60,
            step=0.05,
        )
    finally:
        terms.close_all()
        terms.close()
    assert os.path.exists(path)
