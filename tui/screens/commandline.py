"""The table screen's command line: typed words to commands, and completion.

Lines are split into words here; the words are read by the generic grammar
(``roll``, ``add``, ``cond``, the generic turn order ..., in ``core.systems.words``)
or the dice system's, except the words that open a screen (help, rules, undo's
preview). The screen reads the sheet file of ``add NAME from FILE`` itself, in a
worker (``sheet_files`` names them), and hands the grammar its sheet. A line starting with
``{`` is a command as JSON, exactly as ``margin do`` reads it, so whatever a
system offers is reachable even without a short form. Nothing here decides a
rule: a line becomes a command, and the core decides it.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from margin.core import Character, RuleError, TableState, find_character, get_system, parse_command
from margin.core.authority import given, gm_given
from margin.core.commands import Amend, command_type, convert_command, player_commands
from margin.core.systems.base import Command, Usage
from margin.core.systems.words import CLOCK, GENERIC, parse_generic, split_words
from margin.core.targets import find_characters

#: Words the screen reads itself, with the one-line help the help screen shows.
GENERIC_HELP: dict[str, str] = {
    "roll": "roll NOTATION [secret] [as NAME] [for REASON]   free roll: roll 3d6+2",
    "note": "note TEXT   a note everyone sees",
    "gmnote": "gmnote TEXT   a note only the GM sees",
    "undo": "undo [RECORD]   void the last command, or the one that wrote RECORD, "
    "and all it caused (shows what first)",
    "redo": "redo   restore what the last undo voided",
    "reveal": "reveal SEQ   show the players a secret record",
    "add": "add NAME [xN] [npc] [hidden] [from FILE] [KEY=VALUE ...]   seat a character "
    "(sheet fields, or a JSON/TOML sheet file); x4 seats NAME 1..4",
    "hide": "hide NAME   hide a character from the players",
    "show": "show NAME   show a hidden character to the players",
    "remove": "remove NAME   a character leaves the table",
    "set": "set OPTION VALUE   change a rule option",
    "cond": "cond NAMES CONDITION [2r|1t|3c] [gm] [for REASON]   a condition for rounds, the "
    "bearer's turns or counts (none: until removed); gm: the GM's alone",
    "uncond": "uncond NAMES CONDITION   take a condition off",
    "counter": "counter NAMES COUNTER MAX|VALUE/MAX|remove   start or set a counter (Health, ammo)",
    "adjust": "adjust NAMES COUNTER +N|-N   add to a counter or take from it",
    "edit": "edit NAMES FIELD=VALUE ...   sheet fields (skills.Melee=40), counters (Health=8), "
    "name=NEW, npc=true",
    "rename": "rename NAME NEW NAME   a character goes by a new name",
    "health": "health NAMES exact|descriptive|hidden|table   what players see of their health",
    "alias": "alias NAME = LINE   a macro: typing NAME runs LINE (words after NAME are added); "
    "alias NAME = forgets it",
    "say": "say TEXT   say something to the table",
    "whisper": "whisper NAME TEXT   words for one player alone (a player: whisper gm TEXT)",
    "accept": "accept REQUEST   apply a player's request as they asked (F5: the first waiting)",
    "refuse": "refuse REQUEST [REASON]   refuse a player's request (F6: the first waiting)",
    "amend": "amend REQUEST LINE   apply LINE instead of a player's request (F7 types it)",
    "ask": "ask NAMES CHECK [secret]   players roll a check now from their seats (ask kael,vex "
    "then the check's words); secret: the GM's dice, players told only that a check is made; "
    "ask roll NAME [= FACES] rolls it for a player who did not answer",
    "help": "help   every key and command",
    "rules": "rules   the rules of this table's system, as margin plays them",
}

#: Words that open a screen rather than run a command (``undo`` without a record opens
#: undo's preview; ``undo 12`` is a command).
SCREEN_WORDS = ("undo", "help", "rules")

#: The generic turn order's words, in a system without a clock of its own.
CLOCK_HELP: dict[str, str] = {
    "start": "start [NAMES ...] [dice DICE]   start the turn order; those named join, rolling",
    "join": "join NAMES [N|DICE]   join the running turn order at N, or rolling DICE "
    "(the option initiative_dice when neither)",
    "leave": "leave NAMES   leave the turn order",
    "next": "next   the next turn (Ctrl+N)",
    "end": "end   the encounter ends",
}


def help_words(state: TableState) -> dict[str, str]:
    """The words the screen reads itself, with their help, for this table."""
    if get_system(state.system).moment is None:
        return {**GENERIC_HELP, **CLOCK_HELP}
    return GENERIC_HELP


#: Typed physical dice: ``... = 4 7`` gives the faces instead of rolling.
FACES_MARK = "="


@dataclass(frozen=True)
class Parsed:
    """A command line read: a command to run, or a screen action (undo, help)."""

    command: Command | None = None
    action: str = ""


def _split(text: str) -> list[str]:
    """The line's words (``core.systems.words.split_words``: quotes group words only at
    their ends, so ``guard's`` and ``can't`` stay as typed)."""
    return list(split_words(text))


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


#: reads the sheet file a line names: its sheet, or ``RuleError``
SheetReader = Callable[[str], dict[str, Any]]


def _sheet_places(words: list[str]) -> list[int]:
    """Where an ``add`` line names a sheet file: each word after ``from``."""
    if words[0].lower() != "add":
        return []
    return [n for n in range(3, len(words)) if words[n - 1].lower() == "from"]


def _read_sheet_files(words: list[str], sheets: SheetReader | None) -> list[str]:
    """An ``add`` line with each file of ``from FILE`` read: its sheet, as JSON, in the
    file's place, for the grammar (``core.systems.words``) to take as the sheet. Without
    a reader the file's name stays, and the grammar says it was not read."""
    if sheets is None:
        return words
    out = list(words)
    for n in _sheet_places(words):
        out[n] = json.dumps(sheets(words[n]))
    return out


