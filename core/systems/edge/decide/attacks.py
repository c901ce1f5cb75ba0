"""2d10-edge attacks and damage: the attack's check, then damage through armor into injuries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from margin.events import Draft
from margin.events.systems.edge import SECRET_ATTACK_TN, Attacked, Damaged, EdgeSpent, Injured

from ....dice import Dice, TypedDice, roll_for
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import Attack, Damage
from ..state import (
    EdgeCharacter,
    OpenAttack,
    Weapon,
    WornArmor,
    assumed,
    attribute,
    character,
    combatant,
    health,
    talent_pt_reduction,
    weapon,
    world,
    worn_armor,
)
from .checks import plan_check, roll_check, secrecy
from .common import able, can_use, edge_spend, need_edge


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
        return _turn_action(enc.current == char.id, me.actions, char.name)
    if cmd.action not in ("major", "bonus", "reaction"):
        raise RuleError(
            f"action: {cmd.action!r} is not an attack action (major, bonus, reaction, none)"
        )
    can_use(state, me, cmd.action, char.name)
    return cmd.action


def decide_attack(cmd: Attack, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = character(state, cmd.character)
    able(char, "attack")
    target = character(state, cmd.target)
    arm = _weapon_against(cmd, char, target)
    plan = plan_check(cmd, state)
    if cmd.edge_damage and not cmd.damage:
        raise RuleError("edge_damage: damage is not rolled now (damage false); boost it then")
    action = _encounter_action(cmd, state, char)
    spends = _edge_spent(cmd, char)
    checked = roll_check(cmd, state, dice, plan, attack=True)
    blow = _blow(cmd, char, arm, checked)
    held = checked["success"] and (not cmd.damage or _hit_faces_only(dice, cmd))
    drafts = [edge_spend(char, cmd.edge)] if cmd.edge else []
    attack_seq = state.seq + len(drafts) + 1
    attacked = Attacked(
        **checked,
        target=target.id,
        weapon=arm.name,
        fire_mode=cmd.mode,
        base_dice=blow.dice,
        damage_bonus=blow.bonus,
        melee=arm.melee,
        stun=arm.stun,
        extra_dice=blow.extra,
        pt_reduction=blow.pt_reduction,
        action=action,
        dodge_penalty=plan.dodge_penalty,
        damage_held=held,
    )
    drafts.append(Draft(attacked, visibility=secrecy(cmd, SECRET_ATTACK_TN)))
    if not checked["success"] or held:
        # a miss rolls no damage, so an Edge damage boost is not spent
        return drafts
    if cmd.edge_damage:
        boost = EdgeSpent(character=char.id, purpose="damage", edge_after=char.edge - spends)
        drafts.append(Draft(boost, cause=attack_seq))
    pool = rules.damage_pool(
        blow.dice, blow.bonus, False, checked["mos"], cmd.edge_damage, blow.extra
    )
    hit = _Damage(
        target, pool, arm.stun, blow.pt_reduction, attack=attack_seq, edge_boost=cmd.edge_damage
    )
    return drafts + _hit(state, dice, hit, first_seq=state.seq + len(drafts) + 1)


def _edge_spent(cmd: Attack, char: EdgeCharacter) -> int:
    """The Edge an attack spends (on its roll, on its damage), which the attacker must have."""
    spends = (1 if cmd.edge else 0) + (1 if cmd.edge_damage else 0)
    if spends and char.edge < spends:
        raise RuleError(f"edge: {char.name} has {char.edge} Edge, this attack spends {spends}")
    return spends


def _hit_faces_only(dice: Dice, cmd: Attack) -> bool:
    """Whether the GM typed the attack roll's faces alone: the damage then waits for its
    own (``damage NAME = ...``), rolled once the hit and its margin are known."""
    return isinstance(dice, TypedDice) and dice.used == len(dice.faces) and not cmd.edge_damage


def _weapon_against(cmd: Attack, char: EdgeCharacter, target: EdgeCharacter) -> Weapon:
    """The weapon an attack uses, refusing a target or a use of it the rules rule out."""
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
    return arm


@dataclass(frozen=True)
class _Blow:
    """An attack's damage before the roll: its dice and bonus, a burst's extra dice, and
    the PT it takes off the target's armor."""

    dice: int
    bonus: int
    extra: int
    pt_reduction: int


