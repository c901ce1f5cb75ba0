"""Fixtures every test file may use, and the suite's seeded randomness.

Every test keeps margin's data directory (the GM's signing key, the default
table, command history) in a folder of its own, never in the home folder, so
tests run side by side on every core (pytest-xdist) without meeting.

Hypothesis runs seeded (``derandomize``): each property sees the same examples
on every run and on every machine, so a failure in CI is the failure on a
laptop. ``HYPOTHESIS_PROFILE=explore pytest`` draws new examples on each run
instead, and prints how to reproduce what it finds.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from margin.tui import table as tablemod
from margin.tui.demo import build_demo

settings.register_profile("seeded", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


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
