"""Short forms: the words typed on the table screen's command line, read into commands.

Every short form, the generic ones here and each system's in its ``words``
module, is declared once with ``Grammar.form``: its first word, what each of
its words is (a ``Usage``, which completion reads) and a parser that reads the
words, as a ``match`` statement reads them (``case ["attack", who, target,
*rest]``), into a command as a JSON-style dict. A parser raises ``RuleError``
naming the form's usage when the words do not fit it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .. import systems
from ..errors import RuleError
from ..state import TableState, lookup
from .base import MAX_GROUP, Usage

#: a form's parser: the words (the first in lower case) and the state -> a command as a dict
Parser = Callable[[list[str], TableState], dict[str, Any]]


class Grammar:
    """The short forms of one system (or the generic ones), by first word."""

    def __init__(self) -> None:
        self.parsers: dict[str, Parser] = {}
        self.usages: dict[str, Usage] = {}

    def form(
        self, word: str, usage: Usage | None = None, also: tuple[str, ...] = ()
    ) -> Callable[[Parser], Parser]:
        """Declare the short form ``word`` (and words ``also`` read the same, which
        completion does not offer): the decorated function parses it."""

        def register(parser: Parser) -> Parser:
            for each in (word, *also):
                self.parsers[each] = parser
            self.usages[word] = usage or Usage()
            return parser

        return register

    @classmethod
    def of(cls, *forms: tuple[str, Usage, Parser]) -> Grammar:
        """A grammar declared as one table of (word, usage, parser) rows."""
        grammar = cls()
        for word, usage, parser in forms:
            grammar.form(word, usage)(parser)
        return grammar

    def parse(self, words: list[str], state: TableState) -> dict[str, Any] | None:
        """The command ``words`` make, or None when the first word is no form of this grammar."""
        if not words:
            return None
        head = words[0].lower()
        parser = self.parsers.get(head)
        return None if parser is None else parser([head, *words[1:]], state)


def whole(word: str, what: str) -> int:
    """A typed whole number, or a clear error naming the word."""
    try:
        return int(word)
    except ValueError:
        raise RuleError(f"{what}: expected a whole number, got {word!r}") from None


def whole_as(what: str) -> Callable[[str], int]:
    """A reader of a typed whole number that names it ``what`` in its error (see ``whole``)."""
    return lambda word: whole(word, what)


def number(word: str, what: str) -> float:
    """A typed number (``12.5``), or a clear error naming the word."""
    try:
        value = float(word)
    except ValueError:
        raise RuleError(f"{what}: expected a number, got {word!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RuleError(f"{what}: expected a number, got {word!r}")
    return value


def counter_value(text: str, where: str) -> tuple[int | None, int | None]:
    """``8/12`` (value and maximum), ``8`` (a value), ``/12`` (a maximum) as typed."""
    value, slash, maximum = text.partition("/")
    try:
        out = (int(value) if value else None, int(maximum) if slash and maximum else None)
    except ValueError:
        raise RuleError(f"{where}: {text!r} is not a value (8, 8/12 or /12)") from None
    if out == (None, None) or any(v is not None and v < 0 for v in out):
        raise RuleError(f"{where}: {text!r} is not a value (8, 8/12 or /12)")
    return out


def record_number(word: str) -> int | None:
    """A record's number typed as digits, or None."""
    return int(word) if word.isascii() and word.isdigit() else None


def name_then(
    kind: str, option: str, read: Callable[[str], Any], usage: str, *, pass_over: bool = False
) -> Parser:
    """A ``WORD NAME [VALUE]`` form: the command ``kind`` for NAME, with ``option`` read from
    VALUE when it is given. Words after VALUE are passed over when ``pass_over``; otherwise,
    like words that do not fit, they are refused with ``usage``."""

    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case [_, who]:
                return {"type": kind, "character": who}
            case [_, who, given, *more] if pass_over or not more:
                return {"type": kind, "character": who, option: read(given)}
        raise RuleError(usage)

    return parse


def name_value_text(
    kind: str, option: str, read: Callable[[str], Any], text: str, usage: str
) -> Parser:
    """A ``WORD NAME VALUE [TEXT ...]`` form: the command ``kind`` for NAME, with ``option``
    read from VALUE and the words after it, joined, as ``text``; ``usage`` when VALUE is
    missing."""

    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case [_, who, given, *rest]:
                return {"type": kind, "character": who, option: read(given), text: " ".join(rest)}
        raise RuleError(usage)

    return parse


