"""What the GM types on the table screen is what is written, or it is refused with one line
naming the word and what is valid, the same in every system."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import player_log, player_state_of, run_margin

from margin.core import RuleError, get_system
from margin.core.commands import convert_command
from margin.core.panels import character_status
from margin.events import Record
from margin.tui.screens import commandline
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table
from margin.tui.text.render import describe

SYSTEMS = ("2d10-edge", "2d6-effect", "d100-chance", "d100-under")
#: a check of each demo table's first character, ready for ``for REASON`` and more words
CHECKS = {
    "2d10-edge": "check moreau athletics vs 20",
    "2d6-effect": "check vex electronics int",
    "d100-chance": "check rook lockpick 12 tools",
    "d100-under": "check kael melee",
}
#: a character of each demo table
WHO = {"2d10-edge": "kael", "2d6-effect": "vex", "d100-chance": "rook", "d100-under": "kael"}


@pytest.fixture
def demo(
    demo_copy: Callable[[str, Path], Path], tmp_path: Path
) -> Iterator[Callable[[str], Table]]:
    tables: list[Table] = []

    def open_demo(system: str) -> Table:
        table = Table.open(demo_copy(system, tmp_path / f"{system}.margin"))
        table.dice = RandomDice(7)
        tables.append(table)
        return table

    yield open_demo
    for table in tables:
        table.close()


def run(table: Table, line: str) -> list[Record]:
    """Type ``line`` on the table screen's command line and run what it makes."""
    parsed = commandline.parse_line(line, table.state)
    assert parsed.command is not None, line
    return table.execute(parsed.command)


def refused(table: Table, line: str, match: str) -> str:
    """Type ``line``: it is refused with a message matching ``match``, and nothing is written."""
    before = table.projection.seq
    with pytest.raises(RuleError, match=match) as caught:
        run(table, line)
    assert table.projection.seq == before, line
    return str(caught.value)


def event(records: list[Record], tag: str) -> dict[str, object]:
    found = [r.event for r in records if r.event.__struct_config__.tag == tag]
    assert found, (tag, records)
    out: dict[str, object] = msgspec.to_builtins(found[0])
    return out


# -- quotes and apostrophes are letters like the rest ------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_apostrophe_in_a_rolls_reason_is_written_as_typed(
    demo: Callable[[str], Table], system: str
) -> None:
    table = demo(system)
    rolled = event(run(table, "roll 1d6 for the guard's keys"), "dice.rolled")
    assert rolled["reason"] == "the guard's keys"
    # the GM's own roll says the GM as a person writes it, not the seat's id
    line = describe(system, {"event": rolled})
    assert line.startswith("GM rolls 1d6 for the guard's keys: ["), line
    rolled = event(run(table, 'roll 1d6 for \'tis the  "red" door'), "dice.rolled")
    assert rolled["reason"] == '\'tis the  "red" door'


def test_a_conditions_name_keeps_its_apostrophe_and_its_duration(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d10-edge")
    added = event(run(table, "cond kael can't see 2r"), "condition.added")
    assert (added["name"], added["rounds"]) == ("can't see", 2)
    # and the log says it as written, whatever words the name is
    assert describe("2d10-edge", {"event": added}) == "kael: can't see for 2 rounds"
    added = event(run(table, 'cond kael "prone 2x" 1r for the blast'), "condition.added")
    assert (added["name"], added["rounds"], added["reason"]) == ("prone 2x", 1, "the blast")


def test_a_name_in_quotes_is_one_word_and_a_note_keeps_every_character(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d6-effect")
    parsed = commandline.parse_line('add "Old Tom" title="the Bold" npc', table.state)
    assert parsed.command is not None
    assert parsed.command.name == "Old Tom"  # type: ignore[attr-defined]
    assert parsed.command.sheet == {"title": "the Bold"}  # type: ignore[attr-defined]
    noted = event(run(table, "note it's a \"trap\" = don't {open"), "table.note")
    assert noted["text"] == "it's a \"trap\" = don't {open"


# -- typos are refused, naming the word --------------------------------------------------


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ("cond kael prone 2x", r"^cond: '2x' is not a duration \(2r rounds, 1t turns, 3c counts\)"),
        ("cond kael poisoned 3", r"^cond: '3' is not a duration"),
        ("cond kael prone 1.5r", r"^cond: '1.5r' is not a duration"),
        ("cond kael prone -2r", r"^cond: '-2r' is not a duration"),
        ("cond kael prone .5t", r"^cond: '.5t' is not a duration"),
        ("cond kael prone for 2 rounds", r"^cond: '2 rounds' is in the reason after 'for'"),
        ("cond kael prone for 2r", r"^cond: '2r' is in the reason after 'for'"),
        ("cond kael prone gm blinded", r"^cond: 'blinded' after the condition 'prone'"),
        ("cond kael prone 2r 1r", r"^cond: '1r' is a second duration"),
        ("next 3", r"^next: '3' is not understood \(next takes nothing after it"),
        ("leave kael now", r"^leave: 'now' is not understood"),
        ("burn kael 12 please", r"^usage: burn NAME \[INJURY\]"),
        ("edge kael reaction twice", r"^edge: 'twice' is not understood"),
    ],
)
def test_a_typo_on_an_edge_table_is_refused_naming_it(
    demo: Callable[[str], Table], line: str, match: str
) -> None:
    refused(demo("2d10-edge"), line, match)


