"""``margin resolve`` requests: checked fields and dispatch to a system."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dice import Dice, TypedDice
from .errors import RuleError
from .inputs import is_whole
from .systems import SYSTEMS, System


def resolve(request: Any, dice: Dice) -> dict[str, Any]:
    """Resolve one request (already parsed JSON) with ``dice`` unless it gives its own."""
    if not isinstance(request, dict):
        raise RuleError("request: expected a JSON object")
    handler = _handler(_system(request.get("system")), request.get("action"))
    fields = {k: v for k, v in request.items() if k not in ("system", "action")}
    typed = _typed_faces(fields.get("faces"))
    result = handler(fields, typed or dice)
    if typed is not None:
        typed.finish()
    return result


def _system(system_id: Any) -> System:
    if system_id is None:
        raise RuleError("system: missing (one of " + ", ".join(SYSTEMS) + ")")
    system = SYSTEMS.get(system_id) if isinstance(system_id, str) else None
    if system is None:
        raise RuleError(f"system: {system_id!r} is not known (one of {', '.join(SYSTEMS)})")
    return system


def _handler(system: System, action: Any) -> Callable[[dict[str, Any], Dice], dict[str, Any]]:
    handler = system.resolve.get(action) if isinstance(action, str) else None
    if handler is None:
        actions = ", ".join(system.resolve) or "none yet"
        raise RuleError(f"action: {action!r} is not an action of {system.id} (actions: {actions})")
    return handler


def _typed_faces(faces: Any) -> TypedDice | None:
    """The dice a request types in as ``faces``, if it does."""
    if faces is None:
        return None
    if not isinstance(faces, list) or not all(is_whole(f) for f in faces):
        raise RuleError("faces: expected a list of whole numbers")
    return TypedDice(faces)