def opposed_sides(words: list[str], example: str) -> tuple[list[str], list[str]]:
    """The words of an ``opposed`` form before and after its ``vs``; without one, a clear
    error that shows ``example``."""
    rest = words[1:]
    low = [w.lower() for w in rest]
    if "vs" not in low:
        raise RuleError(f"opposed: write it as '{example}'")
    cut = low.index("vs")
    return rest[:cut], rest[cut + 1 :]


def stray_words(skills: dict[str, int], words: list[str], who: str, valid: str) -> None:
    """Refuse skill words that are a skill on the sheet plus a stray word or two.

    ``melee typo`` would otherwise be an unskilled attempt at a skill nobody
    has; the stray words are named with ``valid``, what may follow a skill.
    """
    if lookup(skills, " ".join(words)) is not None:
        return
    for size in range(len(words) - 1, 0, -1):
        found = lookup(skills, " ".join(words[:size]))
        if found is not None:
            stray = " ".join(words[size:])
            raise RuleError(f"{who}: {stray!r} after {found[0]} is not {valid}")


def sheet_value(key: str, text: str) -> Any:
    """A sheet field's value: JSON when it reads as JSON, else the word itself.

    A value that opens a JSON object or list must be valid JSON: a typo in it
    is named here rather than reported later as a field of the wrong shape.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if text[:1] in "{[":
            raise RuleError(
                f"add: {key}={text} is not valid JSON ({exc.msg} at character {exc.pos + 1})"
            ) from None
        return text


# -- the generic short forms, which every table has -----------------------------------

GENERIC = Grammar()


def _roll_tail(args: list[str], out: dict[str, Any]) -> dict[str, Any]:
    match args:
        case []:
            return out
        case [secret, *more] if secret.lower() == "secret":
            return _roll_tail(more, {**out, "secret": True})
        case [as_, who, *more] if as_.lower() == "as":
            return _roll_tail(more, {**out, "actor": who})
        case [for_, *reason] if for_.lower() == "for":
            return {**out, "reason": " ".join(reason)}
        case [word, *_]:
            raise RuleError(
                f"roll: {word!r} not understood (after the dice: secret, as NAME, for REASON)"
            )
    raise AssertionError("unreachable")  # pragma: no cover


@GENERIC.form("roll", Usage(("dice",), ("secret|as|for",), {"as": "character", "for": "text"}))
def _roll(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, dice, *tail]:
            return _roll_tail(tail, {"type": "roll", "dice": dice})
    raise RuleError("roll: give dice notation, e.g. roll 2d10 or roll 3d6+2")


def _note(word: str, gm_only: bool) -> Parser:
    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        text = " ".join(words[1:]).strip()
        if not text:
            raise RuleError(f"{word}: give the text of the note")
        return {"type": "note", "text": text, "gm_only": gm_only}

    return parse


GENERIC.form("note", Usage(("text",)))(_note("note", False))
GENERIC.form("gmnote", Usage(("text",)))(_note("gmnote", True))


@GENERIC.form("undo", Usage(("record",)))
def _undo(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, record] if record_number(record) is not None:
            return {"type": "undo", "record": record_number(record)}
        case [_, command, *_]:
            return {"type": "undo", "command": command}
    return {"type": "undo"}


@GENERIC.form("redo")
def _redo(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, command, *_]:
            return {"type": "redo", "command": command}
    return {"type": "redo"}


@GENERIC.form("reveal", Usage(("record",)))
def _reveal(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, record] if record_number(record) is not None:
            return {"type": "reveal", "seq": record_number(record)}
    raise RuleError("reveal: give the record number, e.g. reveal 42")


def _seen(word: str) -> Parser:
    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case ["remove", who]:
                return {"type": "remove-character", "character": who}
            case [_, who]:
                return {"type": "update-character", "character": who, "hidden": word == "hide"}
        raise RuleError(f"{word}: give one character, e.g. {word} wolf")

    return parse


GENERIC.form("hide", Usage(("character",)))(_seen("hide"))
GENERIC.form("show", Usage(("character",)))(_seen("show"))
GENERIC.form("remove", Usage(("character",), makes="remove-character"))(_seen("remove"))


@GENERIC.form("set", Usage(("option", "value"), makes="set-option"))
def _set(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, name, value]:
            parsed = systems.get_system(state.system).option(name).parse(value)
            return {"type": "set-option", "name": name, "value": parsed}
    raise RuleError("set: give an option and a value, e.g. set OPTION VALUE")


# -- seating a character: add NAME [xN] [npc] [hidden] [from FILE] [KEY=VALUE ...] ---------

GROUP = re.compile(r"x\d+")
#: what may follow the name in ``add``
AFTER_NAME = "after the name: xN, npc, hidden, from FILE, KEY=VALUE"


def _sheet_file(word: str) -> dict[str, Any]:
    """The sheet of ``from FILE``: the screen reads the file and puts its sheet, as JSON, in
    the file's place (``tui.commandline``), so the grammar meets data, never a path."""
    sheet = sheet_value("from", word) if word[:1] == "{" else None
    if not isinstance(sheet, dict):
        raise RuleError(
            f"add: from {word!r}: the sheet file was not read (add Kael from kael.toml)"
        )
    return sheet


