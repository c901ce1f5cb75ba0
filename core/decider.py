"""The Decider: ``decide`` turns a command into events, ``evolve`` folds them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import msgspec

from margin.events import (
    Branched,
    CharacterAdded,
    CharacterCarried,
    CharacterRemoved,
    CharacterUpdated,
    ConditionAdded,
    DiceEntropy,
    DiceOpened,
    Draft,
    Event,
    Noted,
    OptionSet,
    Record,
    Redone,
    Revealed,
    Rolled,
    TableCreated,
    Undone,
    Visibility,
    records_after,
)
from margin.events.players import Answered, Prompted, Requested, Ruled, Said, Whispered

from . import clock, conditions, counters, edits, fairness
from . import dice as dicemod
from .authority import GM, GM_SEAT, Seat, authorize, given, player_error
from .commands import (
    Accept,
    AddCharacter,
    AddCondition,
    AdjustCounter,
    Alias,
    Amend,
    Answer,
    Ask,
    Each,
    Edit,
    EndSession,
    Entropy,
    HealthView,
    Note,
    Redo,
    Refuse,
    RemoveCharacter,
    RemoveCondition,
    RemoveCounter,
    Rename,
    Reveal,
    RollDice,
    Say,
    SetCounter,
    SetOption,
    Undo,
    UpdateCharacter,
    Whisper,
    convert_command,
)
from .dice import Dice, TypedDice
from .errors import RuleError
from .history import History
from .policy import seal
from .state import (
    Character,
    LastRoll,
    Prompt,
    Request,
    TableState,
    character_id,
    find_character,
    snapshot,
)
from .systems import SYSTEMS, get_system
from .systems.base import Command, Handler, System
from .targets import group

#: Fields of a secret free roll that players do not see.
SECRET_ROLL_FIELDS = Rolled.PLAYER.secret


def create_table(
    system: str, options: dict[str, Any] | None = None, title: str = ""
) -> TableCreated:
    """The first event of a new table, with every option resolved to a value."""
    sys = get_system(system)
    resolved = sys.default_options()
    for name, value in (options or {}).items():
        resolved[name] = sys.option(name).check(value)
    return TableCreated(system=system, options=resolved, title=title)


def decide(
    command: Command,
    state: TableState,
    dice: Dice,
    history: History | None = None,
    seat: Seat = GM_SEAT,
) -> list[Draft]:
    """Check a command against the state; the events it produces, or a ``RuleError``.

    When the command carries ``faces`` (physical dice typed in), they replace
    ``dice`` and must all be used. A command from a player's ``seat`` is first
    checked by ``core.authority`` (``Refused`` when the seat may not give it), and
    becomes a request for the GM when the table's ``players`` option asks for one.
    """
    history = history if history is not None else History()
    if not seat.gm:
        drafts, author = _as_player(command, state, dice, history, seat)
        return seal(drafts, state, history, author)
    drafts = _decide(command, state, dice, history)
    drafts += _expiries(drafts, state)
    return seal(drafts, state, history)


def _as_player(
    command: Command, state: TableState, dice: Dice, history: History, seat: Seat
) -> tuple[list[Draft], str]:
    """The drafts of a player's command, and the author each names: the seat."""
    if isinstance(command, RollDice) and command.actor.lower() == GM:
        # a player's free roll is their own character's
        command = msgspec.structs.replace(command, actor=seat.name)
    if isinstance(command, Answer) and not command.character:
        # a player answers their own prompt
        command = msgspec.structs.replace(command, character=seat.name)
    permit = authorize(seat, command, state)
    cid = permit.character or GM
    try:
        drafts = _seat_drafts(command, cid, permit.route, state, dice, history)
    except RuleError as exc:
        raise player_error(state.characters[cid].name, exc, state) from None
    if permit.route == "request":
        asked = Requested(seat=cid, asked=given(command))
        return [Draft(asked, visibility=Visibility(to=cid))], permit.author
    # drafts fresh from the rules carry no dice yet (``decide_committed`` adds them after):
    # sealing them names the author
    return drafts, permit.author


