"""The dice systems margin plays, by id, each one sub-package found rather than listed.

Every system has the same modules (``docs/systems.md`` walks through them):

- ``__init__``: ``SYSTEM``, the system's face (``base.System``): options, demo, short forms;
- ``commands``: the commands, one JSON object each in ``margin do``;
- ``decide``: a command and the state into events;
- ``fold``: each event's step on the state;
- ``state``: the system's characters (built from sheets) and table-wide world;
- ``rules``: the arithmetic, pure functions of numbers;
- ``resolve``: the actions of ``margin resolve``;
- ``present``: what the screens show: log lines, status, clock, odds, vocabulary;
- ``words``: the short forms of the table screen's command line (``words.Grammar``);
- ``recap``: what a recap reads from each event;
- ``rules.md``: the rules as margin plays them, for the GM.

``shape.py`` declares what each module gives as a Protocol, and ``shape.shaped``
checks it when a system loads. The event types are in ``margin.events.systems``, one
module per system.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

from ..errors import RuleError
from .base import Command, Option, System


def discover() -> dict[str, System]:
    """System id -> system, for every sub-package of this package, by id."""
    found: list[System] = []
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg:
            continue
        package = f"{__name__}.{info.name}"
        system = importlib.import_module(package).SYSTEM
        found.append(dataclasses.replace(system, package=package))
    return {s.id: s for s in sorted(found, key=lambda s: s.id)}


SYSTEMS: dict[str, System] = discover()


def get_system(system_id: str) -> System:
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise RuleError(
            f"system {system_id!r} is not known (systems: {', '.join(SYSTEMS)})"
        ) from None


__all__ = ["SYSTEMS", "Command", "Option", "System", "discover", "get_system"]
