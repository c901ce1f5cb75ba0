"""2d6-effect commands, and deciding them into events."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import msgspec

from margin.events import Draft, Visibility
from margin.events.systems.effect import (
    CHECK_SECRET,
    EffectAssisted,
    EffectChecked,
    EffectOpposed,
    EffectSide,
    TaskClosed,
)

from ...dice import Dice, TypedDice
from ...errors import RuleError
from ...history import History
from ...inputs import is_whole_in
from ...state import Character, TableState, find_character
from ..base import Command
from . import rules
from .commands import (
    Assist,
    Check,
    CloseTask,
    Opposed,
    Side,
)
from .state import (
    EffectCharacter,
    characteristic_of,
    name_key,
    rule_on,
    skill_of,
    world,
)


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
    #: the record of the help used, which the check then answers (undoing the help undoes it)
    assist_seq: int | None
    actions_dm: int
    time_rows: int
    increment: str

    def recorded(self) -> dict[str, Any]:
        """The plan as the check's record keeps it, field for field (the help it answers is
        the record's cause, not a field)."""
        fields = dataclasses.asdict(self)
        del fields["assist_seq"]
        return fields

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
    rule_on(state, "task_format", "written")
    task = rules.parse(cmd.written)
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
    rule_on(state, "law_level", "law_level")
    if given is not None:
        raise RuleError("law_level: the law level sets the difficulty; give one or the other")
    return rules.law_difficulty(law_level)


def assist_key(skill: str | None, characteristic: str | None) -> str:
    return name_key(skill or characteristic or "")


def plan_check(cmd: Check, state: TableState) -> Plan:
    """Check a command against the rules and the state, before any die is rolled."""
    char = find_character(state, cmd.character)
    cmd = _written(cmd, state)
    if cmd.skill is None and cmd.characteristic is None:
        raise RuleError("check: name a skill, a characteristic, or both")
    skill, level = _skill(char, cmd.skill)
    characteristic, char_dm = _characteristic(char, cmd.characteristic, state)
    rung, diff_dm = _difficulty(state, cmd.difficulty, cmd.law_level)
    circumstance = rules.circumstance(cmd.circumstance)
    if cmd.actions > 1:
        rule_on(state, "multiple_actions", "actions")
    increment, rows = _timing(cmd, state)
    if cmd.task:
        _check_task(state, cmd.task)
    assist_dm, assist_by, assist_seq = _help(char, skill, characteristic)
    return Plan(
        label=skill or characteristic or "",
        skill=skill,
        skill_level=level,
        unskilled_dm=rules.UNSKILLED_DM if cmd.skill is not None and level is None else 0,
        characteristic=characteristic,
        characteristic_dm=char_dm,
        difficulty=rung,
        difficulty_dm=diff_dm,
        law_level=cmd.law_level,
        circumstance=circumstance,
        dm=cmd.dm,
        assist_dm=assist_dm,
        assist_by=assist_by,
        assist_seq=assist_seq,
        actions_dm=rules.multiple_action_dm(cmd.actions),
        time_rows=rows,
        increment=increment,
    )


def _skill(char: Character, name: str | None) -> tuple[str | None, int | None]:
    """A skill named for a check and the character's level in it; (None, None) when none is."""
    return (None, None) if name is None else skill_of(char, name)


def _characteristic(char: Character, name: str | None, state: TableState) -> tuple[str | None, int]:
    """A characteristic named for a check and its DM; (None, 0) when none is."""
    return (None, 0) if name is None else characteristic_of(char, name, state)


def _timing(cmd: Check, state: TableState) -> tuple[str, int]:
    """A check's time increment, and the rows of time traded for a DM (``time_rows``)."""
    increment = "" if cmd.increment is None else _increment(cmd.increment, cmd, state)
    if not cmd.time_rows:
        return increment, 0
    rule_on(state, "time_trading", "time_rows")
    if cmd.combat:
        raise RuleError("time_rows: a combat round is fixed; time cannot be traded in it")
    if not increment:
        raise RuleError("time_rows: trading time needs the task's increment")
    return rules.trade(increment, cmd.time_rows)


