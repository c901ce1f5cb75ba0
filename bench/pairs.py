"""What the rebuild benchmarks share: the floor (reading and decoding a table's records
straight from SQLite, nothing of margin's reading loop) and runs paired rep by rep."""

from __future__ import annotations

import gc
import sqlite3
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from margin.events import FORMAT
from margin.events.record import current_decoder
from margin.events.sqlite import sqlite_uri


def floor(path: Path) -> int:
    """Read and decode every record straight from the table file, with the bare decoder of
    this margin's format: the least any rebuild must do. The records decoded."""
    decode = current_decoder().decode
    db = sqlite3.connect(sqlite_uri(path, mode="ro"), uri=True)
    count = 0
    try:
        cursor = db.execute("SELECT v, body FROM records ORDER BY seq")
        cursor.arraysize = 4096
        while batch := cursor.fetchmany():
            for v, body in batch:
                assert v == FORMAT
                decode(body)
            count += len(batch)
    finally:
        db.close()
    return count


def cpu_of(fn: Callable[[], object]) -> float:
    """The processor seconds ``fn`` took, the collector paused (as a table's fold has it)
    and the heap tidied before and after (what a table's opening froze is let go)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def paired(runs: Sequence[Callable[[], object]], repeats: int) -> list[list[float]]:
    """Processor seconds of each of ``runs``, run one after the other in every rep: one
    list per run, rep by rep, so each rep's figures share the machine's moment."""
    got: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for times, fn in zip(got, runs, strict=True):
            times.append(cpu_of(fn))
    return got


def ratio(ours: list[float], base: list[float]) -> float:
    """The median of the rep-by-rep ratios of two paired runs."""
    return statistics.median(o / b for o, b in zip(ours, base, strict=True))