def _seat_drafts(
    command: Command, cid: str, route: str, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    """The drafts of a command from the seat of ``cid``, as the GM would get them: a request
    the rules would refuse is refused now, not when the GM rules (its trial draws none of
    the table's dice)."""
    if isinstance(command, Say):
        return _said(command, cid)
    if isinstance(command, Whisper):
        return _whispered(command, cid, state)
    drafts = _decide(command, state, dice if route == "apply" else _Trial(), history)
    return drafts + _expiries(drafts, state)


class _Trial:
    """Dice for trying a command before the GM rules on it: every die shows 1, and
    nothing is drawn from the table's dice."""

    source = "rng"

    def roll(self, sides: int, count: int = 1) -> list[int]:
        return [1] * count


def _said(cmd: Say, seat: str) -> list[Draft]:
    text = " ".join(cmd.text.split())
    if not text:
        raise RuleError("say: say something (say TEXT)")
    return [Draft(Said(seat=seat, text=text))]


def _say(cmd: Say, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return _said(cmd, GM)


def _whispered(cmd: Whisper, seat: str, state: TableState) -> list[Draft]:
    """A whisper from ``seat``: the GM's to a player's character, a player's to the GM; the
    record is addressed to the player, so no other player learns of it."""
    text = " ".join(cmd.text.split())
    if not text:
        raise RuleError("whisper: say something (whisper NAME TEXT)")
    if seat != GM:
        if cmd.to.strip().lower() != GM:
            raise RuleError(f"whisper: a player whispers to the GM only (whisper gm {text})")
        return [Draft(Whispered(seat=seat, to=GM, text=text), visibility=Visibility(to=seat))]
    char = find_character(state, cmd.to)
    if char.hidden or char.npc:
        raise RuleError(f"whisper: {char.name} has no player to whisper to")
    return [Draft(Whispered(seat=GM, to=char.id, text=text), visibility=Visibility(to=char.id))]


def _whisper(cmd: Whisper, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return _whispered(cmd, GM, state)


def _pending(state: TableState, seq: int, verb: str) -> Request:
    """The request waiting at record ``seq``; a clear error naming those that wait."""
    found = state.requests.get(seq)
    if found is None:
        waiting = ", ".join(f"#{n}" for n in sorted(state.requests)) or "none"
        raise RuleError(f"{verb}: record #{seq} is no request waiting for a ruling ({waiting})")
    return found


def _ruling(cmd: Accept | Amend | Refuse, req: Request, ruling: Any, **more: Any) -> Draft:
    event = Ruled(request=cmd.request, seat=req.seat, ruling=ruling, **more)
    return Draft(event, cause=cmd.request, visibility=Visibility(to=req.seat))


def _applied(
    command: Command, cmd: Accept | Amend, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    """A ruled request's command decided as the GM's, answering the request."""
    if isinstance(command, Undo | Redo | Accept | Amend | Refuse):
        raise RuleError(f"amend: a request is ruled by one command, not by {_tag(command)!r}")
    drafts = _decide(command, state, dice, history)
    return [d if d.cause is not None else replace(d, cause=cmd.request) for d in drafts]


def _tag(command: Command) -> str:
    return str(type(command).__struct_config__.tag)


def _accept(cmd: Accept, state: TableState, dice: Dice, history: History) -> list[Draft]:
    req = _pending(state, cmd.request, "accept")
    command = convert_command(state.system, req.command)
    drafts = [replace(d, author=req.author) for d in _applied(command, cmd, state, dice, history)]
    return [*drafts, _ruling(cmd, req, "accepted")]


def _amend(cmd: Amend, state: TableState, dice: Dice, history: History) -> list[Draft]:
    req = _pending(state, cmd.request, "amend")
    try:
        command = convert_command(state.system, cmd.command)
    except RuleError as exc:
        raise RuleError(f"amend: {exc}") from None
    drafts = _applied(command, cmd, state, dice, history)
    return [*drafts, _ruling(cmd, req, "amended", applied=given(command))]


def _refuse(cmd: Refuse, state: TableState, dice: Dice, history: History) -> list[Draft]:
    req = _pending(state, cmd.request, "refuse")
    return [_ruling(cmd, req, "refused", reason=" ".join(cmd.reason.split()))]


def _ask(cmd: Ask, state: TableState, dice: Dice, history: History) -> list[Draft]:
    """A prompt for each player named, addressed to them; a secret ask (or one whose check
    keeps anything from players) rolled at once by the GM's dice, in GM-only records."""
    chars = _asked(cmd, state)
    checks = [_asked_check(cmd.check, char.id, state) for char in chars]
    secret = _secret_ask(cmd, list(zip(chars, checks, strict=True)), state, history)
    drafts: list[Draft] = []
    now = snapshot(state) if secret else state
    for char, check in zip(chars, checks, strict=True):
        hidden = ("check",) if secret else ()
        event = Prompted(seat=char.id, check=given(check), secret=secret)
        drafts.append(Draft(event, visibility=Visibility(to=char.id, hidden=hidden)))
        if secret:
            drafts += _rolled_at_once(check, now, drafts[-1], dice, history)
    return drafts


def _secret_ask(
    cmd: Ask, asked: list[tuple[Character, Command]], state: TableState, history: History
) -> bool:
    """Whether an ask is the GM's to roll: asked secret, or a check of it keeps anything from
    players. One that is not needs players who may roll (option players not off)."""
    if cmd.secret or any(_kept(check, char.name, state, history) for char, check in asked):
        return True
    if state.options.get("players", "ask") == "off":
        raise RuleError(
            "ask: players watch only at this table (option players is off): roll the check"
            " yourself, ask it secret, or set players ask"
        )
    return False


def _rolled_at_once(
    check: Command, now: TableState, prompt: Draft, dice: Dice, history: History
) -> list[Draft]:
    """A secret ask's check rolled by the GM's dice right after its ``prompt``, in GM-only
    records caused by it; ``now``, the state before the prompt, is folded on past both."""
    at = now.seq + 1
    _fold_drafts(now, [prompt])
    rolled = [
        replace(d, cause=at if d.cause is None else d.cause, visibility=GM_ONLY)
        for d in _decide(check, now, dice, history)
    ]
    _fold_drafts(now, rolled)
    return rolled


def _asked(cmd: Ask, state: TableState) -> list[Character]:
    """The characters an ask names, each once, in order: players' characters only."""
    chars: list[Character] = []
    for ref in cmd.characters:
        char = find_character(state, ref)
        if char.hidden or char.npc:
            raise RuleError(
                f"ask: {char.name} has no player to ask (check {char.name} ... rolls it)"
            )
        if char not in chars:
            chars.append(char)
    return chars


GM_ONLY = Visibility(gm_only=True)


def _asked_check(check: dict[str, Any], cid: str, state: TableState) -> Command:
    """The check an ask gives one player: the system's check command, theirs."""
    if check.get("type", "check") != "check":
        raise RuleError(f"ask: the GM asks for a check, not {check.get('type')!r}")
    for field in ("character", "faces"):
        if field in check:
            raise RuleError(
                f"ask: the check names no {field} (the characters asked are the ask's, the"
                " dice their answer's)"
            )
    try:
        return convert_command(state.system, {**check, "type": "check", "character": cid})
    except RuleError as exc:
        raise RuleError(f"ask: {exc}") from None


def _kept(check: Command, name: str, state: TableState, history: History) -> bool:
    """Whether a check, as the rules decide it, keeps anything from players (a check rolled
    in secret, a secret TN): an ask of it is the GM's to roll. A check the rules refuse
    is refused now, naming whose it is."""
    try:
        drafts = _decide(check, state, _Trial(), history)
    except RuleError as exc:
        raise RuleError(f"ask: {name}: {exc}") from None
    return any(
        d.visibility != Visibility() or getattr(d.event, "secret", False) is True for d in drafts
    )


def _answer(cmd: Answer, state: TableState, dice: Dice, history: History) -> list[Draft]:
    """The asked check rolled (with the answer's faces, if typed), as caused by its prompt,
    and the record that the prompt is answered."""
    seq, prompt = _prompt_waiting(cmd, state)
    check = dict(prompt.check)
    if cmd.faces is not None:
        check["faces"] = cmd.faces
    drafts = _decide(convert_command(state.system, check), state, dice, history)
    drafts = [d if d.cause is not None else replace(d, cause=seq) for d in drafts]
    answered = Answered(prompt=seq, seat=prompt.seat)
    return [*drafts, Draft(answered, cause=seq, visibility=Visibility(to=prompt.seat))]


def _prompt_waiting(cmd: Answer, state: TableState) -> tuple[int, Prompt]:
    """The prompt an answer answers: the one named, or the character's oldest waiting."""
    waiting = {s: p for s, p in sorted(state.prompts.items()) if not p.answered}
    if cmd.prompt is not None:
        return cmd.prompt, _prompt_named(cmd, cmd.prompt, waiting, state)
    if not cmd.character:
        raise RuleError(
            "roll: give dice notation, e.g. roll 2d10 (ask roll NAME rolls the check asked of"
            " a player who did not answer)"
        )
    char = find_character(state, cmd.character)
    mine = [(s, p) for s, p in waiting.items() if p.seat == char.id]
    if not mine:
        raise RuleError(f"answer: no check the GM asked of {char.name} is waiting")
    return mine[0]


def _prompt_named(cmd: Answer, seq: int, waiting: dict[int, Prompt], state: TableState) -> Prompt:
    """The waiting prompt at record ``seq`` that an answer names, the answer's character's."""
    found = waiting.get(seq)
    if found is None:
        names = {c.id: c.name for c in state.characters.values()}
        listed = ", ".join(f"#{s} {names.get(p.seat, p.seat)}" for s, p in waiting.items())
        raise RuleError(
            f"answer: record #{seq} is no check waiting for its answer"
            f" (waiting: {listed or 'none'})"
        )
    if cmd.character and find_character(state, cmd.character).id != found.seat:
        raise RuleError(f"answer: record #{seq} is not {cmd.character}'s check")
    return found


def decide_committed(
    command: Command,
    state: TableState,
    keyring: fairness.Keyring,
    history: History,
    seat: Seat = GM_SEAT,
) -> list[Draft]:
    """``decide`` with dice drawn from the session's committed seed (``core.fairness``):
    the commitment, the dice drawn and secret records' commitments go with the drafts."""
    if isinstance(command, EndSession) and seat.gm:
        return fairness.end_session(history.dice, keyring)
    if isinstance(command, Entropy) and not seat.gm:
        # a player's margin holds none of the GM's keys: its entropy joins the session
        # committed already and never commits one (whose seed the player would know)
        return decide(command, state, dicemod.TypedDice(()), history, seat)
    hint: fairness.Stream = "secret" if getattr(command, "secret", False) is True else "open"
    ledger = history.dice
    # a player's margin that holds none of the GM's keys would draw from a session of its
    # own, whose seed its player knows: it takes typed faces only
    keyless = not seat.gm and ledger.commitment and keyring.find(ledger.commitment) is None
    return fairness.committed(
        lambda dice: decide(command, state, _TypedOnly(dice) if keyless else dice, history, seat),
        ledger,
        keyring,
        state.seq,
        hint,
    )


class _TypedOnly:
    """The dice of a player's margin that holds none of the GM's dice keys: it draws no die
    (its faces would come from a seed its player knows), and says what to do instead."""

    source = "drawn"

    def __init__(self, dice: Any) -> None:
        #: the typed faces it tells go on the record as any typed faces do
        self.tally = getattr(dice, "tally", None)

    def roll(self, sides: int, count: int = 1) -> list[int]:
        raise RuleError(
            f"dice: this seat cannot roll margin's dice (the d{sides} due): type the faces"
            " you rolled (= FACES), or the GM's margin rolls it (players ask)"
        )


def _decide(command: Command, state: TableState, dice: Dice, history: History) -> list[Draft]:
    """The drafts of one command, not yet sealed for players."""
    faces = getattr(command, "faces", None)
    # an answer's faces are its check's, read as the system reads a check's
    if faces is not None and isinstance(faces, list) and not isinstance(command, Answer):
        dice = TypedDice(faces, getattr(dice, "tally", None))
    handler = _DECIDERS.get(type(command))
    if handler is not None:
        drafts: list[Draft] = handler(command, state, dice, history)
    else:
        system = get_system(state.system)
        if type(command) not in system.commands:
            raise RuleError(
                f"command {type(command).__struct_config__.tag!r} is not available here"
            )
        drafts = system.decide(command, state, dice, history)
    if isinstance(dice, TypedDice):
        dice.finish()
    return drafts


def _fold_drafts(state: TableState, drafts: list[Draft]) -> None:
    """Fold drafts into a copy of the state, numbered as they will be appended."""
    for record in records_after(drafts, state.seq):
        evolve(state, record)


def _run(commands: list[Command], state: TableState, dice: Dice, history: History) -> list[Draft]:
    """Commands decided in order, each against the state the ones before it leave."""
    drafts: list[Draft] = []
    now = state
    for n, command in enumerate(commands):
        if isinstance(command, Undo | Redo):
            raise RuleError("each: undo and redo stand alone, not among other commands")
        got = _decide(command, now, dice, history)
        if n + 1 < len(commands):
            if now is state:
                now = snapshot(state)
            _fold_drafts(now, got)
        drafts += got
    return drafts


def _each(cmd: Each, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not cmd.commands:
        raise RuleError("each: give the commands to run")
    commands = []
    for n, data in enumerate(cmd.commands, 1):
        try:
            commands.append(convert_command(state.system, data))
        except RuleError as exc:
            raise RuleError(f"each: command {n}: {exc}") from None
    return _run(commands, state, dice, history)


def _edit(cmd: Edit, state: TableState, dice: Dice, history: History) -> list[Draft]:
    commands = [convert_command(state.system, c) for c in edits.edit_commands(cmd, state)]
    return _run(commands, state, dice, history)


def _expiries(drafts: list[Draft], state: TableState) -> list[Draft]:
    """The conditions whose time runs out as a command's drafts move the clock.

    Each end is recorded as caused by the record that moved the clock past it.
    Only the clock's part of the state is folded forward (``clock_copy``), so
    a command that moves the clock while conditions are timed costs a copy of
    the clock, not of the whole table.
    """
    kinds = clock.clock_events(state.system)
    if not any(isinstance(d.event, kinds) for d in drafts):
        return []
    if not conditions.timed(state) and not any(isinstance(d.event, ConditionAdded) for d in drafts):
        return []
    now = clock.clock_copy(state)
    out = []
    ended: set[tuple[str, str]] = set()
    for record in records_after(drafts, state.seq):
        if not isinstance(record.event, (*kinds, ConditionAdded)):
            continue
        evolve(now, record)
        if isinstance(record.event, kinds):
            out += _run_out(now, record.seq, ended)
    return out


def _run_out(now: TableState, seq: int, ended: set[tuple[str, str]]) -> list[Draft]:
    """The ends of the conditions whose time is up once record ``seq`` has moved the clock
    (``now``), but for those ``ended`` already (the ends are added to it)."""
    out = []
    for char, cond in conditions.expiring(now):
        if (char.id, cond.name) not in ended:
            ended.add((char.id, cond.name))
            out.append(conditions.ended_draft(char, cond, seq))
    return out


def _add_character(
    cmd: AddCharacter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    name = " ".join(cmd.name.split())
    if not name:
        raise RuleError("name: a character needs a name")
    system = get_system(state.system)
    sheet = system.check_sheet(dict(cmd.sheet))
    visibility = Visibility(gm_only=True) if cmd.hidden else Visibility()
    names = [name] if cmd.count == 1 else _group_names(name, cmd.count, state)
    out = []
    for each in names:
        cid = character_id(each)
        if cid == "gm":
            raise RuleError("name: 'gm' is reserved for the game master")
        if cid in state.characters:
            raise RuleError(f"name: {each!r} is already at the table")
        event = CharacterAdded(id=cid, name=each, sheet=sheet, hidden=cmd.hidden, npc=cmd.npc)
        out.append(Draft(event, visibility=visibility))
    return out


def _group_names(name: str, count: int, state: TableState) -> list[str]:
    """``Guard 1`` .. ``Guard N``, numbered on from a group already at the table."""
    first = max((int(c.name.rsplit(" ", 1)[1]) for c in group(state, name)), default=0) + 1
    return [f"{name} {n}" for n in range(first, first + count)]


def _update_character(
    cmd: UpdateCharacter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    char = find_character(state, cmd.character)
    system = get_system(state.system)
    # store the fields as the system normalises them, as a new sheet would be
    merged = system.check_sheet({**char.sheet, **cmd.sheet})
    sheet = {k: merged[k] for k in merged if k in cmd.sheet or k not in char.sheet}
    hidden = char.hidden if cmd.hidden is None else cmd.hidden
    visibility = Visibility(gm_only=True) if hidden and cmd.hidden is None else Visibility()
    return [
        Draft(
            CharacterUpdated(id=char.id, sheet=sheet, hidden=cmd.hidden, npc=cmd.npc),
            visibility=visibility,
        )
    ]


def _remove_character(
    cmd: RemoveCharacter, state: TableState, dice: Dice, history: History
) -> list[Draft]:
    char = find_character(state, cmd.character)
    visibility = Visibility(gm_only=True) if char.hidden else Visibility()
    return [Draft(CharacterRemoved(id=char.id), visibility=visibility)]


def _roll(cmd: RollDice, state: TableState, dice: Dice, history: History) -> list[Draft]:
    actor = "gm" if cmd.actor.lower() == "gm" else find_character(state, cmd.actor).id
    expr = dicemod.parse(cmd.dice)
    result = dicemod.roll(expr, dice)
    event = Rolled(
        actor=actor,
        dice=str(expr),
        faces=result.faces,
        kept=result.kept if not all(result.kept) else [],
        total=result.total,
        source=dice.source,
        secret=cmd.secret,
        reason=cmd.reason,
    )
    visibility = Visibility(hidden=SECRET_ROLL_FIELDS) if cmd.secret else Visibility()
    return [Draft(event, visibility=visibility)]


def _note(cmd: Note, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not cmd.text.strip():
        raise RuleError("text: a note needs some text")
    return [
        Draft(Noted(text=cmd.text, gm_only=cmd.gm_only), visibility=Visibility(gm_only=cmd.gm_only))
    ]


def _end_session(cmd: EndSession, state: TableState, dice: Dice, history: History) -> list[Draft]:
    raise RuleError("end-session: it stands alone, given to a table that holds its dice")


def _entropy(cmd: Entropy, state: TableState, dice: Dice, history: History) -> list[Draft]:
    return [Draft(DiceEntropy(seat=cmd.seat, entropy=cmd.entropy))]


def _undo(cmd: Undo, state: TableState, dice: Dice, history: History) -> list[Draft]:
    typed = ""
    if cmd.record is not None:
        if cmd.command is not None:
            raise RuleError("undo: give a command id or a record number, not both")
        found = history.command_of(cmd.record)
        if found is None:
            raise RuleError(f"undo: no record #{cmd.record} (the log has #1..#{history.head})")
        typed = f"record #{cmd.record}"
        cmd = Undo(command=found)
    if cmd.command is None:
        target = _last_undoable(history)
    else:
        target = cmd.command
        typed = typed or f"command {target!r}"
        _check_undoable(history, target, typed)
    voids = history.cascade(target)
    if not voids:
        raise RuleError(f"undo: {typed or f'command {target!r}'} has nothing left to undo")
    return [Draft(Undone(command=target, voids=voids))]


def _last_undoable(history: History) -> str:
    """The last command an undo that names none voids: not an undo or redo, not undone."""
    for cid in reversed(history.order):
        if not history.is_meta(cid) and cid not in history.undone and history.cascade(cid):
            return cid
    raise RuleError("undo: nothing to undo")


def _check_undoable(history: History, target: str, typed: str) -> None:
    """Refuse an undo of a command (named as the GM ``typed`` it) that is not in the log,
    created the table, is an undo or a redo, or is undone already."""
    if target not in history:
        raise RuleError(f"undo: no command {target!r} in this table's log")
    if history.is_meta(target):
        if target in history.dice_commands:
            raise RuleError(
                f"undo: {typed} gave the table's dice a seat's entropy or opened them; it stands"
            )
        if history.seqs(target)[0] == 1:
            raise RuleError(f"undo: {typed} created the table; it cannot be undone")
        raise RuleError(
            f"undo: {typed} is an undo or a redo; redo restores what the last undo voided"
        )
    if target in history.undone:
        raise RuleError(f"undo: {typed} is already undone (redo restores the last undo)")


def _redo(cmd: Redo, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not history.redoable:
        raise RuleError("redo: nothing to redo (redo is possible only right after undo)")
    target = history.redoable[-1] if cmd.command is None else cmd.command
    if target not in history.redoable:
        raise RuleError(f"redo: command {target!r} is not an undo that can be redone now")
    undone_at = history.undone[target]
    restores = next(c.seqs for c in history.changes if c.seq == undone_at)
    return [Draft(Redone(command=target, restores=list(restores)))]


def _set_option(cmd: SetOption, state: TableState, dice: Dice, history: History) -> list[Draft]:
    value = get_system(state.system).option(cmd.name).check(cmd.value)
    if state.options.get(cmd.name) == value:
        raise RuleError(f"option {cmd.name}: already {value!r}")
    return [Draft(OptionSet(name=cmd.name, value=value))]


def _reveal(cmd: Reveal, state: TableState, dice: Dice, history: History) -> list[Draft]:
    if not 1 <= cmd.seq <= state.seq:
        raise RuleError(f"reveal: no record {cmd.seq}")
    if cmd.seq in state.revealed:
        raise RuleError(f"reveal: record {cmd.seq} is already revealed")
    if cmd.seq in history.voided:
        raise RuleError(f"reveal: record {cmd.seq} is undone")
    if cmd.seq not in history.gm_only and cmd.seq not in history.secret:
        raise RuleError(
            f"reveal: record {cmd.seq} was never secret (players already see all of it)"
        )
    return [Draft(Revealed(record=cmd.seq), cause=cmd.seq)]


_DECIDERS: dict[type[Command], Any] = {
    **clock.DECIDERS,
    Rename: edits.rename,
    Edit: _edit,
    HealthView: edits.health_view,
    Alias: edits.alias,
    Each: _each,
    AddCondition: conditions.add,
    RemoveCondition: conditions.remove,
    SetCounter: counters.set_counter,
    AdjustCounter: counters.adjust,
    RemoveCounter: counters.remove,
    AddCharacter: _add_character,
    UpdateCharacter: _update_character,
    RemoveCharacter: _remove_character,
    RollDice: _roll,
    Note: _note,
    Undo: _undo,
    Redo: _redo,
    SetOption: _set_option,
    Reveal: _reveal,
    Say: _say,
    Whisper: _whisper,
    Accept: _accept,
    Amend: _amend,
    Refuse: _refuse,
    Ask: _ask,
    Answer: _answer,
    EndSession: _end_session,
    Entropy: _entropy,
}


# -- evolve -------------------------------------------------------------------


def _created(state: TableState, record: Record) -> None:
    event: TableCreated = record.event
    system = get_system(event.system)
    state.system = event.system
    state.title = event.title
    state.options = {**system.default_options(), **event.options}
    state.world = system.initial_world(state.options)


def _option(state: TableState, record: Record) -> None:
    event: OptionSet = record.event
    state.options[event.name] = event.value


def _char_added(state: TableState, record: Record) -> None:
    e: CharacterAdded = record.event
    make = get_system(state.system).make_character
    char = make(e.id, e.name, dict(e.sheet), e.hidden)
    char.npc = e.npc
    state.characters[e.id] = char


def _char_carried(state: TableState, record: Record) -> None:
    """A character as another table left them: the system's character, every field restored."""
    e: CharacterCarried = record.event
    make = get_system(state.system).make_character
    sheet = dict(e.status.get("sheet", {}))
    fresh = make(e.id, e.name, sheet, e.hidden)
    data = {**e.status, "id": e.id, "name": e.name, "hidden": e.hidden}
    state.characters[e.id] = msgspec.convert(data, type(fresh))


def _char_updated(state: TableState, record: Record) -> None:
    e: CharacterUpdated = record.event
    char = state.characters.get(e.id)
    if char is None:
        return
    char.sheet = {**char.sheet, **e.sheet}
    if e.hidden is not None:
        char.hidden = e.hidden
    if e.npc is not None:
        char.npc = e.npc


def _char_removed(state: TableState, record: Record) -> None:
    gone = state.characters.pop(record.event.id, None)
    if gone is not None:
        state.departed[gone.id] = gone.name


def _rolled(state: TableState, record: Record) -> None:
    e: Rolled = record.event
    state.last_roll = LastRoll(
        seq=record.seq, actor=e.actor, dice=e.dice, total=e.total, secret=e.secret
    )


def _noted(state: TableState, record: Record) -> None:
    state.notes += 1


def _revealed(state: TableState, record: Record) -> None:
    state.revealed.add(record.event.record)


def _requested(state: TableState, record: Record) -> None:
    e: Requested = record.event
    state.requests[record.seq] = Request(seat=e.seat, author=record.author, command=e.asked)


def _ruled(state: TableState, record: Record) -> None:
    state.requests.pop(record.event.request, None)


def _prompted(state: TableState, record: Record) -> None:
    e: Prompted = record.event
    if not e.secret:
        state.prompts[record.seq] = Prompt(seat=e.seat, check=e.check, ask=record.command)


def _answered(state: TableState, record: Record) -> None:
    found = state.prompts.get(record.event.prompt)
    if found is None:
        return
    found.answered = record.seq
    if all(p.answered for p in state.prompts.values() if p.ask == found.ask):
        # every player of the ask has answered: it is done
        state.prompts = {s: p for s, p in state.prompts.items() if p.ask != found.ask}


def _nothing(state: TableState, record: Record) -> None:
    """What the state does not hold: undo and redo change which records count (the
    projection handles them), dice records are followed by the history's ledger."""


HANDLERS: dict[type[Event], Handler] = {
    TableCreated: _created,
    OptionSet: _option,
    CharacterAdded: _char_added,
    CharacterUpdated: _char_updated,
    CharacterRemoved: _char_removed,
    Rolled: _rolled,
    Noted: _noted,
    Revealed: _revealed,
    CharacterCarried: _char_carried,
    Undone: _nothing,
    Redone: _nothing,
    DiceEntropy: _nothing,
    DiceOpened: _nothing,
    Branched: _nothing,
    Said: _nothing,
    Whispered: _nothing,
    Requested: _requested,
    Ruled: _ruled,
    Prompted: _prompted,
    Answered: _answered,
    **conditions.HANDLERS,
    **counters.HANDLERS,
    **edits.HANDLERS,
    **clock.HANDLERS,
}


def _system_steps(system: System) -> None:
    """A dice system's fold steps, added as the system is imported (a table imports its
    own: a table's records are its system's events and margin's)."""
    HANDLERS.update(system.handlers)
    for kind in system.clock_events:
        # the system's clock moved: conditions count the turns begun
        HANDLERS[kind] = clock.ticking(system.handlers[kind])


SYSTEMS.on_load(_system_steps)


def evolve(state: TableState, record: Record) -> TableState:
    """Fold one record into the state (changing it in place) and return it."""
    HANDLERS[type(record.event)](state, record)
    state.seq = record.seq
    return state
