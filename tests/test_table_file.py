"""A table on disk: one file when closed, copied at any time, readable from anywhere, any name.

These tests run margin in separate processes, as users do: several
processes with one table open is where a table becomes several files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import MARGIN, margin_process, margin_writer, run_margin

from margin.events import SQLiteStore


def notes(start: int, count: int) -> str:
    return "".join(
        json.dumps({"type": "note", "text": f"note {i}"}) + "\n"
        for i in range(start, start + count)
    )


#: A process that opens a table (for writing, or read-only as a watcher does),
#: says "open", appends what it reads on standard input as notes if it writes,
#: and closes the table when its input ends.
HOLDER = textwrap.dedent(
    """
    import sys
    from margin.core.commands import Note
    from margin.tui.table.reader import LiveTable

    path, mode = sys.argv[1], sys.argv[2]
    table = LiveTable.open_live(path, readonly=mode == "watch", lens=mode == "watch")
    print("open", flush=True)
    for line in sys.stdin:
        if mode == "play":
            table.execute(Note(text=line.strip()))
        else:
            table.poll()
        print(table.projection.seq, flush=True)
    table.close()
    """
)


def holder(path: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "open\n", proc.stderr.read() if proc.stderr else ""
    return proc


def ask(proc: subprocess.Popen[str], line: str) -> str:
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return proc.stdout.readline().strip()


def finish(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""


def test_gm_quits_before_the_watcher_and_the_table_file_alone_has_every_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.margin"
    assert margin_process("demo", str(path)).returncode == 0
    before = int(json.loads(margin_process("state", str(path), "--json").stdout)["seq"])
    gm = holder(path, "play")
    watcher = holder(path, "watch")
    for i in range(30):
        assert int(ask(gm, f"round {i}")) == before + i + 1
    assert int(ask(watcher, "look")) == before + 30
    assert Path(f"{path}-wal").exists()  # while both are open the log is in two files
    finish(gm)
    finish(watcher)  # the watcher closes last: it must leave one file behind

    assert sorted(p.name for p in tmp_path.iterdir()) == ["session.margin"]
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    shutil.copy(path, elsewhere / "session.margin")
    result = margin_process("verify", str(elsewhere / "session.margin"))
    assert result.returncode == 0, result.stderr
    assert f"{before + 30} records checked from session.margin;" in result.stdout


def test_verify_says_when_records_are_still_in_the_wal_file(tmp_path: Path) -> None:
    path = tmp_path / "t.margin"
    assert margin_process("new", str(path), "--system", "d100-under").returncode == 0
    gm = holder(path, "play")
    for i in range(5):
        ask(gm, f"n{i}")
    result = margin_process("verify", str(path))
    assert result.returncode == 0, result.stderr
    assert "6 records checked from t.margin (1) and t.margin-wal (5:" in result.stdout
    assert "margin backup" in result.stdout
    finish(gm)
    assert "6 records checked from t.margin;" in margin_process("verify", str(path)).stdout


@pytest.mark.slow
def test_backup_while_another_process_appends(tmp_path: Path) -> None:
    path = tmp_path / "live.margin"
    assert margin_process("new", str(path), "--system", "2d10-edge").returncode == 0
    writer = margin_writer(str(path))
    assert writer.stdin is not None
    assert writer.stdout is not None
    copies = []
    try:
        for round_ in range(6):
            writer.stdin.write(notes(round_ * 200, 200))
            writer.stdin.flush()
            writer.stdout.readline()  # the writer is under way
            dest = tmp_path / f"copy{round_}.margin"
            result = margin_process("backup", str(path), str(dest))
            assert result.returncode == 0, result.stderr
            copies.append(dest)
    finally:
        # its other replies are read as it ends: a full pipe would hold the writer up forever
        writer.communicate(timeout=60)
    assert writer.returncode == 0
    counts = []
    for dest in copies:
        assert not Path(f"{dest}-wal").exists()
        assert not Path(f"{dest}-journal").exists()
        verified = run_margin("verify", str(dest))
        assert verified.code == 0, verified.err
        with SQLiteStore(dest, readonly=True) as copy, SQLiteStore(path, readonly=True) as live:
            rows = list(copy.rows())
            counts.append(len(rows))
            # each copy is the live table as it was at one moment: a prefix of its records
            assert rows == list(live.rows(0, len(rows)))
    assert counts == sorted(counts)
    assert counts[-1] > 1
    assert margin_process("backup", str(path), str(copies[0])).returncode == 1  # never over a file
    assert not list(tmp_path.glob(".*partial"))


@pytest.mark.parametrize(
    "name", ["a#b.margin", "what?.margin", "%41.margin", "séance ✓ 表.margin", "session.margin#2"]
)
def test_any_file_name_is_the_file_opened(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    assert run_margin("demo", str(path)).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    done = run_margin("do", str(path), stdin=notes(0, 3))
    assert done.code == 0, done.err
    assert run_margin("verify", str(path)).code == 0
    exported = run_margin("export", str(path))
    dump = tmp_path / "dump.jsonl"
    dump.write_text(exported.out)
    other = tmp_path / ("imported " + name)
    assert run_margin("import", str(dump), str(other)).code == 0
    backup = tmp_path / ("backup " + name)
    assert run_margin("backup", str(path), str(backup)).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [name, "dump.jsonl", other.name, backup.name]
    )
    assert run_margin("export", str(other)).out == exported.out
    assert run_margin("export", str(backup)).out == exported.out


def test_a_file_whose_name_differs_by_a_suffix_is_not_read(tmp_path: Path) -> None:
    """``session.margin#2`` once opened ``session.margin``: each name is its own table."""
    first = tmp_path / "session.margin"
    assert run_margin("new", str(first), "--system", "2d10-edge").code == 0
    copy = tmp_path / "session.margin#2"
    shutil.copy(first, copy)
    assert run_margin("do", str(copy), stdin=notes(0, 2)).code == 0
    one = json.loads(run_margin("state", str(first), "--json").out)
    two = json.loads(run_margin("state", str(copy), "--json").out)
    assert (one["seq"], two["seq"]) == (1, 3)