def _add_fields(fields: list[str], out: dict[str, Any], typed: dict[str, Any]) -> dict[str, Any]:
    match fields:
        case []:
            # fields typed change what a sheet file says, wherever they are on the line
            return {**out, "sheet": {**out["sheet"], **typed}}
        case [field, *more] if "=" in field:
            key, _, value = field.partition("=")
            return _add_fields(more, out, {**typed, key: sheet_value(key, value)})
        case [flag, *more] if flag.lower() in ("hidden", "npc"):
            return _add_fields(more, {**out, flag.lower(): True}, typed)
        case [group, *more] if GROUP.fullmatch(group.lower()):
            if not 1 <= int(group[1:]) <= MAX_GROUP:
                raise RuleError(f"add: {group!r}: a group is x1 to x{MAX_GROUP}")
            return _add_fields(more, {**out, "count": int(group[1:])}, typed)
        case [from_] if from_.lower() == "from":
            raise RuleError("add: give the sheet file after 'from' (add Kael from kael.toml)")
        case [from_, sheet, *more] if from_.lower() == "from":
            return _add_fields(more, {**out, "sheet": _sheet_file(sheet)}, typed)
        case [word, *_]:
            raise RuleError(f"add: {word!r} not understood ({AFTER_NAME})")
    raise AssertionError("unreachable")  # pragma: no cover


@GENERIC.form("add", Usage(("text",), ("hidden",), makes="add-character"))
def _add(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, name, *fields]:
            out = {"type": "add-character", "name": name, "sheet": {}, "hidden": False}
            return _add_fields(fields, out, {})
    raise RuleError('add: give a name, e.g. add Kael or add "Old Tom" hidden')


# -- the GM's bookkeeping: conditions, counters, edits, names, health views, macros --------

#: NAMES: a character, a group's name (guard for Guard 1..4) or names joined by commas
NAMES_NOTE = "NAMES: a name, a group (guard for Guard 1, Guard 2 ...) or names joined by commas"

#: a condition's duration as typed: 2r (rounds), 1t (the bearer's turns), 3c (counts)
DURATION = re.compile(r"(\d+)(r|t|c|rounds?|turns?|counts?)", re.IGNORECASE)
UNITS = {"r": "rounds", "t": "turns", "c": "counts"}
HEALTH_VIEWS = ("exact", "descriptive", "hidden", "table")


def _write_it(usage: str) -> RuleError:
    return RuleError(f"{usage.split()[0]}: write it as '{usage}' ({NAMES_NOTE})")


def _condition(words: list[str], out: dict[str, Any]) -> dict[str, Any]:
    """``prone 2r gm``: the condition's name, its one duration and whether it is the GM's."""
    name = []
    for word in words:
        found = DURATION.fullmatch(word)
        if found:
            if any(u in out for u in UNITS.values()):
                raise RuleError(f"cond: {word!r} is a second duration (give one: 2r, 1t or 3c)")
            out[UNITS[found.group(2)[0].lower()]] = int(found.group(1))
        elif word.lower() == "gm":
            out["gm_only"] = True
        else:
            name.append(word)
    if not name:
        raise RuleError("cond: name the condition (cond kael prone 2r)")
    return {**out, "name": " ".join(name)}


@GENERIC.form("cond", Usage(("character", "text"), makes="add-condition"))
def _cond(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *spec] if spec:
            low = [w.lower() for w in spec]
            out: dict[str, Any] = {"type": "add-condition", "character": who}
            if "for" in low:
                at = low.index("for")
                out["reason"] = " ".join(spec[at + 1 :])
                spec = spec[:at]
            return _condition(spec, out)
    raise _write_it("cond NAMES CONDITION [2r|1t|3c] [gm] [for REASON]")


@GENERIC.form("uncond", Usage(("character", "condition"), makes="remove-condition"))
def _uncond(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *name] if name:
            return {"type": "remove-condition", "character": who, "name": " ".join(name)}
    raise _write_it("uncond NAMES CONDITION")


