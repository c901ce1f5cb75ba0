"""d100-chance movement: steps on the field, a feared character's flight, journeys."""

from __future__ import annotations

from margin.events import Draft
from margin.events.systems.chance import EffectTicked, Moved, Traveled

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from ..commands import Flee, Move, Travel
from ..state import EFFECTS, ChanceCharacter, speed
from .common import MAX_FEET, char_of, distance, place, standing, world_of


def decide_move(cmd: Move, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = char_of(state, cmd.character)
    to = place(cmd.to, "to")
    start = char.position
    feet = distance(start, to) if start is not None else 0
    if not cmd.override:
        _check_move(state, char, to, feet)
    event = Moved(character=char.id, to=to, feet=feet, start=start, override=cmd.override)
    return [Draft(event)]


def _check_move(state: TableState, char: ChanceCharacter, to: list[int], feet: int) -> None:
    """Refuse a move of a character who is down, must flee first, or cannot go so far."""
    standing(char, "character", "move (override)")
    enc = world_of(state).encounter
    if enc is None:
        return
    if enc.flee_from and enc.actor == char.id:
        raise RuleError(f"to: {char.name} is feared and must flee first (flee {char.id})")
    if char.position is None:
        return
    _check_speed(char, feet, enc.moved if enc.actor == char.id else 0)
    _check_flight(state, char, char.position, to)


def _check_speed(char: ChanceCharacter, feet: int, used: int) -> None:
    """Refuse a move farther than the character's speed allows this turn (``used``: the feet
    it has moved this turn already)."""
    limit = speed(char)
    if limit == 0 and feet:
        held = ", ".join(e.name for e in char.effects if EFFECTS[e.name].move_divisor == 0)
        raise RuleError(f"to: {char.name} cannot move ({held}; override)")
    if feet + used > limit:
        left = f" ({limit - used} ft left)" if used else ""
        raise RuleError(f"to: {feet} ft is more than {char.name}'s {limit} ft this turn{left}")


def _check_flight(
    state: TableState, char: ChanceCharacter, start: list[int], to: list[int]
) -> None:
    """A feared character's every move takes it farther from whoever frightened it."""
    fear = char.effect("feared")
    source = state.characters.get(fear.source) if fear is not None else None
    if not isinstance(source, ChanceCharacter) or source.position is None:
        return
    if distance(to, source.position) <= distance(start, source.position):
        raise RuleError(
            f"to: {char.name} is feared and must move away from {source.name} (override)"
        )


def flight(
    state: TableState, actor: ChanceCharacter, hp: int, ticks: list[Draft]
) -> tuple[str, list[int] | None]:
    """Whether a feared actor must flee this turn: (from whom, the place proposed). A fear
    that ends as the turn starts, a character down, without a place, or unable to move
    (rooted, frozen, stunned) flees nowhere."""
    fear = actor.effect("feared")
    if fear is None or _fear_ends(ticks) or hp <= 0 or actor.position is None or not speed(actor):
        return "", None
    source = state.characters.get(fear.source)
    if not isinstance(source, ChanceCharacter) or source.position is None:
        return fear.source or "gm", None
    return source.id, away(actor.position, source.position, speed(actor))


def _fear_ends(ticks: list[Draft]) -> bool:
    """Whether a fear ends as the turn starts, among the effects that tick then."""
    return any(
        isinstance(d.event, EffectTicked) and d.event.effect == "feared" and d.event.ended
        for d in ticks
    )


def away(start: list[int], source: list[int], feet: int) -> list[int]:
    """The place ``feet`` straight away from ``source`` (along x when both stand on one spot)."""
    dx = (start[0] > source[0]) - (start[0] < source[0])
    dy = (start[1] > source[1]) - (start[1] < source[1])
    if dx == dy == 0:
        dx = 1
    return [
        max(-MAX_FEET, min(MAX_FEET, start[0] + dx * feet)),
        max(-MAX_FEET, min(MAX_FEET, start[1] + dy * feet)),
    ]


def decide_flee(cmd: Flee, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = char_of(state, cmd.character)
    enc = world_of(state).encounter
    if enc is None or enc.actor != char.id or not enc.flee_from:
        raise RuleError(
            f"flee: {char.name} has no forced move due (a feared character flees at the "
            "start of its turn)"
        )
    to = _flee_to(cmd, enc.flee_to, char)
    start = char.position
    feet = distance(start, to) if start is not None else 0
    if start is not None and not cmd.override:
        limit = speed(char) - enc.moved
        if feet > limit:
            raise RuleError(f"to: {feet} ft is more than the {limit} ft {char.name} can run")
        _check_flight(state, char, start, to)
    event = Moved(
        character=char.id, to=to, feet=feet, start=start, override=cmd.override, fled=True
    )
    return [Draft(event)]


def _flee_to(cmd: Flee, proposed: list[int] | None, char: ChanceCharacter) -> list[int]:
    """Where a feared character flees: the place given, or the one its turn proposed."""
    if cmd.to is not None:
        return place(cmd.to, "to")
    if proposed is None:
        raise RuleError(
            f"to: give the place {char.name} flees to ([x, y] feet): whoever frightened it "
            "has no place on the field"
        )
    return list(proposed)


#: longest leg of a journey, in its unit
MAX_DISTANCE = 1_000_000_000_000


#: Travel domains: distance units, and the speed unit where the domain has one.
DOMAINS: dict[str, tuple[tuple[str, ...], str]] = {
    "land": (("mi", "km"), ""),
    "sea": (("nmi",), "knots"),
    "air": (("nmi",), "knots"),
    "underwater": (("m",), ""),
    "space": (("km", "au", "light-minutes", "ly", "pc"), ""),
    "station": (("m", "decks"), ""),
}


def decide_travel(cmd: Travel, state: TableState, dice: Dice, history: History) -> list[Draft]:
    domain = cmd.domain.strip().lower()
    if domain not in DOMAINS:
        raise RuleError(f"domain: {cmd.domain!r} is not one of {', '.join(DOMAINS)}")
    units, speed_unit = DOMAINS[domain]
    unit = cmd.unit.strip().lower()
    if unit not in units:
        raise RuleError(
            f"unit: {domain} travel is measured in {', '.join(units)}, not {cmd.unit!r}"
        )
    if cmd.distance <= 0:
        raise RuleError(f"distance: {cmd.distance} must be above 0")
    if cmd.distance > MAX_DISTANCE:
        raise RuleError(f"distance: {cmd.distance:g} is more than {MAX_DISTANCE:g} {unit}")
    if cmd.speed is not None:
        _check_knots(cmd.speed, speed_unit)
    event = Traveled(
        domain=domain, distance=cmd.distance, unit=unit, speed=cmd.speed, note=cmd.note
    )
    return [Draft(event)]


#: the commands this module decides
DECIDERS: Deciders = {
    Move: decide_move,
    Flee: decide_flee,
    Travel: decide_travel,
}


def _check_knots(speed: float, unit: str) -> None:
    """A leg's speed: only where the domain has a speed ``unit``, above 0 and bounded."""
    if not unit:
        raise RuleError("speed: only sea and air legs take a speed, in knots above 0")
    if speed <= 0:
        raise RuleError(f"speed: {speed} must be above 0")
    if speed > MAX_DISTANCE:
        raise RuleError(f"speed: {speed:g} is more than {MAX_DISTANCE:g} knots")
