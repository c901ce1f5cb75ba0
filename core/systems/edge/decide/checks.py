"""2d10-edge checks: the plan of a check (skill, TN, Advantage and Disadvantage) and its roll."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from margin.events import Draft, Visibility
from margin.events.systems.edge import Checked

from ....dice import Dice, TypedDice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import SECRET_TN_FIELDS, Attack, Check
from ..state import EdgeCharacter, Pending, assumed, character, defense, skill_bonus, weapon
from .common import able, edge_spend, need_edge, pending_item


def _pending_for(char: EdgeCharacter, skill: str, choice: str | list[int]) -> list[Pending]:
    if choice == "none":
        return []
    if choice == "auto":
        return [p for p in char.pending if p.scope == "any" or p.skill == skill]
    if isinstance(choice, list):
        return [pending_item(char, seq) for seq in choice]
    raise RuleError(f'pending: {choice!r} must be "auto", "none" or a list of sequence numbers')


def sources(cmd: Check, char: EdgeCharacter, skill: str) -> tuple[list[Pending], int, int]:
    """The pending items a check uses, and its counted Advantage and Disadvantage sources."""
    used = _pending_for(char, skill, cmd.pending)
    kinds = Counter(p.kind for p in used)
    adv = cmd.advantage + kinds["advantage"]
    dis = cmd.disadvantage + kinds["disadvantage"]
    if cmd.chosen_disadvantage and dis:
        raise RuleError(
            "chosen_disadvantage: the check already has Disadvantage, so no talent or attack "
            "option that adds Disadvantage can be used"
        )
    if cmd.chosen_disadvantage > 1:
        raise RuleError(
            f"chosen_disadvantage: {cmd.chosen_disadvantage} options that add Disadvantage; "
            "once one is used the check has Disadvantage, so a second cannot be (at most 1)"
        )
    return used, adv, dis + cmd.chosen_disadvantage


#: what a check's band leaves pending on the next: (kind, scope); none for the bands not here
CONSEQUENCES = {
    "significant-success": ("advantage", "related"),
    "complete-success": ("advantage", "any"),
    "significant-failure": ("disadvantage", "related"),
    "complete-failure": ("disadvantage", "any"),
}


def _consequence(band: str, skill: str, attack: bool, options: dict[str, Any]) -> tuple[str, str]:
    """What a check's band leaves pending: (kind, scope) or ("", ""); an attack's success
    leaves no Advantage."""
    kind, scope = CONSEQUENCES.get(band, ("", ""))
    if not options.get("mos_consequences", True) or (attack and kind == "advantage"):
        return "", ""
    return kind, scope


@dataclass(frozen=True)
class CheckPlan:
    """A check (or an attack's check) before its dice: what both rolling it and its odds use."""

    character: EdgeCharacter
    skill: str
    bonus: int
    tn: int
    tn_name: str
    #: the pending items the check uses
    used: tuple[Pending, ...]
    advantage: int
    disadvantage: int
    mode: str
    #: the defense penalty of the target's armor, when an attack takes the target's defense
    dodge_penalty: int = 0


def attack_tn(cmd: Attack, target: EdgeCharacter, state: TableState) -> tuple[int | str, int]:
    """An attack's TN (given, or the target's defense) and the defense penalty it carries."""
    if cmd.tn is not None:
        return cmd.tn, 0
    defended = defense(target, state.options)
    if defended is None:
        raise RuleError(f"tn: give the attack's TN ({target.name}'s sheet has no defense)")
    return defended


def plan_check(cmd: Check, state: TableState) -> CheckPlan:
    """Plan a check or an attack's check: the skill and its bonus, the TN, the sources of
    Advantage and Disadvantage, and the mode they give."""
    char = character(state, cmd.character)
    dodge = 0
    if isinstance(cmd, Attack):
        skill = cmd.skill or weapon(char, cmd.weapon).skill
        tn_raw, dodge = attack_tn(cmd, character(state, cmd.target), state)
    else:
        skill, tn_raw = cmd.skill, cmd.tn
    sid, bonus = skill_bonus(char, skill)
    bonus += cmd.modifier
    tn, tn_name = rules.tn_value(tn_raw)
    used, adv, dis = sources(cmd, char, sid)
    mode = rules.check_mode(adv, dis, cmd.remove_disadvantage, cmd.edge)
    return CheckPlan(char, sid, bonus, tn, tn_name, tuple(used), adv, dis, mode, dodge)


def roll_check(
    cmd: Check, state: TableState, dice: Dice, plan: CheckPlan, attack: bool = False
) -> dict[str, Any]:
    """The shared part of a check and an attack: the fields of the check event."""
    char, sid, bonus, tn, mode = plan.character, plan.skill, plan.bonus, plan.tn, plan.mode
    if cmd.edge:
        need_edge(char, "edge")
    need = rules.dice_count(mode)
    if isinstance(dice, TypedDice) and len(dice.faces) - dice.used < need:
        raise RuleError(
            f"faces: {len(dice.faces) - dice.used} given, this check rolls {need}d10 "
            f"({_why_dice(plan)})"
        )
    faces = dice.roll(10, need)
    result = rules.resolve_check(faces, mode, bonus, tn, bool(cmd.edge), cmd.keep)
    kind, scope = _consequence(result.band, sid, attack, state.options)
    return {
        "character": char.id,
        "skill": sid,
        "bonus": bonus,
        "tn": tn,
        "tn_name": plan.tn_name,
        "modifier": cmd.modifier,
        "advantage": plan.advantage,
        "disadvantage": plan.disadvantage,
        "remove_disadvantage": cmd.remove_disadvantage,
        "edge": cmd.edge or "",
        **result.recorded(),
        "keep_chosen": cmd.keep is not None,
        "assumed": assumed(char, [sid]),
        "pending_used": [p.seq for p in plan.used],
        "pending_kind": kind,
        "pending_scope": scope,
        "source": dice.source,
        "secret_tn": cmd.secret_tn,
        "reason": cmd.reason,
    }


def _why_dice(plan: CheckPlan) -> str:
    """Why a check rolls the dice it does: its mode and where that came from."""
    if plan.mode == "normal":
        return "a normal check: two d10"
    kind = "Advantage" if plan.mode.startswith("advantage") else "Disadvantage"
    pending = [p.seq for p in plan.used if p.kind == kind.lower()]
    said = f"{kind} pending from record {', '.join(map(str, pending))}" if pending else kind
    skip = "; no-pending leaves it for later" if pending else ""
    return f"{said}: three d10, the best or worst pair kept{skip}"


def secrecy(cmd: Check, fields: tuple[str, ...] = SECRET_TN_FIELDS) -> Visibility:
    return Visibility(hidden=fields) if cmd.secret_tn else Visibility()


def decide_check(cmd: Check, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    able(char, "make a check")
    fields = roll_check(cmd, state, dice, plan_check(cmd, state))
    drafts = []
    if cmd.edge:
        drafts.append(edge_spend(char, cmd.edge))
    drafts.append(Draft(Checked(**fields), visibility=secrecy(cmd)))
    return drafts


#: the commands this module decides
DECIDERS: Deciders = {
    Check: decide_check,
}
