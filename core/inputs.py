"""The first check of every line a client sends (``margin do``, ``margin resolve``).

A line must be one JSON value of bounded shape before any rule looks at it:
nesting at most ``MAX_DEPTH`` deep, whole numbers of at most 100 digits, finite
numbers (the decoder refuses others), text that is valid Unicode. What fails is refused with the path of
the offending field, so no later step meets a value it cannot handle.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard, TypeVar

import msgspec

from .errors import RuleError

MAX_DEPTH = 32
#: Whole numbers beyond this are refused before any rule formats or computes with them
#: (rules bound their own fields far below it, with messages of their own).
_LIMIT = 10**100
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_decoder = msgspec.json.Decoder()

T = TypeVar("T", bound=msgspec.Struct)


def read_json(line: bytes | str, decoder: msgspec.json.Decoder[Any] = _decoder) -> Any:
    """Decode one line, refusing what no command or request can hold.

    With a typed ``decoder`` its ``msgspec.ValidationError`` (which names the
    field) is the caller's to word; the decoded value is checked as JSON again.
    """
    try:
        value = decoder.decode(line)
        check_value(value if decoder is _decoder else msgspec.to_builtins(value))
    except msgspec.ValidationError as exc:
        if decoder is not _decoder:
            raise
        raise RuleError(f"not JSON margin accepts: {exc}") from None
    except RecursionError:
        raise RuleError(f"not JSON margin accepts: nested more than {MAX_DEPTH} deep") from None
    except msgspec.DecodeError as exc:
        raise _not_json(line, exc) from None
    return value


def _not_json(line: bytes | str, exc: msgspec.DecodeError) -> RuleError:
    """A line that does not decode, in one line: a lone surrogate escape said as such."""
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    if _SURROGATE.search(raw):
        return RuleError(
            "not JSON margin accepts: a \\uD800-\\uDFFF escape that is not half of a "
            "surrogate pair is not a character"
        )
    return RuleError(f"not JSON: {exc}")


def _where(path: list[str]) -> str:
    return "$" + "".join(path) if path else "the line"


def check_value(value: Any) -> None:
    """Walk a decoded JSON value without recursion; a RuleError names the first bad field."""
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise RuleError(f"{_where(path[:MAX_DEPTH])}: nested more than {MAX_DEPTH} deep")
        if is_whole(item) and not -_LIMIT <= item < _LIMIT:
            raise RuleError(f"{_where(path)}: number too large (more than 100 digits)")
        stack += _children(item, path)


def _children(item: Any, path: list[str]) -> list[tuple[Any, list[str]]]:
    """The values an object or a list holds, each with its path."""
    if isinstance(item, dict):
        return [(sub, [*path, f".{key}"]) for key, sub in item.items()]
    if isinstance(item, list):
        return [(sub, [*path, f"[{i}]"]) for i, sub in enumerate(item)]
    return []


# -- msgspec's complaints in margin's words -------------------------------------------
#
# msgspec says what is wrong only in the text of its message. margin does not read that
# text: when msgspec refuses a value, the value is walked again beside its kind's type
# information (``msgspec.inspect``), where bounds, lengths, choices and tags are data,
# and the first problem found is worded from what it is.

_inspect = msgspec.inspect


def shown(value: Any) -> str:
    """A value as the user wrote it in JSON (``true``, ``null``, ``"x"``), for messages."""
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError, msgspec.EncodeError):  # a lone surrogate is a ValueError
        return repr(value)


@dataclass(frozen=True)
class Problem:
    """The first thing wrong with a value read as a kind, and where it is."""

    #: the names along the way (``("skills", "Gun")``, ``("sides[1]",)``); () for the whole
    names: tuple[str, ...]
    #: the kind at that place (a ``msgspec.inspect`` type)
    info: Any
    #: what is wrong with the value there, in margin's words (``0 is out of range (1..6)``);
    #: None when margin has no words for it (msgspec's own message serves)
    why: str | None = None
    #: a field the object there has and its kind does not, or a required one it lacks
    unknown: str | None = None
    missing: str | None = None
    #: the object there names a tag (``type``) that no member of its union has
    tag: bool = False


def problem(data: Any, kind: Any) -> Problem | None:
    """The first problem of ``data`` (plain JSON values) read as ``kind``, in the order
    msgspec meets them: an object's fields in the order given, then the required ones it
    lacks; a union's member by its tag, or by the kind of value. None when none is found."""
    return _find(_inspect.type_info(kind), data, ())


def _find(info: Any, value: Any, names: tuple[str, ...]) -> Problem | None:
    if isinstance(info, _inspect.UnionType):
        return _in_union(info, value, names)
    why = _leaf(info, value)
    if why is not None:
        return Problem(names, info, why)
    inside = _INSIDE.get(type(info))
    return None if inside is None else inside(info, value, names)


