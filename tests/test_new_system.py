"""A fifth dice system is new files only.

A tiny system, coin-toss (call heads or tails, toss a coin), is written as the
files ``docs/systems.md`` asks for into a copy of margin's tree, beside the
files already there, none of which changes. margin, run from that copy, finds
the system and its events the way it finds the four it ships with, and plays
it: a table, a character, a toss rolled and one typed in, the log, the state,
undo, the rules document, ``margin resolve`` and a player's view.
"""

from __future__ import annotations

import json
import os
import pkgutil
import shutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

from margin.core import SYSTEMS

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow

FILES = {
    "events/systems/coin.py": '''
"""Events of the coin-toss dice system."""

from ..base import Event, PlayerForm


class CoinTossed(Event, frozen=True, kw_only=True, tag="coin.toss"):
    actor: str
    call: str
    face: str
    source: str = "rng"
    won: bool

    PLAYER = PlayerForm(about=("actor",))


EVENTS = (CoinTossed,)
''',
    "core/systems/coin/__init__.py": '''
"""The coin-toss dice system: call it, toss it."""

from ..base import System
from . import commands, decide, fold, present, recap, resolve, state

SYSTEM = System(
    id="coin-toss",
    title="coin toss",
    summary="call heads or tails and toss a coin",
    commands=commands.COMMANDS,
    handlers=fold.HANDLERS,
    decide=decide.decide,
    make_character=state.make_character,
    resolve=resolve.RESOLVE,
    rules_doc="rules.md",
    describe=present.describe,
    status=present.status,
    recap=recap.READERS,
)
''',
    "core/systems/coin/commands.py": '''
"""The commands of coin-toss."""

from typing import Literal

from ..base import Command


class Toss(Command, tag="toss"):
    who: str
    call: Literal["heads", "tails"]
    faces: list[int] | None = None


COMMANDS = (Toss,)
''',
    "core/systems/coin/rules.py": '''
"""coin-toss rules: a d2, 1 is heads."""

FACES = ("heads", "tails")


def face(die: int) -> str:
    return FACES[die - 1]
''',
    "core/systems/coin/state.py": '''
"""coin-toss characters: how many tosses each has won."""

from typing import Any

from ...state import Character


class CoinCharacter(Character, kw_only=True):
    wins: int = 0


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return CoinCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)
''',
    "core/systems/coin/decide.py": '''
"""coin-toss: a toss decided into its event."""

from margin.events import Draft
from margin.events.systems.coin import CoinTossed

from ...dice import Dice
from ...history import History
from ...state import TableState, find_character
from ..base import Command
from . import rules
from .commands import Toss


def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    assert isinstance(command, Toss)
    who = find_character(state, command.who)
    (die,) = dice.roll(2)
    face = rules.face(die)
    event = CoinTossed(
        actor=who.id, call=command.call, face=face, source=dice.source, won=face == command.call
    )
    return [Draft(event)]
''',
    "core/systems/coin/fold.py": '''
"""coin-toss fold steps."""

from margin.events import Record
from margin.events.systems.coin import CoinTossed

from ...state import TableState
from .state import CoinCharacter


def _tossed(state: TableState, record: Record) -> None:
    char = state.characters[record.event.actor]
    if isinstance(char, CoinCharacter) and record.event.won:
        char.wins += 1


HANDLERS = {CoinTossed: _tossed}
''',
    "core/systems/coin/present.py": '''
"""What the screens show of coin-toss."""

from typing import Any

from ...state import Character, TableState


def describe(e: dict[str, Any]) -> str | None:
    if e.get("type") != "coin.toss":
        return None
    verdict = "wins" if e["won"] else "loses"
    return f"{e['actor']} calls {e['call']}, tosses {e['face']} ({e['source']}) and {verdict}"


def status(char: Character, state: TableState) -> list[str]:
    return [f"{getattr(char, 'wins', 0)} won"]
''',
    "core/systems/coin/recap.py": '''
"""What a coin-toss recap reads."""

from fractions import Fraction
from typing import Any

from ...facts import Check, Fact, typed


def _toss(e: dict[str, Any]) -> list[Fact]:
    return [Check(e["actor"], "toss", bool(e["won"]), chance=Fraction(1, 2), typed=typed(e))]


READERS = {"coin.toss": _toss}
''',
    "core/systems/coin/resolve.py": '''
"""margin resolve for coin-toss."""

from typing import Any

from ...dice import Dice
from . import rules


def _toss(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    (die,) = dice.roll(2)
    return {"face": rules.face(die)}


RESOLVE = {"toss": _toss}
''',
    "core/systems/coin/rules.md": """# coin-toss

Call heads or tails; a d2 is tossed, and 1 is heads.
""",
}

