"""d100-under fold steps: what each event changes in the state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from margin.events import Event, Record
from margin.events.systems.under import (
    ActionChanged,
    ActionDeclared,
    ActionInterrupted,
    ActionsResolved,
    OpposedSide,
    TrackAdvanced,
    TrackEnded,
    TrackStarted,
    TrackToken,
    UnderChecked,
    UnderEscalated,
    UnderOpposed,
)

from ...state import TableState
from ..base import Handler
from .state import LastCheck, TrackWorld, UnderCharacter, track


def _set_last(state: TableState, check: UnderChecked | OpposedSide, won: bool = False) -> None:
    char = state.characters.get(check.actor)
    if isinstance(char, UnderCharacter):
        verdict = (
            "fumble"
            if check.fumble
            else "critical"
            if check.critical
            else "success"
            if check.success
            else "failure"
        )
        char.last = LastCheck(
            label=check.label, roll=check.roll, target=check.target, verdict=verdict, won=won
        )


def _on_check(state: TableState, record: Record) -> None:
    _set_last(state, record.event)


def _on_opposed(state: TableState, record: Record) -> None:
    e: UnderOpposed = record.event
    for side in (e.a, e.b):
        _set_last(state, side, won=e.winner == side.actor)


def _on_escalated(state: TableState, record: Record) -> None:
    world = track(state)
    world.escalations += 1
    if record.visibility.gm_only:
        world.gm_escalations += 1


def _on_started(state: TableState, record: Record) -> None:
    e: TrackStarted = record.event
    before = track(state)
    state.world = TrackWorld(
        running=True,
        label=e.label,
        escalations=before.escalations,
        gm_escalations=before.gm_escalations,
    )


def _on_ended(state: TableState, record: Record) -> None:
    world = track(state)
    world.running = False
    world.tokens = []
    world.sources = {}


def _on_declared(state: TableState, record: Record) -> None:
    e: ActionDeclared = record.event
    token = TrackToken(actor=e.actor, action=e.action, cost=e.cost, declared=e.count, at=e.at)
    world = track(state)
    world.tokens.append(token)
    world.sources[e.actor] = record.seq


def _on_advanced(state: TableState, record: Record) -> None:
    track(state).now = record.event.count


def _on_resolved(state: TableState, record: Record) -> None:
    e: ActionsResolved = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t not in e.actions]
    world.resolved[e.count] = list(e.actions)
    for done in e.actions:
        world.sources.pop(done.actor, None)


def _on_interrupted(state: TableState, record: Record) -> None:
    e: ActionInterrupted = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]
    world.sources.pop(e.actor, None)


def _on_changed(state: TableState, record: Record) -> None:
    e: ActionChanged = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]
    world.tokens.append(
        TrackToken(actor=e.actor, action=e.action, cost=e.cost, declared=e.count, at=e.at)
    )
    world.sources[e.actor] = record.seq


HANDLERS: dict[type[Event], Handler] = {
    UnderChecked: _on_check,
    UnderOpposed: _on_opposed,
    UnderEscalated: _on_escalated,
    TrackStarted: _on_started,
    TrackEnded: _on_ended,
    ActionDeclared: _on_declared,
    TrackAdvanced: _on_advanced,
    ActionsResolved: _on_resolved,
    ActionInterrupted: _on_interrupted,
    ActionChanged: _on_changed,
}


def initial_world(options: Mapping[str, Any]) -> TrackWorld:
    return TrackWorld()
