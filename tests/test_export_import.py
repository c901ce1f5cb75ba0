"""Exports know their end, and an import appears at its target whole or not at all."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support import MARGIN, exported_notes, margin_process, run_margin

#: imports killed part way, at moments spread over an import
KILLS = 12


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export of a table of 30,001 records in 300 signed commands."""
    return exported_notes(tmp_path_factory.mktemp("export"), "big", 300)[1]


@pytest.mark.slow
def test_an_import_killed_at_random_points_never_leaves_a_half_made_table(
    exported: Path, tmp_path: Path
) -> None:
    target = tmp_path / "copy.margin"
    start = time.monotonic()
    assert margin_process("import", str(exported), str(target)).returncode == 0
    whole = time.monotonic() - start
    target.unlink()
    # kill moments spread over the whole import, one at a seeded point of each twelfth
    rng = random.Random(20)
    fractions = [(k + rng.random()) / KILLS for k in range(KILLS)]
    killed = attempts = 0
    while killed < KILLS and attempts < 4 * KILLS:
        attempts += 1
        proc = subprocess.Popen(
            [*MARGIN, "import", str(exported), str(target)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=fractions[killed] * whole)  # ends early if the import finishes
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.returncode == -signal.SIGKILL:
            killed += 1
        else:
            whole *= 0.8  # imports run quicker now than when timed: aim earlier
        if target.exists():
            # the import had finished: the table is whole
            verified = margin_process("verify", str(target))
            assert verified.returncode == 0, verified.stderr
            assert "30001 records checked" in verified.stdout
            target.unlink()
    assert killed == KILLS
    again = margin_process("import", str(exported), str(target))
    assert again.returncode == 0, again.stderr
    assert "30001 records checked" in margin_process("verify", str(target)).stdout
    # what killed imports left beside the target is gone once an import finishes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.margin"]


def import_refused(dump: Path, text: bytes, tmp_path: Path, message: str) -> None:
    """Importing ``text`` fails in one line holding ``message`` and leaves no table behind."""
    dump.write_bytes(text)
    target = tmp_path / "never.margin"
    result = run_margin("import", str(dump), str(target))
    assert result.code == 1
    assert message in result.err, result.err
    assert result.err.count("\n") == 1
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == [dump.name]


def test_truncated_exports_are_refused(exported: Path, tmp_path: Path) -> None:
    whole = exported.read_bytes()
    lines = whole.splitlines(keepends=True)
    dump = tmp_path / "dump.jsonl"
    import_refused(
        dump,
        b"".join(lines[:-1]),
        tmp_path,
        "truncated export: 30001 records and no end line",
    )
    import_refused(
        dump,
        b"".join(lines[:-2] + lines[-1:]),
        tmp_path,
        "truncated export: 30000 of 30001 records",
    )
    import_refused(
        dump, b"".join(lines[:100] + lines[101:]), tmp_path, "dump.jsonl: record 101 is missing"
    )
    for cut in random.Random(8).sample(range(1, len(whole) - 1), 8):
        import_refused(dump, whole[:cut], tmp_path, "truncated export")


def test_an_export_from_an_earlier_margin_is_refused_with_the_reason(
    exported: Path, tmp_path: Path
) -> None:
    without_end = b"".join(exported.read_bytes().splitlines(keepends=True)[:-1])
    import_refused(
        tmp_path / "old.jsonl", without_end, tmp_path, "exports from earlier margins lack it"
    )


def test_a_killed_export_is_refused(exported: Path, tmp_path: Path) -> None:
    source = exported.parent / "big.margin"
    proc = subprocess.Popen([*MARGIN, "export", str(source)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    part = proc.stdout.read(1_000_000)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    import_refused(tmp_path / "killed.jsonl", part, tmp_path, "truncated export")


def test_an_end_line_that_disagrees_is_refused(exported: Path, tmp_path: Path) -> None:
    lines = exported.read_bytes().splitlines(keepends=True)
    end = json.loads(lines[-1])
    end["end"]["head"] = "0" * 64
    forged = b"".join(lines[:-1]) + json.dumps(end).encode() + b"\n"
    import_refused(
        tmp_path / "forged.jsonl", forged, tmp_path, "the end line says 30001 records ending in"
    )
