"""2d10-edge injuries lessened or burnt away with Edge, healing, and armor repaired."""

from __future__ import annotations

from collections.abc import Callable

from margin.events import Draft
from margin.events.systems.edge import ArmorRepaired, EdgeBurned, Healed, InjuryLessened

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import BurnEdge, Heal, LessenInjury, RepairArmor
from ..state import EdgeCharacter, Injury, character, edge_max
from .common import edge_spend, need_edge


def injury_of(
    char: EdgeCharacter, seq: int | None, fits: Callable[[Injury], bool], what: str
) -> Injury:
    if seq is not None:
        return _named_injury(char, seq, fits, what)
    candidates = [i for i in char.injuries if fits(i)]
    if not candidates:
        raise RuleError(f"injury: {char.name} has no injury that is {what}")
    return candidates[-1]


def _named_injury(
    char: EdgeCharacter, seq: int, fits: Callable[[Injury], bool], what: str
) -> Injury:
    """The injury of record ``seq``, which must be the character's and fit."""
    found = next((i for i in char.injuries if i.seq == seq), None)
    if found is None:
        have = ", ".join(str(i.seq) for i in char.injuries) or "none"
        raise RuleError(f"injury: {seq} is not an injury of {char.name} (injuries: {have})")
    if not fits(found):
        raise RuleError(f"injury: {seq} is not {what}")
    return found


def decide_lessen(
    cmd: LessenInjury, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    if not state.options.get("injuries", True):
        raise RuleError("lessen-injury: the injuries option is off (set-option injuries true)")
    char = character(state, cmd.character)
    injury = injury_of(
        char, cmd.injury, lambda i: i.severity not in ("", "grazing"), "above grazing"
    )
    need_edge(char, "lessen-injury")
    to = rules.SEVERITIES[rules.SEVERITIES.index(injury.severity) - 1]
    return [
        edge_spend(char, "lessen-injury", cause=injury.seq),
        Draft(
            InjuryLessened(
                character=char.id, injury=injury.seq, severity_from=injury.severity, severity_to=to
            ),
            cause=injury.seq,
        ),
    ]


def decide_burn(cmd: BurnEdge, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not state.options.get("edge_burn", True):
        raise RuleError("edge-burn: the edge_burn option is off at this table")
    char = character(state, cmd.character)
    injury = injury_of(
        char,
        cmd.injury,
        lambda i: not i.stun and not i.burned and (i.severity == "fatal" or i.overwhelmed),
        "a fatal result (Edge Burn only prevents death)",
    )
    if edge_max(char) < 1:
        raise RuleError(f"edge-burn: {char.name} has no maximum Edge left to burn")
    return [
        Draft(
            EdgeBurned(
                character=char.id,
                injury=injury.seq,
                edge_after=max(0, char.edge - 1),
                edge_max_after=edge_max(char) - 1,
            ),
            cause=injury.seq,
        )
    ]


def decide_heal(cmd: Heal, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    if char.dead:
        raise RuleError(
            f"character: {char.name} is dead; healing does not bring them back "
            "(edge-burn against the fatal result, or undo it)"
        )
    _check_heal(cmd, char)
    current = char.stun if cmd.stun else char.damage
    points = min(cmd.points, current)
    if cmd.points and points == 0:
        raise RuleError(
            f"points: {char.name} has no {'stun' if cmd.stun else 'lethal'} damage to heal"
        )
    return [
        Draft(
            Healed(
                character=char.id,
                points=points,
                stun=cmd.stun,
                cared=cmd.cared,
                damage_after=current - points,
            )
        )
    ]


def _check_heal(cmd: Heal, char: EdgeCharacter) -> None:
    """Refuse healing of no points and no care, of negative points, or care not needed."""
    if cmd.points < 0:
        raise RuleError("points: healing cannot be negative")
    if cmd.points == 0 and not cmd.cared:
        raise RuleError("heal: give points to recover or cared true")
    if cmd.cared and not char.urgent_care:
        raise RuleError(f"cared: {char.name} does not need urgent care")


def decide_repair(cmd: RepairArmor, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    if char.armor_wear == 0:
        raise RuleError(f"repair-armor: {char.name}'s armor has no PT worn off")
    points = char.armor_wear if cmd.points is None else cmd.points
    if isinstance(points, bool) or not 1 <= points <= char.armor_wear:
        raise RuleError(
            f"points: {points!r} is out of range (1..{char.armor_wear}, the PT worn off "
            f"{char.name}'s armor)"
        )
    return [
        Draft(ArmorRepaired(character=char.id, points=points, wear_after=char.armor_wear - points))
    ]


#: the commands this module decides
DECIDERS: Deciders = {
    LessenInjury: decide_lessen,
    BurnEdge: decide_burn,
    Heal: decide_heal,
    RepairArmor: decide_repair,
}
