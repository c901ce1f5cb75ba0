"""The table's clock: where it stands in every system, and a generic turn order.

A system with a clock of its own (2d10-edge's initiative, d100-chance's turns,
d100-under's timing track) says where it stands through ``System.moment``.
A system without one (2d6-effect) gets the generic turn order here: the GM
sets each place or each character rolls a dice expression, the highest goes
first (ties in the order they joined), rounds and turns, joining and leaving
while it runs.

The fold of every clock event also counts the turns each character has
begun in the running fight (``TableState.time``), which conditions lasting
some of the bearer's turns count on.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Container
from typing import Any, Literal

import msgspec

from margin.events import (
    Draft,
    Event,
    FightEnded,
    FightJoined,
    FightLeft,
    FightStarted,
    FightTurn,
    Record,
)

from . import dice as dicemod
from .commands import EndEncounter, Join, Leave, NextTurn, StartEncounter
from .dice import Dice
from .errors import RuleError
from .history import History
from .state import Combatant, Fight, Moment, TableState, Time, snapshot
from .systems import get_system
from .systems.base import Clock, ClockRow, Handler, fight_title
from .targets import find_characters

#: the generic turn order's events
FIGHT_EVENTS: tuple[type[Event], ...] = (
    FightStarted,
    FightJoined,
    FightLeft,
    FightTurn,
    FightEnded,
)


def moment(state: TableState) -> Moment | None:
    """Where the table's clock stands, or None when no fight or track runs."""
    system = get_system(state.system)
    if system.moment is not None:
        return system.moment(state)
    fight = state.fight
    if fight is None:
        return None
    return Moment(round=fight.round, actor=fight.current)


def clock_events(system_id: str) -> tuple[type[Event], ...]:
    """The events that move a table's clock."""
    system = get_system(system_id)
    return system.clock_events if system.moment is not None else FIGHT_EVENTS


def tick(state: TableState) -> None:
    """After a clock event: note a turn begun, or forget the turns when the clock stops."""
    now = moment(state)
    before = state.time.at
    if now is None:
        state.time = Time()
        return
    if now.actor and (before is None or now.actor != before.actor or now.round != before.round):
        state.time.turns[now.actor] = state.time.turns.get(now.actor, 0) + 1
    state.time.at = now


def clock_copy(state: TableState) -> TableState:
    """A copy of the state that clock events (and conditions put on) may be folded into.

    The clock's parts are copied: the system's world when the clock is the
    system's own, else margin's turn order (whose steps only set its fields
    and grow its lists), and the turns counted. Each character is copied
    alone, since the fold of a clock event or of a new condition only sets a
    character's fields, never changes what they hold.
    """
    own = get_system(state.system).moment is not None
    fight = state.fight
    return msgspec.structs.replace(
        state,
        characters={k: copy.copy(c) for k, c in state.characters.items()},
        world=snapshot(state.world) if own else state.world,
        fight=None
        if fight is None
        else msgspec.structs.replace(fight, acted=list(fight.acted), order=list(fight.order)),
        time=Time(at=state.time.at, turns=dict(state.time.turns)),
    )


def ticking(handler: Handler) -> Handler:
    """A system's fold step for a clock event, followed by ``tick``."""

    @functools.wraps(handler)
    def step(state: TableState, record: Record) -> None:
        handler(state, record)
        tick(state)

    return step


# -- the generic turn order -----------------------------------------------------


def _fight(state: TableState, word: str) -> Fight:
    if state.fight is None:
        raise RuleError(f"{word}: no encounter is running (start-encounter starts one)")
    return state.fight


def _initiative_dice(state: TableState, typed: str) -> dicemod.Expression:
    text = typed or str(state.options.get("initiative_dice", "2d6"))
    return dicemod.parse(text)


def _join_drafts(
    state: TableState,
    fight: Fight,
    ids: list[str],
    cmd_dice: str,
    initiative: int | None,
    dice: Dice,
) -> list[Draft]:
    seated = {c.id for c in fight.order}
    out = []
    expr = None if initiative is not None else _initiative_dice(state, cmd_dice)
    for cid in ids:
        char = state.characters[cid]
        if cid in seated:
            raise RuleError(f"join: {char.name} is already in the turn order")
        seated.add(cid)
        out.append(Draft(_join_event(cid, initiative, expr, dice)))
    return out


