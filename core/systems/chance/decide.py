"""d100-chance commands decided against the table's state into events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from margin.events import Draft, Visibility
from margin.events.systems.chance import (
    ATTACK_SECRET,
    CHECK_SECRET,
    EFFECT_SECRET,
    OPPOSED_SECRET,
    AttackRolled,
    CheckRolled,
    EffectApplied,
    EffectRemoved,
    EffectTicked,
    EncounterEnded,
    EncounterJoined,
    EncounterStarted,
    HealthChanged,
    Moved,
    OpposedRolled,
    SideSwitched,
    Traveled,
    TurnStarted,
)

from ...dice import Dice
from ...errors import RuleError
from ...history import History
from ...state import TableState, find_character
from ...targets import find_characters
from ..base import Command, by_command
from . import rules
from .commands import (
    ApplyEffect,
    Attack,
    Bandage,
    ChangeHp,
    Check,
    ClearEffect,
    EndEncounter,
    Flee,
    Join,
    Move,
    NextTurn,
    Opposed,
    StartEncounter,
    SwitchSide,
    Travel,
)
from .state import (
    EFFECTS,
    SHIELD_PERCENT,
    ChanceCharacter,
    ChanceWorld,
    Weapon,
    accuracy,
    actions_per_turn,
    can_act,
    can_dodge,
    crit_chance,
    crit_multiplier,
    evasion,
    sheet_of,
    side_of,
    speed,
    stats,
    weapon,
)

#: What a band means at the table, read to the player.
NARRATION = {
    "clean-success": "clean: extra detail, quicker work or something useful on the side",
    "success": "it works",
    "recoverable-failure": "not yet: time lost, materials half spent, or the trail gone cold",
    "setback": "a setback: an alarm, materials spent, or someone grows suspicious",
}
AUTOMATIC_NARRATION = "done without a roll: well within the character's skill"

#: Travel domains: distance units, and the speed unit where the domain has one.
DOMAINS: dict[str, tuple[tuple[str, ...], str]] = {
    "land": (("mi", "km"), ""),
    "sea": (("nmi",), "knots"),
    "air": (("nmi",), "knots"),
    "underwater": (("m",), ""),
    "space": (("km", "au", "light-minutes", "ly", "pc"), ""),
    "station": (("m", "decks"), ""),
}


def _char(state: TableState, ref: str) -> ChanceCharacter:
    char = find_character(state, ref)
    assert isinstance(char, ChanceCharacter)
    return char


def _world(state: TableState) -> ChanceWorld:
    world = state.world
    assert isinstance(world, ChanceWorld)
    return world


def _d100(dice: Dice) -> int:
    return dice.roll(100)[0]


def proficiency_of(char: ChanceCharacter, skill: str, given: int | None, field: str) -> int:
    """The proficiency a check uses: the one given (an untrained try), else the sheet's."""
    if given is not None:
        return given
    skills = sheet_of(char).skills
    if skill not in skills:
        known = ", ".join(skills) or "none"
        raise RuleError(
            f"{field}: {char.name} has no skill {skill!r} (skills: {known}; "
            "give proficiency for an untrained try)"
        )
    return skills[skill]


def _difficulty(value: int | str, field: str = "difficulty") -> int:
    return rules.difficulty_value(value, field)


#: farthest a place on the field may be from 0 along x or y, in feet
MAX_FEET = 1_000_000
#: longest leg of a journey, in its unit
MAX_DISTANCE = 1_000_000_000_000


def _standing(char: ChanceCharacter, field: str, what: str) -> None:
    """Refuse an act of a character at 0 HP (down)."""
    if char.hp <= 0:
        raise RuleError(f"{field}: {char.name} is down (0 HP) and cannot {what}")


def _secret(cmd_secret: bool | None, state: TableState) -> bool:
    return bool(state.options.get("secret_checks", True)) if cmd_secret is None else cmd_secret


