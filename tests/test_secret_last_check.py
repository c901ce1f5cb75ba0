"""A secret check tells players how it went in its record, never its numbers: no
player's state (``margin state --as``, text and JSON) gives a last check from it, nor
what its margin left pending (a secret TN's Advantage), until the GM reveals it; an open
check's last check all players see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import add_character, demo_sheet, margin_do, margin_output, run_margin, state_json

#: a check by "A" in each system with a character's last check, made secret
SECRET_CHECKS: dict[str, dict[str, Any]] = {
    "d100-under": {"type": "check", "character": "A", "skill": "Melee", "secret": True},
    "2d6-effect": {
        "type": "check",
        "character": "A",
        "skill": "Electronics",
        "characteristic": "INT",
        "secret": True,
    },
}


def _table(tmp_path: Path, system: str, check: dict[str, Any]) -> str:
    path = str(tmp_path / "t.margin")
    done = run_margin("new", path, "--system", system)
    assert done.code == 0, done.err
    code, replies = margin_do(
        path,
        add_character("A", demo_sheet(system)),
        add_character("B", demo_sheet(system, last=True)),
        check,
    )
    assert code == 0, replies
    assert all(r["ok"] for r in replies), replies
    return path


def _last(path: str, *args: str) -> Any:
    return state_json(path, *args)["characters"]["a"]["last"]


@pytest.mark.parametrize("system", sorted(SECRET_CHECKS))
def test_a_secret_check_leaves_players_no_last_check(system: str, tmp_path: Path) -> None:
    path = _table(tmp_path, system, SECRET_CHECKS[system])
    gm = _last(path)
    assert gm is not None
    assert gm["seq"] == 4
    for player in ("A", "B"):
        assert _last(path, "--as", player) is None
        text = margin_output("state", path, "--as", player)
        line = next(row for row in text.splitlines() if row.strip().startswith("A "))
        assert "last=none" in line, line


@pytest.mark.parametrize("system", sorted(SECRET_CHECKS))
def test_a_revealed_secret_check_is_players_last_check(system: str, tmp_path: Path) -> None:
    path = _table(tmp_path, system, SECRET_CHECKS[system])
    code, replies = margin_do(path, {"type": "reveal", "seq": 4})
    assert code == 0, replies
    assert replies[0]["ok"], replies
    gm = _last(path)
    for player in ("A", "B"):
        assert _last(path, "--as", player) == gm


@pytest.mark.parametrize("system", sorted(SECRET_CHECKS))
def test_an_open_check_is_every_players_last_check(system: str, tmp_path: Path) -> None:
    check = {**SECRET_CHECKS[system], "secret": False}
    path = _table(tmp_path, system, check)
    gm = _last(path)
    assert gm is not None
    assert _last(path, "--as", "B") == gm


def test_what_a_secret_tn_leaves_pending_is_no_players_until_revealed(tmp_path: Path) -> None:
    check = {"type": "check", "character": "A", "skill": "athletics", "tn": 5, "secret_tn": True}
    path = _table(tmp_path, "2d10-edge", check)
    pending = state_json(path)["characters"]["a"]["pending"]
    assert [p["seq"] for p in pending] == [4]
    for player in ("A", "B"):
        assert state_json(path, "--as", player)["characters"]["a"]["pending"] == []
        assert "pending=none" in margin_output("state", path, "--as", player)
    code, replies = margin_do(path, {"type": "reveal", "seq": 4})
    assert code == 0, replies
    assert state_json(path, "--as", "B")["characters"]["a"]["pending"] == pending
