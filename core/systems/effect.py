"""The 2d6-effect dice system: 2D6 + DMs against 8, Effect, assistance and tasks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from events import Draft, Event, Record
from events.effect import EffectAssisted, EffectChecked, EffectOpposed, EffectSide, TaskClosed

from ..dice import Dice, TypedDice
from ..errors import RuleError
from ..history import History
from ..state import Character, TableState, find_character
from . import effect_rules as rules
from . import effect_task as tasks
from .base import Command, Handler, Odds, Option, System


def _fields() -> Any:
    """``core.resolve`` (field helpers); it imports the system registry, so it is reached late."""
    from .. import resolve

    return resolve


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    return _fields().integer(name, value, lo, hi)  # type: ignore[no-any-return]


#: A further DM (weapon, range, gear) is bounded only to catch typos.
MAX_DM = 20
MAX_ACTIONS = 6

# -- options ----------------------------------------------------------------------

OPTIONS = (
    Option(
        "characteristic_dm",
        "table",
        "'table': sheets hold characteristic scores, turned into DMs by the table; "
        "'sheet': sheets hold the DMs themselves",
        ("table", "sheet"),
    ),
    Option("law_level", True, "a world's law level may set a check's difficulty", (True, False)),
    Option(
        "opposed_checks",
        False,
        "reference rule: opposed checks (higher Effect wins)",
        (True, False),
    ),
    Option(
        "task_time", False, "reference rule: a task takes 1D6 x its time increment", (True, False)
    ),
    Option(
        "task_format", False, "reference rule: checks may be given as a written task", (True, False)
    ),
    Option(
        "time_trading", False, "reference rule: trade up to two rows of time for DM", (True, False)
    ),
    Option(
        "multiple_actions",
        False,
        "reference rule: -2 on every check per extra action",
        (True, False),
    ),
)


def _on(state: TableState, option: str, field: str) -> None:
    if not state.options.get(option, False):
        raise RuleError(f"{field}: the {option} rule is off (set-option {option} true to use it)")


# -- sheet, character, world --------------------------------------------------------


class PendingAssist(msgspec.Struct, kw_only=True):
    helper: str
    dm: int
    seq: int


class EffectCharacter(Character, kw_only=True):
    """A 2d6-effect character: help waiting on their next check, and their last result."""

    assists: dict[str, PendingAssist] = {}
    last: str = ""


class TaskState(msgspec.Struct, kw_only=True):
    status: str = "open"
    attempts: int = 0
    by: str = ""
    reason: str = ""


class EffectWorld(msgspec.Struct, kw_only=True):
    """Named tasks: how often tried, done (nothing new to gain) or closed by the GM."""

    tasks: dict[str, TaskState] = {}


def check_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``characteristics`` (name -> score or DM), ``skills`` (name -> level), ``disposition``."""
    unknown = sorted(set(sheet) - {"characteristics", "skills", "disposition"})
    if unknown:
        raise RuleError(
            f"sheet.{unknown[0]}: unknown field (fields: characteristics, skills, disposition)"
        )
    for part, lo in (("characteristics", None), ("skills", 0)):
        table = sheet.get(part, {})
        if not isinstance(table, dict):
            raise RuleError(f"sheet.{part}: expected an object of name -> number")
        for name, value in table.items():
            if not str(name).strip():
                raise RuleError(f"sheet.{part}: a name is empty")
            integer(f"sheet.{part}.{name}", value, lo)
    if "disposition" in sheet:
        rules.disposition(sheet["disposition"], "sheet.disposition")
    return sheet


def make_character(cid: str, name: str, sheet: dict[str, Any], hidden: bool) -> Character:
    return EffectCharacter(id=cid, name=name, sheet=sheet, hidden=hidden)


def initial_world(options: Mapping[str, Any]) -> EffectWorld:
    return EffectWorld()


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _lookup(table: dict[str, int], name: str) -> tuple[str, int] | None:
    for k, v in table.items():
        if _key(k) == _key(name):
            return k, v
    return None


def _skill(char: Character, skill: str) -> tuple[str, int | None]:
    """(the skill's name, its level or None when the character has none)."""
    found = _lookup(char.sheet.get("skills", {}), skill)
    return (found[0], found[1]) if found else (skill, None)


def _characteristic(char: Character, name: str, state: TableState) -> tuple[str, int]:
    found = _lookup(char.sheet.get("characteristics", {}), name)
    if found is None:
        known = ", ".join(char.sheet.get("characteristics", {})) or "none"
        raise RuleError(
            f"characteristic {name!r}: {char.name} has no such characteristic ({known})"
        )
    if state.options.get("characteristic_dm", "table") == "sheet":
        return found[0], found[1]
    return found[0], rules.characteristic_dm(found[1])


