"""The d100-under dice system: roll percentile under a target, and the timing track."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from events import Draft, Event, Record
from events.under import (
    ActionChanged,
    ActionDeclared,
    ActionInterrupted,
    ActionsResolved,
    OpposedSide,
    TrackAdvanced,
    TrackEnded,
    TrackStarted,
    TrackToken,
    UnderChecked,
    UnderEscalated,
    UnderOpposed,
)

from ..dice import Dice
from ..errors import RuleError
from ..history import History
from ..state import Character, TableState, find_character
from . import under_rules as rules
from . import under_track as track
from .base import Clock, ClockRow, Command, Handler, Odds, Option, System


def _fields() -> Any:
    """``core.resolve`` (field helpers); it imports the system registry, so it is reached late."""
    from .. import resolve

    return resolve


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return _fields().integer(name, value, lo, hi)  # type: ignore[no-any-return]


def take(fields: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return _fields().take(fields, spec)  # type: ignore[no-any-return]


# -- sheet and character --------------------------------------------------------


class UnderCharacter(Character, kw_only=True):
    """A d100-under character: the sheet, plus the last check for the table screen."""

    last: str = ""


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``attributes`` (name -> rating), ``skills`` (name -> target), ``actions`` (name -> cost)."""
    unknown = sorted(set(sheet) - {"attributes", "skills", "actions"})
    if unknown:
        raise RuleError(f"sheet.{unknown[0]}: unknown field (fields: attributes, skills, actions)")
    limits = {
        "attributes": (rules.MIN_RATING, None),
        "skills": (0, None),
        "actions": (1, track.MAX_COST),
    }
    for part, (lo, hi) in limits.items():
        table = sheet.get(part, {})
        if not isinstance(table, dict):
            raise RuleError(f"sheet.{part}: expected an object of name -> number")
        for name, value in table.items():
            if not str(name).strip():
                raise RuleError(f"sheet.{part}: a name is empty")
            integer(f"sheet.{part}.{name}", value, lo, hi)
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return UnderCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def _lookup(table: dict[str, int], name: str) -> tuple[str, int] | None:
    key = " ".join(name.lower().split())
    for k, v in table.items():
        if " ".join(k.lower().split()) == key:
            return k, v
    return None


def target_for(
    char: Character, skill: str | None, attribute: str | None, target: int | None
) -> tuple[int, str, bool]:
    """(target, label, unskilled) from a given target, a skill, or an attribute rating."""
    sheet = char.sheet
    if target is not None:
        integer("target", target, 0)
        return target, skill or attribute or f"target {target}", False
    if skill is not None:
        found = _lookup(sheet.get("skills", {}), skill)
        if found is not None:
            if attribute is not None:
                raise RuleError(
                    f"attribute: {char.name} has {found[0]} (target {found[1]}); "
                    "an attribute is only for unskilled attempts"
                )
            return found[1], found[0], False
        if attribute is None:
            known = ", ".join(sheet.get("skills", {})) or "none"
            raise RuleError(
                f"skill {skill!r}: {char.name} has no such skill (skills: {known}); "
                "name an attribute for an unskilled attempt"
            )
    if attribute is None:
        raise RuleError("check: name a skill, an attribute or a target")
    found = _lookup(sheet.get("attributes", {}), attribute)
    if found is None:
        known = ", ".join(sheet.get("attributes", {})) or "none"
        raise RuleError(
            f"attribute {attribute!r}: {char.name} has no such attribute (attributes: {known})"
        )
    value = rules.rating_target(found[1])
    if skill is not None:
        return value, f"{skill} (unskilled, {found[0]})", True
    return value, found[0], False


# -- commands -------------------------------------------------------------------


class Check(Command, tag="check"):
    """A percentile check: against a skill's target, an attribute's, or a given target."""

    character: str
    skill: str | None = None
    attribute: str | None = None
    target: int | None = None
    #: physical d10s as [tens, ones], each 0..9 (0,0 reads 100)
    faces: list[int] | None = None
    #: or the percentile read off them, 1..100
    roll: int | None = None
    reason: str = ""


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One side of an opposed check."""

    character: str
    skill: str | None = None
    attribute: str | None = None
    target: int | None = None
    faces: list[int] | None = None
    roll: int | None = None


class Opposed(Command, tag="opposed"):
    """Two characters check against each other; a double failure escalates."""

    a: Side
    b: Side
    reason: str = ""


class StartTrack(Command, tag="start-track"):
    """Start the encounter's timing track at count 0."""

    label: str = ""