def sheet_files(text: str, state: TableState) -> list[str]:
    """The sheet files a typed line would read (none, unless it is ``add ... from FILE``)."""
    text = text.strip()
    if not text or text.startswith("{") or text.partition(" ")[0].lower() == "alias":
        return []
    try:
        words, _ = _faces(_split(expand_alias(text, state)))
    except RuleError:
        return []  # the line is refused when it is read, before any file
    return [words[n] for n in _sheet_places(words)] if words else []


def _accepts_faces(system: str, tag: str) -> bool:
    for cls in command_type(system).__args__:
        if cls.__struct_config__.tag == tag:
            return "faces" in cls.__struct_fields__
    return False


def parse_line(
    text: str, state: TableState, sheets: SheetReader | None = None, *, player: bool = False
) -> Parsed:
    """A typed line as a command (or a screen action); ``RuleError`` names what is wrong.

    ``sheets`` reads the files of ``add NAME from FILE``; without it none is read.
    ``player``: the line is a player's, whose unknown first word is told the player's words.
    """
    text = text.strip()
    if not text:
        raise RuleError("type a command (help lists them)")
    if text.startswith("{"):
        return Parsed(command=parse_command(state.system, text))
    head, _, rest = text.partition(" ")
    own = _OWN_LINES.get(head.lower())
    if own is not None:
        return Parsed(command=own(rest, state, sheets))
    words, faces = _words_and_faces(expand_alias(text, state))
    if not words:
        return Parsed(command=_answer(faces, state))
    head = words[0].lower()
    if head in SCREEN_WORDS and (head != "undo" or len(words) == 1):
        return Parsed(action=head)
    return Parsed(command=_command(words, faces, state, sheets, player))


#: words whose lines are read as typed, before any macro: a macro's line, an amended line
_OWN_LINES: dict[str, Callable[[str, TableState, SheetReader | None], Command]] = {
    "alias": lambda rest, state, _sheets: _alias(rest, state),
    "amend": lambda rest, state, sheets: _amend(rest, state, sheets),
}

#: words whose line is their text as typed, '=' and all
AS_TYPED = frozenset({"note", "gmnote", "say", "whisper"})


def _words_and_faces(text: str) -> tuple[list[str], list[int] | None]:
    """A line's words and the faces typed after its ``=`` (a note has none: it is as typed)."""
    if text.split(None, 1)[0].lower() in AS_TYPED:
        return _split(text), None
    return _faces(_split(text))