# -- commands -----------------------------------------------------------------------


class Check(Command, tag="check"):
    """A skill check (skill, usually with a characteristic) or a characteristic check."""

    character: str
    skill: str | None = None
    characteristic: str | None = None
    #: a ladder rung by name, or its DM; Average when omitted
    difficulty: str | int | None = None
    #: the world's law level, setting the difficulty instead (option law_level)
    law_level: int | None = None
    circumstance: int = 0
    #: any further DM another rule gives (a weapon, range, gear)
    dm: int = 0
    #: a named task: once done it gives nothing new; the GM can close it
    task: str = ""
    #: a written task statement (option task_format)
    written: str = ""
    #: the task's time increment (option task_time), and rows traded (option time_trading)
    increment: str | None = None
    time_rows: int = 0
    combat: bool = False
    #: things done at once (option multiple_actions)
    actions: int = 1
    faces: list[int] | None = None
    reason: str = ""


class Assist(Command, tag="assist"):
    """A helper makes the same check first; their Effect becomes a DM on the helped check."""

    helper: str
    character: str
    skill: str | None = None
    characteristic: str | None = None
    difficulty: str | int | None = None
    #: how the helper feels about the character; the helper's sheet, or helpful, when omitted
    disposition: str | None = None
    faces: list[int] | None = None


