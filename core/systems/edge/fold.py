"""Fold steps of 2d10-edge: each event changes the state as its fields say."""

from __future__ import annotations

from margin.events import Record
from margin.events.systems import edge as ev

from ...state import TableState, character_of
from ..base import Handler, character_step, copied
from .decide import turn_order
from .state import (
    Combatant,
    EdgeCharacter,
    Encounter,
    Injury,
    OpenAttack,
    Pending,
    combatant,
    world,
)


def _settle(char: EdgeCharacter) -> None:
    """Dead or knocked out, from the injuries and the damage they left."""
    char.dead = any(
        not i.stun and not i.burned and (i.severity == "fatal" or i.overwhelmed)
        for i in char.injuries
    )
    char.knocked_out = any(
        i.stun and (i.severity == "fatal" or i.overwhelmed) for i in char.injuries
    )


def _track(stun: bool) -> str:
    """The character's field that a hit or a heal of stun (or of damage) changes."""
    return "stun" if stun else "damage"


@character_step(EdgeCharacter)
def _checked(char: EdgeCharacter, record: Record) -> None:
    e: ev.Checked = record.event
    char.pending = [p for p in char.pending if p.seq not in e.pending_used]
    if e.pending_kind:
        char.pending.append(
            Pending(
                seq=record.seq,
                kind=e.pending_kind,
                scope=e.pending_scope,
                skill=e.skill,
                secret=e.secret_tn,
            )
        )


def _attacked(state: TableState, record: Record) -> None:
    _checked(state, record)
    e: ev.Attacked = record.event
    if e.action:
        _use(state, e.character, e.action)
    if e.success:
        world(state).open_attacks.append(
            OpenAttack(
                seq=record.seq,
                attacker=e.character,
                target=e.target,
                weapon=e.weapon,
                base_dice=e.base_dice,
                bonus=e.damage_bonus,
                extra_dice=e.extra_dice,
                mos=e.mos,
                stun=e.stun,
                pt_reduction=e.pt_reduction,
                edge_on_roll=bool(e.edge),
            )
        )


def _spent(state: TableState, record: Record) -> None:
    e: ev.EdgeSpent = record.event
    char = character_of(state, e.character, EdgeCharacter)
    if char is None:
        return
    char.edge = e.edge_after
    me = combatant(state, e.character)
    if me is None:
        return
    enc = world(state).encounter
    if e.purpose == "reaction":
        me.reactions += 1
        me.extra_reaction = True
    elif e.purpose == "initiative":
        me.boost = e.value
        if enc is not None and enc.current == me.id:
            me.boost_active = True
            me.actions.extend(e.actions)


def _damaged(state: TableState, record: Record) -> None:
    e: ev.Damaged = record.event
    target = character_of(state, e.target, EdgeCharacter)
    if target is not None and e.degraded:
        target.armor_wear += e.degraded
    if e.attack:
        w = world(state)
        w.open_attacks = [a for a in w.open_attacks if a.seq != e.attack]


@character_step(EdgeCharacter)
def _injured(char: EdgeCharacter, record: Record) -> None:
    e: ev.Injured = record.event
    setattr(char, _track(e.stun), e.accumulated)
    char.injuries.append(
        Injury(
            seq=record.seq,
            points=e.points,
            severity=e.severity,
            stun=e.stun,
            overwhelmed=e.overwhelmed,
        )
    )
    _settle(char)


@character_step(EdgeCharacter)
def _lessened(char: EdgeCharacter, record: Record) -> None:
    e: ev.InjuryLessened = record.event
    for injury in char.injuries:
        if injury.seq == e.injury:
            injury.severity = e.severity_to
    _settle(char)


@character_step(EdgeCharacter)
def _burned(char: EdgeCharacter, record: Record) -> None:
    e: ev.EdgeBurned = record.event
    char.edge = e.edge_after
    char.burns += 1
    char.urgent_care = True
    for injury in char.injuries:
        if injury.seq == e.injury:
            injury.burned = True
    _settle(char)


@character_step(EdgeCharacter)
def _dismissed(char: EdgeCharacter, record: Record) -> None:
    e: ev.PendingDismissed = record.event
    char.pending = [p for p in char.pending if p.seq != e.pending]


@character_step(EdgeCharacter)
def _healed(char: EdgeCharacter, record: Record) -> None:
    e: ev.Healed = record.event
    setattr(char, _track(e.stun), e.damage_after)
    if e.damage_after == 0:
        # a track healed to nothing leaves none of its injuries
        char.injuries = [i for i in char.injuries if i.stun != e.stun]
    if e.cared:
        char.urgent_care = False
    _settle(char)


def _started(state: TableState, record: Record) -> None:
    e: ev.EncounterStarted = record.event
    world(state).encounter = Encounter(name=e.name)


def _joined(state: TableState, record: Record) -> None:
    e: ev.Joined = record.event
    enc = world(state).encounter
    if enc is None:
        return
    enc.order = turn_order(
        [
            *enc.order,
            Combatant(
                id=e.character,
                initiative=e.initiative,
                bonus=e.bonus,
                faces=list(e.faces),
                hidden=e.hidden,
            ),
        ]
    )


def _left(state: TableState, record: Record) -> None:
    e: ev.Left = record.event
    enc = world(state).encounter
    if enc is None:
        return
    enc.order = [c for c in enc.order if c.id != e.character]
    if enc.current == e.character:
        enc.current = ""


def _turn(state: TableState, record: Record) -> None:
    e: ev.TurnStarted = record.event
    enc = world(state).encounter
    if enc is None:
        return
    previous = combatant(state, enc.current) if enc.current else None
    if previous is not None:
        previous.actions = []
        if previous.boost_active:
            previous.boost = 0
            previous.boost_active = False
    if e.round != enc.round:
        enc.round = e.round
        enc.acted = []
    enc.current = e.character
    enc.acted.append(e.character)
    me = combatant(state, e.character)
    if me is not None:
        me.actions = list(e.actions)
        me.reactions = 1
        me.extra_reaction = False
        me.boost_active = me.boost > 0


def _use(state: TableState, cid: str, action: str) -> None:
    me = combatant(state, cid)
    if me is None:
        return
    if action == "reaction":
        me.reactions -= 1
    elif action in me.actions:
        me.actions.remove(action)


def _action(state: TableState, record: Record) -> None:
    e: ev.ActionUsed = record.event
    _use(state, e.character, e.action)


def _ended(state: TableState, record: Record) -> None:
    world(state).encounter = None


HANDLERS: dict[type, Handler] = {
    ev.Checked: _checked,
    ev.Attacked: _attacked,
    ev.EdgeSpent: _spent,
    ev.Damaged: _damaged,
    ev.Injured: _injured,
    ev.InjuryLessened: _lessened,
    ev.EdgeBurned: _burned,
    ev.EdgeRecovered: copied(EdgeCharacter, edge="edge_after"),
    ev.PendingDismissed: _dismissed,
    ev.Healed: _healed,
    ev.ArmorRepaired: copied(EdgeCharacter, armor_wear="wear_after"),
    ev.EncounterStarted: _started,
    ev.Joined: _joined,
    ev.Left: _left,
    ev.TurnStarted: _turn,
    ev.ActionUsed: _action,
    ev.EncounterEnded: _ended,
}
