"""How long the recap and the luck report of a long session take.

Builds a 2d10-edge table of 100,000 records made of real fights (fresh
enemies seated for each encounter and removed after it, turns, attacks,
damage, injuries and checks, decided with margin's dice through ``margin
do``'s JSON commands),
then times, in the same run:

- the baseline: ``margin state TABLE --json``, one fold of the log;
- ``margin recap TABLE`` (Markdown), ``margin recap TABLE --format html``,
  ``margin recap TABLE --as Kael`` (through the player lens) and ``margin
  luck TABLE``.

Each is a fresh process, as a GM runs it, on a fresh copy of the table as built (no
snapshot: a snapshot is a cache, so the baseline folds everything, and so does each
command), timed as processor time (user + system) with its peak memory, each command
paired with a baseline run just before it in the same repetition. Target: each within
2x of the fold.

    python bench/recap.py                 # 100,000 records
    python bench/recap.py --records 20000
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from margin.core import RuleError, get_system
from margin.core.commands import convert_command
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "2d10-edge"
PARTY = ("Kael", "Moreau", "Vask")

# these figures are of folds of the whole log: the tables keep no snapshots to open from
# (bench/length.py measures opening from them)
Table.snapshot_every = Table.snapshot_at_close = 2**62


def sheets() -> dict[str, dict[str, Any]]:
    """The demo's sheets by name: the party's and the two enemies'."""
    return {d["name"]: d["sheet"] for d in get_system(SYSTEM).demo if d["type"] == "add-character"}


def build(path: Path, records: int, seed: int) -> tuple[int, int]:
    """Fight encounter after encounter until the table holds ``records`` records.

    Returns (commands run, commands the rules refused).
    """
    rng = random.Random(seed)
    table = Table.create(path, SYSTEM)
    table.dice = RandomDice(seed)
    sheet = sheets()
    skill = {name: next(iter(sheet[name]["skills"])) for name in sheet}
    ran = refused = 0

    def do(**command: Any) -> bool:
        nonlocal ran, refused
        try:
            table.execute(convert_command(SYSTEM, command))
        except RuleError:
            refused += 1
            return False
        ran += 1
        return True

    for name in PARTY:
        do(type="add-character", name=name, sheet=sheet[name])
    fight = 0
    while table.projection.seq < records:
        fight += 1
        enemies = [f"Guard {fight}", f"Enforcer {fight}"]
        do(type="add-character", name=enemies[0], sheet=sheet["Guard"])
        do(type="add-character", name=enemies[1], sheet=sheet["Enforcer"])
        for name in PARTY:
            do(type="check", character=name, skill=skill[name], tn=rng.choice((15, 20, 25)))
        do(type="start-encounter", name=f"Fight {fight}", characters=[*PARTY, *enemies])
        for _ in range(12):
            do(type="next-turn")
            who = _acting(table)
            if who is None:
                continue
            if who in PARTY:
                do(type="attack", character=who, target=rng.choice(enemies), tn=20)
            else:  # the party has to live through every fight: enemies keep watch
                do(type="check", character=who, skill=skill[who.split()[0]], tn=20)
        do(type="end-encounter")
        for name in enemies:  # as a GM clears a fight's enemies off the table
            do(type="remove-character", character=name)
    table.close()
    return ran, refused


def _acting(table: Table) -> str | None:
    """The name of the character whose turn it is, if any."""
    encounter = getattr(table.state.world, "encounter", None)
    character = table.state.characters.get(getattr(encounter, "current", "") or "")
    return character.name if character is not None else None


def run(args: list[str], table: Path, pristine: Path) -> tuple[float, float]:
    """The processor time (user + system, seconds) and peak memory (MiB) of one fresh
    ``margin ARGS`` process on a copy of the table as built: no snapshot to open from."""
    shutil.copyfile(pristine, table)
    proc = subprocess.Popen([sys.executable, "-m", "margin.tui", *args], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"margin {' '.join(args)} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


#: what is timed against the fold, each as a GM runs it
COMMANDS = (
    ("margin recap", ["recap"]),
    ("margin recap --format html", ["recap", "--format", "html"]),
    ("margin recap --as Kael", ["recap", "--as", "Kael"]),
    ("margin luck", ["luck"]),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        pristine, path = Path(folder) / "long.margin", Path(folder) / "run.margin"
        start = time.perf_counter()
        ran, refused = build(pristine, args.records, args.seed)
        made = time.perf_counter() - start
        table = Table.open(pristine, readonly=True)
        size = table.projection.seq
        table.close()
        print(
            f"table: {size:,} records from {ran:,} commands ({refused:,} refused) in {made:.1f} s"
        )
        base_args = ["state", str(path), "--json"]
        run(base_args, path, pristine)  # compiled and cached once, for every run alike
        ratios: dict[str, list[float]] = {label: [] for label, _ in COMMANDS}
        for rep in range(args.repeats):
            base, base_mem = run(base_args, path, pristine)
            print(
                f"rep {rep + 1}: {'margin state --json (baseline)':<30} {base:5.2f} s {base_mem:5.0f} MiB"
            )
            for label, extra in COMMANDS:
                took, mem = run([extra[0], str(path), *extra[1:]], path, pristine)
                ratios[label].append(took / base)
                print(
                    f"rep {rep + 1}: {label:<30} {took:5.2f} s {mem:5.0f} MiB  {took / base:4.2f}x"
                )
        for label, found in ratios.items():
            print(f"{label:<30} median {sorted(found)[len(found) // 2]:4.2f}x the fold (target 2x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
