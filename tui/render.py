"""Plain-text renderings of records and state, shared by the CLI and the screens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from margin.core import get_system
from margin.core.errors import RuleError

#: event fields that hold a character's id, said by name on the screens
WHO_FIELDS = ("id", "character", "actor", "attacker", "target", "helper", "defender")


def describe(
    system: str,
    data: dict[str, Any],
    names: Mapping[str, str] | None = None,
    lookup: Callable[[int], str | None] | None = None,
) -> str:
    """One line for a record given as a (possibly lensed) dict.

    ``names`` (id -> name, of the characters the reader may see) says
    characters by name; ``lookup`` (record number -> its line) lets an undo
    say what it undid.
    """
    event = data["event"]
    if event.get("type") == "table.revealed" and isinstance(event.get("shown"), dict):
        # a record players never saw, shown to them now
        # it may name characters players have not met; the reveal says who they are
        known = {**event.get("names", {}), **(names or {})}
        return "GM reveals: " + describe(system, {"event": event["shown"]}, known)
    if names:
        event = {
            k: names.get(v, v) if k in WHO_FIELDS and isinstance(v, str) else v
            for k, v in event.items()
        }
    if lookup is not None and event.get("type") in ("table.undone", "table.redone"):
        seqs = event.get("voids") or event.get("restores") or []
        first = lookup(seqs[0]) if seqs else None
        if first is not None:
            event = {**event, "first": first}
    try:
        sys = get_system(system)
    except RuleError:
        sys = None
    if sys is not None and sys.describe is not None:
        text = sys.describe(event)
        if text is not None:
            return text
    return _generic(event) or _fields(event)


def _fields(event: dict[str, Any]) -> str:
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{event['type']} {rest}".strip()


def _generic(e: dict[str, Any]) -> str | None:
    tag = e["type"]
    if tag == "table.created":
        opts = ", ".join(f"{k}={v}" for k, v in e.get("options", {}).items())
        return f"table created: {e['system']}" + (f" ({opts})" if opts else "")
    if tag == "table.option":
        return f"option {e['name']} = {e['value']}"
    if tag == "character.added":
        return f"{e['name']} joins the table" + (" (hidden)" if e.get("hidden") else "")
    if tag == "character.updated":
        keys = ", ".join(e.get("sheet", {}))
        if keys:
            return f"{e['id']}: sheet updated ({keys})"
        if e.get("npc") is not None:
            return f"{e['id']} is {'an NPC' if e['npc'] else 'no longer an NPC'}"
        hidden = e.get("hidden")
        if hidden is True:
            return f"{e['id']} is hidden from the players"
        if hidden is False:
            return f"{e['id']} is shown to the players"
        return f"{e['id']} is updated"
    if tag == "character.removed":
        return f"{e['id']} leaves the table"
    if tag == "dice.rolled":
        who = e["actor"]
        if "total" not in e:
            return f"{who} rolls in secret" + (f" ({e['reason']})" if e.get("reason") else "")
        faces = e.get("faces", [])
        kept = e.get("kept") or [True] * len(faces)
        shown = ", ".join(str(f) if k else f"~{f}~" for f, k in zip(faces, kept, strict=False))
        typed = " (typed)" if e.get("source") == "typed" else ""
        secret = " (secret)" if e.get("secret") else ""
        reason = f" for {e['reason']}" if e.get("reason") else ""
        return f"{who} rolls {e['dice']}{reason}: [{shown}] = {e['total']}{typed}{secret}"
    if tag == "table.note":
        return ("GM note: " if e.get("gm_only") else "note: ") + e["text"]
    if tag in ("table.undone", "table.redone"):
        undo = tag == "table.undone"
        seqs = e.get("voids" if undo else "restores", [])
        count = f"{len(seqs)} record{'s' if len(seqs) != 1 else ''}"
        what = f"#{seqs[0]}" if seqs else "a command"
        if e.get("first"):
            what += f" {e['first']}"
        return f"{'undo' if undo else 'redo'} of {what} ({'voids' if undo else 'restores'} {count})"
    if tag == "table.revealed":
        return f"GM reveals #{e['record']}"
    if tag == "table.branched":
        return f"a branch of {e['source']} at record {e['at']}"
    return _bookkeeping(e)


def _duration(e: dict[str, Any]) -> str:
    for unit in ("rounds", "turns", "counts"):
        n = e.get(unit)
        if n:
            return f" for {n} {unit if n != 1 else unit[:-1]}"
    return ""


def _bookkeeping(e: dict[str, Any]) -> str | None:
    """Lines of the GM's bookkeeping: conditions, counters, the turn order, edits, macros."""
    tag = e["type"]
    who = e.get("character", e.get("id", ""))
    if tag == "condition.added":
        gm = " (GM only)" if e.get("gm_only") else ""
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"{who} is {e['name']}{_duration(e)}{why}{gm}"
    if tag == "condition.ended":
        return f"{who} is no longer {e['name']}" + (" (time is up)" if e.get("expired") else "")
    if tag == "counter.set":
        if "value" not in e:
            return f"{who}: {e['name']} changes"
        change = f" ({e['change']:+d})" if e.get("change") else ""
        return f"{who}: {e['name']} {e['value']}/{e['max']}{change}"
    if tag == "counter.removed":
        return f"{who}: {e['name']} is no longer counted"
    if tag == "fight.started":
        return "the encounter begins" + (f": {e['name']}" if e.get("name") else "")
    if tag == "fight.joined":
        rolled = ""
        if e.get("dice"):
            faces = ", ".join(str(f) for f in e.get("faces", []))
            typed = " typed" if e.get("source") == "typed" else ""
            rolled = f" ({e['dice']}: [{faces}]{typed})"
        return f"{who} joins the turn order at {e['initiative']}{rolled}"
    if tag == "fight.left":
        return f"{who} leaves the turn order"
    if tag == "fight.turn":
        return f"round {e['round']}: {who}'s turn"
    if tag == "fight.ended":
        return "the encounter ends"
    if tag == "character.renamed":
        return f"{e.get('was') or who} is now called {e['name']}"
    if tag == "character.carried":
        source = f" from {e['source']}" if e.get("source") else ""
        return f"{e['name']} joins the table as they left it{source}" + (
            " (hidden)" if e.get("hidden") else ""
        )
    if tag == "character.health-view":
        return f"players see {who}'s health: {e['view']}"
    if tag == "table.alias":
        if not e.get("line"):
            return f"macro {e['name']} forgotten"
        return f"macro {e['name']} = {e['line']}"
    return None


def rules_text(system_id: str) -> str:
    """The GM-facing rules document of a system, as it ships with margin."""
    system = get_system(system_id)
    if not system.rules_doc:
        raise RuleError(f"rules: {system.id} has no rules document")
    own = resources.files(system.package).joinpath(system.rules_doc).read_text(encoding="utf-8")
    shared = resources.files("margin.core").joinpath("bookkeeping")
    parts = [own.rstrip("\n") + "\n", shared.joinpath("every-table.md").read_text(encoding="utf-8")]
    if system.moment is None:
        parts.append(shared.joinpath("turn-order.md").read_text(encoding="utf-8"))
    return "".join(parts)
