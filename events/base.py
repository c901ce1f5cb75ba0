"""The base of every event: a frozen msgspec Struct with a permanent string tag."""

from __future__ import annotations

import msgspec


class Event(msgspec.Struct, frozen=True, tag_field="type", kw_only=True):
    """An immutable fact in a table's log.

    Every subclass names its tag explicitly (``tag="..."``): the tag is written
    into every stored record and must never change, so a class can be renamed
    without breaking old logs. Fields added later need defaults; a field's type
    never changes (a reshaped event gets an upgrade in ``events.upgrade``).
    """
