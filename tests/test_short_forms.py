"""Every system's short-form examples (listed in the screen's help) run on its demo table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from support import short_form_refused

from margin.core import SYSTEMS
from margin.tui.screens import commandline
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table


@pytest.mark.parametrize("system_id", sorted(s.id for s in SYSTEMS.values() if s.short_forms))
def test_short_forms_run_in_order_on_the_demo_table(tmp_path: Path, system_id: str) -> None:
    table = build_demo(tmp_path / "demo.margin", system_id)
    try:
        for line, what in SYSTEMS[system_id].short_forms:
            assert what, line
            parsed = commandline.parse_line(line, table.state)
            assert parsed.command is not None, line
            before = table.projection.seq
            table.execute(parsed.command)
            assert table.projection.seq > before, line
    finally:
        table.close()


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_the_demo_fight_as_command_lines_ends_where_margin_demo_ends(
    tmp_path: Path, system_id: str
) -> None:
    """Each of the demo's commands, as the JSON line a GM may type, does what margin demo does."""
    system = SYSTEMS[system_id]
    expected = build_demo(tmp_path / "demo.margin", system_id)
    table = Table.create(tmp_path / "typed.margin", system_id, title=f"{system.title} demo")
    try:
        for data in system.demo:
            parsed = commandline.parse_line(json.dumps(data), table.state)
            assert parsed.command is not None, data
            table.execute(parsed.command)
        got, want = msgspec.to_builtins(table.state), msgspec.to_builtins(expected.state)
        assert got["characters"] == want["characters"]
        assert got["world"] == want["world"]
        if system.clock is not None:
            assert system.clock(table.state) == system.clock(expected.state)
    finally:
        table.close()
        expected.close()


#: words each demo table's vocabulary (what the command line completes) must offer, by kind
DEMO_WORDS = {
    "2d10-edge": {
        "skill": "athletics",
        "weapon": "fam-90",
        "character": "kael",
        "difficulty": "difficult",
        "command": "check",
    },
    "d100-chance": {
        "skill": "lockpick",
        "weapon": "firebolt",
        "effect": "burning",
        "modifier": "tools",
    },
}


@pytest.mark.parametrize("system_id", sorted(DEMO_WORDS))
def test_the_vocabulary_offers_the_demo_tables_words(
    demo_copy: Callable[[str, Path], Path], tmp_path: Path, system_id: str
) -> None:
    vocabulary = SYSTEMS[system_id].vocabulary
    assert vocabulary is not None
    table = Table.open(demo_copy(system_id, tmp_path / "demo.margin"))
    try:
        words = vocabulary(table.state)
    finally:
        table.close()
    for kind, word in DEMO_WORDS[system_id].items():
        assert word in words[kind], (kind, word)


def test_every_system_lists_short_forms() -> None:
    assert all(system.short_forms for system in SYSTEMS.values())


def test_record_numbers_inside_events_follow_the_players_numbering(tmp_path: Path) -> None:
    from margin.core.commands import AddCharacter
    from margin.core.lens import PlayerLens
    from margin.tui.table.rng import RandomDice

    table = build_demo(tmp_path / "demo.margin", "2d10-edge", dice=RandomDice(0))
    try:
        table.execute(AddCharacter(name="Lurker", hidden=True))
        checked = commandline.parse_line(
            "check kael athletics vs 20 adv faces 3 4 9 keep 0 1", table.state
        ).command
        assert checked is not None
        check = table.execute(checked)[0]
        dismissed = commandline.parse_line("dismiss kael", table.state).command
        assert dismissed is not None
        dismiss = table.execute(dismissed)[0]
        assert dismiss.event.pending == check.seq
        lens = PlayerLens()
        seen = {r.seq: lens.read(r) for r in table.store.records()}
        assert seen[table.projection.seq - 2] is None  # the hidden Lurker's record
        player_check, player_dismiss = seen[check.seq], seen[dismiss.seq]
        assert player_check is not None
        assert player_dismiss is not None
        assert player_check["seq"] == check.seq - 1
        assert player_dismiss["event"]["pending"] == player_check["seq"]
    finally:
        table.close()


#: short forms with words they would drop or that repeat a field, by system, and the one line
#: that refuses each on the demo table
REFUSED = {
    "d100-chance": [
        ("effect vex marn burning 40 dex extra", r"^effect: 'extra' is not understood \(effect "),
        ("next now", r"^next: 'now' is not understood"),
        ("endfight now", r"^endfight: 'now' is not understood"),
        (
            "opposed rook stealth marn perception tools",
            r"^opposed: 'tools' is not understood \(.*modifiers in the JSON form\)",
        ),
        ("travel sea 40 nmi x", r"^knots: expected a number, got 'x'"),
        ("travel sea far nmi", r"^distance: expected a number, got 'far'"),
        ("travel sea nan nmi", r"^distance: expected a number, got 'nan'"),
        ("travel sea 40 nmi 12 13", r"^travel: '13' is not understood"),
    ],
    "2d6-effect": [
        ("check vex electronics easy difficult", r"^check: 'difficult' is a second difficulty"),
        ("check vex electronics -2 very difficult", r"^check: 'very difficult' is a second diff"),
        ("check vex str int", r"^check: 'int' is a second characteristic \(already str\)$"),
        ("check vex str +1 -1", r"^check: '-1' is a second circumstance \(already 1\)$"),
        ("check vex str law 3 law 9", r"^check: 'law 9' is a second law_level \(already 3\)$"),
    ],
    "d100-under": [
        ("advance next 3", r"^advance: 'next 3' is more than one word"),
        ("advance 2 next", r"^advance: '2 next' is more than one word"),
        ("end-track now", r"^end-track: takes nothing after it, got 'now'$"),
        ("opposed kael br vs", r"^opposed \(after vs\): name a character"),
        ("opposed vs kael br", r"^opposed \(before vs\): name a character"),
    ],
}


@pytest.mark.parametrize(
    ("system_id", "line", "match"),
    [(system, line, match) for system, cases in REFUSED.items() for line, match in cases],
)
def test_short_forms_name_the_words_they_would_drop_or_repeat(
    demo_copy: Callable[[str, Path], Path], tmp_path: Path, system_id: str, line: str, match: str
) -> None:
    table = Table.open(demo_copy(system_id, tmp_path / "demo.margin"))
    try:
        short_form_refused(line, table, match)
    finally:
        table.close()
