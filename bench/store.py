"""The two stores side by side, in one run: a table file (SQLite) and a table in PostgreSQL.

Run from a checkout, with margin installed (``pip install -e .[test]``):

    python bench/store.py            # the full run: a 1,000,000-record rebuild
    python bench/store.py --quick    # a smaller run (100,000 records) to check it works

PostgreSQL is the server named by ``MARGIN_TEST_POSTGRES``, else one started
for the run as the tests start theirs (``tests/pg_server.py``), with fsync on,
so that its commits are as durable as SQLite's ``synchronous=FULL``. Figures:

- append throughput with 1, 8 and 32 writer processes on 32 tables, one
  signed command per transaction;
- rebuild (``Table.open``: read, decode, fold) of a 1,000,000-record table
  (target: PostgreSQL within 3x of SQLite);
- follower commit-to-seen latency, ``events.follow`` in another process
  (target: p99 under 25 ms).

See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for folder in (ROOT, HERE, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import pg_server  # noqa: E402
from log import FOLLOWER, Report, Session, percentile, rate, timed  # noqa: E402

from margin.events import Draft, Noted, build_store, open_store  # noqa: E402
from margin.tui.table.table import Table  # noqa: E402

TABLES = 32
WRITERS = (1, 8, 32)

# these figures are of folds of the whole log: the tables keep no snapshots to open from
# (bench/length.py measures opening from them)
Table.snapshot_every = Table.snapshot_at_close = 2**62


def sqlite_name(folder: Path, name: str) -> str:
    return str(folder / f"{name}.margin")


class Stores:
    """Where each store's tables go: a folder, and a database of the server."""

    def __init__(self, folder: Path, server: pg_server.Server) -> None:
        self.folder = folder
        self.server = server
        self.run = f"b{os.getpid()}x{random.randrange(10**6)}"

    def name(self, kind: str, table: str) -> str:
        if kind == "SQLite":
            return str(self.folder / f"{table}.margin")
        return self.server.url(f"{self.run}-{table}")


def created(name: str) -> None:
    session = Session(seed=3)
    with build_store(name) as store:
        for event, command in session.events(len(session.head)):
            store.append([Draft(event)], store.last_seq, command=command)  # type: ignore[arg-type]


WRITER = textwrap.dedent(
    """
    import sys
    from margin.events import Draft, Noted, open_store
    from margin.events.signing import SigningKey

    count, names = int(sys.argv[1]), sys.argv[2:]
    key = SigningKey.generate()
    stores = [open_store(name, signer=key) for name in names]
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):
        store = stores[i % len(stores)]
        store.append([Draft(Noted(text=f"note {i}"))], store.last_seq, command=f"w{i:011x}")
    for store in stores:
        store.close()
    print("done", flush=True)
    """
)


