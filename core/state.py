"""The projection's state: what a fold of the log yields.

State objects are mutable msgspec Structs owned by the fold that builds them:
``evolve`` changes the state it is given and returns it, so a rebuild costs no
copying. Snapshots for replay are deep copies, made by a pickle round trip
(about three times quicker than ``copy.deepcopy`` on a table's state).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import msgspec

T = TypeVar("T")


class FromRecord(msgspec.Struct, kw_only=True):
    """A piece of state one record left (a pending bonus, an injury): ``seq`` is that
    record's number, which players see in their own numbering (see core.lens)."""

    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    seq: int


class LastCheck(msgspec.Struct, kw_only=True):
    """A character's last check, as the table screen shows it, and the record it came from
    (players who did not see that record, a check the GM rolled in secret, see none); a dice
    system that shows it adds what its checks come to."""

    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    label: str
    #: the side that won an opposed check
    won: bool = False
    seq: int = 0


class Condition(msgspec.Struct, kw_only=True):
    """A condition on a character and when it ends on the table's clock (see
    ``events.ConditionAdded``); ``core.conditions`` keeps them."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("seq",)

    name: str
    #: the record that put it on (a GM-only one keeps it from players)
    seq: int = 0
    rounds: int | None = None
    turns: int | None = None
    counts: int | None = None
    until_round: int = 0
    anchor: str = ""
    until_turn: int = 0
    until_count: int = 0
    gm_only: bool = False


class Counter(msgspec.Struct, kw_only=True):
    """A named track of a character with a maximum (Health, ammunition, stress)."""

    name: str
    value: int
    max: int


class Character(msgspec.Struct, kw_only=True):
    """A character at the table; dice systems subclass it with their own status."""

    id: str
    name: str
    sheet: dict[str, Any] = {}
    hidden: bool = False
    #: a character the GM plays (what players see of their health: option npc_health)
    npc: bool = False
    #: what players see of this character's health, overriding the table's rule
    #: ("exact", "descriptive", "hidden"; "" follows the table)
    health_view: str = ""
    conditions: list[Condition] = []
    #: counter key (its name in lower case) -> the counter
    counters: dict[str, Counter] = {}
    #: in the players' state only: their health as players are told it (a word, or
    #: "hidden"), when they may not see it exactly ("" : they see it as it is)
    health_shown: str = ""


C = TypeVar("C", bound=Character)


def typed_sheet(char: Character, read: Callable[[dict[str, Any]], T]) -> T:
    """``read(char.sheet)``: a character's sheet typed, read once for each sheet it holds.

    The folds keep a sheet as the plain data its records hold (a change merges
    fields into it), so the typed sheet is kept beside the data it was read from,
    outside the struct's fields (the system's Character subclass is declared with
    ``dict=True`` for it), so never in a state.
    """
    held: tuple[dict[str, Any], T] | None = vars(char).get("typed_sheet")
    if held is None or held[0] is not char.sheet:
        held = (char.sheet, read(char.sheet))
        vars(char)["typed_sheet"] = held
    return held[1]


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """Where a table's clock stands: a round and whose turn, or a timing track's count."""

    round: int = 0
    actor: str = ""
    count: int = 0


class Time(msgspec.Struct, kw_only=True):
    """The clock as conditions count it, kept by the fold of every clock event."""

    at: Moment | None = None
    #: character id -> turns of the running fight begun so far
    turns: dict[str, int] = {}


class Combatant(msgspec.Struct, kw_only=True):
    """A place in the generic turn order."""

    id: str
    initiative: int
    #: the order joined in, which breaks ties
    joined: int = 0


class Rounds(msgspec.Struct, kw_only=True):
    """Where a fight in rounds stands: its round, whose turn it is, who has had one.

    A system's own initiative order builds on it (with its own kind of combatant), as
    the generic one does."""

    name: str = ""
    round: int = 0
    current: str = ""
    #: who has had a turn this round
    acted: list[str] = []


class Fight(Rounds, kw_only=True):
    """The generic turn order of a system that has none of its own (``core.clock``)."""

    order: list[Combatant] = []
    #: joins so far, numbering each place's ``joined``
    joins: int = 0


class LastRoll(FromRecord, kw_only=True):
    """The last free roll (``roll 2d6``), as the table screen shows it."""

    actor: str
    dice: str
    total: int
    secret: bool = False


class Request(msgspec.Struct, kw_only=True):
    """A player's request waiting for the GM's ruling: whose, by whom, and the command."""

    seat: str
    author: str
    command: dict[str, Any]


class Prompt(msgspec.Struct, kw_only=True):
    """A check the GM asked of one player: whose, the check, the command that asked (one
    ask prompts each player it names), and the record that answered it (0: waiting)."""

    seat: str
    check: dict[str, Any]
    ask: str
    answered: int = 0


class TableState(msgspec.Struct, kw_only=True):
    """Everything a fold of a table's log knows at one record."""

    system: str = ""
    title: str = ""
    options: dict[str, Any] = {}
    characters: dict[str, Character] = {}
    #: The system's own table-wide state (encounter, clock, pending effects).
    world: Any = None
    seq: int = 0
    last_roll: LastRoll | None = None
    revealed: set[int] = set()
    notes: int = 0
    #: the generic turn order, for a system without a clock of its own
    fight: Fight | None = None
    time: Time = msgspec.field(default_factory=Time)
    #: the GM's macros: name -> the line it stands for
    aliases: dict[str, str] = {}
    #: characters who have left the table: id -> the name they went by, so that the log
    #: still says them by name
    departed: dict[str, str] = {}
    #: players' requests waiting for a ruling, by the record number of each
    requests: dict[int, Request] = {}
    #: the checks the GM asked of players (``ask``), by the record number of each prompt,
    #: while any prompt of their ask is waiting for its answer
    prompts: dict[int, Prompt] = {}


