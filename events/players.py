"""Events of players acting from their own seats: what they say, what they ask the GM
to let them do, how the GM rules on it, and the checks the GM asks of them.

A request and its ruling concern one player: they are written addressed to that
player's character (``Visibility.to``), so that player and the GM see them and no
other player learns they exist.
"""

from __future__ import annotations

from typing import Any, Literal

from .base import Event, PlayerForm, declared

#: what players see of an event about one seat: all of it, while that seat's character
#: is one players may see (a hidden seat's record is the GM's)
ABOUT_SEAT = PlayerForm(about=("seat",))


class Said(Event, frozen=True, tag="player.said"):
    """A player (or the GM, ``seat`` "gm") says something to the table."""

    seat: str
    text: str

    PLAYER = ABOUT_SEAT


class Whispered(Event, frozen=True, tag="player.whispered"):
    """Words for one reader: the GM's to one player (``seat`` "gm", ``to`` their
    character), or a player's to the GM (``seat`` their character, ``to`` "gm"). The
    record is addressed to that player, so they and the GM alone see it."""

    seat: str
    to: str
    text: str

    PLAYER = ABOUT_SEAT


class Requested(Event, frozen=True, tag="player.requested"):
    """A player asks the GM to let their command be applied: the command as they gave it."""

    #: the id of the player's character
    seat: str
    #: the command asked for, the fields it gives
    asked: dict[str, Any]

    PLAYER = ABOUT_SEAT


class Ruled(Event, frozen=True, tag="player.ruled"):
    """The GM's ruling on a request: accepted as asked, amended (the command applied is
    the GM's ``applied``), or refused with a reason. An accepted or amended request's
    records follow in the same command, so undoing the ruling undoes them."""

    RECORD_FIELDS = ("request",)

    request: int
    seat: str
    ruling: Literal["accepted", "amended", "refused"]
    reason: str = ""
    #: the command an amended request applies instead
    applied: dict[str, Any] = {}

    PLAYER = ABOUT_SEAT


class Prompted(Event, frozen=True, tag="player.prompted"):
    """The GM asks one player for a check: roll it now. ``check`` is the check as the GM
    gave it (the system's own check command, their character named). A ``secret`` ask
    is rolled by the GM's dice at once, in records players never see; its player is
    told only that a check is being made (the record, addressed to them, cuts ``check``).
    """

    #: the id of the player's character
    seat: str
    check: dict[str, Any]
    secret: bool = False

    PLAYER = PlayerForm(about=("seat",), secret=("check",))


class Answered(Event, frozen=True, tag="player.answered"):
    """A prompt is answered: its check's records come just before this one, in the same
    command, rolled by the player (margin's dice or the faces they typed) or, for a
    player who did not answer, by the GM. Undoing it puts the prompt back."""

    RECORD_FIELDS = ("prompt",)

    prompt: int
    seat: str

    PLAYER = ABOUT_SEAT


EVENTS = declared(globals(), Event)
