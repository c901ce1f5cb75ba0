"""Edits of characters after seating: fields, names, what players see of health; macros."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from margin.events import (
    AliasSet,
    CharacterRenamed,
    Draft,
    Event,
    HealthViewSet,
    Record,
    Visibility,
)

from . import counters
from .commands import Alias, Edit, HealthView, Rename
from .dice import Dice
from .errors import RuleError
from .history import History
from .state import Character, TableState, character_id, find_character
from .systems.base import Handler
from .systems.words import counter_value
from .targets import find_characters

ALIAS_NAME = re.compile(r"[a-z][a-z0-9_-]{0,30}")


def rename(cmd: Rename, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = find_character(state, cmd.character)
    name = " ".join(cmd.name.split())
    if not name:
        raise RuleError("rename: give the new name")
    _check_free(state, char, name)
    if name == char.name:
        raise RuleError(f"rename: {char.name} already has that name")
    return [
        Draft(
            CharacterRenamed(id=char.id, name=name, was=char.name),
            visibility=Visibility(gm_only=char.hidden),
        )
    ]


def _check_free(state: TableState, char: Character, name: str) -> None:
    """Refuse a new name for ``char`` that the GM or another character at the table has."""
    new_id = character_id(name)
    if new_id == "gm":
        raise RuleError("rename: 'gm' is reserved for the game master")
    for other in state.characters.values():
        if other.id != char.id and (other.id == new_id or other.name.lower() == name.lower()):
            raise RuleError(f"rename: {name!r} is already at the table")


def _sheet_value(sheet: dict[str, Any], path: list[str], value: Any, field: str) -> Any:
    """The top-level sheet value with ``value`` put at ``path`` inside it."""
    if len(path) == 1:
        return value
    inner = sheet.get(path[0], {})
    if not isinstance(inner, dict):
        raise RuleError(f"edit: {field}: the sheet's {path[0]} is not a table of fields")
    # the sheet's own spelling of a key wins over the one typed (skills.melee -> Melee)
    key = next((k for k in inner if k.lower() == path[1].lower()), path[1])
    return {**inner, key: _sheet_value(inner, path[1:], value, field)}


def edit_commands(cmd: Edit, state: TableState) -> list[dict[str, Any]]:
    """The commands an ``edit`` stands for, one character after another."""
    if not cmd.fields:
        raise RuleError("edit: give FIELD=VALUE (a sheet field, a counter, or name)")
    targets = find_characters(state, cmd.character)
    return [c for char in targets for c in _edits(char, cmd.fields, len(targets) > 1)]


def _edits(char: Character, fields: dict[str, Any], group: bool) -> list[dict[str, Any]]:
    """The commands an edit of ``fields`` stands for on one character (of a ``group``):
    those of its own fields, then one update of the sheet fields it changes."""
    out: list[dict[str, Any]] = []
    sheet: dict[str, Any] = {}
    for field, value in fields.items():
        own = _own_command(char, field, value, group)
        if own is not None:
            out.append(own)
            continue
        path = field.split(".")
        top = next((k for k in char.sheet if k.lower() == path[0].lower()), path[0])
        sheet[top] = _sheet_value({**char.sheet, **sheet}, [top, *path[1:]], value, field)
    if sheet:
        out.append({"type": "update-character", "character": char.id, "sheet": sheet})
    return out


def _own_command(char: Character, field: str, value: Any, group: bool) -> dict[str, Any] | None:
    """The command of an edit of a field that is no sheet field (npc, name, a counter) of a
    character (one of a ``group``); None for a sheet field."""
    own = _OWN_FIELDS.get(field.lower())
    if own is not None:
        return own(char, value, group)
    if counters.key(field) in char.counters:
        return _counter(char, field, value)
    return None


def _npc(char: Character, value: Any, group: bool) -> dict[str, Any]:
    if not isinstance(value, bool):
        raise RuleError(f"edit: npc={_shown(value)}: give npc=true or npc=false")
    return {"type": "update-character", "character": char.id, "npc": value}


def _name(char: Character, value: Any, group: bool) -> dict[str, Any]:
    if group:
        raise RuleError("edit: name=... renames one character, not a group")
    return {"type": "rename", "character": char.id, "name": str(value)}


#: the fields an edit changes by a command of their own: the edit's command for a character
#: (one of a group, or not)
_OWN_FIELDS: dict[str, Callable[[Character, Any, bool], dict[str, Any]]] = {
    "npc": _npc,
    "name": _name,
}


def _shown(value: Any) -> str:
    """A field's value in an error as the GM gave it (true, not Python's True)."""
    return json.dumps(value) if value is None or isinstance(value, bool) else repr(value)


def _counter(char: Character, field: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        raise RuleError(f"edit: {field}={_shown(value)} is not a value (8, 8/12 or /12)")
    now: int | None
    top: int | None
    if isinstance(value, int):
        now, top = value, None
    else:
        now, top = counter_value(str(value), f"edit {field}")
    data: dict[str, Any] = {"type": "set-counter", "character": char.id, "name": field}
    if now is not None:
        data["value"] = now
    if top is not None:
        data["max"] = top
    return data


def health_view(cmd: HealthView, state: TableState, dice: Dice, history: History) -> list[Draft]:
    view = "" if cmd.view == "table" else cmd.view
    out = []
    for char in find_characters(state, cmd.character):
        if char.health_view == view:
            raise RuleError(f"health-view: {char.name}'s health is already shown {cmd.view}")
        out.append(
            Draft(
                HealthViewSet(id=char.id, view=cmd.view), visibility=Visibility(gm_only=char.hidden)
            )
        )
    return out


def alias(cmd: Alias, state: TableState, dice: Dice, history: History) -> list[Draft]:
    name = cmd.name.strip().lower()
    if not ALIAS_NAME.fullmatch(name):
        raise RuleError(
            f"alias: {cmd.name!r} is not a macro name (one word: a letter, then letters, "
            "digits, - or _)"
        )
    line = cmd.line.strip()
    if not line and name not in state.aliases:
        raise RuleError(f"alias: there is no macro {name!r} to forget")
    if line and line.split(None, 1)[0].lower() == name:
        raise RuleError(f"alias: {name} would run itself")
    # the GM's macros are the GM's: players see what they run, not the macro
    return [Draft(AliasSet(name=name, line=line), visibility=Visibility(gm_only=True))]


def _renamed(state: TableState, record: Record) -> None:
    char = state.characters.get(record.event.id)
    if char is not None:
        char.name = record.event.name


def _health_view(state: TableState, record: Record) -> None:
    char = state.characters.get(record.event.id)
    if char is not None:
        char.health_view = "" if record.event.view == "table" else record.event.view


def _alias(state: TableState, record: Record) -> None:
    e: AliasSet = record.event
    if e.line:
        state.aliases[e.name] = e.line
    else:
        state.aliases.pop(e.name, None)


HANDLERS: dict[type[Event], Handler] = {
    CharacterRenamed: _renamed,
    HealthViewSet: _health_view,
    AliasSet: _alias,
}
