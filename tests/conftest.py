"""Every test keeps margin's data directory (the GM's signing key, the default table,
command history) in a folder of its own, never in the home folder. Tests of tables in
PostgreSQL share one server for the session."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pg_server
import pytest
from pg_server import Server


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
        if os.environ.get("CI"):
            pytest.fail("no PostgreSQL server programs: .ci/run installs the postgresql package")
        pytest.skip("needs PostgreSQL (apt-get install postgresql; .ci/run installs it)")
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
    return pg.url(f"t{next(_tables)}")


_tables = itertools.count(1)


@pytest.fixture(params=["sqlite", "postgres"])
def table_name(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's table goes: a file, then (the same test again) a table in PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "table.margin")
    return str(request.getfixturevalue("pg_url"))
