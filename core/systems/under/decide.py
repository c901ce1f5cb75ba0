"""d100-under commands, and deciding them into events."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec

from margin.events import Draft, Visibility
from margin.events.systems.under import (
    CHECK_SECRET,
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

from ...dice import Dice
from ...errors import RuleError
from ...history import History
from ...state import Character, TableState, find_character, hidden_ids
from ..base import Command
from . import rules
from .commands import (
    Act,
    Advance,
    ChangeAction,
    Check,
    EndTrack,
    Interrupt,
    Opposed,
    Side,
    StartTrack,
)
from .state import (
    TrackWorld,
    action_cost,
    due,
    next_count,
    target_for,
    token_of,
    track,
)


def reading(state: TableState) -> str:
    """The critical range reading the table plays with."""
    return str(state.options.get("crit_reading", "table"))


def _roll_side(
    side: Side | Check, state: TableState, dice: Dice, name: str = ""
) -> tuple[OpposedSide, rules.Outcome, bool]:
    """One character's roll against its target, the outcome, and whether it was unskilled."""
    char = find_character(state, side.character)
    target, label, unskilled = target_for(char, side.skill, side.attribute, side.target)
    faces, roll, source = rules.percentile(dice, side.faces, side.roll, name)
    out = rules.judge(target, roll, reading(state))
    rolled = OpposedSide(actor=char.id, label=label, faces=faces, source=source, **_judged(out))
    return rolled, out, unskilled


def _judged(out: rules.Outcome) -> dict[str, Any]:
    """A roll's outcome as a side's record keeps it, field for field: all but the critical
    range, which a check's record keeps beside the side's fields."""
    fields = dataclasses.asdict(out)
    del fields["crit_range"]
    return fields


def _check(cmd: Check, state: TableState, dice: Dice) -> list[Draft]:
    rolled, out, unskilled = _roll_side(cmd, state, dice)
    event = UnderChecked(
        **msgspec.structs.asdict(rolled),
        crit_range=out.crit_range,
        crit_reading=reading(state),
        unskilled=unskilled,
        reason=cmd.reason,
        secret=cmd.secret,
    )
    return [Draft(event, visibility=Visibility(hidden=CHECK_SECRET if cmd.secret else ()))]


def _opposed(cmd: Opposed, state: TableState, dice: Dice) -> list[Draft]:
    a, a_out, _ = _roll_side(cmd.a, state, dice, "a")
    b, b_out, _ = _roll_side(cmd.b, state, dice, "b")
    if a.actor == b.actor:
        raise RuleError(f"b.character: {cmd.b.character!r} cannot oppose themself")
    winner = rules.opposed_winner(a_out, b_out)
    escalation = not a.success and not b.success
    event = UnderOpposed(
        a=a,
        b=b,
        winner={"a": a.actor, "b": b.actor}.get(winner or ""),
        stalemate=winner is None,
        escalation=escalation,
        crit_reading=reading(state),
        reason=cmd.reason,
    )
    drafts = [Draft(event)]
    if escalation:
        drafts.append(
            Draft(UnderEscalated(actors=[a.actor, b.actor], reason=cmd.reason), cause=state.seq + 1)
        )
    return drafts


def _running(state: TableState) -> TrackWorld:
    world = track(state)
    if not world.running:
        raise RuleError("timing track: none is running (start one with start-track)")
    return world


def _start(cmd: StartTrack, state: TableState) -> list[Draft]:
    world = track(state)
    if world.running:
        raise RuleError(f"start-track: a timing track is already running (count {world.now})")
    return [Draft(TrackStarted(label=cmd.label))]


