"""The event types of every dice system, one module each, found rather than listed.

A module here names its system's events in ``EVENTS``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..base import Event


def discover() -> dict[str, tuple[type[Event], ...]]:
    """Module name -> its ``EVENTS``, for every module of this package, by name."""
    found: dict[str, tuple[type[Event], ...]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[info.name] = tuple(module.EVENTS)
    return found


#: every system's event types, by the name of the module declaring them
SYSTEM_EVENTS = discover()
