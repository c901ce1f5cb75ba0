"""Conditions with durations (prone, blinded, on fire, any tag), in every system.

A condition lasts some rounds, some of its bearer's turns, some counts of a
timing track, or until removed. When it ends is fixed when it is put on,
against the table's clock (``core.clock``): ``rounds: N`` ends when the
clock comes back to the turn it was put on in, N rounds later (at the start
of round N + 1 of the next fight when put on outside one); ``turns: N`` ends
when the bearer's Nth turn after this one is over; ``counts: N`` ends when
the track has moved N counts on. Every timed condition ends when the clock
stops (the encounter or the track ends).

Nothing in the fold decides that a condition is over: the command that moves
the clock records its end (``condition.ended``, caused by the record that
moved it), so the log says what ended when, and undoing the move puts the
condition back exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from margin.events import ConditionAdded, ConditionEnded, Draft, Event, Record, Visibility

from .clock import moment
from .commands import AddCondition, RemoveCondition
from .dice import Dice
from .errors import RuleError
from .history import History
from .state import Character, Condition, Moment, TableState
from .systems import get_system
from .systems.base import Handler
from .targets import find_characters

MAX_NAME = 60


def _key(name: str) -> str:
    return " ".join(name.lower().split())


def find(char: Character, name: str) -> Condition | None:
    key = _key(name)
    return next((c for c in char.conditions if _key(c.name) == key), None)


def _until(cmd: AddCondition, char: Character, state: TableState) -> dict[str, object]:
    units = get_system(state.system).time_units
    given = [u for u in ("rounds", "turns", "counts") if getattr(cmd, u) is not None]
    if len(given) > 1:
        raise RuleError(f"add-condition: give one duration, not {' and '.join(given)}")
    if not given:
        return {}
    unit = given[0]
    if unit not in units:
        raise RuleError(
            f"add-condition: {unit} are not counted in {state.system} "
            f"(durations here: {', '.join(units)})"
        )
    return _UNTIL[unit](getattr(cmd, unit), char, state)


def _until_round(n: int, char: Character, state: TableState) -> dict[str, object]:
    """``n`` rounds from now: to the acting character's turn that many rounds on (from the
    start of round ``n + 1`` when no round is running)."""
    now = moment(state)
    if now is None or now.round == 0:
        return {"until_round": n + 1}
    return {"until_round": now.round + n, "anchor": now.actor}


def _until_turn(n: int, char: Character, state: TableState) -> dict[str, object]:
    """The end of the bearer's ``n``-th turn from now."""
    return {"until_turn": state.time.turns.get(char.id, 0) + n}


def _until_count(n: int, char: Character, state: TableState) -> dict[str, object]:
    """``n`` counts on the running timing track."""
    now = moment(state)
    if now is None:
        raise RuleError("add-condition: counts need a running timing track (start-track)")
    return {"until_count": now.count + n}


#: when a condition of each unit of duration ends, on the table's clock
_UNTIL: dict[str, Callable[[int, Character, TableState], dict[str, object]]] = {
    "rounds": _until_round,
    "turns": _until_turn,
    "counts": _until_count,
}


def add(cmd: AddCondition, state: TableState, dice: Dice, history: History) -> list[Draft]:
    name = " ".join(cmd.name.split())
    if not name:
        raise RuleError("name: a condition needs a name (prone, blinded, on fire ...)")
    if len(name) > MAX_NAME:
        raise RuleError(f"name: a condition's name is at most {MAX_NAME} characters")
    out = []
    for char in find_characters(state, cmd.character):
        event = ConditionAdded(
            character=char.id,
            name=name,
            rounds=cmd.rounds,
            turns=cmd.turns,
            counts=cmd.counts,
            gm_only=cmd.gm_only,
            reason=cmd.reason,
            **_until(cmd, char, state),  # type: ignore[arg-type]
        )
        out.append(Draft(event, visibility=Visibility(gm_only=cmd.gm_only)))
    return out