# -- skill checks -----------------------------------------------------------------


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
    char = _char(state, cmd.character)
    skill = cmd.skill.strip().lower()
    if not skill:
        raise RuleError("skill: name the skill checked")
    proficiency = proficiency_of(char, skill, cmd.proficiency, "skill")
    difficulty = _difficulty(cmd.difficulty)
    total, counted = rules.modifier_total(cmd.modifiers)
    odds = rules.check_odds(proficiency, difficulty, total)
    return CheckPlan(char, skill, proficiency, difficulty, total, counted, odds)


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


def decide_check(cmd: Check, state: TableState, dice: Dice, history: History) -> list[Draft]:
    _standing(_char(state, cmd.character), "character", "make a check")
    plan = plan_check(cmd, state)
    char, odds, counted = plan.character, plan.odds, plan.modifiers
    task = cmd.task.strip().lower() or plan.skill
    approach = cmd.approach.strip()
    retry = ""
    failed = _world(state).failed.get(char.id, {}).get(task)
    if failed is not None:
        same = sorted(failed.modifiers) == sorted(counted) and failed.approach == approach
        if same and not cmd.override:
            raise RuleError(
                f"retry: {char.name} failed {task!r} at record {failed.seq} the same way; "
                "change a modifier or the approach, or set override (the GM's ruling)"
            )
        retry = "override" if same else "changed"
    roll = margin = None
    if odds.automatic:
        success, band = True, rules.AUTOMATIC_BAND
        narration = cmd.narration or AUTOMATIC_NARRATION
    else:
        roll = _d100(dice)
        margin = odds.chance - roll
        success, band = margin >= 0, rules.band_of(margin)
        narration = cmd.narration or NARRATION[band]
    secret = _secret(cmd.secret, state)
    event = CheckRolled(
        **plan.recorded(),
        task=task,
        roll=roll,
        margin=margin,
        success=success,
        band=band,
        narration=narration,
        secret=secret,
        approach=approach,
        retry=retry,
        source=dice.source,
    )
    return [Draft(event, visibility=Visibility(hidden=CHECK_SECRET if secret else ()))]


def decide_opposed(cmd: Opposed, state: TableState, dice: Dice, history: History) -> list[Draft]:
    a = _char(state, cmd.actor)
    b = _char(state, cmd.defender)
    if a.id == b.id:
        raise RuleError("defender: a character cannot oppose themself")
    _standing(a, "actor", "make a check")
    _standing(b, "defender", "make a check")
    a_skill = cmd.skill.strip().lower()
    b_skill = cmd.defender_skill.strip().lower() or a_skill
    a_prof = proficiency_of(a, a_skill, None, "skill")
    b_prof = proficiency_of(b, b_skill, None, "defender_skill")
    a_given, b_given = cmd.actor_difficulty, cmd.defender_difficulty
    a_diff = _difficulty(max(1, b_prof) if a_given is None else a_given, "actor_difficulty")
    b_diff = _difficulty(max(1, a_prof) if b_given is None else b_given, "defender_difficulty")
    a_total, a_mods = rules.modifier_total(cmd.actor_modifiers, "actor_modifiers")
    b_total, b_mods = rules.modifier_total(cmd.defender_modifiers, "defender_modifiers")
    a_chance = rules.check_odds(a_prof, a_diff, a_total).chance
    b_chance = rules.check_odds(b_prof, b_diff, b_total).chance
    a_roll, b_roll = _d100(dice), _d100(dice)
    a_margin, b_margin = a_chance - a_roll, b_chance - b_roll
    winner = rules.opposed_winner(a_margin, b_margin)
    secret = _secret(cmd.secret, state)
    event = OpposedRolled(
        actor=a.id,
        defender=b.id,
        actor_skill=a_skill,
        defender_skill=b_skill,
        actor_difficulty=a_diff,
        defender_difficulty=b_diff,
        actor_chance=a_chance,
        defender_chance=b_chance,
        actor_roll=a_roll,
        defender_roll=b_roll,
        actor_margin=a_margin,
        defender_margin=b_margin,
        actor_band=rules.band_of(a_margin),
        defender_band=rules.band_of(b_margin),
        winner=a.id if winner == "a" else b.id,
        actor_modifiers=a_mods,
        defender_modifiers=b_mods,
        secret=secret,
        source=dice.source,
        actor_difficulty_band=rules.difficulty_band(a_diff),
        defender_difficulty_band=rules.difficulty_band(b_diff),
    )
    return [Draft(event, visibility=Visibility(hidden=OPPOSED_SECRET if secret else ()))]


