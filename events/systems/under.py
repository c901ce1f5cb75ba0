"""Events of the d100-under dice system: checks, opposed checks and the timing track."""

from __future__ import annotations

import msgspec

from ..base import Event, PlayerForm, declared


class UnderRoll(msgspec.Struct, frozen=True, kw_only=True):
    """One character's percentile roll against a target and what it came to: what a check
    and each side of an opposed check begin with."""

    actor: str
    #: what was rolled: a skill, an attribute (raw or unskilled) or a given target
    label: str
    target: int
    #: the two d10 faces as read, tens then ones (0..9; 0,0 reads 100); a typed roll's own digits
    faces: list[int] = []
    roll: int
    source: str = "rng"
    success: bool
    critical: bool
    fumble: bool
    margin: int


class UnderChecked(Event, UnderRoll, frozen=True, kw_only=True, tag="under.check"):
    """A percentile check against a target, with every number that decided it."""

    crit_range: int = 0
    crit_reading: str = "table"
    unskilled: bool = False
    reason: str = ""
    #: rolled behind the GM's screen: players see how it went, not its numbers
    secret: bool = False


class OpposedSide(UnderRoll, frozen=True, kw_only=True):
    """One side of an opposed check."""


class UnderOpposed(Event, frozen=True, kw_only=True, tag="under.opposed"):
    """Two checks against each other; ``winner`` is an actor id, or None for a stalemate."""

    a: OpposedSide
    b: OpposedSide
    winner: str | None = None
    stalemate: bool = False
    escalation: bool = False
    crit_reading: str = "table"
    reason: str = ""


class UnderEscalated(Event, frozen=True, kw_only=True, tag="under.escalation"):
    """Both sides of an opposed check failed: the situation gets worse, the GM says how."""

    actors: list[str]
    reason: str = ""


class TrackStarted(Event, frozen=True, kw_only=True, tag="under.track-started"):
    """A timing track starts at count 0."""

    label: str = ""


class TrackEnded(Event, frozen=True, kw_only=True, tag="under.track-ended"):
    """The timing track is put away; pending tokens are dropped with it."""

    count: int
    dropped: list[str] = []


class TrackToken(msgspec.Struct, frozen=True, kw_only=True):
    """A token on the timing track: whose action it is and when it completes."""

    actor: str
    action: str
    cost: int
    declared: int
    at: int


class ActionDeclared(Event, frozen=True, kw_only=True, tag="under.declared"):
    """An actor starts an action; its token goes to ``now + cost``."""

    actor: str
    action: str
    cost: int
    count: int
    at: int


class TrackAdvanced(Event, frozen=True, kw_only=True, tag="under.advanced"):
    """The GM moves the track on by one count, to ``count``."""

    count: int


class ActionsResolved(Event, frozen=True, kw_only=True, tag="under.resolved"):
    """Every token on ``count`` completes at once (one record per count)."""

    count: int
    actions: list[TrackToken]


class ActionInterrupted(Event, frozen=True, kw_only=True, tag="under.interrupted"):
    """A pending action is stopped before it completes; its token leaves the track."""

    actor: str
    action: str
    at: int
    count: int
    reason: str = ""


class ActionChanged(Event, frozen=True, kw_only=True, tag="under.changed"):
    """A pending action is swapped for another, timed afresh from the current count."""

    actor: str
    old_action: str
    old_at: int
    action: str
    cost: int
    count: int
    at: int
    reason: str = ""


EVENTS = declared(globals(), Event)


# -- what players see ---------------------------------------------------------

_ACTOR = PlayerForm(about=("actor",))
#: A secret check's numbers.
CHECK_SECRET = ("target", "faces", "roll", "margin", "crit_range")
UnderChecked.PLAYER = PlayerForm(about=("actor",), secret=CHECK_SECRET)
UnderOpposed.PLAYER = PlayerForm(
    about=("a", "b", "winner"), unseen={"a": (), "b": (), "winner": ()}
)
UnderEscalated.PLAYER = PlayerForm(about=("actors",), unseen={"actors": ()})
TrackStarted.PLAYER = PlayerForm()
TrackEnded.PLAYER = PlayerForm(about=("dropped",), unseen={"dropped": ()})
ActionDeclared.PLAYER = _ACTOR
TrackAdvanced.PLAYER = PlayerForm()
ActionsResolved.PLAYER = PlayerForm(about=("actions",), unseen={"actions": ()})
ActionInterrupted.PLAYER = _ACTOR
ActionChanged.PLAYER = _ACTOR
