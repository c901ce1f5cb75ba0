"""The base of every event: a frozen msgspec Struct with a permanent string tag."""

from __future__ import annotations

from typing import ClassVar

import msgspec


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
