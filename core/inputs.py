"""The first check of every line a client sends (``margin do``, ``margin resolve``).

A line must be one JSON value of bounded shape before any rule looks at it:
nesting at most ``MAX_DEPTH`` deep, whole numbers of at most 100 digits, finite
numbers (the decoder refuses others), text that is valid Unicode. What fails is refused with the path of
the offending field, so no later step meets a value it cannot handle.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

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
    except msgspec.ValidationError as exc:
        if decoder is not _decoder:
            raise
        raise RuleError(f"not JSON margin accepts: {exc}") from None
    except RecursionError:
        raise RuleError(f"not JSON margin accepts: nested more than {MAX_DEPTH} deep") from None
    except msgspec.DecodeError as exc:
        raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        if _SURROGATE.search(raw):
            raise RuleError(
                "not JSON margin accepts: a \\uD800-\\uDFFF escape that is not half of a "
                "surrogate pair is not a character"
            ) from None
        raise RuleError(f"not JSON: {exc}") from None
    try:
        check_value(value if decoder is _decoder else msgspec.to_builtins(value))
    except RecursionError:
        raise RuleError(f"not JSON margin accepts: nested more than {MAX_DEPTH} deep") from None
    return value


def _where(path: list[str]) -> str:
    return "$" + "".join(path) if path else "the line"


def check_value(value: Any) -> None:
    """Walk a decoded JSON value without recursion; a RuleError names the first bad field."""
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise RuleError(f"{_where(path[:MAX_DEPTH])}: nested more than {MAX_DEPTH} deep")
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int):
            if not -_LIMIT <= item < _LIMIT:
                raise RuleError(f"{_where(path)}: number too large (more than 100 digits)")
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append((sub, [*path, f".{key}"]))
        elif isinstance(item, list):
            for i, sub in enumerate(item):
                stack.append((sub, [*path, f"[{i}]"]))


# -- msgspec's complaints in margin's words -------------------------------------------

_AT = re.compile(r"^(?P<what>.*) - at `\$(?P<path>[^`]*)`$")
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]|\[\.\.\.\]")


def shown(value: Any) -> str:
    """A value as the user wrote it in JSON (``true``, ``null``, ``"x"``), for messages."""
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, msgspec.EncodeError):
        return repr(value)


def explain(
    error: msgspec.ValidationError, data: Any, kind: Any, where: str = "", every: bool = False
) -> str | None:
    """msgspec's complaint about ``data`` read as ``kind``, in margin's words.

    The message names the field by its path (``modifier``, ``a.target``,
    ``skills.Gun``: the key a dict's complaint leaves out is found again), the
    value given and what would be valid, as margin's own checks word it
    (``modifier: 500 is out of range (-100..100)``, ``mode: 'auto' is not one of
    single, burst``). ``where`` is put before the path (``sheet.``). None when the
    complaint names no field, or a field whose kind declares no bounds or
    choices (unless ``every``: then a whole number, a number, true or false and
    text are worded too); the caller keeps msgspec's own message then
    (``Expected `str`, got `int` - at `$.text```).
    """
    found = _AT.match(str(error))
    if found is None:
        return None
    walked = _walk(found["path"], data, kind)
    if walked is None:
        return None
    names, info, value = walked
    leaf = _member(info, value)
    problem = _problem(leaf, value) if every or _declared(leaf) else None
    if problem is None or not names:
        return None
    return f"{where}{'.'.join(names)}: {problem}"


def _walk(path: str, data: Any, kind: Any) -> tuple[list[str], Any, Any] | None:
    """The names along msgspec's ``path`` (``.skills[...].keys``) in ``data`` read as
    ``kind``, with the kind and value found there; a dict's ``[...]`` is the first key
    whose value is wrong. None when the path leaves the data."""
    info: Any = msgspec.inspect.type_info(kind)
    value, names = data, []
    for step in _STEP.finditer(path):
        info = _member(info, value)
        if step[1] is not None:
            fields = {f.encode_name: f for f in getattr(info, "fields", ())}
            if step[1] not in fields or not isinstance(value, dict):
                return None
            info, value = fields[step[1]].type, value.get(step[1])
            names.append(step[1])
        elif step[2] is not None:
            if not isinstance(value, list) or not hasattr(info, "item_type"):
                return None
            info, value = info.item_type, value[int(step[2])]
            names[-1:] = [f"{names[-1] if names else ''}[{step[2]}]"]
        else:
            if not isinstance(value, dict) or not hasattr(info, "value_type"):
                return None
            info = info.value_type
            key = next((k for k, v in value.items() if _wrong(info, v)), None)
            if key is None:
                return None
            names.append(str(key))
            value = value[key]
    return names, info, value


def _wrong(info: Any, value: Any) -> bool:
    """Whether ``value`` is not a valid ``info`` (a struct's is read as one to tell)."""
    if isinstance(info, msgspec.inspect.StructType):
        try:
            msgspec.convert(value, info.cls)
        except msgspec.ValidationError:
            return True
        return False
    return _problem(info, value) is not None


def _declared(info: Any) -> bool:
    """Whether a kind declares what is valid (bounds, choices, lengths) for a message to name."""
    inspect = msgspec.inspect
    if isinstance(info, inspect.LiteralType):
        return True
    if isinstance(info, (inspect.IntType, inspect.FloatType)):
        return any(b is not None for b in (info.ge, info.gt, info.le, info.lt))
    if isinstance(info, inspect.StrType):
        return info.min_length is not None or info.max_length is not None
    return False


def _member(info: Any, value: Any) -> Any:
    """The member of a union that ``value`` is meant as: by tag, or by kind of value."""
    if not isinstance(info, msgspec.inspect.UnionType):
        return info
    types = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
    if isinstance(value, dict) and "type" in value:
        for t in types:
            if getattr(t, "tag", None) == value["type"]:
                return t
    kinds = {
        msgspec.inspect.IntType: isinstance(value, int) and not isinstance(value, bool),
        msgspec.inspect.FloatType: isinstance(value, (int, float)) and not isinstance(value, bool),
        msgspec.inspect.StrType: isinstance(value, str),
        msgspec.inspect.LiteralType: isinstance(value, (str, int)),
        msgspec.inspect.BoolType: isinstance(value, bool),
        msgspec.inspect.StructType: isinstance(value, dict),
    }
    for t in types:
        if kinds.get(type(t), False):
            return t
    return types[0] if len(types) == 1 else info


def _span(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f"{lo}..{hi}"
    return f"{lo} or more" if lo is not None else f"{hi} or less"


#: how a message names what a kind of value is
_KINDS = {
    msgspec.inspect.IntType: "a whole number",
    msgspec.inspect.FloatType: "a number",
    msgspec.inspect.StrType: "text",
    msgspec.inspect.BoolType: "true or false",
    msgspec.inspect.NoneType: "null",
    msgspec.inspect.StructType: "an object",
    msgspec.inspect.DictType: "an object",
    msgspec.inspect.ListType: "a list",
}


def _problem(info: Any, value: Any) -> str | None:
    """What is wrong with ``value`` as a leaf of kind ``info``; None if nothing (or unknown)."""
    inspect = msgspec.inspect
    if isinstance(info, inspect.UnionType):
        named = list(dict.fromkeys(_KINDS[type(t)] for t in info.types if type(t) in _KINDS))
        if "a number" in named and "a whole number" in named:
            named.remove("a whole number")  # a number covers whole ones
        return f"expected {' or '.join(named)}, got {shown(value)}"
    if isinstance(info, inspect.BoolType):
        return None if isinstance(value, bool) else f"expected true or false, got {shown(value)}"
    if isinstance(info, inspect.LiteralType):
        if value in info.values and type(value) in {type(v) for v in info.values}:
            return None
        return f"{value!r} is not one of {', '.join(str(v) for v in info.values)}"
    if isinstance(info, (inspect.IntType, inspect.FloatType)):
        whole = isinstance(info, inspect.IntType)
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            return f"expected {'a whole number' if whole else 'a number'}, got {shown(value)}"
        step = 1 if whole else 0
        lo = info.ge if info.ge is not None else None if info.gt is None else info.gt + step
        hi = info.le if info.le is not None else None if info.lt is None else info.lt - step
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return f"{value} is out of range ({_span(lo, hi)})"
        return None
    if isinstance(info, (inspect.DictType, inspect.StructType, inspect.TypedDictType)):
        return None if isinstance(value, dict) else f"expected an object, got {shown(value)}"
    if isinstance(info, (inspect.ListType, inspect.TupleType, inspect.VarTupleType)):
        return None if isinstance(value, list) else f"expected a list, got {shown(value)}"
    if isinstance(info, inspect.StrType):
        if not isinstance(value, str):
            return f"expected text, got {shown(value)}"
        if info.min_length is not None and len(value) < info.min_length:
            return "must not be empty" if info.min_length == 1 else f"{value!r} is too short"
        if info.max_length is not None and len(value) > info.max_length:
            return f"is longer than {info.max_length} characters"
        return None
    return None


_UNKNOWN = re.compile(r"Object contains unknown field `([^`]*)`")
_MISSING = re.compile(r"Object missing required field `([^`]*)`")


def read_as(data: Any, kind: type[T], where: str = "") -> T:
    """``data`` (plain JSON values) read as ``kind``, a msgspec Struct declaring each field's
    bounds and choices, or a one-line ``RuleError`` naming the field (after ``where``, as in
    ``sheet.skills.Gun``) and what is valid."""
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as exc:
        text = str(exc)
        unknown, missing = _UNKNOWN.match(text), _MISSING.match(text)
        if unknown or missing:
            walked = _walk(text.partition(" - at `$")[2].rstrip("`"), data, kind)
            names, info, value = walked or ([], msgspec.inspect.type_info(kind), data)
            struct = _member(info, value)
            field = ".".join([*names, (unknown or missing)[1]])  # type: ignore[index]
            if missing:
                raise RuleError(f"{where}{field}: missing") from None
            known = ", ".join(f.encode_name for f in getattr(struct, "fields", ()))
            raise RuleError(f"{where}{field}: unknown field (fields: {known})") from None
        raise RuleError(explain(exc, data, kind, where, every=True) or text) from None
