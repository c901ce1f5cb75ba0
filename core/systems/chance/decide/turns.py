"""The d100-chance encounter clock: a fight begun, joined, its turns and their ticks, its end."""

from __future__ import annotations

from typing import Any

from margin.events import Draft
from margin.events.systems.chance import (
    EffectTicked,
    EncounterEnded,
    EncounterJoined,
    EncounterStarted,
    TurnStarted,
)

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ....targets import find_characters
from ...base import Deciders
from .. import rules
from ..commands import EndEncounter, Join, NextTurn, StartEncounter
from ..state import EFFECTS, ChanceCharacter, EffectKind, actions_per_turn
from .common import char_of, near, place, world_of
from .effects import effect_draft, side_back
from .moves import flight


def decide_start(
    cmd: StartEncounter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    if world_of(state).encounter is not None:
        raise RuleError("encounter: a fight is already running (end-encounter first)")
    if not cmd.order:
        raise RuleError("order: name the characters in turn order")
    order = _turn_order(cmd.order, state)
    positions = {
        char_of(state, ref).id: place(value, f"positions.{ref}")
        for ref, value in cmd.positions.items()
    }
    hidden = [c for c in order if state.characters[c].hidden]
    # with hidden fighters in it, players learn only that a fight began
    event = EncounterStarted(order=order, positions=positions, hidden=hidden)
    return [Draft(event)]


def _turn_order(refs: list[str], state: TableState) -> list[str]:
    """The ids of the characters a fight's order names, each named once."""
    order = [c.id for ref in refs for c in find_characters(state, ref)]
    doubled = sorted({c for c in order if order.count(c) > 1})
    if doubled:
        raise RuleError(f"order: {doubled[0]!r} is listed twice")
    return order


def decide_join(cmd: Join, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world_of(state).encounter
    if enc is None:
        raise RuleError("join: no fight is running (start one with encounter)")
    if cmd.after is None:
        index = len(enc.order)
    else:
        after = char_of(state, cmd.after)
        if after.id not in enc.order:
            raise RuleError(f"after: {after.name} is not in the fight")
        index = enc.order.index(after.id) + 1
    position = None if cmd.position is None else place(cmd.position, "position")
    drafts = []
    for n, char in enumerate(find_characters(state, cmd.character)):
        if char.id in enc.order:
            raise RuleError(f"join: {char.name} is already in the fight")
        event = EncounterJoined(
            character=char.id, index=index + n, position=position, hidden=char.hidden
        )
        drafts.append(Draft(event))
    return drafts


def decide_next(cmd: NextTurn, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world_of(state).encounter
    if enc is None:
        raise RuleError("next: no fight is running (start one with encounter)")
    fleeing = state.characters.get(enc.actor or "")
    if enc.flee_from and isinstance(fleeing, ChanceCharacter) and fleeing.hp > 0:
        raise RuleError(
            f"next: {fleeing.name} is feared and must flee first (flee {fleeing.id}, or "
            f"flee {fleeing.id} X Y to another place)"
        )
    index, rnd = next_actor(state, enc.order, enc.current, enc.round)
    actor = char_of(state, enc.order[index])
    ticks, hp = _ticks(state, actor, state.seq + 1)
    flee_from, flee_to = flight(state, actor, hp, ticks)
    turn = TurnStarted(
        actor=actor.id,
        index=index,
        round=rnd,
        actions=actions_per_turn(actor),
        flee_from=flee_from,
        flee_to=flee_to,
    )
    return [Draft(turn), *ticks]


def _ticks(state: TableState, actor: ChanceCharacter, seq: int) -> tuple[list[Draft], int]:
    """The effects ticking as the turn of ``actor`` (record ``seq``) starts, and the HP they
    leave it."""
    hp = actor.hp
    ticks: list[Draft] = []
    for effect in list(actor.effects):
        ticked = _tick(state, actor, effect, hp, seq, len(ticks) + 1)
        tick = ticked[0].event
        assert isinstance(tick, EffectTicked)
        hp = max(0, hp + tick.hp)
        ticks.extend(ticked)
    return ticks, hp


def decide_end(cmd: EndEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world_of(state).encounter
    if enc is None:
        raise RuleError("end-encounter: no fight is running")
    return [Draft(EncounterEnded(rounds=enc.round))]


def next_actor(state: TableState, order: list[str], current: int, rnd: int) -> tuple[int, int]:
    """The next participant still at the table and standing (HP above 0)."""
    here = [i for i, c in enumerate(order) if c in state.characters]
    up = [i for i in here if char_of(state, order[i]).hp > 0] or here
    if not up:
        raise RuleError("next: nobody in the fight is still at the table")
    later = [i for i in up if i > current]
    if later and current >= 0:
        return later[0], rnd
    return up[0], rnd + 1


def _tick(
    state: TableState, char: ChanceCharacter, effect: Any, now: int, turn_seq: int, offset: int
) -> list[Draft]:
    """One effect's start-of-turn (``now``: HP after the ticks before it): its HP change,
    its clock, and what follows from it. The tick is the first draft."""
    kind = EFFECTS[effect.name]
    left = 0 if kind.until_removed else effect.turns - 1
    ended = not kind.until_removed and left <= 0
    tick = EffectTicked(
        character=char.id,
        effect=effect.name,
        stacks=effect.stacks,
        hp=_tick_hp(kind, char, effect.stacks, now),
        turns_left=max(0, left),
        ended=ended,
    )
    tick_seq = turn_seq + offset
    drafts = [Draft(tick, cause=effect.applied or None)]
    if effect.name == "burning" and effect.stacks >= int(state.options.get("spread_stacks", 3)):
        drafts += _spread(state, char, tick_seq, max(1, left))
    if ended:
        drafts += _after_end(state, char, effect.name, tick_seq)
    return drafts


def _spread(state: TableState, char: ChanceCharacter, cause: int, turns: int) -> list[Draft]:
    """Fire spreading from a character burning hard enough to those standing near it."""
    reach = int(state.options.get("spread_feet", 5))
    return [
        effect_draft(
            state, other, "burning", source=char.id, reason="spread", cause=cause, turns=turns
        )
        for other in near(state, char.position, reach, besides={char.id})
        if not other.has("burning") and other.hp > 0
    ]


def _tick_hp(kind: EffectKind, char: ChanceCharacter, stacks: int, now: int) -> int:
    """An effect's HP change at a turn's start, within 0..max: the record keeps what was
    really lost or healed."""
    if not kind.tick:
        return 0
    amount = rules.percent_of(kind.tick, char.max_hp, stacks)
    return -min(amount, now) if kind.harmful else min(amount, max(0, char.max_hp - now))


def _after_end(state: TableState, char: ChanceCharacter, name: str, cause: int) -> list[Draft]:
    """What an effect's end brings: a charmed character goes back to its side, and the end
    of haste stuns for a turn."""
    if name == "charmed":
        return side_back(state, char, cause=cause)
    if name == "haste":
        stun = effect_draft(
            state, char, "stunned", source=char.id, reason="haste", cause=cause, turns=1
        )
        return [stun]
    return []


#: the commands this module decides
DECIDERS: Deciders = {
    StartEncounter: decide_start,
    Join: decide_join,
    NextTurn: decide_next,
    EndEncounter: decide_end,
}
