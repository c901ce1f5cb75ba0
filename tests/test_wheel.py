"""The wheel installs one import package, margin, holding the three layers whole."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# one process builds the wheel: two at once would share the tree's build folder
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_wheel")]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("margin-*.whl")
    return zipfile.ZipFile(built)


def test_only_margin_is_installed_at_the_top(wheel: zipfile.ZipFile) -> None:
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"margin"}


def test_every_package_folder_of_the_tree_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for layer in ("core", "events", "tui"):
        for init in (ROOT / layer).rglob("__init__.py"):
            assert f"margin/{init.relative_to(ROOT).as_posix()}" in names
        for data in [
            d for kind in ("md", "tcss", "html") for d in (ROOT / layer).rglob(f"*.{kind}")
        ]:
            assert f"margin/{data.relative_to(ROOT).as_posix()}" in names


def test_the_command_points_into_margin(wheel: zipfile.ZipFile) -> None:
    (entry,) = [n for n in wheel.namelist() if n.endswith("entry_points.txt")]
    assert "margin = margin.tui.cli:main" in wheel.read(entry).decode()