def _answer(faces: list[int] | None, state: TableState) -> Command:
    """A line of faces alone: a player's answer to the check the GM asked of them."""
    if faces is None:
        raise RuleError("type a command before '=' (e.g. roll 2d10 = 4 7)")
    return convert_command(state.system, {"type": "answer", "faces": faces})


def _command(
    words: list[str],
    faces: list[int] | None,
    state: TableState,
    sheets: SheetReader | None,
    player: bool = False,
) -> Command:
    """The command a line's words make, its typed ``faces`` (if any) given to it."""
    found = parse_generic(_read_sheet_files(words, sheets), state)
    if found is None:
        found = _system_forms(words, faces, state)
    if found is None:
        raise _not_a_command(words[0], state, player)
    if faces is not None:
        _give_faces(found, faces, words[0], state)
    return convert_command(state.system, found)


def _not_a_command(word: str, state: TableState, player: bool) -> RuleError:
    """The refusal of a first word that is no command: the nearest one, and all of them."""
    known = player_words(state) if player else command_words(state)
    near = difflib.get_close_matches(word.lower(), known, n=1)
    mean = f" (did you mean {near[0]!r}?)" if near else ""
    return RuleError(f"{word!r} is not a command{mean}; commands: {', '.join(known)}")


def _give_faces(found: dict[str, Any], faces: list[int], word: str, state: TableState) -> None:
    """Typed faces given to the command a line makes, if its kind takes them."""
    if not _accepts_faces(state.system, str(found.get("type"))):
        raise RuleError(
            f"{word}: '= faces' does not fit this command; "
            "give its dice in its own words (help shows how)"
        )
    found["faces"] = faces


def _alias(rest: str, state: TableState) -> Command:
    """``alias NAME LINE``: a macro, its line kept as typed, '= faces' and all."""
    data = GENERIC.parse(["alias", rest], state)
    assert data is not None
    if data["name"].lower() in _command_words_only(state):
        raise RuleError(f"alias: {data['name']!r} is a command; give the macro another name")
    return convert_command(state.system, data)


def _amend(rest: str, state: TableState, sheets: SheetReader | None) -> Command:
    """``amend REQUEST LINE``: the command of LINE applied instead of the request's."""
    number, _, line = rest.strip().partition(" ")
    number = number.lstrip("#")
    if not number.isascii() or not number.isdigit() or not line.strip():
        raise RuleError("amend: give the request's record number and the line to apply instead")
    inner = parse_line(line, state, sheets)
    if inner.command is None:
        raise RuleError(f"amend: {line.strip()!r} runs no command")
    return Amend(request=int(number), command=given(inner.command))


def _system_forms(
    words: list[str], faces: list[int] | None, state: TableState
) -> dict[str, Any] | None:
    """The system's short form; one naming a group where it takes one character is one
    command for each member."""
    system = get_system(state.system)
    lines = _group_lines(words, state)
    if lines is not None:
        if faces is not None:
            raise RuleError(f"{words[0]}: '= faces' fits one character's roll, not a group's")
        parsed = [system.parse_words(line, state) for line in lines]
        if all(p is not None for p in parsed):
            return {"type": "each", "commands": parsed}
    return system.parse_words(words, state)


def expand_alias(text: str, state: TableState) -> str:
    """A line starting with a macro's name, as the line it stands for (words after it added)."""
    head, _, rest = text.partition(" ")
    line = state.aliases.get(head.lower())
    # a command's own word is never a macro's, whatever the log holds
    if line is None or head.lower() in _command_words_only(state):
        return text
    return f"{line} {rest}".strip()


def _group_lines(words: list[str], state: TableState) -> list[list[str]] | None:
    """A system's short form naming a group where it takes one character, as one line
    per member (``damage guard 6`` for each guard), or None when it names no group."""
    usage = get_system(state.system).grammar.get(words[0].lower())
    if usage is None:
        return None
    for place, kind in enumerate(usage.slots[: len(words) - 1], 1):
        if kind != "character":
            continue
        members = _members(state, words[place])
        if len(members) > 1:
            return [[*words[:place], m.name, *words[place + 1 :]] for m in members]
    return None


