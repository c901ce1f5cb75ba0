"""Measure the table screens against the targets of the screen issue (run by hand).

    python bench/screen.py [--records 100000] [--system d100-under]

Three measurements, each beside an empty Textual app measured the same way in
the same run, so a slow machine shows in both columns:

1. start to first frame: a fresh process opens a table of N records and runs
   ``margin play`` headless until Textual's ``Ready`` (first frame drawn).
   Target: under 0.8 s on 100,000 records.
2. keystroke to updated screen after a roll: from Enter on ``roll 2d10`` to
   the end of the refresh that shows the new record. Target: under 50 ms.
3. watcher: a record committed by another connection until a player's
   ``margin watch`` screen shows it. Target: under 100 ms.

It also prints the cost of one replay step at random places of the table.

The long table is the system's demo fight followed by generic records (free
rolls, notes, a roll undone every thousand records) appended in large batches, so
building it takes seconds rather than the minutes of one commit per record.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from frames import EMPTY_APP

from margin.core import get_system
from margin.core.commands import Note
from margin.events import Draft, Noted, Rolled, Undone
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table, new_command_id

CHILD = (
    EMPTY_APP
    + """
import sys, time
start = float(sys.argv[1])
which = sys.argv[2]
if which == "empty":
    app = Empty()
else:
    from margin.tui.screens.app import play_app
    app = play_app(which)


def ready(self):
    print(time.time() - start)
    self.exit()