class Side(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    character: str
    skill: str | None = None
    characteristic: str | None = None
    difficulty: str | int | None = None
    circumstance: int = 0
    dm: int = 0
    faces: list[int] | None = None


class Opposed(Command, tag="opposed"):
    """Two checks against each other (option opposed_checks)."""

    a: Side
    b: Side
    reason: str = ""


class CloseTask(Command, tag="close-task"):
    """The GM rules that a task cannot be attempted again."""

    task: str
    reason: str = ""


COMMANDS: tuple[type[Command], ...] = (Check, Assist, Opposed, CloseTask)


# -- deciding a check -----------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Everything a check needs before its dice: the DMs and the timing."""

    label: str
    skill: str | None
    skill_level: int | None
    unskilled_dm: int
    characteristic: str | None
    characteristic_dm: int
    difficulty: str
    difficulty_dm: int
    law_level: int | None
    circumstance: int
    dm: int
    assist_dm: int
    assist_by: str | None
    actions_dm: int
    time_rows: int
    increment: str

    @property
    def modifier(self) -> int:
        return (
            (self.skill_level or 0)
            + self.unskilled_dm
            + self.characteristic_dm
            + self.difficulty_dm
            + self.circumstance
            + self.dm
            + self.assist_dm
            + self.actions_dm
            + self.time_rows
        )


def _written(cmd: Check, state: TableState) -> Check:
    """The check with a written task statement read into its fields."""
    if not cmd.written:
        return cmd
    _on(state, "task_format", "written")
    task = tasks.parse(cmd.written)
    for field, given in (
        ("skill", cmd.skill),
        ("difficulty", cmd.difficulty),
        ("increment", cmd.increment),
    ):
        if given is not None:
            raise RuleError(f"{field}: already stated by the written task; give one or the other")
    if task.characteristic is not None and cmd.characteristic is not None:
        raise RuleError("characteristic: already stated by the written task; give one or the other")
    return msgspec.structs.replace(
        cmd,
        skill=task.skill,
        characteristic=task.characteristic or cmd.characteristic,
        difficulty=task.difficulty,
        increment=task.increment,
    )


def _difficulty(state: TableState, given: Any, law_level: int | None) -> tuple[str, int]:
    if law_level is None:
        return rules.difficulty(given)
    _on(state, "law_level", "law_level")
    if given is not None:
        raise RuleError("law_level: the law level sets the difficulty; give one or the other")
    return rules.law_difficulty(integer("law_level", law_level, 0))


def _assist_key(skill: str | None, characteristic: str | None) -> str:
    return _key(skill or characteristic or "")


def plan_check(cmd: Check, state: TableState) -> Plan:
    """Check a command against the rules and the state, before any die is rolled."""
    char = find_character(state, cmd.character)
    cmd = _written(cmd, state)
    if cmd.skill is None and cmd.characteristic is None:
        raise RuleError("check: name a skill, a characteristic, or both")
    skill, level = _skill(char, cmd.skill) if cmd.skill is not None else (None, None)
    unskilled_dm = rules.UNSKILLED_DM if cmd.skill is not None and level is None else 0
    characteristic, char_dm = (
        _characteristic(char, cmd.characteristic, state) if cmd.characteristic else (None, 0)
    )
    rung, diff_dm = _difficulty(state, cmd.difficulty, cmd.law_level)
    circumstance = rules.circumstance(cmd.circumstance)
    dm = integer("dm", cmd.dm, -MAX_DM, MAX_DM)
    actions = integer("actions", cmd.actions, 1, MAX_ACTIONS)
    if actions > 1:
        _on(state, "multiple_actions", "actions")
    increment = ""
    if cmd.increment is not None:
        if not state.options.get("time_trading"):
            _on(state, "task_time", "increment")
        if cmd.combat:
            raise RuleError("increment: in combat a task takes one round, not a rolled time")
        increment = tasks.increment(cmd.increment)
    rows = cmd.time_rows
    if rows:
        _on(state, "time_trading", "time_rows")
        if cmd.combat:
            raise RuleError("time_rows: a combat round is fixed; time cannot be traded in it")
        if not increment:
            raise RuleError("time_rows: trading time needs the task's increment")
        increment, rows = tasks.trade(increment, rows)
    if cmd.task:
        _check_task(state, cmd.task)
    pending = None
    if isinstance(char, EffectCharacter):
        pending = char.assists.get(_assist_key(skill, characteristic))
    label = skill or characteristic or ""
    return Plan(
        label=label,
        skill=skill,
        skill_level=level,
        unskilled_dm=unskilled_dm,
        characteristic=characteristic,
        characteristic_dm=char_dm,
        difficulty=rung,
        difficulty_dm=diff_dm,
        law_level=cmd.law_level,
        circumstance=circumstance,
        dm=dm,
        assist_dm=pending.dm if pending else 0,
        assist_by=pending.helper if pending else None,
        actions_dm=rules.multiple_action_dm(actions),
        time_rows=rows,
        increment=increment,
    )


def _world(state: TableState) -> EffectWorld:
    world = state.world
    assert isinstance(world, EffectWorld)
    return world


def _check_task(state: TableState, name: str) -> None:
    task = _world(state).tasks.get(_key(name))
    if task is None:
        return
    if task.status == "done":
        raise RuleError(f"task {name!r}: already done by {task.by}; repeating it gives nothing new")
    if task.status == "closed":
        why = f" ({task.reason})" if task.reason else ""
        raise RuleError(f"task {name!r}: the GM closed it{why}; it cannot be tried again")


def _check(cmd: Check, state: TableState, dice: Dice) -> list[Draft]:
    plan = plan_check(cmd, state)
    char = find_character(state, cmd.character)
    faces = dice.roll(6, 2)
    total, effect, success, band = rules.judge(faces, plan.modifier)
    time_die: int | None = None
    seconds: int | None = None
    if cmd.combat and state.options.get("task_time"):
        seconds = tasks.ROUND_SECONDS
    elif plan.increment and state.options.get("task_time"):
        time_die = dice.roll(6, 1)[0]
        seconds = tasks.duration(plan.increment, time_die)
    event = EffectChecked(
        actor=char.id,
        label=plan.label,
        skill=plan.skill,
        skill_level=plan.skill_level,
        unskilled=plan.unskilled_dm != 0,
        unskilled_dm=plan.unskilled_dm,
        characteristic=plan.characteristic,
        characteristic_dm=plan.characteristic_dm,
        difficulty=plan.difficulty,
        difficulty_dm=plan.difficulty_dm,
        law_level=plan.law_level,
        circumstance=plan.circumstance,
        dm=plan.dm,
        assist_dm=plan.assist_dm,
        assist_by=plan.assist_by,
        actions=cmd.actions,
        actions_dm=plan.actions_dm,
        time_rows=plan.time_rows,
        faces=faces,
        source=dice.source,
        total=total,
        effect=effect,
        success=success,
        band=band,
        task=_key(cmd.task),
        written=cmd.written,
        increment=plan.increment,
        time_die=time_die,
        seconds=seconds,
        combat=cmd.combat,
        reason=cmd.reason,
    )
    return [Draft(event)]


def _assist(cmd: Assist, state: TableState, dice: Dice) -> list[Draft]:
    helper = find_character(state, cmd.helper)
    char = find_character(state, cmd.character)
    if helper.id == char.id:
        raise RuleError(f"helper: {helper.name} cannot help themself")
    if cmd.skill is None and cmd.characteristic is None:
        raise RuleError("assist: name the skill (or the characteristic) of the check helped")
    key = _assist_key(cmd.skill, cmd.characteristic)
    if isinstance(char, EffectCharacter) and key in char.assists:
        other = char.assists[key].helper
        raise RuleError(
            f"assist: {char.name} already has {other}'s help on {key} (one helper per check)"
        )
    disposition = rules.disposition(
        cmd.disposition
        if cmd.disposition is not None
        else helper.sheet.get("disposition", "helpful")
    )
    skill, level = _skill(helper, cmd.skill) if cmd.skill is not None else (None, None)
    label = skill or cmd.characteristic or ""
    rung, diff_dm = rules.difficulty(cmd.difficulty)
    refusal = rules.assist_refusal(disposition, level, cmd.skill is not None)
    base: dict[str, Any] = {
        "helper": helper.id,
        "actor": char.id,
        "label": label,
        "disposition": disposition,
        "difficulty": rung,
        "difficulty_dm": diff_dm,
    }
    if refusal is not None:
        if isinstance(dice, TypedDice):
            dice.used = len(dice.faces)
        refused = EffectAssisted(
            **base, refused=True, reason=f"{helper.name} {refusal}", skill_level=level
        )
        return [Draft(refused)]
    used = rules.skill_brought(disposition, level) if level is not None else None
    characteristic, char_dm = (
        _characteristic(helper, cmd.characteristic, state) if cmd.characteristic else (None, 0)
    )
    faces = dice.roll(6, 2)
    total, effect, _, _ = rules.judge(faces, (used or 0) + char_dm + diff_dm)
    event = EffectAssisted(
        **base,
        skill_level=level,
        skill_used=used,
        characteristic=characteristic,
        characteristic_dm=char_dm,
        faces=faces,
        source=dice.source,
        total=total,
        effect=effect,
        dm=effect,
    )
    return [Draft(event)]


def _two_d6(dice: Dice, faces: Any, name: str) -> tuple[list[int], str]:
    """Two d6 for one side of an opposed check: typed faces, or rolled."""
    if faces is None:
        return dice.roll(6, 2), dice.source
    if not isinstance(faces, list) or len(faces) != 2:
        raise RuleError(f"{name}.faces: expected two d6 faces, 1..6 each")
    for face in faces:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise RuleError(f"{name}.faces: {face!r} is not a face of a d6 (1..6)")
    return list(faces), "typed"


def _side(side: Side, state: TableState, dice: Dice, name: str) -> EffectSide:
    char = find_character(state, side.character)
    plan = plan_check(
        Check(
            character=side.character,
            skill=side.skill,
            characteristic=side.characteristic,
            difficulty=side.difficulty,
            circumstance=side.circumstance,
            dm=side.dm,
        ),
        state,
    )
    modifier = plan.modifier - plan.assist_dm
    faces, source = _two_d6(dice, side.faces, name)
    total, effect, _, band = rules.judge(faces, modifier)
    return EffectSide(
        actor=char.id,
        label=plan.label,
        modifier=modifier,
        faces=faces,
        source=source,
        total=total,
        effect=effect,
        band=band,
    )


def _opposed(cmd: Opposed, state: TableState, dice: Dice) -> list[Draft]:
    _on(state, "opposed_checks", "opposed")
    a = _side(cmd.a, state, dice, "a")
    b = _side(cmd.b, state, dice, "b")
    if a.actor == b.actor:
        raise RuleError(f"b.character: {cmd.b.character!r} cannot oppose themself")
    winner = rules.opposed_winner(a.effect, b.effect)
    actor = {"a": a.actor, "b": b.actor}.get(winner or "")
    return [Draft(EffectOpposed(a=a, b=b, winner=actor, reason=cmd.reason))]


def _close(cmd: CloseTask, state: TableState) -> list[Draft]:
    name = _key(cmd.task)
    if not name:
        raise RuleError("task: name the task to close")
    task = _world(state).tasks.get(name)
    if task is not None and task.status == "done":
        raise RuleError(f"task {cmd.task!r}: already done by {task.by}; nothing to close")
    if task is not None and task.status == "closed":
        raise RuleError(f"task {cmd.task!r}: already closed")
    return [Draft(TaskClosed(task=name, reason=cmd.reason))]


def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if isinstance(command, Check):
        return _check(command, state, dice)
    if isinstance(command, Assist):
        return _assist(command, state, dice)
    if isinstance(command, Opposed):
        return _opposed(command, state, dice)
    if isinstance(command, CloseTask):
        return _close(command, state)
    raise RuleError(f"command {type(command).__name__} is not a 2d6-effect command")


# -- fold -------------------------------------------------------------------------------


def _on_check(state: TableState, record: Record) -> None:
    e: EffectChecked = record.event
    char = state.characters.get(e.actor)
    if isinstance(char, EffectCharacter):
        char.assists.pop(_assist_key(e.skill, e.characteristic), None)
        char.last = f"{e.label} {e.total} (Effect {e.effect:+d}, {e.band})"
    if e.task:
        task = _world(state).tasks.setdefault(e.task, TaskState())
        task.attempts += 1
        if e.success:
            task.status = "done"
            task.by = char.name if char else e.actor


def _on_assist(state: TableState, record: Record) -> None:
    e: EffectAssisted = record.event
    char = state.characters.get(e.actor)
    if e.refused or not isinstance(char, EffectCharacter):
        return
    key = _key(e.label)
    char.assists[key] = PendingAssist(helper=e.helper, dm=e.dm, seq=record.seq)


def _on_opposed(state: TableState, record: Record) -> None:
    e: EffectOpposed = record.event
    for side in (e.a, e.b):
        char = state.characters.get(side.actor)
        if isinstance(char, EffectCharacter):
            won = " (wins)" if e.winner == side.actor else ""
            char.last = f"{side.label} {side.total} (Effect {side.effect:+d}){won}"


def _on_closed(state: TableState, record: Record) -> None:
    e: TaskClosed = record.event
    task = _world(state).tasks.setdefault(e.task, TaskState())
    task.status = "closed"
    task.reason = e.reason


HANDLERS: dict[type[Event], Handler] = {
    EffectChecked: _on_check,
    EffectAssisted: _on_assist,
    EffectOpposed: _on_opposed,
    TaskClosed: _on_closed,
}


# -- screens ----------------------------------------------------------------------------


def _dms(e: Mapping[str, Any]) -> str:
    parts = []
    if e.get("skill_level") is not None:
        parts.append(f"{e['skill']} {e['skill_level']:+d}")
    if e.get("unskilled_dm"):
        parts.append(f"unskilled {e['unskilled_dm']:+d}")
    if e.get("characteristic"):
        parts.append(f"{e['characteristic']} {e.get('characteristic_dm', 0):+d}")
    law = f", law {e['law_level']}" if e.get("law_level") is not None else ""
    parts.append(f"{e.get('difficulty', 'average')}{law} {e.get('difficulty_dm', 0):+d}")
    for field, name in (
        ("circumstance", "situation"),
        ("dm", "DM"),
        ("assist_dm", "help"),
        ("actions_dm", "actions"),
        ("time_rows", "time traded"),
    ):
        if e.get(field):
            parts.append(f"{name} {e[field]:+d}")
    return ", ".join(parts)


def describe(e: dict[str, Any]) -> str | None:
    tag = e.get("type")
    if tag == "effect.check":
        why = f" for {e['reason']}" if e.get("reason") else ""
        task = f" [task {e['task']}]" if e.get("task") else ""
        typed = " (typed)" if e.get("source") == "typed" else ""
        faces = "+".join(str(f) for f in e["faces"])
        time = ""
        if e.get("seconds") is not None:
            rolled = f" ({e['time_die']} x {e['increment']})" if e.get("time_die") else " (a round)"
            time = f"; takes {tasks.show_seconds(e['seconds'])}{rolled}"
        return (
            f"{e['actor']} checks {e['label']}{why}{task}: {faces}{typed} ({_dms(e)})"
            f" = {e['total']} vs 8 -> {e['band']}, Effect {e['effect']:+d}{time}"
        )
    if tag == "effect.assist":
        if e.get("refused"):
            return f"{e['helper']} will not help {e['actor']} with {e['label']}: {e['reason']}"
        faces = "+".join(str(f) for f in e["faces"])
        return (
            f"{e['helper']} ({e['disposition']}) helps {e['actor']} with {e['label']}: {faces} "
            f"= {e['total']}, Effect {e['effect']:+d} -> DM {e['dm']:+d} on the check"
        )
    if tag == "effect.opposed":
        a, b = e["a"], e["b"]
        result = f"{e['winner']} wins" if e.get("winner") else "equal Effect, nobody wins"
        return (
            f"opposed: {a['actor']} {a['label']} {a['total']} (Effect {a['effect']:+d}) against "
            f"{b['actor']} {b['label']} {b['total']} (Effect {b['effect']:+d}): {result}"
        )
    if tag == "effect.task-closed":
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"task {e['task']} is closed: no further attempts{why}"
    return None


def status(char: Character, state: TableState) -> list[str]:
    items = []
    if isinstance(char, EffectCharacter):
        for key, pending in char.assists.items():
            items.append(f"help {pending.dm:+d} on {key} ({pending.helper})")
        if char.last:
            items.append(char.last)
    return items


def odds(command: Command, state: TableState) -> Odds | None:
    if isinstance(command, Check):
        plan = plan_check(command, state)
        success, bands = rules.odds(plan.modifier)
        char = find_character(state, command.character)
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{char.name}: {plan.label} {plan.modifier:+d} vs 8",
        )
    if isinstance(command, Assist):
        helper = find_character(state, command.helper)
        skill, level = _skill(helper, command.skill) if command.skill else (None, None)
        disposition = command.disposition or helper.sheet.get("disposition", "helpful")
        if rules.assist_refusal(rules.disposition(disposition), level, command.skill is not None):
            return None
        used = rules.skill_brought(disposition, level) if level is not None else 0
        char_dm = (
            _characteristic(helper, command.characteristic, state)[1]
            if command.characteristic
            else 0
        )
        modifier = used + char_dm + rules.difficulty(command.difficulty)[1]
        success, bands = rules.odds(modifier)
        return Odds(
            success=float(success),
            bands={k: float(v) for k, v in bands.items()},
            label=f"{helper.name} helping: {skill or command.characteristic} {modifier:+d} vs 8",
        )
    if isinstance(command, Opposed):
        mods = []
        for side in (command.a, command.b):
            check = Check(
                character=side.character,
                skill=side.skill,
                characteristic=side.characteristic,
                difficulty=side.difficulty,
                circumstance=side.circumstance,
                dm=side.dm,
            )
            plan = plan_check(check, state)
            mods.append(plan.modifier - plan.assist_dm)
        chances = rules.opposed_odds(mods[0], mods[1])
        return Odds(
            success=float(chances["a"]),
            bands={
                "a wins": float(chances["a"]),
                "b wins": float(chances["b"]),
                "tie": float(chances["tie"]),
            },
            label=f"{command.a.character} {mods[0]:+d} against {command.b.character} {mods[1]:+d}",
        )
    return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    characteristics: set[str] = set()
    for char in state.characters.values():
        skills.update(char.sheet.get("skills", {}))
        characteristics.update(char.sheet.get("characteristics", {}))
    return {
        "character": sorted(c.name for c in state.characters.values()),
        "skill": sorted(skills),
        "characteristic": sorted(characteristics),
        "difficulty": list(rules.LADDER),
        "disposition": list(rules.DISPOSITIONS),
        "increment": list(tasks.ROWS),
        "command": ["check", "assist", "opposed", "close"],
    }


