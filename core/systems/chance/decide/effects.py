"""d100-chance status effects, sides turned by a charm, and HP changed outside an attack."""

from __future__ import annotations

from dataclasses import dataclass

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
from ...base import Deciders
from .. import rules
from ..commands import ApplyEffect, Bandage, ChangeHp, ClearEffect, SwitchSide
from ..state import (
    EFFECTS,
    SHIELD_PERCENT,
    ChanceCharacter,
    Effect,
    EffectKind,
    sheet_of,
    side_of,
)
from .common import char_of


def effect_draft(
    state: TableState,
    target: ChanceCharacter,
    name: str,
    *,
    source: str,
    potency: int = 0,
    resistance: int | None = None,
    stat: str = "",
    reason: str = "",
    cause: int | None = None,
    turns: int | None = None,
) -> Draft:
    """The contest of one effect on ``target``; ``turns`` forces a landing (spread, haste's end)."""
    kind = EFFECTS[name]
    land, resistance = _landing(state, target, kind, potency, resistance, turns)
    held = _held(state, target, name, land) if land.landed else _Held("", 0, 0)
    event = EffectApplied(
        target=target.id,
        effect=name,
        potency=potency,
        resistance=resistance,
        gap=land.gap,
        landed=land.landed,
        source=source,
        turns=0 if kind.until_removed else land.turns,
        stacks=land.stacks,
        becomes=held.becomes,
        total_stacks=held.stacks,
        total_turns=held.turns,
        stat=(stat or "dex") if name == "poisoned" else "",
        pool=held.pool,
        reason=reason,
    )
    return Draft(event, cause=cause, visibility=Visibility(hidden=EFFECT_SECRET))


def _landing(
    state: TableState,
    target: ChanceCharacter,
    kind: EffectKind,
    potency: int,
    resistance: int | None,
    turns: int | None,
) -> tuple[rules.Landing, int]:
    """Whether an effect lands and how (``turns`` forces it), and the resistance it met:
    the one given, else the target's against a harmful effect."""
    if turns is not None:
        return rules.Landing(True, 0, turns, 1), 0
    if resistance is None:
        resistance = sheet_of(target).status_resistance if kind.harmful else 0
    duration_step = int(state.options.get("duration_step", 10))
    land = rules.landing(
        potency, resistance, duration_step, int(state.options.get("intensity_step", 20))
    )
    return land, resistance


@dataclass(frozen=True)
class _Held:
    """What a landed effect leaves on its target: the effect (or the one it escalated to),
    its stacks and turns in all, and a shield's pool."""

    becomes: str
    stacks: int
    turns: int
    pool: int = 0


#: what a character holds of an effect it does not have: no stacks, turns or pool
_NOT_HELD = Effect(name="", stacks=0, turns=0)


def _held(state: TableState, target: ChanceCharacter, name: str, land: rules.Landing) -> _Held:
    kind = EFFECTS[name]
    existing = target.effect(name) or _NOT_HELD
    pool = _shield_pool(target, land.stacks, existing) if name == "shield" else 0
    stacks = land.stacks + existing.stacks
    if kind.escalates_to and stacks >= int(state.options.get("escalate_at", 3)):
        worse = target.effect(kind.escalates_to) or _NOT_HELD
        return _Held(kind.escalates_to, 1 + worse.stacks, max(land.turns, worse.turns), pool)
    turns = 0 if kind.until_removed else max(land.turns, existing.turns)
    return _Held(name, stacks, turns, pool)


def _shield_pool(target: ChanceCharacter, stacks: int, existing: Effect) -> int:
    """The HP a shield of ``stacks`` holds, on top of the one ``existing`` already."""
    return rules.percent_of(SHIELD_PERCENT, target.max_hp, stacks) + existing.pool


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
    draft = effect_draft(
        state,
        target,
        name,
        source=source,
        potency=cmd.potency,
        resistance=cmd.resistance,
        stat=stat_name,
    )
    return [draft]


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
        side = _charmer_side(state, char, charm.source)
    else:
        side = cmd.side.strip()
        if not side:
            raise RuleError("side: name the side the charmed character now fights for")
    if side == side_of(char):
        raise RuleError(f"side: {char.name} already fights for {side!r}")
    event = SideSwitched(character=char.id, side=side, before=side_of(char), reason="charmed")
    return [Draft(event, cause=charm.applied or None)]


def _charmer_side(state: TableState, char: ChanceCharacter, charmer_id: str) -> str:
    """The side of whoever charmed ``char``, which the charmed character now fights for."""
    charmer = state.characters.get(charmer_id)
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
    return side


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


#: the commands this module decides
DECIDERS: Deciders = {
    ApplyEffect: decide_effect,
    Bandage: decide_bandage,
    ClearEffect: decide_clear,
    SwitchSide: decide_switch_side,
    ChangeHp: decide_hp,
}
