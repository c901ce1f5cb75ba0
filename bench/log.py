"""margin's log benchmark: append, rebuild, state_at, follower latency, import, signing
after a long log, and a peer.

Run from a checkout, with margin installed (``pip install -e .[test]``):

    python bench/log.py            # the full run: 1,000,000-record tables
    python bench/log.py --quick    # a smaller run (100,000 records) to check it works

The peer figure needs the ``eventsourcing`` library, installed only for the
benchmark (``pip install eventsourcing``); without it that part is skipped.
Tables are built in a temporary folder (``--dir`` to choose one) that is
removed afterwards unless ``--keep`` is given. See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import os
import platform
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
for _where in (ROOT, ROOT / "bench"):
    if str(_where) not in sys.path:
        sys.path.insert(0, str(_where))

import pairs  # noqa: E402

from margin.core import TableState, create_table, decide, evolve  # noqa: E402
from margin.core.commands import AddCharacter, RollDice  # noqa: E402
from margin.events import (  # noqa: E402
    FORMAT,
    Draft,
    Noted,
    Record,
    Rolled,
    SQLiteStore,
    Undone,
    chain_hash,
    encode_body,
)
from margin.events.history import Ledger  # noqa: E402
from margin.events.signing import SigningKey  # noqa: E402
from margin.tui.table.keys import CHECKED_FOLDER, data_dir, sign_as_gm, signing_key  # noqa: E402
from margin.tui.table.rng import RandomDice  # noqa: E402
from margin.tui.table.table import Table  # noqa: E402

SYSTEM = "2d10-edge"
PARTY = ("Kael", "Mira", "Oren", "Sable", "Tamsin", "Wren")

# these figures are of folds of the whole log: the tables keep no snapshots to open from
# (bench/length.py measures opening from them)
Table.snapshot_every = Table.snapshot_at_close = 2**62


@dataclass(frozen=True)
class Sizes:
    appends: int
    executes: int
    rebuild: int
    scrub: int
    scrub_points: int
    follow: int
    peer: int
    repeats: int


FULL = Sizes(5_000, 2_000, 1_000_000, 100_000, 500, 400, 1_000_000, 3)
QUICK = Sizes(500, 300, 100_000, 20_000, 100, 60, 100_000, 1)


# -- building tables ----------------------------------------------------------


class Session:
    """A plausible session's records, made quickly.

    The head (creation and the party) comes from ``decide`` itself; the bulk
    reuses a pool of real free rolls decided with margin's dice, notes, and an
    undo of the command just before every ``undo_every`` commands, each shaped
    exactly as ``decide`` shapes it.
    """

    def __init__(self, seed: int = 7, undo_every: int = 0) -> None:
        self.rng = random.Random(seed)
        self.undo_every = undo_every
        dice = RandomDice(seed)
        state = TableState()
        self.head: list[object] = []

        def fold(event: object) -> None:
            self.head.append(event)
            record = Record(seq=len(self.head), at="", author="gm", command="", event=event)
            evolve(state, record)

        fold(create_table(SYSTEM, title="benchmark"))
        for name in PARTY:
            (draft,) = decide(AddCharacter(name=name), state, dice)
            fold(draft.event)
        actors = ["gm", *PARTY]
        self.rolls: list[Rolled] = []
        for i in range(500):
            notation = ("2d10", "3d10kh2", "2d10+3", "1d6", "4d6kl3")[i % 5]
            roll = RollDice(dice=notation, actor=actors[i % len(actors)])
            (draft,) = decide(roll, state, dice)
            assert isinstance(draft.event, Rolled)
            self.rolls.append(draft.event)
        self.notes = [Noted(text=f"the {w} door creaks open") for w in ("north", "iron", "old")]

    def events(self, count: int) -> Iterator[tuple[object, str]]:
        """``count`` events, each with its command id (one command per record)."""
        rng = self.rng
        last_command = ""
        last_seq = 0
        undone = True
        for seq in range(1, count + 1):
            command = f"{rng.getrandbits(48):012x}"
            if seq <= len(self.head):
                event: object = self.head[seq - 1]
                undone = True
            elif self.undo_every and seq % self.undo_every == 0 and not undone:
                event = Undone(command=last_command, voids=[last_seq])
                undone = True
            else:
                r = rng.random()
                event = self.notes[seq % 3] if r < 0.12 else self.rolls[seq % len(self.rolls)]
                undone = False
            if not isinstance(event, Undone):
                last_command, last_seq = command, seq
            yield event, command

    def rows(self, count: int) -> Iterator[tuple[int, str, int, str, str, bytes]]:
        """Stored rows, chained, as ``SQLiteStore.import_rows`` takes them."""
        prev = ""
        for seq, (event, command) in enumerate(self.events(count), 1):
            second = seq * 2
            at = (
                f"2026-11-{1 + second // 86400 % 28:02d}T{second // 3600 % 24:02d}:"
                f"{second // 60 % 60:02d}:{second % 60:02d}.000000Z"
            )
            record = Record(seq=seq, at=at, author="gm", command=command, event=event)
            body = encode_body(record)
            digest = chain_hash(prev, body)
            yield seq, command, FORMAT, prev, digest, body
            prev = digest


def fresh(path: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return path


def build(path: Path, count: int, undo_every: int = 0) -> float:
    """Write a ``count``-record table with the store's bulk import; the seconds it took."""
    fresh(path)
    rows = Session(undo_every=undo_every).rows(count)
    start = time.perf_counter()
    with SQLiteStore(path, create=True) as store:
        store.import_rows(rows)
    return time.perf_counter() - start


