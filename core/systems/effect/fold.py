"""2d6-effect fold steps: what each event changes in the state."""

from __future__ import annotations

from margin.events import Event, Record
from margin.events.systems.effect import EffectAssisted, EffectChecked, EffectOpposed, TaskClosed

from ...state import TableState
from ..base import Handler
from .decide import assist_key
from .state import (
    EffectCharacter,
    EffectLastCheck,
    PendingAssist,
    TaskState,
    name_key,
    world,
)


def _on_check(state: TableState, record: Record) -> None:
    e: EffectChecked = record.event
    char = state.characters.get(e.actor)
    if isinstance(char, EffectCharacter):
        char.assists.pop(assist_key(e.skill, e.characteristic), None)
        char.last = EffectLastCheck(
            label=e.label, total=e.total, effect=e.effect, band=e.band, seq=record.seq
        )
    if e.task:
        task = world(state).tasks.setdefault(e.task, TaskState())
        task.attempts += 1
        if e.success:
            task.status = "done"
            task.by = char.name if char else e.actor


def _on_assist(state: TableState, record: Record) -> None:
    e: EffectAssisted = record.event
    char = state.characters.get(e.actor)
    if e.refused or not isinstance(char, EffectCharacter):
        return
    key = name_key(e.label)
    char.assists[key] = PendingAssist(helper=e.helper, dm=e.dm, seq=record.seq)


def _on_opposed(state: TableState, record: Record) -> None:
    e: EffectOpposed = record.event
    for side in (e.a, e.b):
        char = state.characters.get(side.actor)
        if isinstance(char, EffectCharacter):
            char.last = EffectLastCheck(
                label=side.label,
                total=side.total,
                effect=side.effect,
                won=e.winner == side.actor,
                seq=record.seq,
            )


def _on_closed(state: TableState, record: Record) -> None:
    e: TaskClosed = record.event
    task = world(state).tasks.setdefault(e.task, TaskState())
    task.status = "closed"
    task.reason = e.reason


HANDLERS: dict[type[Event], Handler] = {
    EffectChecked: _on_check,
    EffectAssisted: _on_assist,
    EffectOpposed: _on_opposed,
    TaskClosed: _on_closed,
}
