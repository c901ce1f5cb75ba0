"""The base of every event: a frozen msgspec Struct with a permanent string tag,
and the declaration of what players may see of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

import msgspec


@dataclass(frozen=True)
class PlayerForm:
    """The form of an event players may see; ``core.lens`` applies it.

    An event type without one (``Event.PLAYER`` left None) is GM-only. Every
    field name given here is checked against the event's fields when margin
    loads (``check_player_forms``), so a misspelt name fails at once instead of
    letting a secret through.
    """

    #: fields naming the characters the record is about: a character id, a list
    #: of ids, or a mapping keyed by ids. A record about a character players
    #: cannot see is GM-only, unless the field is one of ``unseen``.
    about: tuple[str, ...] = ()
    #: ``about`` fields that may name a hidden character while the record still
    #: reaches players: a hidden id is replaced by ``UNSEEN`` (removed from a
    #: list or mapping), and the fields it maps to, which would give that
    #: character away (a bonus, a weapon, the dice that show them), are cut.
    unseen: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: fields cut from a secret record (a secret roll's dice) until the GM reveals it
    secret: tuple[str, ...] = ()
    #: fields players never see (a place in the GM's turn order, which counts hidden
    #: combatants)
    private: tuple[str, ...] = ()
    #: fields cut when the record's cause had an unseen character (the damage
    #: dice of a hidden attacker's blow tell the weapon)
    via_unseen: tuple[str, ...] = ()
    #: fields naming other records whose fate this record only reports (an undo's
    #: voided records): players see it only if they saw one of those
    follows: tuple[str, ...] = ()
    #: fields stating the health of the characters the record is about, cut when
    #: the GM keeps that health from players (``core.health``)
    health: tuple[str, ...] = ()


#: What replaces a hidden character's id in a record players see.
UNSEEN = "someone unseen"


class Event(msgspec.Struct, frozen=True, tag_field="type", kw_only=True):
    """An immutable fact in a table's log.

    Every subclass names its tag explicitly (``tag="..."``): the tag is written
    into every stored record and must never change, so a class can be renamed
    without breaking old logs. Fields added later need defaults; a field's type
    never changes (a reshaped event gets an upgrade in ``events.record.UPGRADES``).
    """

    #: Fields holding sequence numbers of other records (an int, or a list of them),
    #: so a player's view can number them as the player sees the log.
    RECORD_FIELDS: ClassVar[tuple[str, ...]] = ()
    #: What players may see of this event; None: nothing (GM-only).
    PLAYER: ClassVar[PlayerForm | None] = None


_T = TypeVar("_T")


def declared(namespace: Mapping[str, object], base: type[_T]) -> tuple[type[_T], ...]:
    """The subclasses of ``base`` a module defines, in the order it defines them.

    Called at the end of the module as ``declared(globals(), Event)``, so a new
    type is counted by being written, never by being listed a second time.
    """
    module = namespace["__name__"]
    found: dict[type[_T], None] = {}
    for value in namespace.values():
        if isinstance(value, type) and issubclass(value, base) and value.__module__ == module:
            found[value] = None  # a type bound under two names counts once
    return tuple(found)


def _form_names(form: PlayerForm) -> list[str]:
    """Every field name a player form names."""
    names = [*form.about, *form.unseen, *form.secret, *form.private]
    names += [*form.via_unseen, *form.follows, *form.health]
    for gives in form.unseen.values():
        names += gives
    return names


def check_player_forms(events: tuple[type[Event], ...]) -> None:
    """Refuse, at load, a player form or record field naming a field the event lacks."""
    for kind in events:
        form = kind.PLAYER or PlayerForm()
        unknown = sorted({*kind.RECORD_FIELDS, *_form_names(form)} - set(kind.__struct_fields__))
        if unknown:
            raise TypeError(
                f"{kind.__name__}: player form or record fields name no field of the event: "
                + ", ".join(unknown)
            )
        stray = [n for n in form.unseen if n not in form.about]
        if stray:
            raise TypeError(f"{kind.__name__}: unseen fields not among 'about': {stray}")
