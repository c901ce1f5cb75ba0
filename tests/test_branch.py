"""What-if branches: a branch shares its source's records byte for byte, verifies, and diverges."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import events_of, run_margin

from margin.events import Branched, SQLiteStore, Undone
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table


def _hashes(path: Path) -> list[str]:
    with SQLiteStore(path, readonly=True) as store:
        return [row.hash for row in store.rows()]


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "demo.margin"
    build_demo(path, "2d10-edge").close()
    return path


def test_branch_shares_records_verifies_and_diverges(demo: Path, tmp_path: Path) -> None:
    source = _hashes(demo)
    at = 18  # the end of the command that started Vask's turn
    new = tmp_path / "what-if.margin"
    code, out, err = run_margin("branch", str(demo), "--at", str(at), str(new))
    assert code == 0, err
    assert f"a branch of {demo} at record {at}" in out
    branch = _hashes(new)
    assert branch[:at] == source[:at]
    assert len(branch) == at + 1
    code, out, _ = run_margin("verify", str(new))
    assert code == 0
    assert f"{at + 1} records checked" in out
    assert "chain intact" in out
    with SQLiteStore(new, readonly=True) as store:
        mark = store.record(at + 1)
    assert isinstance(mark.event, Branched)
    assert (mark.event.source, mark.event.at, mark.event.head) == (demo.name, at, source[at - 1])
    assert mark.visibility.gm_only
    # play goes on in the branch: Vask misses instead of hitting
    table = Table.open(new)
    events_of(table, type="attack", character="Vask", target="Enforcer", tn=20, faces=[1, 2])
    table.close()
    assert _hashes(new)[:at] == source[:at]
    assert _hashes(demo) == source
    code, out, _ = run_margin("diff", str(demo), str(new))
    assert code == 0
    assert f"They share records 1..{at} and part at record {at + 1}:" in out
    assert "A: attack on Enforcer with stracher-p11" in out
    assert f"B: a branch of {demo.name} at record {at}" in out
    # the source's Enforcer took 14 from Vask; in the branch he is untouched
    enforcer = _row(out, "Enforcer")
    assert enforcer.startswith("* ")
    assert "Health 21/35" in enforcer
    assert "Health 35/35" in enforcer
    assert _row(out, "Moreau").startswith("  ")
    # every line fits the 80 columns of output that is not a terminal
    assert max(len(line) for line in out.splitlines()) <= 80
    code, out, _ = run_margin("diff", str(demo), str(demo))
    assert code == 0
    assert f"hold the same {len(source)} records" in out


def _row(out: str, name: str) -> str:
    """The side-by-side row of ``name`` in ``margin diff``'s output, its wrapped lines joined
    (a status column wraps in lines whose name column is blank)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line[2:].startswith(name))
    end = start + 1
    while end < len(lines) and lines[end][:3].isspace() and lines[end].strip():
        end += 1
    return " ".join(lines[start:end])


def test_branch_starts_from_the_source_as_corrected(demo: Path, tmp_path: Path) -> None:
    table = Table.open(demo)
    events_of(table, type="check", character="Kael", skill="perception", tn=20, faces=[2, 3])
    events_of(table, type="note", text="the wolves howl")
    events_of(table, type="undo", record=table.projection.seq - 1)
    at = table.projection.seq - 1  # the note: the check before it is undone later in the source
    corrected = table.projection.state_at(at, corrected=True)
    table.close()
    new = tmp_path / "corrected.margin"
    from margin.tui.table.branch import branch

    assert branch(demo, at, new).records == at + 2
    assert _hashes(new)[:at] == _hashes(demo)[:at]
    with SQLiteStore(new, readonly=True) as store:
        undo = store.record(at + 2).event
    assert isinstance(undo, Undone)
    assert undo.voids == [at - 1]
    branched = Table.open(new, readonly=True)
    try:
        assert branched.state.characters["kael"] == corrected.characters["kael"]
        assert at - 1 in branched.projection.history.voided
    finally:
        branched.close()


def test_branch_refuses_bad_input(demo: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.margin"
    for at, message in (
        ("0", "--at 0: "),
        ("999", "has records 1.."),
        ("20", "record 20 is inside one command (records 19..22); branch at 18 or 22"),
    ):
        code, _, err = run_margin("branch", str(demo), "--at", at, str(new))
        assert code == 1
        assert message in err, err
        assert "\n" not in err.strip()
        assert not new.exists()
    code, _, err = run_margin("branch", str(demo), "--at", "3", str(demo))
    assert code == 1
    assert "already exists" in err
    code, _, err = run_margin("diff", str(demo), str(tmp_path / "no.margin"))
    assert code == 1
    assert "no.margin" in err
