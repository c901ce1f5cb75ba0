"""Commands every table accepts, whatever its dice system."""

from __future__ import annotations

from functools import cache
from typing import Any, Union

import msgspec

from margin.events.record import stable_schema

from .errors import RuleError
from .inputs import explain, read_json
from .systems import SYSTEMS, get_system
from .systems.base import Command


class AddCharacter(Command, tag="add-character"):
    """Seat a character; ``sheet`` is the system's character data."""

    name: str
    sheet: dict[str, Any] = {}
    hidden: bool = False


class UpdateCharacter(Command, tag="update-character"):
    """Change sheet fields (merged key by key) or hide/show a character."""

    character: str
    sheet: dict[str, Any] = {}
    hidden: bool | None = None


class RemoveCharacter(Command, tag="remove-character"):
    character: str


class RollDice(Command, tag="roll"):
    """A free roll of dice notation (``3d10kh2``, ``2d6+3``)."""

    dice: str
    actor: str = "gm"
    faces: list[int] | None = None
    secret: bool = False
    reason: str = ""


class Note(Command, tag="note"):
    text: str
    gm_only: bool = False


class Undo(Command, tag="undo"):
    """Undo a command: by its id, or by the number of any record it produced;
    the last command not yet undone when neither is given."""

    command: str | None = None
    record: int | None = None


class Redo(Command, tag="redo"):
    """Reverse an undo (the most recent when omitted)."""

    command: str | None = None


class SetOption(Command, tag="set-option"):
    name: str
    value: Any


class Reveal(Command, tag="reveal"):
    """Show the players a secret record's hidden fields from now on."""

    seq: int


GENERIC: tuple[type[Command], ...] = (
    AddCharacter,
    UpdateCharacter,
    RemoveCharacter,
    RollDice,
    Note,
    Undo,
    Redo,
    SetOption,
    Reveal,
)


@cache
def command_type(system: str) -> Any:
    """The union of commands a table of ``system`` accepts."""
    return Union[GENERIC + get_system(system).commands]  # type: ignore[valid-type]  # noqa: UP007


@cache
def _decoder(system: str) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(command_type(system))


def command_names(system: str) -> list[str]:
    return [c.__struct_config__.tag for c in GENERIC + get_system(system).commands]  # type: ignore[misc]


def parse_command(system: str, line: str | bytes) -> Command:
    """Decode one JSON command; an unknown type or field, or a malformed line, is a clear error."""
    try:
        return read_json(line, _decoder(system))
    except msgspec.ValidationError as exc:
        msg = str(exc)
        if "Invalid value" in msg and "`$.type`" in msg:
            raise RuleError(
                f"unknown command type; {system} tables accept: {', '.join(command_names(system))}"
            ) from None
        if "missing required field `type`" in msg:
            raise RuleError(
                'command has no "type" (e.g. {"type": "roll", "dice": "2d10"})'
            ) from None
        raise RuleError(_worded(exc, system, _plain(line))) from None


def _plain(line: str | bytes) -> Any:
    """A refused line's JSON as plain values, for its message to quote; None if unreadable."""
    try:
        return msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def _worded(error: msgspec.ValidationError, system: str, data: Any) -> str:
    return explain(error, data, command_type(system)) or f"bad command: {error}"


def command_schema(system: str | None = None) -> dict[str, Any]:
    """JSON Schema of the commands of one system, or of every system by id."""
    if system is not None:
        return stable_schema(msgspec.json.schema(command_type(system)))
    return {sid: stable_schema(msgspec.json.schema(command_type(sid))) for sid in SYSTEMS}


def convert_command(system: str, data: dict[str, Any]) -> Command:
    try:
        return msgspec.convert(data, command_type(system))  # type: ignore[no-any-return]
    except msgspec.ValidationError as exc:
        raise RuleError(_worded(exc, system, data)) from None
