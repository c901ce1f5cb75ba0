"""The generic short forms, read by core's grammar alone (no screen): seating, the GM's
bookkeeping and the generic turn order."""

from __future__ import annotations

from typing import Any

import pytest

from margin.core import RuleError, TableState
from margin.core.systems.words import parse_generic


def _state(system: str) -> TableState:
    return TableState(system=system)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("add Guard x3 npc hp=12", {"type": "add-character", "name": "Guard", "sheet": {"hp": 12},
                                    "hidden": False, "count": 3, "npc": True}),
        ('add Kael from {"health": 30} health=40 hidden',
         {"type": "add-character", "name": "Kael", "sheet": {"health": 40}, "hidden": True}),
        ("cond kael prone 2r gm for the blast", {"type": "add-condition", "character": "kael",
                                                 "reason": "the blast", "rounds": 2,
                                                 "gm_only": True, "name": "prone"}),
        ("uncond kael on fire", {"type": "remove-condition", "character": "kael",
                                 "name": "on fire"}),
        ("counter kael Health 12", {"type": "set-counter", "character": "kael", "name": "Health",
                                    "value": 12}),
        ("counter kael Health 8/12", {"type": "set-counter", "character": "kael",
                                      "name": "Health", "value": 8, "max": 12}),
        ("counter kael ammo /6", {"type": "set-counter", "character": "kael", "name": "ammo",
                                  "max": 6}),
        ("counter kael ammo remove", {"type": "remove-counter", "character": "kael",
                                      "name": "ammo"}),
        ("adjust kael Health -3", {"type": "adjust-counter", "character": "kael",
                                   "name": "Health", "by": -3}),
        ("edit kael skills.Melee=40 name=Kay", {"type": "edit", "character": "kael",
                                                "fields": {"skills.Melee": 40, "name": "Kay"}}),
        ("rename kael Kael the Bold", {"type": "rename", "character": "kael",
                                       "name": "Kael the Bold"}),
        ("health guard descriptive", {"type": "health-view", "character": "guard",
                                      "view": "descriptive"}),
        ("alias hit = attack kael guard", {"type": "alias", "name": "hit",
                                           "line": "attack kael guard"}),
        ("start kael guard dice 2d6+1", {"type": "start-encounter",
                                         "characters": ["kael", "guard"], "dice": "2d6+1"}),
        ("join kael 12", {"type": "join", "character": "kael", "initiative": 12}),
        ("join kael 1d6", {"type": "join", "character": "kael", "dice": "1d6"}),
        ("leave kael guard", {"type": "leave", "character": ["kael", "guard"]}),
        ("next", {"type": "next-turn"}),
    ],
)  # fmt: skip
def test_a_generic_short_form_reads_into_its_command(line: str, command: dict[str, Any]) -> None:
    words = _words(line) if "{" in line else line.split(" ")
    assert parse_generic(words, _state("2d6-effect")) == command


def _words(line: str) -> list[str]:
    """The words of a line holding one JSON object (a sheet file's, as the screen puts it)."""
    head, _, rest = line.partition(" {")
    sheet, _, tail = rest.partition("} ")
    return [*head.split(), "{" + sheet + "}", *tail.split()]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("add Kael x0", "add: 'x0': a group is x1 to x100"),
        ("add Kael from", "add: give the sheet file after 'from'"),
        ("add Kael from kael.toml", "add: from 'kael.toml': the sheet file was not read"),
        ("add Kael wings", "add: 'wings' not understood (after the name: xN, npc, hidden"),
        ("cond kael 2r", "cond: name the condition"),
        ("cond kael prone 2r 1t", "cond: '1t' is a second duration"),
        ("counter kael Health", "counter: write it as 'counter NAMES COUNTER MAX|VALUE/MAX|remove'"),
        ("adjust kael Health lots", "adjust: 'lots' is not a change"),
        ("edit kael Health", "edit: 'Health' is not FIELD=VALUE"),
        ("health kael vague", "health: write it as 'health NAMES exact|descriptive|hidden|table'"),
        ("alias hit", "alias: write it as 'alias NAME = LINE'"),
        ("start kael dice", "start: give the dice last"),
        ("join", "join: name who"),
        ("join kael 12 13", "join: write it as 'join NAMES [N|DICE]'"),
    ],
)  # fmt: skip
def test_a_generic_short_form_that_does_not_fit_says_how_to_write_it(
    line: str, message: str
) -> None:
    with pytest.raises(RuleError) as caught:
        parse_generic(line.split(" "), _state("2d6-effect"))
    assert str(caught.value).startswith(message)


def test_the_generic_turn_order_is_only_where_the_system_has_no_clock() -> None:
    assert parse_generic(["join", "kael"], _state("2d6-effect")) == {
        "type": "join", "character": "kael"
    }  # fmt: skip
    # 2d10-edge keeps its own turn order: its words are the system's, not the generic ones
    assert parse_generic(["join", "kael"], _state("2d10-edge")) is None
    assert parse_generic(["attack", "kael"], _state("2d10-edge")) is None
