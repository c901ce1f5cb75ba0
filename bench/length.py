"""How opening and replaying a table grow with its length (run by hand).

    python bench/length.py [--lengths 10000,100000,1000000] [--runs 3]

For each length a table is built (the system's demo fight, then commands of one
or two records as a session has them: free rolls, a roll and the roll it
caused, secret rolls, notes, GM-only notes, a roll undone every thousand
records; written many commands a transaction, unsigned, so that building a
million records takes a minute) and measured, every figure beside a baseline
taken in the same run:

- first frame: a fresh process opens ``margin play``, ``watch`` (a player) and
  ``replay`` headless and reports the processor time it used (its own
  ``time.process_time``, interpreter start and imports included) and its
  peak memory when Textual's ``Ready`` fires; the baseline is an empty Textual
  app measured the same way, in alternation with them; each screen starts as its
  command starts it (the collector paused until the first frame) and closes its table on
  the way out, as the command does, so the next opening finds the table as one file;
- replay: a jump to a random record (state, characters, clock and the log rows
  on screen) against the bare update (the same calls where the view stands),
  as it happened and as corrected; the first switch to corrected (once a screen)
  in several fresh replay screens, against the jumps as corrected after it;
- replay memory: the peak memory of ``margin replay`` in a fresh process at its first
  frame and after 80 jumps (half as it happened, half as corrected), on the table and on
  one of the same length built without its undos, in alternation;
- rebuild: a fold of the whole log with no snapshot, against the floor of
  reading and decoding the same records straight from SQLite with the bare
  decoder (``bench/pairs.py``), paired rep by rep (garbage collector off in
  both, as the table's fold has it);
- keeping a snapshot: the processor time to encode and write one.

Times are processor time, not wall time: the machine is shared. The table's
first opening (and the first player's) builds the snapshots the later
openings read, as a table in use has them. margin's modules are compiled to
bytecode before the first frames, as installing margin compiles them (and as
Textual's are): an environment saying ``PYTHONDONTWRITEBYTECODE`` would
otherwise have every fresh process compile margin from its source again.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pairs  # noqa: E402
from frames import EMPTY_APP  # noqa: E402

from margin.core import Projection  # noqa: E402
from margin.events import (  # noqa: E402
    FORMAT,
    Noted,
    Record,
    Rolled,
    Undone,
    Visibility,
    chain_hash,
    encode_body,
    open_store,
    utc_now,
)
from margin.tui.table import Table  # noqa: E402
from margin.tui.table.demo import build_demo  # noqa: E402
from margin.tui.table.reader import LiveTable  # noqa: E402

CHILD = (
    EMPTY_APP
    + """
import sys, time
which, path, name = sys.argv[1], sys.argv[2], sys.argv[3]
if which == "empty":
    app = Empty()
else:
    # as ``margin play``, ``watch`` and ``replay`` start: the collector paused until the
    # first frame (``margin.tui.table.startup``)
    from margin.tui.table import startup
    startup.pause()
    from margin.tui.screens import app as screens
    if which == "play":
        app = screens.play_app(path)
    elif which == "watch":
        app = screens.watch_app(path, name)
    else:
        app = screens.replay_app(path)


def scrub(app):
    # jumps to records all over the log, each way, as a GM looking back does
    import random
    rng = random.Random(7)
    view = app.view
    for corrected in (False, True):
        view.set_corrected(corrected)
        for _ in range(JUMPS):
            view.goto(rng.randrange(len(view.seqs())))
            app.redraw(follow=True)


JUMPS = 40
def ready(self):
    if which == "replay-scrub":
        # the jumps come after the first frame, with the collector running again
        startup.resume()
        scrub(self)
    cpu = time.process_time()
    # the peak of this program's own memory (getrusage's would count what the parent
    # had before exec)
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(f"{cpu} {rss}")
    self.exit()


type(app).on_ready = ready
app.run(headless=True, size=(100, 30))
if which != "empty":
    # as margin's screens do on the way out: the next opening finds one file, no log
    app.table.close()
