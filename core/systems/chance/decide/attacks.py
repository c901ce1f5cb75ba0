"""d100-chance attacks: the gates to hit and to dodge, then the damage pipeline."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from margin.events import Draft, Visibility
from margin.events.systems.chance import ATTACK_SECRET, AttackRolled

from ....dice import Dice, roll_for
from ....errors import RuleError
from ....history import History
from ....state import TableState
from ...base import Deciders
from .. import rules
from ..commands import Attack
from ..state import (
    EFFECTS,
    ChanceCharacter,
    Weapon,
    accuracy,
    can_act,
    can_dodge,
    crit_chance,
    crit_multiplier,
    evasion,
    sheet_of,
    stats,
    weapon,
)
from .common import char_of, d100, distance, near, standing, world_of
from .effects import effect_draft


def aware_of(cmd: Attack, attacker: ChanceCharacter) -> bool:
    """Whether an attack's target is aware of it: as the command says, else unless stealthed."""
    return (not attacker.has("stealthed")) if cmd.aware is None else cmd.aware


def attack_gates(
    attacker: ChanceCharacter,
    w: Weapon,
    target: ChanceCharacter,
    position: str,
    extra: int,
    aware: bool,
) -> rules.Gates:
    """An attack's two gates, to hit and to dodge: what rolling it and its odds both use."""
    return rules.gates(
        accuracy(attacker, w), evasion(target), position, extra, aware and can_dodge(target)
    )


def _check_can_attack(
    attacker: ChanceCharacter, target: ChanceCharacter, state: TableState, cmd: Attack
) -> bool:
    """Refuse an attack the turn or the effects forbid; whether it uses one of the turn's actions."""
    enc = world_of(state).encounter
    turn = enc.actor if enc is not None else None
    if cmd.override:
        return turn == attacker.id and enc is not None and enc.actions > 0
    if turn is not None and enc is not None:
        _check_turn(state, turn, enc.actions, attacker)
    _check_effects(attacker, target, own_turn=turn == attacker.id)
    return turn == attacker.id


def _check_turn(state: TableState, turn: str, actions: int, attacker: ChanceCharacter) -> None:
    """Refuse an attack out of the attacker's turn (``turn``: whose it is), or with none of
    its ``actions`` left."""
    if attacker.id != turn:
        name = state.characters[turn].name if turn in state.characters else turn
        raise RuleError(
            f"attacker: it is {name}'s turn, not {attacker.name}'s (override for a reaction)"
        )
    if actions <= 0:
        raise RuleError(f"attacker: {attacker.name} has no actions left this turn (next)")


def _check_effects(attacker: ChanceCharacter, target: ChanceCharacter, own_turn: bool) -> None:
    """Refuse an attack that an effect on the attacker or the target rules out."""
    # on its own turn the actions counted at the turn's start decide (a stun landing mid-turn,
    # such as haste's end, holds from the next turn on)
    if not own_turn and not can_act(attacker):
        held = ", ".join(e.name for e in attacker.effects if not EFFECTS[e.name].can_act)
        raise RuleError(f"attacker: {attacker.name} is {held} and cannot act")
    if attacker.has("feared"):
        raise RuleError(f"attacker: {attacker.name} is feared and flees instead of attacking")
    charm = attacker.effect("charmed")
    if charm is not None and charm.source == target.id:
        raise RuleError(f"target: {attacker.name} is charmed by {target.name} and will not attack")
    if target.has("stealthed"):
        raise RuleError(f"target: {target.name} is stealthed; enemies have lost them (override)")


def _confused_target(
    attacker: ChanceCharacter, target: ChanceCharacter, state: TableState, dice: Dice
) -> tuple[ChanceCharacter, int | None]:
    if not attacker.has("confused"):
        return target, None
    enc = world_of(state).encounter
    pool = enc.order if enc is not None else list(state.characters)
    candidates = [c for c in pool if c != attacker.id and c in state.characters]
    if len(candidates) < 2:
        # nobody else to strike by mistake: no roll
        return char_of(state, candidates[0]), None
    face = dice.roll(len(candidates))[0]
    return char_of(state, candidates[face - 1]), face


