"""The command line and the screens read a table through one reader, so they say the same.

``margin log`` and a log panel list the same records, numbered alike, in the same words:
for the GM, and for a player through the lens (hidden characters, secret rolls, reveals,
undos and those who have left included).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support import add_character, margin_do, margin_output, pilot_test, pilot_until

from margin.tui.screens import app as appmod
from margin.tui.screens.widgets import row_text

#: a line of ``margin log``: number, time, author (a player's with the door they came in by),
#: then the line
LOG_LINE = re.compile(
    r"^ *(\d+)  \d\d:\d\d:\d\d  \S+(?: \([^)]*\))? +(.*?)( \[secret\])?( \(undone\))?$"
)

#: how the log says the record of a seat's entropy for the dice
SEAT_ENTROPY = "Kael adds entropy to the dice"


@pytest.fixture
def table(tmp_path: Path) -> str:
    path = str(tmp_path / "t.margin")
    margin_output("new", path, "--system", "2d10-edge")
    code, replies = margin_do(
        path,
        add_character("Kael"),
        add_character("Old Tom"),
        add_character("Night Owl", hidden=True),
        {"type": "roll", "actor": "old-tom", "dice": "1d6", "faces": [4]},
        {"type": "roll", "actor": "night-owl", "dice": "1d6", "faces": [2]},
        {"type": "roll", "dice": "1d20", "faces": [17], "secret": True, "reason": "ambush"},
        {"type": "note", "text": "a mistaken note"},
        {"type": "undo"},
        {"type": "remove-character", "character": "Old Tom"},
        {"type": "roll", "actor": "kael", "dice": "2d6", "faces": [3, 5]},
    )
    assert code == 0, replies
    return path


def log_lines(table: str, *args: str) -> list[tuple[int, str]]:
    """``margin log`` as (number, line) pairs."""
    out = []
    for line in margin_output("log", table, *args).splitlines():
        found = LOG_LINE.match(line)
        assert found is not None, line
        out.append((int(found[1]), found[2]))
    return out


def panel_lines(app: Any) -> list[tuple[int, str]]:
    """The log panel of a screen as (number, line) pairs, as the panel writes them."""
    rows = app.view.rows(0, app.view.log_len())
    out = []
    for row in rows:
        number, _, text = row_text(row).plain.lstrip().partition(" ")
        out.append((int(number), text.lstrip("◆✗ ").rstrip()))
    return out


@pilot_test
async def test_margin_log_is_the_gms_log_panel_after_a_character_leaves(table: str) -> None:
    app = appmod.play_app(table)
    async with app.run_test(size=(100, 30)):
        panel = panel_lines(app)
    app.view.table.close()
    log = log_lines(table)
    assert log == panel
    assert any(line.startswith("Old Tom rolls 1d6") for _, line in log), log


@pilot_test
async def test_margin_log_as_a_player_is_their_log_panel_line_for_line(table: str) -> None:
    app = appmod.watch_app(table, "Kael")
    async with app.run_test(size=(100, 30)) as pilot:
        # sitting down, Kael's seat gives the committed dice its entropy from a worker: the
        # last record the table gets, read once the panel holds it and nothing is in flight
        await pilot_until(
            pilot,
            lambda: any(SEAT_ENTROPY in line for _, line in panel_lines(app)),
            "the seat's entropy never reached its log panel",
        )
        await pilot.pause()
        panel = panel_lines(app)
    app.view.table.close()
    log = log_lines(table, "--as", "Kael")
    assert log == panel
    assert SEAT_ENTROPY in log[-1][1]
    assert [number for number, _ in log] == list(range(1, len(log) + 1))
    text = "\n".join(line for _, line in log)
    assert "Old Tom rolls 1d6" in text, "a character who left is still said by name"
    assert "night" not in text.lower()
    # the GM's secret 1d20 came up 17: no die of it reaches the player (entropy is hex)
    assert re.search(r"\b17\b", text) is None, text
