"""Fixtures every test file may use, and the suite's seeded randomness.

Every test keeps margin's data directory (the GM's signing key, the default
table, command history) in a folder of its own, never in the home folder, so
tests run side by side on every core (pytest-xdist) without meeting. Tests of
tables in PostgreSQL share one server for each process that runs tests.

Hypothesis runs seeded (``derandomize``): each property sees the same examples
on every run and on every machine, so a failure in CI is the failure on a
laptop. ``HYPOTHESIS_PROFILE=explore pytest`` draws new examples on each run
instead, and prints how to reproduce what it finds.
"""

from __future__ import annotations

import sys

# Every test process collects every test file, and pytest compiles each one anew to rewrite
# its asserts unless the result may be kept: keep it (and margin's own modules) even where
# the environment says PYTHONDONTWRITEBYTECODE, which would cost each process two seconds.
sys.dont_write_bytecode = False

import itertools
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pg_server
import pytest
from hypothesis import settings
from pg_server import Server
from support import lacking
from textual import _wait as textual_wait

from margin.tui.table import table as tablemod
from margin.tui.table.demo import build_demo

settings.register_profile("seeded", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))

# Pilot waits for the app to settle by sampling the process's CPU time: a slice in which it
# used a twentieth of the slice or less is idle. Textual's slices are 20 ms and a key press
# waits for two; 4 ms slices keep the test and let the screen tests run in half the time.
textual_wait.SLEEP_GRANULARITY = 0.004
textual_wait.SLEEP_IDLE = textual_wait.SLEEP_GRANULARITY / 20


@pytest.fixture(scope="session", autouse=True)
def session_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A margin data folder for what session and module fixtures build, before any test's
    own: the account's folder (its key, what its margin checked) is never touched."""
    home = tmp_path_factory.mktemp("session-data-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(home))
        yield home


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def pg() -> Iterator[Server]:
    """A PostgreSQL server for the session (``tests/pg_server.py``); skipped where there is
    none to start, except in CI, where ``.ci/run`` installs one."""
    if os.environ.get("MARGIN_TEST_POSTGRES") is None and pg_server.binaries() is None:
        lacking("PostgreSQL", ["postgresql"])
    with pg_server.running() as server:
        saved = os.environ.get("PGPASSFILE")
        if server.passfile is not None:
            # margin processes the tests start find the password as a user's would
            os.environ["PGPASSFILE"] = str(server.passfile)
        try:
            yield server
        finally:
            if saved is None:
                os.environ.pop("PGPASSFILE", None)
            else:
                os.environ["PGPASSFILE"] = saved


@pytest.fixture
def pg_url(pg: Server) -> str:
    """The URL of a table not made yet, in the session's PostgreSQL database."""
    return pg.url(f"t{_WORKER}{next(_tables)}")


_tables = itertools.count(1)
#: test processes running side by side may share one server (MARGIN_TEST_POSTGRES): each
#: names its tables apart
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


@pytest.fixture(params=["sqlite", "postgres"])
def table_name(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's table goes: a file, then (the same test again) a table in PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "table.margin")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def fixed_command_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands are numbered cmd0001, cmd0002, ... so screens and snapshots read the same
    on every run."""
    counter = itertools.count(1)
    monkeypatch.setattr(tablemod, "new_command_id", lambda: f"cmd{next(counter):04d}")


@pytest.fixture(scope="session")
def demo_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, Path], Path]:
    """``demo_copy(system, path)``: a copy of the system's demo table (what ``margin demo``
    writes) at ``path``. Each system's demo is played once a session, for tests that play
    many tables (properties, fuzzing) rather than the demo itself."""
    folder = tmp_path_factory.mktemp("demos")
    played: dict[str, Path] = {}

    def copy(system: str, path: Path) -> Path:
        if system not in played:
            played[system] = folder / f"{system}.margin"
            build_demo(played[system], system).close()
        shutil.copyfile(played[system], path)
        return path

    return copy


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a test process for each core and one more. Many tests spend much of
    their time waiting (on a margin process, a server, a screen settling), and the extra
    process keeps the cores busy meanwhile."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slow tests start first, so that the run does not end on one of them alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
