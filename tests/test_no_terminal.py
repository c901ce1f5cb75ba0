"""The screens need a terminal: without one they exit at once instead of waiting for keys."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from margin.tui.demo import build_demo


@pytest.mark.parametrize(
    "args",
    [["watch", "{path}", "--as", "Kael"], ["play", "{path}"], ["replay", "{path}"], ["play"]],
    ids=["watch", "play", "replay", "play-default"],
)
def test_a_screen_started_without_a_terminal_exits_at_once(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "t.margin"
    build_demo(path, "2d10-edge").close()
    start = time.monotonic()
    with open("/dev/null", "rb") as nothing:
        result = subprocess.run(
            [sys.executable, "-m", "margin.tui", *(a.format(path=path) for a in args)],
            stdin=nothing,
            capture_output=True,
            text=True,
            timeout=30,
        )
    elapsed = time.monotonic() - start
    assert result.returncode == 1
    assert result.stderr == f"margin {args[0]} needs a terminal (over SSH use ssh -t)\n"
    assert elapsed < 1.0, f"took {elapsed:.2f} s"