def _rung_at(words: list[str], i: int) -> tuple[str, int] | None:
    """A ladder rung starting at word ``i`` (one or two words) and how many words it takes."""
    for size in (2, 1):
        key = rules.rung_name(" ".join(words[i : i + size]))
        if i + size <= len(words) and key in rules.LADDER:
            return key, size
    return None


def _check_words(words: list[str], state: TableState, who: str) -> dict[str, Any]:
    """``vex electronics int difficult +1``: skill words, a characteristic, a rung, a +/-1."""
    if not words:
        raise RuleError(f"{who}: name a character, then a skill or characteristic")
    char = find_character(state, words[0])
    out: dict[str, Any] = {"character": char.name}
    skill: list[str] = []
    i = 1
    while i < len(words):
        word = words[i]
        rung = _rung_at(words, i)
        if rung is not None:
            out["difficulty"] = rung[0]
            i += rung[1]
            continue
        if word.lower() == "law" and i + 1 < len(words) and words[i + 1].isdigit():
            out["law_level"] = int(words[i + 1])
            i += 2
            continue
        if word in ("+1", "-1"):
            out["circumstance"] = int(word)
        elif _lookup(char.sheet.get("characteristics", {}), word) is not None:
            out["characteristic"] = word
        else:
            skill.append(word)
        i += 1
    if skill:
        out["skill"] = " ".join(skill)
    return out


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head == "check":
        return {"type": "check", **_check_words(rest, state, "check")}
    if head == "assist":
        if len(rest) < 3:
            raise RuleError("assist: write it as 'assist mira vex electronics'")
        helper = find_character(state, rest[0])
        helped = _check_words(rest[1:], state, "assist")
        helped.pop("circumstance", None)
        helped.pop("law_level", None)
        return {"type": "assist", "helper": helper.name, **helped}
    if head == "opposed":
        low = [w.lower() for w in rest]
        if "vs" not in low:
            raise RuleError("opposed: write it as 'opposed vex electronics vs mira electronics'")
        cut = low.index("vs")
        sides = []
        for part in (rest[:cut], rest[cut + 1 :]):
            side = _check_words(part, state, "opposed")
            side.pop("law_level", None)
            sides.append(side)
        return {"type": "opposed", "a": sides[0], "b": sides[1]}
    if head in ("close", "close-task"):
        if not rest:
            raise RuleError("close: name the task to close")
        return {"type": "close-task", "task": " ".join(rest)}
    return None