# -- positions --------------------------------------------------------------------


def distance(a: list[int], b: list[int]) -> int:
    """Feet between two places: the larger offset (a diagonal step counts like a straight one)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _place(value: Any, field: str) -> list[int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise RuleError(f"{field}: expected [x, y] in whole feet, got {value!r}")
    if not all(-MAX_FEET <= v <= MAX_FEET for v in value):
        raise RuleError(f"{field}: {value!r} is off the field (each of x, y in ±{MAX_FEET} ft)")
    return list(value)


# -- attacks ----------------------------------------------------------------------


def _check_can_attack(
    attacker: ChanceCharacter, target: ChanceCharacter, state: TableState, cmd: Attack
) -> bool:
    """Refuse an attack the turn or the effects forbid; whether it uses one of the turn's actions."""
    enc = _world(state).encounter
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
    enc = _world(state).encounter
    pool = enc.order if enc is not None else list(state.characters)
    candidates = [c for c in pool if c != attacker.id and c in state.characters]
    face = dice.roll(len(candidates))[0] if len(candidates) > 1 else 1
    return _char(state, candidates[face - 1]), face if len(candidates) > 1 else None


def decide_attack(cmd: Attack, state: TableState, dice: Dice, history: History) -> list[Draft]:
    attacker = _char(state, cmd.attacker)
    meant = _char(state, cmd.target)
    if attacker.id == meant.id:
        raise RuleError("target: a character cannot attack themself")
    if not cmd.override:
        _standing(attacker, "attacker", "attack (override)")
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
        roll = _d100(dice)
        hit = roll <= g.hit_chance
        dodge_roll = None
        dodged = False
        if hit and g.can_dodge:
            dodge_roll = _d100(dice)
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
                crit_roll = _d100(dice)
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


# -- status effects ---------------------------------------------------------------


def effect_draft(
    state: TableState,
    target: ChanceCharacter,
    name: str,
    potency: int,
    resistance: int | None,
    source: str,
    stat_name: str,
    reason: str,
    cause: int | None = None,
    turns: int | None = None,
) -> Draft:
    """The contest of one effect on ``target``; ``turns`` forces a landing (spread, haste's end)."""
    kind = EFFECTS[name]
    if turns is not None:
        land = rules.Landing(True, 0, turns, 1)
        resistance = 0
    else:
        if resistance is None:
            resistance = sheet_of(target).status_resistance if kind.harmful else 0
        land = rules.landing(
            potency,
            resistance,
            int(state.options.get("duration_step", 10)),
            int(state.options.get("intensity_step", 20)),
        )
    event_turns = 0 if kind.until_removed else land.turns
    becomes = name
    total_stacks = total_turns = pool = 0
    if land.landed:
        existing = target.effect(name)
        total_stacks = land.stacks + (existing.stacks if existing else 0)
        total_turns = (
            0 if kind.until_removed else max(land.turns, existing.turns if existing else 0)
        )
        if kind.escalates_to and total_stacks >= int(state.options.get("escalate_at", 3)):
            becomes = kind.escalates_to
            worse = target.effect(becomes)
            total_stacks = 1 + (worse.stacks if worse else 0)
            total_turns = max(land.turns, worse.turns if worse else 0)
        if name == "shield":
            pool = rules.percent_of(SHIELD_PERCENT, target.max_hp, land.stacks) + (
                existing.pool if existing else 0
            )
    event = EffectApplied(
        target=target.id,
        effect=name,
        potency=potency,
        resistance=resistance,
        gap=land.gap,
        landed=land.landed,
        source=source,
        turns=event_turns,
        stacks=land.stacks,
        becomes=becomes if land.landed else "",
        total_stacks=total_stacks,
        total_turns=total_turns,
        stat=(stat_name or "dex") if name == "poisoned" else "",
        pool=pool,
        reason=reason,
    )
    return Draft(event, cause=cause, visibility=Visibility(hidden=EFFECT_SECRET))