def _members(state: TableState, word: str) -> list[Character]:
    """The characters a word names, none when it names none (the system's own words say
    what is wrong)."""
    try:
        return find_characters(state, word)
    except RuleError:
        return []


def opens_screen(text: str) -> bool:
    """Whether a line opens a screen rather than running a command (undo's preview, help)."""
    words = text.split()
    return bool(words) and words[0].lower() in SCREEN_WORDS


def quiet_command(text: str, state: TableState) -> Command | None:
    """The command a partly typed line would run, or None (no error while typing)."""
    try:
        return parse_line(text, state).command
    except Exception:  # half a line may trip anything; typing must never stop the table
        return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    system = get_system(state.system)
    vocab = system.vocabulary(state)
    return {k: list(v) for k, v in vocab.items()}


def _command_words_only(state: TableState) -> set[str]:
    """The first words of the screen's and the system's commands (not macros)."""
    system = get_system(state.system)
    return {*help_words(state), *vocabulary(state).get("command", []), *system.grammar}


def command_words(state: TableState) -> list[str]:
    """First words the command line accepts, generic ones first, then macros."""
    words = list(help_words(state))
    for word in [*vocabulary(state).get("command", []), *state.aliases]:
        if word not in words:
            words.append(word)
    return words


#: what each generic command's words are, for completion (as a system's ``grammar``)
GENERIC_GRAMMAR: dict[str, Usage] = {
    **GENERIC.usages,
    **{word: Usage() for word in SCREEN_WORDS if word not in GENERIC.usages},
}


def grammar_of(head: str, state: TableState) -> Usage | None:
    """What each word of the short form starting with ``head`` is, for this table."""
    if head in GENERIC_GRAMMAR:
        return GENERIC_GRAMMAR[head]
    system = get_system(state.system)
    if system.moment is None and head in CLOCK.usages:
        return CLOCK.usages[head]
    return system.grammar.get(head)


#: kinds of word that are typed, never completed
TYPED = frozenset({"number", "text", "dice", "record", "value"})


def typed_words(message: str, state: TableState) -> str:
    """A message with each JSON command type (``next-turn``) said as the word typed (``next``).

    Types inside JSON (after a quote) are left alone, so examples stay valid.
    """
    system = get_system(state.system)
    clock = CLOCK.usages if system.moment is None else {}
    grammar = {**system.grammar, **clock, **GENERIC_GRAMMAR}
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
    return _place(text, state).kinds


@dataclass(frozen=True)
class _Place:
    """The place of the word being typed: its kinds, whether it is the command's first
    character slot (the one who acts), the characters the line names before it, and the
    words given after the slots (a weapon already named is one of them)."""

    kinds: list[str]
    acting: bool = False
    named: tuple[str, ...] = ()
    given: frozenset[str] = frozenset()

    @property
    def actor(self) -> str | None:
        """The character who acts, once the line names them."""
        return self.named[0] if self.named else None


def _at_new_word(text: str) -> bool:
    """Whether the word being typed at the end of ``text`` is not begun yet."""
    return not text or text[-1].isspace()


def _before_last(text: str) -> str:
    """``text`` up to the word being typed at its end."""
    return text if _at_new_word(text) else text[: len(text) - len(text.split()[-1])]


def _place(text: str, state: TableState) -> _Place:
    # quoted names of several words ("Rat 1") count as one word
    words = _split(text)
    before = words if _at_new_word(text) else words[:-1]
    if not before:
        return _Place(["command"])
    usage = grammar_of(before[0].lower(), state)
    if usage is None:
        return _Place([])
    return _place_after(usage, before[1:], state)


def _named(usage: Usage, args: list[str], state: TableState) -> tuple[str, ...]:
    """The ids of the characters a line's words give in its command's character slots."""
    slots = zip(usage.slots, args, strict=False)
    return tuple(_character_id(word, state) for kind, word in slots if kind == "character")


def _place_after(usage: Usage, args: list[str], state: TableState) -> _Place:
    """The place of the word typed after ``args``, the words after a command's first."""
    named = _named(usage, args, state)
    if args and args[-1].lower() in usage.after:
        return _Place([usage.after[args[-1].lower()]], named=named)
    if len(args) < len(usage.slots):
        slot = usage.slots[len(args)]
        return _Place([slot], slot == "character" and not named, named)
    given = frozenset(word.lower() for word in args[len(usage.slots) :])
    return _Place(list(usage.rest), named=named, given=given)


