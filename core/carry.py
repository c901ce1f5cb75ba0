"""The next session: a new table starts with another table's characters as they stand."""

from __future__ import annotations

from collections.abc import Container
from typing import Any

import msgspec

from margin.events import AliasSet, CharacterCarried, Draft, Visibility

from .state import TableState


def carried(state: TableState, source: str, after: int) -> list[Draft]:
    """The records that seat ``state``'s characters, and its macros, in a new table.

    ``after``: the new table's last record, so each carried condition is
    numbered as the record that brings it. A condition timed on the old
    table's clock keeps its length and counts from the next fight, as one put
    on outside a fight does; one counted on a timing track ends with the
    session, as the track did.
    """
    drafts = []
    for n, char in enumerate(state.characters.values(), after + 1):
        status: dict[str, Any] = msgspec.to_builtins(_renumbered(char, n, state.revealed))
        status["conditions"] = [_fresh(c) for c in status.get("conditions", []) if not c["counts"]]
        event = CharacterCarried(
            id=char.id, name=char.name, status=status, hidden=char.hidden, source=source
        )
        drafts.append(Draft(event, visibility=Visibility(gm_only=char.hidden)))
    for name, line in sorted(state.aliases.items()):
        drafts.append(Draft(AliasSet(name=name, line=line), visibility=Visibility(gm_only=True)))
    return drafts


def _renumbered(value: Any, seq: int, revealed: Container[int]) -> Any:
    """``value`` with every record number in it (an injury's, a condition's) made ``seq``:
    the old table's numbers mean nothing in the new one. A secret piece of state whose
    record the GM revealed (a pending Advantage of a secret check) is no secret any more:
    the new table has no reveal of its record, so it carries it as open."""
    if isinstance(value, list):
        return [_renumbered(v, seq, revealed) for v in value]
    if isinstance(value, dict):
        return {k: _renumbered(v, seq, revealed) for k, v in value.items()}
    if not isinstance(value, msgspec.Struct):
        return value
    fields = getattr(type(value), "RECORD_FIELDS", ())
    changes = {
        name: (
            _as(getattr(value, name), seq)
            if name in fields
            else _renumbered(getattr(value, name), seq, revealed)
        )
        for name in value.__struct_fields__
    }
    if changes.get("secret") is True and getattr(value, "seq", None) in revealed:
        changes["secret"] = False
    return msgspec.structs.replace(value, **changes)


def _as(numbers: Any, seq: int) -> Any:
    """A record-number field (a number, a list or a mapping of them) pointing at ``seq``."""
    if isinstance(numbers, list):
        return [seq for _ in numbers]
    if isinstance(numbers, dict):
        return {k: seq for k in numbers}
    return seq if numbers else numbers


def _fresh(condition: dict[str, Any]) -> dict[str, Any]:
    out = {**condition, "anchor": "", "until_count": 0}
    if condition["rounds"]:
        out["until_round"] = condition["rounds"] + 1
    if condition["turns"]:
        out["until_turn"] = condition["turns"]
    return out
