"""Measure ``margin host`` with a full table over SSH (run by hand, not part of the tests).

    python bench/host.py [--players 20] [--commits 40] [--records 1000000] [--untold]

A table with the demo fight and PLAYERS seated characters (and with
``--records``, a session of that many records after them, as ``bench/length.py``
writes one, its snapshots kept by a first opening) is hosted by a real
``margin host`` process; PLAYERS player sessions and the GM's connect over
SSH (asyncssh clients with a pseudo-terminal, 100x30) and read their screens.
Then:

1. commit to screen: this process appends notes to the table at random
   intervals (80-250 ms); for each note, the time from just before the append
   to the moment each session's terminal output holds it. First with one
   player session alone (the baseline, same run), then with every session.
   Target: p99 under 250 ms across all sessions.
2. memory: the host's and its sessions' proportional set size (PSS: shared
   pages split between the processes that share them), per session.
3. idle CPU: the host and all its sessions' processor time over 10 s with
   nothing happening, as a share of one core.
4. the floor: a bare Textual screen of a seat's shape (``bench/bare_seat.py``: a header,
   a side panel, a log scrolled to a new line, none of margin's work) in a 100x30
   pseudo-terminal, updated as often as the commits come; its processor time an update,
   against what a session of margin spends a commit, and what 21 of them would need.

The host tells its sessions of each commit (``margin.tui.host.commits``); with
``--untold`` it tells them nothing, and each session asks the table 50 times a
second, as sessions did before, for a figure to set beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import itertools
import os
import pty
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).parent))

import length  # noqa: E402

from margin.core.commands import AddCharacter, Note  # noqa: E402
from margin.tui.table.demo import build_demo  # noqa: E402
from margin.tui.table.reader import LiveTable  # noqa: E402
from margin.tui.table.table import Table  # noqa: E402

SIZE = (100, 30)
#: ``margin host`` telling its sessions nothing of commits (``--untold``)
UNTOLD = (
    "from margin.tui.host import host\n"
    "start = host.Host.start\n"
    "async def untold(self):\n"
    "    await start(self)\n"
    "    self.commits.stop()\n"
    "    self.commits = None\n"
    "host.Host.start = untold\n"
    "from margin.tui.cli import main\n"
    "raise SystemExit(main())\n"
)


class Screen(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """One session's terminal output, and when each awaited text first arrived."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.waiting: dict[bytes, asyncio.Future[float]] = {}

    def data_received(self, data: bytes, datatype: object) -> None:
        now = time.perf_counter()
        start = max(0, len(self.data) - 64)
        self.data.extend(data)
        window = bytes(self.data[start:])
        for text, future in list(self.waiting.items()):
            if text in window and not future.done():
                future.set_result(now)
                del self.waiting[text]

    def expect(self, text: str) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[text.encode()] = future
        return future


def processes(root: int) -> list[int]:
    """``root`` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def pss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def connect(port: int, key: asyncssh.SSHKey, ready: str) -> tuple[object, Screen]:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="bench", client_keys=[key], known_hosts=None, agent_path=None
    )
    _, screen = await conn.create_session(
        Screen, term_type="xterm-256color", term_size=SIZE, encoding=None
    )
    await asyncio.wait_for(screen.expect(ready), 60)
    return conn, screen


async def commits(table: Table, screens: list[Screen], count: int, tag: str) -> list[float]:
    """Append ``count`` notes; each session's delay from append to screen, in ms."""
    delays: list[float] = []
    for i in range(count):
        await asyncio.sleep(random.uniform(0.08, 0.25))
        text = f"{tag}-{i:04d}"
        futures = [s.expect(text) for s in screens]
        start = time.perf_counter()
        table.execute(Note(text=text))
        arrived = await asyncio.wait_for(asyncio.gather(*futures), 30)
        delays.extend((t - start) * 1000 for t in arrived)
    return delays


def lengthen(table: Table, path: Path, records: int) -> None:
    """The table's log grown to ``records`` records of a session, and its snapshots (the
    GM's fold, a player's index) kept as a table in use has them."""
    store = table.store
    last = store.last_seq
    prev = next(iter(store.rows(last - 1, last))).hash
    rows = length.session(last + 1, prev, records)
    while batch := list(itertools.islice(rows, 20_000)):
        store.import_rows(batch)
    table.catch_up()
    # the session's records were imported unsigned: this writer appends after them without
    # checking the log it signs after (what that check costs is bench/log.py's "signing")
    table.store.vouch = lambda upto, keep=True: None  # type: ignore[method-assign]
    table.execute(Note(text="the session goes on"))
    Table.open(path).close()
    LiveTable.open_live(str(path), readonly=True, lens=True).close()