class EndTrack(Command, tag="end-track"):
    """Put the timing track away."""


class Act(Command, tag="act"):
    """Start an action: the actor's token goes on the track at now + its cost."""

    character: str
    action: str
    cost: int | None = None


class Advance(Command, tag="advance"):
    """Move the track on count by count (``next``: up to the earliest token)."""

    counts: int = 1
    next: bool = False


class Interrupt(Command, tag="interrupt"):
    """Stop a pending action before it completes."""

    character: str
    reason: str = ""


class ChangeAction(Command, tag="change"):
    """Swap a pending action for another, timed from the current count."""

    character: str
    action: str
    cost: int | None = None
    reason: str = ""


COMMANDS: tuple[type[Command], ...] = (
    Check,
    Opposed,
    StartTrack,
    EndTrack,
    Act,
    Advance,
    Interrupt,
    ChangeAction,
)


# -- decide ---------------------------------------------------------------------


def _reading(state: TableState) -> str:
    return str(state.options.get("crit_reading", "table"))


def _roll_side(side: Side, state: TableState, dice: Dice, name: str = "") -> OpposedSide:
    char = find_character(state, side.character)
    target, label, _ = target_for(char, side.skill, side.attribute, side.target)
    faces, roll, source = rules.percentile(dice, side.faces, side.roll, name)
    out = rules.judge(target, roll, _reading(state))
    return OpposedSide(
        actor=char.id,
        label=label,
        target=target,
        faces=faces,
        roll=roll,
        source=source,
        success=out.success,
        critical=out.critical,
        fumble=out.fumble,
        margin=out.margin,
    )


def _check(cmd: Check, state: TableState, dice: Dice) -> list[Draft]:
    char = find_character(state, cmd.character)
    target, label, unskilled = target_for(char, cmd.skill, cmd.attribute, cmd.target)
    faces, roll, source = rules.percentile(dice, cmd.faces, cmd.roll)
    reading = _reading(state)
    out = rules.judge(target, roll, reading)
    event = UnderChecked(
        actor=char.id,
        label=label,
        target=target,
        faces=faces,
        roll=roll,
        source=source,
        success=out.success,
        critical=out.critical,
        fumble=out.fumble,
        margin=out.margin,
        crit_range=out.crit_range,
        crit_reading=reading,
        unskilled=unskilled,
        reason=cmd.reason,
    )
    return [Draft(event)]


def _opposed(cmd: Opposed, state: TableState, dice: Dice) -> list[Draft]:
    a = _roll_side(cmd.a, state, dice, "a")
    b = _roll_side(cmd.b, state, dice, "b")
    if a.actor == b.actor:
        raise RuleError(f"b.character: {cmd.b.character!r} cannot oppose themself")
    winner = rules.opposed_winner(_outcome(a), _outcome(b))
    escalation = not a.success and not b.success
    event = UnderOpposed(
        a=a,
        b=b,
        winner={"a": a.actor, "b": b.actor}.get(winner or ""),
        stalemate=winner is None,
        escalation=escalation,
        crit_reading=_reading(state),
        reason=cmd.reason,
    )
    drafts = [Draft(event)]
    if escalation:
        drafts.append(
            Draft(UnderEscalated(actors=[a.actor, b.actor], reason=cmd.reason), cause=state.seq + 1)
        )
    return drafts


def _outcome(side: OpposedSide) -> rules.Outcome:
    return rules.Outcome(
        target=side.target,
        roll=side.roll,
        success=side.success,
        critical=side.critical,
        fumble=side.fumble,
        margin=side.margin,
        crit_range=rules.crit_range(side.target),
    )


def _world(state: TableState) -> track.TrackWorld:
    world = state.world
    assert isinstance(world, track.TrackWorld)
    return world


