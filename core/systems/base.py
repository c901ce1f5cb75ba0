"""The face every dice system shows the rest of margin."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from margin.events import Draft, Event, Record

from ..dice import Dice, parse
from ..errors import RuleError
from ..facts import Reader
from ..history import History
from ..inputs import read_as
from ..state import Character, Moment, TableState, character_of


@dataclass(frozen=True)
class Option:
    """A switchable rule option of a table, stored in the log as an event."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    #: bounds of a whole-number option
    lo: int | None = None
    hi: int | None = None
    #: a further check of a value (dice notation, say): returns it, or raises RuleError
    valid: Callable[[Any], Any] | None = None

    @cached_property
    def _value(self) -> type[msgspec.Struct]:
        """A struct of one field, this option's value, with the choices or bounds it has."""
        kind: Any = Any
        if self.choices and not all(isinstance(c, bool) for c in self.choices):
            kind = Literal[self.choices]
        elif isinstance(self.default, bool):
            kind = bool
        elif isinstance(self.default, int):
            kind = Annotated[int, msgspec.Meta(ge=self.lo, le=self.hi)]
        return msgspec.defstruct("OptionValue", [(self.name, kind)])

    def check(self, value: Any) -> Any:
        """The value if valid for this option; a clear error otherwise."""
        read_as({self.name: value}, self._value, "option ")
        if self.valid is not None:
            try:
                return self.valid(value)
            except RuleError as exc:
                raise RuleError(f"option {self.name}: {exc}") from None
        return value

    @property
    def _switch(self) -> bool:
        """Whether the option is on or off: its default, or every choice, true or false."""
        choices = self.choices
        return (
            isinstance(self.default, bool)
            or bool(choices)
            and all(isinstance(c, bool) for c in choices)
        )

    def parse(self, text: str) -> Any:
        """A value typed on the command line (``true``, ``3``, ``simple``)."""
        low = text.strip().lower()
        if self._switch:
            if low not in SWITCH_WORDS:
                raise RuleError(f"option {self.name}: expected true or false, got {text!r}")
            return self.check(SWITCH_WORDS[low])
        if isinstance(self.default, int):
            try:
                number = int(low)
            except ValueError:
                raise RuleError(
                    f"option {self.name}: expected a whole number, got {text!r}"
                ) from None
            return self.check(number)
        return self.check(low)


#: the words an on/off option is typed as
SWITCH_WORDS = dict.fromkeys(("true", "on", "yes", "1"), True) | dict.fromkeys(
    ("false", "off", "no", "0"), False
)


Handler = Callable[[TableState, Record], None]
C = TypeVar("C", bound=Character)


def character_step(kind: type[C]) -> Callable[[Callable[[C, Record], None]], Handler]:
    """A fold step of an event that names a ``character``: the step changes that character,
    when one of ``kind`` is at the table (a character removed since is left be)."""

    def wrap(step: Callable[[C, Record], None]) -> Handler:
        def handler(state: TableState, record: Record) -> None:
            char = character_of(state, record.event.character, kind)
            if char is not None:
                step(char, record)

        return handler

    return wrap


def copied(kind: type[C], **fields: str) -> Handler:
    """A fold step that sets fields of the event's ``character`` (one of ``kind``) from the
    event's own: ``copied(Hero, edge="edge_after")`` sets ``edge`` to ``edge_after``."""

    def step(char: C, record: Record) -> None:
        for name, source in fields.items():
            setattr(char, name, getattr(record.event, source))

    return character_step(kind)(step)


@dataclass(frozen=True)
class Odds:
    """Exact chances of a check before it is rolled."""

    success: float
    #: band name -> probability, in the system's band order (best first)
    bands: dict[str, float]
    #: a short label of what is being estimated ("Kael: Athletics +20 vs TN 30")
    label: str = ""


@dataclass(frozen=True)
class ClockRow:
    """One line of the encounter's clock: who, where they stand, what they have left."""

    name: str
    value: str
    #: the row the clock stands at (marked on the screens)
    current: bool = False
    note: str = ""
    #: it is this one's turn, as the clock means it: an initiative order's current
    #: actor; on a timing track, one whose action has just come due
    turn: bool = False
    #: next to act: the next turn starts with this one, or the next count resolves it
    on_deck: bool = False
    #: players do not see this one (only the GM's clock lists them)
    hidden: bool = False


@dataclass(frozen=True)
class Clock:
    """The encounter's clock as screens show it (initiative order or timing track)."""

    title: str
    rows: tuple[ClockRow, ...] = ()
    #: where the clock stands, as numbers (replay jumps to them): the round of an
    #: initiative order, the turn within it, the count of a timing track; None when
    #: the clock has none (a track has no rounds, an order not yet begun no round)
    round: int | None = None
    turn: int | None = None
    count: int | None = None


