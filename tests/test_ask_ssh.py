"""The GM's ask over the SSH door: ``margin host`` and a player's seat over the real OpenSSH
client (``ssh -tt`` in a tmux pane), in d100-chance.

The GM asks Rook for an open check; Rook's hosted watch screen shows the banner, Enter
rolls margin's dice, and the check names the fingerprint of Rook's key. Asked again,
Rook types the die rolled at the table after ``=``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fights import wait_for
from support import margin_output
from test_ask_terminals import wait_records
from test_doors_ssh import _join
from test_doors_ssh import fight as fight  # the fight of the door's tests: d100-chance
from test_doors_ssh import site as site  # the host and its seats' keys, as the door's tests have

pytestmark = pytest.mark.slow

ASK = {"type": "ask", "characters": ["Rook"], "check": {"skill": "lockpick", "difficulty": 12}}


def _ask(table: Path, **check: Any) -> None:
    ask = {**ASK, "check": {**ASK["check"], **check}}  # type: ignore[dict-item]
    margin_output("do", str(table), stdin=json.dumps(ask) + "\n")


def test_a_player_answers_the_gms_ask_from_their_ssh_seat(site: dict[str, Any]) -> None:
    table = site["table"]
    rook = _join(site, "Rook")
    wait_for(rook, "watching as Rook")
    _ask(table, secret=False)
    wait_for(rook, "THE GM ASKS YOU TO ROLL")
    rook.key("Enter")
    [answered] = wait_records(table, "player.answered", 1)
    _ask(table, secret=False, task="the second lock")
    wait_for(rook, "task: the second lock")  # the banner of this ask, not the last one's
    rook.type("=")
    wait_for(rook, "type the faces you rolled after")
    rook.type("38")
    wait_for(rook, " = 38")
    rook.key("Enter")
    *_, typed = wait_records(table, "player.answered", 2)
    records = [json.loads(r) for r in margin_output("log", str(table), "--json").splitlines()]
    checks = {r.get("cause"): r for r in records if r["type"] == "chance.check"}
    rolled, faced = checks[answered["cause"]], checks[typed["cause"]]
    assert rolled["author"].startswith("rook (ssh SHA256:")
    assert (faced["roll"], faced["source"]) == (38, "typed")
    # a secret ask (d100-chance's way): Rook is told a check is made, nothing more
    _ask(table, task="the vault")
    wait_for(rook, "GM makes a secret check for Rook")
