"""Plain-text renderings of records and state, shared by the CLI and the screens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from margin.core import get_system
from margin.core.authority import GM
from margin.core.errors import RuleError
from margin.core.policy import about_fields, name_field
from margin.core.systems.base import Line, describer

#: event fields that hold a character's id, said by name on the screens
WHO_FIELDS = (
    "id", "character", "actor", "attacker", "target", "helper", "defender", "seat", "to",
)  # fmt: skip
#: fields of a record that hold a command (a request, an amendment, an ask's check)
COMMAND_FIELDS = ("asked", "applied", "check")


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
    if isinstance(event.get("names"), dict):
        # the names a player's record gives of characters out of that player's sight now
        names = {**event["names"], **(names or {})}
    if event.get("type") == "table.revealed" and isinstance(event.get("shown"), dict):
        # a record players never saw, shown to them now
        # it may name characters players have not met; the reveal says who they are
        return "GM reveals: " + describe(system, {"event": event["shown"]}, names)
    event = _with_undone(_named(event, names), lookup)
    text = _system_line(system, event)
    return text if text is not None else _generic(event) or _fields(event)


def _named(event: dict[str, Any], names: Mapping[str, str] | None) -> dict[str, Any]:
    """The event with the characters it names said by name, where the reader knows them:
    the fields its player form says it is about (a winner, a turn order) and ``WHO_FIELDS``."""
    if not names:
        return event
    about = about_fields(event.get("type", ""))
    return {
        k: name_field(v, names) if k in about or (k in WHO_FIELDS and isinstance(v, str)) else v
        for k, v in event.items()
    } | {k: _named(event[k], names) for k in COMMAND_FIELDS if isinstance(event.get(k), dict)}


def _with_undone(
    event: dict[str, Any], lookup: Callable[[int], str | None] | None
) -> dict[str, Any]:
    """An undo or a redo with the line of the first record it voided or restored."""
    if lookup is None or event.get("type") not in ("table.undone", "table.redone"):
        return event
    seqs = event.get("voids") or event.get("restores") or []
    first = lookup(seqs[0]) if seqs else None
    return event if first is None else {**event, "first": first}


def _system_line(system: str, event: dict[str, Any]) -> str | None:
    """The table's system's own line for the event, if it has one."""
    try:
        found = get_system(system)
    except RuleError:
        return None
    return found.describe(event)


def _fields(event: dict[str, Any]) -> str:
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k != "type")
    return f"{event['type']} {rest}".strip()


def _created(e: dict[str, Any]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in e.get("options", {}).items())
    return f"table created: {e['system']}" + (f" ({opts})" if opts else "")


def _updated(e: dict[str, Any]) -> str:
    keys = ", ".join(e.get("sheet", {}))
    if keys:
        return f"{e['id']}: sheet updated ({keys})"
    if e.get("npc") is not None:
        return f"{e['id']} is {'an NPC' if e['npc'] else 'no longer an NPC'}"
    said: dict[Any, str] = {True: "hidden from the players", False: "shown to the players"}
    return f"{e['id']} is " + said.get(e.get("hidden"), "updated")


def _rolled(e: dict[str, Any]) -> str:
    who = "GM" if e["actor"] == GM else e["actor"]
    if "total" not in e:
        return f"{who} rolls in secret" + _held(e, "reason", " ({})")
    faces = e.get("faces", [])
    kept = e.get("kept") or [True] * len(faces)
    shown = ", ".join(str(f) if k else f"~{f}~" for f, k in zip(faces, kept, strict=False))
    typed = " (typed)" if e.get("source") == "typed" else ""
    secret = _held(e, "secret", " (secret)")
    reason = _held(e, "reason", " for {}")
    return f"{who} rolls {e['dice']}{reason}: [{shown}] = {e['total']}{typed}{secret}"


def _undone(e: dict[str, Any]) -> str:
    verb, field = ("undo", "voids") if e["type"] == "table.undone" else ("redo", "restores")
    seqs = e.get(field, [])
    count = f"{len(seqs)} record{'s' if len(seqs) != 1 else ''}"
    what = (f"#{seqs[0]}" if seqs else "a command") + _held(e, "first", " {}")
    return f"{verb} of {what} ({field} {count})"


# -- the GM's bookkeeping: conditions, counters, the turn order, edits, macros ----------


def _held(e: dict[str, Any], field: str, form: str) -> str:
    """``form`` with the event's ``field`` in its ``{}``, or nothing where the event holds
    none (or an empty one)."""
    value = e.get(field)
    return form.format(value) if value else ""


def _who(e: dict[str, Any]) -> str:
    return str(e.get("character", e.get("id", "")))


def _duration(e: dict[str, Any]) -> str:
    for unit in ("rounds", "turns", "counts"):
        n = e.get(unit)
        if n:
            return f" for {n} {unit if n != 1 else unit[:-1]}"
    return ""


def _condition(e: dict[str, Any]) -> str:
    gm = _held(e, "gm_only", " (GM only)")
    why = _held(e, "reason", " ({})")
    # a condition's name is as the GM typed it (prone, can't see, level 3): said after a
    # colon, which any name fits, as a counter's is
    return f"{_who(e)}: {e['name']}{_duration(e)}{why}{gm}"


def _counter(e: dict[str, Any]) -> str:
    if "value" not in e:
        return f"{_who(e)}: {e['name']} changes"
    change = _held(e, "change", " ({:+d})")
    return f"{_who(e)}: {e['name']} {e['value']}/{e['max']}{change}"


def _joined(e: dict[str, Any]) -> str:
    rolled = ""
    if e.get("dice"):
        faces = ", ".join(str(f) for f in e.get("faces", []))
        typed = " typed" if e.get("source") == "typed" else ""
        rolled = f" ({e['dice']}: [{faces}]{typed})"
    return f"{_who(e)} joins the turn order at {e['initiative']}{rolled}"


def _carried(e: dict[str, Any]) -> str:
    source, hidden = _held(e, "source", " from {}"), _held(e, "hidden", " (hidden)")
    return f"{e['name']} joins the table as they left it{source}{hidden}"


def _seat(e: dict[str, Any]) -> str:
    seat = str(e.get("seat", ""))
    return "GM" if seat == "gm" else seat


#: a command's fields said as the command line says them, where it has a word for them
_SAID_AS = {
    "character": "{}", "actor": "{}", "attacker": "{}", "skill": "{}", "tn": "vs {}", "faces": "= {}", "dice": "{}", "weapon": "with {}",
    "target": "at {}", "reason": "for {}", "text": "{}",
}  # fmt: skip


def _command(data: Any) -> str:
    """A command as plain data, in a line much as it is typed: its type, then its fields,
    each by its value or after its own word; a field left at nothing is not said."""
    if not isinstance(data, dict):
        return str(data)
    words = [str(data.get("type", "?"))]
    for key, value in data.items():
        if key == "type" or not _said(value):
            continue
        if value is True:
            words.append(key.replace("_", "-"))
            continue
        shown = " ".join(map(str, value)) if isinstance(value, list) else value
        form = _SAID_AS.get(key)
        words.append(form.format(shown) if form else f"{key.replace('_', ' ')} {shown}")
    return " ".join(words)


def _said(value: Any) -> bool:
    """Whether a command's field holds something a line says (not nothing, not false)."""
    return value is not None and value is not False and value not in ("", [], {})


