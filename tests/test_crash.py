"""A writer killed with SIGKILL loses nothing it acknowledged and leaves nothing half-written.

Two ways to die: ``margin do`` killed at a random moment of a fast stream of
commands, and a writer held inside an open transaction (its rows inserted,
some already spilled to the WAL file, the COMMIT not yet run) and killed there.
Afterwards every acknowledged command is in the log with exactly the records
it was acknowledged with, no command is present in part, the hash chain
verifies, and the table takes new commands.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
from collections import defaultdict
from pathlib import Path

import pytest
from support import margin_process, margin_writer

from margin.events import open_store

pytestmark = pytest.mark.slow


def log_by_command(path: Path | str) -> tuple[list[int], dict[str, list[int]], list[str]]:
    """Every sequence number, each command's sequence numbers, and commands in log order."""
    with open_store(path, readonly=True) as store:
        seqs: list[int] = []
        by_command: dict[str, list[int]] = defaultdict(list)
        order: list[str] = []
        for record in store.records():
            seqs.append(record.seq)
            if record.command not in by_command:
                order.append(record.command)
            by_command[record.command].append(record.seq)
    return seqs, dict(by_command), order


def assert_sound_after_crash(
    path: Path | str, acked: dict[str, list[int]]
) -> tuple[int, list[str]]:
    """The checks shared by both crash tests; the last sequence number and unacknowledged commands."""
    result = margin_process("verify", str(path))
    assert result.returncode == 0, result.stderr
    assert "chain intact" in result.stdout

    seqs, by_command, order = log_by_command(path)
    assert seqs == list(range(1, len(seqs) + 1)), "sequence numbers must be gapless from 1"
    for command, own in by_command.items():
        assert own == list(range(own[0], own[-1] + 1)), f"command {command} is not contiguous"
    for command, (first, last) in acked.items():
        assert command in by_command, f"acknowledged command {command} is missing"
        assert by_command[command] == list(range(first, last + 1)), (
            f"acknowledged command {command} has records {by_command[command]}, "
            f"acknowledged as {first}..{last}"
        )
    # The creation record is the only one no acknowledgement covers, except
    # that the very last command may have committed just before its
    # acknowledgement could be written.
    unacked = [c for c in order[1:] if c not in acked]
    assert len(unacked) <= 1
    if unacked:
        assert unacked[0] == order[-1]
    return seqs[-1] if seqs else 0, unacked


def commands() -> list[str]:
    """A long stream of ordinary commands, each producing exactly one record."""
    lines: list[dict[str, object]] = []
    for i in range(20000):
        kind = i % 5
        if kind == 0:
            lines.append({"type": "add-character", "name": f"Hero {i}"})
        elif kind == 1:
            lines.append({"type": "roll", "actor": f"Hero {i - 1}", "dice": "3d10kh2"})
        elif kind == 2:
            lines.append({"type": "note", "text": f"note {i}"})
        elif kind == 3:
            lines.append({"type": "roll", "actor": "gm", "dice": "2d6+1", "secret": True})
        else:
            lines.append({"type": "undo"})
    return [json.dumps(line) + "\n" for line in lines]


