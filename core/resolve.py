"""``margin resolve`` requests: checked fields and dispatch to a system."""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec

from .dice import Dice, TypedDice
from .errors import RuleError
from .inputs import explain, fields_at, shown

T = TypeVar("T", bound=msgspec.Struct)


def resolve(request: Any, dice: Dice) -> dict[str, Any]:
    """Resolve one request (already parsed JSON) with ``dice`` unless it gives its own."""
    from .systems import SYSTEMS  # late: the systems use this module's field helpers

    if not isinstance(request, dict):
        raise RuleError("request: expected a JSON object")
    system_id = request.get("system")
    if system_id is None:
        raise RuleError("system: missing (one of " + ", ".join(SYSTEMS) + ")")
    system = SYSTEMS.get(system_id) if isinstance(system_id, str) else None
    if system is None:
        raise RuleError(f"system: {system_id!r} is not known (one of {', '.join(SYSTEMS)})")
    action = request.get("action")
    handler = system.resolve.get(action) if isinstance(action, str) else None
    if handler is None:
        actions = ", ".join(system.resolve) or "none yet"
        raise RuleError(f"action: {action!r} is not an action of {system.id} (actions: {actions})")
    fields = {k: v for k, v in request.items() if k not in ("system", "action")}
    typed = None
    if "faces" in fields and fields["faces"] is not None:
        faces = fields["faces"]
        if not isinstance(faces, list) or not all(
            isinstance(f, int) and not isinstance(f, bool) for f in faces
        ):
            raise RuleError("faces: expected a list of whole numbers")
        typed = TypedDice(faces)
    result = handler(fields, typed or dice)
    if typed is not None:
        typed.finish()
    return result


_UNKNOWN = re.compile(r"Object contains unknown field `([^`]*)`")
_MISSING = re.compile(r"Object missing required field `([^`]*)`")


def request(fields: dict[str, Any], kind: type[T]) -> T:
    """A request's fields read as ``kind`` (a msgspec Struct declaring each field's bounds
    and choices), or a one-line error naming the field and what is valid."""
    try:
        return msgspec.convert(fields, kind)
    except msgspec.ValidationError as exc:
        text = str(exc)
        unknown = _UNKNOWN.match(text)
        if unknown:
            known = ", ".join(fields_at(kind, text.partition(" - at `$")[2].rstrip("`")))
            raise RuleError(f"{unknown[1]}: unknown field (fields: {known})") from None
        missing = _MISSING.match(text)
        if missing:
            raise RuleError(f"{missing[1]}: missing") from None
        raise RuleError(explain(exc, fields, kind, every=True) or text) from None


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number field within bounds, or a clear error naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{name}: expected a whole number, got {shown(value)}")
    if lo is not None and value < lo or hi is not None and value > hi:
        bounds = f"{lo if lo is not None else '...'}..{hi if hi is not None else '...'}"
        raise RuleError(f"{name}: {value} is out of range ({bounds})")
    return value
