"""Fuzz ``margin do`` and ``margin resolve`` with malformed lines; count internal errors.

Every line must be answered with one JSON line, and no answer may be
``margin failed (...)``, which margin gives only for its own bugs. Afterwards
every table written must pass ``margin verify``. Usage::

    python bench/fuzz.py                 # 100,000 lines of each
    python bench/fuzz.py --lines 5000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import Fuzzer  # noqa: E402
from support import run_margin  # noqa: E402

from margin.core import SYSTEMS  # noqa: E402

#: Lines sent to one table before the next one is made (rotating through the systems).
PER_TABLE = 2_000


def send(argv: list[str], lines: list[bytes], problems: list[str]) -> tuple[list[str], int, int]:
    """``margin ARGV`` fed ``lines``: its replies, the lines left unanswered, its internal errors.

    What it wrote to stderr and the first internal errors go into ``problems``.
    """
    _, out, err = run_margin(*argv, stdin=b"".join(lines))
    replies = out.splitlines()
    if err:
        problems.append(f"{' '.join(argv)}: {err.strip()[:300]}")
    asked = sum(1 for line in lines if line.strip())
    internal = []
    for reply in replies:
        text = json.loads(reply).get("error", "")
        if "margin failed" in text:
            internal.append(text)
    problems.extend(internal[:3])
    return replies, asked - len(replies), len(internal)


def main_(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=100_000, help="lines of each kind")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--dir", help="where the tables are written (default: a temporary folder)")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    fuzz = Fuzzer(random.Random(seed))
    tmp = tempfile.TemporaryDirectory(
        dir=args.dir or ("/dev/shm" if Path("/dev/shm").is_dir() else None)
    )
    folder = Path(tmp.name)
    print(f"seed {seed}, {args.lines:,} lines of each, tables in {folder}")

    problems: list[str] = []
    start = time.perf_counter()
    internal = unanswered = ok = tables = bad_tables = 0
    systems = list(SYSTEMS)
    done = 0
    while done < args.lines:
        count = min(PER_TABLE, args.lines - done)
        system = systems[tables % len(systems)]
        path = folder / f"t{tables}.margin"
        tables += 1
        code, _, err = run_margin("demo", str(path), "--system", system)
        if code != 0:
            problems.append(f"demo {system}: {err.strip()}")
            continue
        replies, missing, found = send(
            ["do", str(path)], fuzz.command_lines(system, count), problems
        )
        unanswered += missing
        internal += found
        ok += sum(1 for reply in replies if '"ok": true' in reply)
        code, out, err = run_margin("verify", str(path))
        if code != 0:
            bad_tables += 1
            problems.append(err.strip())
        done += count
    do_seconds = time.perf_counter() - start
    print(
        f"margin do: {args.lines:,} lines, {ok:,} commands applied, {tables} tables, "
        f"{do_seconds:.1f} s; internal errors {internal}, unanswered {unanswered}, "
        f"tables failing verify {bad_tables}"
    )

    start = time.perf_counter()
    r_internal = r_unanswered = r_ok = 0
    done = 0
    while done < args.lines:
        count = min(10_000, args.lines - done)
        replies, missing, found = send(["resolve"], fuzz.request_lines(count), problems)
        r_unanswered += missing
        r_internal += found
        r_ok += sum(1 for reply in replies if '"error"' not in reply)
        done += count
    print(
        f"margin resolve: {args.lines:,} lines, {r_ok:,} resolved, "
        f"{time.perf_counter() - start:.1f} s; internal errors {r_internal}, "
        f"unanswered {r_unanswered}"
    )
    for problem in problems[:20]:
        print("  ", problem[:400])
    tmp.cleanup()
    failed = internal + unanswered + bad_tables + r_internal + r_unanswered
    print("all lines answered, no internal errors" if not failed else f"{failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main_())