def decide_effect(cmd: ApplyEffect, state: TableState, dice: Dice, history: History) -> list[Draft]:
    target = _char(state, cmd.target)
    name = cmd.effect.strip().lower()
    if name not in EFFECTS:
        raise RuleError(f"effect: {cmd.effect!r} is not one of {', '.join(EFFECTS)}")
    source = "gm" if cmd.source.lower() == "gm" else _char(state, cmd.source).id
    stat_name = cmd.stat.strip().lower()
    if stat_name and name != "poisoned":
        raise RuleError("stat: only a poison lowers a stat")
    stats = sheet_of(target).stats
    if stat_name and stats and stat_name not in stats:
        raise RuleError(f"stat: {target.name} has no stat {cmd.stat!r} (stats: {', '.join(stats)})")
    return [effect_draft(state, target, name, cmd.potency, cmd.resistance, source, stat_name, "")]


def decide_bandage(cmd: Bandage, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = _char(state, cmd.character)
    if not char.has("bleeding"):
        raise RuleError(f"character: {char.name} is not bleeding")
    event = EffectRemoved(character=char.id, effect="bleeding", reason="bandaged")
    return [Draft(event)]


def decide_clear(cmd: ClearEffect, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = _char(state, cmd.character)
    name = cmd.effect.strip().lower()
    if not char.has(name):
        held = ", ".join(e.name for e in char.effects) or "none"
        raise RuleError(f"effect: {char.name} has no {name!r} (effects: {held})")
    reason = cmd.reason.strip() or "cleared by the GM"
    removed = EffectRemoved(character=char.id, effect=name, reason=reason)
    drafts = [Draft(removed)]
    if name == "charmed":
        drafts += _side_back(state, char, cause=state.seq + 1)
    return drafts


# -- a friend turned enemy ---------------------------------------------------------


def decide_switch_side(
    cmd: SwitchSide, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    char = _char(state, cmd.character)
    charm = char.effect("charmed")
    if charm is None:
        raise RuleError(
            f"character: {char.name} is not charmed; only a charm turns a friend into an enemy"
        )
    if cmd.side is None:
        charmer = state.characters.get(charm.source)
        if charmer is not None and charmer.hidden:
            # the side is shown to players with the charm; a hidden charmer's is its secret
            raise RuleError(
                f"side: name the side {char.name} now fights for (whoever charmed it is hidden "
                "from the players)"
            )
        side = side_of(charmer) if isinstance(charmer, ChanceCharacter) else ""
        if not side:
            raise RuleError(
                f"side: name the side {char.name} now fights for (whoever charmed it has no side)"
            )
    else:
        side = cmd.side.strip()
        if not side:
            raise RuleError("side: name the side the charmed character now fights for")
    if side == side_of(char):
        raise RuleError(f"side: {char.name} already fights for {side!r}")
    event = SideSwitched(character=char.id, side=side, before=side_of(char), reason="charmed")
    return [Draft(event, cause=charm.applied or None)]


def _side_back(state: TableState, char: ChanceCharacter, cause: int) -> list[Draft]:
    """A charm ended: a character it turned goes back to its own side."""
    if char.side is None:
        return []
    own = sheet_of(char).side
    event = SideSwitched(character=char.id, side=own, before=char.side, reason="charm-ended")
    return [Draft(event, cause=cause)]


# -- the encounter clock -----------------------------------------------------------


def decide_start(
    cmd: StartEncounter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    if _world(state).encounter is not None:
        raise RuleError("encounter: a fight is already running (end-encounter first)")
    if not cmd.order:
        raise RuleError("order: name the characters in turn order")
    order = [c.id for ref in cmd.order for c in find_characters(state, ref)]
    doubled = sorted({c for c in order if order.count(c) > 1})
    if doubled:
        raise RuleError(f"order: {doubled[0]!r} is listed twice")
    positions = {
        _char(state, ref).id: _place(value, f"positions.{ref}")
        for ref, value in cmd.positions.items()
    }
    hidden = [c for c in order if state.characters[c].hidden]
    # with hidden fighters in it, players learn only that a fight began
    event = EncounterStarted(order=order, positions=positions, hidden=hidden)
    return [Draft(event)]


def decide_join(cmd: Join, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = _world(state).encounter
    if enc is None:
        raise RuleError("join: no fight is running (start one with encounter)")
    if cmd.after is None:
        index = len(enc.order)
    else:
        after = _char(state, cmd.after)
        if after.id not in enc.order:
            raise RuleError(f"after: {after.name} is not in the fight")
        index = enc.order.index(after.id) + 1
    position = None if cmd.position is None else _place(cmd.position, "position")
    drafts = []
    for n, char in enumerate(find_characters(state, cmd.character)):
        if char.id in enc.order:
            raise RuleError(f"join: {char.name} is already in the fight")
        event = EncounterJoined(
            character=char.id, index=index + n, position=position, hidden=char.hidden
        )
        drafts.append(Draft(event))
    return drafts


def decide_next(cmd: NextTurn, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = _world(state).encounter
    if enc is None:
        raise RuleError("next: no fight is running (start one with encounter)")
    fleeing = state.characters.get(enc.actor or "")
    if enc.flee_from and isinstance(fleeing, ChanceCharacter) and fleeing.hp > 0:
        raise RuleError(
            f"next: {fleeing.name} is feared and must flee first (flee {fleeing.id}, or "
            f"flee {fleeing.id} X Y to another place)"
        )
    index, rnd = _next_actor(state, enc.order, enc.current, enc.round)
    actor = _char(state, enc.order[index])
    seq = state.seq + 1
    hp = actor.hp
    ticks: list[Draft] = []
    for effect in list(actor.effects):
        ticked = _tick(state, actor, effect, hp, seq, len(ticks) + 1)
        tick = ticked[0].event
        assert isinstance(tick, EffectTicked)
        hp = max(0, hp + tick.hp)
        ticks.extend(ticked)
    flee_from, flee_to = _flight(state, actor, hp, ticks)
    turn = TurnStarted(
        actor=actor.id,
        index=index,
        round=rnd,
        actions=actions_per_turn(actor),
        flee_from=flee_from,
        flee_to=flee_to,
    )
    return [Draft(turn), *ticks]


def _flight(
    state: TableState, actor: ChanceCharacter, hp: int, ticks: list[Draft]
) -> tuple[str, list[int] | None]:
    """Whether a feared actor must flee this turn: (from whom, the place proposed). A fear
    that ends as the turn starts, a character down, without a place, or unable to move
    (rooted, frozen, stunned) flees nowhere."""
    fear = actor.effect("feared")
    ended = any(
        isinstance(d.event, EffectTicked) and d.event.effect == "feared" and d.event.ended
        for d in ticks
    )
    if fear is None or ended or hp <= 0 or actor.position is None or speed(actor) == 0:
        return "", None
    source = state.characters.get(fear.source)
    if not isinstance(source, ChanceCharacter) or source.position is None:
        return fear.source or "gm", None
    return source.id, away(actor.position, source.position, speed(actor))


def away(start: list[int], source: list[int], feet: int) -> list[int]:
    """The place ``feet`` straight away from ``source`` (along x when both stand on one spot)."""
    dx = (start[0] > source[0]) - (start[0] < source[0])
    dy = (start[1] > source[1]) - (start[1] < source[1])
    if dx == dy == 0:
        dx = 1
    return [
        max(-MAX_FEET, min(MAX_FEET, start[0] + dx * feet)),
        max(-MAX_FEET, min(MAX_FEET, start[1] + dy * feet)),
    ]


def decide_flee(cmd: Flee, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = _char(state, cmd.character)
    enc = _world(state).encounter
    if enc is None or enc.actor != char.id or not enc.flee_from:
        raise RuleError(
            f"flee: {char.name} has no forced move due (a feared character flees at the "
            "start of its turn)"
        )
    if cmd.to is not None:
        to = _place(cmd.to, "to")
    elif enc.flee_to is not None:
        to = list(enc.flee_to)
    else:
        raise RuleError(
            f"to: give the place {char.name} flees to ([x, y] feet): whoever frightened it "
            "has no place on the field"
        )
    start = char.position
    feet = distance(start, to) if start is not None else 0
    if start is not None and not cmd.override:
        limit = speed(char) - enc.moved
        if feet > limit:
            raise RuleError(f"to: {feet} ft is more than the {limit} ft {char.name} can run")
        _check_flight(state, char, start, to)
    event = Moved(
        character=char.id, to=to, feet=feet, start=start, override=cmd.override, fled=True
    )
    return [Draft(event)]


def _next_actor(state: TableState, order: list[str], current: int, rnd: int) -> tuple[int, int]:
    """The next participant still at the table and standing (HP above 0)."""
    up = [i for i, c in enumerate(order) if c in state.characters and _char(state, c).hp > 0] or [
        i for i, c in enumerate(order) if c in state.characters
    ]
    if not up:
        raise RuleError("next: nobody in the fight is still at the table")
    later = [i for i in up if i > current]
    if later and current >= 0:
        return later[0], rnd
    return up[0], rnd + 1


def _tick(
    state: TableState, char: ChanceCharacter, effect: Any, now: int, turn_seq: int, offset: int
) -> list[Draft]:
    """One effect's start-of-turn (``now``: HP after the ticks before it): its HP change,
    its clock, and what follows from it. The tick is the first draft."""
    kind = EFFECTS[effect.name]
    hp = 0
    if kind.tick:
        amount = rules.percent_of(kind.tick, char.max_hp, effect.stacks)
        # HP stays within 0..max: the record keeps what was really lost or healed
        hp = min(amount, max(0, char.max_hp - now)) if not kind.harmful else -min(amount, now)
    left = 0 if kind.until_removed else effect.turns - 1
    ended = not kind.until_removed and left <= 0
    tick = EffectTicked(
        character=char.id,
        effect=effect.name,
        stacks=effect.stacks,
        hp=hp,
        turns_left=max(0, left),
        ended=ended,
    )
    tick_seq = turn_seq + offset
    drafts = [Draft(tick, cause=effect.applied or None)]
    if effect.name == "burning" and effect.stacks >= int(state.options.get("spread_stacks", 3)):
        reach = int(state.options.get("spread_feet", 5))
        for other in state.characters.values():
            assert isinstance(other, ChanceCharacter)
            if (
                other.id != char.id
                and char.position is not None
                and other.position is not None
                and distance(char.position, other.position) <= reach
                and not other.has("burning")
                and other.hp > 0
            ):
                drafts.append(
                    effect_draft(
                        state,
                        other,
                        "burning",
                        0,
                        None,
                        char.id,
                        "",
                        "spread",
                        cause=tick_seq,
                        turns=max(1, left),
                    )
                )
    if effect.name == "charmed" and ended:
        drafts += _side_back(state, char, cause=tick_seq)
    if effect.name == "haste" and ended:
        drafts.append(
            effect_draft(
                state, char, "stunned", 0, None, char.id, "", "haste", cause=tick_seq, turns=1
            )
        )
    return drafts


def decide_end(cmd: EndEncounter, state: TableState, dice: Dice, history: History) -> list[Draft]:
    enc = _world(state).encounter
    if enc is None:
        raise RuleError("end-encounter: no fight is running")
    return [Draft(EncounterEnded(rounds=enc.round))]


def decide_move(cmd: Move, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = _char(state, cmd.character)
    to = _place(cmd.to, "to")
    start = char.position
    feet = distance(start, to) if start is not None else 0
    enc = _world(state).encounter
    if not cmd.override:
        _standing(char, "character", "move (override)")
    if enc is not None and enc.flee_from and enc.actor == char.id and not cmd.override:
        raise RuleError(f"to: {char.name} is feared and must flee first (flee {char.id})")
    if start is not None and enc is not None and not cmd.override:
        limit = speed(char)
        if limit == 0 and feet:
            held = ", ".join(e.name for e in char.effects if EFFECTS[e.name].move_divisor == 0)
            raise RuleError(f"to: {char.name} cannot move ({held}; override)")
        used = enc.moved if enc.actor == char.id else 0
        if feet + used > limit:
            left = f" ({limit - used} ft left)" if used else ""
            raise RuleError(f"to: {feet} ft is more than {char.name}'s {limit} ft this turn{left}")
        _check_flight(state, char, start, to)
    event = Moved(character=char.id, to=to, feet=feet, start=start, override=cmd.override)
    return [Draft(event)]


def _check_flight(
    state: TableState, char: ChanceCharacter, start: list[int], to: list[int]
) -> None:
    """A feared character's every move takes it farther from whoever frightened it."""
    fear = char.effect("feared")
    source = state.characters.get(fear.source) if fear is not None else None
    if not isinstance(source, ChanceCharacter) or source.position is None:
        return
    if distance(to, source.position) <= distance(start, source.position):
        raise RuleError(
            f"to: {char.name} is feared and must move away from {source.name} (override)"
        )


def decide_hp(cmd: ChangeHp, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = _char(state, cmd.character)
    if cmd.amount == 0:
        raise RuleError("amount: 0 changes nothing (negative for damage, positive for healing)")
    absorbed = 0
    amount = cmd.amount
    if amount < 0:
        shield = char.effect("shield")
        absorbed = min(shield.pool, -amount) if shield is not None else 0
    else:
        amount = min(amount, char.max_hp - char.hp)
        if amount <= 0:
            raise RuleError(f"amount: {char.name} is already at full HP ({char.max_hp})")
    event = HealthChanged(character=char.id, amount=amount, absorbed=absorbed, reason=cmd.reason)
    return [Draft(event)]


def decide_travel(cmd: Travel, state: TableState, dice: Dice, history: History) -> list[Draft]:
    domain = cmd.domain.strip().lower()
    if domain not in DOMAINS:
        raise RuleError(f"domain: {cmd.domain!r} is not one of {', '.join(DOMAINS)}")
    units, speed_unit = DOMAINS[domain]
    unit = cmd.unit.strip().lower()
    if unit not in units:
        raise RuleError(
            f"unit: {domain} travel is measured in {', '.join(units)}, not {cmd.unit!r}"
        )
    if cmd.distance <= 0:
        raise RuleError(f"distance: {cmd.distance} must be above 0")
    if cmd.distance > MAX_DISTANCE:
        raise RuleError(f"distance: {cmd.distance:g} is more than {MAX_DISTANCE:g} {unit}")
    if cmd.speed is not None and (not speed_unit or cmd.speed <= 0):
        raise RuleError(
            "speed: only sea and air legs take a speed, in knots above 0"
            if not speed_unit
            else f"speed: {cmd.speed} must be above 0"
        )
    if cmd.speed is not None and cmd.speed > MAX_DISTANCE:
        raise RuleError(f"speed: {cmd.speed:g} is more than {MAX_DISTANCE:g} knots")
    event = Traveled(
        domain=domain, distance=cmd.distance, unit=unit, speed=cmd.speed, note=cmd.note
    )
    return [Draft(event)]


_DECIDE: dict[type[Command], Callable[..., list[Draft]]] = {
    Check: decide_check,
    Opposed: decide_opposed,
    Attack: decide_attack,
    ApplyEffect: decide_effect,
    Bandage: decide_bandage,
    ClearEffect: decide_clear,
    StartEncounter: decide_start,
    Join: decide_join,
    NextTurn: decide_next,
    EndEncounter: decide_end,
    Move: decide_move,
    Flee: decide_flee,
    SwitchSide: decide_switch_side,
    ChangeHp: decide_hp,
    Travel: decide_travel,
}

decide = by_command(_DECIDE)