def _running(state: TableState) -> track.TrackWorld:
    world = _world(state)
    if not world.running:
        raise RuleError("timing track: none is running (start one with start-track)")
    return world


def _start(cmd: StartTrack, state: TableState) -> list[Draft]:
    world = _world(state)
    if world.running:
        raise RuleError(f"start-track: a timing track is already running (count {world.now})")
    return [Draft(TrackStarted(label=cmd.label))]


def _end(cmd: EndTrack, state: TableState) -> list[Draft]:
    world = _running(state)
    return [Draft(TrackEnded(count=world.now, dropped=[t.actor for t in world.tokens]))]


def _act(cmd: Act, state: TableState) -> list[Draft]:
    world = _running(state)
    char = find_character(state, cmd.character)
    pending = track.token_of(world, char.id)
    if pending is not None:
        raise RuleError(
            f"act: {char.name} is already busy with {pending.action} (count {pending.at}); "
            "change or interrupt it first"
        )
    action, cost = track.action_cost(cmd.action, cmd.cost, char.sheet.get("actions", {}))
    return [
        Draft(
            ActionDeclared(
                actor=char.id, action=action, cost=cost, count=world.now, at=world.now + cost
            )
        )
    ]


def _advance(cmd: Advance, state: TableState) -> list[Draft]:
    world = _running(state)
    if cmd.next:
        if cmd.counts != 1:
            raise RuleError("counts: give a number of counts or next, not both")
        upcoming = track.next_count(world)
        if upcoming is None:
            raise RuleError("advance: no token is on the track to advance to")
        steps = upcoming - world.now
    else:
        steps = integer("counts", cmd.counts, 1, track.MAX_ADVANCE)
    drafts: list[Draft] = []
    seq = state.seq
    for count in range(world.now + 1, world.now + steps + 1):
        drafts.append(Draft(TrackAdvanced(count=count)))
        seq += 1
        resolving = track.due(world, count)
        if resolving:
            drafts.append(Draft(ActionsResolved(count=count, actions=resolving), cause=seq))
            seq += 1
    return drafts


def _interrupt(cmd: Interrupt, state: TableState) -> list[Draft]:
    world = _running(state)
    char = find_character(state, cmd.character)
    token = track.token_of(world, char.id)
    if token is None:
        raise RuleError(f"interrupt: {char.name} has no pending action on the track")
    return [
        Draft(
            ActionInterrupted(
                actor=char.id, action=token.action, at=token.at, count=world.now, reason=cmd.reason
            )
        )
    ]


def _change(cmd: ChangeAction, state: TableState) -> list[Draft]:
    world = _running(state)
    char = find_character(state, cmd.character)
    token = track.token_of(world, char.id)
    if token is None:
        raise RuleError(f"change: {char.name} has no pending action on the track (use act)")
    action, cost = track.action_cost(cmd.action, cmd.cost, char.sheet.get("actions", {}))
    event = ActionChanged(
        actor=char.id,
        old_action=token.action,
        old_at=token.at,
        action=action,
        cost=cost,
        count=world.now,
        at=world.now + cost,
        reason=cmd.reason,
    )
    return [Draft(event)]


def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if isinstance(command, Check):
        return _check(command, state, dice)
    if isinstance(command, Opposed):
        return _opposed(command, state, dice)
    if isinstance(command, StartTrack):
        return _start(command, state)
    if isinstance(command, EndTrack):
        return _end(command, state)
    if isinstance(command, Act):
        return _act(command, state)
    if isinstance(command, Advance):
        return _advance(command, state)
    if isinstance(command, Interrupt):
        return _interrupt(command, state)
    if isinstance(command, ChangeAction):
        return _change(command, state)
    raise RuleError(f"command {type(command).__name__} is not a d100-under command")


# -- fold -----------------------------------------------------------------------


def _summary(
    label: str, roll: int, target: int, success: bool, critical: bool, fumble: bool
) -> str:
    verdict = (
        "fumble" if fumble else "critical" if critical else "success" if success else "failure"
    )
    return f"{label} {roll:02d}/{target} {verdict}"


