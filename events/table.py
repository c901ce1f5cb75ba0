"""Events every table has, whatever its dice system."""

from __future__ import annotations

from typing import Any

from .base import Event, PlayerForm

#: What anyone at the table may see of it, every field.
PUBLIC_FORM = PlayerForm()
#: A record about the character it names (its id field).
ABOUT_ID = PlayerForm(about=("id",))


class TableCreated(Event, frozen=True, tag="table.created"):
    """The first record of every table."""

    system: str
    options: dict[str, Any] = {}
    title: str = ""

    PLAYER = PUBLIC_FORM


class OptionSet(Event, frozen=True, tag="table.option"):
    """A rule option changed; replays apply it from this record on."""

    name: str
    value: Any

    PLAYER = PUBLIC_FORM


class CharacterAdded(Event, frozen=True, tag="character.added"):
    id: str
    name: str
    sheet: dict[str, Any] = {}
    hidden: bool = False

    PLAYER = ABOUT_ID


class CharacterUpdated(Event, frozen=True, tag="character.updated"):
    """Sheet fields changed (merged key by key into the sheet)."""

    id: str
    sheet: dict[str, Any] = {}
    hidden: bool | None = None

    PLAYER = ABOUT_ID


class CharacterRemoved(Event, frozen=True, tag="character.removed"):
    id: str

    PLAYER = ABOUT_ID


class Rolled(Event, frozen=True, tag="dice.rolled"):
    """A free roll of dice notation, every die kept in the record."""

    actor: str
    dice: str
    faces: list[int]
    total: int
    kept: list[bool] = []
    source: str = "rng"  # "rng": margin's random source; "typed": physical dice typed in
    secret: bool = False
    reason: str = ""

    PLAYER = PlayerForm(about=("actor",), secret=("faces", "kept", "total", "dice"))


class Noted(Event, frozen=True, tag="table.note"):
    text: str
    gm_only: bool = False

    PLAYER = PUBLIC_FORM


class Undone(Event, frozen=True, tag="table.undone"):
    """A command was undone: every listed record is void from here on."""

    command: str
    voids: list[int]

    RECORD_FIELDS = ("voids",)

    PLAYER = PlayerForm(follows=("voids",))


class Redone(Event, frozen=True, tag="table.redone"):
    """An undo was reversed: the listed records count again."""

    command: str
    restores: list[int]

    RECORD_FIELDS = ("restores",)

    PLAYER = PlayerForm(follows=("restores",))


class Revealed(Event, frozen=True, tag="table.revealed"):
    """The GM showed the players a secret record's hidden fields."""

    record: int

    RECORD_FIELDS = ("record",)

    PLAYER = PlayerForm(follows=("record",))


class Branched(Event, frozen=True, tag="table.branched"):
    """This table is a branch: its records up to ``at`` are those of another table."""

    RECORD_FIELDS = ("at",)

    #: the file name of the table branched from
    source: str
    at: int
    #: chain hash of record ``at``, the same in both tables
    head: str
    #: the title of the table branched from
    title: str = ""


EVENTS: tuple[type[Event], ...] = (
    TableCreated,
    OptionSet,
    CharacterAdded,
    CharacterUpdated,
    CharacterRemoved,
    Rolled,
    Noted,
    Undone,
    Redone,
    Revealed,
    Branched,
)