def _increment(given: str, cmd: Check, state: TableState) -> str:
    """The time increment ``given`` for a check, where the table's options let it be given."""
    # a formal written task always states its time; it is only rolled with task_time
    if not state.options.get("time_trading") and not cmd.written:
        rule_on(state, "task_time", "increment")
    if cmd.combat:
        raise RuleError("increment: in combat a task takes one round, not a rolled time")
    return rules.increment(given)


def _help(
    char: Character, skill: str | None, characteristic: str | None
) -> tuple[int, str | None, int | None]:
    """The help waiting for a check: its DM, who gave it and the record that gave it."""
    found = None
    if isinstance(char, EffectCharacter):
        found = char.assists.get(assist_key(skill, characteristic))
    return (found.dm, found.helper, found.seq) if found else (0, None, None)


def _check_one_helper(char: Character, label: str) -> None:
    """Refuse a second offer of help with one check."""
    # the key the help will wait under (see the fold)
    key = name_key(label)
    if isinstance(char, EffectCharacter) and key in char.assists:
        other = char.assists[key].helper
        raise RuleError(
            f"assist: {char.name} already has {other}'s help on {key} (one helper per check)"
        )


def _check_task(state: TableState, name: str) -> None:
    task = world(state).tasks.get(name_key(name))
    if task is None:
        return
    if task.status == "done":
        raise RuleError(f"task {name!r}: already done by {task.by}; repeating it gives nothing new")
    if task.status == "closed":
        why = f" ({task.reason})" if task.reason else ""
        raise RuleError(f"task {name!r}: the GM closed it{why}; it cannot be tried again")


def _judged(faces: list[int], source: str, modifier: int) -> tuple[dict[str, Any], bool, str]:
    """Two d6 and what they make with ``modifier``: the fields every 2D6 record keeps
    (the faces, where they came from, the total and its Effect), and the success and
    band they give."""
    total, effect, success, band = rules.judge(faces, modifier)
    return {"faces": faces, "source": source, "total": total, "effect": effect}, success, band


def _check(cmd: Check, state: TableState, dice: Dice) -> list[Draft]:
    plan = plan_check(cmd, state)
    char = find_character(state, cmd.character)
    rolled, success, band = _judged(dice.roll(6, 2), dice.source, plan.modifier)
    time_die: int | None = None
    seconds: int | None = None
    if cmd.combat and state.options.get("task_time"):
        seconds = rules.ROUND_SECONDS
    elif plan.increment and state.options.get("task_time"):
        time_die = dice.roll(6, 1)[0]
        seconds = rules.duration(plan.increment, time_die)
    event = EffectChecked(
        actor=char.id,
        **plan.recorded(),
        **rolled,
        unskilled=plan.unskilled_dm != 0,
        actions=cmd.actions,
        success=success,
        band=band,
        task=name_key(cmd.task),
        written=cmd.written,
        time_die=time_die,
        seconds=seconds,
        combat=cmd.combat,
        reason=cmd.reason,
        secret=cmd.secret,
    )
    hidden = CHECK_SECRET if cmd.secret else ()
    return [Draft(event, cause=plan.assist_seq, visibility=Visibility(hidden=hidden))]


@dataclass(frozen=True)
class AssistPlan:
    """Help with a check before its dice: what both rolling it and its odds use."""

    helper: Character
    label: str
    disposition: str
    difficulty: str
    difficulty_dm: int
    skill_level: int | None
    #: why the helper will not help (their disposition towards the party, their skill)
    refusal: str | None
    skill_used: int | None = None
    characteristic: str | None = None
    characteristic_dm: int = 0

    @property
    def modifier(self) -> int:
        return (self.skill_used or 0) + self.characteristic_dm + self.difficulty_dm


def plan_assist(cmd: Assist, state: TableState) -> AssistPlan:
    """Check an offer of help against the rules and the state, before any die is rolled."""
    helper = find_character(state, cmd.helper)
    char = find_character(state, cmd.character)
    if helper.id == char.id:
        raise RuleError(f"helper: {helper.name} cannot help themself")
    if cmd.skill is None and cmd.characteristic is None:
        raise RuleError("assist: name the skill (or the characteristic) of the check helped")
    skill, level = _skill(helper, cmd.skill)
    label = skill or cmd.characteristic or ""
    _check_one_helper(char, label)
    given = cmd.disposition
    disposition = rules.disposition(
        helper.sheet.get("disposition", "helpful") if given is None else given
    )
    rung, diff_dm = rules.difficulty(cmd.difficulty)
    refusal = rules.assist_refusal(disposition, level, cmd.skill is not None)
    if refusal is not None:
        return AssistPlan(helper, label, disposition, rung, diff_dm, level, refusal)
    used = rules.skill_brought(disposition, level) if level is not None else None
    characteristic, char_dm = _characteristic(helper, cmd.characteristic, state)
    return AssistPlan(
        helper, label, disposition, rung, diff_dm, level, None, used, characteristic, char_dm
    )


