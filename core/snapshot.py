"""Snapshots of a fold: what a projection (and the players' index) knew at one record, as bytes.

A store keeps them beside the log (``Store.keep_snapshot``); opening a table
then folds only the records after the newest good one. They are a cache and
nothing else: one from another fold (``FOLD``), one the chain does not bear
out, or none at all gives the same state, only later.

A snapshot holds the state, the undo history and, once some reader has
built it, the players' index of the log (``core.lens.PlayerLens``), each a
part of its own, so a reader decodes only the parts it needs. Everything is
msgspec's MessagePack of the state types themselves; a system's characters
and world are decoded as that system's own types.
"""

from __future__ import annotations

import functools
import hashlib
import mmap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

import margin.events as events

from .history import History, HistoryData
from .lens import LensIndex, PlayerLens
from .state import TableState
from .systems import SYSTEMS, System

#: Raised to a new number whenever a fold step changes what it makes of a record in a way
#: the hash of the code below would not tell (it always does: this is belt and braces).
FOLD_NUMBER = 1


class Parts(msgspec.Struct, array_like=True):
    """A snapshot's parts, each left encoded until it is wanted."""

    seq: int
    system: str
    state: msgspec.Raw
    history: msgspec.Raw
    #: the players' index at ``seq``, when the process that kept the snapshot had it
    #: (MessagePack's nil when it had none)
    lens: msgspec.Raw


_encoder = msgspec.msgpack.Encoder()
_NIL = _encoder.encode(None)


def _nil(part: msgspec.Raw) -> bool:
    """Whether a part is MessagePack's nil (read without copying a long part)."""
    view = memoryview(part)
    return view.nbytes == len(_NIL) and view.tobytes() == _NIL


_parts = msgspec.msgpack.Decoder(Parts)
_history = msgspec.msgpack.Decoder(HistoryData)
_lens = msgspec.msgpack.Decoder(LensIndex)


#: a snapshot's body as a store hands it out: its bytes, or a file mapped read-only whose
#: pages hold them (``events.mapped``), which the columns of a long table then stand on
Body = bytes | mmap.mmap


def _mapped(body: Body) -> bool:
    return isinstance(body, mmap.mmap)


class Restored(msgspec.Struct):
    """What a snapshot gives back: the state and history at ``state.seq``, and the encoded
    players' index if it has one (``lens``, a view of the snapshot's bytes, not a copy;
    ``mapped``: whether those bytes are a mapped file's, see ``decode_lens``)."""

    state: TableState
    history: History
    lens: msgspec.Raw | None
    mapped: bool = False


@functools.cache
def _state_decoder(system_id: str) -> msgspec.msgpack.Decoder[Any]:
    """A decoder of ``system_id``'s state, whose characters and world are its own types."""
    return msgspec.msgpack.Decoder(_state_type(SYSTEMS[system_id]))


def _state_type(system: System) -> type[TableState]:
    character = type(system.make_character("x", "x", {}, False))
    world = type(system.initial_world({o.name: o.default for o in system.options}))
    typed: type[TableState] = msgspec.defstruct(  # type: ignore[assignment]
        f"{system.id.replace('-', '_')}_state",
        [("characters", dict[str, character], {}), ("world", world | None, None)],  # type: ignore[valid-type]
        bases=(TableState,),
        kw_only=True,
    )
    return typed


def _sources() -> Iterator[bytes]:
    """The code of ``core`` and of ``events``, file by file: every fold step, and every type
    a state, its history and the players' index are made of."""
    for root in (Path(__file__).parent, Path(events.__file__).parent):
        for path in sorted(root.rglob("*.py")):
            yield f"{root.name}/{path.relative_to(root)}".encode()
            yield path.read_bytes()


@functools.cache
def fold_version() -> str:
    """The name of this margin's fold: ``FOLD_NUMBER``, the version of msgspec (which lays the
    types out) and the code of ``core`` and ``events`` (which hold every fold step and every
    state type), hashed. A snapshot kept by another fold is never read. The code names the
    types' shapes, so none is laid out here, nor any system imported for it."""
    digest = hashlib.sha256(
        b"margin fold %d\nmsgspec %s\n" % (FOLD_NUMBER, msgspec.__version__.encode())
    )
    for part in _sources():
        digest.update(part)
    return f"{FOLD_NUMBER}-{digest.hexdigest()[:24]}"


class Fold(msgspec.Struct, frozen=True):
    """A fold's state and history at record ``seq``, encoded (``encode_fold``): made while
    the fold stands still, and put together with the players' index later (``encode``)."""

    seq: int
    system: str
    state: bytes
    history: bytes