def _check_reach(attacker: ChanceCharacter, target: ChanceCharacter, wname: str, w: Weapon) -> None:
    if attacker.position and target.position:
        feet = distance(attacker.position, target.position)
        if feet > w.range:
            raise RuleError(
                f"target: {target.name} is {feet} ft away; {wname} reaches {w.range} ft (override)"
            )


def _unaware_percent(cmd: Attack, state: TableState, aware: bool) -> int:
    """How much more an unaware target takes, in percent (0 for an aware one)."""
    if aware:
        if cmd.unaware_percent:
            raise RuleError("unaware_percent: only for an unaware target (aware is false)")
        return 0
    given = cmd.unaware_percent
    unaware = int(state.options.get("unaware_percent", 50)) if given is None else given
    if not rules.UNAWARE_MIN <= unaware <= rules.UNAWARE_MAX:
        raise RuleError(
            f"unaware_percent: {unaware} is out of range ({rules.UNAWARE_MIN}..{rules.UNAWARE_MAX})"
        )
    return unaware


@dataclass(frozen=True)
class _Aim:
    """What differs between an attack's target and those caught in its burst (these), by
    the names of the attack's record."""

    position: str = "front"
    extra_attackers: int = 0
    location: str = "torso"
    vitals: bool = False
    action: bool = False
    intended: str = ""
    confusion_roll: int | None = None
    #: the target whose burst caught this one ("" for the target itself)
    burst_of: str = ""


def decide_attack(cmd: Attack, state: TableState, dice: Dice, history: History) -> list[Draft]:
    attacker = char_of(state, cmd.attacker)
    meant = char_of(state, cmd.target)
    if attacker.id == meant.id:
        raise RuleError("target: a character cannot attack themself")
    if not cmd.override:
        standing(attacker, "attacker", "attack (override)")
    wname, w = weapon(attacker, cmd.weapon)
    action = _check_can_attack(attacker, meant, state, cmd)
    target, confusion_roll = _confused_target(attacker, meant, state, dice)
    if not cmd.override:
        _check_reach(attacker, target, wname, w)
    aware = aware_of(cmd, attacker)
    strike = _Strike(
        state, attacker, wname, w, cmd, aware, _unaware_percent(cmd, state, aware), dice
    )
    aim = _Aim(
        position=cmd.position,
        extra_attackers=cmd.extra_attackers,
        location=cmd.location.strip().lower() or "torso",
        vitals=cmd.vitals,
        action=action,
        intended=meant.id if meant.id != target.id else "",
        confusion_roll=confusion_roll,
    )
    caught = [
        (other, _Aim(burst_of=target.id)) for other in _caught_in_burst(state, attacker, target, w)
    ]
    return _struck(state, strike, [(target, aim), *caught])


def _struck(
    state: TableState, strike: _Strike, aims: list[tuple[ChanceCharacter, _Aim]]
) -> list[Draft]:
    """The records of a strike at each victim aimed at, and the effect its weapon puts on
    each it connects with."""
    w = strike.w
    drafts: list[Draft] = []
    for victim, at in aims:
        event = strike.at(victim, at)
        seq = state.seq + len(drafts) + 1
        # the target's record is the command's first: those caught in its burst answer it
        cause = state.seq + 1 if at.burst_of else None
        drafts.append(Draft(event, cause=cause, visibility=Visibility(hidden=ATTACK_SECRET)))
        if event.connects and w.effect is not None:
            potency = int(w.potency or 0)
            drafts.append(
                effect_draft(
                    state,
                    victim,
                    w.effect,
                    source=strike.attacker.id,
                    potency=potency,
                    reason="attack",
                    cause=seq,
                )
            )
    return drafts


def _caught_in_burst(
    state: TableState, attacker: ChanceCharacter, target: ChanceCharacter, w: Weapon
) -> list[ChanceCharacter]:
    """Everyone else with a place within the weapon's burst of the target, in table order."""
    if not w.burst:
        return []
    return near(state, target.position, w.burst, besides={attacker.id, target.id})


