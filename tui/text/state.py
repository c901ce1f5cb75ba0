"""``margin state`` in words: a table's state as its system says each character."""

from __future__ import annotations

from collections.abc import Callable
from types import UnionType
from typing import Any

import msgspec

from margin.core import get_system
from margin.core.state import TableState

#: fields every character has, said in ``margin state`` only when they hold something
QUIET_WHEN_EMPTY = ("npc", "health_view", "conditions", "counters", "health_shown")
#: fields of a character said apart (its name, whether it is hidden) or not at all
UNSAID = ("id", "name", "sheet", "hidden")
#: the fields a record's words begin with, the first one it holds
HEADS = ("name", "severity", "kind")
#: values a record's words leave out
EMPTY: tuple[Any, ...] = (None, "", [], {}, False, 0)


def state_data(state: TableState) -> dict[str, Any]:
    """The state as plain data for ``margin state``: the log's names for those who left are
    not a part of its report, and the revealed records are in order."""
    data: dict[str, Any] = msgspec.to_builtins(state)
    data.pop("departed", None)
    data["revealed"] = sorted(data.get("revealed", []))
    return data


def state_lines(name: str, state: TableState, data: dict[str, Any]) -> list[str]:
    """The table ``name``'s state in words, one line for each option and each character."""
    lines = [f"{name}: {data['system']} at record {data['seq']}"]
    lines += [f"  option {k} = {v}" for k, v in data["options"].items()]
    field_lines = get_system(state.system).field_lines
    names = {**state.departed, **{c.id: c.name for c in state.characters.values()}}
    for cid, char in data["characters"].items():
        said = _named({**char, **field_lines(state.characters[cid])}, names)
        bits = " ".join(
            f"{k}={plain(v)}"
            for k, v in said.items()
            if k not in UNSAID and (v or k not in QUIET_WHEN_EMPTY)
        )
        hidden = " (hidden)" if char.get("hidden") else ""
        lines.append(f"  {char['name']}{hidden} {bits}".rstrip())
    return lines


#: fields inside a character's state that hold another character's id (a fire's source)
NAMED = frozenset({"source", "character", "target", "actor", "helper", "by", "anchor"})


def _named(value: Any, names: dict[str, str]) -> Any:
    """``value`` with the ids its ``NAMED`` fields hold said by name, at any depth."""
    if isinstance(value, dict):
        return {
            k: names.get(v, v) if k in NAMED and isinstance(v, str) else _named(v, names)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_named(v, names) for v in value]
    return value


def plain(value: object) -> str:
    """A state's value in words for ``margin state``: yes/no, none, lists joined by commas, a
    record by its name then its other fields (``burning (stacks 1, turns 6, source marn)``)."""
    if value in (None, "", [], {}):
        return "none"
    said = next((words for kind, words in _PLAIN if isinstance(value, kind)), str)
    return said(value)


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _listed(value: list[Any] | tuple[Any, ...]) -> str:
    """A list's values joined by commas, or by semicolons when it holds records."""
    sep = "; " if any(isinstance(v, dict) for v in value) else ", "
    return sep.join(plain(v) for v in value)


def _record_words(value: dict[str, Any]) -> str:
    head = next((str(value[k]) for k in HEADS if value.get(k)), "")
    rest = ", ".join(
        f"{_field_name(k)} {plain(v)}"
        for k, v in value.items()
        if v not in EMPTY and str(v) != head
    )
    if head:
        return f"{head} ({rest})" if rest else head
    return rest or "none"


#: how ``plain`` says a value of each kind (anything else as ``str`` says it)
_PLAIN: tuple[tuple[type | UnionType, Callable[[Any], str]], ...] = (
    (bool, _yes_no),
    (list | tuple, _listed),
    (dict, _record_words),
)


def _field_name(key: str) -> str:
    return "record" if key == "seq" else key.replace("_", " ")
