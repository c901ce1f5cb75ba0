"""The commands of 2d6-effect: what the GM asks for, one JSON object each in ``margin do``."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from margin.events import declared

from ..base import Acting, Command
from .state import MAX_ACTIONS, MAX_DM, MAX_LAW_LEVEL

DM = Annotated[int, Meta(ge=-MAX_DM, le=MAX_DM)]


class Check(Command, tag="check"):
    """A skill check (skill, usually with a characteristic) or a characteristic check."""

    character: str
    skill: str | None = None
    characteristic: str | None = None
    #: a ladder rung by name, or its DM; Average when omitted
    difficulty: str | int | None = None
    #: the world's law level, setting the difficulty instead (option law_level)
    law_level: Annotated[int, Meta(ge=0, le=MAX_LAW_LEVEL)] | None = None
    circumstance: int = 0
    #: any further DM another rule gives (a weapon, range, gear)
    dm: DM = 0
    #: a named task: once done it gives nothing new; the GM can close it
    task: str = ""
    #: a written task statement (option task_format)
    written: str = ""
    #: the task's time increment (option task_time), and rows traded (option time_trading)
    increment: str | None = None
    time_rows: int = 0
    combat: bool = False
    #: things done at once (option multiple_actions)
    actions: Annotated[int, Meta(ge=1, le=MAX_ACTIONS)] = 1
    faces: list[int] | None = None
    reason: str = ""
    #: rolled behind the GM's screen: players see how it went, not its numbers
    secret: bool = False


class Assist(Command, tag="assist"):
    """A helper makes the same check first; their Effect becomes a DM on the helped check."""

    helper: str
    character: str
    skill: str | None = None
    characteristic: str | None = None
    difficulty: str | int | None = None
    #: how the helper feels about the character; the helper's sheet, or helpful, when omitted
    disposition: str | None = None
    faces: list[int] | None = None


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    character: str
    skill: str | None = None
    characteristic: str | None = None
    difficulty: str | int | None = None
    circumstance: int = 0
    dm: int = 0
    faces: list[int] | None = None

    def check(self) -> Check:
        """This side as a check of its own, which plans its DMs as any check would: every
        field a check of the same name (the faces are the opposed roll's, not the plan's)."""
        fields = msgspec.structs.asdict(self)
        del fields["faces"]
        return Check(**fields)


class Opposed(Command, tag="opposed"):
    """Two checks against each other (option opposed_checks)."""

    a: Side
    b: Side
    reason: str = ""


class CloseTask(Command, tag="close-task"):
    """The GM rules that a task cannot be attempted again."""

    task: str
    reason: str = ""


COMMANDS = declared(globals(), Command)

#: what a player may give from their own seat: their character's checks, and helping
#: another character (the helper's disposition is the GM's to say)
PLAYERS: dict[type[Command], Acting] = {
    Check: Acting("character"),
    Assist: Acting("helper", others=("character",), gm=("disposition",)),
}
