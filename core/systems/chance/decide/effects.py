"""d100-chance status effects, sides turned by a charm, and HP changed outside an attack."""

from __future__ import annotations

from margin.events import Draft, Visibility
from margin.events.systems.chance import (
    EFFECT_SECRET,
    EffectApplied,
    EffectRemoved,
    HealthChanged,
    SideSwitched,
)

from ....dice import Dice
from ....errors import RuleError
from ....history import History
from ....state import TableState
from .. import rules
from ..commands import ApplyEffect, Bandage, ChangeHp, ClearEffect, SwitchSide
from ..state import EFFECTS, SHIELD_PERCENT, ChanceCharacter, sheet_of, side_of
from .common import char_of


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
    target = char_of(state, cmd.target)
    name = cmd.effect.strip().lower()
    if name not in EFFECTS:
        raise RuleError(f"effect: {cmd.effect!r} is not one of {', '.join(EFFECTS)}")
    source = "gm" if cmd.source.lower() == "gm" else char_of(state, cmd.source).id
    stat_name = cmd.stat.strip().lower()
    if stat_name and name != "poisoned":
        raise RuleError("stat: only a poison lowers a stat")
    stats = sheet_of(target).stats
    if stat_name and stats and stat_name not in stats:
        raise RuleError(f"stat: {target.name} has no stat {cmd.stat!r} (stats: {', '.join(stats)})")
    return [effect_draft(state, target, name, cmd.potency, cmd.resistance, source, stat_name, "")]


def decide_bandage(cmd: Bandage, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = char_of(state, cmd.character)
    if not char.has("bleeding"):
        raise RuleError(f"character: {char.name} is not bleeding")
    event = EffectRemoved(character=char.id, effect="bleeding", reason="bandaged")
    return [Draft(event)]


def decide_clear(cmd: ClearEffect, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = char_of(state, cmd.character)
    name = cmd.effect.strip().lower()
    if not char.has(name):
        held = ", ".join(e.name for e in char.effects) or "none"
        raise RuleError(f"effect: {char.name} has no {name!r} (effects: {held})")
    reason = cmd.reason.strip() or "cleared by the GM"
    removed = EffectRemoved(character=char.id, effect=name, reason=reason)
    drafts = [Draft(removed)]
    if name == "charmed":
        drafts += side_back(state, char, cause=state.seq + 1)
    return drafts


def decide_switch_side(
    cmd: SwitchSide, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    char = char_of(state, cmd.character)
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


def side_back(state: TableState, char: ChanceCharacter, cause: int) -> list[Draft]:
    """A charm ended: a character it turned goes back to its own side."""
    if char.side is None:
        return []
    own = sheet_of(char).side
    event = SideSwitched(character=char.id, side=own, before=char.side, reason="charm-ended")
    return [Draft(event, cause=cause)]


def decide_hp(cmd: ChangeHp, state: TableState, dice: Dice, history: History) -> list[Draft]:
    char = char_of(state, cmd.character)
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
