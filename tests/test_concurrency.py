"""Many processes appending to one table at once: no record lost or duplicated, no gap.

``margin do`` writers wait for the table and decide each command against it as it
stands once their turn comes; store-level writers append commands of several events
each and retry on ``ConcurrencyError``. Either way the log ends up gapless, every
acknowledged command holds exactly its own records, contiguous, and the chain
verifies. Sixteen writers beside a process spinning on every core are refused
nothing; on PostgreSQL, with their sessions ended by the server at random, each
line is on the table once or refused alone. Each test runs on a table file and on a
table in PostgreSQL.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any, NamedTuple

import psycopg
import pytest
from pg_server import Server
from support import HELD_NOTE, margin_process, margin_writer, python_process, turn_held

from margin.events import Noted, display_name, open_store
from margin.events.store import WRITE_WAIT

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
    from margin.tui.table.keys import sign_as_gm

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


# -- many writers, a busy machine, lost connections ----------------------------------------

CROWD = 16
EACH = 20


@contextlib.contextmanager
def busy_cores() -> Iterator[None]:
    """A process spinning on every core while the block runs, as on a machine doing more."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in os.sched_getaffinity(0)
    ]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


class Reply(NamedTuple):
    """One reply of a writer: its line, when it came and what it said."""

    line: int
    came: float
    said: dict[str, Any]


def crowd_of_writers(path: str, commands: int) -> list[list[Reply]]:
    """``CROWD`` ``margin do`` writers of ``commands`` notes each, all fed at once: each one's
    replies, timed as they came."""
    procs = [margin_writer(path, "--author", f"w{w}") for w in range(CROWD)]
    replies: list[list[Reply]] = [[] for _ in procs]

    def read(w: int, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for n, line in enumerate(proc.stdout):
            replies[w].append(Reply(n, time.monotonic(), json.loads(line)))

    readers = [threading.Thread(target=read, args=pair) for pair in enumerate(procs)]
    for reader in readers:
        reader.start()
    started = time.monotonic()
    for w, proc in enumerate(procs):
        assert proc.stdin is not None
        proc.stdin.write("".join(note(f"w{w} n{i}") for i in range(commands)))
        proc.stdin.close()
    for w, proc in enumerate(procs):
        proc.wait(timeout=300)
        readers[w].join()
        assert proc.stderr is not None
        assert len(replies[w]) == commands, f"writer {w} stopped: {proc.stderr.read()}"
        proc.stderr.close()
        assert proc.stdout is not None
        proc.stdout.close()
    for each in replies:
        each.insert(0, Reply(-1, started, {}))
    return replies


def check_each_line(path: str, replies: list[list[Reply]], refusals: tuple[str, ...]) -> int:
    """Every line is acknowledged and on the table once, or refused and absent; a refusal says
    one of ``refusals`` and refuses its line only. How many were refused."""
    with open_store(path, readonly=True) as store:
        records = list(store.records())
    texts = Counter(r.event.text for r in records if isinstance(r.event, Noted))
    refused = 0
    for w, each in enumerate(replies):
        for reply in each[1:]:
            text = f"w{w} n{reply.line}"
            if reply.said.get("ok"):
                assert texts[text] == 1, (text, reply)
                first, last = reply.said["seq"]
                assert records[first - 1].command == reply.said["command"]
                assert first == last
            else:
                error = reply.said["error"]
                assert any(reason in error for reason in refusals), error
                assert texts[text] == 0, (text, reply)
                refused += 1
    assert [r.seq for r in records] == list(range(1, len(records) + 1))
    assert sum(texts.values()) == len(records) - 1
    check = margin_process("verify", path)
    assert check.returncode == 0, check.stderr
    return refused


def test_sixteen_writers_on_a_busy_machine_wait_their_turn(table_name: str) -> None:
    """No command is refused because others wrote first: each waits for the table, and only
    one kept waiting past ``WRITE_WAIT`` is refused, with a line that says the table was busy."""
    path = table_name
    assert margin_process("new", path, "--system", "2d10-edge").returncode == 0
    with busy_cores():
        replies = crowd_of_writers(path, EACH)
    busy = f"{display_name(path)}: busy: other writers held the table for {WRITE_WAIT:g} s"
    check_each_line(path, replies, (busy,))
    for each in replies:
        for before, reply in itertools.pairwise(each):
            if "error" in reply.said:
                # refused only once the writer had waited its whole bound for that line; the
                # reader threads stamp replies as they get to them, so a reply read late
                # shortens the interval they see by that lag (a second at most, on a loaded
                # machine), never lengthens it
                assert reply.came - before.came >= WRITE_WAIT - 1.0, reply


def test_sixteen_writers_whose_backends_are_terminated_lose_nothing(
    pg: Server, pg_url: str
) -> None:
    """Sessions ended by the server at random moments: a command lost on the way is sent
    again, so every line is on the table once, or refused alone."""
    assert margin_process("new", pg_url, "--system", "2d10-edge").returncode == 0
    ended = threading.Event()
    terminated = 0

    def terminate() -> None:
        nonlocal terminated
        pick = random.Random(21)
        with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
            while not ended.wait(pick.uniform(0.01, 0.08)):
                pids = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = 'margin' "
                    "AND datname = %s AND pid <> pg_backend_pid() ORDER BY pid",
                    (pg.dbname,),
                ).fetchall()
                if pids:
                    admin.execute("SELECT pg_terminate_backend(%s)", (pick.choice(pids)[0],))
                    terminated += 1

    killer = threading.Thread(target=terminate)
    killer.start()
    try:
        replies = crowd_of_writers(pg_url, EACH)
    finally:
        ended.set()
        killer.join()
    assert terminated >= 10
    lost = "the connection to the database was lost"
    busy = "busy: other writers held the table"
    refused = check_each_line(pg_url, replies, (lost, busy))
    assert refused <= terminated


#: ``margin do`` with a short ``WRITE_WAIT``, to meet its bound without waiting for it long
SHORT_WAIT = textwrap.dedent(
    """
    import sys
    from margin.events import store
    from margin.tui.cli import main

    store.WRITE_WAIT = float(sys.argv[1])
    sys.exit(main(sys.argv[2:]))
    """
)


def test_a_table_held_past_the_bound_refuses_that_line_alone(table_name: str) -> None:
    path = table_name
    assert margin_process("new", path, "--system", "2d10-edge").returncode == 0
    with turn_held(path) as let_go:
        writer = python_process(SHORT_WAIT, "0.3", "do", path)
        assert writer.stdin is not None
        assert writer.stdout is not None
        writer.stdin.write(note("while held"))
        writer.stdin.flush()
        assert json.loads(writer.stdout.readline()) == {
            "error": f"line 1: {display_name(path)}: busy: other writers held the table for "
            "0.3 s; this command was not written: run it again"
        }
        let_go()
    writer.stdin.write(note("once free"))
    writer.stdin.close()
    assert json.loads(writer.stdout.readline())["seq"] == [3, 3]
    assert writer.wait(30) == 1, "a refused line makes the exit status 1"
    writer.stdout.close()
    with open_store(path, readonly=True) as store:
        texts = [getattr(r.event, "text", None) for r in store.records(1)]
    assert texts == [HELD_NOTE, "once free"]