def _set_last(state: TableState, actor: str, text: str) -> None:
    char = state.characters.get(actor)
    if isinstance(char, UnderCharacter):
        char.last = text


def _on_check(state: TableState, record: Record) -> None:
    e: UnderChecked = record.event
    _set_last(state, e.actor, _summary(e.label, e.roll, e.target, e.success, e.critical, e.fumble))


def _on_opposed(state: TableState, record: Record) -> None:
    e: UnderOpposed = record.event
    for side in (e.a, e.b):
        won = " (wins)" if e.winner == side.actor else ""
        text = _summary(
            side.label, side.roll, side.target, side.success, side.critical, side.fumble
        )
        _set_last(state, side.actor, text + won)


def _on_escalated(state: TableState, record: Record) -> None:
    _world(state).escalations += 1


def _on_started(state: TableState, record: Record) -> None:
    e: TrackStarted = record.event
    state.world = track.TrackWorld(
        running=True, label=e.label, escalations=_world(state).escalations
    )


def _on_ended(state: TableState, record: Record) -> None:
    world = _world(state)
    world.running = False
    world.tokens = []


def _on_declared(state: TableState, record: Record) -> None:
    e: ActionDeclared = record.event
    token = TrackToken(actor=e.actor, action=e.action, cost=e.cost, declared=e.count, at=e.at)
    _world(state).tokens.append(token)


def _on_advanced(state: TableState, record: Record) -> None:
    _world(state).now = record.event.count


def _on_resolved(state: TableState, record: Record) -> None:
    e: ActionsResolved = record.event
    world = _world(state)
    world.tokens = [t for t in world.tokens if t not in e.actions]
    world.resolved[e.count] = list(e.actions)


def _on_interrupted(state: TableState, record: Record) -> None:
    e: ActionInterrupted = record.event
    world = _world(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]


def _on_changed(state: TableState, record: Record) -> None:
    e: ActionChanged = record.event
    world = _world(state)
    world.tokens = [t for t in world.tokens if t.actor != e.actor]
    world.tokens.append(
        TrackToken(actor=e.actor, action=e.action, cost=e.cost, declared=e.count, at=e.at)
    )


HANDLERS: dict[type[Event], Handler] = {
    UnderChecked: _on_check,
    UnderOpposed: _on_opposed,
    UnderEscalated: _on_escalated,
    TrackStarted: _on_started,
    TrackEnded: _on_ended,
    ActionDeclared: _on_declared,
    TrackAdvanced: _on_advanced,
    ActionsResolved: _on_resolved,
    ActionInterrupted: _on_interrupted,
    ActionChanged: _on_changed,
}


def initial_world(options: Mapping[str, Any]) -> track.TrackWorld:
    return track.TrackWorld()


# -- screens ----------------------------------------------------------------------


def _verdict(e: Mapping[str, Any]) -> str:
    if e.get("fumble"):
        return "critical failure"
    if e.get("critical"):
        return "critical success"
    return "success" if e.get("success") else "failure"


def _side_text(s: Mapping[str, Any]) -> str:
    result = f"{_verdict(s)}, margin {s['margin']}"
    return f"{s['actor']} {s['label']} {s['roll']:02d} vs {s['target']} ({result})"