def test_sigkill_during_a_margin_do_stream(table_name: str) -> None:
    path = table_name
    assert margin_process("new", str(path), "--system", "2d10-edge").returncode == 0
    lines = commands()
    kill_after = random.Random(5).randrange(150, 600)  # seeded: a failure can be rerun

    proc = margin_writer(str(path))
    assert proc.stdin is not None
    assert proc.stdout is not None

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for line in lines:
                proc.stdin.write(line)
                proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    replies = []
    try:
        for raw in proc.stdout:
            replies.append(json.loads(raw))
            if len(replies) == kill_after:
                os.kill(proc.pid, signal.SIGKILL)
                break
        # Lines already flushed before the kill were acknowledged too.
        for raw in proc.stdout:
            if raw.endswith("\n"):
                replies.append(json.loads(raw))
    finally:
        proc.kill()
        proc.wait(timeout=10)
        feeder.join(timeout=10)
    assert proc.returncode == -signal.SIGKILL, "the writer must die mid-stream, not finish"
    assert len(replies) < len(lines)

    failures = [r for r in replies if "error" in r]
    assert not failures, failures[:3]
    acked = {r["command"]: r["seq"] for r in replies}
    assert len(acked) == len(replies)

    last, unacked = assert_sound_after_crash(path, acked)
    assert last >= max(seq[1] for seq in acked.values())

    # The killed writer's table takes new commands right after its last record.
    again = margin_process("do", str(path), stdin='{"type": "note", "text": "after the crash"}\n')
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["seq"] == [last + 1, last + 1]
    assert margin_process("verify", str(path)).returncode == 0
    state = margin_process("state", str(path), "--json")
    assert state.returncode == 0, state.stderr
    assert json.loads(state.stdout)["seq"] == last + 1


#: A writer that appends commands of several events each through the store,
#: signed as the GM, printing each acknowledgement once ``append`` has returned,
#: and that stops for good right before the COMMIT of command number ``hold``.
WRITER = textwrap.dedent(
    """
    import json, sys, time
    from margin.events import Draft, Noted, SQLiteStore
    from margin.tui.table.keys import sign_as_gm

    path, hold = sys.argv[1], int(sys.argv[2])
    store = sign_as_gm(SQLiteStore(path))

    class Gate:
        # Stands in for the connection; passes everything through but the held COMMIT.
        def __init__(self, db):
            self.db = db
            self.count = 0

        def execute(self, sql, *args):
            if sql == "COMMIT" and self.count == hold:
                print(json.dumps({"holding": self.count}), flush=True)
                time.sleep(3600)
            return self.db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.db, name)

    gate = store._db = Gate(store._db)
    for k in range(hold + 1):
        # Small commands of 1..7 events; the held one is big enough that
        # SQLite spills its uncommitted pages into the WAL file.
        n = 600 if k == hold else 1 + k % 7
        size = 8000 if k == hold else 50
        command = f"k{k:04d}-n{n}"
        drafts = [Draft(Noted(text=f"{command}/{i} " + "x" * size)) for i in range(n)]
        records = store.append(drafts, store.last_seq, command=command)
        print(json.dumps({"command": command, "seq": [records[0].seq, records[-1].seq]}), flush=True)
        gate.count += 1
    """
)


def test_sigkill_inside_an_open_transaction(tmp_path: Path) -> None:
    path = tmp_path / "table.margin"
    assert margin_process("new", str(path), "--system", "d100-under").returncode == 0
    hold = random.Random(7).randrange(20, 60)  # seeded: a failure can be rerun
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(hold)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acked: dict[str, list[int]] = {}
    wal = Path(str(path) + "-wal")
    wal_before = 0
    try:
        for raw in proc.stdout:
            reply = json.loads(raw)
            if "holding" in reply:
                os.kill(proc.pid, signal.SIGKILL)
                break
            acked[reply["command"]] = reply["seq"]
            wal_before = wal.stat().st_size
        else:
            raise AssertionError(
                f"the writer ended early: {proc.stderr.read() if proc.stderr else ''}"
            )
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert len(acked) == hold
    # The held transaction had written pages into the WAL file before it died.
    assert wal.stat().st_size > wal_before + 1_000_000

    last, unacked = assert_sound_after_crash(path, acked)
    assert unacked == [], "the held command never committed, so none of it may show"
    assert last == max(seq[1] for seq in acked.values())
    _, by_command, _ = log_by_command(path)
    for command, own in by_command.items():
        if command in acked:
            assert len(own) == int(command.rsplit("-n", 1)[1])

    again = margin_process("do", str(path), stdin='{"type": "note", "text": "after the crash"}\n')
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["seq"] == [last + 1, last + 1]
    assert margin_process("verify", str(path)).returncode == 0
