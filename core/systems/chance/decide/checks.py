"""d100-chance skill checks, alone and opposed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from margin.events import Draft, Visibility
from margin.events.systems.chance import CHECK_SECRET, OPPOSED_SECRET, CheckRolled, OpposedRolled

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import Check, Opposed
from ..state import ChanceCharacter
from .common import char_of, d100, difficulty_of, proficiency_of, secret_of, standing, world_of

#: What a band means at the table, read to the player.
NARRATION = {
    "clean-success": "clean: extra detail, quicker work or something useful on the side",
    "success": "it works",
    "recoverable-failure": "not yet: time lost, materials half spent, or the trail gone cold",
    "setback": "a setback: an alarm, materials spent, or someone grows suspicious",
}


AUTOMATIC_NARRATION = "done without a roll: well within the character's skill"


@dataclass(frozen=True)
class CheckPlan:
    """A check before its die: what both rolling it and its odds use."""

    character: ChanceCharacter
    skill: str
    proficiency: int
    difficulty: int
    modifier_total: int
    #: the modifiers that count, by name
    modifiers: list[str]
    odds: rules.CheckOdds

    def recorded(self) -> dict[str, Any]:
        """The plan as the check's record keeps it: what the chance was made of, and the chance."""
        return {
            "character": self.character.id,
            "skill": self.skill,
            "proficiency": self.proficiency,
            "difficulty": self.difficulty,
            "difficulty_band": rules.difficulty_band(self.difficulty),
            "modifiers": self.modifiers,
            "modifier_total": self.modifier_total,
            "chance": self.odds.chance,
            "automatic": self.odds.automatic,
        }


def plan_check(cmd: Check, state: TableState) -> CheckPlan:
    """Plan a check: the proficiency, the difficulty, the modifiers and the chance they give."""
    char = char_of(state, cmd.character)
    skill = cmd.skill.strip().lower()
    if not skill:
        raise RuleError("skill: name the skill checked")
    proficiency = proficiency_of(char, skill, cmd.proficiency, "skill")
    difficulty = difficulty_of(cmd.difficulty)
    total, counted = rules.modifier_total(cmd.modifiers)
    odds = rules.check_odds(proficiency, difficulty, total)
    return CheckPlan(char, skill, proficiency, difficulty, total, counted, odds)


def _retry(
    cmd: Check,
    state: TableState,
    char: ChanceCharacter,
    task: str,
    counted: list[str],
    approach: str,
) -> str:
    """What a check is of a task the character failed before: "" a first attempt, "changed"
    with other modifiers or another approach, "override" the same way, as the GM allows."""
    failed = world_of(state).failed.get(char.id, {}).get(task)
    if failed is None:
        return ""
    same = sorted(failed.modifiers) == sorted(counted) and failed.approach == approach
    if same and not cmd.override:
        raise RuleError(
            f"retry: {char.name} failed {task!r} at record {failed.seq} the same way; "
            "change a modifier or the approach, or set override (the GM's ruling)"
        )
    return "override" if same else "changed"


def decide_check(cmd: Check, state: TableState, dice: Dice, history: History) -> list[Draft]:
    standing(char_of(state, cmd.character), "character", "make a check")
    plan = plan_check(cmd, state)
    char, odds, counted = plan.character, plan.odds, plan.modifiers
    task = cmd.task.strip().lower() or plan.skill
    approach = cmd.approach.strip()
    retry = _retry(cmd, state, char, task, counted, approach)
    if odds.automatic:
        outcome, narration = rules.AUTOMATIC, AUTOMATIC_NARRATION
    else:
        outcome = rules.rolled(odds.chance, d100(dice))
        narration = NARRATION[outcome.band]
    secret = secret_of(cmd.secret, state)
    event = CheckRolled(
        **plan.recorded(),
        **outcome.recorded(),
        task=task,
        narration=cmd.narration or narration,
        secret=secret,
        approach=approach,
        retry=retry,
        source=dice.source,
        reason=cmd.reason,
    )
    return [Draft(event, visibility=Visibility(hidden=CHECK_SECRET if secret else ()))]


def decide_opposed(cmd: Opposed, state: TableState, dice: Dice, history: History) -> list[Draft]:
    a = char_of(state, cmd.actor)
    b = char_of(state, cmd.defender)
    if a.id == b.id:
        raise RuleError("defender: a character cannot oppose themself")
    standing(a, "actor", "make a check")
    standing(b, "defender", "make a check")
    a_skill = cmd.skill.strip().lower()
    b_skill = cmd.defender_skill.strip().lower() or a_skill
    a_prof = proficiency_of(a, a_skill, None, "skill")
    b_prof = proficiency_of(b, b_skill, None, "defender_skill")
    a_given, b_given = cmd.actor_difficulty, cmd.defender_difficulty
    a_diff = difficulty_of(max(1, b_prof) if a_given is None else a_given, "actor_difficulty")
    b_diff = difficulty_of(max(1, a_prof) if b_given is None else b_given, "defender_difficulty")
    a_total, a_mods = rules.modifier_total(cmd.actor_modifiers, "actor_modifiers")
    b_total, b_mods = rules.modifier_total(cmd.defender_modifiers, "defender_modifiers")
    a_chance = rules.check_odds(a_prof, a_diff, a_total).chance
    b_chance = rules.check_odds(b_prof, b_diff, b_total).chance
    actor = _side("actor", a, a_skill, a_diff, a_mods, a_chance, d100(dice))
    defender = _side("defender", b, b_skill, b_diff, b_mods, b_chance, d100(dice))
    winner = rules.opposed_winner(actor["actor_margin"], defender["defender_margin"])
    secret = secret_of(cmd.secret, state)
    event = OpposedRolled(
        **actor,
        **defender,
        winner=a.id if winner == "a" else b.id,
        secret=secret,
        source=dice.source,
    )
    return [Draft(event, visibility=Visibility(hidden=OPPOSED_SECRET if secret else ()))]


def _side(
    side: str,
    char: ChanceCharacter,
    skill: str,
    difficulty: int,
    modifiers: list[str],
    chance: int,
    roll: int,
) -> dict[str, Any]:
    """One side of an opposed check as its record keeps it (``actor``, ``actor_skill`` ...)."""
    outcome = rules.rolled(chance, roll)
    return {
        side: char.id,
        f"{side}_skill": skill,
        f"{side}_difficulty": difficulty,
        f"{side}_difficulty_band": rules.difficulty_band(difficulty),
        f"{side}_modifiers": modifiers,
        f"{side}_chance": chance,
        f"{side}_roll": roll,
        f"{side}_margin": outcome.margin,
        f"{side}_band": outcome.band,
    }


#: the commands this module decides
DECIDERS: Deciders = {
    Check: decide_check,
    Opposed: decide_opposed,
}
