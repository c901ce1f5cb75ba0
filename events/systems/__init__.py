"""The event types of every dice system, one module each, found rather than listed.

A module here names its system's events in ``EVENTS``. The package's path
takes in a ``margin/events/systems`` folder anywhere on ``sys.path`` too, so a
system can ship outside this tree and still be read.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..base import Event

__path__ = pkgutil.extend_path(__path__, __name__)


def discover() -> dict[str, tuple[type[Event], ...]]:
    """Module name -> its ``EVENTS``, for every module of this package, by name."""
    found: dict[str, tuple[type[Event], ...]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[info.name] = tuple(module.EVENTS)
    return found


#: every system's event types, by the name of the module declaring them
SYSTEM_EVENTS = discover()
