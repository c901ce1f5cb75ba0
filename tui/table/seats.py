"""Who sits at a table now and how far each seat has read; where a player left off.

Presence is no event of the game, so it never enters the log: each seated player's
margin keeps one small file of its own in margin's data folder (``seats/``, one folder a
table), rewritten whole (a new file put in place) as its screen reads on and every
``BEAT`` seconds while it sits, and removed as it leaves. The GM's margin lists the
files; one whose process is gone, or that has not been rewritten for ``GONE`` seconds
(a machine that went away), is a seat that left. The seats of ``margin host`` are
processes on the host, so they are listed as a local ``margin watch`` is.

Where each character's player last read to (``read/``, a file a character) is kept as
they read, in their own numbering of the log (the player lens numbers it without gaps),
so what a returning player is shown of the records since is the same whatever the GM
did out of their sight.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import msgspec

from margin.core.authority import Door

from .notices import per_table
from .reader import View

#: seconds between two rewrites of a seat's file while nothing else moves it
BEAT = 2.0
#: seconds at least between two rewrites as the seat reads on (a record a moment costs a
#: seat no write each); a seat's screen looks this often whether one is due
HASTE = 0.25
#: seconds after which a seat's file not rewritten is a seat that left
GONE = 10.0
#: the records a returning player's digest lists at most (the newest)
DIGEST_LINES = 40
#: seconds away after which a returning player reads the digest first: one back sooner (a
#: dropped connection, a terminal reopened) goes straight on, the log's last lines in view
AWAY = 300.0


class Presence(msgspec.Struct, frozen=True):
    """One seat, as its file says: who, by which door, read to which record, and when."""

    name: str
    door: Door
    #: the newest record (the table's own number) the seat's screen has shown
    read: int
    #: the process and machine that sit there, and when the file was last written
    pid: int
    machine: str
    at: float


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Presence).decode


class Mark(msgspec.Struct, frozen=True):
    """How far a character's player had read (their own numbering), and when."""

    read: int
    at: float


_mark = msgspec.json.Decoder(Mark).decode


def _write(path: Path, data: bytes) -> None:
    """Put ``data`` in place at ``path`` whole: readers see the old file or the new one."""
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    try:
        try:
            part.write_bytes(data)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            part.write_bytes(data)
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


def seats_folder(table: str) -> Path:
    """The folder of one table's seat files (``table``: its path or URL)."""
    return per_table("seats", table, "")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SeatFile:
    """The file of one seated player's process: written as the seat reads, removed as it
    leaves. A file that cannot be written (a full disk, a folder of another account's)
    leaves the seat unlisted, never the screen stopped."""

    def __init__(self, table: str, name: str, door: Door) -> None:
        self.name = name
        self.door = door
        self.path = seats_folder(table) / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        self.read = 0
        self.written = 0.0

    def sit(self, read: int) -> None:
        """Say the seat has read to record ``read`` (rewritten when it moved on and ``HASTE``
        has passed since the last rewrite, or a beat has passed)."""
        now = time.time()
        since = now - self.written
        if since < BEAT and (read == self.read or since < HASTE):
            return
        self.read = read
        presence = Presence(self.name, self.door, read, os.getpid(), socket.gethostname(), now)
        with contextlib.suppress(OSError):
            _write(self.path, _encode(presence))
            self.written = now

    def leave(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


def seated(table: str, now: float | None = None) -> list[Presence]:
    """The seats at ``table`` now, by name: files whose process is gone, or that have not
    been rewritten for ``GONE`` seconds, are seats that left (and are removed)."""
    now = time.time() if now is None else now
    machine = socket.gethostname()
    found = []
    for path in _files(seats_folder(table)):
        try:
            presence = _decode(path.read_bytes())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            continue
        gone = now - presence.at > GONE or (
            presence.machine == machine and not _alive(presence.pid)
        )
        if gone:
            with contextlib.suppress(OSError):
                path.unlink()
            continue
        found.append(presence)
    return sorted(found, key=lambda p: (p.name.lower(), p.door, p.pid))


def _files(folder: Path) -> Iterator[Path]:
    try:
        yield from (p for p in folder.iterdir() if p.suffix == ".json" and p.name[0] != ".")
    except OSError:
        return


def _mark_path(table: str, character: str) -> Path:
    return per_table("read", table, "") / f"{urllib.parse.quote(character, safe='')}.json"


def last_read(table: str, character: str) -> Mark | None:
    """How far ``character``'s player had read, and when; None if never kept."""
    try:
        return _mark(_mark_path(table, character).read_bytes())
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def keep_read(table: str, character: str, number: int, at: float | None = None) -> None:
    """Keep how far ``character``'s player has read (their own numbering), now (or ``at``)."""
    mark = Mark(number, time.time() if at is None else at)
    with contextlib.suppress(OSError):
        _write(_mark_path(table, character), _encode(mark))


def digest(view: View, since: int, most: int = DIGEST_LINES) -> list[str]:
    """What happened since record ``since`` of a player's log (their numbering), as the
    log panel says it through their lens: a line saying how much, then the newest
    ``most`` records; empty when nothing happened."""
    end = view.log_len()
    if since >= end:
        return []
    start = max(since, end - most)
    rows = view.rows(start, end)
    count = end - since
    # a player's log numbers its records 1, 2, ... without gaps: position n is #n + 1
    head = f"{count} record{'s' if count != 1 else ''} since you left (#{since + 1} to #{end})"
    if start > since:
        head += f"; the newest {len(rows)}"
    lines = [head + ":"]
    lines += [f"#{row.number} {row.text}" + (" (undone)" if row.undone else "") for row in rows]
    return lines


def seats_line(seats: list[Presence], head: int) -> str:
    """The GM's line of who sits at the table: each seat's name, door and how far it has
    read (``head``: the table's newest record); a seat open twice by one door is one;
    "" while no player sits."""
    reads: dict[tuple[str, str], int] = {}
    for seat in seats:
        key = (seat.name, seat.door)
        reads[key] = min(reads.get(key, seat.read), seat.read)
    if not reads:
        return ""
    parts = [
        f"{name} ({door}) " + ("up to date" if read >= head else f"read to #{read}")
        for (name, door), read in reads.items()
    ]
    return "seated: " + " · ".join(parts)


class Sitting:
    """One player's seat while their view is open: its file for the GM's margin, and how
    far they have read, kept for when they come back."""

    def __init__(self, table: str, character: str, name: str, door: Door) -> None:
        self.table = table
        self.character = character
        self.file = SeatFile(table, name, door)
        self.kept: int | None = None
        self.kept_at = 0.0

    def arrive(self, view: View) -> list[str]:
        """Sit down: the digest of what happened since the player last read (none the first
        time, when nothing did, or when they were away less than ``AWAY`` seconds), then
        the seat is announced."""
        mark = last_read(self.table, self.character)
        away = mark is not None and time.time() - mark.at >= AWAY
        lines = digest(view, mark.read) if mark is not None and away else []
        self.read(view)
        return lines

    def read(self, view: View, final: bool = False) -> None:
        """The view has shown the table up to now: say so, and keep the mark now and then
        (and as the seat leaves, ``final``)."""
        with view.table.lock:
            head, number = view.table.projection.seq, view.log_len()
        self.file.sit(head)
        now = time.time()
        if final or (number != self.kept and (now - self.kept_at >= BEAT or self.kept is None)):
            keep_read(self.table, self.character, number)
            self.kept, self.kept_at = number, now

    def leave(self, view: View) -> None:
        self.read(view, final=True)
        self.file.leave()
