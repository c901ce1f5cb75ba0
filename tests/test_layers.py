"""The direction of dependency: events <- core <- tui, core stays pure, and only the screens
and the host import Textual."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "events": {"core", "tui", "textual"},
    "core": {
        "tui",
        "textual",
        "sqlite3",
        "psycopg",
        "random",
        "secrets",
        "time",
        "datetime",
        "os",
        "socket",
    },
    # the application and its words run with no screen: the command line, recaps, tests
    "tui/table": {"textual", "textual_serve", "asyncssh", "rich"},
    "tui/text": {"textual", "textual_serve", "asyncssh"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(_top(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(_top(node.module))
    return found


def _top(module: str) -> str:
    """The layer or library a module belongs to (``margin.core.dice`` is ``core``)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "margin" and len(parts) > 1 else parts[0]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_nothing_forbidden(package: str) -> None:
    offences = []
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = imported_modules(path) & FORBIDDEN[package]
        if bad:
            offences.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert offences == []


def test_the_check_catches_an_offence(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import sqlite3\nfrom margin.tui.cli import main\n")
    assert imported_modules(sample) & FORBIDDEN["core"] == {"sqlite3", "tui"}
