"""The table screen's command line: words to commands, faces, completion, and the lensed view."""

from __future__ import annotations

import pytest
from support import player_state_of

from margin.core import RuleError, get_system
from margin.core.commands import (
    AddCharacter,
    AddCondition,
    Note,
    Redo,
    RollDice,
    SetOption,
    UpdateCharacter,
    convert_command,
)
from margin.tui.screens import commandline
from margin.tui.table.reader import LiveTable, View, clock_position, parse_jump, player_id
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "d100-under"


@pytest.fixture
def table(tmp_path):
    t = Table.create(tmp_path / "t.margin", SYSTEM, title="words")
    t.dice = RandomDice(3)
    for data in get_system(SYSTEM).demo[:4]:
        t.execute(convert_command(SYSTEM, data))
    yield t
    t.close()


def parse(text, table):
    return commandline.parse_line(text, table.state)


def test_roll_words_become_a_roll_command(table):
    cmd = parse("roll 3d6+2 secret as kael for the lock", table).command
    assert isinstance(cmd, RollDice)
    assert (cmd.dice, cmd.secret, cmd.actor, cmd.reason) == ("3d6+2", True, "kael", "the lock")


def test_typed_faces_follow_an_equals_sign(table):
    cmd = parse("roll 2d10 = 4 7", table).command
    assert cmd.faces == [4, 7]
    cmd = parse("roll 2d10 = 4,7", table).command
    assert cmd.faces == [4, 7]


def test_typed_faces_reach_a_system_check(table):
    cmd = parse("check kael melee = 3 1", table).command
    assert type(cmd).__struct_config__.tag == "check"
    assert cmd.faces == [3, 1]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        # faces on a command that rolls nothing
        ("redo = 3", "does not fit this command"),
        ("roll 1d6 = x", "'x' is not a number"),
        # an unknown word lists the commands
        ("fly away", "'fly' is not a command; commands: roll, note"),
        # a typo names the nearest command
        ("opossed kael BR", r"'opossed' is not a command \(did you mean 'opposed'\?\); commands"),
        ("chek kael BR", r"'chek' is not a command \(did you mean 'check'\?\)"),
        ("set crit_reading sideways", "option"),
    ],
)
def test_bad_words_are_refused_naming_them(table, line, match):
    with pytest.raises(RuleError, match=match):
        parse(line, table)


def test_notes_keep_their_text(table):
    cmd = parse("gmnote the  cultist lies", table).command
    assert isinstance(cmd, Note)
    assert cmd.gm_only
    assert cmd.text == "the  cultist lies"


def test_add_reads_sheet_fields_as_json(table):
    cmd = parse('add "Old Tom" hidden skills={"Melee":40}', table).command
    assert isinstance(cmd, AddCharacter)
    assert cmd.name == "Old Tom"
    assert cmd.hidden
    assert cmd.sheet == {"skills": {"Melee": 40}}


def test_hide_show_remove_set_redo(table):
    assert parse("hide cultist", table).command == UpdateCharacter(character="cultist", hidden=True)
    assert parse("show cultist", table).command.hidden is False
    assert type(parse("remove cultist", table).command).__struct_config__.tag == "remove-character"
    option = get_system(SYSTEM).options[0]
    other = next(c for c in option.choices if c != option.default)
    assert parse(f"set {option.name} {other}", table).command == SetOption(
        name=option.name, value=other
    )
    assert parse("redo", table).command == Redo()


def test_undo_and_help_are_screen_actions(table):
    assert parse("undo", table).action == "undo"
    assert parse("help", table).action == "help"
    assert parse("undo abc123", table).command.command == "abc123"


def test_json_lines_run_as_margin_do_reads_them(table):
    cmd = parse('{"type": "note", "text": "hi"}', table).command
    assert cmd == Note(text="hi")


def test_quiet_command_never_raises(table):
    assert commandline.quiet_command("check kael", table.state) is not None
    assert commandline.quiet_command("check nobody", table.state) is None
    assert commandline.quiet_command("", table.state) is None


def test_completion_of_commands_characters_and_skills(table):
    state = table.state
    assert commandline.complete("ro", state) == "roll "
    assert commandline.complete("roll 1d6 as ka", state) == "roll 1d6 as Kael "
    assert commandline.complete("check kael mel", state) == "check kael Melee "
    assert "check" in commandline.candidates("ch", state)
    assert commandline.complete("zzz", state) is None