def fight_title(round: int, name: str = "", turn: int | None = None) -> str:
    """An initiative order's title, the same words in every system: ``Round 2, turn 3``,
    or ``Not begun: next begins it``, then the fight's name if it has one (``(Docks)``)."""
    if round:
        where = f"Round {round}" + (f", turn {turn}" if turn is not None else "")
    else:
        where = "Not begun: next begins it"
    return f"{where} ({name})" if name else where


#: most characters one ``add NAME xN`` (an add-character's ``count``) seats
MAX_GROUP = 100


@dataclass(frozen=True)
class Usage:
    """What each word of one short form is, so completion offers the right kind of word.

    A kind is a vocabulary key (``character``, ``skill``, ``weapon``...) or
    literal words joined by ``|`` (``damage|initiative|reaction``); any other
    kind (``number``, ``text``) offers nothing.
    """

    #: kinds of the words right after the command word, in order
    slots: tuple[str, ...] = ()
    #: kinds any later word may be, in offer order
    rest: tuple[str, ...] = ()
    #: words that take the next word as a value -> its kind (``vs`` -> ``difficulty``)
    after: Mapping[str, str] = field(default_factory=dict)
    #: the command type it makes (``next`` makes ``next-turn``), so the screen's
    #: messages can name a command by the word the GM types
    makes: str = ""


def _notation(value: Any) -> str:
    if not isinstance(value, str):
        raise RuleError(f"expected dice notation, got {value!r}")
    return str(parse(value))


#: options margin gives every system
EVERY_OPTIONS: tuple[Option, ...] = (
    Option(
        "players",
        "ask",
        "what a player's command from their own seat does: 'ask' (a request the GM "
        "accepts, amends or refuses), 'trust' (applied at once) or 'off' (players watch)",
        ("ask", "trust", "off"),
    ),
    Option(
        "npc_health",
        "exact",
        "what players see of an NPC's health: 'exact', 'descriptive' (healthy, hurt, "
        "bloodied, down) or 'hidden'",
        ("exact", "descriptive", "hidden"),
    ),
)
#: options of the generic turn order, for a system without a clock of its own
CLOCK_OPTIONS: tuple[Option, ...] = (
    Option(
        "initiative_dice",
        "2d6",
        "the dice each character rolls to join the turn order",
        valid=_notation,
    ),
)
#: the log line of one record, its event given as a (possibly player-lensed) dict
Line = Callable[[dict[str, Any]], str]


class _Fields(dict[str, Any]):
    """An event's fields for a line's form: a field the event lacks reads as None."""

    def __missing__(self, key: str) -> None:
        return None


def describer(lines: Mapping[str, Line | str]) -> Callable[[dict[str, Any]], str | None]:
    """A system's ``describe``: the line of each event by its tag, None for tags not in
    ``lines``. A line given as a string is a form whose ``{field}`` is the event's."""

    def describe(event: dict[str, Any]) -> str | None:
        line = lines.get(event.get("type", ""))
        if isinstance(line, str):
            return line.format_map(_Fields(event))
        return None if line is None else line(event)

    return describe


# -- the hooks a system leaves out: each does the safe nothing ---------------------


def _no_world(options: Mapping[str, Any]) -> Any:
    return None


