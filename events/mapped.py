"""A snapshot's body read through a file mapped read-only, rather than copied into memory.

A long table's snapshot is tens of megabytes, most of it the columns of its undo history
and players' index (``core.columns``), and a table file keeps it as a blob, which SQLite
can only copy out. So a process that reads a long snapshot writes its bytes, as they are,
to a file of margin's data folder (named by the snapshot's record, chain hash and fold,
written aside and renamed into place, readable by its owner only: it holds nothing the
table file does not), and maps that file read-only: the kernel loads only the pages a
screen reads, and every process of the same account that maps it (a host's seats)
shares them.

The file is a copy and nothing else. Before it is mapped it is compared byte for byte
with the blob it came from, so one cut short, changed, or left by another snapshot of the
same name is never used: it is written again from the blob. Deleting it changes nothing
but time. (A file cut short by hand while a process has it mapped stops that process, as
any mapped file would.)

A copy found equal is stamped: a file beside it (``.NAME.checked``) holds the copy's
inode, size and modification and change times as the comparison found them. A later
opening that finds the copy just so maps it without reading it again (tens of megabytes
on a long table, the larger part of what opening costs beyond margin's screens). Any write
to the copy, and any file renamed into its place, moves its change time, which no program
can set back; a stamp is written only for a copy whose change time was at least
``SETTLED`` seconds old, so a write within the file system's clock granule of the check
cannot go unseen (a copy changed just as it was stamped is compared again next time).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

#: bytes compared at a time
CHUNK = 1 << 20
#: bytes written at a time: the page cache keeps a file in pieces of the size it was written
#: in, and a fault on a mapped file maps the whole piece it falls in, so a copy written a
#: mebibyte at a time would cost a process a mebibyte of memory for every lookup that
#: reads it; 64 KiB is what the kernel maps around a fault anyway
WRITTEN = 1 << 16
#: bodies shorter than this are read into memory (a short table's snapshot is small)
MAPPED_FROM = 1 << 20
SUFFIX = ".snapshot"
#: a copy whose change time is younger than this (seconds) is compared, never stamped
SETTLED = 2.0
STAMP = ".checked"


class Blob(Protocol):
    """A blob being read (``sqlite3.Blob``)."""

    def __len__(self) -> int: ...
    def read(self, length: int = -1, /) -> bytes: ...
    def seek(self, offset: int, origin: int = 0, /) -> None: ...


def wanted(size: int) -> bool:
    """Whether a body of ``size`` bytes is read through a mapped file."""
    return size >= max(1, MAPPED_FROM)


def file_name(fold: str, seq: int, digest: str) -> str:
    """The file a snapshot's body is copied to: its record, chain hash and fold."""
    return f"{seq}-{digest[:32]}-{urllib.parse.quote(fold, safe='-')}{SUFFIX}"


def mapped(blob: Blob, path: Path) -> mmap.mmap | None:
    """The blob's bytes as a read-only mapping of ``path``, written again from the blob when
    it is missing or differs from it; None where no file can be written (then the blob is
    read as before)."""
    found = _matching(blob, path)
    return found if found is not None else _written(blob, path)


def _matching(blob: Blob, path: Path) -> mmap.mmap | None:
    """The mapping of ``path`` when it holds the blob's bytes exactly, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        found = os.fstat(fd)
        if found.st_size != len(blob):
            return None
        stamp = _stamp_of(found)
        if _read_stamp(path) != stamp:
            if not _same(blob, file.read):
                return None
            _write_stamp(path, found, stamp)
        return _mapping(fd)


def _mapping(fd: int) -> mmap.mmap:
    """The file read-only, mapped for lookups here and there: a page the kernel must read
    from the disk is read alone, not with the pages after it."""
    mapping = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    if hasattr(mmap, "MADV_RANDOM"):
        mapping.madvise(mmap.MADV_RANDOM)
    return mapping


def _stamp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}{STAMP}")


def _stamp_of(found: os.stat_result) -> str:
    return f"{found.st_ino} {found.st_size} {found.st_mtime_ns} {found.st_ctime_ns}\n"


def _read_stamp(path: Path) -> str | None:
    try:
        with open(_stamp_path(path), encoding="ascii") as file:
            return file.read(200)
    except (OSError, ValueError):
        return None


def _write_stamp(path: Path, found: os.stat_result, stamp: str) -> None:
    """Stamp a copy just found equal to its blob, once its change time has settled."""
    if time.time_ns() - found.st_ctime_ns < SETTLED * 1e9:
        return
    target = _stamp_path(path)
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    try:
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(stamp)
        os.replace(part, target)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()


def _same(blob: Blob, read: Callable[[int], bytes]) -> bool:
    blob.seek(0)
    while chunk := blob.read(CHUNK):
        if read(len(chunk)) != chunk:
            return False
    return True


def _written(blob: Blob, path: Path) -> mmap.mmap | None:
    """The blob's bytes written to ``path`` (aside, then renamed) and mapped."""
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(part, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w+b") as file:
            blob.seek(0)
            while chunk := blob.read(CHUNK):
                for at in range(0, len(chunk), WRITTEN):
                    file.write(chunk[at : at + WRITTEN])
            file.flush()
            mapping = _mapping(fd)
        os.replace(part, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            part.unlink()
        return None
    return mapping


def prune(folder: Path, keep: set[str]) -> None:
    """Remove the copies in ``folder`` of snapshots the table no longer keeps, and copies
    left half written by processes that are gone (a process that maps one keeps its pages
    until it lets them go)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            name = entry.name
            if _let_go(name, keep) or _abandoned(name):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _let_go(name: str, keep: set[str]) -> bool:
    """Whether ``name`` is a copy, or a copy's stamp, of a snapshot not in ``keep``."""
    if name.startswith(".") and name.endswith(SUFFIX + STAMP):
        name = name[1 : -len(STAMP)]
    return name.endswith(SUFFIX) and name not in keep


def _abandoned(name: str) -> bool:
    pid = name.rsplit(".", 2)[-2] if name.endswith(".part") and name.count(".") >= 3 else ""
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
