"""Events of the 2d6-effect dice system: checks, assistance, opposed checks and tasks."""

from __future__ import annotations

import msgspec

from ..base import Event, PlayerForm, declared


class EffectChecked(Event, frozen=True, kw_only=True, tag="effect.check"):
    """A 2D6 check against 8 with every DM that went into its total."""

    actor: str
    #: what was rolled: a skill's name, or a characteristic's for a characteristic check
    label: str
    skill: str | None = None
    #: the level counted; None for an unskilled attempt or a characteristic check
    skill_level: int | None = None
    unskilled: bool = False
    unskilled_dm: int = 0
    characteristic: str | None = None
    characteristic_dm: int = 0
    difficulty: str = "average"
    difficulty_dm: int = 0
    law_level: int | None = None
    circumstance: int = 0
    dm: int = 0
    assist_dm: int = 0
    assist_by: str | None = None
    actions: int = 1
    actions_dm: int = 0
    time_rows: int = 0
    faces: list[int]
    source: str = "rng"
    total: int
    effect: int
    success: bool
    band: str
    #: a named task: a done task is not repeated, a closed one not retried
    task: str = ""
    written: str = ""
    #: task time: the increment used, the 1D6 rolled for it, the time taken in seconds
    increment: str = ""
    time_die: int | None = None
    seconds: int | None = None
    combat: bool = False
    reason: str = ""
    #: rolled behind the GM's screen: players see how it went, not its numbers
    secret: bool = False


class EffectAssisted(Event, frozen=True, kw_only=True, tag="effect.assist"):
    """A helper's check for someone else's task; its Effect waits as a DM on that check."""

    helper: str
    actor: str
    #: the skill helped with, or the characteristic of a characteristic check
    label: str
    disposition: str
    refused: bool = False
    reason: str = ""
    skill_level: int | None = None
    skill_used: int | None = None
    characteristic: str | None = None
    characteristic_dm: int = 0
    difficulty: str = "average"
    difficulty_dm: int = 0
    faces: list[int] = []
    source: str = "rng"
    total: int | None = None
    effect: int | None = None
    dm: int = 0


class EffectSide(msgspec.Struct, frozen=True, kw_only=True):
    """One side of an opposed check."""

    actor: str
    label: str
    modifier: int
    faces: list[int]
    source: str = "rng"
    total: int
    effect: int
    band: str


class EffectOpposed(Event, frozen=True, kw_only=True, tag="effect.opposed"):
    """Two checks against each other: the higher Effect wins; equal Effects, nobody does."""

    a: EffectSide
    b: EffectSide
    winner: str | None = None
    reason: str = ""


class TaskClosed(Event, frozen=True, kw_only=True, tag="effect.task-closed"):
    """The GM rules that a task cannot be attempted again."""

    task: str
    reason: str = ""


EVENTS = declared(globals(), Event)


# -- what players see ---------------------------------------------------------

#: What a helper's part in a check shows of the helper.
HELPER = (
    "disposition",
    "refused",
    "reason",
    "skill_level",
    "skill_used",
    "characteristic",
    "characteristic_dm",
    "difficulty",
    "difficulty_dm",
    "faces",
    "source",
    "total",
    "effect",
    "dm",
    "label",
)
#: A secret check's numbers: the dice, every DM and what they came to.
CHECK_SECRET = (
    "skill_level",
    "unskilled_dm",
    "characteristic_dm",
    "difficulty",
    "difficulty_dm",
    "law_level",
    "circumstance",
    "dm",
    "assist_dm",
    "actions_dm",
    "faces",
    "total",
    "effect",
)
EffectChecked.PLAYER = PlayerForm(
    about=("actor", "assist_by"), unseen={"assist_by": ("assist_dm",)}, secret=CHECK_SECRET
)
EffectAssisted.PLAYER = PlayerForm(about=("helper", "actor"), unseen={"helper": HELPER})
EffectOpposed.PLAYER = PlayerForm(
    about=("a", "b", "winner"), unseen={"a": (), "b": (), "winner": ()}
)
TaskClosed.PLAYER = PlayerForm()
