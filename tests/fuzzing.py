"""Malformed input for ``margin do`` and ``margin resolve``: lines a careless or hostile client sends.

A ``Fuzzer`` starts from well-formed commands and requests and breaks them:
values of every JSON type in every field, deep nesting, lone surrogates,
huge and fractional numbers, NaN, unknown fields, invalid UTF-8, cut lines.
Both the suite (seeded by hypothesis) and ``bench/fuzz.py`` (100,000 lines)
use it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from margin.core import SYSTEMS, RuleError, command_schema, get_system
from margin.core.dice import TypedDice
from margin.core.resolve import resolve

#: Plausible values: most fields of most commands and requests take one of these.
PLAUSIBLE = (0, 1, 2, 3, 5, 7, 10, 12, 15, 20, 30, 45, 50, 75, 99, 100, -1, -2, True, False, None)
WORDS = (
    "Kael",
    "kael",
    "Mira",
    "Zoë",
    "goblin",
    "melee",
    "ranged",
    "focused",
    "hard",
    "easy",
    "average",
    "2d6",
    "3d10kh2",
    "1d4",
    "minor",
    "major",
    "yes",
    "no",
    "",
)

NAMES = ("Kael", "kael", "Mira", "Zoë", "", " ", "gm", "nobody", "a" * 300)


def _fields(system: str) -> dict[str, list[str]]:
    """Action -> its request fields, as ``margin resolve`` lists them for an unknown field."""
    out = {}
    for action in get_system(system).resolve:
        try:
            resolve({"system": system, "action": action, "?": 0}, TypedDice([]))
        except RuleError as exc:
            listed = str(exc).partition("(fields: ")[2].rstrip(")")
            out[action] = [f for f in listed.split(", ") if f]
    return out


def _names(schema: dict[str, Any]) -> dict[str, list[str]]:
    """Command tag -> its field names, from the JSON Schema ``margin do --schema`` prints."""
    return {tag: list(fields) for tag, fields in _typed(schema).items()}


def _typed(schema: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Command tag -> field name -> the field's JSON Schema."""
    out = {}
    for definition in schema.get("$defs", {}).values():
        props = definition.get("properties", {})
        tag = props.get("type", {}).get("enum", [None])[0]
        if tag:
            required = set(definition.get("required", ()))
            out[tag] = {
                name: {**field, "required": name in required}
                for name, field in props.items()
                if name != "type"
            }
    return out