@pytest.mark.parametrize("system", ["2d6-effect", "d100-chance"])
def test_next_with_a_count_is_refused_in_every_clock(
    demo: Callable[[str], Table], system: str
) -> None:
    refused(demo(system), "next 3", r"^next: '3' is not understood")


# -- the same words in every system ------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_systems_check_takes_a_reason(demo: Callable[[str], Table], system: str) -> None:
    table = demo(system)
    records = run(table, CHECKS[system] + " for the guard's keys")
    [check] = [r for r in records if "check" in r.event.__struct_config__.tag]
    assert check.event.reason == "the guard's keys"
    line = describe(system, msgspec.to_builtins(check))
    assert "for the guard's keys" in line, line


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_systems_check_can_be_secret(demo: Callable[[str], Table], system: str) -> None:
    table = demo(system)
    records = run(table, CHECKS[system] + " secret for the door")
    [check] = [r for r in records if "check" in r.event.__struct_config__.tag]
    gm_line = describe(system, msgspec.to_builtins(check))
    seen = player_log(table)[-1]
    players_line = describe(system, seen)
    assert seen["secret"] is True
    assert "for the door" in players_line
    # players see how it went, not the numbers the GM sees
    numbers = {"2d10-edge": "TN 20", "2d6-effect": "vs 8", "d100-under": "vs ", "d100-chance": "%"}
    assert numbers[system] in gm_line
    assert numbers[system] not in players_line, players_line


# -- physical dice in the order they are rolled --------------------------------------------