def describe(e: dict[str, Any]) -> str | None:
    tag = e.get("type")
    if tag == "under.check":
        typed = " (typed)" if e.get("source") == "typed" else ""
        why = f" for {e['reason']}" if e.get("reason") else ""
        return (
            f"{e['actor']} checks {e['label']}{why}: rolls {e['roll']:02d}{typed} vs {e['target']}"
            f" -> {_verdict(e)}, margin {e['margin']}"
        )
    if tag == "under.opposed":
        if e.get("winner"):
            result = f"{e['winner']} wins"
        else:
            result = "stalemate, it escalates" if e.get("escalation") else "stalemate"
        return f"opposed: {_side_text(e['a'])} against {_side_text(e['b'])}: {result}"
    if tag == "under.escalation":
        return f"escalation: both {' and '.join(e['actors'])} failed; the GM says how it gets worse"
    if tag == "under.track-started":
        return "timing track starts at count 0" + (f" ({e['label']})" if e.get("label") else "")
    if tag == "under.track-ended":
        dropped = f", dropping {', '.join(e['dropped'])}" if e.get("dropped") else ""
        return f"timing track ends at count {e['count']}{dropped}"
    if tag == "under.declared":
        return (
            f"{e['actor']} starts {e['action']} ({e['cost']} counts), completes on count {e['at']}"
        )
    if tag == "under.advanced":
        return f"count {e['count']}"
    if tag == "under.resolved":
        acts = ", ".join(f"{t['actor']} {t['action']}" for t in e["actions"])
        together = " simultaneously" if len(e["actions"]) > 1 else ""
        return (
            f"count {e['count']}: {acts} resolve{'s' if len(e['actions']) == 1 else ''}{together}"
        )
    if tag == "under.interrupted":
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"{e['actor']}'s {e['action']} (due on count {e['at']}) is interrupted{why}"
    if tag == "under.changed":
        return (
            f"{e['actor']} switches from {e['old_action']} to {e['action']} "
            f"({e['cost']} counts), completes on count {e['at']}"
        )
    return None


def status(char: Character, state: TableState) -> list[str]:
    items = []
    world = state.world
    if isinstance(world, track.TrackWorld) and world.running:
        token = track.token_of(world, char.id)
        items.append(f"{token.action} @ {token.at}" if token else "free")
    if isinstance(char, UnderCharacter) and char.last:
        items.append(char.last)
    return items


def clock(state: TableState) -> Clock | None:
    world = state.world
    if not isinstance(world, track.TrackWorld) or not world.running:
        return None
    upcoming = track.next_count(world)
    rows = []
    for token in sorted(world.tokens, key=lambda t: (t.at, t.declared)):
        char = state.characters.get(token.actor)
        rows.append(
            ClockRow(
                name=char.name if char else token.actor,
                value=f"count {token.at}",
                current=token.at == upcoming,
                note=f"{token.action} ({token.cost}, from {token.declared})",
            )
        )
    busy = {t.actor for t in world.tokens}
    for char in state.characters.values():
        if char.id not in busy and not char.hidden:
            rows.append(ClockRow(name=char.name, value="free", note="no action on the track"))
    title = f"Timing track: count {world.now}" + (f" ({world.label})" if world.label else "")
    return Clock(title=title, rows=tuple(rows))


def odds(command: Command, state: TableState) -> Odds | None:
    reading = _reading(state)
    if isinstance(command, Check):
        char = find_character(state, command.character)
        target, label, _ = target_for(char, command.skill, command.attribute, command.target)
        bands = rules.odds(target, reading)
        success = bands["critical"] + bands["success"]
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{char.name}: {label} vs {target}",
        )
    if isinstance(command, Opposed):
        sides = []
        for side in (command.a, command.b):
            char = find_character(state, side.character)
            target, label, _ = target_for(char, side.skill, side.attribute, side.target)
            sides.append((char.name, label, target))
        bands = rules.opposed_odds(sides[0][2], sides[1][2])
        (na, la, ta), (nb, lb, tb) = sides
        return Odds(
            success=float(bands["a wins"]),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{na} {la} {ta} against {nb} {lb} {tb}",
        )
    return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    attributes: set[str] = set()
    actions = set(track.STANDARD_COSTS) | {"spell"}
    for char in state.characters.values():
        skills.update(char.sheet.get("skills", {}))
        attributes.update(char.sheet.get("attributes", {}))
        actions.update(char.sheet.get("actions", {}))
    return {
        "character": sorted(c.name for c in state.characters.values()),
        "skill": sorted(skills),
        "attribute": sorted(attributes),
        "action": sorted(actions),
        "command": [
            "check",
            "opposed",
            "track",
            "act",
            "advance",
            "interrupt",
            "change",
            "end-track",
        ],
    }


