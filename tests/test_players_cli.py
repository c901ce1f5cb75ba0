"""``margin do --as NAME``: a player's door on the command line, ruled as every door is.

The JSON contract is ``margin do``'s: one reply a line, ``ok`` with the records written
or ``error`` with one line saying why. ``margin log`` and ``verify`` say who wrote what.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Any

from support import log_json, margin_output, margin_process, run_margin, state_json


def _table(tmp_path: Path, players: str = "ask") -> str:
    path = str(tmp_path / "t.margin")
    margin_output("demo", path, "--system", "2d10-edge")
    if players != "ask":
        margin_output("do", path, stdin=json.dumps(
            {"type": "set-option", "name": "players", "value": players}) + "\n")  # fmt: skip
    return path


def _as(path: str, name: str, *commands: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    done = run_margin(
        "do", path, "--as", name, stdin="".join(json.dumps(c) + "\n" for c in commands)
    )
    return done.code, [json.loads(line) for line in done.out.splitlines()]


ME = f"kael (local {getpass.getuser()})"


def test_a_players_request_is_written_in_their_name_and_the_gm_accepts_it(tmp_path: Path) -> None:
    path = _table(tmp_path)
    code, [reply] = _as(path, "Kael", {"type": "check", "character": "Kael", "skill": "melee"})
    assert code == 0
    asked = reply["seq"][0]
    [mine] = [r for r in log_json(path) if r["seq"] == asked]
    assert mine["author"] == ME
    assert mine["type"] == "player.requested"
    assert mine["asked"] == {"type": "check", "character": "Kael", "skill": "melee"}
    assert [*state_json(path)["requests"]] == [str(asked)]
    margin_output("do", path, stdin=json.dumps({"type": "accept", "request": asked}) + "\n")
    log = margin_output("log", path)
    assert f"{ME} Kael: melee +19 [" in log
    assert f"GM accepts Kael's request #{asked}" in log
    verify = margin_output("verify", path)
    assert "written by gm: " in verify
    assert f"{ME}: 2" in verify


def test_a_request_reaches_its_player_and_no_other(tmp_path: Path) -> None:
    path = _table(tmp_path)
    _as(path, "Kael", {"type": "check", "character": "Kael", "skill": "melee"})
    mine = margin_output("log", path, "--as", "Kael")
    theirs = margin_output("log", path, "--as", "Moreau")
    assert "Kael asks: check Kael melee\n" in mine, mine
    assert "asks" not in theirs
    assert len(mine.splitlines()) == len(theirs.splitlines()) + 1
    assert state_json(path, "--as", "Moreau")["requests"] == {}


def test_a_player_is_refused_one_line_per_command_and_nothing_is_written(tmp_path: Path) -> None:
    path = _table(tmp_path, "trust")
    before = len(log_json(path))
    code, replies = _as(
        path,
        "Kael",
        {"type": "check", "character": "Moreau", "skill": "firearms"},
        {"type": "note", "text": "I win"},
        {"type": "check", "character": "Kael", "skill": "melee", "secret_tn": True},
    )
    assert code == 1
    assert [r["error"] for r in replies] == [
        "line 1: Kael: check character: a player commands their own character only (Kael)",
        "line 2: Kael: 'note' is the GM's command (a player may give: answer, attack, check, "
        "dismiss-pending, edge-burn, entropy, join, lessen-injury, roll, say, spend-edge, use-action, "
        "whisper)",
        "line 3: Kael: check secret_tn: that is the GM's to set",
    ]
    assert len(log_json(path)) == before


def test_off_leaves_players_watching_and_a_forged_author_is_refused(tmp_path: Path) -> None:
    path = _table(tmp_path, "off")
    before = len(log_json(path))
    code, [reply] = _as(path, "Kael", {"type": "say", "text": "hello"})
    assert code == 1
    assert reply == {
        "error": "line 1: Kael: players watch only at this table (the GM's option players)"
    }
    forged = margin_process("do", path, "--as", "Kael", "--author", "gm", stdin="{}\n")
    assert forged.returncode != 0
    assert forged.stderr.strip().splitlines() == [
        "margin: do: --author is the GM's to give; a player's seat (--as Kael) writes as itself"
    ]
    done = run_margin("do", path, "--as", "gm", stdin="{}\n")
    assert done.code != 0
    assert "the GM's seat is margin do alone" in done.err
    assert len(log_json(path)) == before


def test_trust_applies_at_once_and_undo_voids_it(tmp_path: Path) -> None:
    path = _table(tmp_path, "trust")
    code, [reply] = _as(path, "Kael", {"type": "say", "text": "I charge"})
    assert code == 0
    assert (
        margin_output("log", path, "--as", "Moreau")
        .splitlines()[-1]
        .endswith("Kael says: I charge")
    )
    code, [reply] = _as(path, "Kael", {"type": "check", "character": "Kael", "skill": "melee"})
    assert code == 0
    first = reply["seq"][0]
    assert [r["author"] for r in log_json(path) if r["seq"] >= first] == [ME] * (
        reply["seq"][1] - first + 1
    )
    margin_output("do", path, stdin='{"type": "undo"}\n')
    *_, check, undo = margin_output("log", path).splitlines()
    assert check.endswith("(undone)")
    assert f"gm       undo of #{first} " in undo
    assert undo.endswith("(voids 1 record)")


def test_the_gm_asks_through_margin_do_and_the_player_answers_through_theirs(
    tmp_path: Path,
) -> None:
    path = _table(tmp_path)
    ask = {"type": "ask", "characters": ["Kael"], "check": {"skill": "melee", "tn": 15}}
    margin_output("do", path, stdin=json.dumps(ask) + "\n")
    assert "GM asks Kael to roll now: check melee vs 15\n" in margin_output(
        "log", path, "--as", "Kael"
    )
    assert "GM asks" not in margin_output("log", path, "--as", "Moreau")
    code, [reply] = _as(path, "Kael", {"type": "answer", "faces": [8, 2]})
    assert code == 0
    check, done = (r for r in log_json(path) if r["seq"] in reply["seq"])
    assert (check["author"], check["faces"], done["type"]) == (ME, [8, 2], "player.answered")
    code, [again] = _as(path, "Kael", {"type": "answer"})
    assert code == 1
    assert again["error"] == "line 1: Kael: answer: no check the GM asked of Kael is waiting"


def test_a_seat_without_the_gms_dice_keys_rolls_only_typed_faces(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A player's margin on another account holds none of the GM's dice keys: drawing a die
    there would come from a seed its player knows, so it takes typed faces only."""
    path = _table(tmp_path, "trust")
    margin_output("do", path, stdin=json.dumps({"type": "roll", "dice": "1d6"}) + "\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "another-account"))
    before = len(log_json(path))
    code, [refused] = _as(path, "Kael", {"type": "check", "character": "Kael", "skill": "melee"})
    assert code != 0
    assert "this seat cannot roll margin's dice" in refused["error"], refused
    assert len(log_json(path)) == before
    check = {"type": "check", "character": "Kael", "skill": "melee", "faces": [8, 2]}
    code, [reply] = _as(path, "Kael", check)
    assert code == 0, reply
    assert [r["faces"] for r in log_json(path) if r["seq"] in reply["seq"]][0] == [8, 2]


def test_an_undo_a_player_sees_says_what_it_undid_as_that_player_read_it(tmp_path: Path) -> None:
    path = _table(tmp_path)
    _, [reply] = _as(path, "Kael", {"type": "check", "character": "Kael", "skill": "melee"})
    asked = reply["seq"][0]
    gm = [{"type": "refuse", "request": asked, "reason": "no line of sight"}, {"type": "undo"}]
    margin_output("do", path, stdin="".join(json.dumps(c) + "\n" for c in gm))
    *_, refused, undo = margin_output("log", path, "--as", "Kael").splitlines()
    number = int(refused.split()[0])
    assert refused.endswith(
        "GM refuses Kael's request #" + str(number - 1) + ": no line of sight (undone)"
    )
    assert undo.endswith(
        f"undo of #{number} GM refuses Kael's request #{number - 1}: no line of sight "
        "(voids 1 record)"
    ), undo