def test_an_attacks_hit_faces_alone_leave_its_damage_for_its_own_faces(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d10-edge")
    records = run(table, "attack kael guard = 9 9")
    attack = event(records, "edge.attack")
    assert attack["success"]
    assert attack["damage_held"]
    assert not [r for r in records if r.event.__struct_config__.tag == "edge.damage"]
    line = describe("2d10-edge", msgspec.to_builtins(records[-1]))
    assert line.endswith("damage 6d6+3 waits for damage kael"), line
    damage = event(run(table, "damage kael = 1 2 3 4 5 6"), "edge.damage")
    assert (damage["faces"], damage["source"]) == ([1, 2, 3, 4, 5, 6], "typed")
    # all the faces at once still roll the damage at once
    both = run(table, "attack kael guard free = 9 9 1 1 1 1 1 1")
    assert event(both, "edge.damage")["faces"] == [1, 1, 1, 1, 1, 1]


def test_too_few_faces_say_why_a_third_die_is_due(demo: Callable[[str], Table]) -> None:
    message = refused(
        demo("2d10-edge"), "check kael athletics vs 20 = 3 4", r"^faces: 2 given, this check rolls"
    )
    assert "Advantage pending from record 7" in message, message
    assert "no-pending" in message


@pytest.mark.parametrize(
    ("system", "line", "message"),
    [
        ("d100-chance", "attack rook brakk override = 10", "the hit lands: the dodge rolls a d100"),
        ("2d10-edge", "damage guard 3d6 = 1 2", "the damage (3d6) rolls 3d6 next"),
    ],
)
def test_too_few_faces_say_which_roll_is_due(
    demo: Callable[[str], Table], system: str, line: str, message: str
) -> None:
    said = refused(demo(system), line, r"^faces: \d given, more are needed: ")
    assert message in said, said


def test_a_doubled_option_word_is_refused_as_its_json_form_is(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d10-edge")
    typed = refused(table, "check moreau athletics vs 20 option-dis option-dis", "^chosen_dis")
    parsed = commandline.parse_line(
        '{"type": "check", "character": "moreau", "skill": "athletics", "tn": 20, '
        '"chosen_disadvantage": 2}',
        table.state,
    )
    assert parsed.command is not None
    with pytest.raises(RuleError) as json_form:
        table.execute(parsed.command)
    assert typed == str(json_form.value)


# -- one count, one secret, one name ---------------------------------------------------------


def test_a_condition_put_on_in_its_bearers_turn_is_counted_once(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d10-edge")  # round 1: Kael's turn
    records = run(table, "cond kael bleeding 2t")
    line = describe("2d10-edge", msgspec.to_builtins(records[0]))
    assert "for 2 turns" in line, line
    panel = character_status(table.state.characters["kael"], table.state)
    assert "bleeding, 2 turns left" in panel, panel


def test_a_reveal_of_a_hidden_characters_roll_shows_the_dice_not_who(
    demo: Callable[[str], Table],
) -> None:
    table = demo("2d6-effect")
    run(table, "add Spy hidden")
    [roll] = run(table, "roll 2d6 as spy")
    run(table, f"reveal {roll.seq}")
    seen = player_log(table)[-1]
    line = describe("2d6-effect", seen)
    faces = "+".join(map(str, roll.event.faces))
    assert line.startswith("GM reveals: someone unseen rolls 2d6"), line
    assert faces in line or str(roll.event.total) in line, line
    text = "\n".join(str(d) + describe("2d6-effect", d) for d in player_log(table)).lower()
    assert "spy" not in text


def test_the_next_session_keeps_a_revealed_advantage_open(tmp_path: Path) -> None:
    old, new = tmp_path / "old.margin", tmp_path / "new.margin"
    table = Table.create(old, "2d10-edge")
    try:
        table.dice = RandomDice(1)
        for data in get_system("2d10-edge").demo[:1]:
            table.execute(convert_command("2d10-edge", data))
        [check] = run(table, "check kael athletics vs 20 secret = 9 9")
        assert check.event.pending_kind == "advantage"
        run(table, f"reveal {check.seq}")
        assert any("adv pending" in s for s in _players_status(table))
    finally:
        table.close()
    code, _, err = run_margin("new", str(new), "--from", str(old))
    assert code == 0, err
    table = Table.open(new, readonly=True)
    try:
        assert any("adv pending" in s for s in _players_status(table))
    finally:
        table.close()


def _players_status(table: Table) -> list[str]:
    state = player_state_of(table)
    return character_status(state.characters["kael"], state)


# -- a property: every text typed round-trips into the log, or the line is refused ---------

#: words that look like the grammar's own: durations, typos of them, flags, quotes
TRAPS = ["2r", "2x", "3", "1t", "2", "rounds", "for", "secret", "gm", "'", '"', "'tis", "can't"]
LETTERS = st.characters(
    blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="="
)
WORDS = st.one_of(st.sampled_from(TRAPS), st.text(LETTERS, min_size=1, max_size=6))
TEXTS = st.lists(WORDS, min_size=1, max_size=5).map(" ".join)
#: a condition's name typed bare: any word but one opening with a quote, which groups words
NAME_WORDS = WORDS.filter(lambda w: w[0] not in "'\"")
NAMES = st.lists(NAME_WORDS, min_size=1, max_size=5).map(" ".join)


@pytest.fixture(scope="module")
def effect_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    from margin.tui.table.demo import build_demo

    table = build_demo(tmp_path_factory.mktemp("typed") / "t.margin", "2d6-effect")
    table.dice = RandomDice(3)
    yield table
    table.close()


def _written(table: Table, line: str) -> list[dict[str, object]] | None:
    """The events ``line`` wrote on ``table``, read back from its log, or None when it was
    refused; a refused line writes nothing and changes nothing."""
    before, state = table.projection.seq, msgspec.to_builtins(table.state)
    try:
        parsed = commandline.parse_line(line, table.state)
        assert parsed.command is not None
        records = table.execute(parsed.command)
    except RuleError:
        assert table.projection.seq == before, line
        assert msgspec.to_builtins(table.state) == state, line
        return None
    kept = [table.store.record(r.seq) for r in records]
    return [msgspec.to_builtins(r.event) for r in kept]


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXTS, name=NAMES)
def test_a_typed_text_is_written_exactly_or_refused(
    effect_state: Table, text: str, name: str
) -> None:
    for line, field, tag in (
        (f"note {text}", "text", "table.note"),
        (f"roll 1d6 for {text}", "reason", "dice.rolled"),
        (f"cond vex prone 2r for {text}", "reason", "condition.added"),
        (f"check vex electronics int for {text}", "reason", "effect.check"),
    ):
        written = _written(effect_state, line)
        if written is not None:
            [found] = [e for e in written if e["type"] == tag]
            assert found[field] == text, line
    # a line naming one character at the table and one not there writes for neither
    assert _written(effect_state, f"cond vex,nobody-{name.split()[0]} {name} 2r") is None
    bare = _written(effect_state, f"cond vex {name} 2r")
    if bare is not None:
        [added] = bare
        words = name.split()
        if added["gm_only"]:  # the last word was the GM's flag, as typed
            assert words[-1].lower() == "gm", name
            words = words[:-1]
        assert (added["name"], added["rounds"]) == (" ".join(words), 2), name
    if '"' not in text:
        quoted = _written(effect_state, f'cond vex "{text}" 2r')
        if quoted is not None:
            [added] = quoted
            assert (added["name"], added["rounds"]) == (" ".join(text.split()), 2), text


def test_a_line_naming_many_is_written_for_all_or_for_none(demo: Callable[[str], Table]) -> None:
    table = demo("2d10-edge")
    refused(table, "cond kael,nobody prone 2r", "nobody")
    assert not table.state.characters["kael"].conditions
    records = run(table, "cond kael,moreau prone 2r")
    assert [r.event.character for r in records] == ["kael", "moreau"]


# -- records say characters by the names the reader knows ---------------------------------


#: a line of each system naming characters in fields of its own (a winner, a turn order)
NAMING = {
    "d100-chance": "opposed rook lockpick marn perception",
    "d100-under": "opposed kael br vs cultist 30",
}


@pytest.mark.parametrize("system", SYSTEMS)
def test_records_name_characters_by_name_not_id(demo: Callable[[str], Table], system: str) -> None:
    table = demo(system)
    if system in NAMING:
        run(table, NAMING[system])
    ids = {c.id: c.name for c in table.state.characters.values() if c.id != c.name}
    typed = [
        " ".join(str(v) for k, v in msgspec.to_builtins(r.event).items() if k in ("reason", "text"))
        for r in table.store.records()
    ]
    done = run_margin("log", table.store.name)
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert len(lines) == len(typed)
    for line, words in zip(lines, typed, strict=True):
        for cid in ids:
            said = re.findall(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", line)
            assert len(said) <= len(re.findall(rf"\b{re.escape(cid)}\b", words)), (cid, line)


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_demo_table_has_a_fight_under_way(demo: Callable[[str], Table], system: str) -> None:
    from margin.core.clock import table_clock
    from margin.tui.table.reader import clock_position

    clock = table_clock(demo(system).state)
    assert clock is not None, system
    assert len(clock.rows) >= 2
    assert clock_position(clock), clock.title  # a round or a count the fight has reached


def test_a_condition_in_its_last_round_says_whose_turn_ends_it(
    demo: Callable[[str], Table],
) -> None:
    # the demo's guard is pinned down for 1 round on Mira's turn of round 1
    table = demo("2d6-effect")
    guard = "port-guard"
    assert "pinned down, 1 round left" in character_status(
        table.state.characters[guard], table.state
    )
    run(table, "next")  # round 2: Vex's turn; it ends when Mira's comes
    assert "pinned down, until Mira's turn" in character_status(
        table.state.characters[guard], table.state
    )


def test_the_readmes_player_lines_are_what_a_player_may_type(
    demo: Callable[[str], Table],
) -> None:
    """The README's lines of a player acting from their seat parse on the 2d10-edge demo."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("## A player acting from their seat", 1)[1].split("```")[1]
    lines = [line.split("  #")[0].strip() for line in block.splitlines()[1:] if line.strip()]
    assert len(lines) >= 4, lines
    table = demo("2d10-edge")
    for line in lines:
        assert commandline.parse_line(line, table.state).command is not None, line


@pytest.mark.parametrize(
    ("line", "stray"),
    [
        ("check mira streetwise soc foo", "'foo' after 'soc'"),
        ("check mira streetwise soc difficult bogus", "'bogus' after 'difficult'"),
        ("check mira streetwise soc law 1.5", "'law 1.5' after 'soc'"),
        ("check mira streetwise soc law", "'law' after 'soc'"),
    ],
)
def test_an_unskilled_checks_stray_words_are_refused_not_taken_into_the_skill(
    demo: Callable[[str], Table], line: str, stray: str
) -> None:
    """A skill nobody has is an unskilled try at it, but its name is one run of words:
    a word after the characteristic or the difficulty is a typo, named."""
    table = demo("2d6-effect")
    said = refused(table, line, r"^check: ")
    assert f"{stray} is not a characteristic" in said, said
    # its words together still make the skill, and what follows them still reads
    records = run(table, "check mira streetwise soc difficult +1")
    [checked] = [r.event for r in records if hasattr(r.event, "skill")]
    assert checked.skill == "streetwise"