def _no_commands(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    raise RuleError(f"{state.system}: {type(command).__name__} is not one of its commands")


def _plain_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return Character(id=cid, name=name, sheet=sheet, hidden=hidden)


def _any_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    return sheet


def _no_line(event: dict[str, Any]) -> str | None:
    return None


def _no_fields(char: Character) -> dict[str, str]:
    return {}


def _no_status(char: Character, state: TableState) -> list[str]:
    return []


def _no_clock(state: TableState) -> Clock | None:
    return None


def _no_odds(command: Command, state: TableState) -> Odds | None:
    return None


def _no_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    return None


def _no_names(state: TableState) -> dict[str, list[str]]:
    return {}


def _no_player_world(state: TableState) -> Any:
    """Players see none of a world whose system does not say what of it they may see."""
    return None


class Command(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    """A GM's intent, decided against the state into events (or refused)."""


@dataclass(frozen=True)
class Acting:
    """What a player may give of one command, from their own seat (``core.authority``)."""

    #: the field naming the character who acts: a player gives only their own
    actor: str
    #: fields naming the other characters it acts on (an attack's target): any one
    #: character players can see
    others: tuple[str, ...] = ()
    #: fields only the GM sets (a secret TN, an override): a player's command leaves
    #: them as their defaults have them
    gm: tuple[str, ...] = ()
    #: applied at once even when the table's option asks for requests (what a player says)
    at_once: bool = False
    #: given even while players only watch (the option ``off``): no move in the game, as a
    #: seat's entropy for the dice is none
    watching: bool = False


Decide = Callable[[Command, TableState, Dice, History], list[Draft]]
#: command type -> the function that decides a command of it
Deciders = Mapping[type[Command], Callable[..., list[Draft]]]


def by_command(deciders: Deciders) -> Decide:
    """A system's ``decide``: each command decided by the function its type maps to (what
    players see of the drafts is ``core.lens``'s to say)."""

    def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
        return deciders[type(command)](command, state, dice, history)

    return decide


@dataclass(frozen=True)
class System:
    """One dice system: sheet, options, commands, events, odds and resolve."""

    id: str
    title: str
    summary: str
    options: tuple[Option, ...] = ()
    commands: tuple[type[Command], ...] = ()
    #: the commands of ``commands`` a player may give from their seat, and how
    #: (every other command is the GM's)
    players: Mapping[type[Command], Acting] = field(default_factory=dict)
    #: event type -> fold step, for this system's own events
    handlers: Mapping[type[Event], Handler] = field(default_factory=dict)
    #: decide(command, state, dice, history) -> drafts, for this system's commands
    decide: Callable[[Command, TableState, Dice, History], list[Draft]] = _no_commands
    #: builds the system's character from an added character's sheet (validated in check_sheet)
    make_character: Callable[[str, str, dict[str, Any], bool], Character] = _plain_character
    #: refuses a sheet the system cannot use; returns it normalised
    check_sheet: Callable[[dict[str, Any]], dict[str, Any]] = _any_sheet
    initial_world: Callable[[Mapping[str, Any]], Any] = _no_world
    #: margin resolve: action name -> handler(request, dice) -> result
    resolve: Mapping[str, Callable[[dict[str, Any], Dice], dict[str, Any]]] = field(
        default_factory=dict
    )
    #: commands (as `margin do` JSON objects) that build the demo table
    demo: tuple[dict[str, Any], ...] = ()
    #: file name of the GM-facing rules document in the system's package
    rules_doc: str = ""
    #: the import package the system was found in (``margin.core.systems.edge``);
    #: set when the systems are discovered
    package: str = ""
    #: one line for a record's event, given as a (possibly player-lensed) dict;
    #: returns None for tags it does not know
    describe: Callable[[dict[str, Any]], str | None] = _no_line
    #: short status items of a character for the table screen
    #: ("Edge 3/4", "Health 22/30", "moderate injury", "adv pending")
    status: Callable[[Character, TableState], list[str]] = _no_status
    #: a character's fields that hold data (a last check) as the line the status shows,
    #: for ``margin state``'s text: {"last": "Firearms 34/50 success"}
    field_lines: Callable[[Character], dict[str, str]] = _no_fields
    #: the encounter clock, or None when no encounter runs
    clock: Callable[[TableState], Clock | None] = _no_clock
    #: exact odds of a command before it is rolled, or None if it rolls no check
    odds: Callable[[Command, TableState], Odds | None] = _no_odds
    #: the table screen's short forms: words typed on its command line
    #: (``check kael athletics vs 30 adv``) -> a command as a JSON-style dict,
    #: or None when the first word is not one of this system's short forms
    parse_words: Callable[[list[str], TableState], dict[str, Any] | None] = _no_words
    #: examples of the short forms, (line, what it does), in an order that runs on the
    #: demo table; the table screen's help lists them
    short_forms: tuple[tuple[str, str], ...] = ()
    #: the short form the screen's "next turn" key types (moves the encounter's clock on)
    next_words: str = "next"
    #: names for completion on the command line: {"skill": [...], "weapon": [...]}
    vocabulary: Callable[[TableState], dict[str, list[str]]] = _no_names
    #: short form word -> what each of its words is, for completion
    grammar: Mapping[str, Usage] = field(default_factory=dict)
    #: the world (``state.world``) as players may see it, given the GM's whole state
    player_world: Callable[[TableState], Any] = _no_player_world
    #: after play: event tag -> what a recap reads from that event (``core.facts``)
    recap: Mapping[str, Reader] = field(default_factory=dict)
    #: where the system's own clock stands (None when none runs); a system without
    #: one (None here) gets margin's generic turn order (``core.clock``)
    moment: Callable[[TableState], Moment | None] | None = None
    #: the events that move the system's own clock, after which conditions may end
    clock_events: tuple[type[Event], ...] = ()
    #: the durations a condition may have here: rounds and turns of a turn order,
    #: or counts of a timing track
    time_units: tuple[str, ...] = ("rounds", "turns")
    #: a character's health as (current, maximum), or None when they have none the
    #: system tracks; players see it as the table's ``npc_health`` says (``core.health``)
    health: Callable[[Character], tuple[int, int] | None] | None = None
    #: the first word of the status item that shows it ("Health" for "Health 22/30")
    health_label: str = ""
    #: the character with the numbers of their health made to say nothing (unhurt),
    #: for players who may not see them
    mask_health: Callable[[Character], Character] | None = None

    @property
    def all_options(self) -> tuple[Option, ...]:
        """The system's own options, then those margin gives every system."""
        return self.options + (EVERY_OPTIONS if self.moment else EVERY_OPTIONS + CLOCK_OPTIONS)

    def option(self, name: str) -> Option:
        for opt in self.all_options:
            if opt.name == name:
                return opt
        known = ", ".join(o.name for o in self.all_options) or "none"
        raise RuleError(f"option {name!r} is not an option of {self.id} (options: {known})")

    def default_options(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.all_options}
