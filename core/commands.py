"""Commands every table accepts, whatever its dice system."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import Meta

from margin.events.record import stable_schema

from .errors import RuleError
from .inputs import Problem, explain, problem, read_json, worded
from .systems import SYSTEMS, get_system
from .systems.base import MAX_GROUP, Acting
from .systems.base import Command as Command
from .systems.shape import check_acting

#: a duration or a count of something at the table: 1 up to a bound no table reaches
Duration = Annotated[int, Meta(ge=1, le=10_000)]
#: the most characters one add-character seats as a group
#: one character by id or name, a group's name (``Guard`` for Guard 1..4), or a list of them
Targets = str | list[str]


class AddCharacter(Command, tag="add-character"):
    """Seat a character; ``sheet`` is the system's character data.

    ``count`` above 1 seats a group: ``Guard`` with count 4 is Guard 1 to Guard 4.
    """

    name: str
    sheet: dict[str, Any] = {}
    hidden: bool = False
    count: Annotated[int, Meta(ge=1, le=MAX_GROUP)] = 1
    npc: bool = False


class UpdateCharacter(Command, tag="update-character"):
    """Change sheet fields (merged key by key) or hide/show a character."""

    character: str
    sheet: dict[str, Any] = {}
    hidden: bool | None = None
    npc: bool | None = None


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


class Say(Command, tag="say"):
    """Say something to the table, from the seat that gives it (a player's, or the GM's)."""

    text: str


class Whisper(Command, tag="whisper"):
    """Words for one reader alone: from the GM to a player's character, or from a player
    to the GM (``to`` "gm")."""

    to: str
    text: str


class Accept(Command, tag="accept"):
    """Rule on a player's request (by its record number): apply it as they asked."""

    request: int


class Refuse(Command, tag="refuse"):
    """Rule on a player's request: it is not applied, for ``reason`` if given."""

    request: int
    reason: str = ""


class Amend(Command, tag="amend"):
    """Rule on a player's request: apply ``command`` (the GM's version of it) instead."""

    request: int
    command: dict[str, Any]


class Ask(Command, tag="ask"):
    """The GM asks players for a check, to roll now from their own seats.

    ``check`` is the system's check command without its character (``{"skill":
    "perception", "tn": 25}`` in 2d10-edge); each of ``characters`` is prompted for it.
    A ``secret`` ask, and one whose check the system rolls in secret (a d100-chance
    check by default), is rolled by the GM's dice at once: its players are told only
    that a check is being made.
    """

    characters: Annotated[list[str], Meta(min_length=1, max_length=MAX_GROUP)]
    check: dict[str, Any]
    secret: bool = False


class Answer(Command, tag="answer"):
    """A prompt's answer: the check the GM asked for, rolled with margin's dice or with
    ``faces`` rolled at the table. From a player's seat it answers their own prompt; from
    the GM's, the GM rolls it for ``character``, who did not answer."""

    #: whose prompt ("" from a player's seat: their own)
    character: str = ""
    #: which prompt, by its record number (the oldest waiting for the character if none)
    prompt: int | None = None
    faces: list[int] | None = None


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


class EndSession(Command, tag="end-session"):
    """End the session's dice: publish its seed, so anyone can recompute every die margin
    drew in the open, and commit to the next session's."""


class Entropy(Command, tag="entropy"):
    """A seat's margin adds random bytes to every die drawn after them (as it sits down)."""

    seat: Annotated[str, Meta(min_length=1, max_length=100)]
    #: 32 random bytes, in hex
    entropy: Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]


class Rename(Command, tag="rename"):
    """A character goes by a new name (the id, and every record about them, stay)."""

    character: str
    name: str


class Edit(Command, tag="edit"):
    """Change a character: sheet fields (``skills.Melee`` reaches into the sheet),
    counters by name (``Health`` to a value), ``name`` (a rename), ``npc`` (true/false)."""

    character: Targets
    fields: dict[str, Any]


class AddCondition(Command, tag="add-condition"):
    """A condition on characters, for ``rounds``, the bearer's ``turns`` or ``counts`` of a
    timing track (at most one; none: until removed); it ends by itself on the clock."""

    character: Targets
    name: str
    rounds: Duration | None = None
    turns: Duration | None = None
    counts: Duration | None = None
    gm_only: bool = False
    reason: str = ""


class RemoveCondition(Command, tag="remove-condition"):
    character: Targets
    name: str


class SetCounter(Command, tag="set-counter"):
    """Start or set a named counter (Health, ammo, stress): its value and maximum.

    A new counter needs a maximum and starts full unless a value is given.
    """

    character: Targets
    name: str
    value: Annotated[int, Meta(ge=0, le=1_000_000)] | None = None
    max: Annotated[int, Meta(ge=0, le=1_000_000)] | None = None


class AdjustCounter(Command, tag="adjust-counter"):
    """Add to a counter (or take from it, ``by`` below 0); it stays between 0 and its maximum."""

    character: Targets
    name: str
    by: Annotated[int, Meta(ge=-1_000_000, le=1_000_000)]


class RemoveCounter(Command, tag="remove-counter"):
    character: Targets
    name: str


class HealthView(Command, tag="health-view"):
    """What players see of characters' health; ``table`` follows the option ``npc_health``."""

    character: Targets
    view: Literal["exact", "descriptive", "hidden", "table"]


