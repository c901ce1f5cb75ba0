"""The GM asks and a player answers, in real terminals: ``margin play`` in one pane of a
private tmux server and ``margin watch --as Kael`` in another, sharing one table file.

The GM types ``ask kael athletics vs 25``; Kael's screen shows the banner, Enter rolls
margin's dice and the GM's screen shows the check and no ask waiting. Asked again,
Kael presses ``=``, types the faces rolled at the table and Enter. A secret ask shows
Kael only that a check is being made.
"""

from __future__ import annotations

import getpass
import json
import os
from pathlib import Path
from typing import Any

import pytest
from fights import wait_for
from hosting import Terminals
from support import MARGIN, log_json, margin_output, wait_until
from test_doors_local import Pane

from margin.tui.table.demo import build_demo

pytestmark = pytest.mark.slow


class AskTerminals(Terminals):
    """The terminals of this module, on a tmux server of its own name."""

    def __init__(self, folder: Path) -> None:
        self.socket = f"ask-{os.getpid()}"
        self.folder = folder
        self.tmux("new-session", "-d", "-s", "keep", "sleep 3600")


@pytest.fixture
def terminals(tmp_path: Path) -> Any:
    terms = AskTerminals(tmp_path)
    yield terms
    terms.close()


def wait_records(table: Path, kind: str, count: int, timeout: float = 60) -> list[dict[str, Any]]:
    """The table's records of ``kind`` once there are ``count`` of them."""
    return wait_until(
        lambda: [r for r in log_json(table) if r.get("type") == kind],
        lambda found: len(found) >= count,
        lambda found: f"{count} {kind} records never written ({len(found)})",
        timeout,
        step=0.1,
    )


def gm_line(gm: Pane, line: str) -> None:
    gm.type(line)
    wait_for(gm, line)
    gm.key("Enter")


def test_the_gm_asks_in_one_terminal_and_the_player_answers_in_another(
    tmp_path: Path, terminals: AskTerminals
) -> None:
    table = tmp_path / "fight.margin"
    build_demo(table, "2d10-edge").close()
    gm = Pane(terminals.open("gm", [*MARGIN, "play", str(table)], size=(120, 34)))
    kael = Pane(terminals.open("kael", [*MARGIN, "watch", str(table), "--as", "Kael"], (120, 34)))
    wait_for(gm, "help lists the commands")
    wait_for(kael, "watching as Kael", timeout=60)

    gm_line(gm, "ask kael,moreau athletics vs 25")
    wait_for(gm, "Kael waiting, Moreau waiting")
    shown = wait_for(kael, "THE GM ASKS YOU TO ROLL")
    assert "athletics +20 vs TN 25" in shown
    kael.key("Enter")
    [answered] = wait_records(table, "player.answered", 1)
    wait_for(gm, "Kael answered, Moreau waiting")
    gm_line(gm, "ask roll moreau")
    wait_records(table, "player.answered", 2)

    gm_line(gm, "ask kael athletics vs 30 no-pending")
    wait_for(kael, "vs TN 30")
    kael.type("=")
    wait_for(kael, "type the faces you rolled after")
    kael.type("7 3")
    wait_for(kael, " = 7 3")
    kael.key("Enter")
    *_, typed = wait_records(table, "player.answered", 3)

    gm_line(gm, "ask kael perception vs 20 secret")
    wait_for(kael, "GM makes a secret check for Kael")

    records = [json.loads(r) for r in margin_output("log", str(table), "--json").splitlines()]
    # each answer's check is caused by its prompt, as the answer is
    checks = {r.get("cause"): r for r in records if r["type"] == "edge.check"}
    rolled, faced = checks[answered["cause"]], checks[typed["cause"]]
    assert rolled["author"] == f"kael (local {getpass.getuser()})"
    assert rolled["source"] != "typed"
    assert (faced["faces"], faced["source"]) == ([7, 3], "typed")
    # Kael's own log says a secret check is made for them, and nothing of it
    theirs = margin_output("log", str(table), "--as", "Kael")
    assert "GM makes a secret check for Kael" in theirs
    assert "perception" not in theirs.rsplit("secret check", 1)[1]
