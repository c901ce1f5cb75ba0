"""Determinism of the fold, and export/import round trips, over random sessions."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import margin_output

from margin.core import RuleError
from margin.core.commands import AddCharacter, Note, Redo, RollDice, Undo
from margin.tui.table.table import Table

command = st.one_of(
    st.builds(AddCharacter, name=st.sampled_from(["Kael", "Mira", "Zoë Ñ"])),
    st.builds(
        RollDice,
        dice=st.sampled_from(["2d6", "3d10kh2", "1d20-2"]),
        secret=st.booleans(),
    ),
    st.builds(Note, text=st.text(min_size=1, max_size=20).filter(str.strip), gm_only=st.booleans()),
    st.builds(Undo),
    st.builds(Redo),
)


def play(path: Path, commands: list[Any]) -> Table:
    table = Table.create(path, "2d10-edge")
    for cmd in commands:
        with contextlib.suppress(RuleError):
            table.execute(cmd)
    return table


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command, max_size=12))
def test_export_import_gives_the_same_records_and_state(commands: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        table = play(tmp_path / "a.margin", commands)
        table.close()
        exported = margin_output("export", str(tmp_path / "a.margin"))
        (tmp_path / "a.jsonl").write_text(exported, encoding="utf-8")
        margin_output("import", str(tmp_path / "a.jsonl"), str(tmp_path / "b.margin"))
        assert margin_output("export", str(tmp_path / "b.margin")) == exported
        a = Table.open(tmp_path / "a.margin", readonly=True)
        b = Table.open(tmp_path / "b.margin", readonly=True)
        assert msgspec.to_builtins(a.state) == msgspec.to_builtins(b.state)
        assert b.store.verify() is None
        a.close()
        b.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command, max_size=12), st.integers(1, 5))
def test_fold_is_deterministic_and_checkpoints_do_not_change_it(
    commands: list[Any], every: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = play(Path(tmp) / "a.margin", commands)
        records = list(table.store.records())
        from margin.core import Projection

        def fetch(after: int, upto: int) -> Any:
            return [r for r in records if after < r.seq <= upto]

        once = Projection(fetch, every=every)
        once.extend(records)
        twice = Projection(fetch, every=1000)
        for record in records:
            twice.apply(record)
        assert msgspec.to_builtins(once.state) == msgspec.to_builtins(twice.state)
        assert msgspec.to_builtins(once.state) == msgspec.to_builtins(table.state)
        for seq in range(1, len(records) + 1):
            assert msgspec.to_builtins(once.state_at(seq)) == msgspec.to_builtins(
                twice.state_at(seq)
            )
        table.close()
