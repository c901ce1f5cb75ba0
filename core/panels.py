"""What the panels show of a character: the system's status, then counters and conditions."""

from __future__ import annotations

from . import conditions, counters
from .state import Character, TableState
from .systems import get_system


def character_status(char: Character, state: TableState) -> list[str]:
    """Status items of one character (``Health 22/30``, ``ammo 4/6``, ``prone, 1 round left``)."""
    system = get_system(state.system)
    items = list(system.status(char, state)) if system.status is not None else []
    return items + counters.status(char) + conditions.status(char, state)
