"""What a margin killed while it built a table leaves beside it, and who clears it.

``import``, ``backup`` and ``branch`` build their table under a hidden name beside
the target (``.NAME.PID.partial``, with SQLite's ``-wal``, ``-shm`` and ``-journal``
files) and move it into place when it is complete. Killed with SIGKILL part way
they leave that behind; the next run of the same command, or any margin command
naming a table in that folder, removes it. A partial file whose process number
is alive is kept unless it is an hour old and nobody holds a lock on it (the
number went to another process).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import MARGIN, exported_notes, margin_process, run_margin

from margin.events.sqlite import STALE_PARTIAL, clear_partials

pytestmark = pytest.mark.slow

#: records of the table the killed commands copy: enough that each builds for a while
RECORDS = 10_001


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A table of ``RECORDS`` records in 100 signed commands, and its export."""
    return exported_notes(tmp_path_factory.mktemp("large"), "large", RECORDS // 100)


def partials(folder: Path, target: str = "") -> list[str]:
    """The names of the partial tables (and their side files) in ``folder``, of ``target``'s."""
    return sorted(
        p.name for p in folder.iterdir() if p.name.startswith(f".{target}") and ".partial" in p.name
    )


def killed_while_building(argv: list[str], target: Path) -> list[str]:
    """``margin ARGV`` killed with SIGKILL once its partial table for ``target`` is there: what
    it left."""
    proc = subprocess.Popen([*MARGIN, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while not partials(target.parent, target.name) and proc.poll() is None:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the command finished before it was killed"
    assert proc.stderr is not None
    proc.stderr.close()
    return partials(target.parent, target.name)


def commands(large: tuple[Path, Path], target: Path) -> dict[str, list[str]]:
    table, dump = large
    return {
        "import": ["import", str(dump), str(target)],
        "backup": ["backup", str(table), str(target)],
        "branch": ["branch", str(table), "--at", str(RECORDS - 100), str(target)],
    }


@pytest.mark.parametrize("command", ["import", "backup", "branch"])
def test_a_killed_build_is_cleared_by_the_next_run(
    large: tuple[Path, Path], tmp_path: Path, command: str
) -> None:
    target = tmp_path / "made.margin"
    argv = commands(large, target)[command]
    left = killed_while_building(argv, target)
    assert left, "the kill left the partial table"
    assert not target.exists()
    again = margin_process(*argv)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["made.margin"]
    records = RECORDS - 100 + 1 if command == "branch" else RECORDS
    verified = margin_process("verify", str(target))
    assert verified.returncode == 0, verified.stderr
    assert f"{records} records checked" in verified.stdout


@pytest.mark.parametrize("command", ["import", "backup", "branch"])
def test_any_command_naming_a_table_in_the_folder_clears_what_killed_builds_left(
    large: tuple[Path, Path], tmp_path: Path, command: str
) -> None:
    assert run_margin("new", str(tmp_path / "fight.margin"), "--system", "2d10-edge").code == 0
    target = tmp_path / "made.margin"
    assert killed_while_building(commands(large, target)[command], target)
    assert run_margin("log", str(tmp_path / "fight.margin")).code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fight.margin"]


@pytest.fixture
def live_process(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A process that is not a builder, holding a POSIX lock on a file, as SQLite holds its
    locks: its number, and the locked file."""
    locked = tmp_path / ".locked.margin.0.partial"
    locked.touch()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            "fd = os.open(sys.argv[1], os.O_RDWR)\n"
            "fcntl.lockf(fd, fcntl.LOCK_SH)\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
            str(locked),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "locked\n"
    yield proc.pid, locked
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)
    proc.stdout.close()


def leave(folder: Path, name: str, *suffixes: str, age: float = 0.0) -> list[Path]:
    """A builder's leftovers: the files ``.NAME`` and ``.NAME``+suffix, last changed ``age`` ago."""
    made = [folder / f".{name}{suffix}" for suffix in ("", *suffixes)]
    for path in made:
        path.write_bytes(b"left")
        os.utime(path, (time.time() - age, time.time() - age))
    return made


def test_only_a_dead_builders_leftovers_are_cleared(
    tmp_path: Path, live_process: tuple[int, Path]
) -> None:
    live, locked = live_process
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    )
    dead = int(ended.stdout)
    old = STALE_PARTIAL + 60
    # no process has the number: gone, a side file alone too
    gone = leave(tmp_path, f"a.margin.{dead}.partial", "-journal")
    gone += [leave(tmp_path, f"b.margin.{dead}.partial-wal")[0]]
    # the number's process is alive: a builder at work, unless an hour old and unlocked
    working = leave(tmp_path, f"c.margin.{live}.partial", "-wal", "-shm")
    reused = leave(tmp_path, f"d.margin.{live}.partial", "-journal", age=old)
    held = tmp_path / f".e.margin.{live}.partial"
    locked.rename(held)
    os.utime(held, (time.time() - old, time.time() - old))
    # not a builder's at all
    other = leave(tmp_path, "f.margin.partial") + leave(tmp_path, f"g.margin.{dead}.partial.txt")
    # this process's own, which it may be building now
    own = leave(tmp_path, f"h.margin.{os.getpid()}.partial", age=old)

    removed = clear_partials(tmp_path)

    assert sorted(removed) == sorted(
        tmp_path / name
        for name in (
            f".a.margin.{dead}.partial",
            f".b.margin.{dead}.partial",
            f".d.margin.{live}.partial",
        )
    )
    assert not any(path.exists() for path in gone + reused)
    assert all(path.exists() for path in [*working, held, *other, *own])
    # asking for one target's leftovers leaves every other target's
    leave(tmp_path, f"a.margin.{dead}.partial")
    leave(tmp_path, f"b.margin.{dead}.partial")
    assert clear_partials(tmp_path, "b.margin") == [tmp_path / f".b.margin.{dead}.partial"]
    assert (tmp_path / f".a.margin.{dead}.partial").exists()
