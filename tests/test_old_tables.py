"""Tables written by an earlier margin open unchanged.

``tests/tables/`` holds one demo table per system, written (with a secret roll,
a GM-only note, undo and redo) by the margin of before each system became a
sub-package, beside what ``margin log``, ``margin state --json`` and ``margin
verify`` printed for it then. Today's margin must read the same records into
the same lines and the same state. (The state's shape may change on purpose:
the last check of a d100-under or 2d6-effect character became data, not a
line of text, so those two files hold it as today's margin folds it; and the
log's lines say characters by name, as the screens do, where they said ids.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import run_margin

from margin.core import SYSTEMS

TABLES = Path(__file__).parent / "tables"
WRITTEN = ("2d10-edge", "d100-chance", "d100-under", "2d6-effect")


def test_a_table_of_every_system_is_kept() -> None:
    assert set(WRITTEN) == set(SYSTEMS)


def _kept_copy(system: str, tmp_path: Path) -> str:
    """A copy of the kept table, so that opening it (which may fold its journal back)
    never changes the kept file."""
    path = tmp_path / f"{system}.margin"
    shutil.copyfile(TABLES / f"{system}.margin", path)
    return str(path)


@pytest.mark.parametrize("system", WRITTEN)
def test_a_table_written_before_opens_unchanged(
    system: str,
    tmp_path: Path,
) -> None:
    path = _kept_copy(system, tmp_path)
    code, out, err = run_margin("verify", path)
    assert code == 0, err
    assert "chain intact; signed by ed25519:" in out

    code, out, err = run_margin("log", path)
    assert code == 0, err
    assert out == (TABLES / f"{system}.log").read_text()

    code, out, err = run_margin("state", "--json", path)
    assert code == 0, err
    assert _as_then(json.loads(out)) == json.loads((TABLES / f"{system}.state.json").read_text())


#: what the state gained since those tables were written, as a table without any of it
#: holds it: the bookkeeping every table has, and the options margin gives every system
LATER_STATE: dict[str, Any] = {"fight": None, "aliases": {}, "requests": {}, "prompts": {}}
LATER_CHARACTER: dict[str, Any] = {
    "npc": False,
    "health_view": "",
    "conditions": [],
    "counters": {},
    "health_shown": "",
}
LATER_OPTIONS: dict[str, Any] = {
    "npc_health": "exact",
    "initiative_dice": "2d6",
    "players": "ask",
}


def _as_then(state: dict[str, Any]) -> dict[str, Any]:
    """The state less what margin added later, each addition checked to hold its default."""
    # the clock as conditions count it, read from the system's own clock events
    state.pop("time")
    for extra, into in (
        (LATER_STATE, state),
        (LATER_OPTIONS, state["options"]),
        *((LATER_CHARACTER, char) for char in state["characters"].values()),
    ):
        for key, default in extra.items():
            if key in into:
                assert into.pop(key) == default, key
    for char in state["characters"].values():
        # a last check names the record it came from (added later): a number of the log
        last = char.get("last")
        if isinstance(last, dict) and "seq" in last:
            assert isinstance(last.pop("seq"), int)
    return state


@pytest.mark.parametrize(
    ("system", "line"),
    [
        ("d100-under", "  Kael last=BR 22/35 success (wins)"),
        ("2d6-effect", "  Mira assists=none last=Broker 8 (Effect +0, success)"),
    ],
)
def test_the_state_says_a_last_check_as_the_status_line_does(
    system: str, line: str, tmp_path: Path
) -> None:
    code, out, err = run_margin("state", _kept_copy(system, tmp_path))
    assert code == 0, err
    assert line in out.splitlines()
    assert "last={" not in out


@pytest.mark.parametrize(
    ("system", "line"),
    [
        (
            "d100-chance",
            "  Marn hp=8 effects=burning (stacks 4, turns 6, source Vex, applied 13) "
            "position=10, 0 side=none",
        ),
        ("2d10-edge", "injuries=serious (record 17, points 14) pending=none urgent_care=no"),
    ],
)
def test_the_state_says_its_values_in_words(system: str, line: str, tmp_path: Path) -> None:
    code, out, err = run_margin("state", _kept_copy(system, tmp_path))
    assert code == 0, err
    assert line in out
    # no Python repr of a list, a record or a missing value
    for repr_ in ("[{", "{'", "=[]", "=None", "=True", "=False"):
        assert repr_ not in out