def remove(cmd: RemoveCondition, state: TableState, dice: Dice, history: History) -> list[Draft]:
    out = []
    for char in find_characters(state, cmd.character):
        found = find(char, cmd.name)
        if found is None:
            have = ", ".join(c.name for c in char.conditions) or "none"
            raise RuleError(
                f"remove-condition: {char.name} is not {cmd.name!r} (conditions: {have})"
            )
        out.append(
            Draft(
                ConditionEnded(character=char.id, name=found.name),
                cause=found.seq or None,
                visibility=Visibility(gm_only=found.gm_only),
            )
        )
    return out


def _added(state: TableState, record: Record) -> None:
    e: ConditionAdded = record.event
    char = state.characters.get(e.character)
    if char is None:
        return
    key = _key(e.name)
    char.conditions = [c for c in char.conditions if _key(c.name) != key]
    # the condition holds what the record fixed about it, and the record's number
    fields = {f: getattr(e, f) for f in Condition.__struct_fields__ if f != "seq"}
    char.conditions.append(Condition(seq=record.seq, **fields))


def _ended(state: TableState, record: Record) -> None:
    e: ConditionEnded = record.event
    char = state.characters.get(e.character)
    if char is not None:
        key = _key(e.name)
        char.conditions = [c for c in char.conditions if _key(c.name) != key]


HANDLERS: dict[type[Event], Handler] = {ConditionAdded: _added, ConditionEnded: _ended}


def over(cond: Condition, char: Character, state: TableState, now: Moment) -> bool:
    """Whether a timed condition's time is up with the clock at ``now``."""
    if cond.rounds:
        return now.round > cond.until_round or (
            now.round == cond.until_round and (not cond.anchor or now.actor == cond.anchor)
        )
    if cond.turns:
        taken = state.time.turns.get(char.id, 0)
        return taken > cond.until_turn or (taken == cond.until_turn and now.actor != char.id)
    return now.count >= cond.until_count


def _timed(cond: Condition) -> bool:
    return bool(cond.rounds or cond.turns or cond.counts)


def timed(state: TableState) -> bool:
    """Whether any condition at the table has a duration (the only ones that can end)."""
    return any(_timed(c) for char in state.characters.values() for c in char.conditions)


def expiring(state: TableState) -> list[tuple[Character, Condition]]:
    """The timed conditions whose time is up in ``state``; all of them when no clock runs."""
    now = moment(state)
    return [
        (char, cond)
        for char in state.characters.values()
        for cond in char.conditions
        if _timed(cond) and (now is None or over(cond, char, state, now))
    ]


def ended_draft(char: Character, cond: Condition, cause: int) -> Draft:
    return Draft(
        ConditionEnded(character=char.id, name=cond.name, expired=True),
        cause=cause,
        visibility=Visibility(gm_only=cond.gm_only),
    )


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}{'s' if n != 1 else ''}"


def _rounds_left(cond: Condition, left: int, state: TableState) -> str:
    """``2 rounds left``; in its last round, the turn it ends at (``until Mira's turn``)."""
    if left > 0:
        return f"{_plural(left, 'round')} left"
    anchor = state.characters.get(cond.anchor) if cond.anchor else None
    return f"until {anchor.name}'s turn" if anchor is not None else "ends this round"


def _turns_left(turns: int, until: int, bearer: str, now: Moment | None, state: TableState) -> int:
    """The turns of its bearer left to a condition of ``turns`` that ends with the bearer's
    ``until``-th turn.

    The bearer's turn under way counts as one left, unless the condition came on during
    it: its turns are the ones after that turn.
    """
    begun = state.time.turns.get(bearer, 0)
    acting = now is not None and now.actor == bearer and begun > until - turns
    return max(until - begun + acting, 0)


def status(char: Character, state: TableState) -> list[str]:
    """A character's conditions as the panels show them (``prone, 2 rounds left``)."""
    now = moment(state)
    out = []
    for c in char.conditions:
        if c.rounds:
            left = c.rounds if now is None or not now.round else c.until_round - now.round
            out.append(f"{c.name}, {_rounds_left(c, left, state)}")
        elif c.turns:
            left = _turns_left(c.turns, c.until_turn, char.id, now, state)
            out.append(f"{c.name}, {_plural(left, 'turn')} left")
        elif c.counts:
            out.append(f"{c.name}, to count {c.until_count}")
        else:
            out.append(c.name)
    return out
