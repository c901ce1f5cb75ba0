"""Torture a table with the real process mix for longer (run by hand, not part of the tests).

    python bench/torture.py [--schedules 12] [--steps 30] [--seed 100] [--hosted-every 3]
                            [--postgres-every 4]

Runs ``--schedules`` schedules of ``tests/torturing.py`` (seeds ``--seed``,
``--seed + 1``, ...), each of ``--steps`` steps after the GM's screen starts: the
GM's screen in a tmux pane noting, ``margin do`` writers, players' ``margin watch``
joining and quitting, ``log``/``state``/``export``/``verify``/``backup``, and
``kill -9`` of any of them. Every ``--hosted-every``-th schedule hosts the table
(``margin host``) and seats join and quit over SSH; every ``--postgres-every``-th
runs on a table in PostgreSQL (a throwaway server, ``tests/pg_server.py``) instead
of a file (0: never). Reports schedules run, processes started and killed,
commands acknowledged, and what must be 0: lost, duplicated, forks (two records
given one number), watchers that did not converge, backups missing records, and
other failures; each failing schedule's seed and steps are printed, to replay
with ``MARGIN_TORTURE_SEED=N pytest tests/test_torture.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import pg_server  # noqa: E402
from torturing import Figures, Torture, as_json, torture  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=12)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--hosted-every", type=int, default=3)
    parser.add_argument("--postgres-every", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    args = parser.parse_args()
    total = Figures(schedules=0)
    failed: list[Torture] = []
    start = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="margin-torture-") as tmp,
        _postgres(args.postgres_every > 0) as pg,
    ):
        for n in range(args.schedules):
            seed = args.seed + n
            folder = Path(tmp) / f"s{seed}"
            on_pg = pg is not None and args.postgres_every and (n + 1) % args.postgres_every == 0
            hosted = not on_pg and args.hosted_every and (n + 1) % args.hosted_every == 0
            table = pg.url(f"torture{seed}") if on_pg and pg else str(folder / "t.margin")
            run = torture(table, folder, folder / "data", seed, args.steps, hosted=bool(hosted))
            total.add(run.figures)
            kind = "postgresql" if on_pg else "hosted file" if hosted else "file"
            verdict = "ok" if run.figures.sound else "FAILED"
            print(
                f"schedule {seed} ({kind}): {verdict}; {run.figures.started} started, "
                f"{run.figures.killed} killed, {run.figures.acknowledged} acknowledged",
                flush=True,
            )
            if not run.figures.sound:
                failed.append(run)
            shutil.rmtree(folder, ignore_errors=True)
    took = time.monotonic() - start
    if args.json:
        print(json.dumps({**as_json(total), "seconds": round(took)}))
    else:
        print(f"\n{took:.0f} s")
        print("\n".join(total.lines()))
    for run in failed:
        print("\n" + run.report())
    return 1 if failed else 0


@contextlib.contextmanager
def _postgres(wanted: bool) -> Iterator[pg_server.Server | None]:
    """A throwaway PostgreSQL server for the run, if ``wanted`` and the machine has one."""
    if not wanted or (
        os.environ.get("MARGIN_TEST_POSTGRES") is None and pg_server.binaries() is None
    ):
        yield None
        return
    with pg_server.running() as server:
        if server.passfile is not None:
            os.environ["PGPASSFILE"] = str(server.passfile)
        yield server


if __name__ == "__main__":
    raise SystemExit(main())
