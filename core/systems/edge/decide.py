"""The commands of 2d10-edge and how each is decided into events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from margin.events import Draft, Visibility
from margin.events.systems.edge import (
    SECRET_ATTACK_TN,
    ActionUsed,
    ArmorRepaired,
    Attacked,
    Checked,
    Damaged,
    EdgeBurned,
    EdgeRecovered,
    EdgeSpent,
    EncounterEnded,
    EncounterStarted,
    Healed,
    Injured,
    InjuryLessened,
    Joined,
    Left,
    PendingDismissed,
    TurnStarted,
)

from ...dice import Dice
from ...errors import RuleError
from ...history import History
from ...state import TableState
from ..base import Command, by_command
from . import rules
from .commands import (
    ACTIONS,
    SECRET_TN_FIELDS,
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
from .state import (
    Combatant,
    EdgeCharacter,
    Injury,
    OpenAttack,
    Pending,
    assumed,
    attribute,
    character,
    combatant,
    defense,
    edge_max,
    health,
    sheet_of,
    skill_bonus,
    talent_pt_reduction,
    weapon,
    world,
    worn_armor,
)

# -- helpers --------------------------------------------------------------------


def _able(char: EdgeCharacter, what: str) -> None:
    if char.dead:
        raise RuleError(f"character: {char.name} is dead and cannot {what}")
    if char.knocked_out:
        raise RuleError(f"character: {char.name} is knocked out and cannot {what}")


def _need_edge(char: EdgeCharacter, field: str) -> None:
    if char.edge < 1:
        raise RuleError(f"{field}: {char.name} has no Edge left (0/{edge_max(char)})")


def _pending_for(char: EdgeCharacter, skill: str, choice: str | list[int]) -> list[Pending]:
    if choice == "none":
        return []
    if choice == "auto":
        return [p for p in char.pending if p.scope == "any" or p.skill == skill]
    if isinstance(choice, list):
        chosen = []
        for seq in choice:
            found = next((p for p in char.pending if p.seq == seq), None)
            if found is None:
                have = ", ".join(str(p.seq) for p in char.pending) or "none"
                raise RuleError(f"pending: {seq} is not pending for {char.name} (pending: {have})")
            chosen.append(found)
        return chosen
    raise RuleError(f'pending: {choice!r} must be "auto", "none" or a list of sequence numbers')


def sources(cmd: Check, char: EdgeCharacter, skill: str) -> tuple[list[Pending], int, int]:
    """The pending items a check uses, and its counted Advantage and Disadvantage sources."""
    used = _pending_for(char, skill, cmd.pending)
    adv = cmd.advantage + sum(1 for p in used if p.kind == "advantage")
    dis = cmd.disadvantage + sum(1 for p in used if p.kind == "disadvantage")
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


def _consequence(band: str, skill: str, attack: bool, options: dict[str, Any]) -> tuple[str, str]:
    """What a check's band leaves pending: (kind, scope) or ("", "")."""
    if not options.get("mos_consequences", True):
        return "", ""
    if band == "significant-success" and not attack:
        return "advantage", "related"
    if band == "complete-success" and not attack:
        return "advantage", "any"
    if band == "significant-failure":
        return "disadvantage", "related"
    if band == "complete-failure":
        return "disadvantage", "any"
    return "", ""


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


def _roll_check(
    cmd: Check, state: TableState, dice: Dice, plan: CheckPlan, attack: bool = False
) -> dict[str, Any]:
    """The shared part of a check and an attack: the fields of the check event."""
    char, sid, bonus, tn, mode = plan.character, plan.skill, plan.bonus, plan.tn, plan.mode
    if cmd.edge:
        _need_edge(char, "edge")
    faces = dice.roll(10, rules.dice_count(mode))
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
        "mode": mode,
        "faces": list(result.faces),
        "keep": list(result.keep),
        "kept": result.kept,
        "keep_chosen": cmd.keep is not None,
        "double": result.double,
        "adjustment": result.adjustment,
        "total": result.total,
        "assumed": assumed(char, [sid]),
        "mos": result.mos,
        "success": result.success,
        "band": result.band,
        "damage_dice": result.damage_dice,
        "pending_used": [p.seq for p in plan.used],
        "pending_kind": kind,
        "pending_scope": scope,
        "source": dice.source,
        "secret_tn": cmd.secret_tn,
        "reason": cmd.reason,
    }


def _edge_spend(char: EdgeCharacter, purpose: str, cause: int | None = None, **extra: Any) -> Draft:
    return Draft(
        EdgeSpent(character=char.id, purpose=purpose, edge_after=char.edge - 1, **extra),
        cause=cause,
    )


