"""The shape of a dice system: one Protocol a module, naming the hooks that module gives.

``shaped`` reads a system's face from its package and its modules by these names, and
checks as it reads, when margin loads the system, that each module gives every name its
Protocol declares: a hook misspelt or left out stops margin with one line naming the system, the
module and the hook. A hook a system has nothing for is given as None where its Protocol
allows it (``moment = None``: no clock of its own, margin's turn order serves), so that
leaving a hook out is never silent. mypy holds each module to its Protocol's types
(``tests/test_system_shape.py``).
"""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, Protocol, get_args, get_type_hints

from margin.events import Draft, Event

from ..dice import Dice
from ..facts import Reader
from ..history import History
from ..state import Character, Moment, TableState
from .base import Acting, Clock, Command, Handler, Odds, Option, System
from .words import Grammar


class ShapeError(TypeError):
    """A system's modules lack a hook of the shape, or give one a system has no place for."""


class Package(Protocol):
    """``__init__.py``, up to ``SYSTEM = shaped(__name__, ...)``: the options, the demo, the
    short forms, and the clock and health the system keeps of its own (None when margin's
    turn order serves, or when it tracks no health)."""

    @property
    def OPTIONS(self) -> tuple[Option, ...]: ...
    @property
    def DEMO(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def SHORT_FORMS(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def moment(self) -> Callable[[TableState], Moment | None] | None: ...
    @property
    def CLOCK_EVENTS(self) -> tuple[type[Event], ...]: ...
    @property
    def health(self) -> Callable[[Character], tuple[int, int] | None] | None: ...
    @property
    def mask_health(self) -> Callable[[Character], Character] | None: ...


class Commands(Protocol):
    """``commands``: the system's commands, one JSON object each in ``margin do``."""

    @property
    def COMMANDS(self) -> tuple[type[Command], ...]: ...
    @property
    def PLAYERS(self) -> Mapping[type[Command], Acting]: ...


class Decide(Protocol):
    """``decide``: a command and the state into events."""

    def decide(
        self, command: Command, state: TableState, dice: Dice, history: History, /
    ) -> list[Draft]: ...


class Fold(Protocol):
    """``fold``: each event's step on the state."""

    @property
    def HANDLERS(self) -> Mapping[type[Event], Handler]: ...


class State(Protocol):
    """``state``: the system's characters, built from sheets, and its table-wide world."""

    def make_character(
        self, cid: str, name: str, sheet: dict[str, Any], hidden: bool, /
    ) -> Character: ...
    def check_sheet(self, sheet: dict[str, Any], /) -> dict[str, Any]: ...
    def initial_world(self, options: Mapping[str, Any], /) -> Any: ...
    @property
    def player_world(self) -> Callable[[TableState], Any] | None: ...


class Resolve(Protocol):
    """``resolve``: the actions of ``margin resolve``."""

    @property
    def RESOLVE(self) -> Mapping[str, Callable[[dict[str, Any], Dice], dict[str, Any]]]: ...


class Present(Protocol):
    """``present``: what the screens show; a clock only where the system keeps its own, and
    field lines only where its characters hold data the status words."""

    def describe(self, event: dict[str, Any], /) -> str | None: ...
    def status(self, char: Character, state: TableState, /) -> list[str]: ...
    @property
    def field_lines(self) -> Callable[[Character], dict[str, str]] | None: ...
    @property
    def clock(self) -> Callable[[TableState], Clock | None] | None: ...
    def odds(self, command: Command, state: TableState, /) -> Odds | None: ...
    def vocabulary(self, state: TableState, /) -> dict[str, list[str]]: ...


class Words(Protocol):
    """``words``: the short forms of the table screen's command line."""

    @property
    def GRAMMAR(self) -> Grammar: ...


class Recap(Protocol):
    """``recap``: what a recap reads from each event."""

    @property
    def READERS(self) -> Mapping[str, Reader]: ...


#: each module of a system ("" being its package) and the Protocol it follows
SHAPE: dict[str, type[Any]] = {
    "": Package,
    "commands": Commands,
    "decide": Decide,
    "fold": Fold,
    "state": State,
    "resolve": Resolve,
    "present": Present,
    "words": Words,
    "recap": Recap,
}

#: the ``System`` field a module's name fills, where the two differ
FIELDS = {
    "OPTIONS": "options",
    "DEMO": "demo",
    "SHORT_FORMS": "short_forms",
    "CLOCK_EVENTS": "clock_events",
    "COMMANDS": "commands",
    "PLAYERS": "players",
    "HANDLERS": "handlers",
    "RESOLVE": "resolve",
    "READERS": "recap",
}


def hooks(protocol: type[Any]) -> dict[str, bool]:
    """The names a module of ``protocol`` gives, each with whether it may be None."""
    return {
        name: _optional(member)
        for name, member in vars(protocol).items()
        if not name.startswith("_") and isinstance(member, (property, types.FunctionType))
    }


def _optional(member: Any) -> bool:
    if not isinstance(member, property) or member.fget is None:
        return False
    return type(None) in get_args(get_type_hints(member.fget)["return"])


def given(module: types.ModuleType, protocol: type[Any], system: str) -> dict[str, Any]:
    """The hooks ``module`` gives as ``protocol`` declares them, by name; a ``ShapeError``
    naming ``system``, the module and the hook for one it lacks or gives as no hook."""
    found: dict[str, Any] = {}
    for name, optional in hooks(protocol).items():
        where = f"{system}: {module.__name__}"
        if not hasattr(module, name):
            every = f"every system's {protocol.__name__.lower()} gives {_listed(protocol)}"
            none = f"; {name} = None says the system has none" if optional else ""
            raise ShapeError(f"{where} gives no {name} ({every}{none})")
        value = getattr(module, name)
        if value is None and not optional:
            raise ShapeError(f"{where}.{name} is None: every system gives one")
        if isinstance(vars(protocol)[name], types.FunctionType) and not callable(value):
            raise ShapeError(f"{where}.{name} is not a function")
        found[name] = value
    return found


def _listed(protocol: type[Any]) -> str:
    return ", ".join(hooks(protocol))


_SYSTEM_FIELDS = frozenset(f.name for f in fields(System))


def shaped(package: str, **face: Any) -> System:
    """The system whose package (its ``OPTIONS``, ``DEMO``, ``moment`` ...) and modules
    (``commands``, ``decide``, ``fold`` ...) give its hooks by the names of ``SHAPE``, its
    short forms by ``words.GRAMMAR``, and its rules by ``rules.md``; ``face`` (id, title,
    summary ...) is given on top. A hook given as None keeps the safe default of ``System``."""
    system = str(face.get("id", package))
    stray = sorted(set(face) - _SYSTEM_FIELDS)
    if stray:
        raise ShapeError(f"{system}: {', '.join(stray)} is no part of a system's face")
    found: dict[str, Any] = {"rules_doc": "rules.md"}
    for module, protocol in SHAPE.items():
        # the package itself is still being imported: it holds the names defined before this call
        where = importlib.import_module(f"{package}.{module}" if module else package)
        for name, value in given(where, protocol, system).items():
            if value is not None:
                found[FIELDS.get(name, name)] = value
    _check_players(system, found.get("commands", ()), found.get("players", {}))
    grammar: Grammar = found.pop("GRAMMAR")
    return System(**{**found, "parse_words": grammar.parse, "grammar": grammar.usages, **face})


def check_acting(where: str, kind: type[Any], acting: Acting) -> None:
    """Refuse, at load, a player's command whose ``Acting`` names a field the command lacks."""
    named = [*([acting.actor] if acting.actor else []), *acting.others, *acting.gm]
    stray = sorted({n for n in named if n not in kind.__struct_fields__})
    if stray:
        raise ShapeError(f"{where}: PLAYERS names no field of {kind.__name__}: {', '.join(stray)}")


def _check_players(
    system: str, commands: tuple[type[Command], ...], players: Mapping[type[Command], Acting]
) -> None:
    for kind, acting in players.items():
        if kind not in commands:
            raise ShapeError(f"{system}: PLAYERS names {kind.__name__}, none of its COMMANDS")
        check_acting(system, kind, acting)
