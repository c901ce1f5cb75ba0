"""Four processes appending to one table at once: no record lost or duplicated, no gap.

``margin do`` writers re-read and re-decide when another process committed
first; store-level writers append commands of several events each and retry on
``ConcurrencyError``. Either way the log ends up gapless, every acknowledged
command holds exactly its own records, contiguous, and the chain verifies.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

from events import Noted, SQLiteStore

MARGIN = [sys.executable, "-m", "tui"]
WRITERS = 4
PER_WRITER = 250


def margin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MARGIN, *args], capture_output=True, text=True, timeout=60)


def author_switches(authors: list[str]) -> int:
    return sum(1 for a, b in zip(authors, authors[1:], strict=False) if a != b)


def test_four_margin_do_writers_at_once(tmp_path: Path) -> None:
    path = tmp_path / "table.margin"
    assert margin("new", str(path), "--system", "2d10-edge").returncode == 0
    procs = [
        subprocess.Popen(
            [*MARGIN, "do", str(path), "--author", f"w{w}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        for w in range(WRITERS)
    ]
    # One command each first, answered, so all four are running before the rush.
    for w, proc in enumerate(procs):
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"type": "note", "text": f"w{w} ready"}) + "\n")
        proc.stdin.flush()
    ready = [json.loads(proc.stdout.readline()) for proc in procs if proc.stdout is not None]
    assert all(r.get("ok") for r in ready), ready
    batches = [
        "".join(
            json.dumps({"type": "note", "text": f"w{w} n{i}"}) + "\n" for i in range(PER_WRITER)
        )
        for w in range(WRITERS)
    ]
    outputs = []
    for proc, batch in zip(procs, batches, strict=True):
        assert proc.stdin is not None
        proc.stdin.write(batch)
        proc.stdin.close()
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        outputs.append((proc.stdout.read(), proc.stderr.read(), proc.wait(timeout=60)))

    replies: list[dict[str, object]] = []
    for w, (out, err, code) in enumerate(outputs):
        assert code == 0, f"writer {w} failed: {err}"
        lines = [json.loads(line) for line in out.splitlines()]
        assert len(lines) == PER_WRITER
        assert all(line.get("ok") for line in lines)
        replies += [ready[w], *lines]
    total = 1 + WRITERS * (PER_WRITER + 1)

    # Acknowledged sequence numbers: each exactly once, together 2..total.
    acked = Counter(seq for r in replies for seq in range(r["seq"][0], r["seq"][1] + 1))
    assert max(acked.values()) == 1, "a sequence number was acknowledged twice"
    assert sorted(acked) == list(range(2, total + 1))

    with SQLiteStore(path, readonly=True) as store:
        records = list(store.records())
    assert [r.seq for r in records] == list(range(1, total + 1))
    texts = Counter(r.event.text for r in records if isinstance(r.event, Noted))
    expected = {f"w{w} n{i}" for w in range(WRITERS) for i in range(PER_WRITER)}
    expected |= {f"w{w} ready" for w in range(WRITERS)}
    assert set(texts) == expected, "a note was lost or invented"
    assert max(texts.values()) == 1, "a note was appended twice"
    for r in replies:
        seq = r["seq"][0]
        assert records[seq - 1].command == r["command"]
    # Each writer's commands keep their order.
    for w in range(WRITERS):
        mine = [r.event.text for r in records if r.author == f"w{w}"]
        assert mine == [f"w{w} ready"] + [f"w{w} n{i}" for i in range(PER_WRITER)]
    # The writers really did run at the same time: one after the other would
    # change author only WRITERS - 1 times after the ready notes.
    assert author_switches([r.author for r in records[1 + WRITERS :]]) > WRITERS - 1

    check = margin("verify", str(path))
    assert check.returncode == 0, check.stderr
    assert f"{total} records" in check.stdout


#: A store-level writer: commands of 1..6 events, appended after the last
#: record it knows, re-reading the head whenever another process got there first.
#: Without the short pause between commands, SQLite's busy handler lets one
#: process keep the lock and the writers would mostly take turns.
WRITER = textwrap.dedent(
    """
    import json, random, sys, time
    from events import ConcurrencyError, Draft, Noted, SQLiteStore

    path, me, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SQLiteStore(path)
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    conflicts = 0
    for k in range(count):
        time.sleep(random.random() / 1000)  # a moment between commands, as a user takes
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
    print(json.dumps({"conflicts": conflicts}))
    """
)


def test_four_store_writers_with_multi_event_commands(tmp_path: Path) -> None:
    path = tmp_path / "table.margin"
    assert margin("new", str(path), "--system", "d100-chance").returncode == 0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"p{w}", str(PER_WRITER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WRITERS)
    ]
    for proc in procs:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    acked: dict[str, list[int]] = {}
    conflicts = 0
    for w, proc in enumerate(procs):
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, f"writer {w} failed: {err}"
        lines = [json.loads(line) for line in out.splitlines()]
        conflicts += lines.pop()["conflicts"]
        assert len(lines) == PER_WRITER
        for line in lines:
            assert line["command"] not in acked
            acked[line["command"]] = line["seq"]

    with SQLiteStore(path, readonly=True) as store:
        records = list(store.records())
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    by_command: dict[str, list[int]] = defaultdict(list)
    for r in records[1:]:
        by_command[r.command].append(r.seq)
        assert isinstance(r.event, Noted) and r.event.text.startswith(r.command + "/")
    assert set(by_command) == set(acked), "a command was lost or invented"
    for command, seqs in by_command.items():
        size = int(command.rsplit("-n", 1)[1])
        assert seqs == list(range(acked[command][0], acked[command][1] + 1))
        assert len(seqs) == size, f"command {command} is not whole"
    texts = Counter(r.event.text for r in records[1:] if isinstance(r.event, Noted))
    assert max(texts.values()) == 1, "an event was appended twice"
    assert len(records) == 1 + sum(len(s) for s in by_command.values())
    # The writers collided and recovered, rather than taking turns.
    assert conflicts > 0
    assert author_switches([r.author for r in records[1:]]) > WRITERS - 1

    check = margin("verify", str(path))
    assert check.returncode == 0, check.stderr