def _side_words(words: list[str], state: TableState) -> dict[str, Any]:
    """``kael melee``, ``kael br``, ``ada library 60``, ``kael security aw``, ``... roll 73``."""
    if not words:
        raise RuleError("check: name a character, then a skill, an attribute or a target")
    char = find_character(state, words[0])
    out: dict[str, Any] = {"character": char.name}
    rest = words[1:]
    low = [w.lower() for w in rest]
    if "roll" in low:
        at = low.index("roll")
        dice = rest[at + 1 : at + 2]
        if len(dice) != 1 or not dice[0].isdigit():
            raise RuleError("roll: type the two d10 as two digits after 'roll' (73, 07, 00)")
        if len(dice[0]) == 2:
            out["faces"] = [int(dice[0][0]), int(dice[0][1])]
        else:
            out["roll"] = int(dice[0])
        rest = rest[:at] + rest[at + 2 :]
    if rest and rest[-1].isdigit():
        out["target"] = int(rest.pop())
    attributes = char.sheet.get("attributes", {})
    if rest and _lookup(attributes, rest[-1]) is not None:
        out["attribute"] = rest.pop()
    if rest:
        out["skill"] = " ".join(rest)
    return out


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head == "check":
        return {"type": "check", **_side_words(rest, state)}
    if head == "opposed":
        low = [w.lower() for w in rest]
        if "vs" not in low:
            raise RuleError("opposed: write it as 'opposed kael br vs cultist 30'")
        cut = low.index("vs")
        return {
            "type": "opposed",
            "a": _side_words(rest[:cut], state),
            "b": _side_words(rest[cut + 1 :], state),
        }
    if head in ("track", "start-track"):
        return {"type": "start-track", "label": " ".join(rest)}
    if head == "end-track":
        return {"type": "end-track"}
    if head in ("act", "change"):
        if len(rest) < 2:
            raise RuleError(f"{head}: write it as '{head} ada revolver' or '{head} ada spell 5'")
        out: dict[str, Any] = {"type": head, "character": rest[0]}
        tail = rest[1:]
        if len(tail) > 1 and tail[-1].isdigit():
            out["cost"] = int(tail.pop())
        out["action"] = " ".join(tail)
        return out
    if head == "advance":
        if not rest:
            return {"type": "advance"}
        if rest[0].lower() == "next":
            return {"type": "advance", "next": True}
        if rest[0].isdigit():
            return {"type": "advance", "counts": int(rest[0])}
        raise RuleError(f"advance: {rest[0]!r} is not a number of counts or 'next'")
    if head == "interrupt":
        if not rest:
            raise RuleError("interrupt: name the character whose action stops")
        return {"type": "interrupt", "character": rest[0], "reason": " ".join(rest[1:])}
    return None


# -- margin resolve ---------------------------------------------------------------


def _crit_reading(value: Any) -> str:
    if value not in rules.CRIT_READINGS:
        raise RuleError(f"crit_reading: {value!r} is not one of {', '.join(rules.CRIT_READINGS)}")
    return str(value)


def _judged(target: int, faces: list[int], roll: int, reading: str) -> dict[str, Any]:
    out = rules.judge(target, roll, reading)
    window = rules.crit_window(target, reading)
    return {
        "target": target,
        "faces": faces,
        "roll": roll,
        "success": out.success,
        "critical": out.critical,
        "fumble": out.fumble,
        "margin": out.margin,
        "band": out.band,
        "crit_range": out.crit_range,
        "crit_on": [1] if window is None else sorted({1, *range(window[0], window[1] + 1)}),
    }


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(
        fields, {"target": _fields().REQUIRED, "roll": None, "faces": None, "crit_reading": "table"}
    )
    target = integer("target", f["target"], 0)
    reading = _crit_reading(f["crit_reading"])
    faces, roll, _ = rules.percentile(dice, f["faces"], f["roll"])
    return _judged(target, faces, roll, reading)


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"a": _fields().REQUIRED, "b": _fields().REQUIRED, "crit_reading": "table"})
    reading = _crit_reading(f["crit_reading"])
    sides = {}
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with target and roll (or faces)")
        s = take(side, {"target": _fields().REQUIRED, "roll": None, "faces": None})
        target = integer(f"{name}.target", s["target"], 0)
        faces, roll, _ = rules.percentile(dice, s["faces"], s["roll"], name)
        sides[name] = _judged(target, faces, roll, reading)
    a, b = (rules.judge(sides[n]["target"], sides[n]["roll"], reading) for n in ("a", "b"))
    winner = rules.opposed_winner(a, b)
    return {
        "a": sides["a"],
        "b": sides["b"],
        "winner": winner,
        "stalemate": winner is None,
        "escalation": not a.success and not b.success,
    }


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"target": _fields().REQUIRED, "crit_reading": "table"})
    target = integer("target", f["target"], 0)
    bands = rules.odds(target, _crit_reading(f["crit_reading"]))
    return {
        "target": target,
        "success": float(bands["critical"] + bands["success"]),
        "bands": {k: float(v) for k, v in bands.items()},
    }


