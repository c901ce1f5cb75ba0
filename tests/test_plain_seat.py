"""The plain seat (``margin watch --as NAME --plain``): a player's view as appended lines.

It is driven as a player would: a process of its own following a fight the GM
plays, keys on its standard input. Its lines are the player's log, as
``margin log --as`` says it, and nothing the GM hides changes a byte of them.
"""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path
from typing import Any

from hosting import GM_NOTE, HIDDEN_NAME, SECRET_FACE, build_table, shows
from support import MARGIN, margin_output, until, wait_until

from margin.core.commands import convert_command
from margin.tui.table import seats
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table

SYSTEM = "2d10-edge"
#: a record line of the plain seat: its number and text
_ROW = re.compile(r"^(\d+) (.*)$")
#: a line of ``margin log``: number, time, author, text
_LOG = re.compile(r"^\s*(\d+)  \d\d:\d\d:\d\d  \S+\s+(.*)$")


class Plain:
    """A plain seat in a process of its own, and every line it printed."""

    def __init__(self, table: Path, name: str, *more: str) -> None:
        self.process = subprocess.Popen(
            [*MARGIN, "watch", str(table), "--as", name, "--plain", *more],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 20) -> str:
        found = wait_until(
            lambda: [line for line in self.lines if text in line],
            bool,
            lambda _: f"{text!r} never printed:\n" + "\n".join(self.lines[-20:]),
            timeout,
        )
        return found[-1]

    def press(self, keys: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(keys)
        self.process.stdin.flush()

    def quit(self) -> None:
        self.press("q\n")
        assert self.process.wait(timeout=20) == 0
        self.reader.join(timeout=10)


def _play(table: Path, *commands: dict[str, Any]) -> None:
    gm = Table.open(table)
    try:
        for data in commands:
            gm.execute(convert_command(SYSTEM, data))
    finally:
        gm.close()


def _records(lines: list[str]) -> list[str]:
    """The plain seat's record lines, as ``number text`` (its marks left off)."""
    out = []
    for line in lines:
        found = _ROW.match(line)
        if found:
            out.append(line.replace(" (secret)", ""))
    return out


def _log(table: Path, name: str) -> list[str]:
    out = []
    for line in margin_output("log", str(table), "--as", name).splitlines():
        found = _LOG.match(line)
        assert found, line
        out.append(f"{found.group(1)} {found.group(2)}")
    return out


def test_the_plain_seat_follows_a_fight_in_the_players_own_lines(tmp_path: Path) -> None:
    table = build_table(tmp_path / "fight.margin")
    seat = Plain(table, "Kael", "--bell")
    try:
        seat.wait_for("watching as Kael")
        # the demo stops at Kael's turn: the cue says so in words, with the bell
        assert seat.wait_for("your turn, Kael") == "\a* your turn, Kael"
        _play(
            table,
            {
                "type": "check",
                "character": "Kael",
                "skill": "athletics",
                "tn": 18,
                "faces": [5, 6, 2],
            },
            {"type": "note", "text": "the enforcer is bluffing", "gm_only": True},
            {"type": "next-turn"},
        )
        seat.wait_for("Enforcer's turn")
        _play(
            table,
            {"type": "attack", "character": "Enforcer", "target": "Kael", "tn": 15,
             "faces": [6, 6, 3, 3, 3, 3, 3, 3]},
            {"type": "next-turn"},
            {"type": "next-turn"},
        )  # fmt: skip
        seat.wait_for("round 2: Moreau's turn")
        # Moreau acts, and Vask is next: Kael is not cued; the keys ask in words
        seat.press("t\ns\nc\nh\nz\n")
        seat.wait_for("Moreau's turn; Vask next")
        seat.wait_for("Kael: Edge")
        seat.wait_for("Moreau, 17, ")
        seat.wait_for("'z': not a key here")
        _play(table, {"type": "next-turn"})
        seat.wait_for("* on deck, Kael: you act next")
        _play(table, {"type": "next-turn"})
        seat.wait_for("round 2: Kael's turn")
    finally:
        seat.quit()
    printed = "\n".join(seat.lines)
    for secret in (str(SECRET_FACE), HIDDEN_NAME, GM_NOTE, "bluffing"):
        assert not shows(printed, secret), secret
    assert "\x1b" not in printed  # never a cursor move, never a colour
    assert _records(seat.lines) == _log(table, "Kael")


def test_the_plain_seat_waits_for_its_character(tmp_path: Path) -> None:
    table = build_table(tmp_path / "fight.margin")
    seat = Plain(table, "Ilse")
    try:
        seat.wait_for("waiting for the GM to seat Ilse")
        seat.press("t\n")
        assert seat.wait_for("waiting for the GM") == "waiting for the GM to seat Ilse (q quits)"
        _play(table, {"type": "add-character", "name": "Ilse"})
        seat.wait_for("watching as Ilse")
        seat.wait_for("Ilse joins the table")
        # seated, the GM's margin lists the seat, up to date, until it leaves
        until(lambda: seats.seated(str(table)), "the plain seat never told the GM's margin", 20)
        (found,) = seats.seated(str(table))
        assert (found.name, found.door) == ("Ilse", "local")
    finally:
        seat.quit()
    assert seats.seated(str(table)) == []


def _session(path: Path, gm_only: bool) -> Path:
    """One session, with or without its GM-only actions."""
    table = build_demo(path, SYSTEM)
    table.close()
    public: list[dict[str, Any]] = [
        {"type": "check", "character": "Kael", "skill": "athletics", "tn": 18, "faces": [5, 6, 2]},
        {"type": "roll", "dice": "1d20", "faces": [7], "secret": True, "reason": "the ledge"},
        {"type": "next-turn"},
        {"type": "note", "text": "the rope frays"},
        {"type": "next-turn"},
    ]
    hidden: list[dict[str, Any]] = [
        {"type": "add-character", "name": HIDDEN_NAME, "hidden": True},
        {"type": "check", "character": HIDDEN_NAME, "skill": "athletics", "tn": 12,
         "faces": [2, 3]},
        {"type": "note", "text": GM_NOTE, "gm_only": True},
    ]  # fmt: skip
    steps = [public[0], *(hidden[:2] if gm_only else []), *public[1:3]]
    steps += [*(hidden[2:] if gm_only else []), *public[3:]]
    _play(path, *steps)
    return path


def test_gm_only_actions_change_nothing_the_plain_seat_prints(tmp_path: Path) -> None:
    outputs = []
    for gm_only in (False, True):
        folder = tmp_path / ("with" if gm_only else "without")
        folder.mkdir()
        table = _session(folder / "fight.margin", gm_only)
        done = subprocess.run(
            [*MARGIN, "watch", str(table), "--as", "Kael", "--plain"],
            input=b"t\nc\ns\nq\n",
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert b"the rope frays" in outputs[0]
