"""The characters a command names: one by id or name, a group, or a list of either."""

from __future__ import annotations

import re

from .errors import RuleError
from .state import Character, TableState, character_id, find_character


def group(state: TableState, ref: str) -> list[Character]:
    """The members of a group named ``ref`` (``Guard`` for Guard 1, Guard 2 ...), in number order."""
    pattern = re.compile(rf"{re.escape(' '.join(ref.split()))} (\d+)", re.IGNORECASE)
    found = []
    for char in state.characters.values():
        match = pattern.fullmatch(char.name)
        if match:
            found.append((int(match.group(1)), char))
    return [c for _, c in sorted(found, key=lambda pair: pair[0])]


def find_characters(state: TableState, refs: str | list[str]) -> list[Character]:
    """Every character ``refs`` names, each once, in the order named.

    A name that is no character's but a group's (``Guard``) names the whole
    group; names may be joined by commas (``kael,vex``).
    """
    names = [refs] if isinstance(refs, str) else list(refs)
    if not names:
        raise RuleError("character: name at least one character")
    out: dict[str, Character] = {}
    for name in names:
        # a name with a comma in it is one character's before it is a list
        parts = [name] if _seated(state, name) else [p.strip() for p in name.split(",")]
        for part in parts:
            for char in _named(state, part):
                out.setdefault(char.id, char)
    return list(out.values())


def _named(state: TableState, name: str) -> list[Character]:
    """The characters one name stands for: its character, or the whole group it names."""
    if _seated(state, name):
        return [find_character(state, name)]
    members = group(state, name)
    if not members:
        find_character(state, name)  # the usual error, naming who is at the table
    return members


def _seated(state: TableState, ref: str) -> bool:
    return character_id(ref) in state.characters or any(
        c.name.lower() == ref.strip().lower() for c in state.characters.values()
    )
