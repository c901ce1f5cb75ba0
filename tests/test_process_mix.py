"""The GM's screen holds its table while other margin processes come and go beside it.

The GM plays in a terminal (``margin play`` in a tmux pane) and notes what happens;
beside it run ``margin log``, ``state``, ``export``, ``backup`` and ``verify``, a player
joins with ``margin watch`` and a script writes with ``margin do``. Whatever they open
and close, the screen's table stays whole: its write-ahead log is never deleted under
it, every new process sees its newest record, a writer beside it takes the next
number, and after ``kill -9`` of the screen every note it acknowledged is kept, in
the table file alone once everyone has gone.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hosting import Terminals
from mixing import (
    Acks,
    GmScreen,
    Watcher,
    deleted_files,
    exported,
    judge,
    note_line,
    watch_argv,
)
from support import margin_output, margin_process, need

from margin.events import SQLiteStore
from margin.tui import cli


def _table(folder: Path) -> str:
    path = str(folder / "t.margin")
    margin_output("new", path, "--system", "2d10-edge")
    margin_output("do", path, stdin=json.dumps({"type": "add-character", "name": "Kael"}) + "\n")
    return path


def test_the_gm_screen_keeps_its_table_whatever_runs_beside_it(
    tmp_path: Path, data_home: Path
) -> None:
    need("tmux")
    table = _table(tmp_path)
    key = margin_output("key").strip()
    wal, shm = Path(table + "-wal"), Path(table + "-shm")
    terminals = Terminals(tmp_path)
    acks = Acks()
    try:
        gm = GmScreen(terminals, "gm", table, data_home)
        acks.add("one", gm.note("one"))
        beside = [
            ["log", table],
            ["state", table, "--json"],
            ["export", table],
            ["backup", table, str(tmp_path / "first.margin")],
            ["verify", table, "--key", key],
        ]
        for args in beside:
            done = margin_process(*args)
            assert done.returncode == 0, (args, done.stderr)
            # the screen still has the table open: its log files stay, and stay its own
            assert wal.exists(), f"margin {args[0]} deleted the write-ahead log under the GM"
            assert shm.exists(), f"margin {args[0]} deleted the shared memory under the GM"
            assert not deleted_files(gm.pid, table), f"after margin {args[0]}"
        acks.add("two", gm.note("two"))

        newest = exported(table)[-1]
        assert (newest["seq"], newest["event"]["text"]) == (acks.seqs["two"], "two")
        kael = Watcher(terminals, "kael", watch_argv(table, data_home, "Kael"))
        kael.shows("note: two")

        done = margin_process("do", table, stdin=note_line("beside"))
        assert done.returncode == 0, done.stderr
        seq = json.loads(done.stdout)["seq"]
        assert seq == [acks.seqs["two"] + 1] * 2
        acks.add("beside", seq[0])
        kael.shows("note: beside")

        done = margin_process("backup", table, str(tmp_path / "second.margin"))
        assert done.returncode == 0, done.stderr
        assert judge(exported(str(tmp_path / "second.margin")), acks).sound

        acks.add("three", gm.note("three"))
        acks.add("four", gm.note("four"))
        kael.shows("note: four")
        gm.kill()
        kael.quit()
    finally:
        terminals.close()

    verdict = judge(exported(table), acks)
    assert verdict.sound, verdict
    done = margin_process("verify", table, "--key", key)
    assert done.returncode == 0, done.stderr
    assert "chain intact" in done.stdout
    # everyone has gone: the table file alone holds every record
    assert not wal.exists()
    alone = tmp_path / "alone" / "t.margin"
    alone.parent.mkdir()
    shutil.copyfile(table, alone)
    with SQLiteStore(alone, readonly=True) as copy:
        assert copy.last_seq == verdict.records
    assert judge(exported(str(alone)), acks).sound


def test_telling_a_table_from_an_export_leaves_the_locks_of_a_process_that_holds_it(
    tmp_path: Path,
) -> None:
    """``margin verify`` asks whether it was given a table or an export before it opens
    either, and may run in a process (a test, a screen) that holds the table open."""
    table = _table(tmp_path)
    with SQLiteStore(table) as holder:
        assert not cli._is_export(table)
        # a margin beside it closes the table: it is not the last, so it folds nothing away
        assert margin_process("log", table).returncode == 0
        assert Path(table + "-wal").exists(), "asking dropped this process's locks"
        assert holder.last_seq == 2
    dump = tmp_path / "t.jsonl"
    dump.write_text(margin_output("export", table), encoding="utf-8")
    assert cli._is_export(str(dump))