"""
)

SYSTEM = "2d10-edge"
PLAYER = "Kael"


SECRET = Visibility(hidden=("faces", "kept", "total", "dice"))
GM_ONLY = Visibility(gm_only=True)


def session(
    first: int, prev: str, length: int, undos: bool = True
) -> Iterator[tuple[int, str, int, str, str, bytes]]:
    """Rows of commands after record ``first - 1`` (hash ``prev``) up to ``length`` records;
    without ``undos`` the mistaken rolls stay and the commands after them take the undos'
    places."""
    rng = random.Random(first)
    at = utc_now()
    seq = first
    n = 0
    while seq <= length:
        n += 1
        command = f"b{n:011d}"
        who = ("kael", "moreau")[n % 2]
        pick = rng.random()
        drafts: list[tuple[object, int | None, Visibility]] = []
        if seq % 1000 < 3 and seq + 1 <= length:
            # a mistaken roll and its undo, two commands
            drafts = [(Rolled(actor=who, dice="1d20", faces=[1], total=1), None, Visibility())]
        elif pick < 0.35:
            faces = [rng.randint(1, 10), rng.randint(1, 10)]
            drafts = [
                (Rolled(actor=who, dice="2d10", faces=faces, total=sum(faces)), None, Visibility())
            ]
        elif pick < 0.55:
            faces = [rng.randint(1, 10), rng.randint(1, 10)]
            hurt = [rng.randint(1, 6)]
            drafts = [
                (Rolled(actor=who, dice="2d10", faces=faces, total=sum(faces)), None, Visibility()),
                (
                    Rolled(actor=who, dice="1d6", faces=hurt, total=hurt[0], reason="damage"),
                    seq,
                    Visibility(),
                ),
            ]
        elif pick < 0.65:
            faces = [rng.randint(1, 20)]
            drafts = [
                (
                    Rolled(actor=who, dice="1d20", faces=faces, total=faces[0], secret=True),
                    None,
                    SECRET,
                )
            ]
        elif pick < 0.75:
            drafts = [(Noted(text=f"the GM notes {n}"), None, GM_ONLY)]
        else:
            drafts = [(Noted(text=f"the fight goes on ({n})"), None, Visibility())]
        for event, cause, visibility in drafts:
            record = Record(
                seq=seq,
                at=at,
                author="gm",
                command=command,
                event=event,  # type: ignore[arg-type]
                cause=cause,
                visibility=visibility,
            )
            body = encode_body(record)
            digest = chain_hash(prev, body)
            yield seq, command, FORMAT, prev, digest, body
            prev = digest
            seq += 1
        if (
            undos
            and seq % 1000 < 4
            and len(drafts) == 1
            and isinstance(drafts[0][0], Rolled)
            and drafts[0][0].faces == [1]
            and seq <= length
        ):
            n += 1
            undo = Record(
                seq=seq,
                at=at,
                author="gm",
                command=f"b{n:011d}",
                event=Undone(command=command, voids=[seq - 1]),
            )
            body = encode_body(undo)
            digest = chain_hash(prev, body)
            yield seq, undo.command, FORMAT, prev, digest, body
            prev = digest
            seq += 1


def build(path: Path, length: int, undos: bool = True) -> None:
    table = build_demo(path, SYSTEM)
    store = table.store
    last = store.last_seq
    prev = next(iter(store.rows(last - 1, last))).hash
    rows = session(last + 1, prev, length, undos)
    while batch := list(itertools.islice(rows, 20_000)):
        store.import_rows(batch)
    table.close()


def child(which: str, path: Path) -> tuple[float, float]:
    """Processor seconds and peak MiB of a fresh process up to its first frame."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(path), PLAYER],
        capture_output=True,
        text=True,
        check=True,
    )
    cpu, rss = out.stdout.strip().splitlines()[-1].split()
    return float(cpu), int(rss) / 1024


def cpu_of(fn: object) -> float:
    t0 = time.process_time()
    fn()  # type: ignore[operator]
    return time.process_time() - t0


def compiled() -> None:
    """margin's modules compiled to bytecode where Python looks for it, as an install has them."""
    import margin.core
    import margin.events
    import margin.tui

    for package in (margin.core, margin.events, margin.tui):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def first_frames(path: Path, runs: int) -> dict[str, tuple[float, float, float, float]]:
    """Screen -> (median processor s, its ratio to the empty app's, peak MiB, its ratio)."""
    compiled()
    got: dict[str, list[tuple[float, float]]] = {
        w: [] for w in ("empty", "play", "watch", "replay")
    }
    for _ in range(runs):
        for which in got:
            got[which].append(child(which, path))
    base_cpu = statistics.median(c for c, _ in got["empty"])
    base_rss = statistics.median(r for _, r in got["empty"])
    out = {"empty": (base_cpu, 1.0, base_rss, 1.0)}
    for which in ("play", "watch", "replay"):
        cpu = statistics.median(c for c, _ in got[which])
        rss = statistics.median(r for _, r in got[which])
        out[which] = (cpu, cpu / base_cpu, rss, rss / base_rss)
    return out


