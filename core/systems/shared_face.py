"""What the faces of the dice systems share in how they say things."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_PLUS_MINUS = re.compile(r"\+ -(?=\d)")


def sums(text: str) -> str:
    """A sum as a person writes it: a negative term subtracted (``16 - 1 = 15``), never
    added (``16 + -1``); log lines of old tables say their sums this way too."""
    return _PLUS_MINUS.sub("- ", text)


def plus(value: object) -> str:
    """A term added to a sum: ``+ 3``, or ``- 3`` for a negative one."""
    return sums(f"+ {value}")


def if_given(event: Mapping[str, Any], field: str, form: str) -> str:
    """``form`` with the event's ``field`` in its ``{}``, or nothing when the field is
    missing or empty: the optional parts of a log line (a reason, a label, a size)."""
    value = event.get(field)
    return form.format(value) if value else ""