def _ruled(e: dict[str, Any]) -> str:
    verb = {"accepted": "accepts", "amended": "amends", "refused": "refuses"}[e["ruling"]]
    line = f"GM {verb} {_seat(e)}'s request"
    if isinstance(e.get("request"), int):
        line += f" #{e['request']}"
    if e["ruling"] == "amended":
        line += f": {_command(e.get('applied'))}"
    return line + _held(e, "reason", ": {}")


def _asked(check: Any) -> str:
    """The check of a prompt, in a line: its fields but the character's."""
    if not isinstance(check, dict):
        return "a check"
    return _command({k: v for k, v in check.items() if k != "character"})


def _prompted(e: dict[str, Any]) -> str:
    if e.get("secret"):
        line = f"GM makes a secret check for {_seat(e)}"
        return f"{line}: {_asked(e['check'])}" if "check" in e else line
    return f"GM asks {_seat(e)} to roll now: {_asked(e.get('check'))}"


def _answered(e: dict[str, Any]) -> str:
    asked = f" #{e['prompt']}" if isinstance(e.get("prompt"), int) else ""
    return f"{_seat(e)}'s check{asked} is rolled"


def _alias(e: dict[str, Any]) -> str:
    if not e.get("line"):
        return f"macro {e['name']} forgotten"
    return f"macro {e['name']} = {e['line']}"


#: event tag -> the log line of a record of the table's own (not a dice system's) events
LINES: dict[str, Line] = {
    "table.created": _created,
    "table.option": lambda e: f"option {e['name']} = {e['value']}",
    "character.added": lambda e: f"{e['name']} joins the table" + _held(e, "hidden", " (hidden)"),
    "character.updated": _updated,
    "character.removed": lambda e: f"{e['id']} leaves the table",
    "dice.rolled": _rolled,
    "table.note": lambda e: ("GM note: " if e.get("gm_only") else "note: ") + e["text"],
    "table.undone": _undone,
    "table.redone": _undone,
    "table.revealed": lambda e: f"GM reveals #{e['record']}",
    "table.branched": lambda e: f"a branch of {e['source']} at record {e['at']}",
    "condition.added": _condition,
    "condition.ended": lambda e: (
        f"{_who(e)}: {e['name']} ends" + _held(e, "expired", " (time is up)")
    ),
    "counter.set": _counter,
    "counter.removed": lambda e: f"{_who(e)}: {e['name']} is no longer counted",
    "fight.started": lambda e: "the encounter begins" + _held(e, "name", ": {}"),
    "fight.joined": _joined,
    "fight.left": lambda e: f"{_who(e)} leaves the turn order",
    "fight.turn": lambda e: f"round {e['round']}: {_who(e)}'s turn",
    "fight.ended": lambda e: "the encounter ends",
    "character.renamed": lambda e: f"{e.get('was') or _who(e)} is now called {e['name']}",
    "character.carried": _carried,
    "character.health-view": lambda e: f"players see {_who(e)}'s health: {e['view']}",
    "table.alias": _alias,
    "player.said": lambda e: f"{_seat(e)} says: {e['text']}",
    "player.whispered": lambda e: (
        f"{_seat(e)} whispers to {'the GM' if e['to'] == 'gm' else e['to']}: {e['text']}"
    ),
    "player.requested": lambda e: f"{_seat(e)} asks: {_command(e.get('asked'))}",
    "player.ruled": _ruled,
    "player.prompted": _prompted,
    "player.answered": _answered,
    "dice.committed": lambda e: f"the session's dice are committed: {e['commitment'][:16]}",
    "dice.entropy": lambda e: f"{e['seat']} adds entropy to the dice: {e['entropy'][:16]}",
    "dice.opened": lambda e: (
        f"the session's dice are opened: seed {e['seed'][:16]} (margin verify --dice checks them)"
    ),
}

_generic = describer(LINES)


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
