"""Four processes appending to one table at once: no record lost or duplicated, no gap.

``margin do`` writers re-read and re-decide when another process committed
first; store-level writers append commands of several events each and retry on
``ConcurrencyError``. Either way the log ends up gapless, every acknowledged
command holds exactly its own records, contiguous, and the chain verifies. Each
test runs on a table file and on a table in PostgreSQL.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
from support import margin_process, margin_writer

from margin.events import Noted, open_store

pytestmark = pytest.mark.slow
WRITERS = 4
PER_WRITER = 120
BURST = 10


def note(text: str) -> str:
    return json.dumps({"type": "note", "text": text}) + "\n"


def burst_replies(procs: list[subprocess.Popen[str]]) -> Iterator[dict[str, Any]]:
    """A burst's replies from each writer in turn; a writer that stops fails the test."""
    for w, proc in enumerate(procs):
        assert proc.stdout is not None
        for _ in range(BURST):
            line = proc.stdout.readline()
            assert line, f"writer {w} stopped: {proc.stderr.read() if proc.stderr else ''}"
            yield json.loads(line)


def test_four_margin_do_writers_at_once(table_name: str) -> None:
    path = table_name
    assert margin_process("new", str(path), "--system", "2d10-edge").returncode == 0
    procs = [margin_writer(str(path), "--author", f"w{w}") for w in range(WRITERS)]
    # In rounds: every writer gets its next burst of commands at the same
    # moment, so all four are deciding and appending at once in every round
    # (left to themselves, one process tends to keep SQLite's lock for a while).
    replies: list[dict[str, Any]] = []
    for start in range(0, PER_WRITER, BURST):
        for w, proc in enumerate(procs):
            assert proc.stdin is not None
            burst = range(start, start + BURST)
            proc.stdin.write("".join(note(f"w{w} n{i}") for i in burst))
            proc.stdin.flush()
        for reply in burst_replies(procs):
            assert reply.get("ok"), reply
            replies.append(reply)
    for w, proc in enumerate(procs):
        assert proc.stdin is not None
        assert proc.stderr is not None
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0, f"writer {w} failed: {proc.stderr.read()}"
        proc.stderr.close()
        if proc.stdout is not None:
            proc.stdout.close()
    total = 1 + WRITERS * PER_WRITER

    # Acknowledged sequence numbers: each exactly once, together 2..total.
    acked = Counter(seq for r in replies for seq in range(r["seq"][0], r["seq"][1] + 1))
    assert max(acked.values()) == 1, "a sequence number was acknowledged twice"
    assert sorted(acked) == list(range(2, total + 1))

    with open_store(path, readonly=True) as store:
        records = list(store.records())
    assert [r.seq for r in records] == list(range(1, total + 1))
    texts = Counter(r.event.text for r in records if isinstance(r.event, Noted))
    expected = {f"w{w} n{i}" for w in range(WRITERS) for i in range(PER_WRITER)}
    assert set(texts) == expected, "a note was lost or invented"
    assert max(texts.values()) == 1, "a note was appended twice"
    for r in replies:
        assert records[r["seq"][0] - 1].command == r["command"]
    # Each writer's commands keep their order.
    for w in range(WRITERS):
        mine = [r.event.text for r in records if r.author == f"w{w}"]
        assert mine == [f"w{w} n{i}" for i in range(PER_WRITER)]

    check = margin_process("verify", str(path))
    assert check.returncode == 0, check.stderr
    assert f"{total} records" in check.stdout


#: A store-level writer: commands of 1..6 events, appended after the last
#: record it knows, re-reading the head whenever another process got there
#: first; in rounds of ``burst`` commands started together. Each signs as the GM,
#: as every margin that writes does.
WRITER = textwrap.dedent(
    """
    import json, sys
    from margin.events import ConcurrencyError, Draft, Noted, open_store
    from margin.tui.keys import sign_as_gm

    path, me, count, burst = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = sign_as_gm(open_store(path))
    conflicts = 0
    for k in range(count):
        if k % burst == 0:
            sys.stdin.readline()  # the next round starts for every writer at once
        n = 1 + (k + len(me)) % 6
        command = f"{me}-{k:04d}-n{n}"
        drafts = [Draft(Noted(text=f"{command}/{i}")) for i in range(n)]
        while True:
            try:
                records = store.append(drafts, store.last_seq, command=command, author=me)
                break
            except ConcurrencyError:
                conflicts += 1
                store.refresh()
        print(json.dumps({"command": command, "seq": [records[0].seq, records[-1].seq]}))
        if k % burst == burst - 1:
            sys.stdout.flush()
    print(json.dumps({"conflicts": conflicts}), flush=True)
    """
)


def test_four_store_writers_with_multi_event_commands(table_name: str) -> None:
    path = table_name
    assert margin_process("new", str(path), "--system", "d100-chance").returncode == 0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"p{w}", str(PER_WRITER), str(BURST)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WRITERS)
    ]
    acked: dict[str, list[int]] = {}
    for _ in range(0, PER_WRITER, BURST):
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for reply in burst_replies(procs):
            assert reply["command"] not in acked
            acked[reply["command"]] = reply["seq"]
    conflicts = 0
    for w, proc in enumerate(procs):
        assert proc.stdin is not None
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdin.close()
        conflicts += json.loads(proc.stdout.read())["conflicts"]
        assert proc.wait(timeout=60) == 0, f"writer {w} failed: {proc.stderr.read()}"
        proc.stdout.close()
        proc.stderr.close()
    assert len(acked) == WRITERS * PER_WRITER

    with open_store(path, readonly=True) as store:
        records = list(store.records())
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    by_command: dict[str, list[int]] = defaultdict(list)
    for r in records[1:]:
        by_command[r.command].append(r.seq)
        assert isinstance(r.event, Noted)
        assert r.event.text.startswith(r.command + "/")
    assert set(by_command) == set(acked), "a command was lost or invented"
    for command, seqs in by_command.items():
        size = int(command.rsplit("-n", 1)[1])
        assert seqs == list(range(acked[command][0], acked[command][1] + 1))
        assert len(seqs) == size, f"command {command} is not whole"
    texts = Counter(r.event.text for r in records[1:] if isinstance(r.event, Noted))
    assert max(texts.values()) == 1, "an event was appended twice"
    assert len(records) == 1 + sum(len(s) for s in by_command.values())
    # The writers collided (a stale head) and recovered by re-reading it.
    assert conflicts > 0

    check = margin_process("verify", str(path))
    assert check.returncode == 0, check.stderr