# -- reading without write permission ------------------------------------------


def _other_account() -> tuple[int, int] | None:
    """The ids of an unprivileged account when running as root (root reads everything)."""
    if os.geteuid() != 0:
        return None
    import pwd

    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def run_as(ids: tuple[int, int] | None, *args: str) -> tuple[int, str, str]:
    """``margin ARGS`` in a forked process running as ``ids`` (or as this account)."""
    import io
    import traceback

    from margin.tui.cli import main

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its pipes
        code = 99
        try:
            os.close(out_r)
            os.close(err_r)
            if ids is not None:
                os.setgroups([])
                os.setgid(ids[1])
                os.setuid(ids[0])
            sys.stdout = io.TextIOWrapper(io.FileIO(out_w, "w"), encoding="utf-8")
            sys.stderr = io.TextIOWrapper(io.FileIO(err_w, "w"), encoding="utf-8")
            sys.stdin = io.StringIO("")
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = int(exc.code or 0)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    os.close(out_w)
    os.close(err_w)
    with os.fdopen(out_r, encoding="utf-8") as f_out, os.fdopen(err_r, encoding="utf-8") as f_err:
        out = f_out.read()
        err = f_err.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out, err


@pytest.fixture
def shared_folder(tmp_path: Path):
    """A folder others may read but not write, holding a demo table with a few notes."""
    import tempfile

    from margin.tui.table.demo import build_demo
    from margin.tui.table.reader import LiveTable  # noqa: F401 - loaded before the fork, as `--as` needs it

    folder = Path(tempfile.mkdtemp(prefix="margin-shared-", dir="/tmp"))
    table = build_demo(folder / "gm.margin", "2d10-edge")
    table.close()
    assert margin_process("do", str(folder / "gm.margin"), stdin=notes(0, 4)).returncode == 0
    (folder / "gm.margin").chmod(0o644)
    folder.chmod(0o555 if os.geteuid() != 0 else 0o755)
    yield folder
    folder.chmod(0o755)
    shutil.rmtree(folder)


