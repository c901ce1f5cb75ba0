"""What ``margin host`` tells the GM's screens: a line for each seat it refused or ended.

The host and the GM's screens are separate processes (the GM may play with
``margin play`` beside the host, or in a hosted seat of their own), and such a
line is no part of the table's story, so it goes into no record: the host
appends it to a file of the table's in the GM's data folder, which a hosted
session shares, and every GM screen of that table shows what is added after it
opened. The file never grows past ``MAX_BYTES``: a host refusing a flood of
clients keeps printing them, and the GM has seen enough.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from margin.events import display_name, is_url, short_name

from .keys import data_dir

#: the most a table's notices file holds; the host writes no more into it
MAX_BYTES = 256 * 1024


def per_table(folder: str, table: str | Path, suffix: str = ".txt") -> Path:
    """A file of one table's in margin's data folder ``folder``, never in the log.

    Named after the table and a digest of its full path (or its URL, without a
    password), so two tables called ``fight.margin`` in different folders keep
    their own.
    """
    if is_url(str(table)):
        full, stem = display_name(table), short_name(table)
    else:
        resolved = Path(table).resolve()
        full, stem = str(resolved), resolved.stem
    digest = hashlib.sha256(full.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return data_dir() / folder / f"{stem}-{digest}{suffix}"


def notices_path(table: str | Path) -> Path:
    return per_table("notices", table)


def post(table: str | Path, line: str) -> None:
    """Tell the GM's screens of ``table`` ``line``; a folder margin may not write loses it."""
    path = notices_path(table)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size >= MAX_BYTES:
            return
        with path.open("a", encoding="utf-8") as out:
            out.write(line.replace("\n", " ") + "\n")


class Notices:
    """The lines posted for ``table`` since this reader was made."""

    def __init__(self, table: str | Path) -> None:
        self.path = notices_path(table)
        self.offset = self._size()

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def new(self) -> list[str]:
        """The whole lines posted since the last call (none if the file cannot be read)."""
        size = self._size()
        if size < self.offset:  # removed and begun again
            self.offset = 0
        if size == self.offset:
            return []
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read(size - self.offset)
        except OSError:
            return []
        whole = data[: data.rfind(b"\n") + 1]
        self.offset += len(whole)
        return list(filter(None, whole.decode("utf-8", "replace").splitlines()))
