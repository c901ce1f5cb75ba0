"""The commands of d100-under: what the GM asks for, one JSON object each in ``margin do``."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from margin.events import declared

from ..base import Acting, Command
from . import rules
from .state import MAX_ADVANCE

#: a given target (instead of a skill's or an attribute's)
Target = Annotated[int, Meta(ge=0, le=rules.MAX_TARGET)]


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One side of an opposed check."""

    character: str
    skill: str | None = None
    attribute: str | None = None
    target: Target | None = None
    #: physical d10s as [tens, ones], each 0..9 (0,0 reads 100)
    faces: list[int] | None = None
    #: or the percentile read off them, 1..100
    roll: int | None = None


class Check(Command, Side, tag="check"):
    """A percentile check: against a skill's target, an attribute's, or a given target;
    ``secret``: rolled behind the GM's screen, players see only how it went."""

    reason: str = ""
    secret: bool = False


class Opposed(Command, tag="opposed"):
    """Two characters check against each other; a double failure escalates."""

    a: Side
    b: Side
    reason: str = ""


class StartTrack(Command, tag="start-track"):
    """Start the encounter's timing track at count 0."""

    label: str = ""


class EndTrack(Command, tag="end-track"):
    """Put the timing track away."""


class Act(Command, tag="act"):
    """Start an action: the actor's token goes on the track at now + its cost."""

    character: str
    action: str
    cost: int | None = None


class Advance(Command, tag="advance"):
    """Move the track on count by count (``next``: up to the earliest token)."""

    counts: Annotated[int, Meta(ge=1, le=MAX_ADVANCE)] = 1
    next: bool = False


class Interrupt(Command, tag="interrupt"):
    """Stop a pending action before it completes."""

    character: str
    reason: str = ""


class ChangeAction(Command, tag="change"):
    """Swap a pending action for another, timed from the current count."""

    character: str
    action: str
    cost: int | None = None
    reason: str = ""


COMMANDS = declared(globals(), Command)

#: what a player may give from their own seat: their character's checks (against a target
#: the GM gives, if any), and their actions on the timing track
PLAYERS: dict[type[Command], Acting] = {
    Check: Acting("character", gm=("target",)),
    Act: Acting("character"),
    ChangeAction: Acting("character"),
    Interrupt: Acting("character"),
}