def reads_everything(ids: tuple[int, int] | None, path: Path, seq: int) -> None:
    code, out, err = run_as(ids, "verify", str(path))
    assert code == 0, err
    assert f"{seq} records checked" in out
    code, out, err = run_as(ids, "state", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["seq"] == seq
    code, out, err = run_as(ids, "log", str(path), "--as", "Kael")
    assert code == 0, err
    assert out
    code, out, err = run_as(ids, "export", str(path))
    assert code == 0, err
    assert out.endswith("}}\n")
    import tempfile

    elsewhere = Path(tempfile.mkdtemp(prefix="margin-copies-", dir="/tmp"))
    try:
        elsewhere.chmod(0o777)
        code, out, err = run_as(ids, "backup", str(path), str(elsewhere / "copy.margin"))
        assert code == 0, err
        assert f"copied {seq} records" in out
    finally:
        shutil.rmtree(elsewhere)


def test_another_account_reads_a_table_in_a_folder_it_cannot_write(shared_folder: Path) -> None:
    ids = _other_account()
    path = shared_folder / "gm.margin"
    seq = json.loads(margin_process("state", str(path), "--json").stdout)["seq"]
    before = sorted(p.name for p in shared_folder.iterdir())

    reads_everything(ids, path, seq)  # nobody has the table open: one file
    gm = holder(path, "play")  # the GM's screen is open: the log is in two files
    try:
        ask(gm, "the GM plays on")
        reads_everything(ids, path, seq + 1)
    finally:
        finish(gm)
    reads_everything(ids, path, seq + 1)

    code, out, err = run_as(ids, "do", str(path))
    assert code == 1
    assert "read-only" in err
    assert err.count("\n") == 1
    assert sorted(p.name for p in shared_folder.iterdir()) == before


def test_a_table_left_in_wal_mode_by_an_earlier_margin_reads_from_a_locked_folder(
    shared_folder: Path,
) -> None:
    import sqlite3

    path = shared_folder / "gm.margin"
    seq = json.loads(margin_process("state", str(path), "--json").stdout)["seq"]
    shared_folder.chmod(0o755)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    db.close()
    shared_folder.chmod(0o555 if os.geteuid() != 0 else 0o755)
    assert sorted(p.name for p in shared_folder.iterdir()) == ["gm.margin"]
    assert path.read_bytes()[18:20] == b"\x02\x02"  # the header says WAL
    reads_everything(_other_account(), path, seq)


# -- a full disk ----------------------------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path):
    """A 1 MiB file system (tmpfs), mounted for the test and removed after it."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root")
    place = tmp_path / "small"
    place.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(place)],
        capture_output=True,
        text=True,
    )
    assert mounted.returncode == 0, f"mount failed: {mounted.stderr}"
    yield place
    subprocess.run(["umount", "-l", str(place)], check=True)


def big_notes(count: int) -> str:
    return "".join(
        json.dumps({"type": "note", "text": f"{i} " + "x" * 3000}) + "\n" for i in range(count)
    )


def test_a_full_disk_answers_every_line_names_the_file_and_leaves_no_empty_table(
    full_disk: Path, tmp_path: Path
) -> None:
    path = full_disk / "t.margin"
    assert margin_process("new", str(path), "--system", "2d10-edge").returncode == 0
    result = margin_process("do", str(path), stdin=big_notes(600))
    assert result.returncode == 1
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(replies) == 600, "every line gets an answer"
    first_error = next(i for i, reply in enumerate(replies) if "error" in reply)
    assert 0 < first_error < 600
    assert replies[first_error]["error"] == (
        f"line {first_error + 1}: {path}: the disk is full; nothing more was written"
    )
    assert all(
        reply["error"].startswith(f"line {i + 1}: not run: {path}: the disk is full")
        for i, reply in enumerate(replies[first_error + 1 :], first_error + 1)
    )
    verified = margin_process("verify", str(path))
    assert verified.returncode == 0, verified.stderr
    assert f"{first_error + 1} records checked" in verified.stdout  # creation + the acknowledged

    for command in (["new", "--system", "d100-under"], ["demo"]):
        fresh = full_disk / f"{command[0]}.margin"
        made = margin_process(command[0], str(fresh), *command[1:])
        assert made.returncode == 1
        assert made.stderr == f"margin: {fresh}: the disk is full; nothing more was written\n"
        assert not fresh.exists()

    dump = tmp_path / "dump.jsonl"
    with dump.open("w") as out:
        exported = subprocess.run([*MARGIN, "export", str(path)], stdout=out, text=True)
    assert exported.returncode == 0
    target = full_disk / "imported.margin"
    imported = margin_process("import", str(dump), str(target))
    assert imported.returncode == 1
    assert imported.stderr == f"margin: {target}: the disk is full; nothing more was written\n"
    assert sorted(p.name for p in full_disk.iterdir() if not p.name.startswith("t.margin")) == []

    with (full_disk / "export.jsonl").open("w") as out:
        failed = subprocess.run(
            [*MARGIN, "export", str(path)], stdout=out, stderr=subprocess.PIPE, text=True
        )
    assert failed.returncode == 1
    assert failed.stderr == (
        "margin: standard output: cannot write the export (No space left on device)\n"
    )


def test_nothing_is_written_over_a_table_or_at_its_logs_names(tmp_path: Path) -> None:
    table = str(tmp_path / "t.margin")
    other = str(tmp_path / "other.margin")
    for path in (table, other):
        assert run_margin("new", path, "--system", "2d10-edge").code == 0
    before = Path(table).read_bytes(), Path(other).read_bytes()
    for out in (table, other, table + "-wal", table + "-shm", table + "-journal"):
        code, _, err = run_margin("recap", table, "-o", out)
        assert (code, err) == (
            1,
            f"margin: -o {out}: a margin table (or its log); give another file name\n",
        )
        assert not Path(out + ".partial").exists()
    dump = tmp_path / "t.jsonl"
    dump.write_text(run_margin("export", table).out, encoding="utf-8")
    for suffix, args in (
        ("-wal", ["new", table + "-wal", "--system", "2d10-edge"]),
        ("-wal", ["backup", other, table + "-wal"]),
        ("-shm", ["import", str(dump), table + "-shm"]),
        ("-journal", ["branch", other, table + "-journal", "--at", "1"]),
        ("-wal", ["salvage", other, table + "-wal"]),
    ):
        code, _, err = run_margin(*args)
        assert code == 1, (args, err)
        assert f"the name of t.margin's own {suffix} file; choose another path" in err, err
    assert (Path(table).read_bytes(), Path(other).read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.margin", "t.jsonl", "t.margin"]


def test_no_table_is_made_where_a_removed_tables_log_is_left(tmp_path: Path) -> None:
    table = tmp_path / "t.margin"
    other = str(tmp_path / "other.margin")
    assert run_margin("new", other, "--system", "2d10-edge").code == 0
    dump = tmp_path / "t.jsonl"
    dump.write_text(run_margin("export", other).out, encoding="utf-8")
    # a process killed with the table open leaves its -wal and -shm; then the table is removed
    script = (
        "import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
        "db.execute('PRAGMA journal_mode=WAL'); db.execute('CREATE TABLE t (a)'); "
        "db.commit(); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", script, str(table)], check=True)
    table.unlink()
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["other.margin", "t.jsonl", "t.margin-shm", "t.margin-wal"]
    for args in (
        ["new", str(table), "--system", "2d10-edge"],
        ["demo", str(table), "--system", "d100-under"],
        ["backup", other, str(table)],
        ["import", str(dump), str(table)],
        ["branch", other, str(table), "--at", "1"],
    ):
        code, _, err = run_margin(*args)
        assert code == 1, (args, err)
        assert err == (
            f"margin: {table}: t.margin-wal and t.margin-shm are left from a table once at "
            "this path, removed without them (SQLite would read them into the new table); "
            "once no margin has that table open, remove them, or choose another path for "
            + err.split("choose another path for ", 1)[1]
        ), err
        assert sorted(p.name for p in tmp_path.iterdir()) == left, args
    for side in ("t.margin-wal", "t.margin-shm"):
        (tmp_path / side).unlink()
    assert run_margin("new", str(table), "--system", "2d10-edge").code == 0
    assert run_margin("verify", str(table)).code == 0
