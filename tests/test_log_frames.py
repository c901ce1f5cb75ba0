"""The log panel never draws a wrong frame: while a slow fold runs beside it, every frame
it draws is the log as it stood at one moment, no row missing, none mixed with another."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from support import pilot_test, play, saved_table, settled

from margin.core.commands import Note, Undo
from margin.events import Record
from margin.tui.screens import app as appmod
from margin.tui.screens.widgets import LogView
from margin.tui.table import table as tablemod
from margin.tui.table.table import Table

#: the notes written while the screen folds: each wraps to two lines at 80 columns
NOTES = 60
MARK = re.compile(r"n(\d{3})([az])")


def note(k: int) -> str:
    return f"n{k:03d}a " + "x" * 70 + f" n{k:03d}z"


def frame_problem(lines: list[str]) -> str | None:
    """What is wrong with one frame of the log panel, or None: the notes it shows must be
    consecutive, each whole where it is not cut by the panel's top, and no line blank."""
    if any(not line.strip() for line in lines):
        return "a blank line in a full log"
    marks = [(int(n), end) for line in lines for n, end in MARK.findall(line)]
    for (n, end), (m, then) in zip(marks, marks[1:], strict=False):
        if end == "a" and (then, m) != ("z", n):
            return f"note {n} begins and note {m} ({then}) follows it"
        if end == "z" and (then, m) != ("a", n + 1):
            return f"note {n} ends and note {m} ({then}) follows it"
    return None


def drawn(log: LogView) -> list[str]:
    """One frame of the log panel, drawn as the screen draws it: line by line."""
    height = log.scrollable_content_region.height
    return [log.render_line(y).text for y in range(height)]


@pilot_test
async def test_no_frame_drops_or_mixes_rows_while_a_slow_fold_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = saved_table(tmp_path / "t.margin", "d100-under", "frames")
    app = play(path)
    live = app.view.table
    fold = live.projection.extend

    def slow(records: Iterable[Record]) -> Any:
        # folds one record at a time, slowly, holding the table's lock as a fold does
        time.sleep(0.01)
        return fold(records)

    monkeypatch.setattr(live.projection, "extend", slow)
    monkeypatch.setattr(tablemod, "FOLD_STRETCH", 1)
    frames: list[list[str]] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        log = app.query_one(LogView)

        def write() -> None:
            writer = Table.open(path)
            try:
                for k in range(NOTES):
                    writer.execute(Note(text=note(k)))
            finally:
                writer.close()

        last = live.projection.seq + NOTES
        other = threading.Thread(target=write)
        other.start()
        deadline = time.monotonic() + 120
        while live.projection.seq < last and time.monotonic() < deadline:
            frames.append(drawn(log))
            await asyncio.sleep(0.002)
        other.join()
        assert live.projection.seq == last
        await settled(pilot)
        frames.append(drawn(log))
    live.close()
    problems = [(n, p) for n, f in enumerate(frames) if (p := frame_problem(f)) is not None]
    assert not problems, (problems[0], frames[problems[0][0]])
    assert len(frames) > 5
    assert f"n{NOTES - 1:03d}z" in frames[-1][-1]


@pilot_test
async def test_a_scrollbar_that_appears_shows_where_the_log_is_scrolled(tmp_path: Path) -> None:
    # A replay opens on its first record, too few lines for a scrollbar; End scrolls to the
    # last record and the scrollbar appears. Whether it appears before or after the scroll
    # depends on when the layout runs, so the screen is opened a few times.
    path = saved_table(tmp_path / "t.margin", "d100-under", "scrollbar")
    for _ in range(8):
        app = appmod.replay_app(path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("end", "c")
            await pilot.pause()
            log = app.query_one(LogView)
            assert log.show_vertical_scrollbar
            assert log.scroll_y == log.max_scroll_y > 0
            assert log.vertical_scrollbar.position == log.scroll_y


def strips(log: LogView) -> list[Any]:
    height = log.scrollable_content_region.height
    return [log.render_line(y) for y in range(height)]


def struck(strip: Any) -> bool:
    return any(seg.style is not None and seg.style.strike for seg in strip)


@pilot_test
async def test_a_line_is_drawn_again_only_when_its_row_changes(tmp_path: Path) -> None:
    # A record arriving scrolls the log by a line: every other line on screen is one
    # already drawn, and is not drawn again; a row that changes (undone, struck through)
    # is drawn anew.
    path = saved_table(tmp_path / "t.margin", "d100-under", "redraws", Note(text="a bell"))
    writer = Table.open(path)
    app = play(path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(pilot)
            log = app.query_one(LogView)
            before = strips(log)
            assert "a bell" in before[-1].text
            writer.execute(Note(text="a drum"))
            app.follow()
            await settled(pilot)
            after = strips(log)
            assert "a drum" in after[-1].text
            # the screen moved up a line: the same drawn lines, one place higher
            assert all(a is b for a, b in zip(after[:-1], before[1:], strict=True))
            writer.execute(Undo())
            app.follow()
            await settled(pilot)
            undone = strips(log)
            drum = next(s for s in undone if "a drum" in s.text)
            assert struck(drum)
            assert not any(struck(s) for s in after)
            bell = next(s for s in undone if "a bell" in s.text)
            assert bell is after[-2]
    finally:
        writer.close()
