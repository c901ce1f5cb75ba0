"""Demo tables: a small party and a fight from the system's own examples."""

from __future__ import annotations

from pathlib import Path

from margin.core import get_system
from margin.core.commands import convert_command
from margin.core.dice import Dice

from .table import Table


def build_demo(path: str | Path, system_id: str, dice: Dice | None = None) -> Table:
    """Create a table at ``path`` and run the system's demo commands on it.

    ``dice``: where the demo's rolls come from (margin's random source by default).
    """
    system = get_system(system_id)
    table = Table.create(path, system_id, title=f"{system.title} demo")
    if dice is not None:
        table.dice = dice
    for data in system.demo:
        table.execute(convert_command(system_id, data))
    return table