def replay_memory(path: Path, plain: Path, runs: int) -> dict[str, float]:
    """Median peak MiB of ``margin replay`` in a fresh process on the table with undos and on
    ``plain`` (the same length without), at its first frame and after scrubbing (40 jumps as
    it happened, 40 as corrected), the four taken in alternation; and the ratios."""
    got: dict[str, list[float]] = {}
    for _ in range(runs):
        for which in ("replay", "replay-scrub"):
            for name, table in (("undos", path), ("no undos", plain)):
                got.setdefault(f"{which}, {name}", []).append(child(which, table)[1])
    out = {key: statistics.median(values) for key, values in got.items()}
    for which in ("replay", "replay-scrub"):
        out[f"{which}, undos / no undos"] = out[f"{which}, undos"] / out[f"{which}, no undos"]
    return out


def replay_jumps(path: Path, runs: int) -> dict[str, float]:
    """Median processor seconds of a jump and of the bare update on the replay screen (a
    redraw where it stands), each way: from the call until the screen has taken every
    message the redraw posted."""
    return asyncio.run(_replay_jumps(path, runs))


async def _replay_jumps(path: Path, runs: int) -> dict[str, float]:
    from margin.tui.screens.app import replay_app

    app = replay_app(str(path))
    view = app.view
    rng = random.Random(7)
    out: dict[str, float] = {}
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()

        async def timed(move: object) -> float:
            t0 = time.process_time()
            if move is not None:
                move()  # type: ignore[operator]
            app.redraw(follow=True)
            await pilot.pause()
            return time.process_time() - t0

        for corrected in (False, True):
            view.set_corrected(corrected)
            jumps, bare = [], []
            for _ in range(runs):
                place = rng.randrange(len(view.seqs()))
                jumps.append(await timed(lambda place=place: view.goto(place)))
                bare.append(await timed(None))
            name = "corrected" if corrected else "as it happened"
            out[f"jump, {name}"] = statistics.median(jumps)
            out[f"bare update, {name}"] = statistics.median(bare)
    return out


def first_switches(path: Path, apps: int) -> dict[str, float]:
    """The first switch to as corrected, once in each of ``apps`` fresh replay screens
    (it happens once a screen), against jumps as corrected made after it in the same
    screen: medians, and their ratio."""
    return asyncio.run(_first_switches(path, apps))


async def _first_switches(path: Path, apps: int) -> dict[str, float]:
    firsts, jumps = [], []
    for n in range(apps):
        first, jump = await _first_switch(path, random.Random(n))
        firsts.append(first)
        jumps.append(jump)
    first, jump = statistics.median(firsts), statistics.median(jumps)
    return {
        "first switch to corrected": first,
        "jump as corrected, same screens": jump,
        "first switch / jump": first / jump,
    }


async def _first_switch(path: Path, rng: random.Random) -> tuple[float, float]:
    """One fresh replay screen: three jumps as it happened, the switch to as corrected
    with a jump, then the median of five jumps as corrected."""
    from margin.tui.screens.app import replay_app

    app = replay_app(str(path))
    view = app.view
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()

        async def timed(move: object) -> float:
            t0 = time.process_time()
            move()  # type: ignore[operator]
            app.redraw(follow=True)
            await pilot.pause()
            return time.process_time() - t0

        def jump() -> None:
            view.goto(rng.randrange(len(view.seqs())))

        for _ in range(3):
            await timed(jump)
        place = rng.randrange(len(view.seqs()))

        def switch() -> None:
            view.set_corrected(True)
            view.goto(min(place, len(view.seqs()) - 1))

        first = await timed(switch)
        return first, statistics.median([await timed(jump) for _ in range(5)])


def rebuild(path: Path) -> None:
    with open_store(path, readonly=True) as store:
        projection = Projection(lambda after, upto: store.records(after, upto))
        projection.extend(store.records())


def rebuild_pairs(path: Path, runs: int) -> tuple[float, float, float]:
    """Median rebuild and floor processor seconds, and the median of their ratios rep by rep."""
    base, ours = pairs.paired([lambda: pairs.floor(path), lambda: rebuild(path)], runs)
    return statistics.median(ours), statistics.median(base), pairs.ratio(ours, base)


