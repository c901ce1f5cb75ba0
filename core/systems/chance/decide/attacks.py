"""d100-chance attacks: the gates to hit and to dodge, then the damage pipeline."""

from __future__ import annotations

from fractions import Fraction

from margin.events import Draft, Visibility
from margin.events.systems.chance import ATTACK_SECRET, AttackRolled

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
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
from .common import char_of, d100, distance, standing, world_of
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
        if attacker.id != turn:
            name = state.characters[turn].name if turn in state.characters else turn
            raise RuleError(
                f"attacker: it is {name}'s turn, not {attacker.name}'s (override for a reaction)"
            )
        if enc.actions <= 0:
            raise RuleError(f"attacker: {attacker.name} has no actions left this turn (next)")
    # on its own turn the actions counted at the turn's start decide (a stun landing mid-turn,
    # such as haste's end, holds from the next turn on)
    if turn != attacker.id and not can_act(attacker):
        held = ", ".join(e.name for e in attacker.effects if not EFFECTS[e.name].can_act)
        raise RuleError(f"attacker: {attacker.name} is {held} and cannot act")
    if attacker.has("feared"):
        raise RuleError(f"attacker: {attacker.name} is feared and flees instead of attacking")
    charm = attacker.effect("charmed")
    if charm is not None and charm.source == target.id:
        raise RuleError(f"target: {attacker.name} is charmed by {target.name} and will not attack")
    if target.has("stealthed"):
        raise RuleError(f"target: {target.name} is stealthed; enemies have lost them (override)")
    return turn == attacker.id


def _confused_target(
    attacker: ChanceCharacter, target: ChanceCharacter, state: TableState, dice: Dice
) -> tuple[ChanceCharacter, int | None]:
    if not attacker.has("confused"):
        return target, None
    enc = world_of(state).encounter
    pool = enc.order if enc is not None else list(state.characters)
    candidates = [c for c in pool if c != attacker.id and c in state.characters]
    face = dice.roll(len(candidates))[0] if len(candidates) > 1 else 1
    return char_of(state, candidates[face - 1]), face if len(candidates) > 1 else None


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
    if attacker.position and target.position and not cmd.override:
        feet = distance(attacker.position, target.position)
        if feet > w.range:
            raise RuleError(
                f"target: {target.name} is {feet} ft away; {wname} reaches {w.range} ft (override)"
            )
    aware = aware_of(cmd, attacker)
    if aware:
        if cmd.unaware_percent:
            raise RuleError("unaware_percent: only for an unaware target (aware is false)")
        unaware = 0
    else:
        unaware = (
            int(state.options.get("unaware_percent", 50))
            if cmd.unaware_percent is None
            else cmd.unaware_percent
        )
        if not rules.UNAWARE_MIN <= unaware <= rules.UNAWARE_MAX:
            raise RuleError(
                f"unaware_percent: {unaware} is out of range ({rules.UNAWARE_MIN}..{rules.UNAWARE_MAX})"
            )
    location = cmd.location.strip().lower() or "torso"
    strike = _Strike(state, attacker, wname, w, cmd, aware, unaware, dice)
    drafts: list[Draft] = []
    struck = [target, *_caught_in_burst(state, attacker, target, w)]
    for n, victim in enumerate(struck):
        primary = n == 0
        event = strike.at(
            victim,
            position=cmd.position if primary else "front",
            extra=cmd.extra_attackers if primary else 0,
            location=location if primary else "torso",
            vitals=cmd.vitals and primary,
            action=action and primary,
            intended=meant.id if primary and meant.id != target.id else "",
            confusion_roll=confusion_roll if primary else None,
            burst_of="" if primary else target.id,
        )
        seq = state.seq + len(drafts) + 1
        cause = None if primary else state.seq + 1
        drafts.append(Draft(event, cause=cause, visibility=Visibility(hidden=ATTACK_SECRET)))
        if event.connects and w.effect is not None:
            drafts.append(
                effect_draft(
                    state,
                    victim,
                    w.effect,
                    int(w.potency or 0),
                    None,
                    attacker.id,
                    "",
                    "attack",
                    cause=seq,
                )
            )
    return drafts


def _caught_in_burst(
    state: TableState, attacker: ChanceCharacter, target: ChanceCharacter, w: Weapon
) -> list[ChanceCharacter]:
    """Everyone else with a place within the weapon's burst of the target, in table order."""
    burst = w.burst
    if not burst or target.position is None:
        return []
    out = []
    for other in state.characters.values():
        assert isinstance(other, ChanceCharacter)
        if (
            other.id not in (attacker.id, target.id)
            and other.position is not None
            and distance(other.position, target.position) <= burst
        ):
            out.append(other)
    return out


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

    def at(
        self,
        target: ChanceCharacter,
        position: str,
        extra: int,
        location: str,
        vitals: bool,
        action: bool,
        intended: str,
        confusion_roll: int | None,
        burst_of: str,
    ) -> AttackRolled:
        """The two gates and, when the blow connects, the damage pipeline, against ``target``."""
        attacker, w, aware, dice = self.attacker, self.w, self.aware, self.dice
        g = attack_gates(attacker, w, target, position, extra, aware)
        roll = d100(dice)
        hit = roll <= g.hit_chance
        dodge_roll = None
        dodged = False
        if hit and g.can_dodge:
            dodge_roll = d100(dice)
            dodged = dodge_roll <= g.dodge_chance
        connects = hit and not dodged
        cc = crit_chance(attacker, w, self.state.options)
        crit_roll = range_percent = None
        crit = False
        steps: list[list[str]] = []
        damage = absorbed = 0
        if connects:
            if not aware:
                crit = True
            elif cc > 0:
                crit_roll = d100(dice)
                crit = crit_roll <= cc
            if not crit:
                lo, hi = rules.PROFILES[w.profile]
                range_percent = lo - 1 + dice.roll(hi - lo + 1)[0]
            options = self.state.options
            multiplier = Fraction(int(options.get("vitals_percent", 150)), 100) if vitals else 1
            result = rules.damage_pipeline(
                base=w.base,
                scaling=rules.scaling_of(stats(attacker), w.type, w.stats),
                profile=w.profile,
                range_percent=range_percent,
                crit=crit,
                crit_multiplier=crit_multiplier(attacker, w, self.state.options),
                vitals=multiplier,
                position=position,
                unaware_percent=self.unaware,
                armor=sheet_of(target).armor.get(location, 0),
                resistance_percent=sheet_of(target).resistances.get(w.element, 0),
                pierce=w.pierce,
            )
            damage = result.damage
            steps = [list(s) for s in result.steps]
            shield = target.effect("shield")
            absorbed = min(shield.pool, damage) if shield is not None else 0
        return AttackRolled(
            attacker=attacker.id,
            target=target.id,
            weapon=self.wname,
            position=position,
            extra_attackers=extra,
            aware=aware,
            intended=intended,
            confusion_roll=confusion_roll,
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
            crit_roll=crit_roll,
            crit=crit,
            range_percent=range_percent,
            location=location,
            vitals=vitals,
            element=w.element,
            unaware_percent=self.unaware,
            steps=steps,
            damage=damage,
            absorbed=absorbed,
            taken=damage - absorbed,
            action=action,
            override=self.cmd.override,
            burst_of=burst_of,
            source=dice.source,
        )
