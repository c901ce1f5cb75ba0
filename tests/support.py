"""Helpers the test files share: run margin in-process, run a command, expect a refusal."""

from __future__ import annotations

import io
import sys
from typing import Any

import msgspec
import pytest

from margin.core import RuleError, TableState, get_system
from margin.core.commands import Redo, Undo, convert_command
from margin.core.lens import PlayerLens, player_state
from margin.tui.cli import main
from margin.tui.table import Table


def run_margin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str, stdin: str = ""
) -> tuple[int, str, str]:
    """``margin ARGS`` in this process: (exit status, standard output, standard error)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def events_of(table: Table, **data: Any) -> list[Any]:
    """Run one command, given as its JSON fields, and return the events it appended."""
    return [r.event for r in table.execute(convert_command(table.state.system, data))]


def refused(table: Table, match: str, **data: Any) -> None:
    """The command is refused in one line matching ``match``, and nothing is appended."""
    before = table.projection.seq
    with pytest.raises(RuleError, match=match) as caught:
        events_of(table, **data)
    assert "\n" not in str(caught.value)
    assert table.projection.seq == before


def player_log(table: Table) -> list[dict[str, Any]]:
    """Every record of a table as players see it (``core.lens``), in their numbering."""
    lens = PlayerLens(table.state.revealed)
    return [data for record in table.store.records() if (data := lens.read(record)) is not None]


def player_state_of(table: Table) -> TableState:
    """The table's state now, as players see it."""
    lens = PlayerLens(table.state.revealed)
    lens.feed(table.store.records())
    world = get_system(table.state.system).player_world
    return player_state(table.state, lens, world, table.projection.history.voided)


def snapshot(table: Table) -> dict[str, Any]:
    """The characters and the world of a table's state, as plain values."""
    data = msgspec.to_builtins(table.state)
    return {"characters": data["characters"], "world": data["world"]}


def undo_redo_replay(table: Table, steps: list[dict[str, Any]], undo_every: int) -> None:
    """Run ``steps`` (JSON commands; a refused one changes nothing) and undo and redo every
    ``undo_every``-th: undo gives back the state before, redo the state after. Then the
    replay at every record, and the table opened again, give the state it had."""
    system = table.state.system
    seen: dict[int, dict[str, Any]] = {table.state.seq: snapshot(table)}
    for n, data in enumerate(steps):
        before, seq = snapshot(table), table.state.seq
        try:
            table.execute(convert_command(system, data))
        except RuleError:
            assert table.state.seq == seq and snapshot(table) == before
            continue
        after = snapshot(table)
        seen[table.state.seq] = after
        if n % undo_every == 0:
            table.execute(Undo())
            assert snapshot(table) == before
            seen[table.state.seq] = before
            table.execute(Redo())
            assert snapshot(table) == after
            seen[table.state.seq] = after
    for at, state in seen.items():
        replayed = msgspec.to_builtins(table.projection.state_at(at))
        assert {"characters": replayed["characters"], "world": replayed["world"]} == state
    reopened = Table.open(table.store.path, readonly=True)
    assert snapshot(reopened) == snapshot(table)
    reopened.close()
