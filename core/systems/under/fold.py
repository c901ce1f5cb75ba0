"""d100-under fold steps: what each event changes in the state."""

from __future__ import annotations

from margin.events import Event, Record
from margin.events.systems import under as ev

from ...state import TableState
from ..base import Handler
from .state import TrackWorld, UnderCharacter, UnderLastCheck, track


def _set_last(
    state: TableState, seq: int, check: ev.UnderChecked | ev.OpposedSide, won: bool = False
) -> None:
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
        char.last = UnderLastCheck(
            label=check.label,
            roll=check.roll,
            target=check.target,
            verdict=verdict,
            won=won,
            seq=seq,
        )


def _on_check(state: TableState, record: Record) -> None:
    _set_last(state, record.seq, record.event)


def _on_opposed(state: TableState, record: Record) -> None:
    e: ev.UnderOpposed = record.event
    for side in (e.a, e.b):
        _set_last(state, record.seq, side, won=e.winner == side.actor)


def _on_escalated(state: TableState, record: Record) -> None:
    world = track(state)
    world.escalations += 1
    if record.visibility.gm_only:
        world.gm_escalations += 1


def _on_started(state: TableState, record: Record) -> None:
    e: ev.TrackStarted = record.event
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
    """The action a record declares (or changes to) goes on the track, caused by that record."""
    e: ev.ActionDeclared | ev.ActionChanged = record.event
    world = track(state)
    world.tokens.append(
        ev.TrackToken(actor=e.actor, action=e.action, cost=e.cost, declared=e.count, at=e.at)
    )
    world.sources[e.actor] = record.seq


def _on_advanced(state: TableState, record: Record) -> None:
    track(state).now = record.event.count


def _on_resolved(state: TableState, record: Record) -> None:
    e: ev.ActionsResolved = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t not in e.actions]
    world.resolved[e.count] = list(e.actions)
    for done in e.actions:
        world.sources.pop(done.actor, None)


def _on_interrupted(state: TableState, record: Record) -> None:
    e: ev.ActionInterrupted = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]
    world.sources.pop(e.actor, None)


def _on_changed(state: TableState, record: Record) -> None:
    e: ev.ActionChanged = record.event
    world = track(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]
    _on_declared(state, record)


HANDLERS: dict[type[Event], Handler] = {
    ev.UnderChecked: _on_check,
    ev.UnderOpposed: _on_opposed,
    ev.UnderEscalated: _on_escalated,
    ev.TrackStarted: _on_started,
    ev.TrackEnded: _on_ended,
    ev.ActionDeclared: _on_declared,
    ev.TrackAdvanced: _on_advanced,
    ev.ActionsResolved: _on_resolved,
    ev.ActionInterrupted: _on_interrupted,
    ev.ActionChanged: _on_changed,
}
