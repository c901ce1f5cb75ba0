"""The commands of 2d10-edge and how each is decided into events.

One module a kind of command: ``checks``, ``attacks`` (and their damage), ``wounds``
(injuries and healing), ``spending`` (Edge and what is pending) and ``turns`` (the
encounter), over what ``common`` holds for all of them.
"""

from __future__ import annotations

from collections.abc import Callable

from margin.events import Draft

from ...base import Command, by_command
from ..commands import (
    Attack,
    AwardEdge,
    BurnEdge,
    Check,
    Damage,
    DismissPending,
    EndEncounter,
    Heal,
    Join,
    Leave,
    LessenInjury,
    NextTurn,
    RecoverEdge,
    RepairArmor,
    SpendEdge,
    StartEncounter,
    UseAction,
)
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
    turn_order,
)
from .wounds import decide_burn, decide_heal, decide_lessen, decide_repair

DECIDERS: dict[type[Command], Callable[..., list[Draft]]] = {
    Check: decide_check,
    Attack: decide_attack,
    Damage: decide_damage,
    SpendEdge: decide_spend,
    LessenInjury: decide_lessen,
    BurnEdge: decide_burn,
    RecoverEdge: decide_recover,
    AwardEdge: decide_award,
    DismissPending: decide_dismiss,
    Heal: decide_heal,
    RepairArmor: decide_repair,
    StartEncounter: decide_start,
    Join: decide_join,
    Leave: decide_leave,
    NextTurn: decide_next,
    UseAction: decide_use,
    EndEncounter: decide_end,
}

decide = by_command(DECIDERS)

__all__ = [
    "COMPLEX_REASONS",
    "DECIDERS",
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
    "plan_check",
    "sources",
    "turn_order",
]
