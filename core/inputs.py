"""The first check of every line a client sends (``margin do``, ``margin resolve``).

A line must be one JSON value of bounded shape before any rule looks at it:
nesting at most ``MAX_DEPTH`` deep, whole numbers of at most 100 digits, finite
numbers (the decoder refuses others), text that is valid Unicode. What fails is refused with the path of
the offending field, so no later step meets a value it cannot handle.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from .errors import RuleError

MAX_DEPTH = 32
#: Whole numbers beyond this are refused before any rule formats or computes with them
#: (rules bound their own fields far below it, with messages of their own).
_LIMIT = 10**100
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_decoder = msgspec.json.Decoder()


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
