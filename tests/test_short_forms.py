"""Every system's short-form examples (listed in the screen's help) run on its demo table."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import SYSTEMS
from tui import commandline
from tui.demo import build_demo


@pytest.mark.parametrize("system_id", sorted(s.id for s in SYSTEMS.values() if s.short_forms))
def test_short_forms_run_in_order_on_the_demo_table(tmp_path: Path, system_id: str) -> None:
    table = build_demo(tmp_path / "demo.margin", system_id)
    try:
        for line, what in SYSTEMS[system_id].short_forms:
            assert what, line
            parsed = commandline.parse_line(line, table.state)
            assert parsed.command is not None, line
            before = table.projection.seq
            table.execute(parsed.command)
            assert table.projection.seq > before, line
    finally:
        table.close()


def test_every_system_lists_short_forms() -> None:
    assert all(system.short_forms for system in SYSTEMS.values())
