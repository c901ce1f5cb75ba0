"""Commands are checked by their declared types: bounds and choices refuse bad input at the
boundary in one line naming the field, and the JSON Schema of ``margin do --schema`` shows them."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
import pytest

from margin.core import RuleError, command_schema, get_system, parse_command
from margin.core.inputs import explain
from margin.core.resolve import resolve
from margin.tui.table.rng import RandomDice


@pytest.mark.parametrize(
    ("system", "line", "message"),
    [
        (
            "2d10-edge",
            '{"type": "check", "character": "k", "skill": "s", "modifier": 500}',
            "modifier: 500 is out of range (-100..100)",
        ),
        (
            "2d10-edge",
            '{"type": "check", "character": "k", "skill": "s", "advantage": true}',
            "advantage: expected a whole number, got true",
        ),
        (
            "2d10-edge",
            '{"type": "attack", "character": "k", "target": "t", "mode": "auto"}',
            "mode: 'auto' is not one of burst, single",
        ),
        (
            "d100-chance",
            '{"type": "attack", "attacker": "a", "target": "t", "position": "above"}',
            "position: 'above' is not one of front, rear, side",
        ),
        (
            "2d6-effect",
            '{"type": "check", "character": "v", "skill": "s", "actions": 0}',
            "actions: 0 is out of range (1..6)",
        ),
        (
            "d100-under",
            '{"type": "advance", "counts": 101}',
            "counts: 101 is out of range (1..100)",
        ),
    ],
)
def test_a_bad_field_is_named_with_what_is_valid(system: str, line: str, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse_command(system, line)
    assert str(caught.value) == message


def test_the_schema_documents_bounds_and_choices() -> None:
    schema = command_schema("2d10-edge")
    check = schema["$defs"]["Check"]["properties"]
    assert check["modifier"]["minimum"] == -100
    assert check["modifier"]["maximum"] == 100
    assert check["advantage"]["minimum"] == 0
    assert check["advantage"]["maximum"] == 20
    attack = schema["$defs"]["Attack"]["properties"]
    assert sorted(attack["mode"]["enum"]) == ["burst", "single"]


class _Sheet(msgspec.Struct, forbid_unknown_fields=True):
    skills: dict[str, Annotated[int, msgspec.Meta(ge=0, le=20)]] = {}
    sides: list[Annotated[int, msgspec.Meta(ge=1)]] = []
    kind: Literal["pc", "npc"] = "pc"
    name: Annotated[str, msgspec.Meta(min_length=1)] = "x"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"skills": {"Gun": 1, "Melee": 30}}, "sheet.skills.Melee: 30 is out of range (0..20)"),
        ({"sides": [3, 0]}, "sheet.sides[1]: 0 is out of range (1 or more)"),
        ({"kind": 3}, "sheet.kind: 3 is not one of npc, pc"),
        ({"name": ""}, "sheet.name: must not be empty"),
    ],
)
def test_the_path_of_a_nested_field_is_named(data: dict[str, object], message: str) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert(data, _Sheet)
    assert explain(data, _Sheet, "sheet.") == message


def test_a_complaint_naming_no_field_is_left_to_msgspec() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"other": 1}, _Sheet)
    assert explain({"other": 1}, _Sheet) is None


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"action": "check", "target": True}, "target: expected a whole number, got true"),
        ({"action": "check", "target": 1001}, "target: 1001 is out of range (0..1000)"),
        ({"action": "check", "target": 5, "crit_reading": "z"}, "crit_reading: 'z' is not one of"),
        ({"action": "odds"}, "target: missing"),
        (
            {"action": "opposed", "a": {"target": 5, "x": 1}, "b": {"target": 5}},
            "a.x: unknown field (fields: target, roll, faces)",
        ),
        ({"action": "odds", "target": 5, "roll": 3}, "roll: unknown field (fields: target, crit"),
    ],
)
def test_a_resolve_request_is_read_by_its_declared_type(
    request_: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleError) as caught:
        resolve({"system": "d100-under", **request_}, RandomDice(1))
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("system", "name", "value", "message"),
    [
        ("2d10-edge", "edge_recovery", "odd", "option edge_recovery: 'odd' is not one of complex, simple"),
        ("2d10-edge", "edge_burn", 3, "option edge_burn: expected true or false, got 3"),
        ("2d10-edge", "armor_dodge_heavy", 101, "option armor_dodge_heavy: 101 is out of range (0..100)"),
        ("2d10-edge", "armor_dodge_heavy", True, "option armor_dodge_heavy: expected a whole number, got true"),
        ("2d6-effect", "initiative_dice", 3, "option initiative_dice: expected dice notation, got 3"),
    ],
)  # fmt: skip
def test_an_option_value_is_read_by_its_declared_kind(
    system: str, name: str, value: object, message: str
) -> None:
    with pytest.raises(RuleError) as caught:
        get_system(system).option(name).check(value)
    assert str(caught.value) == message


def test_a_valid_option_value_is_kept() -> None:
    assert get_system("2d10-edge").option("edge_recovery").check("complex") == "complex"
    assert get_system("2d10-edge").option("armor_dodge_heavy").check(0) == 0
    assert get_system("2d6-effect").option("initiative_dice").check("2d6+1") == "2d6+1"


def test_an_option_typed_on_the_command_line_is_read_by_its_kind() -> None:
    option = get_system("2d10-edge").option("armor_dodge_heavy")
    assert option.parse("3") == 3
    with pytest.raises(RuleError, match=r"armor_dodge_heavy: 300 is out of range \(0..100\)"):
        option.parse("300")
    with pytest.raises(RuleError, match="armor_dodge_heavy: expected a whole number, got 'lots'"):
        option.parse("lots")
