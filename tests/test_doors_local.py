"""The local door: ``margin play`` and two players' ``margin watch`` in terminals of their own
(panes of a private tmux server), sharing one table file, a short fight in every system.

The players give their own commands from their watch screens; the GM rules on them from
the table screen (``tests/fights.py`` says what is played and checked). Each player's
records name the local account they came in by.
"""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from fights import FIGHTS, play, refuses_everything
from hosting import Terminal, Terminals
from support import MARGIN

from margin.tui.table.demo import build_demo

pytestmark = pytest.mark.slow

#: tmux's names for the keys the fights press
KEYS = {"F5": "F5", "F6": "F6", "F7": "F7", "Enter": "Enter", "Home": "Home", "ctrl+k": "C-k"}


class Pane:
    """A tmux pane as a fight's screen."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal

    def type(self, text: str) -> None:
        self.terminal.type(text)

    def key(self, name: str) -> None:
        self.terminal.key(KEYS[name])

    def shows(self) -> str:
        return self.terminal.screen()

    def received(self) -> str:
        return self.terminal.received()


@pytest.fixture
def terminals(tmp_path: Path):
    terms = Terminals(tmp_path)
    yield terms
    terms.close()


def _seats(terminals: Terminals, table: Path, *players: str) -> list[Pane]:
    """The GM's ``margin play`` (when no players are given: the players' ``margin watch``)."""
    if not players:
        return [Pane(terminals.open("gm", [*MARGIN, "play", str(table)], size=(110, 32)))]
    return [
        Pane(terminals.open(name.lower(), [*MARGIN, "watch", str(table), "--as", name], (120, 32)))
        for name in players
    ]


@pytest.mark.parametrize("system", list(FIGHTS))
def test_a_fight_from_three_terminals_sharing_the_table(tmp_path, terminals, system):
    fight = FIGHTS[system]
    table = tmp_path / "fight.margin"
    build_demo(table, system).close()
    [gm] = _seats(terminals, table)
    a, b = _seats(terminals, table, fight.a, fight.b)
    play(fight, table, gm, a, b, f"local {getpass.getuser()}")


def test_a_players_watch_refuses_in_one_line_and_writes_nothing(tmp_path, terminals):
    fight = FIGHTS["2d10-edge"]
    table = tmp_path / "fight.margin"
    build_demo(table, fight.system).close()
    [kael] = _seats(terminals, table, fight.a)
    refuses_everything(fight, kael, table)
