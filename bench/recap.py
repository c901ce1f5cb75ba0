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

Each is a fresh process, as a GM runs it. Target: a recap under 5 s.

    python bench/recap.py                 # 100,000 records
    python bench/recap.py --records 20000
"""

from __future__ import annotations

import argparse
import random
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


def timed(args: list[str], repeats: int) -> float:
    """The best wall time of ``repeats`` runs of ``margin ARGS``, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "margin.tui", *args],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "long.margin"
        start = time.perf_counter()
        ran, refused = build(path, args.records, args.seed)
        made = time.perf_counter() - start
        table = Table.open(path, readonly=True)
        size = table.projection.seq
        table.close()
        print(
            f"table: {size:,} records from {ran:,} commands ({refused:,} refused) in {made:.1f} s"
        )
        base = timed(["state", str(path), "--json"], args.repeats)
        print(f"{'margin state --json (baseline)':<36} {base:6.2f} s")
        for label, extra in (
            ("margin recap", []),
            ("margin recap --format html", ["--format", "html"]),
            ("margin recap --as Kael", ["--as", "Kael"]),
        ):
            took = timed(["recap", str(path), *extra], args.repeats)
            print(f"{label:<36} {took:6.2f} s  {took / base:4.1f}x baseline")
        took = timed(["luck", str(path)], args.repeats)
        print(f"{'margin luck':<36} {took:6.2f} s  {took / base:4.1f}x baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
