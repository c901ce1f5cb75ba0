"""The player lens: what a player may read of a record."""

from __future__ import annotations

from collections.abc import Container
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


class PlayerLog:
    """Reads a log in order as a player: GM-only records left out, the rest numbered
    1, 2, 3... without gaps, so the numbering does not betray that secret records exist.

    Record numbers inside what a player sees (a record's cause, what an undo voided
    or a redo restored, what the GM revealed) are renumbered the same way, and those
    of records the player cannot see are dropped.
    """

    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}

    def view(self, record: Record, revealed: Container[int] = ()) -> dict[str, Any] | None:
        data = player_view(record, revealed)
        if data is None:
            return None
        number = self.numbers[record.seq] = len(self.numbers) + 1
        data["seq"] = number
        cause = data.pop("cause", None)
        if cause in self.numbers:
            data["cause"] = self.numbers[cause]
        event = data["event"]
        for key in ("voids", "restores"):
            if key in event:
                event[key] = [self.numbers[s] for s in event[key] if s in self.numbers]
        if event.get("type") == "table.revealed" and "record" in event:
            event["record"] = self.numbers.get(event["record"], 0)
        return data
