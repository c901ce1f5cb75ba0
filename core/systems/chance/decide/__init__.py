"""d100-chance commands decided against the table's state into events.

One module a kind of command: ``checks``, ``attacks``, ``effects`` (and sides and HP),
``turns`` (the encounter clock) and ``moves`` (the field and journeys), over what
``common`` reads for all of them.
"""

from __future__ import annotations

from ...base import by_command
from . import attacks, checks, effects, moves, turns
from .attacks import attack_gates, aware_of, decide_attack
from .checks import (
    AUTOMATIC_NARRATION,
    NARRATION,
    CheckPlan,
    decide_check,
    decide_opposed,
    plan_check,
)
from .common import MAX_FEET, distance, proficiency_of
from .effects import (
    decide_bandage,
    decide_clear,
    decide_effect,
    decide_hp,
    decide_switch_side,
    effect_draft,
)
from .moves import DOMAINS, MAX_DISTANCE, away, decide_flee, decide_move, decide_travel
from .turns import decide_end, decide_join, decide_next, decide_start, next_actor

decide = by_command(
    {**checks.DECIDERS, **attacks.DECIDERS, **effects.DECIDERS, **turns.DECIDERS, **moves.DECIDERS}
)


__all__ = [
    "AUTOMATIC_NARRATION",
    "DOMAINS",
    "MAX_DISTANCE",
    "MAX_FEET",
    "NARRATION",
    "CheckPlan",
    "attack_gates",
    "aware_of",
    "away",
    "decide",
    "decide_attack",
    "decide_bandage",
    "decide_check",
    "decide_clear",
    "decide_effect",
    "decide_end",
    "decide_flee",
    "decide_hp",
    "decide_join",
    "decide_move",
    "decide_next",
    "decide_opposed",
    "decide_start",
    "decide_switch_side",
    "decide_travel",
    "distance",
    "effect_draft",
    "next_actor",
    "plan_check",
    "proficiency_of",
]