@dataclass(frozen=True)
class _Blow:
    """What a blow that connects does: the crit (or the damage range's roll) and the damage."""

    crit: bool = False
    crit_roll: int | None = None
    range_percent: int | None = None
    damage: int = 0
    absorbed: int = 0
    steps: list[list[str]] = field(default_factory=list)

    def recorded(self) -> dict[str, Any]:
        """The blow as the attack's record keeps it, with the damage a shield let through."""
        return {
            "crit": self.crit,
            "crit_roll": self.crit_roll,
            "range_percent": self.range_percent,
            "steps": self.steps,
            "damage": self.damage,
            "absorbed": self.absorbed,
            "taken": self.damage - self.absorbed,
        }


class _Strike:
    """One attack's fixed parts (attacker, weapon, surprise), struck against each target."""

    def __init__(
        self,
        state: TableState,
        attacker: ChanceCharacter,
        wname: str,
        w: Weapon,
        cmd: Attack,
        aware: bool,
        unaware: int,
        dice: Dice,
    ) -> None:
        self.state, self.attacker, self.wname, self.w = state, attacker, wname, w
        self.cmd, self.aware, self.unaware, self.dice = cmd, aware, unaware, dice

    def at(self, target: ChanceCharacter, aim: _Aim) -> AttackRolled:
        """The two gates and, when the blow connects, the damage pipeline, against ``target``."""
        attacker, w, dice = self.attacker, self.w, self.dice
        g = attack_gates(attacker, w, target, aim.position, aim.extra_attackers, self.aware)
        roll = d100(dice, "the hit")
        hit = roll <= g.hit_chance
        dodge_roll = d100(dice, "the hit lands: the dodge") if hit and g.can_dodge else None
        dodged = dodge_roll is not None and dodge_roll <= g.dodge_chance
        connects = hit and not dodged
        cc = crit_chance(attacker, w, self.state.options)
        blow = self._blow(target, aim, cc) if connects else _Blow()
        return AttackRolled(
            **dataclasses.asdict(aim),
            **blow.recorded(),
            attacker=attacker.id,
            target=target.id,
            weapon=self.wname,
            aware=self.aware,
            accuracy=accuracy(attacker, w),
            evasion=g.evasion,
            hit_chance=g.hit_chance,
            roll=roll,
            hit=hit,
            dodge_chance=g.dodge_chance,
            dodge_roll=dodge_roll,
            dodged=dodged,
            connects=connects,
            crit_chance=cc,
            element=w.element,
            unaware_percent=self.unaware,
            override=self.cmd.override,
            source=dice.source,
        )

    def _blow(self, target: ChanceCharacter, aim: _Aim, crit_chance: int) -> _Blow:
        """A blow that connects: an unaware target is always struck critically, an aware one
        on the crit roll; otherwise the profile's damage range is rolled."""
        attacker, w, dice, options = self.attacker, self.w, self.dice, self.state.options
        crit_roll = range_percent = None
        crit = not self.aware
        if self.aware and crit_chance > 0:
            crit_roll = d100(dice, "the blow connects: the critical")
            crit = crit_roll <= crit_chance
        if not crit:
            lo, hi = rules.PROFILES[w.profile]
            range_percent = lo - 1 + roll_for(dice, "the damage", hi - lo + 1)[0]
        vitals = Fraction(int(options.get("vitals_percent", 150)), 100) if aim.vitals else 1
        result = rules.damage_pipeline(
            base=w.base,
            scaling=rules.scaling_of(stats(attacker), w.type, w.stats),
            profile=w.profile,
            range_percent=range_percent,
            crit=crit,
            crit_multiplier=crit_multiplier(attacker, w, options),
            vitals=vitals,
            position=aim.position,
            unaware_percent=self.unaware,
            armor=sheet_of(target).armor.get(aim.location, 0),
            resistance_percent=sheet_of(target).resistances.get(w.element, 0),
            pierce=w.pierce,
        )
        shield = target.effect("shield")
        absorbed = min(shield.pool, result.damage) if shield is not None else 0
        steps = [list(step) for step in result.steps]
        return _Blow(crit, crit_roll, range_percent, result.damage, absorbed, steps)


#: the commands this module decides
DECIDERS: Deciders = {
    Attack: decide_attack,
}