# -- measuring ----------------------------------------------------------------


def timed(fn: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``fn`` over ``repeats`` runs, the heap tidied before each.

    The median processor time of the same runs is kept in ``timed.cpu``: on a
    machine shared with other work it shows what the code itself costs.
    """
    walls, cpus = [], []
    for _ in range(repeats):
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    timed.cpu = statistics.median(cpus)  # type: ignore[attr-defined]
    return statistics.median(walls)


def cpu() -> float:
    return timed.cpu  # type: ignore[attr-defined,no-any-return]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


class Report:
    def __init__(self) -> None:
        self.missed: list[str] = []
        self.skipped: list[str] = []

    @staticmethod
    def section(title: str) -> None:
        print(f"\n{title}")

    def line(self, label: str, value: str, verdict: str = "") -> None:
        print(f"  {label:<46} {value:>22}  {verdict}".rstrip())

    def target(self, ok: bool, text: str) -> str:
        if not ok:
            self.missed.append(text)
        return f"{'ok ' if ok else 'MISSED'} ({text})"


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s"


def append_rate(folder: Path, sizes: Sizes, report: Report) -> None:
    report.section("Append, one command per transaction (synchronous=FULL), signed as the GM")
    session = Session(seed=11)
    path = fresh(folder / "append.margin")
    events = [event for event, _ in session.events(sizes.appends + len(session.head))]
    with SQLiteStore(path, create=True) as store:
        # as a table writes: each command signed with the GM's key, checked after the last
        sign_as_gm(store)
        for event in events[: len(session.head)]:
            store.append([Draft(event)], store.last_seq, command=f"{store.last_seq:012x}")
        bulk = events[len(session.head) :]
        start = time.perf_counter()
        for i, event in enumerate(bulk):
            store.append([Draft(event)], store.last_seq, command=f"c{i:011x}")
        seconds = time.perf_counter() - start
    report.line("SQLiteStore.append (signed; commit + fsync each)", rate(len(bulk), seconds))

    table = Table.open(path)
    actors = [n.lower() for n in PARTY]
    start = time.perf_counter()
    for i in range(sizes.executes):
        table.execute(RollDice(dice="3d10kh2", actor=actors[i % len(actors)]))
    seconds = time.perf_counter() - start
    table.close()
    report.line("Table.execute (decide + signed append + fold)", rate(sizes.executes, seconds))


def opened(path: Path, count: int) -> Callable[[], None]:
    """A rebuild: ``Table.open`` of a table with no snapshot (decode, fold, undo history,
    checkpoints), checked to have folded ``count`` records."""

    def run() -> None:
        table = Table.open(path, readonly=True)
        assert table.projection.seq == count
        table.close()

    return run


def rebuild(folder: Path, sizes: Sizes, report: Report) -> Path:
    n = sizes.rebuild
    reps = max(sizes.repeats, 3)
    report.section(f"Rebuild of a {n:,}-record table (processor time, {reps} reps paired)")
    path = folder / "rebuild.margin"
    seconds = build(path, n)
    report.line("built with SQLiteStore.import_rows", rate(n, seconds))
    undo_path = folder / "rebuild-undo.margin"
    build(undo_path, n, undo_every=100)
    base, fold, undo = pairs.paired(
        [lambda: pairs.floor(path), opened(path, n), opened(undo_path, n)], reps
    )
    c_floor, c_fold, c_undo = (statistics.median(t) for t in (base, fold, undo))
    report.line("floor: SQLite rows + bare decode", f"{c_floor:.2f} s {rate(n, c_floor):>12}")
    report.line(
        "rebuild: Table.open (decode + fold)",
        f"{c_fold:.2f} s {rate(n, c_fold):>12}",
        report.target(c_fold < 2.0 * n / 1_000_000, "target < 2 s per 1,000,000"),
    )
    ratio = pairs.ratio(fold, base)
    report.line(
        "rebuild / floor, rep by rep", f"{ratio:.2f}x", report.target(ratio <= 2.0, "target <= 2x")
    )
    report.line(
        "rebuild with an undo every 100 records",
        f"{c_undo:.2f} s {rate(n, c_undo):>12}",
        report.target(c_undo < 2.0 * n / 1_000_000, "target < 2 s per 1,000,000")
        + f" ({pairs.ratio(undo, base):.2f}x the floor)",
    )
    fresh(undo_path)
    return path


def scrub(folder: Path, sizes: Sizes, report: Report) -> None:
    n = sizes.scrub
    report.section(f"state_at at random points of a {n:,}-record table (an undo every 100)")
    path = folder / "scrub.margin"
    build(path, n, undo_every=100)
    table = Table.open(path, readonly=True)
    rng = random.Random(3)
    lat = []
    for _ in range(sizes.scrub_points):
        seq = rng.randint(1, n)
        start = time.perf_counter()
        state = table.projection.state_at(seq)
        lat.append(time.perf_counter() - start)
        assert state.seq == seq
    lat_c = []
    for _ in range(sizes.scrub_points // 5):
        seq = rng.randint(1, n)
        start = time.perf_counter()
        table.projection.state_at(seq, corrected=True)
        lat_c.append(time.perf_counter() - start)
    table.close()
    p50, p99, top = (percentile(lat, 50), percentile(lat, 99), max(lat))
    report.line(
        f"state_at, {len(lat)} points: p50 / p99 / max",
        f"{p50 * 1e3:.1f} / {p99 * 1e3:.1f} / {top * 1e3:.1f} ms",
        report.target(p99 < 0.020, "target < 20 ms"),
    )
    report.line(
        "state_at(corrected=True): p50 / p99",
        f"{percentile(lat_c, 50) * 1e3:.1f} / {percentile(lat_c, 99) * 1e3:.1f} ms",
    )
    fresh(path)


FOLLOWER = textwrap.dedent(
    """
    import sys, time
    from margin.events import Noted, follow, open_store

    store = open_store(sys.argv[1], readonly=True)
    done = []
    out = sys.stdout

    def seen(batch):
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        for record in batch:
            out.write(f"{record.seq} {now!r}\\n")
            if isinstance(record.event, Noted) and record.event.text == "stop":
                done.append(True)
        out.flush()

    print("ready", store.last_seq, flush=True)
    follow(store, store.last_seq, seen, stop=lambda: bool(done))
    """
)


def follower(folder: Path, sizes: Sizes, report: Report) -> None:
    report.section("Follower latency: commit in this process, seen by events.follow in another")
    path = fresh(folder / "follow.margin")
    session = Session(seed=5)
    with SQLiteStore(path, create=True) as store:
        for event, command in session.events(len(session.head)):
            store.append([Draft(event)], store.last_seq, command=command)
    proc = subprocess.Popen(
        [sys.executable, "-c", FOLLOWER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("ready")
    rng = random.Random(9)
    sent: dict[int, tuple[float, float]] = {}
    clock = time.CLOCK_MONOTONIC
    with SQLiteStore(path) as store:
        for i in range(sizes.follow):
            time.sleep(rng.uniform(0.002, 0.030))
            before = time.clock_gettime(clock)
            (record,) = store.append(
                [Draft(Noted(text=f"note {i}"))], store.last_seq, command=f"f{i:011x}"
            )
            sent[record.seq] = (before, time.clock_gettime(clock))
        store.append([Draft(Noted(text="stop"))], store.last_seq, command="stop")
    out, _ = proc.communicate(timeout=60)
    seen = {int(s): float(t) for s, t in (line.split() for line in out.splitlines())}
    after = [seen[seq] - done for seq, (_, done) in sent.items()]
    upper = [seen[seq] - begun for seq, (begun, _) in sent.items()]
    p99 = percentile(upper, 99)
    report.line(
        f"{len(sent)} commits, p50 / p99 / max",
        f"{percentile(upper, 50) * 1e3:.1f} / {p99 * 1e3:.1f} / {max(upper) * 1e3:.1f} ms",
        report.target(p99 < 0.025, "target p99 < 25 ms"),
    )
    report.line(
        "  the same from append's return",
        f"{percentile(after, 50) * 1e3:.1f} / {percentile(after, 99) * 1e3:.1f} ms",
    )
    fresh(path)


def signed_build(path: Path, count: int, key: SigningKey) -> None:
    """A ``count``-record table as margin writes one: every record a command, each signed."""
    fresh(path)
    with SQLiteStore(path, create=True) as store:
        store.import_rows(Session().rows(count))
        # the same rows again (the session is seeded), so a long table is never held whole
        store.import_signatures(
            (row[0], key.public, key.sign(row[0], row[4])) for row in Session().rows(count)
        )


def signing(folder: Path, sizes: Sizes, report: Report) -> None:
    """What a writer's check before it signs costs: once for a table it never checked, then
    only the records since (kept in its ledger), and on each command of its own."""
    n = sizes.rebuild
    report.section(f"Signing after a {n:,}-record table, every record a signed command")
    key = signing_key()
    path = folder / "signed.margin"
    start = time.perf_counter()
    signed_build(path, n, key)
    report.line("built (each record signed)", rate(n, time.perf_counter() - start))
    ledger = Ledger(data_dir() / CHECKED_FOLDER)

    def first_write() -> None:
        with SQLiteStore(path, signer=key) as store:
            store.ledger = ledger
            store.append([Draft(Noted(text="next"))], store.last_seq, command=f"w{store.last_seq}")

    with SQLiteStore(path, readonly=True) as store:
        t_verify = timed(lambda: store.check(key.public), 1)
    report.line(
        "margin verify's check (every record and signature)",
        f"{t_verify:.2f} s",
        f"(processor {cpu():.2f} s)",
    )
    t_cold = timed(first_write, 1)
    report.line(
        "first write, the table never checked", f"{t_cold:.2f} s", f"(processor {cpu():.2f} s)"
    )
    t_warm = timed(first_write, 5)
    report.line(
        "first write of the next process (ledger kept)",
        f"{t_warm * 1e3:.1f} ms",
        report.target(t_warm < 0.1, "target < 100 ms") + f" (processor {cpu() * 1e3:.1f} ms)",
    )

    def opened() -> None:
        Table.open(path).close()

    def opened_and_written() -> None:
        table = Table.open(path)
        table.execute(RollDice(dice="2d10", actor="gm"))
        table.close()

    with_fold = timed(opened, sizes.repeats)
    written = timed(opened_and_written, sizes.repeats)
    report.line("Table.open of the table", f"{with_fold:.2f} s")
    report.line("Table.open and one command (ledger kept)", f"{written:.2f} s")

    def commands(check: bool) -> tuple[float, float]:
        with SQLiteStore(path, signer=key) as store:
            store.ledger = ledger
            if not check:
                store.vouch = lambda upto: None  # type: ignore[method-assign]
            store.append([Draft(Noted(text="warm"))], store.last_seq, command=f"w{store.last_seq}")
            start, processor = time.perf_counter(), time.process_time()
            for i in range(sizes.executes):
                store.append(
                    [Draft(Noted(text=f"n{i}"))], store.last_seq, command=f"x{store.last_seq}"
                )
            return time.perf_counter() - start, time.process_time() - processor

    (unchecked, c_unchecked), (checked, c_checked) = commands(False), commands(True)
    report.line("append, signed, without the check", rate(sizes.executes, unchecked) + " commands")
    report.line(
        "append, signed, each checked after the last",
        rate(sizes.executes, checked) + " commands",
        f"(processor {(c_checked - c_unchecked) / sizes.executes * 1e6:.0f} us more a command)",
    )
    fresh(path)


def cli_import(folder: Path, source: Path, n: int, report: Report) -> None:
    report.section(f"margin export / margin import of {n:,} records (the command line)")
    exported = folder / "export.jsonl"
    margin = [sys.executable, "-m", "margin.tui"]
    start = time.perf_counter()
    with open(exported, "wb") as out:
        subprocess.run([*margin, "export", str(source)], stdout=out, check=True, cwd=ROOT)
    t_export = time.perf_counter() - start
    report.line("margin export", rate(n, t_export))
    label = "margin import (chain checked, every record decoded)"
    target = fresh(folder / "imported.margin")
    start = time.perf_counter()
    done = subprocess.run(
        [*margin, "import", str(exported), str(target)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        report.line(label, "failed", done.stderr.strip())
        report.missed.append(f"{label} failed")
    else:
        verdict = report.target(n / seconds >= 200_000, "target >= 200,000/s")
        report.line(label, f"{seconds:.2f} s {rate(n, seconds):>12}", verdict)
    fresh(folder / "imported.margin")
    exported.unlink()


# -- the peer -----------------------------------------------------------------


def peer(folder: Path, sizes: Sizes, report: Report) -> None:
    n = sizes.peer
    reps = max(sizes.repeats, 3)
    report.section(f"Peer: the eventsourcing library's SQLite store, {n:,} events")
    try:
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate, event
    except ImportError:
        report.line("skipped", "", "eventsourcing is not installed: pip install eventsourcing")
        report.skipped.append("the peer comparison (pip install eventsourcing)")
        return

    class Session_(Aggregate):
        """One table's session as a single aggregate, with the same events as margin's."""

        @event("Started")
        def __init__(self, system: str) -> None:
            self.system = system
            self.party: list[str] = []
            self.last_roll: tuple[str, str, int] | None = None
            self.notes = 0

        @event("Joined")
        def join(self, name: str) -> None:
            self.party.append(name)

        @event("Rolled")
        def roll(self, actor: str, dice: str, faces: list[int], total: int) -> None:
            self.last_roll = (actor, dice, total)

        @event("Noted")
        def note(self, text: str) -> None:
            self.notes += 1

    class Tables(Application):
        pass

    path = fresh(folder / "peer.sqlite")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    app = Tables(env=env)
    # the events of margin's table below, one for one
    events = Session().events(n)
    start = time.perf_counter()
    agg = Session_(SYSTEM)
    next(events)
    for i, (made, _) in enumerate(events, 2):
        if isinstance(made, Rolled):
            agg.roll(actor=made.actor, dice=made.dice, faces=list(made.faces), total=made.total)
        elif isinstance(made, Noted):
            agg.note(text=made.text)
        else:
            agg.join(name=made.name)  # type: ignore[attr-defined]
        if i % 20_000 == 0:
            app.save(agg)
    app.save(agg)
    t_build = time.perf_counter() - start
    aggregate_id = agg.id
    app.close()
    del agg, app
    version = importlib.metadata.version("eventsourcing")
    report.line(f"built with Application.save (eventsourcing {version})", rate(n, t_build))
    ours = folder / "peer.margin"
    build(ours, n)

    reader = Tables(env=env)

    def get() -> None:
        assert reader.repository.get(aggregate_id).version == n

    rows, theirs, mine = pairs.paired(
        [lambda: reader.recorder.select_events(aggregate_id), get, opened(ours, n)], reps
    )
    reader.close()
    report.line("recorder.select_events (rows only)", f"{statistics.median(rows):.2f} s")
    report.line(
        "rebuild: repository.get (decode + fold)",
        f"{statistics.median(theirs):.2f} s {rate(n, statistics.median(theirs)):>12}",
    )
    report.line(
        "margin's rebuild of the same events",
        f"{statistics.median(mine):.2f} s {rate(n, statistics.median(mine)):>12}",
    )
    speedup = pairs.ratio(theirs, mine)
    report.line(
        f"margin faster, rep by rep ({reps} reps)",
        f"{speedup:.1f}x",
        report.target(speedup >= 10, "target >= 10x"),
    )
    fresh(path)
    fresh(ours)


# -- main ---------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000-record tables, one run each")
    parser.add_argument(
        "--dir", type=Path, help="where to build the tables (default: a temp folder)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the tables afterwards")
    parser.add_argument(
        "--only", help="comma-separated parts: append,rebuild,scrub,follow,import,signing,peer"
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    parts = set((args.only or "append,rebuild,scrub,follow,import,signing,peer").split(","))
    folder = args.dir or Path(tempfile.mkdtemp(prefix="margin-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    report = Report()
    # the GM of this run keeps their key and ledger in the run's folder
    os.environ["XDG_DATA_HOME"] = str(folder / "data")
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"margin log benchmark ({'quick' if args.quick else 'full'}): "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"msgspec {msgspec.__version__}, {os.cpu_count()} CPUs, {platform.machine()}; "
        f"load average {load}"
    )
    try:
        if "append" in parts:
            append_rate(folder, sizes, report)
        source = None
        if "rebuild" in parts:
            source = rebuild(folder, sizes, report)
        if "scrub" in parts:
            scrub(folder, sizes, report)
        if "follow" in parts:
            follower(folder, sizes, report)
        if "import" in parts:
            if source is None:
                source = folder / "rebuild.margin"
                build(source, sizes.rebuild)
            cli_import(folder, source, sizes.rebuild, report)
        if "signing" in parts:
            signing(folder, sizes, report)
        if "peer" in parts:
            peer(folder, sizes, report)
    finally:
        if not args.keep and args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\nload average at the end: {load}")
    if report.missed:
        print("targets missed: " + "; ".join(report.missed))
    else:
        print("every target met")
    if report.skipped:
        print("not measured: " + "; ".join(report.skipped))
    if args.quick:
        print("(quick run: sizes reduced; the targets are set for the full run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
