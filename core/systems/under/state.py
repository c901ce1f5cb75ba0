"""d100-under state: sheets and characters, the target a check names, and the timing track
(a shared count, action costs, tokens and their resolution)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from margin.events.systems.under import TrackToken

from ...errors import RuleError
from ...inputs import read_as
from ...state import Character, LastCheck, TableState, hidden_ids, lookup
from . import rules


class UnderLastCheck(LastCheck, kw_only=True):
    """A d100-under character's last check: its roll against its target, and how it went."""

    roll: int
    target: int
    #: fumble, critical, success or failure
    verdict: str


class UnderCharacter(Character, kw_only=True):
    """A d100-under character: the sheet, plus the last check for the table screen."""

    last: UnderLastCheck | None = None


#: Costs in counts of the actions every character can take.
STANDARD_COSTS = {"draw": 2, "revolver": 3}

#: A spell costs from 2 to 8 counts; which one depends on the spell, so the GM names it.
SPELL_COSTS = (2, 8)

#: Limits that keep a typo from flooding the log.
MAX_COST = 100
MAX_ADVANCE = 100


class UnderSheet(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A d100-under sheet: ``attributes`` (name -> rating), ``skills`` (name -> target),
    ``actions`` (name -> cost in counts)."""

    attributes: dict[str, Annotated[int, Meta(ge=rules.MIN_RATING, le=rules.MAX_RATING)]] = {}
    skills: dict[str, Annotated[int, Meta(ge=0, le=rules.MAX_TARGET)]] = {}
    actions: dict[str, Annotated[int, Meta(ge=1, le=MAX_COST)]] = {}


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet, refused in one line naming the field when it is not an ``UnderSheet``."""
    read = read_as(sheet, UnderSheet, "sheet.")
    for part in ("attributes", "skills", "actions"):
        if any(not name.strip() for name in getattr(read, part)):
            raise RuleError(f"sheet.{part}: a name is empty")
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return UnderCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def target_for(
    char: Character, skill: str | None, attribute: str | None, target: int | None
) -> tuple[int, str, bool]:
    """(target, label, unskilled) from a given target, a skill, or an attribute rating."""
    if target is not None:
        return target, skill or attribute or f"target {target}", False
    if skill is not None:
        found = _skill_target(char, skill, attribute)
        if found is not None:
            return found[1], found[0], False
    if attribute is None:
        raise RuleError("check: name a skill, an attribute or a target")
    name, value = _attribute_target(char, attribute)
    if skill is not None:
        return value, f"{skill} (unskilled, {name})", True
    return value, name, False


def _attribute_target(char: Character, attribute: str) -> tuple[str, int]:
    """An attribute a check names, as the sheet names it, and the target its rating gives."""
    attributes = char.sheet.get("attributes", {})
    found = lookup(attributes, attribute)
    if found is None:
        known = ", ".join(attributes) or "none"
        raise RuleError(
            f"attribute {attribute!r}: {char.name} has no such attribute (attributes: {known})"
        )
    return found[0], rules.rating_target(found[1])


def _skill_target(char: Character, skill: str, attribute: str | None) -> tuple[str, int] | None:
    """The skill a check names, as the sheet names it, and its target; None when the sheet
    has no such skill and the check names an attribute for an unskilled attempt."""
    skills = char.sheet.get("skills", {})
    found = lookup(skills, skill)
    if found is not None and attribute is not None:
        raise RuleError(
            f"attribute: {char.name} has {found[0]} (target {found[1]}); "
            "an attribute is only for unskilled attempts"
        )
    if found is None and attribute is None:
        known = ", ".join(skills) or "none"
        raise RuleError(
            f"skill {skill!r}: {char.name} has no such skill (skills: {known}); "
            "name an attribute for an unskilled attempt"
        )
    return found


class TrackWorld(msgspec.Struct, kw_only=True):
    """The table-wide state of d100-under: the timing track, when one is running."""

    #: fields holding record numbers (players see their own numbering, see core.lens)
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ("sources",)

    running: bool = False
    label: str = ""
    now: int = 0
    tokens: list[TrackToken] = []
    #: count -> what completed on it, for the clock and replay
    resolved: dict[int, list[TrackToken]] = {}
    escalations: int = 0
    #: of those, the ones in GM-only records (between hidden characters), kept from players
    gm_escalations: int = 0
    #: actor -> the record that put their pending token on the track; an interruption or
    #: a change answers that record, so undoing the declaration undoes them too
    sources: dict[str, int] = {}


def track(state: TableState) -> TrackWorld:
    """The table's d100-under world (the fold keeps one from the table's creation on)."""
    found = state.world
    assert isinstance(found, TrackWorld)
    return found


def initial_world(options: Mapping[str, Any]) -> TrackWorld:
    return TrackWorld()


def player_world(state: TableState) -> TrackWorld:
    """The track without the tokens of hidden characters (theirs are the GM's secret)."""
    world = track(state)
    hidden = hidden_ids(state)
    return msgspec.structs.replace(
        world,
        escalations=world.escalations - world.gm_escalations,
        gm_escalations=0,
        tokens=[t for t in world.tokens if t.actor not in hidden],
        resolved={
            count: [t for t in done if t.actor not in hidden]
            for count, done in world.resolved.items()
        },
        sources={actor: seq for actor, seq in world.sources.items() if actor not in hidden},
    )


def is_spell(action: str) -> bool:
    return action.split(" ", 1)[0] in ("spell", "spell:")


def action_cost(action: str, cost: int | None, sheet_actions: dict[str, int]) -> tuple[str, int]:
    """The action's name (normalised) and its cost in counts.

    A cost the GM names wins over the usual one; spells keep to 2..8; an
    action margin does not know needs its cost named.
    """
    name = " ".join(action.lower().split())
    if not name:
        raise RuleError(
            "action: name the action (draw, revolver, spell, or any action with a cost)"
        )
    if cost is not None and (isinstance(cost, bool) or not 1 <= cost <= MAX_COST):
        raise RuleError(f"cost: {cost!r} is not a cost in counts (1..{MAX_COST})")
    if is_spell(name):
        return name, _spell_cost(cost)
    if cost is not None:
        return name, cost
    return name, _usual_cost(name, sheet_actions)


def _spell_cost(cost: int | None) -> int:
    """A spell's cost as named: spells have no usual cost, and keep to 2..8."""
    low, high = SPELL_COSTS
    if cost is None:
        raise RuleError(f"cost: a spell costs {low}..{high} counts; name its cost")
    if not low <= cost <= high:
        raise RuleError(f"cost: {cost} is not a spell's cost ({low}..{high} counts)")
    return cost


def _usual_cost(name: str, sheet_actions: dict[str, int]) -> int:
    """The usual cost of an action: the standard table's, or the sheet's own."""
    known = {**STANDARD_COSTS, **{k.lower(): v for k, v in sheet_actions.items()}}
    if name in known:
        return known[name]
    names = ", ".join(f"{k} {v}" for k, v in sorted(known.items()))
    raise RuleError(f"cost: {name!r} has no usual cost (known: {names}, spell 2..8); name its cost")


def token_of(world: TrackWorld, actor: str) -> TrackToken | None:
    for token in world.tokens:
        if token.actor == actor:
            return token
    return None


def next_count(world: TrackWorld) -> int | None:
    """The count of the earliest pending token, if any."""
    return min((t.at for t in world.tokens), default=None)


def due(world: TrackWorld, count: int) -> list[TrackToken]:
    """The tokens completing on ``count``, in the order they were placed."""
    return [t for t in world.tokens if t.at == count]