def hidden_ids(state: TableState) -> set[str]:
    """The ids of the characters players cannot see."""
    return {c.id for c in state.characters.values() if c.hidden}


def snapshot(state: T) -> T:
    """An independent copy of a state (or a part of one), for replay checkpoints."""
    copied: T = thaw(freeze(state))
    return copied


def freeze(state: object) -> bytes:
    """A state as bytes (``thaw`` gives an independent copy back)."""
    return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)


def thaw(frozen: bytes) -> Any:
    """The state ``freeze`` made ``frozen`` of."""
    return pickle.loads(frozen)


def character_id(name: str) -> str:
    """The id a character's name gives: lower case, words joined by '-'."""
    return "-".join(name.lower().split())


def lookup(table: dict[str, int], name: str) -> tuple[str, int] | None:
    """A sheet table's entry (its name as the sheet spells it, and its value) by a name
    typed in any case and spacing (``arc  rifle`` finds ``Arc Rifle``), or None."""
    key = " ".join(name.lower().split())
    for k, v in table.items():
        if " ".join(k.lower().split()) == key:
            return k, v
    return None


def character_of(state: TableState, cid: str, kind: type[C]) -> C | None:
    """The character ``cid`` when one of ``kind`` is at the table (a fold step's lookup:
    a character removed since is left be)."""
    char = state.characters.get(cid)
    return char if isinstance(char, kind) else None


def find_character(state: TableState, ref: str) -> Character:
    """A character by id or name, case-insensitive; a clear error otherwise."""
    from .errors import RuleError

    key = character_id(ref)
    found = state.characters.get(key)
    if found is not None:
        return found
    for c in state.characters.values():
        if c.name.lower() == ref.lower():
            return c
    names = ", ".join(sorted(c.name for c in state.characters.values())) or "none yet"
    raise RuleError(f"character {ref!r} is not at the table (characters: {names})")