def _blow(cmd: Attack, char: EdgeCharacter, arm: Weapon, checked: dict[str, Any]) -> _Blow:
    """A melee weapon's dice grow with ST, which the check then assumed too."""
    if arm.melee:
        dice, bonus = rules.strength_conversion(arm.dice, attribute(char, "ST") + arm.bonus)
        checked["assumed"] = [*checked["assumed"], *assumed(char, ["ST"])]
    else:
        dice, bonus = arm.dice, arm.bonus
    burst = cmd.mode == "burst"
    pt = (arm.pt_burst if burst else arm.pt_single) + talent_pt_reduction(char)
    return _Blow(dice, bonus, arm.burst if burst else 0, pt)


def decide_damage(cmd: Damage, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if cmd.attack is not None or cmd.attacker is not None:
        return _attack_damage(_only_attack(cmd), state, dice)
    return _direct_damage(cmd, state, dice)


def _direct_damage(cmd: Damage, state: TableState, dice: Dice) -> list[Draft]:
    """Damage the GM deals outside an attack: a target, dice and a bonus, through armor
    unless ``armor`` is off."""
    if cmd.target is None:
        raise RuleError("damage: give an attack (its seq), an attacker, or a target with dice")
    if cmd.edge_boost:
        raise RuleError("edge_boost: Edge boosts the damage of an attack, not direct damage")
    target = character(state, cmd.target)
    if not 1 <= cmd.dice <= 60:
        raise RuleError(f"dice: {cmd.dice} is out of range (1..60)")
    if cmd.pt_reduction < 0:
        raise RuleError("pt_reduction: cannot be negative")
    pool = rules.Pool(cmd.dice, cmd.bonus)
    hit = _Damage(target, pool, cmd.stun, cmd.pt_reduction, use_armor=cmd.armor, reason=cmd.reason)
    return _hit(state, dice, hit, first_seq=state.seq + 1)


def _turn_action(turn: bool, actions: list[str], name: str) -> str:
    """The action an attack with none named uses: on the attacker's ``turn``, a Major
    action left, else a bonus one."""
    if not turn:
        raise RuleError(f'action: it is not {name}\'s turn; give action "reaction" or "none"')
    for candidate in ("major", "bonus"):
        if candidate in actions:
            return candidate
    raise RuleError(f"action: {name} has no Major or bonus action left this turn")


def _only_attack(cmd: Damage) -> Damage:
    """A damage command for an attack's damage, which names nothing the attack says."""
    if cmd.target is not None or cmd.dice or cmd.bonus or cmd.stun or cmd.pt_reduction:
        raise RuleError("damage: for an attack's damage give only attack/attacker and edge_boost")
    return cmd


def _awaiting(cmd: Damage, state: TableState) -> OpenAttack:
    """The hit whose damage is rolled now: the attack named, or the attacker's last hit."""
    opened = world(state).open_attacks
    if cmd.attack is not None:
        return _open_attack(opened, cmd.attack)
    assert cmd.attacker is not None
    who = character(state, cmd.attacker)
    mine = [a for a in opened if a.attacker == who.id]
    if not mine:
        raise RuleError(f"attacker: {who.name} has no hit awaiting damage")
    return mine[-1]


def _open_attack(opened: list[OpenAttack], seq: int) -> OpenAttack:
    """The hit of the attack record ``seq``, which must be awaiting its damage."""
    found = next((a for a in opened if a.seq == seq), None)
    if found is None:
        have = ", ".join(str(a.seq) for a in opened) or "none"
        raise RuleError(f"attack: {seq} is not a hit awaiting damage (awaiting: {have})")
    return found


def _attack_damage(cmd: Damage, state: TableState, dice: Dice) -> list[Draft]:
    found = _awaiting(cmd, state)
    attacker = character(state, found.attacker)
    target = character(state, found.target)
    drafts: list[Draft] = []
    if cmd.edge_boost:
        if found.edge_on_roll:
            raise RuleError(
                "edge_boost: Edge was spent on this attack roll; it cannot also boost damage"
            )
        need_edge(attacker, "edge_boost")
        drafts.append(edge_spend(attacker, "damage", cause=found.seq))
    pool = rules.damage_pool(
        found.base_dice, found.bonus, False, found.mos, cmd.edge_boost, found.extra_dice
    )
    hit = _Damage(
        target,
        pool,
        found.stun,
        found.pt_reduction,
        attack=found.seq,
        edge_boost=cmd.edge_boost,
        reason=cmd.reason,
    )
    return drafts + _hit(state, dice, hit, first_seq=state.seq + len(drafts) + 1)


@dataclass(frozen=True)
class _Damage:
    """A damage roll about to be made: its pool against a target, and how armor meets it."""

    target: EdgeCharacter
    pool: rules.Pool
    stun: bool = False
    pt_reduction: int = 0
    use_armor: bool = True
    #: the attack whose damage this is, which its records answer (0: direct damage)
    attack: int = 0
    edge_boost: bool = False
    reason: str = ""

    def recorded(self) -> dict[str, Any]:
        """The roll as its damage record keeps it, before the dice."""
        return {
            "target": self.target.id,
            "dice": self.pool.dice,
            "bonus": self.pool.bonus,
            "stun": self.stun,
            "pt_reduction": self.pt_reduction,
            "attack": self.attack,
            "edge_boost": self.edge_boost,
            "reason": self.reason,
        }


def _hit(state: TableState, dice: Dice, damage: _Damage, first_seq: int) -> list[Draft]:
    """The damage record (at ``first_seq``) and, if anything got through, the injury it causes."""
    target, pool = damage.target, damage.pool
    faces = roll_for(dice, f"the damage ({pool})", 6, pool.dice)
    worn = worn_armor(target, state.options) if damage.use_armor else None
    pt, dr = (worn.pt, worn.dr) if worn else (0, 0)
    result = rules.apply_armor(sum(faces) + pool.bonus, pt, dr, damage.pt_reduction)
    damaged = Damaged(
        **damage.recorded(),
        **result.recorded(),
        faces=faces,
        pt=pt,
        dr=dr,
        source=dice.source,
        degraded=_wear(worn, result),
    )
    drafts = [Draft(damaged, cause=damage.attack or None)]
    if result.taken > 0:
        drafts.append(Draft(_injured(state, target, result.taken, damage.stun), cause=first_seq))
    return drafts


def _wear(worn: WornArmor | None, result: rules.ArmorResult) -> int:
    """The PT a blow takes off the armor it meets: "Damage below the PT is entirely negated
    (although the armor itself can become degraded)"."""
    if worn is None or result.penetrated or result.raw <= 0:
        return 0
    return min(worn.degrade, worn.pt)


def _injured(state: TableState, target: EdgeCharacter, points: int, stun: bool) -> Injured:
    """The injury ``points`` of damage that got through cause, and the Health left."""
    hp = health(target)
    accumulated = (target.stun if stun else target.damage) + points
    severity = rules.severity_of(points, hp) if state.options.get("injuries", True) else ""
    overwhelmed = accumulated >= hp
    return Injured(
        character=target.id,
        points=points,
        severity=severity,
        stun=stun,
        accumulated=accumulated,
        health=hp,
        overwhelmed=overwhelmed,
    )


#: the commands this module decides
DECIDERS: Deciders = {
    Attack: decide_attack,
    Damage: decide_damage,
}
