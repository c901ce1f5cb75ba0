"""The screens need a terminal: without one they exit at once instead of waiting for keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import margin_process

from margin.tui.table.demo import build_demo


@pytest.mark.parametrize(
    "args",
    [["watch", "{path}", "--as", "Kael"], ["play", "{path}"], ["replay", "{path}"], ["play"]],
    ids=["watch", "play", "replay", "play-default"],
)
def test_a_screen_started_without_a_terminal_exits_at_once(tmp_path: Path, args: list[str]) -> None:
    path = tmp_path / "t.margin"
    build_demo(path, "2d10-edge").close()
    # Standard input is empty, not a terminal: a screen waiting for keys would never end, and
    # the runner's timeout would fail the test.
    result = margin_process(*(a.format(path=path) for a in args), stdin="", timeout=20)
    assert result.returncode == 1
    assert result.stderr == f"margin {args[0]} needs a terminal (over SSH use ssh -t)\n"
