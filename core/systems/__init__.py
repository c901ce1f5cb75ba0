"""The dice systems margin plays, by id."""

from __future__ import annotations

from ..errors import RuleError
from . import chance, edge, effect, under
from .base import Command, Option, System

SYSTEMS: dict[str, System] = {
    s.id: s for s in (edge.SYSTEM, chance.SYSTEM, under.SYSTEM, effect.SYSTEM)
}


def get_system(system_id: str) -> System:
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise RuleError(
            f"system {system_id!r} is not known (systems: {', '.join(SYSTEMS)})"
        ) from None


__all__ = ["SYSTEMS", "Command", "Option", "System", "get_system"]
