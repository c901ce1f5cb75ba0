"""What a check of a table's log has read of it, from record 1 on, and where a writer keeps that.

``margin verify`` runs one ``History`` over the whole log. A writer keeps one
per table (``Store.vouch``) and, before it signs, reads on from the last
record it checked, so a write costs the records that came since. ``Ledger``
keeps a writer's histories between processes, in the GM's data folder, keyed
by the hash of each table's first record, so the next process need not read
a long log again.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from .record import DecodeError, chain_hash, decode_body
from .signing import SignatureCheck

if TYPE_CHECKING:
    from .store import StoredRow

#: Histories kept per first record: a table and its branches share their first record.
KEEP = 16


class History(msgspec.Struct, kw_only=True):
    """A log checked from record 1 to record ``records`` (hash ``head``), and what its
    signatures said (``SignatureCheck``); ``bad`` is the first record that failed."""

    records: int = 0
    head: str = ""
    bad: int | None = None
    reason: str = ""
    signatures: SignatureCheck = msgspec.field(default_factory=SignatureCheck)

    def feed(self, rows: Iterable[StoredRow], *, made: bool = False) -> None:
        """Check ``rows``, the stored rows after record ``records``, up to the first bad one.

        ``prev`` and ``hash`` must chain, the body must decode and agree with the
        ``seq`` and ``command`` columns beside it, and ``v`` must be a format
        this margin reads; the signatures are checked as ``SignatureCheck`` says
        (``made``: rows this process has just written and signed itself).
        """
        signatures = self.signatures
        if self.bad is not None:
            return
        for row in rows:
            seq = row.seq
            if seq != self.records + 1:
                self.fail(self.records + 1, "is missing or out of order")
                return
            fault = self._fault(row)
            if fault is not None:
                self.fail(seq, fault)
                return
            signatures.row(seq, row.command, row.hash, row.key, row.sig, made=made)
            if signatures.bad is not None:
                self.fail(signatures.bad, signatures.reason)
                return
            self.records, self.head = seq, row.hash

    def _fault(self, row: StoredRow) -> str | None:
        """What is wrong with the next row, as ``margin verify`` says it; None when nothing."""
        if row.prev != self.head or chain_hash(self.head, row.body) != row.hash:
            return "breaks the hash chain"
        try:
            record = decode_body(row.body, row.v)
        except DecodeError as exc:
            return f"cannot be decoded ({exc})"
        if record.seq != row.seq or record.command != row.command:
            return "has columns that disagree with its body"
        return None

    def fail(self, seq: int, reason: str) -> None:
        self.bad, self.reason = seq, reason

    def finish(self) -> None:
        """The end of the log reached: what only the end can tell (``SignatureCheck.finish``)."""
        if self.bad is None:
            self.signatures.finish()
            if self.signatures.bad is not None:
                self.fail(self.signatures.bad, self.signatures.reason)

    def copy(self) -> History:
        return _history.decode(msgspec.json.encode(self))


class _Kept(msgspec.Struct):
    histories: list[History] = []


_history = msgspec.json.Decoder(History)
_kept = msgspec.json.Decoder(_Kept)
_HASH = re.compile(r"[0-9a-f]{64}")


class Ledger:
    """What a GM's margin has checked of its tables, kept in ``folder`` between processes.

    One file a table (and its branches), named by its first record's hash.
    A history kept here is used only while the table still holds the record
    it ended at, with the same hash: the chain then makes every record before
    it the one that was checked. The files are the GM's own, beside the key
    they sign with; losing or damaging one costs a check of the whole log,
    nothing more, so writing them never fails a command.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, first: str) -> Path | None:
        return self.folder / f"{first}.json" if _HASH.fullmatch(first) else None

    def _read(self, first: str) -> list[History]:
        path = self._path(first)
        if path is None:
            return []
        try:
            return _kept.decode(path.read_bytes()).histories
        except (OSError, msgspec.DecodeError):
            return []

    def find(self, first: str, own: str, hash_at: Callable[[int], str | None]) -> History | None:
        """The longest history kept of the table whose first record is ``first`` that it
        still bears out (``hash_at(seq)``: the hash of its record ``seq``, if it has one)."""
        kept = sorted(self._read(first), key=lambda h: -h.records)
        for history in kept:
            if (
                history.bad is None
                and history.signatures.own == own
                and history.records > 0
                and hash_at(history.records) == history.head
            ):
                return history
        return None

    def keep(self, first: str, history: History, replaces: tuple[int, str] | None) -> None:
        """Keep ``history`` of the table whose first record is ``first``, in place of the one
        it went on from."""
        path = self._path(first)
        if path is None or history.bad is not None:
            return
        gone = {replaces, (history.records, history.head)}
        histories = [h for h in self._read(first) if (h.records, h.head) not in gone]
        histories.insert(0, history)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            partial.write_bytes(msgspec.json.encode(_Kept(histories[:KEEP])))
            os.replace(partial, path)
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
