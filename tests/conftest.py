"""Every test keeps margin's data directory (default table, command history) in its own folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home
