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

    @functools.cached_property
    def gm(self) -> bool:
        return self.name.lower() == GM

    @functools.cached_property
    def key(self) -> str:
        """The character id the seat's name gives (a seat checks every command it gives,
        so it is worked out once)."""
        return character_id(self.name)

    def author(self, character: str) -> str:
        """The author a record of this seat names: ``gm``, or the player's character and
        how they came in (``kael (ssh SHA256:...)``)."""
        return self.permits(character)["apply"].author

    def permits(self, character: str) -> dict[str, Permit]:
        """The two permits this seat's commands for ``character`` get, by route (a seat
        writes every record of its session as the same author, so it is worded once)."""
        made = self._permits.get(character)
        if made is None:
            if self.gm:
                author = GM
            else:
                how = f"{self.door} {self.via}".strip()
                author = f"{character} ({how})"
            made = {r: Permit(r, character, author) for r in ("apply", "request")}
            self._permits[character] = made
        return made

    @functools.cached_property
    def _permits(self) -> dict[str, dict[str, Permit]]:
        return {}


@dataclass(frozen=True, slots=True)
class Permit:
    """What a seat's allowed command does: ``apply`` it, or make it a ``request``."""

    route: Literal["apply", "request"]
    #: the player's character (None for the GM)
    character: str | None
    #: the author its records name
    author: str


GM_SEAT = Seat()
#: what the GM's every command gets
_GM_PERMIT = Permit("apply", None, GM)


def author_seat(author: str) -> str | None:
    """The player's character an author names, None for the GM (or an author from before
    players wrote)."""
    if author == GM or " (" not in author:
        return None
    return author.split(" (", 1)[0]


def seated(state: TableState, seat: Seat) -> Character:
    """The character a player's seat plays: visible and not an NPC; ``Refused`` otherwise."""
    char = state.characters.get(seat.key)
    char = _seen(state, seat.name) if char is None or char.hidden else char
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


@dataclass(frozen=True, slots=True)
class _Rule:
    """What ``authorize`` checks of one command type a player may give, read once per
    system: its tag, how a player gives it and the defaults of the GM's fields."""

    tag: Any
    acting: Acting
    #: each field only the GM sets, with its default
    gm: tuple[tuple[str, Any], ...]


@functools.cache
def _rules(system: str) -> tuple[dict[type[Command], _Rule], str]:
    """The rule of every command a player may give at a table of ``system``, and their
    tags as a refusal lists them."""
    allowed = player_commands(system)
    rules = {}
    for kind, acting in allowed.items():
        defaults = _defaults(kind)
        rules[kind] = _Rule(
            kind.__struct_config__.tag, acting, tuple((n, defaults[n]) for n in acting.gm)
        )
    mine = ", ".join(sorted(str(k.__struct_config__.tag) for k in allowed))
    return rules, mine


def authorize(seat: Seat, command: Command, state: TableState) -> Permit:
    """Whether ``seat`` may give ``command`` now, and what it does; ``Refused`` with the
    one line saying why when it may not."""
    if seat.gm:
        return _GM_PERMIT
    char = seated(state, seat)
    rules, mine = _rules(state.system)
    rule = rules.get(type(command))
    if rule is None:
        tag = type(command).__struct_config__.tag
        raise Refused(f"{char.name}: {tag!r} is the GM's command (a player may give: {mine})")
    acting = rule.acting
    option = state.options.get("players", "ask")
    if option == "off" and not acting.watching:
        raise Refused(f"{char.name}: players watch only at this table (the GM's option players)")
    _check_fields(char, rule, command, state)
    route: Literal["apply", "request"] = (
        "apply" if option == "trust" or acting.at_once else "request"
    )
    return seat.permits(char.id)[route]


def _check_fields(char: Character, rule: _Rule, command: Command, state: TableState) -> None:
    acting, tag = rule.acting, rule.tag
    if acting.actor:
        _check_actor(char, tag, getattr(command, acting.actor), acting.actor, state)
    for name in acting.others:
        value = getattr(command, name)
        if value is None:
            continue
        if not isinstance(value, str) or _seen(state, value) is None:
            raise Refused(f"{char.name}: {tag} {name}: {value!r} is not at the table")
    for name, default in rule.gm:
        if getattr(command, name) != default:
            raise Refused(f"{char.name}: {tag} {name}: that is the GM's to set")


def gm_given(system: str, command: Command, than: Command | None = None) -> tuple[str, ...]:
    """The fields only the GM sets (a secret TN, an override) that ``command`` gives at a
    table of ``system``: those it sets otherwise than ``than`` does (a command of the same
    type), or than their defaults; a player's seat is refused a command that gives one.
    Nothing for a command no player may give."""
    rule = _rules(system)[0].get(type(command))
    if rule is None:
        return ()
    base = than if type(than) is type(command) else None
    return tuple(
        name
        for name, default in rule.gm
        if getattr(command, name) != (default if base is None else getattr(base, name))
    )


def _check_actor(char: Character, tag: Any, actor: Any, field: str, state: TableState) -> None:
    """Refuse a command whose actor is not the player's own character."""
    if not isinstance(actor, str):
        mine = False
    else:
        # the player's own character by id (as the screens give it) needs no search
        mine = actor == char.id or character_id(actor) == char.id or _seen(state, actor) is char
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
