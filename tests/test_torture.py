"""The table tortured by the real process mix (``torturing.py``): seeded schedules of the
GM's screen, players watching and seated over SSH, readers, backups, ``margin do``
writers, and ``kill -9`` of any of them, on a table file and on PostgreSQL.

A bounded number of short schedules runs here; ``bench/torture.py`` runs many longer
ones. A failing schedule prints its seed, its steps and what went wrong; set
``MARGIN_TORTURE_SEED`` to replay it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pg_server import Server
from support import need
from torturing import Torture, seeds, torture

pytestmark = pytest.mark.slow
#: steps of a schedule here (after the GM's screen starts)
STEPS = 12


def _passes(run: Torture) -> None:
    print(run.report())  # the figures, shown by pytest -rP
    assert run.figures.sound, run.report()
    assert run.figures.acknowledged > 0


@pytest.mark.parametrize("seed", seeds([9]))
def test_a_table_file_keeps_what_it_acknowledged_under_the_process_mix(
    tmp_path: Path, data_home: Path, seed: int
) -> None:
    need("tmux")
    run = torture(str(tmp_path / "t.margin"), tmp_path, data_home, seed, STEPS)
    _passes(run)


@pytest.mark.parametrize("seed", seeds([13]))
def test_a_hosted_table_keeps_what_it_acknowledged_with_seats_coming_and_going(
    tmp_path: Path, data_home: Path, seed: int
) -> None:
    need("tmux", "ssh", "ssh-keygen")
    run = torture(str(tmp_path / "t.margin"), tmp_path, data_home, seed, STEPS, hosted=True)
    _passes(run)


@pytest.mark.parametrize("seed", seeds([8]))
def test_a_postgresql_table_keeps_what_it_acknowledged_under_the_process_mix(
    pg: Server, pg_url: str, tmp_path: Path, data_home: Path, seed: int
) -> None:
    need("tmux")
    run = torture(pg_url, tmp_path, data_home, seed, STEPS)
    _passes(run)