def _end(cmd: EndTrack, state: TableState) -> list[Draft]:
    world = _running(state)
    hidden = hidden_ids(state)
    # a hidden character's token is stopped in a record of its own (GM-only, see core.lens),
    # so the public record of the end names no one the players cannot see
    drafts = [
        Draft(
            ActionInterrupted(
                actor=t.actor, action=t.action, at=t.at, count=world.now, reason="the track ends"
            ),
            cause=world.sources.get(t.actor),
        )
        for t in world.tokens
        if t.actor in hidden
    ]
    shown = [t.actor for t in world.tokens if t.actor not in hidden]
    return [*drafts, Draft(TrackEnded(count=world.now, dropped=shown))]


def _act(cmd: Act, state: TableState) -> list[Draft]:
    world = _running(state)
    char = find_character(state, cmd.character)
    pending = token_of(world, char.id)
    if pending is not None:
        raise RuleError(
            f"act: {char.name} is already busy with {pending.action} (count {pending.at}); "
            "change or interrupt it first"
        )
    return [Draft(ActionDeclared(**_timed(cmd, char, world)))]


def _timed(cmd: Act | ChangeAction, char: Character, world: TrackWorld) -> dict[str, Any]:
    """An action begun now, as its record says it: who, what, its cost in counts, the count
    it was declared at and the count it resolves at."""
    action, cost = action_cost(cmd.action, cmd.cost, char.sheet.get("actions", {}))
    return {
        "actor": char.id,
        "action": action,
        "cost": cost,
        "count": world.now,
        "at": world.now + cost,
    }


def _advance(cmd: Advance, state: TableState) -> list[Draft]:
    world = _running(state)
    if cmd.next:
        if cmd.counts != 1:
            raise RuleError("counts: give a number of counts or next, not both")
        upcoming = next_count(world)
        if upcoming is None:
            raise RuleError("advance: no token is on the track to advance to")
        steps = upcoming - world.now
    else:
        steps = cmd.counts
    drafts: list[Draft] = []
    seq = state.seq
    for count in range(world.now + 1, world.now + steps + 1):
        drafts.append(Draft(TrackAdvanced(count=count)))
        seq += 1
        resolving = due(world, count)
        if resolving:
            drafts.append(Draft(ActionsResolved(count=count, actions=resolving), cause=seq))
            seq += 1
    return drafts


def _pending(
    state: TableState, ref: str, field: str, hint: str = ""
) -> tuple[TrackWorld, Character, TrackToken]:
    """The running track, the character and the action token it has pending on it."""
    world = _running(state)
    char = find_character(state, ref)
    token = token_of(world, char.id)
    if token is None:
        raise RuleError(f"{field}: {char.name} has no pending action on the track{hint}")
    return world, char, token


def _interrupt(cmd: Interrupt, state: TableState) -> list[Draft]:
    world, char, token = _pending(state, cmd.character, "interrupt")
    event = ActionInterrupted(
        actor=char.id, action=token.action, at=token.at, count=world.now, reason=cmd.reason
    )
    return [Draft(event, cause=world.sources.get(char.id))]


def _change(cmd: ChangeAction, state: TableState) -> list[Draft]:
    world, char, token = _pending(state, cmd.character, "change", " (use act)")
    event = ActionChanged(
        **_timed(cmd, char, world), old_action=token.action, old_at=token.at, reason=cmd.reason
    )
    return [Draft(event, cause=world.sources.get(char.id))]


_DECIDERS: dict[type[Command], Any] = {
    Check: _check,
    Opposed: _opposed,
    StartTrack: lambda cmd, state, dice: _start(cmd, state),
    EndTrack: lambda cmd, state, dice: _end(cmd, state),
    Act: lambda cmd, state, dice: _act(cmd, state),
    Advance: lambda cmd, state, dice: _advance(cmd, state),
    Interrupt: lambda cmd, state, dice: _interrupt(cmd, state),
    ChangeAction: lambda cmd, state, dice: _change(cmd, state),
}


def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    """Decide a d100-under command; records about hidden characters only are GM-only."""
    drafts: list[Draft] = _DECIDERS[type(command)](command, state, dice)
    return drafts
