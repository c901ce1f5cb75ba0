"""The table screen's command line: typed words to commands, and completion.

The generic words (``roll``, ``note``, ``undo`` ...) are read here; every other
first word goes to the dice system's ``parse_words``. A line starting with
``{`` is a command as JSON, exactly as ``margin do`` reads it, so whatever a
system offers is reachable even without a short form. Nothing here decides a
rule: a line becomes a command, and the core decides it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from margin.core import RuleError, TableState, get_system, parse_command
from margin.core.commands import command_type, convert_command
from margin.core.systems.base import Command, Usage

#: Words the screen reads itself, with the one-line help the help screen shows.
GENERIC_HELP: dict[str, str] = {
    "roll": "roll NOTATION [secret] [as NAME] [for REASON]   free roll: roll 3d6+2",
    "note": "note TEXT   a note everyone sees",
    "gmnote": "gmnote TEXT   a note only the GM sees",
    "undo": "undo [RECORD]   void the last command, or the one that wrote RECORD, "
    "and all it caused (shows what first)",
    "redo": "redo   restore what the last undo voided",
    "reveal": "reveal SEQ   show the players a secret record",
    "add": "add NAME [hidden] [KEY=VALUE ...]   seat a character (sheet fields)",
    "hide": "hide NAME   hide a character from the players",
    "show": "show NAME   show a hidden character to the players",
    "remove": "remove NAME   a character leaves the table",
    "set": "set OPTION VALUE   change a rule option",
    "help": "help   every key and command",
    "rules": "rules   the rules of this table's system, as margin plays them",
}

#: Typed physical dice: ``... = 4 7`` gives the faces instead of rolling.
FACES_MARK = "="


@dataclass(frozen=True)
class Parsed:
    """A command line read: a command to run, or a screen action (undo, help)."""

    command: Command | None = None
    action: str = ""


def _split(text: str) -> list[str]:
    """Words split on spaces, except inside quotes or JSON brackets (``skills={"Melee": 40}``).

    Quotes around a whole word are removed (``"Old Tom"``); quotes inside
    brackets are kept, so a sheet field's JSON survives intact.
    """
    words: list[str] = []
    word: list[str] = []
    quote = ""
    quoted = False  # the word had quotes, so even "" is a word (an empty name, say)
    depth = 0
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
                if depth == 0:
                    continue
            word.append(ch)
            continue
        if ch in "\"'":
            quote = ch
            if depth == 0:
                quoted = True
                continue
            word.append(ch)
        elif ch in "{[":
            depth += 1
            word.append(ch)
        elif ch in "}]":
            depth = max(0, depth - 1)
            word.append(ch)
        elif ch.isspace() and depth == 0:
            if word or quoted:
                words.append("".join(word))
                word = []
                quoted = False
        else:
            word.append(ch)
    if word or quoted:
        words.append("".join(word))
    return words


def _faces(words: list[str]) -> tuple[list[str], list[int] | None]:
    """Words without a trailing ``= 4 7`` and the faces it gives."""
    if FACES_MARK not in words:
        return words, None
    at = words.index(FACES_MARK)
    faces: list[int] = []
    for word in " ".join(words[at + 1 :]).replace(",", " ").split():
        try:
            faces.append(int(word))
        except ValueError:
            raise RuleError(
                f"faces: {word!r} is not a number (type the dice, e.g. = 4 7)"
            ) from None
    if not faces:
        raise RuleError("faces: nothing after '=' (type the dice rolled, e.g. = 4 7)")
    return words[:at], faces


def _value(key: str, text: str) -> Any:
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


def _generic(words: list[str], rest: str, state: TableState) -> Parsed | dict[str, Any] | None:
    word = words[0].lower()
    args = words[1:]
    if word == "roll":
        if not args:
            raise RuleError("roll: give dice notation, e.g. roll 2d10 or roll 3d6+2")
        out: dict[str, Any] = {"type": "roll", "dice": args[0]}
        i = 1
        while i < len(args):
            low = args[i].lower()
            if low == "secret":
                out["secret"] = True
            elif low == "as" and i + 1 < len(args):
                i += 1
                out["actor"] = args[i]
            elif low == "for":
                out["reason"] = " ".join(args[i + 1 :])
                break
            else:
                raise RuleError(
                    f"roll: {args[i]!r} not understood (after the dice: secret, as NAME, for REASON)"
                )
            i += 1
        return out
    if word in ("note", "gmnote"):
        if not rest.strip():
            raise RuleError(f"{word}: give the text of the note")
        return {"type": "note", "text": rest.strip(), "gm_only": word == "gmnote"}
    if word in ("undo", "help", "rules"):
        if word == "undo" and args:
            if len(args) == 1 and args[0].isascii() and args[0].isdigit():
                return {"type": "undo", "record": int(args[0])}
            return {"type": "undo", "command": args[0]}
        return Parsed(action=word)
    if word == "redo":
        return {"type": "redo", **({"command": args[0]} if args else {})}
    if word == "reveal":
        if len(args) != 1 or not (args[0].isascii() and args[0].isdigit()):
            raise RuleError("reveal: give the record number, e.g. reveal 42")
        return {"type": "reveal", "seq": int(args[0])}
    if word == "add":
        if not args:
            raise RuleError('add: give a name, e.g. add Kael or add "Old Tom" hidden')
        sheet: dict[str, Any] = {}
        hidden = False
        for arg in args[1:]:
            key, eq, value = arg.partition("=")
            if eq:
                sheet[key] = _value(key, value)
            elif arg.lower() == "hidden":
                hidden = True
            else:
                raise RuleError(f"add: {arg!r} not understood (after the name: hidden, KEY=VALUE)")
        return {"type": "add-character", "name": args[0], "sheet": sheet, "hidden": hidden}
    if word in ("hide", "show", "remove"):
        if len(args) != 1:
            raise RuleError(f"{word}: give one character, e.g. {word} wolf")
        if word == "remove":
            return {"type": "remove-character", "character": args[0]}
        return {"type": "update-character", "character": args[0], "hidden": word == "hide"}
    if word == "set":
        if len(args) != 2:
            raise RuleError("set: give an option and a value, e.g. set OPTION VALUE")
        value = get_system(state.system).option(args[0]).parse(args[1])
        return {"type": "set-option", "name": args[0], "value": value}
    return None


def _accepts_faces(system: str, tag: str) -> bool:
    for cls in command_type(system).__args__:
        if cls.__struct_config__.tag == tag:
            return "faces" in cls.__struct_fields__
    return False


def parse_line(text: str, state: TableState) -> Parsed:
    """A typed line as a command (or a screen action); ``RuleError`` names what is wrong."""
    text = text.strip()
    if not text:
        raise RuleError("type a command (help lists them)")
    system = get_system(state.system)
    if text.startswith("{"):
        return Parsed(command=parse_command(state.system, text))
    words, faces = _faces(_split(text))
    if not words:
        raise RuleError("type a command before '=' (e.g. roll 2d10 = 4 7)")
    rest = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
    found = _generic(words, rest, state)
    if isinstance(found, Parsed):
        return found
    if found is None and system.parse_words is not None:
        found = system.parse_words(words, state)
    if found is None:
        raise RuleError(
            f"{words[0]!r} is not a command; commands: {', '.join(command_words(state))}"
        )
    if faces is not None:
        if not _accepts_faces(state.system, str(found.get("type"))):
            raise RuleError(
                f"{words[0]}: '= faces' does not fit this command; "
                "give its dice in its own words (help shows how)"
            )
        found["faces"] = faces
    return Parsed(command=convert_command(state.system, found))


def opens_screen(text: str) -> bool:
    """Whether a line opens a screen rather than running a command (undo's preview, help)."""
    words = text.split()
    return bool(words) and words[0].lower() in ("undo", "help", "rules")


def quiet_command(text: str, state: TableState) -> Command | None:
    """The command a partly typed line would run, or None (no error while typing)."""
    try:
        return parse_line(text, state).command
    except Exception:  # half a line may trip anything; typing must never stop the table
        return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    system = get_system(state.system)
    vocab = system.vocabulary(state) if system.vocabulary else {}
    return {k: list(v) for k, v in vocab.items()}


def command_words(state: TableState) -> list[str]:
    """First words the command line accepts, generic ones first."""
    words = list(GENERIC_HELP)
    for word in vocabulary(state).get("command", []):
        if word not in words:
            words.append(word)
    return words


#: what each generic command's words are, for completion (as a system's ``grammar``)
GENERIC_GRAMMAR: dict[str, Usage] = {
    "roll": Usage(("dice",), ("secret|as|for",), {"as": "character", "for": "text"}),
    "note": Usage(("text",)),
    "gmnote": Usage(("text",)),
    "undo": Usage(("record",)),
    "redo": Usage(),
    "reveal": Usage(("record",)),
    "add": Usage(("text",), ("hidden",), makes="add-character"),
    "hide": Usage(("character",)),
    "show": Usage(("character",)),
    "remove": Usage(("character",), makes="remove-character"),
    "set": Usage(("option", "value"), makes="set-option"),
    "help": Usage(),
    "rules": Usage(),
}

#: kinds of word that are typed, never completed
TYPED = frozenset({"number", "text", "dice", "record", "value"})


def typed_words(message: str, state: TableState) -> str:
    """A message with each JSON command type (``next-turn``) said as the word typed (``next``).

    Types inside JSON (after a quote) are left alone, so examples stay valid.
    """
    grammar = {**get_system(state.system).grammar, **GENERIC_GRAMMAR}
    words = {u.makes: w for w, u in grammar.items() if "-" in u.makes and u.makes != w}
    if not words:
        return message
    pattern = re.compile(
        r"(?<![\w\"-])("
        + "|".join(re.escape(t) for t in sorted(words, key=len, reverse=True))
        + r")(?![\w\"-])"
    )
    return pattern.sub(lambda m: words[m.group(1)], message)


def kinds(text: str, state: TableState) -> list[str]:
    """What the word being typed at the end of ``text`` may be, by the command's grammar."""
    words = text.split()
    before = words if not text or text[-1].isspace() else words[:-1]
    if not before:
        return ["command"]
    head = before[0].lower()
    usage = GENERIC_GRAMMAR.get(head) or get_system(state.system).grammar.get(head)
    if usage is None:
        return []
    args = [word.lower() for word in before[1:]]
    if args and args[-1] in usage.after:
        return [usage.after[args[-1]]]
    if len(args) < len(usage.slots):
        return [usage.slots[len(args)]]
    return list(usage.rest)


def _pool(kind: str, state: TableState, vocab: dict[str, list[str]]) -> list[str]:
    if kind == "command":
        return command_words(state)
    if kind == "character":
        return vocab.get("character") or [c.id for c in state.characters.values()]
    if kind == "option":
        return [o.name for o in get_system(state.system).all_options]
    if kind in vocab:
        return vocab[kind]
    if kind in TYPED:
        return []
    return kind.split("|")


def candidates(text: str, state: TableState) -> list[str]:
    """Completions of the last word of ``text``, in offer order, of the kinds its place takes."""
    if text.startswith("{"):
        return []
    last = "" if not text or text[-1].isspace() else text.split()[-1].lower()
    vocab = vocabulary(state)
    out: list[str] = []
    seen: set[str] = set()
    for kind in kinds(text, state):
        for word in _pool(kind, state, vocab):
            low = word.lower()
            if low.startswith(last) and low != last and low not in seen:
                seen.add(low)
                out.append(word)
    return out


def complete(text: str, state: TableState) -> str | None:
    """``text`` with its last word completed (to the first candidate), or None.

    Nothing is inserted for a word not yet begun: the message line lists what may come.
    """
    if not text or text[-1].isspace():
        return None
    found = candidates(text, state)
    if not found:
        return None
    head = text[: len(text) - len(text.split()[-1])]
    return head + found[0] + " "