#: margin's command line, run in the copy: (arguments, standard input)
SESSION = [
    (["new", "--system", "coin-toss", "t.margin"], ""),
    (
        ["do", "t.margin"],
        '{"type": "add-character", "name": "Ada"}\n'
        '{"type": "toss", "who": "ada", "call": "heads", "faces": [1]}\n'
        '{"type": "toss", "who": "ada", "call": "tails", "faces": [1]}\n'
        '{"type": "toss", "who": "ada", "call": "tails"}\n'
        '{"type": "undo"}\n'
        '{"type": "toss", "who": "ada", "call": "edge"}\n',
    ),
    (["log", "t.margin"], ""),
    (["log", "--as", "ada", "t.margin"], ""),
    (["state", "--json", "t.margin"], ""),
    (["rules", "coin-toss"], ""),
    (["resolve"], '{"system": "coin-toss", "action": "toss", "faces": [2]}\n'),
    (["recap", "t.margin"], ""),
    (["do", "--schema", "--system", "coin-toss"], ""),
]

RUNNER = """
import io, json, sys
import margin
from margin.tui.cli import main

assert margin.__file__.startswith(sys.argv[1]), margin.__file__
out = []
for args, stdin in json.loads(sys.argv[2]):
    sys.stdin = io.StringIO(stdin)
    sys.stdout = io.StringIO()
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    out.append([code, sys.stdout.getvalue()])
sys.__stdout__.write(json.dumps(out))
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, str]]:
    for name in FILES:
        assert not (ROOT / name).exists(), f"{name} is one of margin's own files"
    top = tmp_path_factory.mktemp("fifth")
    tree = top / "margin"
    tree.mkdir()
    (tree / "__init__.py").write_text("")
    for layer in ("core", "events", "tui"):
        shutil.copytree(ROOT / layer, tree / layer, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in FILES.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip())
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(tree), json.dumps(SESSION)],
        cwd=top,
        env={**os.environ, "PYTHONPATH": str(top)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [(code, out) for code, out in json.loads(done.stdout)]


def test_the_new_system_is_found_and_played(played: list[tuple[int, str]]) -> None:
    (new, do, log, _, state, rules, resolve, _, schema) = played
    assert new[0] in (0, None)
    assert do[0] == 1  # the last line was refused
    answers = [json.loads(line) for line in do[1].splitlines()]
    assert [a.get("ok", False) for a in answers] == [True, True, True, True, True, False]
    assert answers[-1]["error"].endswith("call: 'edge' is not one of heads, tails")
    lines = log[1].splitlines()
    assert lines[2].endswith("Ada calls heads, tosses heads (typed) and wins")
    assert lines[3].endswith("Ada calls tails, tosses heads (typed) and loses")
    assert lines[4].endswith("(undone)")
    assert "Ada calls tails, tosses" in lines[4]
    assert json.loads(state[1])["characters"]["ada"]["wins"] == 1
    assert "a d2 is tossed, and 1 is heads" in rules[1]
    assert json.loads(resolve[1]) == {"face": "tails"}
    assert '"heads"' in schema[1]
    assert '"toss"' in schema[1]


def test_players_see_the_new_systems_records(played: list[tuple[int, str]]) -> None:
    gm_log, player_log = played[2][1], played[3][1]

    def tosses(log: str) -> int:
        # the GM's undo line says what it undid, as the GM's log panel does
        return sum(1 for line in log.splitlines() if "Ada calls" in line and "undo of" not in line)

    assert tosses(player_log) == tosses(gm_log) == 3


def test_the_recap_reads_the_new_systems_checks(played: list[tuple[int, str]]) -> None:
    code, recap = played[7]
    assert code in (0, None)
    # the undone toss is left out: two checks, both typed in, one won
    assert "| Ada | 0 | 1/2 |" in recap
    assert "| Ada | typed dice | 2 | 1.00 | 1 |" in recap
    assert "- Ada: 1 won" in recap


def test_every_system_has_the_same_modules() -> None:
    shapes = {
        system.id: sorted(
            m.name for m in pkgutil.iter_modules(import_module(system.package).__path__)
        )
        for system in SYSTEMS.values()
    }
    assert len({tuple(shape) for shape in shapes.values()}) == 1, shapes
    for system in SYSTEMS.values():
        assert system.rules_doc == "rules.md"
        assert (ROOT / "core/systems" / system.package.rsplit(".", 1)[1] / "rules.md").is_file()
