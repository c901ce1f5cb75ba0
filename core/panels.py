"""What the panels show of a character: the system's status, then counters and conditions."""

from __future__ import annotations

from . import conditions, counters
from .health import view_of
from .state import Character, TableState
from .systems import get_system


def character_status(char: Character, state: TableState) -> list[str]:
    """Status items of one character (``Health 22/30``, ``ammo 4/6``, ``prone, 1 round left``)."""
    system = get_system(state.system)
    items = list(system.status(char, state)) if system.status is not None else []
    if char.health_shown:
        # players told their health in a word (or not at all): the system's numbers go
        label = system.health_label.lower()
        items = [i for i in items if not label or i.split(" ", 1)[0].lower() != label]
        if char.health_shown != "hidden":
            items.insert(0, char.health_shown)
    elif view_of(char, state) != "exact":
        # the GM's own view: a reminder of what players are told
        items.append(f"players: health {view_of(char, state)}")
    return items + counters.status(char) + conditions.status(char, state)