def _character_id(word: str, state: TableState) -> str:
    """The id of the character ``word`` names (``word`` itself when it names none)."""
    try:
        return find_character(state, word).id
    except RuleError:
        return word


#: kinds of word a character's own sheet gives (its skills, its weapons): offered from the
#: sheet of the one who acts, once the line names them
SHEET_KINDS = frozenset({"skill", "weapon", "characteristic", "attribute", "action"})


def _conditions(state: TableState) -> list[str]:
    """The conditions any character bears."""
    return sorted({c.name for char in state.characters.values() for c in char.conditions})


def _counters(state: TableState) -> list[str]:
    """The counters any character has."""
    return sorted({c.name for char in state.characters.values() for c in char.counters.values()})


def _options(state: TableState) -> list[str]:
    """The rule options of the table's system."""
    return [o.name for o in get_system(state.system).all_options]


#: kinds of word the table itself gives, before the system's vocabulary
STATE_POOLS: dict[str, Callable[[TableState], list[str]]] = {
    "command": command_words,
    "condition": _conditions,
    "counter": _counters,
    "option": _options,
}


def _pool(kind: str, state: TableState, vocab: dict[str, list[str]]) -> list[str]:
    if kind in STATE_POOLS:
        return STATE_POOLS[kind](state)
    if kind == "character":
        return vocab.get("character") or [c.id for c in state.characters.values()]
    if kind in vocab:
        return vocab[kind]
    return [] if kind in TYPED else kind.split("|")


def _gm_pool(kind: str, place: _Place, state: TableState, vocab: dict[str, list[str]]) -> list[str]:
    """What the GM's command line offers for a word of ``kind``: the acting character's own
    skills and weapons once the line names them, and no character twice where one acts on
    another (the attacker is not the target)."""
    own = _sheet_pool(kind, place.actor, state)
    if own:
        return own
    pool = _pool(kind, state, vocab)
    if kind == "character" and place.named:
        taken = set(place.named)
        return [word for word in pool if _character_id(word, state) not in taken]
    return pool


def _sheet_pool(kind: str, actor: str | None, state: TableState) -> list[str]:
    """The words of a kind a character's sheet gives (skills, weapons) from the sheet of
    ``actor``, the one who acts; none before the line names them."""
    if kind not in SHEET_KINDS or actor not in state.characters:
        return []
    return _own_vocabulary(state, actor).get(kind, [])


#: words a player's command line offers besides their system's player commands: the
#: screen's own
PLAYER_WORDS = ("help", "rules")


def player_words(state: TableState) -> list[str]:
    """The first words a player may type: the forms that make a command their system marks
    as a player's (``core.commands.player_commands``), and help."""
    allowed = {str(kind.__struct_config__.tag) for kind in player_commands(state.system)}
    out = []
    for word in command_words(state):
        made = getattr(grammar_of(word, state), "makes", "") or word
        if made in allowed or word in PLAYER_WORDS:
            out.append(word)
    return out


def _player_pool(
    kind: str, place: _Place, state: TableState, player: str, vocab: dict[str, list[str]]
) -> list[str]:
    """What a player's command line offers for a word of ``kind``: their player words, their
    own character where the one who acts goes, and their own character's skills and
    weapons (``vocab`` is their character's alone)."""
    if kind == "command":
        return player_words(state)
    if kind == "character" and place.acting:
        return [player] if player in state.characters else []
    if kind == "character":
        return [c.id for c in state.characters.values()]
    if kind in ("condition", "counter", "option"):
        return []
    return _pool(kind, state, vocab)


def candidates(text: str, state: TableState, player: str | None = None) -> list[str]:
    """Completions of the last word of ``text``, in offer order, of the kinds its place takes;
    for ``player`` (a player's character id), only the words a player may give."""
    return [word for _, words in offers(text, state, player) for word in words]