@GENERIC.form("counter", Usage(("character", "counter"), makes="set-counter"))
def _counter(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *name, value] if name and value.lower() == "remove":
            return {"type": "remove-counter", "character": who, "name": " ".join(name)}
        case [_, who, *name, value] if name:
            now, top = counter_value(value, "counter")
            out: dict[str, Any] = {"type": "set-counter", "character": who, "name": " ".join(name)}
            if top is None and "/" not in value:
                # a lone number starts a counter full at that maximum, or sets an old one's value
                return {**out, "value": now}
            return {**out, **({} if now is None else {"value": now}), "max": top}
    raise _write_it("counter NAMES COUNTER MAX|VALUE/MAX|remove")


@GENERIC.form("adjust", Usage(("character", "counter"), makes="adjust-counter"))
def _adjust(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *name, by] if name:
            if not re.fullmatch(r"[+-]?\d{1,7}", by):
                raise RuleError(f"adjust: {by!r} is not a change (+2, -3)")
            return {
                "type": "adjust-counter",
                "character": who,
                "name": " ".join(name),
                "by": int(by),
            }
    raise _write_it("adjust NAMES COUNTER +N|-N")


def _field(word: str) -> tuple[str, Any]:
    key, eq, value = word.partition("=")
    if not eq or not key:
        raise RuleError(f"edit: {word!r} is not FIELD=VALUE (edit kael Health=8 skills.Melee=40)")
    return key, sheet_value(key, value)


@GENERIC.form("edit", Usage(("character",)))
def _edit(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *fields] if fields:
            return {"type": "edit", "character": who, "fields": dict(map(_field, fields))}
    raise _write_it("edit NAMES FIELD=VALUE ...")


@GENERIC.form("rename", Usage(("character", "text")))
def _rename(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *name] if name:
            return {"type": "rename", "character": who, "name": " ".join(name)}
    raise _write_it("rename NAME NEW NAME")


@GENERIC.form("health", Usage(("character", "|".join(HEALTH_VIEWS)), makes="health-view"))
def _health(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, view] if view.lower() in HEALTH_VIEWS:
            return {"type": "health-view", "character": who, "view": view.lower()}
    raise RuleError(f"health: write it as 'health NAMES {'|'.join(HEALTH_VIEWS)}'")


@GENERIC.form("alias", Usage(("text",)))
def _alias(words: list[str], state: TableState) -> dict[str, Any]:
    """``alias NAME = LINE``; the screen gives the words after ``alias`` as one, as typed, so
    a macro keeps its line ('= faces' and all)."""
    name, eq, line = " ".join(words[1:]).partition("=")
    if not eq or not name.strip():
        raise RuleError("alias: write it as 'alias NAME = LINE' ('alias NAME =' forgets it)")
    return {"type": "alias", "name": name.strip(), "line": line.strip()}


# -- the generic turn order, in a system without a clock of its own ---------------------

CLOCK = Grammar()


@CLOCK.form("start", Usage(rest=("character", "dice"), makes="start-encounter"))
def _start(words: list[str], state: TableState) -> dict[str, Any]:
    names = words[1:]
    low = [w.lower() for w in names]
    if "dice" not in low:
        return {"type": "start-encounter", "characters": names}
    at = low.index("dice")
    if at + 2 != len(names):
        raise RuleError("start: give the dice last (start kael guard dice 2d6+1)")
    return {"type": "start-encounter", "characters": names[:at], "dice": names[at + 1]}


@CLOCK.form("join", Usage(("character",)))
def _join(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who]:
            return {"type": "join", "character": who}
        case [_, who, given] if re.fullmatch(r"[+-]?\d{1,4}", given):
            return {"type": "join", "character": who, "initiative": int(given)}
        case [_, who, given]:
            return {"type": "join", "character": who, "dice": given}
        case [_]:
            raise RuleError(f"join: name who ({NAMES_NOTE})")
    raise RuleError(f"join: write it as 'join NAMES [N|DICE]' ({NAMES_NOTE})")


@CLOCK.form("leave", Usage(("character",)))
def _leave(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, *who] if who:
            return {"type": "leave", "character": who}
    raise RuleError(f"leave: name who ({NAMES_NOTE})")


CLOCK.form("next", Usage(makes="next-turn"))(lambda words, state: {"type": "next-turn"})
CLOCK.form("end", Usage(makes="end-encounter"))(lambda words, state: {"type": "end-encounter"})


def parse_generic(words: list[str], state: TableState) -> dict[str, Any] | None:
    """The command a generic short form of this table makes, or None when it is none."""
    found = GENERIC.parse(words, state)
    if found is None and systems.get_system(state.system).moment is None:
        return CLOCK.parse(words, state)
    return found