class Fuzzer:
    """Lines of broken input, reproducible from one ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.commands = {sid: _names(command_schema(sid)) for sid in SYSTEMS}
        self.schemas = {sid: _typed(command_schema(sid)) for sid in SYSTEMS}
        self.people = {
            sid: [c["name"] for c in get_system(sid).demo if c.get("type") == "add-character"]
            for sid in SYSTEMS
        }
        self.demos = {sid: list(get_system(sid).demo) for sid in SYSTEMS}
        self.actions = {sid: _fields(sid) for sid in SYSTEMS}

    # -- values ------------------------------------------------------------

    def scalar(self) -> Any:
        r = self.rng
        return r.choice(
            [
                lambda: r.randint(-3, 20),
                lambda: r.randint(-(2**70), 2**70),
                lambda: r.choice([2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**30)]),
                lambda: r.choice([0.5, -1.5, 1e308, -1e308, 5e-324, -0.0, 1e300 * 10]),
                lambda: r.choice(NAMES),
                lambda: r.choice(["2d6", "3d10kh2", "d%", "1d0", "999d999999", "2d6+", "kh", "x"]),
                lambda: r.choice(
                    ["\ud800", "x\udc00", "\udfff", "a\ud83d", "\x00", "\u2028", "é✓"]
                ),
                lambda: r.choice([True, False, None]),
                lambda: "x" * r.choice([0, 1, 1000, 100_000]),
            ]
        )()

    def plausible(self, name: str = "") -> Any:
        r = self.rng
        if name == "faces":
            return [r.randint(1, 10) for _ in range(r.randint(1, 3))]
        if name in ("a", "b"):
            return {
                "target": r.randint(1, 100),
                "roll": r.randint(1, 100),
                "proficiency": r.randint(0, 99),
                "difficulty": r.randint(0, 99),
                "skill": r.randint(0, 3),
            }
        roll = r.random()
        if roll < 0.4:
            return r.randint(1, 100)
        if roll < 0.6:
            return r.choice(PLAUSIBLE)
        if roll < 0.8:
            return r.choice(WORDS)
        if roll < 0.9:
            return [r.randint(1, 10) for _ in range(r.randint(0, 4))]
        return {"target": r.randint(1, 100), "roll": r.randint(1, 100)}

    def fitting(self, system: str, schema: dict[str, Any], name: str) -> Any:
        """A value of the type a command field declares, most of the time a sensible one."""
        r = self.rng
        if "enum" in schema:
            return r.choice(schema["enum"])
        options = [s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"]
        kind = (r.choice(options) if options else {}).get("type")
        if kind == "string":
            people = self.people[system]
            if people and r.random() < 0.6:
                return r.choice(people)
            return r.choice(WORDS)
        if kind == "integer":
            return r.choice([r.randint(0, 12), r.randint(1, 100), r.randint(-5, 5)])
        if kind == "boolean":
            return r.random() < 0.5
        if kind == "array":
            item = schema.get("items", {}) if "items" in schema else options[0].get("items", {})
            if item.get("type") == "string" and self.people[system]:
                return r.sample(self.people[system], r.randint(1, len(self.people[system])))
            return [r.randint(1, 10) for _ in range(r.randint(1, 3))]
        return self.plausible(name)

    def value(self, depth: int = 0) -> Any:
        r = self.rng.random()
        if depth > 3 or r < 0.6:
            return self.scalar()
        if r < 0.8:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return {
            str(self.scalar()) if self.rng.random() < 0.3 else self.rng.choice(WORDS): (
                self.value(depth + 1)
            )
            for _ in range(self.rng.randint(0, 4))
        }

    # -- lines -------------------------------------------------------------

    def command(self, system: str) -> dict[str, Any]:
        r = self.rng
        if r.random() < 0.4 and self.demos[system]:
            data = dict(r.choice(self.demos[system]))
        else:
            tag = r.choice(list(self.commands[system]))
            data = {"type": tag}
            for name, schema in self.schemas[system][tag].items():
                if schema["required"] or r.random() < 0.5:
                    data[name] = self.fitting(system, schema, name)
        return self._mutate(data, list(self.commands[system].get(str(data.get("type")), [])))

    def request(self) -> dict[str, Any]:
        r = self.rng
        system = r.choice(list(SYSTEMS))
        action = r.choice(list(self.actions[system]) or ["x"])
        fields = self.actions[system].get(action, [])
        data: dict[str, Any] = {"system": system, "action": action}
        for name in fields:
            if r.random() < 0.95:
                data[name] = self.plausible(name)
        return self._mutate(data, fields)

    def _mutate(self, data: dict[str, Any], fields: list[str]) -> dict[str, Any]:
        r = self.rng
        for _ in range(r.choice([0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 3])):
            roll = r.random()
            # the command's type and the request's system and action: broken now and then
            keys = [k for k in data if k not in ("type", "system", "action") or r.random() < 0.1]
            if roll < 0.5 and keys:
                data[r.choice(keys)] = self.value()
            elif roll < 0.7 and fields:
                data[r.choice(fields)] = self.value()
            elif roll < 0.8 and keys:
                del data[r.choice(keys)]
            else:
                data[str(self.scalar())] = self.value()
        return data

    def line(self, data: dict[str, Any]) -> bytes:
        """One input line: ``data`` as JSON, or broken at the byte level."""
        r = self.rng
        text = json.dumps(data)  # lone surrogates come out as \\udXXX escapes
        roll = r.random()
        if roll < 0.05:
            depth = r.choice([100, 1000, 10_000, 200_000])
            opener, closer = r.choice([("[", "]"), ('{"a":', "}")])
            nested = opener * depth + "1" + closer * depth
            key = r.choice(list(data) or ["x"])
            text = text.replace(json.dumps(key) + ": ", json.dumps(key) + ": " + nested + ", ", 1)
            if nested not in text:
                text = '{"type": "note", "text": "x", "sheet": ' + nested + "}"
        elif roll < 0.08:
            text = text.replace(
                r.choice(["1", "2", "0"]), r.choice(["NaN", "Infinity", "-Infinity", "1e999"]), 1
            )
        elif roll < 0.11:
            text = text[: r.randint(0, len(text))]
        raw = text.encode("utf-8", "surrogatepass")
        if r.random() < 0.03:
            at = r.randint(0, len(raw))
            raw = (
                raw[:at]
                + r.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"])
                + raw[at:]
            )
        return raw.replace(b"\n", b" ") + b"\n"

    def command_lines(self, system: str, count: int) -> list[bytes]:
        return [self.line(self.command(system)) for _ in range(count)]

    def request_lines(self, count: int) -> list[bytes]:
        return [self.line(self.request()) for _ in range(count)]
