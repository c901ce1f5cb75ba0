"""Who may give which command: the one place that decides, for every door, failing closed.

A command comes from a seat: the GM's, or a player's (by the name they sat down with,
and how they came in: a local account, an SSH key, a browser link). The GM may give
any command. A player may give only the commands their system marks as a player's
(``System.players``, and margin's own ``say`` and free rolls), only for their own
character (a visible character who is not an NPC), naming as other characters only
ones players can see, leaving the fields only the GM sets alone, and only while the
table's ``players`` option is not ``off``. Anything else is refused with one line
saying why, and nothing is written. What an allowed command does is the option's:
``trust`` applies it at once, ``ask`` makes it a request for the GM to rule on.

A refusal never names what players cannot see: a hidden character is "not at the
table" exactly as a name nobody has.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from .commands import player_commands
from .errors import RuleError
from .state import Character, TableState, character_id
from .systems.base import Acting, Command

#: the GM's seat name, and the author of what the GM writes
GM = "gm"
#: how a seat came in
Door = Literal["local", "ssh", "web"]


class Refused(RuleError):
    """A command a seat may not give; the message is the one line the seat is told."""


@dataclass(frozen=True)
class Seat:
    """Who gives a command: the GM, or a player by the name they sat down with."""

    name: str = GM
    #: how they came in, and the account, SSH key fingerprint or link it came by
    door: Door = "local"
    via: str = ""

    @property
    def gm(self) -> bool:
        return self.name.lower() == GM

    def author(self, character: str) -> str:
        """The author a record of this seat names: ``gm``, or the player's character and
        how they came in (``kael (ssh SHA256:...)``)."""
        return _author(self, character)


GM_SEAT = Seat()


@functools.lru_cache(maxsize=256)
def _author(seat: Seat, character: str) -> str:
    """``Seat.author``: a seat writes every record of its session, so it is worded once."""
    if seat.gm:
        return GM
    how = f"{seat.door} {seat.via}".strip()
    return f"{character} ({how})"


@dataclass(frozen=True)
class Permit:
    """What a seat's allowed command does: ``apply`` it, or make it a ``request``."""

    route: Literal["apply", "request"]
    #: the player's character (None for the GM)
    character: str | None
    #: the author its records name
    author: str


def author_seat(author: str) -> str | None:
    """The player's character an author names, None for the GM (or an author from before
    players wrote)."""
    if author == GM or " (" not in author:
        return None
    return author.split(" (", 1)[0]


def seated(state: TableState, seat: Seat) -> Character:
    """The character a player's seat plays: visible and not an NPC; ``Refused`` otherwise."""
    char = _seen(state, seat.name)
    if char is None:
        raise Refused(f"{seat.name}: no character of that name is at the table")
    if char.npc:
        raise Refused(f"{seat.name}: {char.name} is an NPC, the GM's to play")
    return char


def _seen(state: TableState, ref: str) -> Character | None:
    """A character players can see, by id or name; None for any other (hidden or absent)."""
    found = state.characters.get(character_id(ref))
    if found is None:
        found = next((c for c in state.characters.values() if c.name.lower() == ref.lower()), None)
    return None if found is None or found.hidden else found


def authorize(seat: Seat, command: Command, state: TableState) -> Permit:
    """Whether ``seat`` may give ``command`` now, and what it does; ``Refused`` with the
    one line saying why when it may not."""
    if seat.gm:
        return Permit("apply", None, GM)
    char = seated(state, seat)
    tag = type(command).__struct_config__.tag
    allowed = player_commands(state.system)
    acting = allowed.get(type(command))
    if acting is None:
        mine = ", ".join(sorted(str(k.__struct_config__.tag) for k in allowed))
        raise Refused(f"{char.name}: {tag!r} is the GM's command (a player may give: {mine})")
    option = state.options.get("players", "ask")
    if option == "off" and not acting.watching:
        raise Refused(f"{char.name}: players watch only at this table (the GM's option players)")
    _check_fields(char, tag, command, acting, state)
    route: Literal["apply", "request"] = (
        "apply" if option == "trust" or acting.at_once else "request"
    )
    return Permit(route, char.id, seat.author(char.id))


def _check_fields(
    char: Character, tag: Any, command: Command, acting: Acting, state: TableState
) -> None:
    if acting.actor:
        _check_actor(char, tag, getattr(command, acting.actor), acting.actor, state)
    for name in acting.others:
        value = getattr(command, name)
        if value is None:
            continue
        if not isinstance(value, str) or _seen(state, value) is None:
            raise Refused(f"{char.name}: {tag} {name}: {value!r} is not at the table")
    defaults = _defaults(type(command))
    for name in acting.gm:
        if getattr(command, name) != defaults[name]:
            raise Refused(f"{char.name}: {tag} {name}: that is the GM's to set")


def _check_actor(char: Character, tag: Any, actor: Any, field: str, state: TableState) -> None:
    """Refuse a command whose actor is not the player's own character."""
    if not isinstance(actor, str):
        mine = False
    else:
        # the player's own character by id (as the screens give it) needs no search
        mine = character_id(actor) == char.id or _seen(state, actor) is char
    if not mine:
        raise Refused(
            f"{char.name}: {tag} {field}: a player commands their own character only ({char.name})"
        )


def given(command: Command) -> dict[str, Any]:
    """A command as plain data with only the fields it gives (its type, and every field
    that is not its default), as a request keeps it."""
    plain: dict[str, Any] = msgspec.to_builtins(command)
    defaults = _defaults(type(command))
    return {
        "type": type(command).__struct_config__.tag,
        **{
            k: v
            for k, v in plain.items()
            if k != "type" and getattr(command, k) != defaults.get(k, msgspec.NODEFAULT)
        },
    }


@functools.cache
def _defaults(kind: type[Command]) -> dict[str, Any]:
    """Each field's default (a type's fields never change, so they are read once)."""
    info = msgspec.structs.fields(kind)
    return {
        f.name: (f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default)
        for f in info
    }


def player_error(char: str, exc: RuleError, state: TableState) -> RuleError:
    """A rule's refusal of a player's command as that player is told it: a line that names
    a character players cannot see says only that the rules refuse the command."""
    text = str(exc)
    low = text.lower()
    for c in state.characters.values():
        if c.hidden and (c.id.lower() in low or c.name.lower() in low):
            return Refused(f"{char}: the rules refuse that command here")
    return Refused(text if text.startswith(f"{char}:") else f"{char}: {text}")
