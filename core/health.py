"""What players see of a character's health: exact, descriptive or hidden.

The table's option ``npc_health`` decides for characters seated as NPCs, and
a character's own setting (``health-view``) overrides it. Health is the
system's own (2d10-edge's Health, d100-chance's HP) and any counter named
Health, HP or Hit Points. Records that state it (a counter's value, the
Health an injury is measured against) lose those fields for players, as a
secret record does, and the players' state says only the word, or nothing.
"""

from __future__ import annotations

import msgspec

from margin.events import CounterSet, Event

from .state import Character, TableState
from .systems import get_system

#: counters that are a character's health, by name in lower case
HEALTH_COUNTERS = frozenset({"health", "hp", "hit points"})


def is_health(counter_name: str) -> bool:
    return " ".join(counter_name.lower().split()) in HEALTH_COUNTERS


def view_of(char: Character, state: TableState) -> str:
    """``exact``, ``descriptive`` or ``hidden``: what players see of this character's health."""
    if char.health_view:
        return char.health_view
    return str(state.options.get("npc_health", "exact")) if char.npc else "exact"


def word(current: int, maximum: int) -> str:
    """Health in a word: healthy (full), hurt, bloodied (half or less), down (none)."""
    if current <= 0:
        return "down"
    if current >= maximum:
        return "healthy"
    return "bloodied" if 2 * current <= maximum else "hurt"


def tells_health(event: Event) -> tuple[str, ...]:
    """The fields of a record that state the health of the characters it is about."""
    if isinstance(event, CounterSet):
        return ("value", "max", "change") if is_health(event.name) else ()
    form = type(event).PLAYER
    return form.health if form is not None else ()


def _levels(char: Character, state: TableState) -> tuple[int, int] | None:
    """(current, maximum) of the health players would see, the system's first."""
    system = get_system(state.system)
    own = system.health(char) if system.health is not None else None
    if own is not None:
        return own
    for counter in char.counters.values():
        if is_health(counter.name):
            return counter.value, counter.max
    return None


def for_players(char: Character, state: TableState) -> Character:
    """The character as players may see their health: as it is, in a word, or not at all."""
    view = view_of(char, state)
    if view == "exact":
        return char
    levels = _levels(char, state)
    shown = "" if view == "hidden" or levels is None else word(*levels)
    system = get_system(state.system)
    masked = system.mask_health(char) if system.mask_health is not None else char
    return msgspec.structs.replace(
        masked,
        counters={k: c for k, c in masked.counters.items() if not is_health(c.name)},
        health_shown=shown or "hidden",
    )