def test_a_name_of_several_words_is_completed_in_quotes_and_read_as_one(tmp_path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d6-effect")
    try:
        table.execute(AddCharacter(name="Rat", count=2))
        line = commandline.complete("cond ra", table.state)
        assert line == 'cond "Rat 1" '
        command = commandline.parse_line(line + "prone 1r", table.state).command
        assert isinstance(command, AddCondition)
        assert (command.character, command.name, command.rounds) == ("Rat 1", "prone", 1)
        counter = commandline.parse_line('counter "Rat 2" health 5', table.state).command
        assert counter is not None
        table.execute(counter)
        assert commandline.complete('adjust "Rat 2" he', table.state) == 'adjust "Rat 2" health '

    finally:
        table.close()


def test_names_are_offered_once_whatever_their_case(table):
    names = [n.lower() for n in commandline.candidates("check ", table.state)]
    assert names
    assert len(names) == len(set(names))


def test_lens_drops_hidden_characters(table):
    table.execute(convert_command(SYSTEM, {"type": "add-character", "name": "Spy", "hidden": True}))
    assert "spy" in table.state.characters
    assert "spy" not in player_state_of(table).characters
    with pytest.raises(RuleError, match="no such player character"):
        player_id(table.state, "Spy")
    with pytest.raises(RuleError, match="players: Ada, Cultist, Kael, Rifleman"):
        player_id(table.state, "nobody")


def test_player_index_skips_gm_only_records_without_decoding(tmp_path, table):
    table.execute(Note(text="public"))
    table.execute(Note(text="private", gm_only=True))
    table.execute(AddCharacter(name="Spy", hidden=True))
    path = table.store.name
    live = LiveTable.open_live(str(path), readonly=True, lens=True)
    expected = [r.seq for r in live.store.records() if not r.visibility.gm_only]
    assert list(live.seqs) == expected
    assert len(expected) == live.projection.seq - 2
    live.close()


def test_clock_position_reads_round_turn_and_count():
    from margin.core.systems.base import Clock, ClockRow

    assert clock_position(Clock("Round 3, turn 2", round=3, turn=2)) == {"round": 3, "turn": 2}
    assert clock_position(Clock("Timing track: count 5 (Vicker Street)", count=5)) == {"count": 5}
    assert clock_position(None) == {}
    # the numbers, not the title: a title's digits are only words
    assert clock_position(Clock("Round 9 at 12 Vicker Street")) == {}
    rows = (ClockRow("Moreau", "17"), ClockRow("Vask", "15", current=True), ClockRow("Kael", "14"))
    assert clock_position(Clock("Round 2 - Ambush", rows, round=2)) == {"round": 2, "turn": 2}


def test_jump_words(table):
    view = View(LiveTable.open_live(str(table.store.name), readonly=True, lens=False))
    view.goto(0)
    assert parse_jump("3", view) == 2
    with pytest.raises(RuleError, match="not understood"):
        parse_jump("sideways 3", view)
    view.table.close()


def test_an_empty_quoted_name_is_a_word_and_is_refused(table):
    cmd = parse('add "" skills={}', table).command
    assert isinstance(cmd, AddCharacter)
    assert cmd.name == ""
    with pytest.raises(RuleError, match="needs a name"):
        table.execute(cmd)


@pytest.mark.parametrize(
    ("line", "message"),
    [("reveal ²", "give the record number"), ("roll 1d²", "number of sides")],
)
def test_digits_that_are_not_plain_digits_are_refused_clearly(table, line, message):
    with pytest.raises(RuleError, match=message):
        table.execute(parse(line, table).command)


def test_undo_takes_a_record_number_or_a_command_id(table):
    from margin.core.commands import Undo

    assert parse("undo 3", table).command == Undo(record=3)
    assert parse("undo 1a2b3c4d5e6f", table).command == Undo(command="1a2b3c4d5e6f")


def test_a_mistyped_attack_names_the_attack(tmp_path):
    t = Table.create(tmp_path / "c.margin", "d100-chance", title="words")
    try:
        with pytest.raises(
            RuleError, match=r"'atack' is not a command \(did you mean 'attack'\?\)"
        ):
            parse("atack rook", t)
    finally:
        t.close()
