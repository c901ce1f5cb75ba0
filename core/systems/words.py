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
from collections.abc import Callable, Sequence
from typing import Any

from .. import systems
from ..errors import RuleError
from ..state import TableState, lookup
from .base import MAX_GROUP, Usage

#: a form's parser: the words (the first in lower case) and the state -> a command as a dict
Parser = Callable[[list[str], TableState], dict[str, Any]]

QUOTES = "\"'"


class Word(str):
    """A word of a typed line: its text, without the quotes that grouped it, and where it
    stood on the line (``line[start:end]`` is the word as typed)."""

    line: str
    start: int
    end: int
    quoted: bool

    def __new__(cls, text: str, line: str, start: int, end: int, quoted: bool = False) -> Word:
        word = super().__new__(cls, text)
        word.line, word.start, word.end, word.quoted = line, start, end, quoted
        return word


def _closing(line: str, at: int) -> int | None:
    """Where the quote opening at ``at`` closes: the next same quote that ends a word."""
    mark = line[at]
    found = line.find(mark, at + 1)
    while found != -1:
        if found + 1 == len(line) or line[found + 1].isspace():
            return found
        found = line.find(mark, found + 1)
    return None


def _bracketed(line: str, at: int) -> int | None:
    """Where the JSON bracket opening at ``at`` closes (strings inside it kept whole)."""
    depth, quote = 0, ""
    for i in range(at, len(line)):
        ch = line[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch == '"':
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i
    return None


def split_words(line: str) -> list[Word]:
    """A typed line's words, split on spaces.

    A quote at the start of a word groups the words up to the same quote at the
    end of a word (``"Old Tom"``, ``'on fire'``) into one word, the quotes taken
    off; so does one right after ``=`` (``title="the Bold"``). Any other quote is
    a letter like the rest (``guard's``, ``can't``, ``'tis``), kept as typed. A
    bracket at the start of a word or right after ``=`` runs to its match, spaces
    and all, so a sheet field's JSON stays one word (``skills={"Melee": 40}``);
    one after ``=`` that is never closed runs to the end of the line.
    """
    words: list[Word] = []
    i, size = 0, len(line)
    while i < size:
        if line[i].isspace():
            i += 1
            continue
        start = i
        close = _closing(line, i) if line[i] in QUOTES else None
        if close is not None:
            words.append(Word(line[i + 1 : close], line, start, close + 1, quoted=True))
            i = close + 1
            continue
        text, i = _word_from(line, start)
        words.append(Word(text, line, start, i))
    return words


def _word_from(line: str, start: int) -> tuple[str, int]:
    """The text of the word that starts at ``start`` with no quote around it, and where it
    ends: quotes and brackets right after ``=`` group as ``split_words`` says."""
    text: list[str] = []
    i, size = start, len(line)
    while i < size and not line[i].isspace():
        grouped = _group(line, i, start) if i == start or line[i - 1] == "=" else None
        if grouped is None:
            text.append(line[i])
            i += 1
        else:
            part, end = grouped
            text.append(part)
            i = end + 1
    return "".join(text), i


def _group(line: str, i: int, start: int) -> tuple[str, int] | None:
    """The text of a quote or bracket that opens at ``i`` (of a word that starts at
    ``start``) and the place of its end, or None when it is no group (a letter)."""
    ch = line[i]
    if ch in QUOTES:
        end = _closing(line, i)
        return None if end is None else (line[i + 1 : end], end)
    if ch not in "{[":
        return None
    end = _bracketed(line, i)
    if end is None and i > start:
        # a field's JSON left open runs to the line's end, for its error to show
        end = len(line) - 1
    return None if end is None else (line[i : end + 1], end)


def quoted(word: str) -> bool:
    """Whether a word was typed in quotes, so it is never one of a form's own words."""
    return isinstance(word, Word) and word.quoted


def typed_text(words: Sequence[str]) -> str:
    """Words as they were typed: the stretch of the line from the first to the last, its
    quotes and spacing kept (words not typed together are joined by spaces)."""
    typed = [w for w in words if isinstance(w, Word)]
    if not typed or len(typed) < len(words):
        return " ".join(words)
    first, last = typed[0], typed[-1]
    if any(w.line is not first.line for w in typed) or last.start < first.start:
        return " ".join(words)
    return first.line[first.start : last.end]


def name_text(words: Sequence[str]) -> str:
    """A name typed as words: one quoted word is its text, several are as typed."""
    if len(words) == 1:
        return str(words[0])
    return typed_text(words)


def cut_reason(words: list[str], form: str) -> tuple[list[str], dict[str, Any]]:
    """A form's words before ``for`` and, as ``reason``, the words after it as typed.

    The reason runs to the end of the line, so it comes last in every form that
    takes one (``check kael melee for the padlock``).
    """
    for at, word in enumerate(words):
        if word.lower() == "for" and not quoted(word):
            if at + 1 == len(words):
                raise RuleError(f"{form}: give the reason after 'for' ({form} ... for the padlock)")
            return words[:at], {"reason": typed_text(words[at + 1 :])}
    return words, {}


def take_flag(words: list[str], flag: str, form: str) -> tuple[list[str], bool]:
    """A form's words without the word ``flag`` (``secret``) and whether it was there; a
    quoted word is never the flag, and the flag given twice is refused."""
    found = [w for w in words if w.lower() == flag and not quoted(w)]
    if len(found) > 1:
        raise RuleError(f"{form}: {flag!r} is given twice (once is enough)")
    return [w for w in words if not found or w is not found[0]], bool(found)


def nothing_after(words: list[str], form: str, usage: str = "") -> None:
    """Refuse words a form does not take, naming the first of them and what is valid."""
    if words:
        valid = usage or f"{form} takes nothing after it"
        raise RuleError(f"{form}: {words[0]!r} is not understood ({valid})")


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
        return None if parser is None else _plain(parser([head, *words[1:]], state))


def _plain(value: Any) -> Any:
    """A parsed command with every typed ``Word`` in it a plain string again."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


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


def name_then(kind: str, option: str, read: Callable[[str], Any], usage: str) -> Parser:
    """A ``WORD NAME [VALUE]`` form: the command ``kind`` for NAME, with ``option`` read from
    VALUE when it is given. Words after VALUE, like words that do not fit, are refused with
    ``usage``."""

    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        match words:
            case [_, who]:
                return {"type": kind, "character": who}
            case [_, who, given]:
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
                return {"type": kind, "character": who, option: read(given), text: typed_text(rest)}
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
        case [for_, *_] if for_.lower() == "for" and not quoted(for_):
            _, reason = cut_reason(args, "roll")
            return {**out, **reason}
        case [word, *_]:
            raise RuleError(
                f"roll: {word!r} not understood (after the dice: secret, as NAME, for REASON)"
            )
    raise AssertionError("unreachable")  # pragma: no cover


@GENERIC.form("roll", Usage(("dice",), ("secret|as|for",), {"as": "character", "for": "text"}))
def _roll(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_]:
            # a player's answer to the check the GM asked of them, with margin's dice
            return {"type": "answer"}
        case [_, dice, *tail]:
            return _roll_tail(tail, {"type": "roll", "dice": dice})
    raise RuleError("roll: give dice notation, e.g. roll 2d10 or roll 3d6+2")


ASK_USAGE = "ask NAMES CHECK [secret] (NAMES: kael,vex; CHECK as the check form takes it)"


@GENERIC.form("ask", Usage(("character",), ("skill", "secret")))
def _ask(words: list[str], state: TableState) -> dict[str, Any]:
    """``ask kael,vex perception vs 25 [secret]``: the system's own check form after the
    names; ``ask roll kael``: the GM rolls a prompt nobody answered."""
    match words:
        case [_, roll, who] if roll.lower() == "roll" and not quoted(roll):
            return {"type": "answer", "character": who}
        case [_, roll, who, number] if roll.lower() == "roll" and record_number(number.lstrip("#")):
            return {"type": "answer", "character": who, "prompt": int(number.lstrip("#"))}
        case [_, names, *check] if check:
            return _ask_check(names, check, state)
    raise RuleError(f"ask: write it as '{ASK_USAGE}', or 'ask roll NAME' to roll it for them")


def _ask_check(names: str, check: list[str], state: TableState) -> dict[str, Any]:
    """``ask kael,vex perception vs 25``: the check, read by the system's own check form."""
    asked = [n.strip() for n in names.split(",") if n.strip()]
    rest, secret = take_flag(check, "secret", "ask")
    if not asked or not rest:
        raise RuleError(f"ask: write it as '{ASK_USAGE}'")
    found = systems.get_system(state.system).parse_words(["check", asked[0], *rest], state)
    if found is None:
        raise RuleError(f"ask: {state.system} has no check form to ask for")
    found.pop("type", None)
    found.pop("character", None)
    return {"type": "ask", "characters": asked, "check": found, "secret": secret}


def _note(word: str, gm_only: bool) -> Parser:
    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        text = typed_text(words[1:]).strip()
        if not text:
            raise RuleError(f"{word}: give the text of the note")
        return {"type": "note", "text": text, "gm_only": gm_only}

    return parse


GENERIC.form("note", Usage(("text",)))(_note("note", False))
GENERIC.form("gmnote", Usage(("text",)))(_note("gmnote", True))


@GENERIC.form("say", Usage(("text",)))
def _say(words: list[str], state: TableState) -> dict[str, Any]:
    text = typed_text(words[1:]).strip()
    if not text:
        raise RuleError("say: say something, e.g. say I open the door")
    return {"type": "say", "text": text}


@GENERIC.form("whisper", Usage(("character", "text")))
def _whisper(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, to, *said] if typed_text(said).strip():
            return {"type": "whisper", "to": to, "text": typed_text(said).strip()}
    raise RuleError("whisper: whisper NAME TEXT (a player: whisper gm TEXT)")


@GENERIC.form("accept", Usage(("record",)))
def _accept(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, record] if record_number(record.lstrip("#")) is not None:
            return {"type": "accept", "request": record_number(record.lstrip("#"))}
    raise RuleError("accept: give the request's record number, e.g. accept 12")


@GENERIC.form("refuse", Usage(("record",), ("text",)))
def _refuse(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, record, *why] if record_number(record.lstrip("#")) is not None:
            reason = typed_text(why).strip()
            return {
                "type": "refuse",
                "request": record_number(record.lstrip("#")),
                "reason": reason,
            }
    raise RuleError("refuse: give the request's record number and a reason, e.g. refuse 12 not yet")


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


#: a word that looks like a duration but is none (``2x``, ``3``, ``1.5r``, ``-2r``): a typo,
#: never a name's end
NEAR_DURATION = re.compile(r"[-+]?\d*[.,]?\d+[^\W\d_]*")
#: a duration's unit typed as a word of its own (``2 rounds``)
UNIT_WORD = re.compile(r"rounds?|turns?|counts?", re.IGNORECASE)
COND_USAGE = "cond NAMES CONDITION [2r|1t|3c] [gm] [for REASON]"


def _duration(words: list[str], at: int) -> tuple[str, int, int] | None:
    """The duration typed at ``words[at]`` (``2r``, or ``2 rounds`` in two words): its unit,
    its count and how many words it took; None when none is there."""
    word = words[at]
    if quoted(word):
        return None
    found = DURATION.fullmatch(word)
    if found:
        return UNITS[found.group(2)[0].lower()], int(found.group(1)), 1
    after = words[at + 1] if at + 1 < len(words) else ""
    if word.isascii() and word.isdigit() and UNIT_WORD.fullmatch(after) and not quoted(after):
        return UNITS[after[0].lower()], int(word), 2
    return None


def _cond_word(words: list[str], at: int) -> bool:
    """Whether the condition's name has ended at ``words[at]``: a duration, gm or for."""
    word = words[at]
    flag = not quoted(word) and word.lower() in ("gm", "for")
    return flag or _duration(words, at) is not None


def _condition(words: list[str], out: dict[str, Any]) -> dict[str, Any]:
    """``prone 2r gm for the blast``: the condition's name (the words up to its duration,
    ``gm`` or ``for``), its one duration, whether it is the GM's, and the reason."""
    name = _condition_name(words, out["character"])
    at = len(name)
    while at < len(words):
        at = _condition_word(words, at, out, name)
    return {**out, "name": name_text(name)}


def _condition_name(words: list[str], who: str) -> list[str]:
    """The words of the condition's name: those before its duration, ``gm`` or ``for``."""
    at = 0
    while at < len(words) and not _cond_word(words, at):
        at += 1
    name = words[:at]
    if not name:
        raise RuleError(f"cond: name the condition before its duration ({COND_USAGE})")
    last = name[-1]
    if not quoted(last) and NEAR_DURATION.fullmatch(last):
        raise RuleError(
            f"cond: {last!r} is not a duration (2r rounds, 1t turns, 3c counts); quote the "
            f'name if it is part of it (cond {who} "{name_text(name)}")'
        )
    return name


def _condition_word(words: list[str], at: int, out: dict[str, Any], name: list[str]) -> int:
    """Read the duration, ``gm`` or ``for REASON`` at ``words[at]`` into ``out``; the place
    of the next word (past the end once the reason has taken the rest)."""
    word = words[at]
    duration = _duration(words, at)
    if duration is not None:
        if any(u in out for u in UNITS.values()):
            typed = typed_text(words[at : at + duration[2]])
            raise RuleError(f"cond: {typed!r} is a second duration (give one: 2r, 1t or 3c)")
        out[duration[0]] = duration[1]
        return at + duration[2]
    plain = word.lower() if not quoted(word) else ""
    if plain == "gm" and not out.get("gm_only"):
        out["gm_only"] = True
        return at + 1
    if plain == "for":
        _, reason = cut_reason(words[at:], "cond")
        _no_duration_in(words[at + 1 :])
        out.update(reason)
        return len(words)
    raise RuleError(
        f"cond: {word!r} after the condition {name_text(name)!r} is not understood "
        f"(then: 2r|1t|3c, gm, for REASON; quote a name of several words)"
    )


def _no_duration_in(reason: list[str]) -> None:
    """Refuse a reason holding a duration, which the GM meant as the condition's."""
    for at in range(len(reason)):
        duration = _duration(reason, at)
        if duration is not None:
            typed = typed_text(reason[at : at + duration[2]])
            raise RuleError(
                f"cond: {typed!r} is in the reason after 'for'; give the duration before "
                f"'for' (cond kael prone 2r for the blast)"
            )


@GENERIC.form("cond", Usage(("character", "text"), makes="add-condition"))
def _cond(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *spec] if spec:
            return _condition(spec, {"type": "add-condition", "character": who})
    raise _write_it(COND_USAGE)


@GENERIC.form("uncond", Usage(("character", "condition"), makes="remove-condition"))
def _uncond(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, who, *name] if name:
            return {"type": "remove-condition", "character": who, "name": name_text(name)}
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
            return {"type": "rename", "character": who, "name": name_text(name)}
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


def bare(kind: str, form: str) -> Parser:
    """A form of one word, ``form``: the command ``kind``; any word after it is refused."""

    def parse(words: list[str], state: TableState) -> dict[str, Any]:
        nothing_after(words[1:], form, f"{form} takes nothing after it: one at a time")
        return {"type": kind}

    return parse


CLOCK.form("next", Usage(makes="next-turn"))(bare("next-turn", "next"))
CLOCK.form("end", Usage(makes="end-encounter"))(bare("end-encounter", "end"))


def parse_generic(words: list[str], state: TableState) -> dict[str, Any] | None:
    """The command a generic short form of this table makes, or None when it is none."""
    found = GENERIC.parse(words, state)
    if found is None and systems.get_system(state.system).moment is None:
        return CLOCK.parse(words, state)
    return found
