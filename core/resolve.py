"""``margin resolve`` requests: checked fields and dispatch to a system."""

from __future__ import annotations

from typing import Any

from .dice import Dice, TypedDice
from .errors import RuleError
from .systems import SYSTEMS


def resolve(request: Any, dice: Dice) -> dict[str, Any]:
    """Resolve one request (already parsed JSON) with ``dice`` unless it gives its own."""
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
