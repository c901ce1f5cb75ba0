"""The projection's state: what a fold of the log yields.

State objects are mutable msgspec Structs owned by the fold that builds them:
``evolve`` changes the state it is given and returns it, so a rebuild costs no
copying. Snapshots for replay are deep copies, made by a pickle round trip
(about three times quicker than ``copy.deepcopy`` on a table's state).
"""

from __future__ import annotations

import pickle
from typing import Any

import msgspec


class Character(msgspec.Struct, kw_only=True):
    """A character at the table; dice systems subclass it with their own status."""

    id: str
    name: str
    sheet: dict[str, Any] = {}
    hidden: bool = False


class LastRoll(msgspec.Struct, kw_only=True):
    seq: int
    actor: str
    dice: str
    total: int
    secret: bool = False


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


def snapshot(state: TableState) -> TableState:
    """An independent copy of a state, for replay checkpoints."""
    copied: TableState = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
    return copied


def character_id(name: str) -> str:
    """The id a character's name gives: lower case, words joined by '-'."""
    return "-".join(name.lower().split())


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


def about_hidden_only(state: TableState, subjects: list[str]) -> bool:
    """True when every character a record is about is one the players cannot see.

    Such a record is GM-only: its existence alone would tell players about a
    hidden character.
    """
    known = [state.characters[s] for s in subjects if s in state.characters]
    return bool(known) and all(c.hidden for c in known)