# -- margin resolve ---------------------------------------------------------------------


def _skill_level(value: Any, name: str = "skill") -> int | None:
    return None if value is None else integer(name, value, 0)


def _modifier(f: dict[str, Any], prefix: str = "") -> tuple[int, dict[str, Any]]:
    """The sum of a resolve request's DMs, and the breakdown echoed back."""
    level = _skill_level(f["skill"], f"{prefix}skill")
    char_dm = integer(f"{prefix}characteristic_dm", f["characteristic_dm"], -MAX_DM, MAX_DM)
    if f.get("law_level") is not None:
        if f["difficulty"] is not None:
            raise RuleError(
                f"{prefix}law_level: the law level sets the difficulty; give one or the other"
            )
        rung, diff_dm = rules.law_difficulty(integer(f"{prefix}law_level", f["law_level"], 0))
    else:
        rung, diff_dm = rules.difficulty(f["difficulty"], f"{prefix}difficulty")
    circumstance = rules.circumstance(f["circumstance"], f"{prefix}circumstance")
    dm = integer(f"{prefix}dm", f["dm"], -MAX_DM, MAX_DM)
    actions_dm = rules.multiple_action_dm(
        integer(f"{prefix}actions", f.get("actions", 1), 1, MAX_ACTIONS)
    )
    rows = f.get("time_rows", 0)
    if rows:
        tasks.trade("minutes", rows)
    unskilled = rules.UNSKILLED_DM if level is None else 0
    total = (level or 0) + unskilled + char_dm + diff_dm + circumstance + dm + actions_dm + rows
    return total, {
        "modifier": total,
        "difficulty": rung,
        "difficulty_dm": diff_dm,
        "unskilled": level is None,
    }


