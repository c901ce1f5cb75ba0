"""Prep and continuity: sheets from files, groups, and the next session's table."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest
from support import events_of, margin_process, run_margin

from margin.core import RuleError
from margin.core.commands import Note
from margin.core.systems.edge.state import EdgeCharacter
from margin.tui.screens.commandline import parse_line
from margin.tui.table.sheets import HOSTED_OFF, MAX_BYTES, SheetFiles
from margin.tui.table.table import Table

KAEL = {
    "attributes": {"ST": 9, "AG": 7, "CU": 5, "IN": 4, "WI": 5},
    "skills": {"melee": {"ranks": 3, "keys": ["ST", "AG"]}},
    "edge": 3,
    "health": 40,
    "weapons": ["sword"],
}


def test_the_next_session_carries_a_wounded_character_and_verifies(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.margin"), str(tmp_path / "b.margin")
    table = Table.create(a, "2d10-edge", {"edge_recovery": "complex"}, title="Session 1")
    try:
        events_of(table, type="add-character", name="Kael", sheet=KAEL)
        events_of(table, type="add-character", name="Spy", sheet=KAEL, hidden=True)
        events_of(table, type="damage", target="Kael", dice=2, faces=[6, 6], armor=False)
        events_of(table, type="spend-edge", character="Kael", purpose="lessen-injury")
        events_of(table, type="add-condition", character="Kael", name="poisoned")
        events_of(table, type="add-condition", character="Kael", name="marked", gm_only=True)
        events_of(table, type="set-counter", character="Kael", name="ammo", value=2, max=6)
        events_of(table, type="alias", name="hit", line="damage kael 1")
        before = table.state.characters["kael"]
        assert isinstance(before, EdgeCharacter)
        spy_before = table.state.characters["spy"]
    finally:
        table.close()
    code, out, err = run_margin("new", b, "--from", a)
    assert code == 0, err
    assert "from" in out
    code, out, err = run_margin("verify", b)
    assert code == 0, err
    table = Table.open(b, readonly=True)
    try:
        state = table.state
        kael = state.characters["kael"]
        assert isinstance(kael, EdgeCharacter)
        assert (kael.damage, kael.edge) == (before.damage, before.edge)
        assert before.damage > 0
        assert before.edge == 2
        assert [(i.points, i.severity) for i in kael.injuries] == [
            (i.points, i.severity) for i in before.injuries
        ]
        assert [c.name for c in kael.conditions] == ["poisoned", "marked"]
        assert kael.counters["ammo"].value == 2
        assert state.characters["spy"].hidden
        assert spy_before.hidden
        assert state.options["edge_recovery"] == "complex"
        assert state.title == "Session 1"
        assert state.aliases == {"hit": "damage kael 1"}
        # what players get: Kael arrives, the spy and the GM's own condition do not
        code, out, _ = run_margin("log", b, "--as", "Kael", "--json")
        assert "spy" not in out.lower()
        assert "marked" not in out
        code, out, _ = run_margin("state", b, "--as", "Kael", "--json")
        shown = json.loads(out)["characters"]
        assert list(shown) == ["kael"]
        assert [c["name"] for c in shown["kael"]["conditions"]] == ["poisoned"]
    finally:
        table.close()


def test_new_from_refuses_a_missing_table_and_another_system(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.margin"), str(tmp_path / "b.margin")
    code, _, err = run_margin("new", b, "--from", a)
    assert code != 0
    assert "a.margin" in err
    assert err.count("\n") == 1
    Table.create(a, "2d6-effect").close()
    code, _, err = run_margin("new", b, "--from", a, "--system", "2d10-edge")
    assert code != 0
    assert "2d6-effect" in err
    assert not Path(b).exists()


@pytest.fixture
def edge(tmp_path: Path):
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    yield table
    table.close()


def test_a_sheet_file_in_json_or_toml_goes_into_the_record(edge: Table, tmp_path: Path) -> None:
    (tmp_path / "kael.json").write_text(json.dumps(KAEL), encoding="utf-8")
    (tmp_path / "mook.toml").write_text(
        'health = 12\nweapons = ["punch"]\n[attributes]\nAG = 2\n', encoding="utf-8"
    )
    for line in (
        f"add Kael from {tmp_path / 'kael.json'}",
        f"add Mook x4 npc from {tmp_path / 'mook.toml'}",
    ):
        command = parse_line(line, edge.state, SheetFiles().read).command
        assert command is not None
        edge.execute(command)
    added = [
        r.event for r in edge.store.records() if r.event.__struct_config__.tag == "character.added"
    ]
    assert [e.name for e in added] == ["Kael", "Mook 1", "Mook 2", "Mook 3", "Mook 4"]
    assert added[0].sheet["skills"]["melee"]["ranks"] == 3
    assert all(e.npc and e.sheet["attributes"] == {"AG": 2} for e in added[1:])
    # the record holds the sheet, never the file's name
    assert not any("toml" in json.dumps(e.sheet) for e in added)


@pytest.mark.parametrize(
    ("name", "text", "match"),
    [
        ("missing.json", None, "sheet .*missing.json: no such file"),
        ("bad.json", '{"health": 12,', "not JSON: .*; a .toml file is read as TOML"),
        ("bad.toml", "health = = 12", "not valid TOML"),
        ("list.json", "[1, 2]", "a sheet is an object of fields, not list"),
        ("wrong.json", '{"health": "lots"}', "sheet.health: expected a whole number"),
        ("stray.toml", "wings = 2", "sheet.wings: unknown field"),
    ],
)
def test_a_sheet_file_that_cannot_be_used_is_refused_in_one_line(
    edge: Table, tmp_path: Path, name: str, text: str | None, match: str
) -> None:
    if text is not None:
        (tmp_path / name).write_text(text, encoding="utf-8")
    before = edge.projection.seq

    def add_from_the_file() -> None:
        """The file is read as the line is read, or when the command runs: either may refuse."""
        command = parse_line(
            f"add Kael from {tmp_path / name}", edge.state, SheetFiles().read
        ).command
        assert command is not None
        edge.execute(command)

    with pytest.raises(RuleError, match=match) as caught:
        add_from_the_file()
    assert "\n" not in str(caught.value)
    assert edge.projection.seq == before


def read_soon(sheets: SheetFiles, name: str) -> str:
    """The one line ``sheets.read(name)`` is refused with; a read that hangs fails the test."""
    caught: list[BaseException] = []

    def read() -> None:
        try:
            sheets.read(name)
        except BaseException as exc:
            caught.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(20)
    assert not reader.is_alive(), f"reading {name} hangs"
    assert len(caught) == 1, f"{name} was read"
    assert isinstance(caught[0], RuleError), caught[0]
    refusal = str(caught[0])
    assert "\n" not in refusal
    return refusal


def test_only_a_regular_file_is_read_as_a_sheet(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    local = SheetFiles()
    assert read_soon(local, str(fifo)) == (
        f"sheet {fifo}: not a regular file (a pipe or a device); give a sheet file"
    )
    assert "not a regular file" in read_soon(local, "/dev/zero")
    assert read_soon(local, "kael\0.json") == "sheet kael\0.json: no such file"
    assert read_soon(local, str(tmp_path)) == f"sheet {tmp_path}: a folder, not a sheet file"
    big = tmp_path / "big.json"
    big.write_text('{"notes": "' + "x" * MAX_BYTES + '"}', encoding="utf-8")
    assert "larger than a sheet can be" in read_soon(local, str(big))


def test_the_tables_own_file_is_never_opened_as_a_sheet(edge: Table, tmp_path: Path) -> None:
    name = str(tmp_path / "t.margin")
    sheets = SheetFiles(table=name)
    assert read_soon(sheets, name) == f"sheet {name}: the table's own file, not a sheet"
    edge.execute(Note(text="the locks held"))  # its connection still writes


def test_the_tables_file_put_at_a_sheets_name_after_the_check_keeps_the_tables_locks(
    edge: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = str(tmp_path / "t.margin")
    name = str(tmp_path / "kael.json")
    os.link(table, name)  # the table, at a sheet's name, once the name was checked
    decoy = tmp_path / "decoy.json"
    decoy.write_text("{}", encoding="utf-8")
    stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, **kw: stat(decoy if str(p) == name else p, **kw))
    refusal = read_soon(SheetFiles(table=table), name)
    monkeypatch.undo()
    assert refusal == f"sheet {name}: the table's own file, not a sheet"
    # this process still holds its locks: a process that opens and closes the table
    # beside it leaves its write-ahead log alone
    assert margin_process("log", table).returncode == 0
    assert Path(table + "-wal").exists()
    edge.execute(Note(text="the locks held"))
    assert "the locks held" in margin_process("log", table).stdout


@pytest.mark.parametrize(
    ("suffix", "text", "match"),
    [
        (".toml", "born = 1979-05-27", r"born: a date, which a sheet cannot hold"),
        (".toml", "at = 1979-05-27T07:32:00Z", r"at: a date and time, which"),
        (".toml", "[skills]\nwake = 07:32:00", r"skills.wake: a time of day, which"),
        (".toml", "[[kit]]\nmade = 2020-01-01", r"kit\[0\].made: a date, which"),
        (".toml", "health = " + "9" * 5000, "not TOML margin accepts: a number too long"),
        (".toml", "health = " + "9" * 101, r"\$.health: number too large"),
        (".toml", "health = inf", "health: inf is not a number a sheet holds"),
        (".toml", "health = nan", "health: nan is not a number a sheet holds"),
        (".toml", "x = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
        (".toml", "a = " + "[" * 40 + "]" * 40, r"\$.a\[0\].*: nested more than 32 deep"),
        (".toml", ".".join(["a"] * 40) + " = 1", "nested more than 32 deep"),
        (".json", '{"health": NaN}', "not JSON: .*; a .toml file is read as TOML"),
        (".json", '{"health": -Infinity}', "not JSON: "),
        (".json", '{"health": 1e999}', "not JSON margin accepts: Number out of range"),
        (".json", '{"health": ' + "9" * 5000 + "}", "Integer value out of range"),
        (".json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than 32 deep"),
        (".json", '{"notes": "\\ud800"}', "surrogate pair"),
    ],
)
def test_values_no_sheet_holds_are_refused_in_one_line(
    tmp_path: Path, suffix: str, text: str, match: str
) -> None:
    path = tmp_path / f"hostile{suffix}"
    path.write_text(text, encoding="utf-8")
    refusal = read_soon(SheetFiles(), str(path))
    assert refusal.startswith(f"sheet {path}: ")
    assert re.search(match, refusal), refusal


def test_a_hosted_gm_reads_sheets_only_inside_the_hosts_folder(tmp_path: Path) -> None:
    folder = tmp_path / "sheets"
    (folder / "party").mkdir(parents=True)
    (folder / "party" / "kael.json").write_text(json.dumps(KAEL), encoding="utf-8")
    secret = tmp_path / "secret.toml"
    secret.write_text('password = "hunter2"\n', encoding="utf-8")
    (folder / "out.toml").symlink_to(secret)
    (folder / "gone.toml").symlink_to(tmp_path / "nothing.toml")
    hosted = SheetFiles(hosted=True, folder=folder)
    assert hosted.read("party/kael.json") == KAEL
    # outside the folder is answered as missing is: nothing tells which files exist
    for name in ("../secret.toml", str(secret), "out.toml", "gone.toml", "missing.toml",
                 "party/../../secret.toml", "~/.ssh/id_ed25519", "/etc/passwd", "a\0b"):  # fmt: skip
        assert read_soon(hosted, name) == f"sheet {name}: no such file in the host's sheets folder"
    assert read_soon(SheetFiles(hosted=True), "party/kael.json") == (
        f"sheet party/kael.json: {HOSTED_OFF}"
    )
    assert "--sheets DIR" in HOSTED_OFF


def test_a_group_takes_the_next_numbers_and_commands_reach_every_member(edge: Table) -> None:
    events_of(edge, type="add-character", name="Guard", count=2, sheet={"health": 10})
    events_of(edge, type="add-character", name="Guard", count=2, sheet={"health": 10})
    assert [c.name for c in edge.state.characters.values()] == [f"Guard {n}" for n in (1, 2, 3, 4)]
    records = edge.execute(parse_line("damage guard 1d6 no-armor", edge.state).command)  # type: ignore[arg-type]
    hurt = {r.event.target for r in records if r.event.__struct_config__.tag == "edge.damage"}
    assert hurt == {"guard-1", "guard-2", "guard-3", "guard-4"}
    assert len({r.command for r in records}) == 1  # one command: one undo takes it all back


def test_margin_log_lists_the_records_about_one_character_or_holding_a_text(tmp_path: Path) -> None:
    path = str(tmp_path / "t.margin")
    table = Table.create(path, "2d6-effect")
    try:
        events_of(table, type="add-character", name="Vex")
        events_of(table, type="add-character", name="Mira")
        events_of(table, type="add-character", name="Spy", hidden=True)
        events_of(table, type="add-condition", character="Vex,Mira", name="prone")
        events_of(table, type="add-condition", character="Spy", name="prone")
        events_of(table, type="note", text="the lights go out")
    finally:
        table.close()
    code, out, _ = run_margin("log", path, "--about", "vex")
    assert code == 0
    assert len(out.splitlines()) == 2
    assert "Vex joins" in out
    code, out, _ = run_margin("log", path, "--grep", "PRONE")
    assert code == 0
    assert len(out.splitlines()) == 3
    code, out, _ = run_margin("log", path, "--grep", "prone", "--as", "Mira")
    assert code == 0
    assert len(out.splitlines()) == 2
    assert "spy" not in out
    # a player cannot learn that a hidden character exists by naming it
    code, _, err = run_margin("log", path, "--about", "Spy", "--as", "Mira")
    assert code != 0
    assert "no such character" in err
    assert "Spy" in err.split("(")[0]
    assert "Spy" not in err.split("(")[1]