def _join_event(
    cid: str, initiative: int | None, expr: dicemod.Expression | None, dice: Dice
) -> FightJoined:
    """One character's place in the turn order: the initiative given, or ``expr`` rolled."""
    if expr is None:
        assert initiative is not None
        return FightJoined(character=cid, initiative=initiative)
    rolled = dicemod.roll(expr, dice)
    return FightJoined(
        character=cid,
        initiative=rolled.total,
        dice=str(expr),
        faces=rolled.faces,
        source=dice.source,
    )


def _start(cmd: StartEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if state.fight is not None:
        raise RuleError("start-encounter: an encounter is already running (join adds to it)")
    if cmd.dice:
        _initiative_dice(state, cmd.dice)  # refused now, not when someone joins by it
    ids = [c.id for ref in cmd.characters for c in find_characters(state, ref)]
    drafts = [Draft(FightStarted(name=cmd.name))]
    if ids:
        drafts += _join_drafts(state, Fight(name=cmd.name), ids, cmd.dice, None, dice)
    return drafts


def _join(cmd: Join, state: TableState, dice: Dice, history: History) -> list[Draft]:
    fight = _fight(state, "join")
    if cmd.initiative is not None and cmd.dice:
        raise RuleError("join: give an initiative or dice to roll, not both")
    ids = [c.id for c in find_characters(state, cmd.character)]
    return _join_drafts(state, fight, ids, cmd.dice, cmd.initiative, dice)


def _leave(cmd: Leave, state: TableState, dice: Dice, history: History) -> list[Draft]:
    fight = _fight(state, "leave")
    seated = {c.id for c in fight.order}
    out = []
    for char in find_characters(state, cmd.character):
        if char.id not in seated:
            raise RuleError(f"leave: {char.name} is not in the turn order")
        out.append(Draft(FightLeft(character=char.id)))
    return out


def turn_order(fight: Fight) -> list[Combatant]:
    """Highest initiative first; a tie goes to whoever joined first."""
    return sorted(fight.order, key=lambda c: (-c.initiative, c.joined))


def next_up(fight: Fight) -> tuple[Combatant, int] | None:
    """Who the next ``next-turn`` gives the turn to, and in which round (None: nobody)."""
    order = turn_order(fight)
    if not order:
        return None
    waiting = [c for c in order if c.id not in fight.acted]
    if waiting and fight.round > 0:
        return waiting[0], fight.round
    return order[0], fight.round + 1


def _next(cmd: NextTurn, state: TableState, dice: Dice, history: History) -> list[Draft]:
    fight = _fight(state, "next-turn")
    up = next_up(fight)
    if up is None:
        raise RuleError("next-turn: nobody is in the turn order (join adds characters)")
    who, round_ = up
    index = turn_order(fight).index(who)
    return [Draft(FightTurn(character=who.id, round=round_, index=index))]


def _end(cmd: EndEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    fight = _fight(state, "end-encounter")
    return [Draft(FightEnded(name=fight.name))]


DECIDERS: dict[type[Any], Any] = {
    StartEncounter: _start,
    Join: _join,
    Leave: _leave,
    NextTurn: _next,
    EndEncounter: _end,
}


def _started(state: TableState, record: Record) -> None:
    state.fight = Fight(name=record.event.name)


def _joined(state: TableState, record: Record) -> None:
    e: FightJoined = record.event
    fight = state.fight
    if fight is not None:
        fight.joins += 1
        fight.order.append(Combatant(id=e.character, initiative=e.initiative, joined=fight.joins))


def _left(state: TableState, record: Record) -> None:
    fight = state.fight
    if fight is not None:
        fight.order = [c for c in fight.order if c.id != record.event.character]
        if fight.current == record.event.character:
            fight.current = ""


def _turn(state: TableState, record: Record) -> None:
    e: FightTurn = record.event
    fight = state.fight
    if fight is None:
        return
    if e.round != fight.round:
        fight.round = e.round
        fight.acted = []
    fight.current = e.character
    fight.acted.append(e.character)


def _ended(state: TableState, record: Record) -> None:
    state.fight = None


HANDLERS: dict[type[Event], Handler] = {
    FightStarted: ticking(_started),
    FightJoined: ticking(_joined),
    FightLeft: ticking(_left),
    FightTurn: ticking(_turn),
    FightEnded: ticking(_ended),
}


def fight_clock(state: TableState) -> Clock | None:
    """The generic turn order as the screens show it."""
    fight = state.fight
    if fight is None:
        return None
    up = next_up(fight)
    on_deck = up[0].id if up is not None else None
    rows = tuple(_fight_row(state, fight, c, on_deck) for c in turn_order(fight))
    return Clock(title=fight_title(fight.round, fight.name), rows=rows, round=fight.round or None)


def _fight_row(state: TableState, fight: Fight, c: Combatant, on_deck: str | None) -> ClockRow:
    """A combatant's line of the generic clock."""
    char = state.characters.get(c.id)
    now = c.id == fight.current
    return ClockRow(
        name=char.name if char is not None else c.id,
        value=str(c.initiative),
        current=now,
        note="acted" if c.id in fight.acted and not now else "",
        turn=now,
        on_deck=on_deck == c.id and not now,
    )


def table_clock(state: TableState) -> Clock | None:
    """The clock the screens show: the system's own, or the generic turn order."""
    system = get_system(state.system)
    clock = fight_clock(state) if system.moment is None else system.clock(state)
    hidden = {c.name for c in state.characters.values() if c.hidden}
    if clock is None or not hidden:
        return clock
    # the GM's clock marks whom players do not see (their own never lists them)
    rows = tuple(
        dataclasses.replace(row, hidden=True) if row.name in hidden else row for row in clock.rows
    )
    return dataclasses.replace(clock, rows=rows)


#: what a cue tells a player about their character's place on the clock
Cue = Literal["turn", "on deck", ""]


def cue(clock: Clock | None, name: str) -> Cue:
    """Whether it is ``name``'s turn, as the clock means it, or ``name`` acts next."""
    rows = [row for row in clock.rows if row.name == name] if clock is not None else []
    if any(row.turn for row in rows):
        return "turn"
    if any(row.on_deck for row in rows):
        return "on deck"
    return ""


def cue_line(kind: Cue, name: str) -> str:
    """A cue said to the player of ``name``: their turn, or that they act next."""
    return _CUE_LINES[kind].format(name)


_CUE_LINES: dict[Cue, str] = {
    "turn": "your turn, {}",
    "on deck": "on deck, {}: you act next",
    "": "",
}


def player_fight(fight: Fight | None, hidden: Container[str]) -> Fight | None:
    """The turn order as players see it: hidden combatants left out; during a hidden
    one's turn the clock stays with the last one they saw act this round."""
    if fight is None:
        return None
    order = _shown_order(fight, hidden)
    return Fight(
        name=fight.name,
        round=fight.round,
        current=_seen_current(fight, hidden),
        acted=[a for a in fight.acted if a not in hidden],
        order=order,
        joins=len(order),
    )


def _seen_current(fight: Fight, hidden: Container[str]) -> str:
    """Whose turn players see: during a hidden one's, the last they saw act this round."""
    if fight.current not in hidden:
        return fight.current
    # the one acting is hidden: so is every turn of theirs
    acted = [a for a in fight.acted if a not in hidden]
    return acted[-1] if acted else ""


def _shown_order(fight: Fight, hidden: Container[str]) -> list[Combatant]:
    """The combatants players see, their places in the order of joining renumbered so
    they count no hidden joiner."""
    shown = sorted((c for c in fight.order if c.id not in hidden), key=lambda c: c.joined)
    return [Combatant(id=c.id, initiative=c.initiative, joined=n) for n, c in enumerate(shown, 1)]
