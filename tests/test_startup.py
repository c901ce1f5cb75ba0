"""A screen's process starts with the cycle collector paused and runs it again from its
first frame (``margin.tui.table.startup``). Each check runs in a Python of its own: a
frozen collector generation would outlive the test in this one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import saved_table

PAUSING = """
import gc, json
from margin.tui.table import startup

seen = {}
startup.resume()
seen["resume unpaused"] = [gc.isenabled(), gc.get_freeze_count()]
startup.pause()
seen["paused"] = gc.isenabled()
startup.pause()
startup.resume()
seen["resumed"] = [gc.isenabled(), gc.get_freeze_count() > 0]
gc.disable()
startup.resume()
seen["stopped by another"] = gc.isenabled()
print(json.dumps(seen))
"""

#: ``margin play|watch|replay TABLE [--as NAME]`` as the command line runs it, drawn headless
#: (no terminal here): whether the collector ran before, at the first frame and once
#: margin's screen took it up
SCREEN = """
import gc, json, sys
from textual.app import App
from margin.tui import cli
from margin.tui.screens.base import TableApp

run = App.run
App.run = lambda self, *args, **kwargs: run(self, headless=True, size=(100, 30))
cli._need_terminal = lambda name: None
seen = {"before": gc.isenabled()}
resume = TableApp.on_ready

def first_frame(self):
    seen["at first frame"] = gc.isenabled()
    resume(self)
    seen["after"] = gc.isenabled()
    self.exit()

TableApp.on_ready = first_frame
cli.main(sys.argv[1:])
seen["frozen"] = gc.get_freeze_count() > 0
print(json.dumps(seen))
"""


def _python(script: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return seen


def test_pause_stops_the_collector_and_resume_freezes_and_restarts_it() -> None:
    assert _python(PAUSING) == {
        "resume unpaused": [True, 0],
        "paused": False,
        "resumed": [True, True],
        "stopped by another": False,
    }


@pytest.mark.parametrize("command", [["play"], ["watch", "--as", "Kael"], ["replay"]])
def test_a_screen_starts_with_the_collector_paused_and_runs_it_from_its_first_frame(
    tmp_path: Path, command: list[str]
) -> None:
    table = saved_table(tmp_path / "t.margin", "2d10-edge", "startup")
    seen = _python(SCREEN, command[0], table, *command[1:])
    assert seen == {"before": True, "at first frame": False, "after": True, "frozen": True}
