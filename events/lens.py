"""The player lens: what a player may read of a record."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from .record import Record, record_to_builtins


def player_view(record: Record, revealed: Container[int] = ()) -> dict[str, Any] | None:
    """A record as a player sees it, or None when the record is GM-only.

    Hidden fields are removed from the event, not blanked, so nothing of their
    value (not even its length) reaches a player's screen. A hidden name may be
    a dotted path into a nested field (``positions.sniper``). A record the GM has
    revealed is shown whole.
    """
    if record.visibility.gm_only:
        return None
    data = record_to_builtins(record)
    data.pop("visibility", None)
    hidden = record.visibility.hidden
    if hidden and record.seq not in revealed:
        event = data["event"]
        for name in hidden:
            _cut(event, name.split("."))
        data["secret"] = True
    return data


def _cut(data: Any, path: list[str]) -> None:
    """Remove the field at a dotted path (``positions.sniper``), if it is there."""
    for key in path[:-1]:
        data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            return
    if isinstance(data, dict):
        data.pop(path[-1], None)


def renumber(record: Record, data: dict[str, Any], number: Callable[[int], int | None]) -> None:
    """Number a player's view of ``record`` as the player sees the log.

    ``number(seq)`` is a record's number in the player's log, or None for a record
    the player cannot see. The record's own number, its cause and every field its
    event names in ``RECORD_FIELDS`` are renumbered; numbers of unseen records are
    dropped (0 for a single field), so no gap betrays a secret record.
    """
    data["seq"] = number(record.seq)
    cause = data.pop("cause", None)
    if cause is not None and number(cause) is not None:
        data["cause"] = number(cause)
    event = data["event"]
    for name in type(record.event).RECORD_FIELDS:
        value = event.get(name)
        if isinstance(value, list):
            event[name] = [n for n in map(number, value) if n is not None]
        elif isinstance(value, int) and value:
            event[name] = number(value) or 0


class PlayerLog:
    """Reads a log in order as a player: GM-only records left out, the rest numbered
    1, 2, 3... without gaps, so the numbering does not betray that secret records exist
    (see ``renumber``)."""

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}

    def view(self, record: Record, revealed: Container[int] = ()) -> dict[str, Any] | None:
        data = player_view(record, revealed)
        if data is None:
            return None
        self.numbers[record.seq] = len(self.numbers) + 1
        renumber(record, data, self.numbers.get)
        return data