def encode_fold(state: TableState, history: History) -> Fold:
    """The state and history at ``state.seq``, encoded (a copy: the fold may go on)."""
    return Fold(state.seq, state.system, _encoder.encode(state), _encoder.encode(history.data()))


def encode(fold: Fold, lens: bytes | None = None) -> bytes:
    """A snapshot of a fold; ``lens``: the encoded players' index at the same record
    (``encode_lens``), if there is one."""
    parts = Parts(
        fold.seq,
        fold.system,
        msgspec.Raw(fold.state),
        msgspec.Raw(fold.history),
        msgspec.Raw(lens if lens is not None else _NIL),
    )
    return _encoder.encode(parts)


def encode_lens(lens: PlayerLens) -> bytes:
    return _encoder.encode(lens.index_data())


def decode(body: Body) -> Restored | None:
    """The fold a snapshot holds, or None when it cannot be read as this fold's (a
    snapshot is checked against the chain by the store, and its fold by its name;
    this is the last guard, never an error)."""
    try:
        parts = _parts.decode(body)
        if parts.system not in SYSTEMS:
            return None
        typed = _state_decoder(parts.system).decode(parts.state)
        state = TableState(**{f: getattr(typed, f) for f in TableState.__struct_fields__})
        history = History.from_data(_history.decode(parts.history), _mapped(body))
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None
    if state.seq != parts.seq or history.head != parts.seq:
        return None
    return Restored(state, history, None if _nil(parts.lens) else parts.lens, _mapped(body))


#: checkpoints a table keeps beside its snapshots: the state as it happened after each
#: record whose number is a multiple of this, so that a replay of a table it opened from
#: a snapshot folds at most this many records to stand at any record
CHECKPOINT_EVERY = 1000


class Checkpoint(msgspec.Struct, array_like=True):
    """A state as it happened right after record ``seq``, for replay (no history, no lens)."""

    seq: int
    system: str
    state: msgspec.Raw


_checkpoint = msgspec.msgpack.Decoder(Checkpoint)


def checkpoint_fold() -> str:
    """The name checkpoints are kept under: this fold's, marked as checkpoints."""
    return fold_version() + "/at"


def freeze_state(state: TableState) -> bytes:
    """A state as a checkpoint keeps it, in memory or in a store: MessagePack, a quarter of
    the time pickling takes (``thaw_state`` gives an independent copy back)."""
    return _encoder.encode(state)


def thaw_state(system: str, frozen: bytes) -> TableState:
    """A new state from what ``freeze_state`` made of a state of ``system``'s table (""
    before the table's first record: an empty state)."""
    typed = _state_decoder(system).decode(frozen) if system else _empty.decode(frozen)
    return TableState(**{f: getattr(typed, f) for f in TableState.__struct_fields__})


_empty = msgspec.msgpack.Decoder(TableState)


def encode_checkpoint(state: TableState) -> bytes:
    return encode_frozen(state.seq, state.system, freeze_state(state))


def encode_frozen(seq: int, system: str, frozen: bytes) -> bytes:
    """A checkpoint of record ``seq`` to keep, from its state frozen (``freeze_state``)."""
    return _encoder.encode(Checkpoint(seq, system, msgspec.Raw(frozen)))


def decode_checkpoint(body: Body, seq: int) -> TableState | None:
    """The state a checkpoint of record ``seq`` holds, or None when it cannot be read."""
    try:
        point = _checkpoint.decode(body)
        if point.system not in SYSTEMS or point.seq != seq:
            return None
        state = thaw_state(point.system, point.state)
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None
    return state if state.seq == seq else None


def decode_lens_of(body: Body, seq: int) -> PlayerLens | None:
    """The players' index a snapshot of record ``seq`` holds (None: none, or unreadable),
    decoded without the rest of the snapshot."""
    try:
        parts = _parts.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if parts.seq != seq or _nil(parts.lens):
        return None
    return decode_lens(parts.lens, seq, _mapped(body))


def decode_lens(data: bytes | msgspec.Raw, seq: int, mapped: bool = False) -> PlayerLens | None:
    """The players' index a snapshot at record ``seq`` holds, or None when it cannot be read;
    ``mapped``: ``data`` is a part of a mapped snapshot (``Restored.mapped``), whose bytes
    the index's columns stand on rather than copy."""
    try:
        index = _lens.decode(data)
        return PlayerLens.from_index(index, mapped=mapped) if index.seq == seq else None
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError):
        return None