_CHECK = {
    "skill": "REQUIRED",
    "characteristic_dm": 0,
    "difficulty": None,
    "law_level": None,
    "circumstance": 0,
    "dm": 0,
    "actions": 1,
    "time_rows": 0,
}


def _spec(spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    required = _fields().REQUIRED
    return {k: required if v == "REQUIRED" else v for k, v in {**spec, **extra}.items()}


def _result(faces: list[int], modifier: int, breakdown: dict[str, Any]) -> dict[str, Any]:
    total, effect, success, band = rules.judge(faces, modifier)
    return {
        "faces": faces,
        "total": total,
        "effect": effect,
        "success": success,
        "band": band,
        **breakdown,
    }


def resolve_check(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec(_CHECK, faces=None))
    modifier, breakdown = _modifier(f)
    return _result(dice.roll(6, 2), modifier, breakdown)


def resolve_odds(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec(_CHECK))
    modifier, breakdown = _modifier(f)
    success, bands = rules.odds(modifier)
    return {
        "success": float(success),
        "bands": {k: float(v) for k, v in bands.items()},
        **breakdown,
    }


def resolve_assist(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    spec = {
        "skill": "REQUIRED",
        "characteristic_dm": 0,
        "difficulty": None,
        "disposition": "REQUIRED",
    }
    f = _fields().take(fields, _spec(spec, faces=None))
    level = _skill_level(f["skill"])
    char_dm = integer("characteristic_dm", f["characteristic_dm"], -MAX_DM, MAX_DM)
    rung, diff_dm = rules.difficulty(f["difficulty"])
    disposition = rules.disposition(f["disposition"])
    refusal = rules.assist_refusal(disposition, level, True)
    if refusal is not None:
        if isinstance(dice, TypedDice):
            dice.used = len(dice.faces)
        return {"refused": True, "reason": f"the helper {refusal}", "faces": []}
    assert level is not None
    used = rules.skill_brought(disposition, level)
    faces = dice.roll(6, 2)
    total, effect, _, _ = rules.judge(faces, used + char_dm + diff_dm)
    return {
        "refused": False,
        "reason": None,
        "faces": faces,
        "skill_used": used,
        "total": total,
        "effect": effect,
        "dm": effect,
        "difficulty": rung,
    }


def resolve_opposed(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec({"a": "REQUIRED", "b": "REQUIRED"}))
    out: dict[str, Any] = {}
    for name in ("a", "b"):
        side = f[name]
        if not isinstance(side, dict):
            raise RuleError(f"{name}: expected an object with the fields of a check")
        s = _fields().take(side, _spec(_CHECK, faces=None))
        modifier, breakdown = _modifier(s, f"{name}.")
        faces, _ = _two_d6(dice, s["faces"], name)
        out[name] = _result(faces, modifier, breakdown)
    out["winner"] = rules.opposed_winner(out["a"]["effect"], out["b"]["effect"])
    return out


def resolve_task_time(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    spec = {"increment": None, "time_rows": 0, "combat": False, "faces": None}
    f = _fields().take(fields, spec)
    if _fields().boolean("combat", f["combat"]):
        if f["increment"] is not None or f["time_rows"]:
            raise RuleError(
                "combat: a combat action takes one round; give no increment or time_rows"
            )
        return {"combat": True, "faces": [], "seconds": tasks.ROUND_SECONDS, "dm": 0}
    if not isinstance(f["increment"], str):
        raise RuleError(f"increment: expected a row of the time ladder ({', '.join(tasks.ROWS)})")
    row, dm = tasks.trade(tasks.increment(f["increment"]), f["time_rows"])
    die = dice.roll(6, 1)
    return {
        "combat": False,
        "increment": row,
        "faces": die,
        "seconds": tasks.duration(row, die[0]),
        "dm": dm,
    }


def resolve_parse_task(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec({"text": "REQUIRED"}))
    if not isinstance(f["text"], str):
        raise RuleError("text: expected the task statement as a string")
    task = tasks.parse(f["text"])
    return {
        "description": task.description,
        "skill": task.skill,
        "characteristic": task.characteristic,
        "increment": task.increment,
        "difficulty": task.difficulty,
        "difficulty_dm": task.difficulty_dm,
    }


def resolve_characteristic(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec({"score": "REQUIRED"}))
    return {"dm": rules.characteristic_dm(integer("score", f["score"], 0))}


def resolve_law(fields: dict[str, Any], dice: Dice) -> dict[str, Any]:
    f = _fields().take(fields, _spec({"law_level": "REQUIRED"}))
    rung, dm = rules.law_difficulty(integer("law_level", f["law_level"], 0))
    return {"difficulty": rung, "difficulty_dm": dm}


RESOLVE = {
    "check": resolve_check,
    "odds": resolve_odds,
    "assist": resolve_assist,
    "opposed": resolve_opposed,
    "task-time": resolve_task_time,
    "parse-task": resolve_parse_task,
    "characteristic-dm": resolve_characteristic,
    "law-level": resolve_law,
}


# -- demo -------------------------------------------------------------------------------

DEMO: tuple[dict[str, Any], ...] = (
    {
        "type": "add-character",
        "name": "Vex",
        "sheet": {
            "characteristics": {"STR": 6, "DEX": 9, "INT": 10, "EDU": 8, "SOC": 5},
            "skills": {"Electronics": 2, "Pilot": 1, "Gun Combat": 0},
        },
    },
    {
        "type": "add-character",
        "name": "Mira",
        "sheet": {
            "characteristics": {"STR": 8, "DEX": 7, "INT": 12, "EDU": 11, "SOC": 9},
            "skills": {"Electronics": 3, "Persuade": 1, "Medic": 2},
        },
    },
    {
        "type": "add-character",
        "name": "Dock Boss",
        "sheet": {
            "characteristics": {"INT": 7, "SOC": 6},
            "skills": {"Broker": 2},
            "disposition": "friendly",
        },
    },
    {
        "type": "add-character",
        "name": "Bartender",
        "sheet": {
            "characteristics": {"INT": 6},
            "skills": {"Carouse": 2},
            "disposition": "friendly",
        },
    },
    {"type": "assist", "helper": "Bartender", "character": "Vex", "skill": "Electronics"},
    {
        "type": "assist",
        "helper": "Mira",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "faces": [5, 4],
    },
    {
        "type": "check",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "task": "the port computer",
        "faces": [1, 1],
        "reason": "the password",
    },
    {
        "type": "check",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "circumstance": 1,
        "task": "the port computer",
        "faces": [6, 2],
    },
    {
        "type": "check",
        "character": "Mira",
        "skill": "Streetwise",
        "characteristic": "SOC",
        "law_level": 8,
        "faces": [4, 4],
        "reason": "a restricted sidearm past the port",
    },
    {
        "type": "check",
        "character": "Vex",
        "characteristic": "STR",
        "task": "the cargo door",
        "faces": [1, 2],
        "reason": "shoving the jammed door",
    },
    {"type": "close-task", "task": "the cargo door", "reason": "the handle snapped off"},
)


SYSTEM = System(
    id="2d6-effect",
    title="2d6-effect",
    summary="2D6 + DMs against 8, Effect bands, assistance and a difficulty ladder",
    options=OPTIONS,
    commands=COMMANDS,
    handlers=HANDLERS,
    decide=decide,
    make_character=make_character,
    check_sheet=check_sheet,
    initial_world=initial_world,
    resolve=RESOLVE,
    demo=DEMO,
    rules_doc="2d6-effect.md",
    describe=describe,
    status=status,
    odds=odds,
    parse_words=parse_words,
    vocabulary=vocabulary,
)