def offers(text: str, state: TableState, player: str | None = None) -> list[tuple[str, list[str]]]:
    """``candidates`` by the kind of word each is (a kind of literal words says ``or``)."""
    if text.startswith("{"):
        return []
    place = _place(text, state)
    pools = _pools(place, state, player)
    if player is not None:
        pools = _players_words(text, place, pools, state)
    last = "" if _at_new_word(text) else text.split()[-1].lower()
    # a word the line already gives is not offered again (the weapon, once it is named)
    seen = {word.lower() for word in _split(text)[1:]} - {last}
    out: list[tuple[str, list[str]]] = []
    for kind, pool in zip(place.kinds, pools, strict=True):
        if "|" not in kind and place.given & {word.lower() for word in pool}:
            continue  # one word of this kind is given (one weapon, one location)
        _offer(out, "or" if "|" in kind else kind, _fresh(pool, last, seen))
    return out


def _offer(out: list[tuple[str, list[str]]], label: str, words: list[str]) -> None:
    """Words offered under ``label``, beside the last offer's when it has the same label."""
    if not words:
        return
    if out and out[-1][0] == label:
        out[-1][1].extend(words)
    else:
        out.append((label, words))


def _pools(place: _Place, state: TableState, player: str | None) -> list[list[str]]:
    """The words each kind of ``place`` takes, the GM's or (``player``) a player's own."""
    if player is None:
        vocab = vocabulary(state)
        return [_gm_pool(kind, place, state, vocab) for kind in place.kinds]
    vocab = _own_vocabulary(state, player)
    return [_player_pool(kind, place, state, player, vocab) for kind in place.kinds]


def _players_words(
    text: str, place: _Place, pools: list[list[str]], state: TableState
) -> list[list[str]]:
    """``pools`` without the option words only the GM may give (``secret``, ``override``):
    a word that, typed next on ``text`` (with a number after it, for a word that takes
    one), makes a command giving a field the GM's alone (``core.authority.gm_given``)."""
    literal = [_literal(kind) for kind in place.kinds]
    if not any(literal):
        return pools
    head = _before_last(text)
    base = _trial(head, state)
    return [
        [w for w in words if not _gm_only(head, w, base, state)] if lit else words
        for lit, words in zip(literal, pools, strict=True)
    ]


#: kinds of word that are names or values, never literal words
NOT_LITERAL = TYPED | SHEET_KINDS | {"condition", "counter", "option", "difficulty"}


def _literal(kind: str) -> bool:
    """Whether a kind of word is literal words (``vs|adv|secret``), not commands, names or
    values."""
    return not kind.startswith(("command", "character")) and kind not in NOT_LITERAL


def _gm_only(head: str, word: str, base: Command | None, state: TableState) -> bool:
    """Whether ``word`` typed after ``head`` gives a field only the GM sets."""
    for line in (f"{head}{word}", f"{head}{word} 1"):
        command = _trial(line, state)
        if command is not None:
            return bool(gm_given(state.system, command, base))
    return False


def _trial(line: str, state: TableState) -> Command | None:
    """The command ``line`` makes as it stands, or None (half a line, or not a command)."""
    try:
        return parse_line(line, state).command
    except Exception:  # half a line may trip anything; completion must never stop typing
        return None


def _fresh(pool: list[str], last: str, seen: set[str]) -> list[str]:
    """The words of ``pool`` that complete ``last`` and are not ``seen`` yet (now seen)."""
    words = []
    for word in pool:
        low = word.lower()
        if low.startswith(last) and low != last and low not in seen:
            seen.add(low)
            words.append(word)
    return words


def _own_vocabulary(state: TableState, player: str) -> dict[str, list[str]]:
    """The names a player's own character gives completion (their skills, their weapons)."""
    own = state.characters.get(player)
    mine = msgspec.structs.replace(state, characters={player: own} if own is not None else {})
    return vocabulary(mine)


def complete(text: str, state: TableState, player: str | None = None) -> str | None:
    """``text`` with its last word completed (to the first candidate), or None.

    Nothing is inserted for a word not yet begun: the message line lists what may come.
    """
    if _at_new_word(text):
        return None
    found = candidates(text, state, player)
    if not found:
        return None
    head = _before_last(text)
    # a name of several words (Guard 1, Dock Boss) stays one word on the line
    word = f'"{found[0]}"' if " " in found[0] else found[0]
    return head + word + " "