class Alias(Command, tag="alias"):
    """A macro: typing ``name`` on the table screen runs ``line``; an empty line forgets it."""

    name: str
    line: str = ""


class Each(Command, tag="each"):
    """Several commands as one: decided in order, recorded and undone together
    (damage to every guard at once)."""

    commands: list[dict[str, Any]]


class StartEncounter(Command, tag="start-encounter"):
    """Start the turn order (in a system without one of its own); ``characters`` join
    at once, each rolling ``dice`` (the option ``initiative_dice`` when empty)."""

    name: str = ""
    characters: list[str] = []
    dice: str = ""
    faces: list[int] | None = None


class Join(Command, tag="join"):
    """Characters take a place in the running turn order: the ``initiative`` the GM
    sets, or each rolls ``dice`` (the option ``initiative_dice`` when empty)."""

    character: Targets
    initiative: Annotated[int, Meta(ge=-1000, le=1000)] | None = None
    dice: str = ""
    faces: list[int] | None = None


class Leave(Command, tag="leave"):
    character: Targets


class NextTurn(Command, tag="next-turn"):
    """The next turn: the highest initiative who has not acted this round."""


class EndEncounter(Command, tag="end-encounter"):
    pass


#: the generic turn order's commands, for a system without a clock of its own
CLOCK_COMMANDS: tuple[type[Command], ...] = (StartEncounter, Join, Leave, NextTurn, EndEncounter)

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
    EndSession,
    Entropy,
    Rename,
    Edit,
    AddCondition,
    RemoveCondition,
    SetCounter,
    AdjustCounter,
    RemoveCounter,
    HealthView,
    Alias,
    Each,
    Say,
    Whisper,
    Accept,
    Refuse,
    Amend,
    Ask,
    Answer,
)

#: the commands every table has that a player may give from their own seat (``Acting``
#: with no actor: the seat itself speaks)
PLAYERS: dict[type[Command], Acting] = {
    RollDice: Acting("actor", gm=("secret",)),
    Say: Acting("", at_once=True),
    Whisper: Acting("", at_once=True),
    Entropy: Acting("seat", at_once=True, watching=True),
    # the GM asked for it: answered at once, whatever the option (but ``off``)
    Answer: Acting("character", gm=("prompt",), at_once=True),
}
#: the generic turn order's, in a system without a clock of its own: rolling one's own
#: place (a place set by number is the GM's)
CLOCK_PLAYERS: dict[type[Command], Acting] = {
    Join: Acting("character", gm=("initiative",)),
}


def generic_commands(system: str) -> tuple[type[Command], ...]:
    """The commands every table of ``system`` has besides the system's own."""
    own_clock = get_system(system).moment is not None
    return GENERIC if own_clock else GENERIC + CLOCK_COMMANDS


for _kind, _acting in {**PLAYERS, **CLOCK_PLAYERS}.items():
    check_acting("margin", _kind, _acting)


@cache
def player_commands(system: str) -> dict[type[Command], Acting]:
    """The commands a player may give at a table of ``system``, and how."""
    sys = get_system(system)
    generic = PLAYERS if sys.moment is not None else {**PLAYERS, **CLOCK_PLAYERS}
    return {**generic, **sys.players}


@cache
def command_type(system: str) -> Any:
    """The union of commands a table of ``system`` accepts."""
    return Union[generic_commands(system) + get_system(system).commands]  # noqa: UP007


@cache
def _decoder(system: str) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(command_type(system))


def command_names(system: str) -> list[str]:
    return [c.__struct_config__.tag for c in generic_commands(system) + get_system(system).commands]  # type: ignore[misc]


def parse_command(system: str, line: str | bytes) -> Command:
    """Decode one JSON command; an unknown type or field, or a malformed line, is a clear error."""
    try:
        command: Command = read_json(line, _decoder(system))
    except msgspec.ValidationError as exc:
        found = problem(_plain(line), command_type(system))
        raise RuleError(_untyped(found, system) or worded(found) or f"bad command: {exc}") from None
    return command


def _plain(line: str | bytes) -> Any:
    """A refused line's JSON as plain values, for its message to quote; None if unreadable."""
    try:
        return msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def _untyped(found: Problem | None, system: str) -> str | None:
    """The refusal of a line without a type, or of a type that is none of the table's."""
    if found is None or found.names:
        return None
    if found.tag:
        return f"unknown command type; {system} tables accept: {', '.join(command_names(system))}"
    if found.missing == "type":
        return 'command has no "type" (e.g. {"type": "roll", "dice": "2d10"})'
    return None


def command_schema(system: str | None = None) -> dict[str, Any]:
    """JSON Schema of the commands of one system, or of every system by id."""
    if system is not None:
        return stable_schema(msgspec.json.schema(command_type(system)))
    return {sid: stable_schema(msgspec.json.schema(command_type(sid))) for sid in SYSTEMS}


def convert_command(system: str, data: dict[str, Any]) -> Command:
    try:
        command: Command = msgspec.convert(data, command_type(system))
    except msgspec.ValidationError as exc:
        raise RuleError(explain(data, command_type(system)) or f"bad command: {exc}") from None
    return command
