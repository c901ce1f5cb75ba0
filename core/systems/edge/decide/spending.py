"""2d10-edge's Edge: spent on initiative or a reaction, recovered and awarded; pending items dismissed."""

from __future__ import annotations

from margin.events import Draft, Visibility
from margin.events.systems.edge import EdgeRecovered, PendingDismissed

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import AwardEdge, DismissPending, LessenInjury, RecoverEdge, SpendEdge
from ..state import Combatant, EdgeCharacter, character, combatant, edge_max, world
from .common import able, edge_spend, need_edge, pending_item
from .wounds import decide_lessen


def decide_spend(cmd: SpendEdge, state: TableState, dice: Dice, history: History) -> list[Draft]:
    purpose = cmd.purpose.lower()
    if purpose == "lessen-injury":
        if cmd.faces:
            raise RuleError("faces: lessening an injury rolls no dice")
        return decide_lessen(
            LessenInjury(character=cmd.character, injury=cmd.injury), state, dice, history
        )
    _check_purpose(purpose, cmd.purpose)
    if cmd.injury is not None:
        raise RuleError(f"injury: only lessen-injury names an injury, not {purpose}")
    char = character(state, cmd.character)
    able(char, f"spend Edge on {purpose}")
    need_edge(char, "purpose")
    enc = world(state).encounter
    me = combatant(state, char.id)
    if enc is None or me is None:
        raise RuleError(f"purpose: {purpose} needs {char.name} in a running encounter")
    if purpose == "reaction":
        _check_reaction(char, enc.current == char.id, me.extra_reaction)
        return [edge_spend(char, "reaction")]
    return [_boost(char, me, enc.current == char.id, state, dice)]


def _boost(
    char: EdgeCharacter, me: Combatant, own_turn: bool, state: TableState, dice: Dice
) -> Draft:
    """Edge spent on initiative: 2d6 more for a turn; on the character's ``own_turn`` a higher
    initiative may bring actions at once."""
    if me.boost:
        raise RuleError(f"purpose: {char.name}'s initiative is already boosted for a turn")
    faces = dice.roll(6, 2)
    gained = _gained(me.initiative, sum(faces), state) if own_turn else []
    return edge_spend(
        char, "initiative", faces=faces, value=sum(faces), actions=gained, source=dice.source
    )


def _check_reaction(char: EdgeCharacter, own_turn: bool, gained: bool) -> None:
    """Refuse an extra reaction on the character's own turn, or a second since their last."""
    if own_turn:
        raise RuleError("purpose: an extra reaction is gained outside the character's own turn")
    if gained:
        raise RuleError(
            f"purpose: {char.name} already gained an extra reaction since their last turn"
        )


#: the purposes of Edge spent on something else than a spend of its own, and where they go
_SPENT_ELSEWHERE = {
    "advantage": "purpose: advantage is spent on the roll itself: give edge on the check or attack",
    "remove-disadvantage": (
        "purpose: remove-disadvantage is spent on the roll itself: give edge on the check or attack"
    ),
    "damage": "purpose: a damage boost is edge_damage on the attack or edge_boost on damage",
}


def _check_purpose(purpose: str, typed: str) -> None:
    """Refuse a purpose that is no use of Edge spent on its own (as typed: ``typed``)."""
    if purpose in _SPENT_ELSEWHERE:
        raise RuleError(_SPENT_ELSEWHERE[purpose])
    if purpose not in ("initiative", "reaction"):
        raise RuleError(
            f"purpose: {typed!r} is not a use of Edge (initiative, reaction, lessen-injury; "
            "advantage and damage go on the check/attack)"
        )


def _gained(initiative: int, boost: int, state: TableState) -> list[str]:
    """The actions an initiative boosted by ``boost`` brings beyond those it had."""
    brackets = state.options.get("initiative_brackets", True)
    before = rules.bracket_actions(initiative, brackets)
    return rules.bracket_actions(initiative + boost, brackets)[len(before) :]


SIMPLE_REASONS = ("session-end", "refresh")


COMPLEX_REASONS = ("long-rest", "scenario-end", "final-boss")


def decide_recover(
    cmd: RecoverEdge, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    _check_reason(cmd, state.options.get("edge_recovery", "simple"))
    drafts = []
    for char in _recovering(cmd, state):
        top = edge_max(char)
        amount = min(1, top - char.edge) if cmd.reason == "long-rest" else top - char.edge
        if amount <= 0:
            continue
        drafts.append(
            Draft(
                EdgeRecovered(
                    character=char.id,
                    reason=cmd.reason,
                    amount=amount,
                    edge_after=char.edge + amount,
                )
            )
        )
    if not drafts:
        raise RuleError("recover-edge: every character named already has full Edge")
    return drafts


def _check_reason(cmd: RecoverEdge, method: str) -> None:
    """Refuse a reason the table's recovery (``simple`` or ``complex``) does not give Edge for."""
    allowed = SIMPLE_REASONS if method == "simple" else COMPLEX_REASONS
    if cmd.reason not in allowed:
        other = "complex" if method == "simple" else "simple"
        if cmd.reason in SIMPLE_REASONS + COMPLEX_REASONS:
            raise RuleError(
                f"reason: {cmd.reason} belongs to {other} recovery; this table uses {method} "
                f"({', '.join(allowed)})"
            )
        raise RuleError(f"reason: {cmd.reason!r} is not a recovery ({', '.join(allowed)})")
    if cmd.reason == "long-rest" and cmd.downtime:
        raise RuleError(
            "reason: a long rest in downtime recovers no Edge (only during an adventure)"
        )


def _recovering(cmd: RecoverEdge, state: TableState) -> list[EdgeCharacter]:
    """The characters a recovery names, or everyone at the table."""
    if cmd.characters:
        return [character(state, c) for c in cmd.characters]
    chars = [c for c in state.characters.values() if isinstance(c, EdgeCharacter)]
    if not chars:
        raise RuleError("recover-edge: nobody is at the table yet")
    return chars


def decide_award(cmd: AwardEdge, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    method = state.options.get("edge_recovery", "simple")
    top = edge_max(char)
    if method == "simple":
        if cmd.size is not None:
            raise RuleError(
                "size: simple recovery awards 1 point; sized awards need edge_recovery complex"
            )
        size = ""
    else:
        size = cmd.size or "minor"
        if size not in rules.AWARD_SIZES:
            raise RuleError(f"size: {size!r} is not an award size ({', '.join(rules.AWARD_SIZES)})")
    if char.edge >= top:
        raise RuleError(f"award-edge: {char.name}'s Edge is already full ({char.edge}/{top})")
    amount = rules.award_amount(char.edge, top, size) if size else 1
    return [
        Draft(
            EdgeRecovered(
                character=char.id,
                reason="award",
                amount=amount,
                edge_after=char.edge + amount,
                size=size,
                note=cmd.note,
            )
        )
    ]


def decide_dismiss(
    cmd: DismissPending, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    char = character(state, cmd.character)
    if not char.pending:
        raise RuleError(f"dismiss-pending: {char.name} has nothing pending")
    seq = char.pending[0].seq if cmd.pending is None else cmd.pending
    item = pending_item(char, seq)
    # dropping what a still-secret check left pending would tell players it left something
    unseen = item.secret and seq not in state.revealed
    return [
        Draft(
            PendingDismissed(character=char.id, pending=seq),
            cause=seq,
            visibility=Visibility(gm_only=unseen),
        )
    ]


#: the commands this module decides
DECIDERS: Deciders = {
    SpendEdge: decide_spend,
    RecoverEdge: decide_recover,
    AwardEdge: decide_award,
    DismissPending: decide_dismiss,
}