def _in_union(info: Any, value: Any, names: tuple[str, ...]) -> Problem | None:
    if value is None and any(isinstance(t, _inspect.NoneType) for t in info.types):
        return None
    tagged = [t for t in info.types if getattr(t, "tag_field", None) is not None]
    if tagged and isinstance(value, dict):
        return _by_tag(info, tagged, value, names)
    member = _member(info, value)
    if member is info:
        return Problem(names, info, _union_why(info, value))
    return _find(member, value, names)


def _by_tag(
    info: Any, tagged: list[Any], value: dict[Any, Any], names: tuple[str, ...]
) -> Problem | None:
    field = tagged[0].tag_field
    if field not in value:
        return Problem(names, info, missing=field)
    tag = value[field]
    member = next((t for t in tagged if t.tag == tag and type(t.tag) is type(tag)), None)
    if member is not None:
        return _find(member, value, names)
    if not isinstance(tag, type(tagged[0].tag)):
        return Problem((*names, field), info)
    return Problem(names, info, tag=True)


def _member(info: Any, value: Any) -> Any:
    """The member of a union that ``value`` is meant as, by the kind of value; the union
    itself when none or several are."""
    types = [t for t in info.types if not isinstance(t, _inspect.NoneType)]
    for t in types:
        fits = _FITS.get(type(t))
        if fits is not None and fits(value):
            return t
    return types[0] if len(types) == 1 else info


