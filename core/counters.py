"""Counters: named tracks of a character with a maximum (Health, ammunition, stress).

Any system may keep them; a counter's value stays between 0 and its maximum,
and every change is a ``counter.set`` record holding the value it left.
"""

from __future__ import annotations

from margin.events import CounterRemoved, CounterSet, Draft, Event, Record

from .commands import AdjustCounter, RemoveCounter, SetCounter
from .dice import Dice
from .errors import RuleError
from .history import History
from .state import Character, Counter, TableState
from .systems.base import Handler
from .targets import find_characters

MAX_NAME = 40


def key(name: str) -> str:
    return " ".join(name.lower().split())


def find(char: Character, name: str) -> Counter:
    found = char.counters.get(key(name))
    if found is None:
        have = ", ".join(c.name for c in char.counters.values()) or "none yet"
        raise RuleError(f"{char.name} has no counter {name!r} (counters: {have})")
    return found


def _name(name: str) -> str:
    clean = " ".join(name.split())
    if not clean:
        raise RuleError("name: a counter needs a name (Health, ammo, stress ...)")
    if len(clean) > MAX_NAME:
        raise RuleError(f"name: a counter's name is at most {MAX_NAME} characters")
    return clean


def set_draft(char: Character, name: str, value: int | None, maximum: int | None) -> Draft:
    """The record setting one counter: a new one (full unless a value is given) or an old one."""
    old = char.counters.get(key(name))
    if old is None:
        shown, now, top = _name(name), *_new_counter(char, name, value, maximum)
    else:
        shown, now, top = old.name, *_changed_counter(char, old, value, maximum)
    if now > top:
        raise RuleError(f"{char.name} {shown}: {now} is above its maximum {top}")
    return Draft(CounterSet(character=char.id, name=shown, value=now, max=top))


def _new_counter(
    char: Character, name: str, value: int | None, maximum: int | None
) -> tuple[int, int]:
    """A new counter's value and maximum: full unless a value is given, which is the
    maximum when none is."""
    top = maximum if maximum is not None else value
    if top is None:
        raise RuleError(f"{char.name}: a new counter {name!r} needs a maximum")
    return (top if value is None else value), top


def _changed_counter(
    char: Character, old: Counter, value: int | None, maximum: int | None
) -> tuple[int, int]:
    """A counter's value and maximum as a setting changes them; a lower maximum lowers the
    value kept."""
    if value is None and maximum is None:
        raise RuleError(f"{char.name} {old.name}: give a value or a maximum")
    top = old.max if maximum is None else maximum
    return (min(old.value, top) if value is None else value), top


def set_counter(cmd: SetCounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return [
        set_draft(c, cmd.name, cmd.value, cmd.max) for c in find_characters(state, cmd.character)
    ]


def adjust(cmd: AdjustCounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return [_adjusted(c, cmd.name, cmd.by) for c in find_characters(state, cmd.character)]


def _adjusted(char: Character, name: str, by: int) -> Draft:
    """The record moving one counter by ``by``, held between 0 and its maximum."""
    counter = find(char, name)
    value = max(0, min(counter.max, counter.value + by))
    return Draft(
        CounterSet(character=char.id, name=counter.name, value=value, max=counter.max, change=by)
    )


def remove(cmd: RemoveCounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return [
        Draft(CounterRemoved(character=char.id, name=find(char, cmd.name).name))
        for char in find_characters(state, cmd.character)
    ]


def _set(state: TableState, record: Record) -> None:
    e: CounterSet = record.event
    char = state.characters.get(e.character)
    if char is not None:
        char.counters[key(e.name)] = Counter(name=e.name, value=e.value, max=e.max)


def _removed(state: TableState, record: Record) -> None:
    e: CounterRemoved = record.event
    char = state.characters.get(e.character)
    if char is not None:
        char.counters.pop(key(e.name), None)


HANDLERS: dict[type[Event], Handler] = {CounterSet: _set, CounterRemoved: _removed}


def status(char: Character) -> list[str]:
    return [f"{c.name} {c.value}/{c.max}" for c in char.counters.values()]
