"""Events every table has, whatever its dice system."""

from __future__ import annotations

from typing import Any

from .base import Event, PlayerForm, declared

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
    #: a character the GM plays, whose health players see as the table's
    #: ``npc_health`` option says
    npc: bool = False

    PLAYER = ABOUT_ID


class CharacterUpdated(Event, frozen=True, tag="character.updated"):
    """Sheet fields changed (merged key by key into the sheet)."""

    id: str
    sheet: dict[str, Any] = {}
    hidden: bool | None = None
    #: now an NPC (True) or not (False); None: unchanged
    npc: bool | None = None

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
    """The GM showed the players a secret record's hidden fields.

    ``key`` and ``proof`` open the record's commitment (``Record.sealed``): its secret
    key and the path from that key to the session's committed tree of keys.
    """

    record: int
    key: str = ""
    proof: list[str] = []

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


class CharacterRenamed(Event, frozen=True, tag="character.renamed"):
    """A character goes by another name from here on; the id stays."""

    id: str
    name: str
    #: the name they went by until now
    was: str = ""

    PLAYER = ABOUT_ID


class CharacterCarried(Event, frozen=True, tag="character.carried"):
    """A character seated as they stood at the end of another table (``margin new --from``).

    ``status`` is the whole character as that table's fold left it (sheet,
    health, injuries, conditions, counters); players see only that they
    arrived, since it may hold what the GM keeps to themself (a GM-only
    condition).
    """

    id: str
    name: str
    status: dict[str, Any] = {}
    hidden: bool = False
    #: the file name of the table they come from
    source: str = ""

    PLAYER = PlayerForm(about=("id",), private=("status",))


class HealthViewSet(Event, frozen=True, tag="character.health-view"):
    """What players see of one character's health: exact, descriptive, hidden,
    or ``table`` (the table's ``npc_health`` option for an NPC, exact otherwise)."""

    id: str
    view: str

    PLAYER = ABOUT_ID


class ConditionAdded(Event, frozen=True, tag="condition.added"):
    """A condition (prone, blinded, a custom tag) on a character, with its duration.

    When it ends is fixed here, on the table's clock: ``rounds`` end when the
    clock comes round to ``anchor``'s turn in round ``until_round`` (the start
    of that round when no one was acting); ``turns`` end when the bearer's
    ``until_turn``-th turn of the fight is over; ``counts`` end when a timing
    track reaches ``until_count``. No duration: until removed.
    """

    character: str
    name: str
    rounds: int | None = None
    turns: int | None = None
    counts: int | None = None
    until_round: int = 0
    anchor: str = ""
    until_turn: int = 0
    until_count: int = 0
    gm_only: bool = False
    reason: str = ""

    # whose turn anchors the duration may be a hidden combatant's
    PLAYER = PlayerForm(about=("character",), private=("anchor",))


class ConditionEnded(Event, frozen=True, tag="condition.ended"):
    """A condition is over: its time ran out on the clock (``expired``) or the GM removed it."""

    character: str
    name: str
    expired: bool = False

    PLAYER = PlayerForm(about=("character",))


class CounterSet(Event, frozen=True, tag="counter.set"):
    """A named track of a character (Health, ammunition, stress) now stands at ``value``.

    ``change`` is the adjustment asked for (0 when the value was set outright);
    the value is kept between 0 and ``max``.
    """

    character: str
    name: str
    value: int
    max: int
    change: int = 0

    PLAYER = PlayerForm(about=("character",))


class CounterRemoved(Event, frozen=True, tag="counter.removed"):
    character: str
    name: str

    PLAYER = PlayerForm(about=("character",))


class FightStarted(Event, frozen=True, tag="fight.started"):
    """The generic turn order of a system without one of its own begins."""

    name: str = ""

    PLAYER = PUBLIC_FORM


class FightJoined(Event, frozen=True, tag="fight.joined"):
    """A character takes a place in the turn order: an initiative the GM set, or rolled."""

    character: str
    initiative: int
    #: the dice expression rolled ("" when the GM set the initiative)
    dice: str = ""
    faces: list[int] = []
    source: str = "rng"

    PLAYER = PlayerForm(about=("character",))


class FightLeft(Event, frozen=True, tag="fight.left"):
    character: str

    PLAYER = PlayerForm(about=("character",))


class FightTurn(Event, frozen=True, tag="fight.turn"):
    """A character's turn begins."""

    character: str
    round: int
    #: place in the GM's order, which counts hidden combatants
    index: int = 0

    PLAYER = PlayerForm(about=("character",), private=("index",))


class FightEnded(Event, frozen=True, tag="fight.ended"):
    name: str = ""

    PLAYER = PUBLIC_FORM


class AliasSet(Event, frozen=True, tag="table.alias"):
    """A macro of the GM's: typing ``name`` runs ``line`` (an empty line forgets it)."""

    name: str
    line: str = ""


EVENTS = declared(globals(), Event)
