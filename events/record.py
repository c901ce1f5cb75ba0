"""The record envelope, the union of every event type, and their encodings."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Union

import msgspec

from . import dice, players, table
from .base import Event, check_player_forms
from .dice import Commitment, Drawn
from .systems import SYSTEM_EVENTS

#: Format of a stored record body. Bump it when a record must be reshaped on
#: load, and register the step in ``UPGRADES``.
FORMAT = 1

ALL_EVENTS: tuple[type[Event], ...] = (
    table.EVENTS
    + players.EVENTS
    + dice.EVENTS
    + tuple(event for events in SYSTEM_EVENTS.values() for event in events)
)

# a player form naming a field its event lacks stops margin here, before any record is read
check_player_forms(ALL_EVENTS)

if TYPE_CHECKING:
    # a union built at run time from every system's events; to the type checker, any event
    AnyEvent = Any
else:
    AnyEvent = Union[ALL_EVENTS]  # noqa: UP007


class Visibility(msgspec.Struct, frozen=True, omit_defaults=True):
    """What players may see of a record.

    ``gm_only`` hides the whole record from players; ``hidden`` names event
    fields cut from a player's view (a secret roll's die, a hidden TN) until a
    ``Revealed`` record shows them. ``to`` addresses the record to one player:
    every other player gets nothing of it.
    """

    gm_only: bool = False
    hidden: tuple[str, ...] = ()
    #: the one player (a character's id) the record is for, besides the GM: a request
    #: and its ruling, a whisper; "" for every player, as the fields above say
    to: str = ""


PUBLIC = Visibility()


class Record(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One entry of the log: an event in its envelope.

    ``cause`` is the sequence number of the record this one answers (an injury
    answers a damage roll, which answers an attack): undoing a command voids
    its records and everything caused by them. ``prev`` and ``hash`` chain the
    log; they are stored beside the body, not inside it. ``drawn`` (on a command's
    first record players see) is every die margin drew for the command, ``committed``
    the session's commitment to its seed when the command is the first to need it;
    ``sealed`` is a secret record's commitment to what players do not see of it
    (``core.fairness``).
    """

    seq: int
    at: str
    author: str
    command: str
    event: AnyEvent
    cause: int | None = None
    visibility: Visibility = PUBLIC
    drawn: Drawn | None = None
    committed: Commitment | None = None
    sealed: str = ""
    prev: str = ""
    hash: str = ""


_body_encoder = msgspec.json.Encoder()
_record_decoder = msgspec.json.Decoder(Record)

#: One step per old format: ``UPGRADES[n]`` turns a format-``n`` body (as a
#: plain dict) into a format ``n + 1`` body.
UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


class DecodeError(Exception):
    """A stored record could not be read."""


def encode_body(record: Record) -> bytes:
    """The stored bytes of a record: everything but the chain hashes."""
    if record.prev or record.hash:
        record = msgspec.structs.replace(record, prev="", hash="")
    return _body_encoder.encode(record)


def chain_hash(prev: str, body: bytes) -> str:
    """Hash of a record given the hash of the one before it."""
    return hashlib.sha256(prev.encode() + b"\n" + body).hexdigest()


def current_decoder() -> msgspec.json.Decoder[Record]:
    """The decoder of a body of this margin's format (``decode_body`` without its checks,
    for a store's reading loop)."""
    return _record_decoder


#: Records a store's reading loop decodes at a time: a rebuild folds a few hundred
#: records while they are still in the processor's caches, where a few thousand are not
#: (a rebuild read 4,096 at a time took a fifth longer)
DECODE_BATCH = 256


def decode_batch(rows: Sequence[tuple[Any, ...]]) -> list[Record] | None:
    """Stored rows ``(v, body)`` (or ``(seq, v, body)``) decoded in one pass, when every
    one is of this margin's format and decodes; None otherwise (then each is read the
    long way)."""
    decode = _record_decoder.decode
    try:
        # the format's number as an int (a REAL 1.0 is not this format); a row that is not
        # it is read the long way
        if rows and len(rows[0]) == 3:
            out = [decode(b) for _, v, b in rows if _this_format(v) and type(b) is bytes]
        else:
            out = [decode(b) for v, b in rows if _this_format(v) and type(b) is bytes]
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return out if len(out) == len(rows) else None


def _this_format(version: object) -> bool:
    return type(version) is int and version == FORMAT


def decode_body(body: bytes | str, version: int = FORMAT) -> Record:
    """Decode a stored body, upgrading it step by step if it is older."""
    if type(version) is not int:
        raise DecodeError(f"record format {version!r} is not a format number")
    try:
        if version == FORMAT:
            return _record_decoder.decode(body)
        if version > FORMAT:
            raise DecodeError(
                f"record format {version} is newer than this margin understands ({FORMAT})"
            )
        data = msgspec.json.decode(body)
        for step in range(version, FORMAT):
            if step not in UPGRADES:
                raise DecodeError(f"no upgrade from record format {step}")
            data = UPGRADES[step](data)
        return msgspec.convert(data, Record)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise DecodeError(str(exc)) from None


def event_fields(event: Event) -> dict[str, Any]:
    """An event as a plain dict with its tag under ``type``."""
    return msgspec.to_builtins(event)  # type: ignore[no-any-return]


def record_to_builtins(record: Record) -> dict[str, Any]:
    """The JSON Lines form of a record: envelope fields, chain, and the event."""
    return msgspec.to_builtins(record)  # type: ignore[no-any-return]


def event_schema() -> dict[str, Any]:
    """JSON Schema of the event union and the envelope; snapshot-tested."""
    return stable_schema(msgspec.json.schema(Record))


def stable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose definitions are named by what they are, not where they are defined.

    msgspec names a definition after its module when two types share a name
    (each system has an ``EncounterStarted``); a tagged type is named here by
    its tag's namespace and its title instead (``edge.EncounterStarted``), so
    moving a module changes nothing in the schema.
    """
    defs = schema.get("$defs", {})
    names: dict[str, str] = {}
    for name, body in defs.items():
        if "." not in name:
            continue
        tags = body.get("properties", {}).get("type", {}).get("enum", [])
        space = tags[0].split(".")[0] if len(tags) == 1 and "." in tags[0] else name.split(".")[-2]
        names[name] = f"{space}.{body.get('title', name.split('.')[-1])}"

    def rename(node: Any) -> Any:
        # a reference is a "$ref" or a value of a discriminator's mapping: any "#/$defs/" string
        if isinstance(node, str) and node.startswith("#/$defs/"):
            old = node.rsplit("/", 1)[-1]
            return node[: -len(old)] + names.get(old, old)
        if isinstance(node, dict):
            return {key: rename(value) for key, value in node.items()}
        if isinstance(node, list):
            return [rename(item) for item in node]
        return node

    renamed: dict[str, Any] = _sorted_unions(rename(schema))
    if names:
        renamed["$defs"] = {names.get(k, k): v for k, v in renamed["$defs"].items()}
    return renamed


def _sorted_unions(node: Any) -> Any:
    """The schema with each union's members sorted by definition name.

    The union's members come in the order the systems are found; sorted, the
    schema does not depend on it.
    """
    if isinstance(node, dict):
        out = {key: _sorted_unions(value) for key, value in node.items()}
        alternatives = out.get("anyOf")
        if isinstance(alternatives, list) and all("$ref" in a for a in alternatives):
            out["anyOf"] = sorted(alternatives, key=lambda a: str(a["$ref"]))
        return out
    if isinstance(node, list):
        return [_sorted_unions(item) for item in node]
    return node
