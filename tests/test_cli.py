"""The margin command line, used as a GM or a script would."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import MARGIN, add_character, margin_do, run_margin, tamper
from support import run_margin as run

from margin.events import open_store


def lines(*commands: dict[str, Any]) -> str:
    return "".join(json.dumps(c) + "\n" for c in commands)


@pytest.fixture
def table(table_name: str) -> str:
    """A new table: a file, then (each test again) a table in PostgreSQL."""
    assert run("new", table_name, "--system", "2d10-edge")[0] == 0
    return table_name


@pytest.fixture
def file_table(tmp_path: Path) -> Path:
    path = tmp_path / "t.margin"
    assert run("new", str(path), "--system", "2d10-edge")[0] == 0
    return path


def test_do_answers_each_line_and_goes_on_after_errors(table: str) -> None:
    code, out, _ = run(
        "do",
        str(table),
        stdin=lines(
            add_character("Kael"),
            {"type": "roll", "actor": "kael", "dice": "2d10", "faces": [4, 11]},
            {"type": "roll", "actor": "kael", "dice": "2d10", "faces": [4, 9]},
            {"type": "teleport"},
            {"type": "roll", "actor": "nobody", "dice": "2d6"},
            {"type": "roll", "dice": "2d6", "colour": "red"},
        )
        + "{not json\n",
    )
    replies = [json.loads(x) for x in out.splitlines()]
    assert code == 1
    assert replies[0] == {"ok": True, "seq": [2, 2], "command": replies[0]["command"]}
    assert "11 is not a face of a d10" in replies[1]["error"]
    assert replies[2]["seq"] == [3, 3]
    assert "unknown command type" in replies[3]["error"]
    assert "'nobody' is not at the table" in replies[4]["error"]
    assert "colour" in replies[5]["error"]
    assert "not JSON" in replies[6]["error"]
    code, out, _ = run("log", str(table), "--json")
    records = [json.loads(x) for x in out.splitlines()]
    assert [r["seq"] for r in records] == [1, 2, 3]
    assert records[2]["type"] == "dice.rolled"
    assert records[2]["faces"] == [4, 9]
    assert records[2]["source"] == "typed"
    assert records[2]["total"] == 13


def test_do_replies_are_flushed_as_each_command_commits(table: str) -> None:
    proc = subprocess.Popen(
        [*MARGIN, "do", str(table)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin
    assert proc.stdout
    proc.stdin.write(json.dumps({"type": "note", "text": "first"}) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())  # would hang if not flushed per line
    assert reply["ok"]
    assert reply["seq"] == [2, 2]
    # the record is durable before the reply: another connection sees it
    with open_store(table, readonly=True) as store:
        assert store.last_seq == 2
    proc.stdin.close()
    assert proc.wait(10) == 0


def test_secret_rolls_and_gm_notes_are_cut_from_a_players_log(table: str) -> None:
    margin_do(
        table,
        add_character("Kael"),
        add_character("Spy", hidden=True),
        {"type": "roll", "dice": "1d20", "faces": [17], "secret": True, "reason": "ambush"},
        {"type": "note", "text": "the butler did it", "gm_only": True},
        {"type": "note", "text": "it rains"},
    )
    _, gm, _ = run("log", str(table), "--json")
    _, player, _ = run("log", str(table), "--json", "--as", "Kael")
    assert "butler" in gm
    assert "Spy" in gm
    assert "butler" not in player
    assert "Spy" not in player
    secret = [json.loads(x) for x in player.splitlines() if '"dice.rolled"' in x][0]
    assert "total" not in secret
    assert "faces" not in secret
    assert "dice" not in secret
    assert secret["secret"] is True
    assert secret["reason"] == "ambush"
    assert "it rains" in player
    # players' records are numbered without gaps: nothing betrays the hidden Spy's record
    assert [json.loads(x)["seq"] for x in player.splitlines()] == [1, 2, 3, 4]
    real = [json.loads(x) for x in gm.splitlines() if '"dice.rolled"' in x][0]["seq"]
    assert (secret["seq"], real) == (3, 4)
    # revealed later: visible from then on
    margin_do(table, {"type": "reveal", "seq": real})
    _, player, _ = run("log", str(table), "--json", "--as", "kael")
    records = [json.loads(x) for x in player.splitlines()]
    shown = [r for r in records if r["type"] == "dice.rolled"][0]
    assert shown["total"] == 17
    assert records[-1]["type"] == "table.revealed"
    assert records[-1]["record"] == 3
    assert records[-1]["cause"] == 3
    code, _, err = run("log", str(table), "--as", "Spy")
    assert code == 1
    assert "no such player" in err
    _, state, _ = run("state", str(table), "--json", "--as", "kael")
    assert "spy" not in json.loads(state)["characters"]


def test_state_at_and_undo_through_the_cli(table: str) -> None:
    margin_do(
        table,
        add_character("Kael"),
        {"type": "roll", "actor": "kael", "dice": "1d20", "faces": [2]},
        {"type": "undo"},
    )
    _, now, _ = run("state", str(table), "--json")
    _, then, _ = run("state", str(table), "--json", "--at", "3")
    assert json.loads(now)["last_roll"] is None
    assert json.loads(then)["last_roll"]["total"] == 2
    code, _, err = run("state", str(table), "--at", "99")
    assert code != 0
    assert "records 1..4" in err
    _, text, _ = run("log", str(table))
    assert "(undone)" in text.splitlines()[2]
    lines = [json.loads(line) for line in run("log", str(table), "--json")[1].splitlines()]
    roll, undo = lines[2], lines[3]
    assert undo["type"] == "table.undone"
    # every record's command is its own; the undo names the one it undid apart
    assert undo["command"] != roll["command"]
    assert undo["undone_command"] == roll["command"]
    assert undo["voids"] == [roll["seq"]]


def test_export_import_round_trip(table: str, tmp_path: Path) -> None:
    margin_do(
        table,
        add_character("Kael", {"note": "é ✓"}),
        {"type": "roll", "dice": "3d6"},
        {"type": "undo"},
    )
    _, exported, _ = run("export", str(table))
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported)
    copy = tmp_path / "copy.margin"
    code, out, err = run("import", str(dump), str(copy))
    assert code == 0, err
    _, a, _ = run("state", str(table), "--json")
    _, b, _ = run("state", str(copy), "--json")
    assert a == b
    _, again, _ = run("export", str(copy))
    assert again == exported
    assert run("verify", str(copy))[0] == 0


def test_import_refuses_a_tampered_export(file_table: Path, tmp_path: Path) -> None:
    table = file_table
    margin_do(table, {"type": "note", "text": "honest"})
    _, exported, _ = run("export", str(table))
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported.replace("honest", "forged"))
    code, _, err = run("import", str(dump), str(tmp_path / "x.margin"))
    assert code == 1
    assert "record 2: hash chain broken" in err
    assert not (tmp_path / "x.margin").exists()
    dump.write_text("this is not json\n")
    code, _, err = run("import", str(dump), str(tmp_path / "y.margin"))
    assert code == 1
    assert "line 1" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["log", "{missing}"], "no such table file"),
        (["state", "{junk}"], "not a margin table"),
        (["verify", "{foreign}"], "not a margin table"),
        (["do", "{folder}"], "is a folder"),
        (["new", "{table}", "--system", "2d10-edge"], "already exists"),
        (["new", "{tmp}/a.margin", "--system", "d20"], "invalid choice"),
        (["new", "{tmp}/b.margin", "--system", "2d10-edge", "--option", "nonsense"], "NAME=VALUE"),
        (["new", "{tmp}/nodir/c.margin", "--system", "2d10-edge"], "does not exist"),
        (["rules", "chess"], "not known"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_user_errors_are_one_line_without_traceback(
    file_table: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "junk").write_bytes(b"garbage" * 30)
    foreign = tmp_path / "foreign.db"
    tamper(foreign, "CREATE TABLE t (x)")
    before = foreign.read_bytes()
    names = {
        "missing": tmp_path / "nope.margin",
        "junk": tmp_path / "junk",
        "foreign": foreign,
        "folder": tmp_path,
        "table": file_table,
        "tmp": tmp_path,
    }
    code, out, err = run(*[a.format(**names) for a in args])
    assert code != 0
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert foreign.read_bytes() == before


def test_corrupt_table_is_reported_by_verify(file_table: Path) -> None:
    table = file_table
    margin_do(table, {"type": "note", "text": "a"}, {"type": "note", "text": "b"})
    tamper(
        table,
        "DROP TRIGGER records_no_update",
        "UPDATE records SET body = replace(body, '\"b\"', '\"c\"') WHERE seq = 3",
    )
    code, _, err = run("verify", str(table))
    assert code == 1
    assert "record 3" in err


def test_schema_lists_every_command() -> None:
    code, out, _ = run("do", "--schema", "--system", "2d10-edge")
    schema = json.loads(out)
    assert code == 0
    tags = {
        d["properties"]["type"]["enum"][0]
        for d in schema["$defs"].values()
        if "type" in d.get("properties", {})
    }
    assert {"add-character", "roll", "note", "undo", "redo"} <= tags
    code, out, _ = run("do", "--schema")
    assert set(json.loads(out)) == {"2d10-edge", "d100-chance", "d100-under", "2d6-effect"}


def test_resolve_unknown_system_and_bad_lines() -> None:
    code, out, _ = run(
        "resolve",
        stdin='{"system": "d20", "action": "check"}\nnot json\n{"action": "check"}\n',
    )
    replies = [json.loads(x) for x in out.splitlines()]
    assert code == 1
    assert "system: 'd20' is not known" in replies[0]["error"]
    assert "not JSON" in replies[1]["error"]
    assert "system: missing" in replies[2]["error"]


def test_options_are_events_and_replays_use_the_options_then_in_force(file_table: Path) -> None:
    from margin.core import get_system

    options = get_system("2d10-edge").options
    if not options:
        pytest.skip("2d10-edge declares no options")
    opt = options[0]
    other = (
        next((c for c in opt.choices if c != opt.default), None)
        if opt.choices
        else (not opt.default if isinstance(opt.default, bool) else None)
    )
    if other is None:
        pytest.skip("first option has no simple alternative value")
    table = file_table
    code, out, _ = run(
        "do",
        str(table),
        stdin=lines({"type": "set-option", "name": opt.name, "value": other}),
    )
    assert code == 0, out
    _, now, _ = run("state", str(table), "--json")
    _, then, _ = run("state", str(table), "--json", "--at", "1")
    assert json.loads(now)["options"][opt.name] == other
    assert json.loads(then)["options"][opt.name] == opt.default


def test_import_accepts_an_export_laid_out_by_another_tool(
    file_table: Path, tmp_path: Path
) -> None:
    table = file_table
    margin_do(table, add_character("Zoë"), {"type": "note", "text": "ünïcode ✓"})
    _, exported, _ = run("export", str(table))
    relaid = "".join(json.dumps(json.loads(x), indent=None) + "\n\n" for x in exported.splitlines())
    dump = tmp_path / "relaid.jsonl"
    dump.write_text(relaid)
    code, _, err = run("import", str(dump), str(tmp_path / "c.margin"))
    assert code == 0, err
    _, again, _ = run("export", str(tmp_path / "c.margin"))
    assert again == exported


def test_log_says_characters_by_name_and_players_only_those_they_see(file_table: Path) -> None:
    margin_do(
        file_table,
        add_character("Old Tom"),
        add_character("Night Owl", hidden=True),
        {"type": "roll", "actor": "old-tom", "dice": "1d6", "faces": [4]},
        {"type": "roll", "actor": "night-owl", "dice": "1d6", "faces": [2]},
        add_character("Wren"),
        {"type": "roll", "actor": "wren", "dice": "1d6", "faces": [5]},
        {"type": "remove-character", "character": "Wren"},
    )
    _, gm, _ = run("log", str(file_table))
    assert "Old Tom rolls 1d6" in gm
    assert "Night Owl rolls 1d6" in gm
    assert "Wren rolls 1d6" in gm, "a character who left is still said by name"
    _, player, _ = run("log", str(file_table), "--as", "Old Tom")
    assert "Old Tom rolls 1d6" in player
    assert "night" not in player.lower()


def test_a_table_whose_file_name_is_not_utf8_is_named_without_a_traceback(tmp_path: Path) -> None:
    from margin.tui.screens.base import history_path

    table = str(tmp_path / os.fsdecode(b"f\xffight.margin"))
    assert run("new", table, "--system", "2d10-edge")[0] == 0
    margin_do(table, add_character("Kael"))
    follow = str(tmp_path / os.fsdecode(b"next\xfe.margin"))
    for args in (
        ("branch", table, "--at", "1", str(tmp_path / os.fsdecode(b"what\xfeif.margin"))),
        ("new", follow, "--from", table),
        ("log", follow),
    ):
        code, out, err = run(*args)
        assert code == 0, err
        assert "Traceback" not in err
    # records and screens name it as text; the bytes that are not UTF-8 shown as U+FFFD
    assert "f\ufffdight.margin" in run("log", follow)[1]
    assert history_path(table).name.startswith("f\udcffight-")


def test_a_mistyped_command_names_the_nearest(tmp_path) -> None:
    code, out, err = run_margin("plya", str(tmp_path / "t.margin"))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "invalid choice: 'plya'" in err
    assert "did you mean 'play'?" in err
    # a word near none is refused without a guess
    code, out, err = run_margin("zzzz")
    assert code == 2
    assert "did you mean" not in err


def test_playing_a_missing_table_says_how_to_make_one(tmp_path) -> None:
    path = str(tmp_path / "nosuch.margin")
    code, out, err = run_margin("play", path)
    assert code != 0
    assert len(err.strip().splitlines()) == 1
    assert "no such table" in err
    assert f"margin new {path} --system ID" in err
    assert f"margin demo {path}" in err
    assert not (tmp_path / "nosuch.margin").exists()