def bare_seat(count: int, folder: Path) -> float:
    """The processor time an update of ``bench/bare_seat.py`` takes (ms), run in a 100x30
    pseudo-terminal whose output is read and dropped, as a terminal would take it."""
    out = folder / "bare.txt"
    main, sub = pty.openpty()
    fcntl.ioctl(sub, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    program = [sys.executable, str(Path(__file__).parent / "bare_seat.py"), str(count), str(out)]
    child = subprocess.Popen(program, stdin=sub, stdout=sub, stderr=sub, start_new_session=True)
    os.close(sub)

    def drain() -> None:
        with contextlib.suppress(OSError):
            while os.read(main, 65536):
                pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    child.wait(count * 0.25 + 60)
    os.close(main)
    return float(out.read_text())


def host_port(host: subprocess.Popen[str]) -> int:
    """The SSH port a started ``margin host`` says it listens on, once it is hosting."""
    assert host.stdout is not None
    port = 0
    for line in host.stdout:
        if found := re.search(r"ssh -t -p (\d+)", line):
            port = int(found.group(1))
        if line.startswith("hosting"):
            break
    return port


async def run(players: int, count: int, folder: Path, records: int, untold: bool = False) -> None:
    path = folder / "bench.margin"
    table = build_demo(path, "2d10-edge")
    names = [f"P{n:02d}" for n in range(1, players + 1)]
    for name in names:
        table.execute(AddCharacter(name=name))
    if records:
        lengthen(table, path, records)
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ["gm", *names]}
    lines = [f"{name} {key.export_public_key().decode().strip()}" for name, key in keys.items()]
    (folder / "seats.keys").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data"), "PYTHONUNBUFFERED": "1"}
    host = subprocess.Popen(
        [sys.executable, *(("-c", UNTOLD) if untold else ("-m", "margin.tui")), "host", str(path),
         "--ssh", "0", "--keys", str(folder / "seats.keys"),
         "--sessions", str(len(keys))],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )  # fmt: skip
    port = host_port(host)
    await asyncio.sleep(1)
    host_alone = sum(pss_kib(p) for p in processes(host.pid))
    conns = []
    try:
        conn, first = await connect(port, keys[names[0]], "watching as")
        conns.append(conn)
        baseline = await commits(table, [first], count, "alone")
        screens = [first]
        started = time.perf_counter()
        opened = await asyncio.gather(
            connect(port, keys["gm"], "F1 lists the keys"),
            *(connect(port, keys[n], "watching as") for n in names[1:]),
        )
        opening = time.perf_counter() - started
        conns.extend(c for c, _ in opened)
        screens.extend(s for _, s in opened)
        pids = processes(host.pid)
        cpu_before, host_before = cpu_seconds(pids), cpu_seconds([host.pid])
        everyone = await commits(table, screens, count, "full")
        busy = cpu_seconds(pids) - cpu_before
        host_busy = cpu_seconds([host.pid]) - host_before
        await asyncio.sleep(5)
        pids = processes(host.pid)
        total_pss = sum(pss_kib(p) for p in pids)
        before = cpu_seconds(pids)
        await asyncio.sleep(10)
        idle = (cpu_seconds(pids) - before) / 10
    finally:
        for conn in conns:
            conn.close()  # type: ignore[attr-defined]
        host.terminate()
        host.wait(20)
        table.close()

    floor = bare_seat(count, folder)
    sessions = len(screens)
    print(
        f"margin host: {players} player sessions and the GM over SSH, {count} commits each "
        f"phase, a table of {table.projection.seq:,} records"
        + ("; sessions asking the table 50 times a second (--untold)" if untold else "")
    )
    print(f"  {sessions - 1} sessions connected at once in {opening:.1f} s")
    for label, values in (("one player alone (baseline)", baseline), ("every session", everyone)):
        print(
            f"  commit to screen, {label}: p50 {statistics.median(values):.0f} ms, "
            f"p99 {percentile(values, 99):.0f} ms, max {max(values):.0f} ms ({len(values)} samples)"
        )
    ratio = percentile(everyone, 99) / percentile(baseline, 99)
    verdict = "met" if percentile(everyone, 99) < 250 else "MISSED"
    print(f"  p99 with every session / alone: {ratio:.2f}x; target p99 < 250 ms: {verdict}")
    print(
        f"  CPU of the host and its sessions per commit: {busy / count * 1000:.0f} ms "
        f"({busy / count / len(screens) * 1000:.1f} ms a session; the SSH server itself "
        f"{host_busy / count * 1000:.0f} ms)"
    )
    print(
        f"  memory (PSS): host alone {host_alone / 1024:.0f} MiB, with {sessions} sessions "
        f"{total_pss / 1024:.0f} MiB: {(total_pss - host_alone) / 1024 / sessions:.1f} MiB a session"
    )
    print(
        f"  idle CPU, host and {sessions} sessions: {idle * 100:.1f}% of one core "
        f"({idle * 100 / sessions:.2f}% a session)"
    )
    print(
        f"  the floor: a bare Textual screen of a seat's shape takes {floor:.1f} ms an update "
        f"(a session {busy / count / sessions * 1000 / floor:.2f}x that); {sessions} of them "
        f"{floor * sessions:.0f} ms, against {2 * 165} ms of two cores between commits "
        f"165 ms apart on average"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--records", type=int, default=0, help="grow the table to this many")
    parser.add_argument(
        "--untold", action="store_true", help="sessions ask the table 50 times a second"
    )
    args = parser.parse_args()
    random.seed(7)
    with tempfile.TemporaryDirectory(prefix="margin-bench-") as folder:
        # the GM's key and checked ledger of this run, never the account's
        os.environ["XDG_DATA_HOME"] = str(Path(folder) / "data")
        asyncio.run(run(args.players, args.commits, Path(folder), args.records, args.untold))


if __name__ == "__main__":
    main()
