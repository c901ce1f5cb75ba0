"""margin's committed dice: what a roll costs with commitments, and ``verify --dice``.

Run from a checkout, with margin installed (``pip install -e .[test]``):

    python bench/dice.py            # 2,000 commands a stream, a 100,000-record table
    python bench/dice.py --quick    # 300 commands, 10,000 records, to check it works

Two figures, each a ratio or a rate measured in the same run (see ``bench/README.md``):

- **A ``margin do`` stream with commitments and without.** The same commands (free
  rolls, a secret roll in five, an edge check in five) are parsed and executed one
  line at a time as ``margin do`` does, on two tables in the same folder, in
  alternating blocks: one drawing committed dice (the default), one with the earlier
  source (a generator seeded from the operating system, nothing committed). Wall time
  includes each command's synchronous commit; processor time is what the dice cost.
  The decisions alone (``decide`` against ``decide_committed``) are timed too.
- **``margin verify --dice`` on a 100,000-record table**: a session of free rolls and
  secret rolls (half of them revealed), player entropy and an end of session, made
  with margin's own decisions; the dice check alone (``check_dice``) and the whole
  command (chain, every signature, then the dice) as a process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from margin.core import Projection, decide, parse_command  # noqa: E402
from margin.core.decider import decide_committed  # noqa: E402
from margin.core.dicecheck import check_dice  # noqa: E402
from margin.events import FORMAT, SQLiteStore, chain_hash, encode_body, records_after  # noqa: E402
from margin.tui.table.dicekeys import DiceKeys  # noqa: E402
from margin.tui.table.rng import RandomDice  # noqa: E402
from margin.tui.table.table import Table, new_command_id  # noqa: E402

SYSTEM = "2d10-edge"
PARTY = ("Kael", "Mira", "Oren")


def stream(count: int) -> list[bytes]:
    """``count`` command lines as a GM's ``margin do`` gets them."""
    lines = []
    for i in range(count):
        who = PARTY[i % len(PARTY)].lower()
        if i % 5 == 1:
            line = f'{{"type":"roll","dice":"1d20","secret":true,"actor":"{who}"}}'
        elif i % 5 == 3:
            line = f'{{"type":"check","character":"{who}","skill":"athletics","tn":15}}'
        else:
            notation = ("2d10", "3d10kh2", "2d10+3")[i % 3]
            line = f'{{"type":"roll","dice":"{notation}","actor":"{who}"}}'
        lines.append(line.encode())
    return lines


def seated(path: Path) -> Table:
    table = Table.create(path, SYSTEM, title="benchmark")
    for name in PARTY:
        table.execute(parse_command(SYSTEM, f'{{"type":"add-character","name":"{name}"}}'))
    return table


def run_lines(table: Table, lines: list[bytes]) -> None:
    for line in lines:
        table.execute(parse_command(SYSTEM, line))