def _hit(
    state: TableState,
    target: EdgeCharacter,
    pool: rules.Pool,
    dice: Dice,
    *,
    stun: bool,
    pt_reduction: int,
    use_armor: bool,
    attack: int,
    edge_boost: bool,
    first_seq: int,
    cause: int | None,
    reason: str = "",
) -> list[Draft]:
    """The damage record (at ``first_seq``) and, if anything got through, the injury it causes."""
    faces = dice.roll(6, pool.dice)
    worn = worn_armor(target, state.options) if use_armor else None
    pt, dr = (worn.pt, worn.dr) if worn else (0, 0)
    result = rules.apply_armor(sum(faces) + pool.bonus, pt, dr, pt_reduction)
    # "Damage below the PT is entirely negated (although the armor itself can become degraded)"
    stopped = worn is not None and not result.penetrated and result.raw > 0
    degraded = min(worn.degrade, pt) if worn is not None and stopped else 0
    drafts = [
        Draft(
            Damaged(
                target=target.id,
                dice=pool.dice,
                bonus=pool.bonus,
                faces=faces,
                raw=result.raw,
                pt=pt,
                dr=dr,
                pt_reduction=pt_reduction,
                penetrated=result.penetrated,
                soaked=result.soaked,
                taken=result.taken,
                stun=stun,
                attack=attack,
                edge_boost=edge_boost,
                source=dice.source,
                reason=reason,
                degraded=degraded,
            ),
            cause=cause,
        )
    ]
    if result.taken > 0:
        hp = health(target)
        accumulated = (target.stun if stun else target.damage) + result.taken
        severity = (
            rules.severity_of(result.taken, hp) if state.options.get("injuries", True) else ""
        )
        drafts.append(
            Draft(
                Injured(
                    character=target.id,
                    points=result.taken,
                    severity=severity,
                    stun=stun,
                    accumulated=accumulated,
                    health=hp,
                    overwhelmed=accumulated >= hp,
                ),
                cause=first_seq,
            )
        )
    return drafts


def _encounter_action(cmd: Attack, state: TableState, char: EdgeCharacter) -> str:
    """Which action an attack uses in the running encounter ("" when none applies)."""
    enc = world(state).encounter
    me = combatant(state, char.id)
    if enc is None or me is None:
        if cmd.action not in (None, "none"):
            raise RuleError(f"action: {char.name} is not in an encounter; leave action out")
        return ""
    if cmd.action == "none":
        return ""
    if cmd.action is None:
        if enc.current != char.id:
            raise RuleError(
                f'action: it is not {char.name}\'s turn; give action "reaction" or "none"'
            )
        for candidate in ("major", "bonus"):
            if candidate in me.actions:
                return candidate
        raise RuleError(f"action: {char.name} has no Major or bonus action left this turn")
    if cmd.action not in ("major", "bonus", "reaction"):
        raise RuleError(
            f"action: {cmd.action!r} is not an attack action (major, bonus, reaction, none)"
        )
    _can_use(state, me, cmd.action, char.name)
    return cmd.action


def _can_use(state: TableState, me: Combatant, action: str, name: str) -> None:
    enc = world(state).encounter
    assert enc is not None
    if action == "reaction":
        if enc.current == me.id:
            raise RuleError(f"action: a reaction is taken outside {name}'s own turn")
        if me.reactions < 1:
            raise RuleError(
                f"action: {name} has no reaction left (spend Edge for one extra between turns)"
            )
        return
    if enc.current != me.id:
        raise RuleError(f"action: it is not {name}'s turn (now: {enc.current or 'nobody'})")
    if action not in me.actions:
        left = ", ".join(me.actions) or "none"
        raise RuleError(f"action: {name} has no {action} action left this turn (left: {left})")


# -- deciders -----------------------------------------------------------------