def is_whole(value: object) -> TypeGuard[int]:
    """Whether a value is a whole number as JSON has them (true and false are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_whole_in(value: object, lo: int, hi: int) -> TypeGuard[int]:
    """Whether a value is a whole number from ``lo`` to ``hi``."""
    return is_whole(value) and lo <= value <= hi


def _real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: the kinds of value a union's member is chosen by
_FITS: dict[type, Callable[[Any], bool]] = {
    _inspect.IntType: is_whole,
    _inspect.FloatType: _real,
    _inspect.StrType: lambda value: isinstance(value, str),
    _inspect.LiteralType: lambda value: isinstance(value, (str, int)),
    _inspect.BoolType: lambda value: isinstance(value, bool),
    _inspect.StructType: lambda value: isinstance(value, dict),
}


def _fields(info: Any, value: dict[Any, Any], names: tuple[str, ...]) -> Problem | None:
    fields = {f.encode_name: f for f in info.fields}
    for key, item in value.items():
        found = _field(info, fields.get(key), key, item, names)
        if found is not None:
            return found
    lacking = (f.encode_name for f in info.fields if f.required and f.encode_name not in value)
    missing = next(lacking, None)
    return None if missing is None else Problem(names, info, missing=missing)


def _field(info: Any, field: Any, key: Any, item: Any, names: tuple[str, ...]) -> Problem | None:
    """The first problem in one field of an object (``field`` None: a field the type has
    not, which a type that forbids unknown fields refuses)."""
    if field is not None:
        return _find(field.type, item, (*names, key))
    if key != info.tag_field and info.forbid_unknown_fields:
        return Problem(names, info, unknown=key)
    return None


def _items(info: Any, value: list[Any], names: tuple[str, ...]) -> Problem | None:
    for i, item in enumerate(value):
        at = (*names[:-1], f"{names[-1]}[{i}]") if names else (f"[{i}]",)
        found = _find(info.item_type, item, at)
        if found is not None:
            return found
    return None


def _entries(info: Any, value: dict[Any, Any], names: tuple[str, ...]) -> Problem | None:
    for key, item in value.items():
        found = _find(info.value_type, item, (*names, str(key)))
        if found is not None:
            return found
    return None


#: how the walk goes on inside a value of each kind, once the value itself is of it
_INSIDE: dict[type, Callable[[Any, Any, tuple[str, ...]], Problem | None]] = {
    _inspect.StructType: _fields,
    _inspect.ListType: _items,
    _inspect.VarTupleType: _items,
    _inspect.DictType: _entries,
}


def _declared(info: Any) -> bool:
    """Whether a kind declares what is valid (bounds, choices, lengths) for a message to name."""
    if isinstance(info, _inspect.LiteralType):
        return True
    if isinstance(info, (_inspect.IntType, _inspect.FloatType)):
        return any(b is not None for b in (info.ge, info.gt, info.le, info.lt))
    if isinstance(info, _inspect.StrType):
        return info.min_length is not None or info.max_length is not None
    return False


def _span(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f"{lo} or more" if lo is not None else f"{hi} or less"


#: how a message names what a kind of value is
_KINDS: dict[type, str] = {
    _inspect.IntType: "a whole number",
    _inspect.FloatType: "a number",
    _inspect.StrType: "text",
    _inspect.BoolType: "true or false",
    _inspect.NoneType: "null",
    _inspect.StructType: "an object",
    _inspect.DictType: "an object",
    _inspect.ListType: "a list",
}


def _union_why(info: Any, value: Any) -> str:
    named = list(dict.fromkeys(_KINDS[type(t)] for t in info.types if type(t) in _KINDS))
    if "a number" in named and "a whole number" in named:
        named.remove("a whole number")  # a number covers whole ones
    return f"expected {' or '.join(named)}, got {shown(value)}"


def _truth(info: Any, value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {shown(value)}"


def _choice(info: Any, value: Any) -> str | None:
    if value in info.values and type(value) in {type(v) for v in info.values}:
        return None
    return f"{value!r} is not one of {', '.join(str(v) for v in info.values)}"


def _number(info: Any, value: Any) -> str | None:
    if not _FITS[type(info)](value):
        return f"expected {_KINDS[type(info)]}, got {shown(value)}"
    step = 1 if isinstance(info, _inspect.IntType) else 0
    lo = _bound(info.ge, info.gt, step)
    hi = _bound(info.le, info.lt, -step)
    return f"{value} is out of range ({_span(lo, hi)})" if _outside(value, lo, hi) else None


def _outside(value: Any, lo: Any, hi: Any) -> bool:
    """Whether ``value`` is below ``lo`` or above ``hi`` (None: no bound that side)."""
    return (lo is not None and value < lo) or (hi is not None and value > hi)


def _bound(inclusive: Any, exclusive: Any, step: int) -> Any:
    """A bound as the value it allows: the inclusive one, or the exclusive one moved a
    step in (a whole number's; a real number's step is 0)."""
    if inclusive is not None:
        return inclusive
    return None if exclusive is None else exclusive + step


def _object(info: Any, value: Any) -> str | None:
    return None if isinstance(value, dict) else f"expected an object, got {shown(value)}"


def _list(info: Any, value: Any) -> str | None:
    return None if isinstance(value, list) else f"expected a list, got {shown(value)}"


def _text(info: Any, value: Any) -> str | None:
    if not isinstance(value, str):
        return f"expected text, got {shown(value)}"
    if info.min_length is not None and len(value) < info.min_length:
        return "must not be empty" if info.min_length == 1 else f"{value!r} is too short"
    if info.max_length is not None and len(value) > info.max_length:
        return f"is longer than {info.max_length} characters"
    return None


#: what is wrong with a value as a kind itself (its kind, bounds, choices, length)
_LEAVES: dict[type, Callable[[Any, Any], str | None]] = {
    _inspect.BoolType: _truth,
    _inspect.LiteralType: _choice,
    _inspect.IntType: _number,
    _inspect.FloatType: _number,
    _inspect.DictType: _object,
    _inspect.StructType: _object,
    _inspect.TypedDictType: _object,
    _inspect.ListType: _list,
    _inspect.TupleType: _list,
    _inspect.VarTupleType: _list,
    _inspect.StrType: _text,
}


def _leaf(info: Any, value: Any) -> str | None:
    check = _LEAVES.get(type(info))
    return None if check is None else check(info, value)


def worded(found: Problem | None, where: str = "", every: bool = False) -> str | None:
    """A problem of a value in margin's words: the field by its path (``modifier``,
    ``a.target``, ``skills.Gun``), after ``where`` (``sheet.``), and what would be valid
    (``modifier: 500 is out of range (-100..100)``, ``mode: 'auto' is not one of burst,
    single``). None for a problem of the whole value, of a field or tag the object lacks
    or does not have, or at a field whose kind declares no bounds or choices (unless
    ``every``: then a whole number, a number, true or false and text are worded too);
    the caller keeps msgspec's own message then (``Expected `str`, got `int` - at
    `$.text```)."""
    if found is None or found.why is None or not found.names:
        return None
    if not (every or _declared(found.info)):
        return None
    return f"{where}{'.'.join(found.names)}: {found.why}"


def explain(data: Any, kind: Any, where: str = "", every: bool = False) -> str | None:
    """What msgspec refused in ``data`` read as ``kind``, in margin's words (``worded``)."""
    return worded(problem(data, kind), where, every)


def read_as(data: Any, kind: type[T], where: str = "") -> T:
    """``data`` (plain JSON values) read as ``kind``, a msgspec Struct declaring each field's
    bounds and choices, or a one-line ``RuleError`` naming the field (after ``where``, as in
    ``sheet.skills.Gun``) and what is valid."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        raise RuleError(_refusal(problem(data, kind), where) or str(exc)) from None


def _refusal(found: Problem | None, where: str) -> str | None:
    if found is None or (found.unknown is None and found.missing is None):
        return worded(found, where, every=True)
    if found.missing is not None:
        return f"{where}{'.'.join([*found.names, found.missing])}: missing"
    field = ".".join([*found.names, str(found.unknown)])
    known = ", ".join(f.encode_name for f in getattr(found.info, "fields", ()))
    return f"{where}{field}: unknown field (fields: {known})"