def do_stream(folder: Path, count: int, blocks: int) -> dict[str, float]:
    """Wall and processor seconds of the same stream with and without commitments."""
    committed, plain = seated(folder / "committed.margin"), seated(folder / "plain.margin")
    plain.dice = RandomDice()
    lines = stream(count)
    size = max(1, count // blocks)
    times = {"committed": [0.0, 0.0], "plain": [0.0, 0.0]}
    for start in range(0, count, size):
        block = lines[start : start + size]
        # alternate which goes first, so neither always meets a warmer disk
        order = [("committed", committed), ("plain", plain)]
        if (start // size) % 2:
            order.reverse()
        for name, table in order:
            wall, cpu = time.perf_counter(), time.process_time()
            run_lines(table, block)
            times[name][0] += time.perf_counter() - wall
            times[name][1] += time.process_time() - cpu
    committed.close()
    plain.close()
    return {
        "committed_wall": times["committed"][0],
        "committed_cpu": times["committed"][1],
        "plain_wall": times["plain"][0],
        "plain_cpu": times["plain"][1],
    }


def decisions(folder: Path, count: int) -> tuple[float, float]:
    """Processor seconds to decide the stream's commands with and without commitments,
    on one table's state, without writing (the median of three runs)."""
    table = seated(folder / "decide.margin")
    commands = [parse_command(SYSTEM, line) for line in stream(count)]
    run_lines(table, stream(2))  # a session committed and its keys kept
    keys = table.keys
    state, history = table.state, table.projection.history
    dice = RandomDice()

    def plain() -> None:
        for command in commands:
            decide(command, state, dice, history)

    def committed() -> None:
        for command in commands:
            decide_committed(command, state, keys.keyring(), history)

    out = []
    for fn in (plain, committed):
        runs = []
        for _ in range(3):
            cpu = time.process_time()
            fn()
            runs.append(time.process_time() - cpu)
        out.append(statistics.median(runs))
    table.close()
    return out[0], out[1]


def session_rows(count: int, folder: Path) -> tuple[list[Any], int]:
    """A ``count``-record session decided with committed dice, as chained rows."""
    keys = DiceKeys(folder / "keys")
    projection = Projection(lambda after, upto: iter(()))
    rows: list[Any] = []
    prev, seq = "", 0
    secrets: list[int] = []

    def add(line: str) -> None:
        nonlocal prev, seq
        command = parse_command(SYSTEM, line)
        keyring = keys.keyring()
        drafts = decide_committed(command, projection.state, keyring, projection.history)
        keys.keep(drafts, keyring)
        cid = new_command_id()
        for record in records_after(
            drafts, seq, command=cid, author="gm", at="2026-12-01T20:00:00Z"
        ):
            body = encode_body(record)
            digest = chain_hash(prev, body)
            rows.append((record.seq, cid, FORMAT, prev, digest, body))
            projection.apply(record)
            prev, seq = digest, record.seq
            if record.sealed:
                secrets.append(record.seq)

    from margin.core import create_table
    from margin.events import Draft

    created = records_after([Draft(create_table(SYSTEM, title="benchmark"))], 0, command="c0")
    body = encode_body(created[0])
    prev = chain_hash("", body)
    rows.append((1, "c0", FORMAT, "", prev, body))
    projection.apply(created[0])
    seq = 1
    for name in PARTY:
        add(f'{{"type":"add-character","name":"{name}"}}')
    add('{"type":"entropy","seat":"kael","entropy":"' + "ab" * 32 + '"}')
    lines = stream(count)
    i = 0
    while seq < count - 2:
        if i % 10 == 9 and secrets:
            add(f'{{"type":"reveal","seq":{secrets.pop(0)}}}')
            secrets = secrets[1:]  # every other secret stays closed
        else:
            add(lines[i % len(lines)].decode())
        i += 1
    add('{"type":"end-session"}')
    return rows, seq


def verify_figures(folder: Path, count: int) -> dict[str, float]:
    path = folder / "verify.margin"
    rows, records = session_rows(count, folder)
    with SQLiteStore(path, create=True) as store:
        store.import_rows(iter(rows))
    store = SQLiteStore(path)
    try:
        loaded = list(store.records())
        cpu = time.process_time()
        report = check_dice(loaded)
        check = time.process_time() - cpu
    finally:
        store.close()
    assert not report.problems, report.problems[:3]
    dice = sum(t.drawn for t in report.tallies.values())
    whole, whole_cpu = _verify(path, "--dice")
    without, without_cpu = _verify(path)
    return {
        "records": records,
        "dice": dice,
        "check": check,
        "whole": whole,
        "whole_cpu": whole_cpu,
        "plain": without,
        "plain_cpu": without_cpu,
    }


def _verify(path: Path, *options: str) -> tuple[float, float]:
    """``margin verify`` of a table in a process of its own: its wall time and CPU time."""
    wall, child = time.perf_counter(), _children()
    done = subprocess.run(
        [sys.executable, "-m", "margin.tui", "verify", *options, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed, cpu = time.perf_counter() - wall, _children() - child
    assert done.returncode == 0, done.stderr
    return elapsed, cpu


def _children() -> float:
    """Processor seconds the child processes that ended so far took."""
    times = os.times()
    return times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dir", help="build the tables here (default: a temporary folder)")
    parser.add_argument("--only", choices=("stream", "verify"), help="one of the two figures alone")
    args = parser.parse_args()
    count, records = (300, 10_000) if args.quick else (2_000, 100_000)
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="margin-dice-"))
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("XDG_DATA_HOME", str(folder / "data"))
    try:
        if args.only != "verify":
            stream_figures(folder, count)
        if args.only != "stream":
            verify_report(folder, records)
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)


def stream_figures(folder: Path, count: int) -> None:
    """A ``margin do`` stream with commitments against one without, and the decisions."""
    t = do_stream(folder, count, blocks=10)
    wall = t["committed_wall"] / t["plain_wall"] - 1
    cpu = t["committed_cpu"] / t["plain_cpu"] - 1
    print(f"margin do stream, {count} commands (a secret roll and a check in five):")
    print(f"  without commitments: {t['plain_wall']:.2f} s wall, {t['plain_cpu']:.2f} s processor")
    print(
        f"  with commitments:    {t['committed_wall']:.2f} s wall, "
        f"{t['committed_cpu']:.2f} s processor"
    )
    met = "met" if wall < 0.10 else "MISSED"
    print(f"  cost: {wall:+.1%} wall, {cpu:+.1%} processor (target < 10%: {met})")
    plain, committed = decisions(folder, count)
    print(
        f"  deciding alone: {plain * 1e6 / count:.0f} µs a command without, "
        f"{committed * 1e6 / count:.0f} µs with ({committed / plain - 1:+.1%})"
    )


def verify_report(folder: Path, records: int) -> None:
    """``verify --dice`` on a ``records``-record session: the check alone and the command."""
    v = verify_figures(folder, records)
    print(f"margin verify --dice, {v['records']:,} records ({v['dice']:,} dice drawn):")
    print(
        f"  the dice check: {v['check']:.2f} s processor "
        f"({v['records'] / v['check']:,.0f} records/s)"
    )
    print(
        f"  the whole command: {v['whole']:.2f} s wall, {v['whole_cpu']:.2f} s processor; "
        f"margin verify alone {v['plain']:.2f} s wall, {v['plain_cpu']:.2f} s processor"
    )


if __name__ == "__main__":
    main()
