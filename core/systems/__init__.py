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
import re
from collections.abc import Callable, Iterator, Mapping

from ..errors import RuleError
from .base import Command, Option, System


def discover() -> dict[str, System]:
    """System id -> system, for every sub-package of this package, by id."""
    found = [_load(name) for name in _packages()]
    return {s.id: s for s in sorted(found, key=lambda s: s.id)}


def _packages() -> list[str]:
    """The names of this package's sub-packages, one a system."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if info.ispkg)


def _load(name: str) -> System:
    package = f"{__name__}.{name}"
    system: System = importlib.import_module(package).SYSTEM
    return dataclasses.replace(system, package=package)


class Systems(Mapping[str, System]):
    """System id -> system, each system's package imported the first time it is asked for.

    A table plays one system, so opening it imports that one alone: asked for an id, the
    packages the id names (``edge`` of ``2d10-edge``) are tried before the others, and
    the search stops at the system of that id. Listing the systems imports every one.
    """

    def __init__(self) -> None:
        #: the systems imported so far, by package name and by id
        self._by_package: dict[str, System] = {}
        self._by_id: dict[str, System] = {}
        self._loaded: list[Callable[[System], None]] = []

    def on_load(self, call: Callable[[System], None]) -> None:
        """Have ``call`` given each system as it is imported, and those imported already."""
        self._loaded.append(call)
        for system in list(self._by_package.values()):
            call(system)

    def package(self, name: str) -> System:
        """The system of the sub-package ``name``, imported if it was not."""
        system = self._by_package.get(name)
        if system is None:
            system = _load(name)
            system = self._by_package.setdefault(name, system)
            self._by_id[system.id] = system
            for call in self._loaded:
                call(system)
        return system

    def __getitem__(self, system_id: str) -> System:
        system = self._by_id.get(system_id)
        if system is not None:
            return system
        named = set(re.split(r"\W+", str(system_id)))
        for name in sorted(_packages(), key=lambda n: n not in named):
            if self.package(name).id == system_id:
                return self._by_id[system_id]
        raise KeyError(system_id)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.package(name).id for name in _packages()))

    def __len__(self) -> int:
        return len(_packages())


SYSTEMS = Systems()


def get_system(system_id: str) -> System:
    try:
        return SYSTEMS[system_id]
    except KeyError:
        raise RuleError(
            f"system {system_id!r} is not known (systems: {', '.join(SYSTEMS)})"
        ) from None


__all__ = ["SYSTEMS", "Command", "Option", "System", "Systems", "discover", "get_system"]
