"""The commands of 2d10-edge and how each is decided into events.

One module a kind of command: ``checks``, ``attacks`` (and their damage), ``wounds``
(injuries and healing), ``spending`` (Edge and what is pending) and ``turns`` (the
encounter), over what ``common`` holds for all of them.
"""

from __future__ import annotations

from ...base import by_command
from . import attacks, checks, spending, turns, wounds
from .attacks import decide_attack, decide_damage
from .checks import CheckPlan, attack_tn, decide_check, plan_check, sources
from .spending import (
    COMPLEX_REASONS,
    SIMPLE_REASONS,
    decide_award,
    decide_dismiss,
    decide_recover,
    decide_spend,
)
from .turns import (
    decide_end,
    decide_join,
    decide_leave,
    decide_next,
    decide_start,
    decide_use,
    next_up,
    turn_order,
)
from .wounds import decide_burn, decide_heal, decide_lessen, decide_repair

decide = by_command(
    {
        **checks.DECIDERS,
        **attacks.DECIDERS,
        **spending.DECIDERS,
        **wounds.DECIDERS,
        **turns.DECIDERS,
    }
)


__all__ = [
    "COMPLEX_REASONS",
    "SIMPLE_REASONS",
    "CheckPlan",
    "attack_tn",
    "decide",
    "decide_attack",
    "decide_award",
    "decide_burn",
    "decide_check",
    "decide_damage",
    "decide_dismiss",
    "decide_end",
    "decide_heal",
    "decide_join",
    "decide_leave",
    "decide_lessen",
    "decide_next",
    "decide_recover",
    "decide_repair",
    "decide_spend",
    "decide_start",
    "decide_use",
    "next_up",
    "plan_check",
    "sources",
    "turn_order",
]