def _assist(cmd: Assist, state: TableState, dice: Dice) -> list[Draft]:
    plan = plan_assist(cmd, state)
    base: dict[str, Any] = {
        "helper": plan.helper.id,
        "actor": find_character(state, cmd.character).id,
        "label": plan.label,
        "disposition": plan.disposition,
        "difficulty": plan.difficulty,
        "difficulty_dm": plan.difficulty_dm,
    }
    if plan.refusal is not None:
        if isinstance(dice, TypedDice):
            dice.release()
        reason = f"{plan.helper.name} {plan.refusal}"
        refused = EffectAssisted(**base, refused=True, reason=reason, skill_level=plan.skill_level)
        return [Draft(refused)]
    rolled, _, _ = _judged(dice.roll(6, 2), dice.source, plan.modifier)
    event = EffectAssisted(
        **base,
        **rolled,
        skill_level=plan.skill_level,
        skill_used=plan.skill_used,
        characteristic=plan.characteristic,
        characteristic_dm=plan.characteristic_dm,
        # the helper's Effect is the DM the helped check gets
        dm=rolled["effect"],
    )
    return [Draft(event)]


def two_d6(dice: Dice, faces: Any, name: str) -> tuple[list[int], str]:
    """Two d6 for one side of an opposed check: typed faces, or rolled."""
    if faces is None:
        return dice.roll(6, 2), dice.source
    if not isinstance(faces, list) or len(faces) != 2:
        raise RuleError(f"{name}.faces: expected two d6 faces, 1..6 each")
    for face in faces:
        if not is_whole_in(face, 1, 6):
            raise RuleError(f"{name}.faces: {face!r} is not a face of a d6 (1..6)")
    return list(faces), "typed"


def _side(side: Side, state: TableState, dice: Dice, name: str) -> EffectSide:
    char = find_character(state, side.character)
    plan = plan_check(side.check(), state)
    modifier = plan.modifier - plan.assist_dm
    rolled, _, band = _judged(*two_d6(dice, side.faces, name), modifier)
    return EffectSide(actor=char.id, label=plan.label, modifier=modifier, **rolled, band=band)


def _opposed(cmd: Opposed, state: TableState, dice: Dice) -> list[Draft]:
    rule_on(state, "opposed_checks", "opposed")
    a = _side(cmd.a, state, dice, "a")
    b = _side(cmd.b, state, dice, "b")
    if a.actor == b.actor:
        raise RuleError(f"b.character: {cmd.b.character!r} cannot oppose themself")
    winner = rules.opposed_winner(a.effect, b.effect)
    actor = {"a": a.actor, "b": b.actor}.get(winner or "")
    return [Draft(EffectOpposed(a=a, b=b, winner=actor, reason=cmd.reason))]


def _close(cmd: CloseTask, state: TableState) -> list[Draft]:
    name = name_key(cmd.task)
    if not name:
        raise RuleError("task: name the task to close")
    task = world(state).tasks.get(name)
    if task is not None and task.status == "done":
        raise RuleError(f"task {cmd.task!r}: already done by {task.by}; nothing to close")
    if task is not None and task.status == "closed":
        raise RuleError(f"task {cmd.task!r}: already closed")
    return [Draft(TaskClosed(task=name, reason=cmd.reason))]


_DECIDERS: dict[type[Command], Any] = {
    Check: _check,
    Assist: _assist,
    Opposed: _opposed,
    CloseTask: lambda cmd, state, dice: _close(cmd, state),
}


def decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    """Decide a 2d6-effect command; records about hidden characters only are GM-only."""
    drafts: list[Draft] = _DECIDERS[type(command)](command, state, dice)
    return drafts
