"""What the faces of the dice systems share in how they say things."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def if_given(event: Mapping[str, Any], field: str, form: str) -> str:
    """``form`` with the event's ``field`` in its ``{}``, or nothing when the field is
    missing or empty: the optional parts of a log line (a reason, a label, a size)."""
    value = event.get(field)
    return form.format(value) if value else ""
