"""Fold steps of the d100-chance events: each changes the state as its event says."""

from __future__ import annotations

from margin.events import Event, Record
from margin.events.systems import chance as ev

from ...state import TableState, character_of
from ..base import Handler, character_step
from .state import ChanceCharacter, ChanceWorld, Effect, Encounter, FailedTask, Leg


def _world(state: TableState) -> ChanceWorld:
    if not isinstance(state.world, ChanceWorld):
        state.world = ChanceWorld()
    return state.world


def _hurt(char: ChanceCharacter, taken: int, absorbed: int) -> None:
    char.hp = max(0, char.hp - taken)
    shield = char.effect("shield")
    if shield is not None and absorbed:
        shield.pool -= absorbed
        if shield.pool <= 0:
            char.effects.remove(shield)


def _check(state: TableState, record: Record) -> None:
    e: ev.CheckRolled = record.event
    failed = _world(state).failed
    tasks = failed.setdefault(e.character, {})
    if e.success:
        tasks.pop(e.task, None)
    else:
        tasks[e.task] = FailedTask(modifiers=list(e.modifiers), approach=e.approach, seq=record.seq)
    if not tasks:
        failed.pop(e.character, None)


def _opposed(state: TableState, record: Record) -> None:
    """An opposed check leaves nothing behind but its record."""


def _attack(state: TableState, record: Record) -> None:
    e: ev.AttackRolled = record.event
    target = character_of(state, e.target, ChanceCharacter)
    if target is not None and e.connects:
        _hurt(target, e.taken, e.absorbed)
    attacker = character_of(state, e.attacker, ChanceCharacter)
    if attacker is not None:
        stealth = attacker.effect("stealthed")
        if stealth is not None:
            attacker.effects.remove(stealth)
    enc = _world(state).encounter
    if e.action and enc is not None and enc.actor == e.attacker:
        enc.actions = max(0, enc.actions - 1)


def _effect(state: TableState, record: Record) -> None:
    e: ev.EffectApplied = record.event
    char = character_of(state, e.target, ChanceCharacter)
    if char is None or not e.landed:
        return
    if e.becomes != e.effect:
        char.effects = [x for x in char.effects if x.name != e.effect]
    current = char.effect(e.becomes)
    if current is None:
        # what stays a new effect's own: the stat a poison lowers, the record that applied it
        current = Effect(name=e.becomes, stacks=0, turns=0, stat=e.stat, applied=record.seq)
        char.effects.append(current)
    current.stacks = e.total_stacks
    current.turns = e.total_turns
    current.pool = e.pool or current.pool
    current.source = e.source or current.source


def _tick(state: TableState, record: Record) -> None:
    e: ev.EffectTicked = record.event
    char = character_of(state, e.character, ChanceCharacter)
    if char is None:
        return
    char.hp = max(0, min(char.max_hp, char.hp + e.hp))
    effect = char.effect(e.effect)
    if effect is None:
        return
    if e.ended:
        char.effects.remove(effect)
        _calm(state, char.id, e.effect)
    else:
        effect.turns = e.turns_left


def _removed(state: TableState, record: Record) -> None:
    e: ev.EffectRemoved = record.event
    char = character_of(state, e.character, ChanceCharacter)
    if char is not None:
        char.effects = [x for x in char.effects if x.name != e.effect]
        _calm(state, char.id, e.effect)


def _calm(state: TableState, cid: str, effect: str) -> None:
    """A fear that ends takes back the forced move its bearer still owed this turn."""
    enc = _world(state).encounter
    if effect == "feared" and enc is not None and enc.actor == cid:
        enc.flee_from, enc.flee_to = "", None


def _started(state: TableState, record: Record) -> None:
    e: ev.EncounterStarted = record.event
    _world(state).encounter = Encounter(order=list(e.order), hidden=list(e.hidden))
    for cid, place in e.positions.items():
        char = character_of(state, cid, ChanceCharacter)
        if char is not None:
            char.position = list(place)


def _joined(state: TableState, record: Record) -> None:
    e: ev.EncounterJoined = record.event
    enc = _world(state).encounter
    if enc is None:
        return
    enc.order.insert(e.index, e.character)
    if e.hidden:
        enc.hidden.append(e.character)
    # whoever is acting keeps the turn
    if 0 <= e.index <= enc.current:
        enc.current += 1
    char = character_of(state, e.character, ChanceCharacter)
    if char is not None and e.position is not None:
        char.position = list(e.position)


def _turn(state: TableState, record: Record) -> None:
    e: ev.TurnStarted = record.event
    enc = _world(state).encounter
    if enc is not None:
        enc.current = e.index
        enc.round = e.round
        enc.actions = e.actions
        enc.moved = 0
        enc.flee_from = e.flee_from
        enc.flee_to = list(e.flee_to) if e.flee_to is not None else None


def _ended(state: TableState, record: Record) -> None:
    _world(state).encounter = None


def _moved(state: TableState, record: Record) -> None:
    e: ev.Moved = record.event
    char = character_of(state, e.character, ChanceCharacter)
    if char is not None:
        char.position = list(e.to)
    enc = _world(state).encounter
    if enc is not None and enc.actor == e.character and not e.override:
        enc.moved += e.feet
    if enc is not None and e.fled:
        enc.flee_from, enc.flee_to = "", None


@character_step(ChanceCharacter)
def _side(char: ChanceCharacter, record: Record) -> None:
    e: ev.SideSwitched = record.event
    char.side = e.side if e.reason == "charmed" else None


@character_step(ChanceCharacter)
def _hp(char: ChanceCharacter, record: Record) -> None:
    e: ev.HealthChanged = record.event
    if e.amount < 0:
        _hurt(char, -e.amount - e.absorbed, e.absorbed)
    else:
        char.hp = min(char.max_hp, char.hp + e.amount)


def _traveled(state: TableState, record: Record) -> None:
    e: ev.Traveled = record.event
    _world(state).journey.append(
        Leg(domain=e.domain, distance=e.distance, unit=e.unit, note=e.note)
    )


HANDLERS: dict[type[Event], Handler] = {
    ev.CheckRolled: _check,
    ev.OpposedRolled: _opposed,
    ev.AttackRolled: _attack,
    ev.EffectApplied: _effect,
    ev.EffectTicked: _tick,
    ev.EffectRemoved: _removed,
    ev.EncounterStarted: _started,
    ev.EncounterJoined: _joined,
    ev.TurnStarted: _turn,
    ev.EncounterEnded: _ended,
    ev.Moved: _moved,
    ev.SideSwitched: _side,
    ev.HealthChanged: _hp,
    ev.Traveled: _traveled,
}