def keep_cost(path: Path) -> tuple[float, float]:
    """Processor seconds to open the GM's table from its snapshot and to keep a new one."""
    opened = cpu_of(lambda: Table.open(path).close())
    table = Table.open(path)
    try:
        kept = cpu_of(lambda: table.keep_snapshot(0))
    finally:
        table.close()
    return opened, kept


def measure(folder: Path, length: int, runs: int) -> dict[str, object]:
    path = folder / f"t{length}.margin"
    t0 = time.perf_counter()
    build(path, length)
    built = time.perf_counter() - t0
    size = path.stat().st_size / 2**20
    ours, base, ratio = rebuild_pairs(path, runs)
    # the first openings build the snapshots (the GM's fold, then a player's index)
    first_gm = cpu_of(lambda: Table.open(path).close())
    first_player = cpu_of(lambda: LiveTable.open_live(str(path), readonly=True, lens=True).close())
    opened, kept = keep_cost(path)
    frames = first_frames(path, runs)
    plain = folder / f"t{length}-no-undos.margin"
    build(plain, length, undos=False)
    # opened as the table was, so that both snapshots carry a players' index
    Table.open(plain).close()
    LiveTable.open_live(str(plain), readonly=True, lens=True).close()
    memory = replay_memory(path, plain, runs)
    jumps = replay_jumps(path, runs * 5)
    switches = first_switches(path, max(runs, 5))
    with open_store(path, readonly=True) as store:
        last = store.last_seq
    return {
        "records": last,
        "file MiB": round(size, 1),
        "build s (wall)": round(built, 1),
        "rebuild s": ours,
        "read+decode floor s": base,
        "rebuild / floor": ratio,
        "first GM open, no snapshot, s": first_gm,
        "first player open, no players' index, s": first_player,
        "GM open from snapshot s": opened,
        "keep a snapshot s": kept,
        "frames": frames,
        "replay memory": memory,
        "replay": jumps,
        "switch": switches,
    }


def report(results: list[dict[str, object]]) -> str:
    lines = []
    for r in results:
        lines.append(f"## {r['records']:,} records ({r['file MiB']} MiB file)")
        for key, value in r.items():
            if key in ("frames", "replay", "replay memory", "switch", "records", "file MiB"):
                continue
            lines.append(
                f"- {key}: {value:.3f}" if isinstance(value, float) else f"- {key}: {value}"
            )
        frames = r["frames"]
        assert isinstance(frames, dict)
        lines.append("")
        lines.append("| first frame | CPU s | x empty app | peak MiB | x empty app |")
        lines.append("|---|---|---|---|---|")
        for which, (cpu, cr, rss, rr) in frames.items():
            lines.append(f"| {which} | {cpu:.2f} | {cr:.2f} | {rss:.0f} | {rr:.2f} |")
        memory = r["replay memory"]
        assert isinstance(memory, dict)
        lines.append("")
        for key, value in memory.items():
            unit = "" if "/" in key else " MiB"
            lines.append(f"- peak memory, {key}: {value:.2f}{unit}")
        replay = r["replay"]
        assert isinstance(replay, dict)
        lines.append("")
        for key, value in replay.items():
            lines.append(f"- replay {key}: {value * 1000:.1f} ms")
        for way in ("as it happened", "corrected"):
            jump, bare = replay[f"jump, {way}"], replay[f"bare update, {way}"]
            lines.append(f"- replay jump / bare update, {way}: {jump / bare:.2f}")
        switch = r["switch"]
        assert isinstance(switch, dict)
        for key, value in switch.items():
            shown = f"{value:.2f}" if "/" in key else f"{value * 1000:.1f} ms"
            lines.append(f"- replay {key}: {shown}")
        lines.append("")
    if len(results) > 1:
        small = results[0]["frames"]
        assert isinstance(small, dict)
        lines.append(f"first frame against the {results[0]['records']:,}-record table's:")
        for r in results[1:]:
            frames = r["frames"]
            assert isinstance(frames, dict)
            ratios = ", ".join(
                f"{w} {frames[w][0] / small[w][0]:.2f}x" for w in ("play", "watch", "replay")
            )
            lines.append(f"- {r['records']:,} records: {ratios}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        # the GM's key and checked ledger of this run, never the account's
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        for length in (int(n) for n in args.lengths.split(",")):
            results.append(measure(Path(tmp), length, args.runs))
            print(report(results[-1:]), flush=True)
    if len(results) > 1:
        print(report(results).rsplit("\n\n", 1)[-1])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