def decide_check(cmd: Check, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    _able(char, "make a check")
    fields = _roll_check(cmd, state, dice, plan_check(cmd, state))
    drafts = []
    if cmd.edge:
        drafts.append(_edge_spend(char, cmd.edge))
    drafts.append(Draft(Checked(**fields), visibility=_secrecy(cmd)))
    return drafts


def decide_attack(cmd: Attack, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    _able(char, "attack")
    target = character(state, cmd.target)
    if target.id == char.id:
        raise RuleError("target: a character cannot attack themself")
    if target.dead:
        raise RuleError(f"target: {target.name} is dead (Edge Burn can still save them)")
    arm = weapon(char, cmd.weapon)
    if cmd.mode == "burst" and not arm.burst:
        raise RuleError(f"mode: {arm.name} has no burst mode")
    if cmd.edge and cmd.edge_damage:
        raise RuleError(
            "edge_damage: Edge was spent on this attack roll; it cannot also boost damage"
        )
    plan = plan_check(cmd, state)
    if cmd.edge_damage and not cmd.damage:
        raise RuleError("edge_damage: damage is not rolled now (damage false); boost it then")
    action = _encounter_action(cmd, state, char)
    spends = 1 if cmd.edge else 0
    if cmd.edge_damage:
        spends += 1
    if spends and char.edge < spends:
        raise RuleError(f"edge: {char.name} has {char.edge} Edge, this attack spends {spends}")
    checked = _roll_check(cmd, state, dice, plan, attack=True)
    if arm.melee:
        base_dice, bonus = rules.strength_conversion(arm.dice, attribute(char, "ST") + arm.bonus)
        checked["assumed"] = [*checked["assumed"], *assumed(char, ["ST"])]
    else:
        base_dice, bonus = arm.dice, arm.bonus
    extra = arm.burst if cmd.mode == "burst" else 0
    pt_reduction = (arm.pt_burst if cmd.mode == "burst" else arm.pt_single) + talent_pt_reduction(
        char
    )
    drafts: list[Draft] = []
    if cmd.edge:
        drafts.append(_edge_spend(char, cmd.edge))
    attack_seq = state.seq + len(drafts) + 1
    drafts.append(
        Draft(
            Attacked(
                **checked,
                target=target.id,
                weapon=arm.name,
                fire_mode=cmd.mode,
                base_dice=base_dice,
                damage_bonus=bonus,
                melee=arm.melee,
                stun=arm.stun,
                extra_dice=extra,
                pt_reduction=pt_reduction,
                action=action,
                dodge_penalty=plan.dodge_penalty,
            ),
            visibility=_secrecy(cmd, SECRET_ATTACK_TN),
        )
    )
    if not checked["success"] or not cmd.damage:
        # a miss rolls no damage, so an Edge damage boost is not spent
        return drafts
    if cmd.edge_damage:
        drafts.append(
            Draft(
                EdgeSpent(character=char.id, purpose="damage", edge_after=char.edge - spends),
                cause=attack_seq,
            )
        )
    pool = rules.damage_pool(base_dice, bonus, False, checked["mos"], cmd.edge_damage, extra)
    drafts += _hit(
        state,
        target,
        pool,
        dice,
        stun=arm.stun,
        pt_reduction=pt_reduction,
        use_armor=True,
        attack=attack_seq,
        edge_boost=cmd.edge_damage,
        first_seq=state.seq + len(drafts) + 1,
        cause=attack_seq,
    )
    return drafts


def _secrecy(cmd: Check, fields: tuple[str, ...] = SECRET_TN_FIELDS) -> Visibility:
    return Visibility(hidden=fields) if cmd.secret_tn else Visibility()


def decide_damage(cmd: Damage, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if cmd.attack is not None or cmd.attacker is not None:
        if cmd.target is not None or cmd.dice or cmd.bonus or cmd.stun or cmd.pt_reduction:
            raise RuleError(
                "damage: for an attack's damage give only attack/attacker and edge_boost"
            )
        return _attack_damage(cmd, state, dice)
    if cmd.target is None:
        raise RuleError("damage: give an attack (its seq), an attacker, or a target with dice")
    if cmd.edge_boost:
        raise RuleError("edge_boost: Edge boosts the damage of an attack, not direct damage")
    target = character(state, cmd.target)
    if not 1 <= cmd.dice <= 60:
        raise RuleError(f"dice: {cmd.dice} is out of range (1..60)")
    if cmd.pt_reduction < 0:
        raise RuleError("pt_reduction: cannot be negative")
    return _hit(
        state,
        target,
        rules.Pool(cmd.dice, cmd.bonus),
        dice,
        stun=cmd.stun,
        pt_reduction=cmd.pt_reduction,
        use_armor=cmd.armor,
        attack=0,
        edge_boost=False,
        first_seq=state.seq + 1,
        cause=None,
        reason=cmd.reason,
    )


def _attack_damage(cmd: Damage, state: TableState, dice: Dice) -> list[Draft]:
    opened = world(state).open_attacks
    found: OpenAttack | None = None
    if cmd.attack is not None:
        found = next((a for a in opened if a.seq == cmd.attack), None)
        if found is None:
            have = ", ".join(str(a.seq) for a in opened) or "none"
            raise RuleError(f"attack: {cmd.attack} is not a hit awaiting damage (awaiting: {have})")
    else:
        assert cmd.attacker is not None
        who = character(state, cmd.attacker)
        mine = [a for a in opened if a.attacker == who.id]
        if not mine:
            raise RuleError(f"attacker: {who.name} has no hit awaiting damage")
        found = mine[-1]
    attacker = character(state, found.attacker)
    target = character(state, found.target)
    drafts: list[Draft] = []
    if cmd.edge_boost:
        if found.edge_on_roll:
            raise RuleError(
                "edge_boost: Edge was spent on this attack roll; it cannot also boost damage"
            )
        _need_edge(attacker, "edge_boost")
        drafts.append(_edge_spend(attacker, "damage", cause=found.seq))
    pool = rules.damage_pool(
        found.base_dice, found.bonus, False, found.mos, cmd.edge_boost, found.extra_dice
    )
    drafts += _hit(
        state,
        target,
        pool,
        dice,
        stun=found.stun,
        pt_reduction=found.pt_reduction,
        use_armor=True,
        attack=found.seq,
        edge_boost=cmd.edge_boost,
        first_seq=state.seq + len(drafts) + 1,
        cause=found.seq,
        reason=cmd.reason,
    )
    return drafts


def _injury(
    char: EdgeCharacter, seq: int | None, fits: Callable[[Injury], bool], what: str
) -> Injury:
    if seq is not None:
        found = next((i for i in char.injuries if i.seq == seq), None)
        if found is None:
            have = ", ".join(str(i.seq) for i in char.injuries) or "none"
            raise RuleError(f"injury: {seq} is not an injury of {char.name} (injuries: {have})")
        if not fits(found):
            raise RuleError(f"injury: {seq} is not {what}")
        return found
    candidates = [i for i in char.injuries if fits(i)]
    if not candidates:
        raise RuleError(f"injury: {char.name} has no injury that is {what}")
    return candidates[-1]


def decide_lessen(
    cmd: LessenInjury, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    if not state.options.get("injuries", True):
        raise RuleError("lessen-injury: the injuries option is off (set-option injuries true)")
    char = character(state, cmd.character)
    injury = _injury(char, cmd.injury, lambda i: i.severity not in ("", "grazing"), "above grazing")
    _need_edge(char, "lessen-injury")
    to = rules.SEVERITIES[rules.SEVERITIES.index(injury.severity) - 1]
    return [
        _edge_spend(char, "lessen-injury", cause=injury.seq),
        Draft(
            InjuryLessened(
                character=char.id, injury=injury.seq, severity_from=injury.severity, severity_to=to
            ),
            cause=injury.seq,
        ),
    ]


def decide_spend(cmd: SpendEdge, state: TableState, dice: Dice, history: History) -> list[Draft]:
    purpose = cmd.purpose.lower()
    if purpose == "lessen-injury":
        if cmd.faces:
            raise RuleError("faces: lessening an injury rolls no dice")
        return decide_lessen(
            LessenInjury(character=cmd.character, injury=cmd.injury), state, dice, history
        )
    if purpose in ("advantage", "remove-disadvantage"):
        raise RuleError(
            f"purpose: {purpose} is spent on the roll itself: give edge on the check or attack"
        )
    if purpose == "damage":
        raise RuleError(
            "purpose: a damage boost is edge_damage on the attack or edge_boost on damage"
        )
    if purpose not in ("initiative", "reaction"):
        raise RuleError(
            f"purpose: {cmd.purpose!r} is not a use of Edge (initiative, reaction, lessen-injury; "
            "advantage and damage go on the check/attack)"
        )
    if cmd.injury is not None:
        raise RuleError(f"injury: only lessen-injury names an injury, not {purpose}")
    char = character(state, cmd.character)
    _able(char, f"spend Edge on {purpose}")
    _need_edge(char, "purpose")
    enc = world(state).encounter
    me = combatant(state, char.id)
    if enc is None or me is None:
        raise RuleError(f"purpose: {purpose} needs {char.name} in a running encounter")
    if purpose == "reaction":
        if enc.current == char.id:
            raise RuleError("purpose: an extra reaction is gained outside the character's own turn")
        if me.extra_reaction:
            raise RuleError(
                f"purpose: {char.name} already gained an extra reaction since their last turn"
            )
        return [_edge_spend(char, "reaction")]
    if me.boost:
        raise RuleError(f"purpose: {char.name}'s initiative is already boosted for a turn")
    faces = dice.roll(6, 2)
    gained: list[str] = []
    if enc.current == char.id:
        before = rules.bracket_actions(
            me.initiative, state.options.get("initiative_brackets", True)
        )
        after = rules.bracket_actions(
            me.initiative + sum(faces), state.options.get("initiative_brackets", True)
        )
        gained = after[len(before) :]
    return [
        _edge_spend(
            char, "initiative", faces=faces, value=sum(faces), actions=gained, source=dice.source
        )
    ]


def decide_burn(cmd: BurnEdge, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not state.options.get("edge_burn", True):
        raise RuleError("edge-burn: the edge_burn option is off at this table")
    char = character(state, cmd.character)
    injury = _injury(
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


SIMPLE_REASONS = ("session-end", "refresh")
COMPLEX_REASONS = ("long-rest", "scenario-end", "final-boss")


def decide_recover(
    cmd: RecoverEdge, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    method = state.options.get("edge_recovery", "simple")
    allowed = SIMPLE_REASONS if method == "simple" else COMPLEX_REASONS
    if cmd.reason not in allowed:
        other = "complex" if method == "simple" else "simple"
        known = SIMPLE_REASONS + COMPLEX_REASONS
        if cmd.reason in known:
            raise RuleError(
                f"reason: {cmd.reason} belongs to {other} recovery; this table uses {method} "
                f"({', '.join(allowed)})"
            )
        raise RuleError(f"reason: {cmd.reason!r} is not a recovery ({', '.join(allowed)})")
    if cmd.reason == "long-rest" and cmd.downtime:
        raise RuleError(
            "reason: a long rest in downtime recovers no Edge (only during an adventure)"
        )
    if cmd.characters:
        chars = [character(state, c) for c in cmd.characters]
    else:
        chars = [c for c in state.characters.values() if isinstance(c, EdgeCharacter)]
        if not chars:
            raise RuleError("recover-edge: nobody is at the table yet")
    drafts = []
    for char in chars:
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
    if cmd.pending is None:
        seq = char.pending[0].seq
    else:
        seq = cmd.pending
        if not any(p.seq == seq for p in char.pending):
            have = ", ".join(str(p.seq) for p in char.pending)
            raise RuleError(f"pending: {seq} is not pending for {char.name} (pending: {have})")
    item = next(p for p in char.pending if p.seq == seq)
    # dropping what a still-secret check left pending would tell players it left something
    unseen = item.secret and seq not in state.revealed
    return [
        Draft(
            PendingDismissed(character=char.id, pending=seq),
            cause=seq,
            visibility=Visibility(gm_only=unseen),
        )
    ]


def decide_heal(cmd: Heal, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    if char.dead:
        raise RuleError(
            f"character: {char.name} is dead; healing does not bring them back "
            "(edge-burn against the fatal result, or undo it)"
        )
    if cmd.points < 0:
        raise RuleError("points: healing cannot be negative")
    if cmd.points == 0 and not cmd.cared:
        raise RuleError("heal: give points to recover or cared true")
    if cmd.cared and not char.urgent_care:
        raise RuleError(f"cared: {char.name} does not need urgent care")
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


def decide_next(cmd: NextTurn, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world(state).encounter
    if enc is None:
        raise RuleError("next-turn: no encounter is running (start-encounter first)")

    def able(c: Combatant) -> bool:
        ch = state.characters.get(c.id)
        return isinstance(ch, EdgeCharacter) and not ch.dead and not ch.knocked_out

    ready = [c for c in turn_order(enc.order) if able(c)]
    if not ready:
        raise RuleError("next-turn: nobody in the encounter can act (join someone first)")
    waiting = [c for c in ready if c.id not in enc.acted]
    rnd = enc.round if waiting and enc.round else enc.round + 1
    nxt = waiting[0] if waiting and enc.round else ready[0]
    # a boost already active belongs to the turn now ending
    effective = nxt.initiative + (0 if nxt.boost_active else nxt.boost)
    actions = rules.bracket_actions(effective, state.options.get("initiative_brackets", True))
    return [
        Draft(
            TurnStarted(
                round=rnd,
                index=[c.id for c in ready].index(nxt.id),
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
    _can_use(state, me, cmd.action, char.name)
    return [Draft(ActionUsed(character=char.id, action=cmd.action, what=cmd.what))]


def decide_end(cmd: EndEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = world(state).encounter
    if enc is None:
        raise RuleError("end-encounter: no encounter is running")
    return [Draft(EncounterEnded(name=enc.name))]


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