type(app).on_ready = ready
app.run(headless=True, size=(100, 30))
"""
)


def build(path: Path, records: int, system: str) -> None:
    table = build_demo(path, system)
    batch = 1000
    while table.store.last_seq < records:
        drafts = []
        for i in range(min(batch, records - table.store.last_seq)):
            if i % 3:
                drafts.append(
                    Draft(Rolled(actor="gm", dice="2d10", faces=[i % 10 + 1, 7], total=i % 10 + 8))
                )
            else:
                drafts.append(Draft(Noted(text=f"the fight goes on ({i})")))
        table.store.append(drafts, table.store.last_seq, command=new_command_id())
        if table.store.last_seq + 2 <= records:
            # A mistaken roll, undone straight away, as a GM would.
            mistake = new_command_id()
            roll = Rolled(actor="gm", dice="1d20", faces=[1], total=1)
            done = table.store.append([Draft(roll)], table.store.last_seq, command=mistake)
            undo = Undone(command=mistake, voids=[done[0].seq])
            table.store.append([Draft(undo)], table.store.last_seq, command=new_command_id())
    table.close()


def first_frame(which: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, repr(time.time()), which],
            capture_output=True,
            text=True,
            check=True,
        )
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


async def keystroke(path: str, runs: int) -> tuple[float, float]:
    """From the Enter key's handler to the end of the refresh that shows the result, once
    the worker writing the command has landed it.

    Measured inside the app, so the test harness's own waiting is left out.
    """
    from textual.app import App
    from textual.widgets import Input, Static

    from margin.tui.screens.app import play_app
    from margin.tui.screens.base import Step
    from margin.tui.table.rng import RandomDice

    times: list[float] = []

    def timed(app: App[None], handle: object) -> object:
        def run(*args: object) -> object:
            t0 = time.perf_counter()
            result = handle(*args)  # type: ignore[operator]
            app.call_after_refresh(lambda: times.append(time.perf_counter() - t0))
            return result

        return run

    def landed(app: App[None], handle: object, started: list[float]) -> object:
        # the command is written in a worker: the clock stops at the refresh after it lands
        def run(*args: object) -> object:
            result = handle(*args)  # type: ignore[operator]
            t0 = started[-1]
            app.call_after_refresh(lambda: times.append(time.perf_counter() - t0))
            return result

        return run

    started: list[float] = []
    app = play_app(path)
    app.view.table.dice = RandomDice(1)
    enqueue = app.enqueue

    def entered(*steps: Step) -> None:
        started.append(time.perf_counter())
        enqueue(*steps)

    app.enqueue = entered  # type: ignore[method-assign]
    # the step's answer, handled on the screen's thread once its records are drawn
    app._answered = landed(app, app._answered, started)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(runs):
            seq = app.view.table.projection.seq
            await pilot.press(*"roll 2d10", "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.view.table.projection.seq == seq + 1
    ours = statistics.median(times)

    class Echo(App[None]):
        def compose(self):
            yield Static(id="out")
            yield Input()

        def on_input_submitted(self, event: Input.Submitted) -> None:
            self.submit(event.value)
            event.input.value = ""

        def submit(self, value: str) -> None:
            self.query_one("#out", Static).update(value)

    times.clear()
    echo = Echo()
    echo.submit = timed(echo, echo.submit)  # type: ignore[method-assign]
    async with echo.run_test(size=(100, 30)) as pilot:
        for _ in range(runs):
            await pilot.press(*"roll 2d10", "enter")
            await pilot.pause()
    return ours, statistics.median(times)


async def watcher(path: str, runs: int) -> tuple[float, float]:
    from textual.app import App
    from textual.widgets import Static

    from margin.tui.screens.app import watch_app

    player = next(
        c.name for c in Table.open(path, readonly=True).state.characters.values() if not c.hidden
    )
    app = watch_app(path, player)
    writer = Table.open(path)
    times = []
    async with app.run_test(size=(100, 30)) as pilot:
        for i in range(runs):
            seq = app.view.table.projection.seq
            writer.execute(Note(text=f"commit {i}"))
            t0 = time.perf_counter()
            while app.view.table.projection.seq == seq:
                await asyncio.sleep(0.001)
            await pilot.pause()
            times.append(time.perf_counter() - t0)
    writer.close()

    class Poller(App[None]):
        """An empty app polling a value on the same timer the screens use."""

        value = 0

        def compose(self):
            yield Static(id="out")

        def on_mount(self) -> None:
            self.seen = 0
            self.set_interval(0.02, self.poll)

        def poll(self) -> None:
            if self.value != self.seen:
                self.seen = self.value
                self.query_one("#out", Static).update(str(self.value))

    base = []
    poller = Poller()
    async with poller.run_test(size=(100, 30)) as pilot:
        for i in range(runs):
            poller.value = i + 1
            t0 = time.perf_counter()
            while poller.seen != i + 1:
                await asyncio.sleep(0.001)
            await pilot.pause()
            base.append(time.perf_counter() - t0)
    return statistics.median(times), statistics.median(base)


def replay_steps(path: str, runs: int) -> tuple[float, float]:
    """One replay step (state and visible log rows) at random places, as it happened and as corrected."""
    import random

    from margin.tui.screens.app import replay_app

    app = replay_app(path)
    view = app.view
    places = random.Random(1).sample(range(len(view.seqs())), runs)
    out = []
    for corrected in (False, True):
        view.set_corrected(corrected)
        view.state()  # the corrected fold is built once, on the first switch
        times = []
        for place in places:
            t0 = time.perf_counter()
            view.goto(min(place, len(view.seqs()) - 1))
            view.state()
            view.characters()
            view.clock()
            view.rows(max(0, view.at - 30), view.at + 1)
            times.append(time.perf_counter() - t0)
        out.append(statistics.median(times))
    view.table.close()
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--system", default="d100-under")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    get_system(args.system)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.margin"
        t0 = time.perf_counter()
        build(path, args.records, args.system)
        print(f"built {args.records} records in {time.perf_counter() - t0:.1f} s")

        base = first_frame("empty", args.runs)
        ours = first_frame(str(path), args.runs)
        rows = [("start to first frame", ours, base, 0.8)]
        ours, base = asyncio.run(keystroke(str(path), args.runs * 4))
        rows.append(("keystroke to screen (roll)", ours, base, 0.050))
        ours, base = asyncio.run(watcher(str(path), args.runs * 4))
        rows.append(("watcher commit to screen", ours, base, 0.100))

        happened, corrected = replay_steps(str(path), args.runs * 4)

    print(
        f"replay step: {happened * 1000:.1f} ms as it happened, {corrected * 1000:.1f} ms as corrected"
    )
    print(f"{'measure':<28}{'margin':>10}{'empty app':>12}{'ratio':>8}{'target':>10}  ok")
    for name, ours, base, target in rows:
        ok = "yes" if ours < target else "NO"
        print(
            f"{name:<28}{ours * 1000:>8.0f}ms{base * 1000:>10.0f}ms{ours / base:>8.1f}{target * 1000:>8.0f}ms  {ok}"
        )


if __name__ == "__main__":
    main()