def resolve_opposed_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = take(fields, {"a": _fields().REQUIRED, "b": _fields().REQUIRED})
    targets = []
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with a target")
        targets.append(
            integer(f"{name}.target", take(side, {"target": _fields().REQUIRED})["target"], 0)
        )
    bands = rules.opposed_odds(*targets)
    return {
        "a": float(bands["a wins"]),
        "b": float(bands["b wins"]),
        "stalemate": float(bands["stalemate"] + bands["escalation"]),
        "escalation": float(bands["escalation"]),
    }


RESOLVE = {
    "check": resolve_check,
    "opposed": resolve_opposed,
    "odds": resolve_odds,
    "opposed-odds": resolve_opposed_odds,
}


# -- demo -------------------------------------------------------------------------

DEMO: tuple[dict[str, Any], ...] = (
    {
        "type": "add-character",
        "name": "Kael",
        "sheet": {"attributes": {"AW": 1, "BR": 2}, "skills": {"Melee": 66}},
    },
    {
        "type": "add-character",
        "name": "Ada",
        "sheet": {
            "attributes": {"AW": 3, "BR": 0},
            "skills": {"Library": 60, "Revolver": 55, "Sorcery": 48},
        },
    },
    {
        "type": "add-character",
        "name": "Rifleman",
        "sheet": {
            "attributes": {"AW": 0, "BR": 3},
            "skills": {"Arc Rifle": 50},
            "actions": {"arc rifle": 6},
        },
    },
    {"type": "add-character", "name": "Cultist", "sheet": {"attributes": {"BR": 1}}},
    {
        "type": "check",
        "character": "Kael",
        "skill": "Security",
        "attribute": "AW",
        "faces": [7, 3],
        "reason": "the warehouse padlock",
    },
    {
        "type": "opposed",
        "a": {"character": "Kael", "attribute": "BR", "roll": 22},
        "b": {"character": "Cultist", "attribute": "BR", "roll": 28},
        "reason": "the artifact",
    },
    {"type": "start-track", "label": "Vicker Street"},
    {"type": "act", "character": "Ada", "action": "draw"},
    {"type": "act", "character": "Rifleman", "action": "arc rifle"},
    {"type": "act", "character": "Kael", "action": "spell ward", "cost": 4},
    {"type": "advance", "next": True},
    {"type": "act", "character": "Ada", "action": "revolver"},
    {"type": "advance", "next": True},
    {"type": "advance", "next": True},
    {
        "type": "check",
        "character": "Ada",
        "skill": "Revolver",
        "faces": [3, 1],
        "reason": "the rifleman",
    },
    {"type": "interrupt", "character": "Rifleman", "reason": "shot before the barrel came up"},
)


SYSTEM = System(
    id="d100-under",
    title="d100-under",
    summary="d100 under a target from a rating, with a timing track of counts",
    options=(
        Option(
            "crit_reading",
            "table",
            "critical range: 'table' crits on the range's top rolls up to the target; "
            "'example' adds the range below the target",
            rules.CRIT_READINGS,
        ),
    ),
    commands=COMMANDS,
    handlers=HANDLERS,
    decide=decide,
    make_character=make_character,
    check_sheet=check_sheet,
    initial_world=initial_world,
    resolve=RESOLVE,
    demo=DEMO,
    rules_doc="d100-under.md",
    describe=describe,
    status=status,
    clock=clock,
    odds=odds,
    parse_words=parse_words,
    vocabulary=vocabulary,
)
