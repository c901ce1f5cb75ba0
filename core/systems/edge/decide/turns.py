"""The 2d10-edge encounter: joining it by initiative, its turns and their actions, its end."""

from __future__ import annotations

from margin.events import Draft
from margin.events.systems.edge import (
    ActionUsed,
    EncounterEnded,
    EncounterStarted,
    Joined,
    Left,
    TurnStarted,
)

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import ACTIONS, EndEncounter, Join, Leave, NextTurn, StartEncounter, UseAction
from ..state import (
    Combatant,
    EdgeCharacter,
    Encounter,
    assumed,
    attribute,
    character,
    combatant,
    sheet_of,
    world,
)
from .common import can_use


def _join_drafts(
    state: TableState, dice: Dice, ref: str, count: int | None, enc_names: set[str]
) -> Draft:
    char = character(state, ref)
    if char.id in enc_names:
        raise RuleError(f"character: {char.name} is already in the encounter")
    if char.dead:
        raise RuleError(f"character: {char.name} is dead and cannot join the encounter")
    n = sheet_of(char).initiative_dice if count is None else count
    if not 1 <= n <= 20:
        raise RuleError(f"dice: {n} initiative dice is out of range (1..20)")
    bonus = attribute(char, "AG") + attribute(char, "CU")
    faces = dice.roll(6, n)
    enc_names.add(char.id)
    return Draft(
        Joined(
            character=char.id,
            hidden=char.hidden,
            faces=faces,
            bonus=bonus,
            initiative=sum(faces) + bonus,
            source=dice.source,
            assumed=assumed(char, ["AG", "CU"]),
        )
    )


def decide_start(
    cmd: StartEncounter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    if world(state).encounter is not None:
        raise RuleError("start-encounter: an encounter is already running (end-encounter first)")
    names: set[str] = set()
    drafts = [Draft(EncounterStarted(name=cmd.name))]
    drafts += [_join_drafts(state, dice, ref, None, names) for ref in cmd.characters]
    return drafts


def decide_join(cmd: Join, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world(state).encounter
    if enc is None:
        raise RuleError("join: no encounter is running (start-encounter first)")
    return [_join_drafts(state, dice, cmd.character, cmd.dice, {c.id for c in enc.order})]


def decide_leave(cmd: Leave, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    if combatant(state, char.id) is None:
        raise RuleError(f"character: {char.name} is not in an encounter")
    return [Draft(Left(character=char.id))]


def turn_order(order: list[Combatant]) -> list[Combatant]:
    """Highest initiative first; ties by AG + CU, then by id."""
    return sorted(order, key=lambda c: (-c.initiative, -c.bonus, c.id))


def ready(state: TableState, enc: Encounter) -> list[Combatant]:
    """The combatants who can take a turn (not dead, not knocked out), in turn order."""

    def able(c: Combatant) -> bool:
        ch = state.characters.get(c.id)
        return isinstance(ch, EdgeCharacter) and not ch.dead and not ch.knocked_out

    return [c for c in turn_order(enc.order) if able(c)]


def next_up(state: TableState, enc: Encounter) -> tuple[Combatant, int] | None:
    """Who the next ``next-turn`` gives the turn to, and in which round (None: nobody can)."""
    able = ready(state, enc)
    if not able:
        return None
    waiting = [c for c in able if c.id not in enc.acted]
    if waiting and enc.round:
        return waiting[0], enc.round
    return able[0], enc.round + 1


def decide_next(cmd: NextTurn, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world(state).encounter
    if enc is None:
        raise RuleError("next-turn: no encounter is running (start-encounter first)")
    up = next_up(state, enc)
    if up is None:
        raise RuleError("next-turn: nobody in the encounter can act (join someone first)")
    nxt, rnd = up
    # a boost already active belongs to the turn now ending
    effective = nxt.initiative + (0 if nxt.boost_active else nxt.boost)
    actions = rules.bracket_actions(effective, state.options.get("initiative_brackets", True))
    return [
        Draft(
            TurnStarted(
                round=rnd,
                index=[c.id for c in ready(state, enc)].index(nxt.id),
                character=nxt.id,
                initiative=effective,
                actions=actions,
            )
        )
    ]


def decide_use(cmd: UseAction, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    me = combatant(state, char.id)
    if me is None:
        raise RuleError(f"character: {char.name} is not in an encounter")
    if cmd.action not in ACTIONS:
        raise RuleError(f"action: {cmd.action!r} is not an action ({', '.join(ACTIONS)})")
    can_use(state, me, cmd.action, char.name)
    return [Draft(ActionUsed(character=char.id, action=cmd.action, what=cmd.what))]


def decide_end(cmd: EndEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world(state).encounter
    if enc is None:
        raise RuleError("end-encounter: no encounter is running")
    return [Draft(EncounterEnded(name=enc.name))]


#: the commands this module decides
DECIDERS: Deciders = {
    StartEncounter: decide_start,
    Join: decide_join,
    Leave: decide_leave,
    NextTurn: decide_next,
    UseAction: decide_use,
    EndEncounter: decide_end,
}
