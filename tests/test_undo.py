"""Undo and redo: state after undo equals the state had the command never happened."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from margin.core import RuleError
from margin.core.commands import AddCharacter, Note, Redo, RollDice, Undo
from margin.tui.table.table import Table


def normalised(state: Any) -> Any:
    """State without record numbers, which differ between two logs of the same play."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "seq"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(msgspec.to_builtins(state))


def play(table: Table, commands: list[Any]) -> list[str]:
    ids = []
    for cmd in commands:
        ids.append(table.execute(cmd)[0].command)
    return ids


def test_undo_voids_what_the_command_caused(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    table.execute(AddCharacter(name="Kael"))
    roll = table.execute(RollDice(actor="kael", dice="2d6", faces=[3, 4], secret=True))[0]
    # a later command whose record answers the roll (a reveal names its cause)
    from margin.core.commands import Reveal

    reveal = table.execute(Reveal(seq=roll.seq))[0]
    assert reveal.cause == roll.seq
    assert table.state.revealed == {roll.seq}
    undo = table.execute(Undo())[0]
    # the last command (the reveal) goes first
    assert undo.event.voids == [reveal.seq]
    undo2 = table.execute(Undo(command=roll.command))[0]
    assert undo2.event.voids == [roll.seq]
    assert table.state.last_roll is None


def test_undoing_a_cause_voids_its_consequences_transitively(tmp_path: Path) -> None:
    from margin.core.commands import Reveal

    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    roll = table.execute(RollDice(dice="1d6", faces=[6], secret=True))[0]
    reveal = table.execute(Reveal(seq=roll.seq))[0]
    undo = table.execute(Undo(command=roll.command))[0]
    assert undo.event.voids == [roll.seq, reveal.seq]
    assert table.state.revealed == set()
    assert table.state.last_roll is None
    table.execute(Redo())
    assert table.state.revealed == {roll.seq}
    assert table.state.last_roll is not None
    assert table.state.last_roll.total == 6


def test_undo_and_redo_refusals(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    with pytest.raises(RuleError, match="nothing to undo"):
        table.execute(Undo())
    with pytest.raises(RuleError, match="nothing to redo"):
        table.execute(Redo())
    first = table.execute(Note(text="one"))[0]
    with pytest.raises(RuleError, match="no command 'nope'"):
        table.execute(Undo(command="nope"))
    undo = table.execute(Undo())[0]
    with pytest.raises(RuleError, match="already undone"):
        table.execute(Undo(command=first.command))
    with pytest.raises(RuleError, match="is an undo"):
        table.execute(Undo(command=undo.command))
    table.execute(Note(text="two"))
    with pytest.raises(RuleError, match="only right after undo"):
        table.execute(Redo())


def test_state_at_replays_as_it_happened_and_as_corrected(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    table.execute(AddCharacter(name="Kael"))
    mistake = table.execute(RollDice(actor="kael", dice="1d20", faces=[20]))[0]
    table.execute(Note(text="after the mistake"))
    table.execute(Undo(command=mistake.command))
    happened = table.projection.state_at(mistake.seq)
    assert happened.last_roll is not None
    assert happened.last_roll.total == 20
    corrected = table.projection.state_at(mistake.seq, corrected=True)
    assert corrected.last_roll is None
    assert table.state.last_roll is None


# -- the property -------------------------------------------------------------

NAMES = ["Kael", "Mira", "Oswin"]

step = st.one_of(
    st.builds(lambda n: ("add", n), st.sampled_from(NAMES)),
    st.builds(
        lambda n, f: ("roll", n, f),
        st.sampled_from(["gm", *NAMES]),
        st.lists(st.integers(1, 6), min_size=2, max_size=2),
    ),
    st.builds(lambda t: ("note", t), st.text("abc ", min_size=1, max_size=5).filter(str.strip)),
    st.just(("undo",)),
    st.just(("redo",)),
)


def to_command(op: tuple[Any, ...]) -> Any:
    kind = op[0]
    if kind == "add":
        return AddCharacter(name=op[1])
    if kind == "roll":
        return RollDice(actor=op[1], dice="2d6", faces=list(op[2]))
    if kind == "note":
        return Note(text=op[1])
    return Undo() if kind == "undo" else Redo()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=1, max_size=14))
def test_state_after_undo_equals_never_having_played_it(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.create(Path(tmp) / "t.margin", "2d10-edge")
        table.projection.every = 3  # many checkpoints, so rebuilds start from them
        effective: list[tuple[str, Any]] = []  # (command id, command) still in force
        undone: list[tuple[str, Any, int]] = []  # redo stack: (id, command, position)
        for op in ops:
            cmd = to_command(op)
            try:
                records = table.execute(cmd)
            except RuleError:
                continue
            cid = records[0].command
            if isinstance(cmd, Undo):
                target = records[0].event.command
                pos = next(i for i, (c, _) in enumerate(effective) if c == target)
                undone.append((target, effective.pop(pos)[1], pos))
            elif isinstance(cmd, Redo):
                target, original, pos = undone.pop()
                effective.insert(pos, (target, original))
            else:
                effective.append((cid, cmd))
                undone.clear()
            fresh = Table.create(
                Path(tmp) / f"fresh{len(list(Path(tmp).iterdir()))}.margin", "2d10-edge"
            )
            for _, c in effective:
                fresh.execute(c)
            assert normalised(table.state) == normalised(fresh.state)
            # a full rebuild from the log agrees with the live fold
            reopened = Table.open(table.store.name, readonly=True)
            assert normalised(reopened.state) == normalised(table.state)
            reopened.close()
            fresh.close()
        table.close()


def test_undos_reaching_back_do_not_make_later_rebuilds_start_over() -> None:
    """Each undo refolds from the checkpoint before its target, not from the start."""
    from margin.core import Projection
    from margin.events import Noted, Record, TableCreated, Undone

    records = [
        Record(seq=1, at="t", author="gm", command="c1", event=TableCreated(system="2d10-edge"))
    ]
    for seq in range(2, 2001):
        if seq % 100 == 0:
            event: Any = Undone(command=f"c{seq - 50}", voids=[seq - 50])
        else:
            event = Noted(text="n")
        records.append(Record(seq=seq, at="t", author="gm", command=f"c{seq}", event=event))
    fetched = 0

    def fetch(after: int, upto: int) -> Any:
        nonlocal fetched
        out = records[after:upto]
        fetched += len(out)
        return out

    projection = Projection(fetch, every=10)
    projection.extend(records)
    assert projection.state.notes == 2000 - 1 - 20 - 20
    # 20 undos, each refolding about 60 records; starting over each time would be ~20,000
    assert fetched < 2000
    assert projection.state_at(2000, corrected=True).notes == projection.state.notes


def test_undo_by_the_number_of_any_record_the_command_wrote(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    first = table.execute(Note(text="one"))[0]
    table.execute(Note(text="two"))
    undo = table.execute(Undo(record=first.seq))[0]
    assert undo.event.command == first.command
    assert undo.event.voids == [first.seq]
    with pytest.raises(RuleError, match="no record #99"):
        table.execute(Undo(record=99))
    with pytest.raises(RuleError, match="not both"):
        table.execute(Undo(record=1, command=first.command))
    with pytest.raises(RuleError, match="is an undo"):
        table.execute(Undo(record=undo.seq))
