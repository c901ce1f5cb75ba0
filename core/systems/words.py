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
from collections.abc import Callable
from typing import Any

from .. import systems
from ..errors import RuleError
from ..state import TableState, lookup
from .base import Usage

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


def number(word: str, what: str) -> float:
    """A typed number (``12.5``), or a clear error naming the word."""
    try:
        value = float(word)
    except ValueError:
        raise RuleError(f"{what}: expected a number, got {word!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RuleError(f"{what}: expected a number, got {word!r}")
    return value


def record_number(word: str) -> int | None:
    """A record's number typed as digits, or None."""
    return int(word) if word.isascii() and word.isdigit() else None


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


@GENERIC.form("add", Usage(("text",), ("hidden",), makes="add-character"))
def _add(words: list[str], state: TableState) -> dict[str, Any]:
    match words:
        case [_, name, *fields]:
            sheet: dict[str, Any] = {}
            hidden = False
            for field in fields:
                key, eq, value = field.partition("=")
                if eq:
                    sheet[key] = sheet_value(key, value)
                elif field.lower() == "hidden":
                    hidden = True
                else:
                    raise RuleError(
                        f"add: {field!r} not understood (after the name: hidden, KEY=VALUE)"
                    )
            return {"type": "add-character", "name": name, "sheet": sheet, "hidden": hidden}
    raise RuleError('add: give a name, e.g. add Kael or add "Old Tom" hidden')


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