def append_throughput(stores: Stores, total: int, report: Report) -> None:
    report.section(f"Append: signed commands, one a transaction, {TABLES} tables, {total:,} in all")
    for writers in WRITERS:
        for kind in ("SQLite", "PostgreSQL"):
            names = [stores.name(kind, f"append{writers}-{t}") for t in range(TABLES)]
            for name in names:
                created(name)
            procs = [
                subprocess.Popen(
                    [sys.executable, "-c", WRITER, str(total // writers), *names[w::writers]],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    cwd=ROOT,
                )
                for w in range(writers)
            ]
            for proc in procs:
                assert proc.stdout is not None
                assert proc.stdout.readline().startswith("ready")
            start = time.perf_counter()
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            for proc in procs:
                assert proc.stdout is not None
                assert proc.stdout.readline().startswith("done")
            seconds = time.perf_counter() - start
            for proc in procs:
                proc.wait(60)
            done = (total // writers) * writers
            report.line(f"{kind}, {writers} writer{'s' * (writers > 1)}", rate(done, seconds))


def rebuild(stores: Stores, n: int, repeats: int, report: Report) -> None:
    report.section(
        f"Rebuild of a {n:,}-record table: Table.open (read, decode, fold), median of {repeats}"
    )
    times = {}
    for kind in ("SQLite", "PostgreSQL"):
        name = stores.name(kind, "rebuild")
        start = time.perf_counter()
        with build_store(name) as store:
            store.import_rows(Session().rows(n))
        report.line(f"{kind}: built with import_rows", rate(n, time.perf_counter() - start))

        def fold(name: str = name) -> None:
            table = Table.open(name, readonly=True)
            assert table.projection.seq == n
            table.close()

        def read(name: str = name) -> None:
            with open_store(name, readonly=True) as store:
                for _ in store.rows():
                    pass

        t_read = timed(read, repeats)
        report.line(f"{kind}: stored rows only", f"{t_read:.2f} s {rate(n, t_read):>12}")
        times[kind] = timed(fold, repeats)
        report.line(f"{kind}: rebuild", f"{times[kind]:.2f} s {rate(n, times[kind]):>12}")
    ratio = times["PostgreSQL"] / times["SQLite"]
    report.line(
        "PostgreSQL rebuild / SQLite rebuild",
        f"{ratio:.2f}x",
        report.target(ratio <= 3.0, "target <= 3x"),
    )


def follower(stores: Stores, count: int, report: Report) -> None:
    report.section("Follower latency: commit in this process, seen by events.follow in another")
    for kind, how in (("SQLite", "data_version every 10 ms"), ("PostgreSQL", "LISTEN/NOTIFY")):
        name = stores.name(kind, "follow")
        created(name)
        proc = subprocess.Popen(
            [sys.executable, "-c", FOLLOWER, name], stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("ready")
        rng = random.Random(9)
        sent: dict[int, float] = {}
        clock = time.CLOCK_MONOTONIC
        with open_store(name) as store:
            for i in range(count):
                time.sleep(rng.uniform(0.002, 0.030))
                before = time.clock_gettime(clock)
                (record,) = store.append(
                    [Draft(Noted(text=f"note {i}"))], store.last_seq, command=f"f{i:011x}"
                )
                sent[record.seq] = before
            store.append([Draft(Noted(text="stop"))], store.last_seq, command="stop")
        out, _ = proc.communicate(timeout=60)
        seen = {int(s): float(t) for s, t in (line.split() for line in out.splitlines())}
        latency = [seen[seq] - begun for seq, begun in sent.items()]
        p99 = percentile(latency, 99)
        report.line(
            f"{kind} ({how}): p50 / p99 / max",
            f"{percentile(latency, 50) * 1e3:.1f} / {p99 * 1e3:.1f} / {max(latency) * 1e3:.1f} ms",
            report.target(p99 < 0.025, "target p99 < 25 ms"),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 records, fewer appends")
    parser.add_argument("--only", help="some parts: append, rebuild, follow (comma-separated)")
    args = parser.parse_args()
    parts = set(args.only.split(",")) if args.only else {"append", "rebuild", "follow"}
    n, appends, follows, repeats = (
        (100_000, 640, 100, 1) if args.quick else (1_000_000, 3_200, 400, 3)
    )
    report = Report()
    folder = Path(tempfile.mkdtemp(prefix="margin-bench-store-"))
    steps: list[tuple[str, Callable[[Stores], None]]] = [
        ("append", lambda s: append_throughput(s, appends, report)),
        ("rebuild", lambda s: rebuild(s, n, repeats, report)),
        ("follow", lambda s: follower(s, follows, report)),
    ]
    try:
        with pg_server.running(durable=True) as server:
            if server.passfile is not None:
                os.environ["PGPASSFILE"] = str(server.passfile)
            stores = Stores(folder, server)
            print(
                f"margin store benchmark: SQLite file in {folder}, PostgreSQL on port {server.port}"
            )
            for part, step in steps:
                if part in parts:
                    step(stores)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("\ntargets missed: " + (", ".join(report.missed) or "none"))
    return 1 if report.missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
