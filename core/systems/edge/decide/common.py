"""What the deciders of 2d10-edge share: who may act, an Edge point spent, an action used."""

from __future__ import annotations

from typing import Any

from margin.events import Draft
from margin.events.systems.edge import EdgeSpent

from ....errors import RuleError
from ....state import TableState
from ..state import Combatant, EdgeCharacter, Pending, edge_max, world


def able(char: EdgeCharacter, what: str) -> None:
    if char.dead:
        raise RuleError(f"character: {char.name} is dead and cannot {what}")
    if char.knocked_out:
        raise RuleError(f"character: {char.name} is knocked out and cannot {what}")


def need_edge(char: EdgeCharacter, field: str) -> None:
    if char.edge < 1:
        raise RuleError(f"{field}: {char.name} has no Edge left (0/{edge_max(char)})")


def pending_item(char: EdgeCharacter, seq: int) -> Pending:
    """The item pending for ``char`` that record ``seq`` left."""
    found = next((p for p in char.pending if p.seq == seq), None)
    if found is None:
        have = ", ".join(str(p.seq) for p in char.pending) or "none"
        raise RuleError(f"pending: {seq} is not pending for {char.name} (pending: {have})")
    return found


def edge_spend(char: EdgeCharacter, purpose: str, cause: int | None = None, **extra: Any) -> Draft:
    return Draft(
        EdgeSpent(character=char.id, purpose=purpose, edge_after=char.edge - 1, **extra),
        cause=cause,
    )


def _check_reaction(own_turn: bool, reactions: int, name: str) -> None:
    """Refuse a reaction on the character's own turn, or with none left."""
    if own_turn:
        raise RuleError(f"action: a reaction is taken outside {name}'s own turn")
    if reactions < 1:
        raise RuleError(
            f"action: {name} has no reaction left (spend Edge for one extra between turns)"
        )


def can_use(state: TableState, me: Combatant, action: str, name: str) -> None:
    enc = world(state).encounter
    assert enc is not None
    if action == "reaction":
        _check_reaction(enc.current == me.id, me.reactions, name)
        return
    if enc.current != me.id:
        raise RuleError(f"action: it is not {name}'s turn (now: {enc.current or 'nobody'})")
    if action not in me.actions:
        left = ", ".join(me.actions) or "none"
        raise RuleError(f"action: {name} has no {action} action left this turn (left: {left})")
