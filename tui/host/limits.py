"""What ``margin host`` lets its clients have at once: sessions, terminal size, memory."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SIZE = re.compile(r"([0-9]{1,5})x([0-9]{1,5})")


@dataclass(frozen=True)
class Limits:
    """The host's limits; each is a ``margin host`` option, and these are their defaults."""

    #: sessions one seat may have open (a second device, a reconnect before the old one ends)
    per_seat: int = 2
    #: sessions one SSH connection may carry (OpenSSH multiplexes several over one)
    channels: int = 2
    #: sessions in all, every seat and door together
    sessions: int = 20
    #: the largest terminal a session gets, in columns and rows, whatever the client asks
    cols: int = 400
    rows: int = 150
    #: resident memory a session may hold, in MiB, before it is ended
    memory: int = 400

    def size(self, cols: int, rows: int) -> tuple[int, int]:
        """A terminal size a client asked for, within bounds (0: it gave none, 80x24)."""
        return min(max(cols or 80, 10), self.cols), min(max(rows or 24, 5), self.rows)


def parse_size(text: str) -> tuple[int, int]:
    """``COLSxROWS`` as (columns, rows); ``ValueError`` says what is valid."""
    found = _SIZE.fullmatch(text.strip().lower())
    if found is None or int(found.group(1)) < 10 or int(found.group(2)) < 5:
        raise ValueError(f"{text!r}: expected COLSxROWS, at least 10x5 (say 400x150)")
    return int(found.group(1)), int(found.group(2))
