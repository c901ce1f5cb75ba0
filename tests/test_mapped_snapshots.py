"""A long snapshot read through a mapped copy in margin's data folder (``events.mapped``)
gives what the snapshot itself gives, and the copy is never trusted: one missing, cut
short, changed or left by another snapshot is written again from the table's own."""

from __future__ import annotations

import io
import mmap
import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_secrecy import _demo_sheets, actions, play
from test_snapshots import check_snapshots, folded, seen, snapshot_at

from margin.core import snapshot as snapshots
from margin.events import mapped, open_store
from margin.tui.table.notices import per_table
from margin.tui.table.table import Table


@pytest.fixture(autouse=True)
def every_snapshot_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapped, "MAPPED_FROM", 1)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=actions, cut=st.floats(0, 1))
def test_a_mapped_snapshot_gives_the_state_of_the_whole_fold(steps: list[Any], cut: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        check_snapshots(Path(tmp), "2d10-edge", steps, cut)


def copies(path: Path) -> list[Path]:
    folder = per_table("snapshots", str(path), "")
    return sorted(folder.glob(f"*{mapped.SUFFIX}")) if folder.is_dir() else []


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "t.margin"
    steps = [(n, "roll", 0, n) for n in range(8)]
    play(path, "2d10-edge", steps, "Zyxquil").close()
    with open_store(path) as store:
        store.drop_snapshots()
        at = store.last_seq - 1
        assert store.keep_snapshot(at, snapshots.fold_version(), snapshot_at(store, at))
    return path, _demo_sheets("2d10-edge")[0][0]["name"]


def blob_of(path: Path) -> bytes:
    with open_store(path, readonly=True) as store:
        snap = store.snapshot(snapshots.fold_version())
        assert snap is not None
        return bytes(snap.body)


def test_the_columns_stand_on_the_mapped_copy(table: tuple[Path, str]) -> None:
    path, _ = table
    opened = Table.open(path, readonly=True)
    try:
        snap = opened.store.snapshot(snapshots.fold_version())
        assert snap is not None
        assert isinstance(snap.body, mmap.mmap)
        restored = snapshots.decode(snap.body)
        assert restored is not None
        assert restored.mapped
        assert isinstance(restored.history.starts._base, memoryview)
        assert restored.history == folded(opened.store, snap.seq).history
    finally:
        opened.close()
    [copy] = copies(path)
    assert copy.read_bytes() == blob_of(path)
    assert copy.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("harm", ["gone", "cut short", "changed", "another snapshot's"])
def test_a_bad_copy_is_passed_over_and_written_again(table: tuple[Path, str], harm: str) -> None:
    path, player = table
    whole = seen(path, player)
    [copy] = copies(path)
    good = copy.read_bytes()
    # each put in place as a new file: what the first opening mapped stays as it was
    bad = copy.with_name("bad")
    if harm == "cut short":
        bad.write_bytes(good[: len(good) // 2])
    elif harm == "changed":
        bad.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    elif harm == "another snapshot's":
        with open_store(path, readonly=True) as store:
            bad.write_bytes(snapshot_at(store, 3))
    if harm == "gone":
        copy.unlink()
    else:
        bad.replace(copy)
    assert seen(path, player) == whole
    assert copy.read_bytes() == good == blob_of(path)


def test_copies_of_snapshots_let_go_are_removed_with_their_stamps(
    table: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, player = table
    monkeypatch.setattr(mapped, "SETTLED", 0.0)
    seen(path, player)
    seen(path, player)
    [old] = copies(path)
    stamp = old.with_name(f".{old.name}{mapped.STAMP}")
    assert stamp.exists()
    with open_store(path) as store:
        store.drop_snapshots()
        at = store.last_seq
        assert store.keep_snapshot(at, snapshots.fold_version(), snapshot_at(store, at))
    seen(path, player)
    assert old not in copies(path)
    assert len(copies(path)) == 1
    assert not stamp.exists()


def _no_reading(*_: object) -> bool:
    raise AssertionError("a stamped copy was read again")


def test_a_copy_checked_once_is_mapped_unread_until_it_changes(
    table: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, player = table
    whole = seen(path, player)
    [copy] = copies(path)
    stamp = copy.with_name(f".{copy.name}{mapped.STAMP}")
    # written this moment: compared, not stamped, while its change time is young
    assert not stamp.exists()
    monkeypatch.setattr(mapped, "SETTLED", 0.0)
    assert seen(path, player) == whole
    assert stamp.exists()
    assert stamp.stat().st_mode & 0o077 == 0
    with monkeypatch.context() as unread:
        unread.setattr(mapped, "_same", _no_reading)
        assert seen(path, player) == whole
    # changed in place: the same file, inode and size, one byte flipped
    good = copy.read_bytes()
    with open(copy, "r+b") as file:
        file.seek(len(good) // 2)
        file.write(bytes([good[len(good) // 2] ^ 1]))
    assert seen(path, player) == whole
    assert copy.read_bytes() == good == blob_of(path)


class _Blob:
    """Bytes read as SQLite's blobs are (``mapped.Blob``)."""

    def __init__(self, data: bytes) -> None:
        self._file = io.BytesIO(data)
        self._size = len(data)

    def __len__(self) -> int:
        return self._size

    def read(self, length: int = -1, /) -> bytes:
        return self._file.read(length)

    def seek(self, offset: int, origin: int = 0, /) -> None:
        self._file.seek(offset, origin)


def _resident_pages(path: Path) -> int:
    """How many pages of the mapping of ``path`` this process has in memory."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        if line.endswith(str(path)):
            start, end = (int(n, 16) for n in line.split()[0].split("-"))
            break
    else:
        raise AssertionError(f"{path} is not mapped")
    page = mmap.PAGESIZE
    with open("/proc/self/pagemap", "rb") as pagemap:
        pagemap.seek(start // page * 8)
        entries = pagemap.read((end - start) // page * 8)
    return sum(entry >> 63 for (entry,) in struct.iter_unpack("<Q", entries))


@pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="no /proc/self/pagemap")
def test_a_lookup_in_a_copy_costs_a_process_a_few_pages_not_a_mebibyte(tmp_path: Path) -> None:
    size = 8 << 20
    body = bytes(range(256)) * (size // 256)
    path = tmp_path / f"1-abc-fold{mapped.SUFFIX}"
    mapping = mapped.mapped(_Blob(body), path)
    assert mapping is not None
    try:
        assert _resident_pages(path) == 0
        assert mapping[size // 2] == body[size // 2]
        # the kernel maps what surrounds a page it faults in (64 KiB), or the whole piece of
        # the page cache the page is kept in, as large as the write that made it
        assert _resident_pages(path) * mmap.PAGESIZE <= 128 << 10
    finally:
        mapping.close()
