"""What the GM's bookkeeping costs: conditions ending on the clock, and the clock's fold.

In one run, on a 2d6-effect fight of eight combatants (margin's own turn
order):

- ``next-turn`` as the GM runs it (``Table.execute``: decided, appended to a
  table file, folded) with no condition at the table (the baseline), then
  with three timed conditions on every combatant (each command then folds its
  drafts into a copy of the state to find the conditions whose time is up);
  target: at most 1.25 times the baseline. The same two decided in memory
  alone, with no disk in the way, are shown beside it: there the copy is most
  of the work;
- a rebuild of a log of nothing but turns (20,000 of them, the worst case)
  with the clock's fold step as it is (counting the turns begun, for
  conditions lasting turns), against the same fold with that step left out;
  target: at most 2 times.

    python bench/bookkeeping.py
    python bench/bookkeeping.py --turns 5000
"""

from __future__ import annotations

import argparse
import functools
import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from margin.core import History, Projection, TableState, create_table, decide, decider
from margin.core import clock as clockmod
from margin.core.commands import convert_command
from margin.events import Draft, Record
from margin.events.store import records_after
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "2d6-effect"
FIGHTERS = [f"Fighter {n}" for n in range(1, 9)]


class Memory:
    """A log in memory: records numbered as a store would number them."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.projection = Projection(lambda after, upto: self.records[after:upto])
        self.dice = RandomDice(7)

    @property
    def state(self) -> TableState:
        return self.projection.state

    @property
    def history(self) -> History:
        return self.projection.history

    def append(self, drafts: list[Draft], command: str) -> None:
        new = records_after(drafts, len(self.records), command=command, author="gm", at="")
        self.records.extend(new)
        self.projection.extend(new)

    def do(self, **data: Any) -> None:
        command = convert_command(SYSTEM, data)
        self.append(decide(command, self.state, self.dice, self.history), f"c{len(self.records)}")


def setup(do: Callable[..., Any], conditions: bool) -> None:
    """Eight fighters, the first turn begun, and three timed conditions each if asked."""
    do(type="add-character", name="Fighter", count=len(FIGHTERS))
    do(type="start-encounter", characters=["Fighter"])
    do(type="next-turn")
    if conditions:
        # long enough that none ends while the commands are timed: the search is the cost
        for name in ("prone", "blessed", "marked"):
            do(type="add-condition", character="Fighter", name=name, rounds=10_000)


def fight(conditions: bool) -> Memory:
    table = Memory()
    table.append([Draft(create_table(SYSTEM))], "c0")
    setup(table.do, conditions)
    return table


def time_next_turns(conditions: bool, count: int) -> float:
    """Seconds per next-turn command, the median of five runs."""
    runs = []
    for _ in range(5):
        table = fight(conditions)
        gc.collect()
        start = time.perf_counter()
        for _ in range(count):
            table.do(type="next-turn")
        runs.append((time.perf_counter() - start) / count)
    return statistics.median(runs)


def _execute(table: Table, **data: Any) -> None:
    table.execute(convert_command(SYSTEM, data))


def time_on_disk(conditions: bool, count: int, folder: Path) -> float:
    """Seconds per next-turn run through a table file, the median of three runs."""
    runs = []
    for n in range(3):
        table = Table.create(folder / f"{conditions}-{n}.margin", SYSTEM)
        table.dice = RandomDice(7)
        try:
            setup(functools.partial(_execute, table), conditions)
            command = convert_command(SYSTEM, {"type": "next-turn"})
            gc.collect()
            start = time.perf_counter()
            for _ in range(count):
                table.execute(command)
            runs.append((time.perf_counter() - start) / count)
        finally:
            table.close()
    return statistics.median(runs)


def time_rebuild(records: list[Record], ticking: bool) -> float:
    """Seconds to fold ``records``, the median of three runs."""
    saved = dict(decider.HANDLERS)
    if not ticking:
        for kind, step in clockmod.HANDLERS.items():
            decider.HANDLERS[kind] = step.__wrapped__  # type: ignore[attr-defined]
    try:
        runs = []
        for _ in range(3):
            gc.collect()
            start = time.perf_counter()
            Projection(lambda after, upto: records[after:upto]).extend(records)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs)
    finally:
        decider.HANDLERS.clear()
        decider.HANDLERS.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20_000, help="turns in the rebuilt log")
    parser.add_argument("--commands", type=int, default=500, help="next-turn commands timed")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        plain = time_on_disk(False, args.commands // 5, Path(folder))
        timed = time_on_disk(True, args.commands // 5, Path(folder))
    ratio = timed / plain
    print(f"next-turn on a table file, no condition:         {plain * 1e3:7.2f} ms  (baseline)")
    print(
        f"next-turn on a table file, 24 timed conditions:  {timed * 1e3:7.2f} ms  x{ratio:.2f} "
        f"(target x1.25: {'met' if ratio <= 1.25 else 'MISSED'})"
    )
    plain = time_next_turns(False, args.commands)
    timed = time_next_turns(True, args.commands)
    print(f"next-turn decided in memory, no condition:        {plain * 1e6:7.0f} µs")
    print(
        f"next-turn decided in memory, 24 timed conditions: {timed * 1e6:7.0f} µs  "
        f"x{timed / plain:.2f}"
    )

    table = fight(True)
    for _ in range(args.turns):
        table.do(type="next-turn")
    records = table.records
    bare = time_rebuild(records, ticking=False)
    full = time_rebuild(records, ticking=True)
    ratio = full / bare
    print(f"rebuild of {len(records):,} records, no turn counting: {bare:6.3f} s  (baseline)")
    print(
        f"rebuild of {len(records):,} records, turns counted:   {full:6.3f} s  x{ratio:.2f} "
        f"(target x2.00: {'met' if ratio <= 2 else 'MISSED'})"
    )


if __name__ == "__main__":
    main()
