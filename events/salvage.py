"""A damaged table's intact records: how far they go, and a new table of them.

One damaged record (a broken chain, a body that will not decode, columns that
disagree with it, a signature that does not match, a record missing) makes a
table unreadable. What came before it is as good as ever: ``find_intact``
finds where that ends, at the end of a command (a command cut short by the
damage is left out whole, so no state appears that the table never had), and
``salvage`` copies those records and their signatures into a new table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .copy import copy_table
from .store import DamagedRecord, ReadError, Store, StoredRow, StoreError, check_rows


@dataclass
class Intact:
    """How much of a table is intact: records 1..``kept``, of the ``stored`` it holds, and the
    first damaged record (``bad``) and why (``reason``), if any."""

    kept: int = 0
    stored: int = 0
    bad: int | None = None
    reason: str = ""
    #: records after the damaged one (a count that stopped at one that cannot be read, if
    #: ``unread``)
    after: int = 0
    unread: bool = False

    def describe(self) -> str:
        """What was kept and what was not, in one line."""
        kept = f"kept records 1-{self.kept} of {'at least ' if self.unread else ''}{self.stored}"
        if self.bad is None:
            return f"{kept}; every record is intact"
        parts = [kept, f"record {self.bad} {self.reason}"]
        if self.kept + 1 < self.bad:
            parts.append(self._cut_short(self.kept + 1, self.bad - 1))
        if self.after or self.unread:
            parts.append(self._after_bad())
        return "; ".join(parts)

    def _cut_short(self, first: int, last: int) -> str:
        span = f"record {first}" if first == last else f"records {first}-{last}"
        return f"{span} not kept either (the command it cuts short)"

    def _after_bad(self) -> str:
        some = f"at least {self.after}" if self.unread else str(self.after)
        return f"{some} record{'' if self.after == 1 else 's'} after it not kept"


class _Watched:
    """The rows a check is given, and what is known of the last ones it accepted: where the
    run of records of the last accepted record's command began, and the row after it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.last: StoredRow | None = None
        self.held: StoredRow | None = None
        self.start = 0
        #: whether the check stopped at a row that is there but cannot be read as one
        self.unreadable = False

    def __iter__(self) -> Iterator[StoredRow]:
        try:
            for row in self.store.rows():
                # asked for another row: the one before it was accepted
                if self.held is not None:
                    self.accept(self.held)
                self.held = row
                yield row
        except DamagedRecord as exc:
            # a row that cannot be read as one is damage like any other
            self.unreadable = True
            raise ReadError(self.store.name, exc.why) from None

    def accept(self, row: StoredRow) -> None:
        last = self.last
        if last is None or last.sig or row.command != last.command:
            self.start = row.seq
        self.last, self.held = row, None


def find_intact(store: Store) -> Intact:
    """How far ``store``'s records are intact (``Store.check``'s tests) and end a command."""
    watched = _Watched(store)
    verdict = check_rows(iter(watched))
    held = watched.held
    if held is not None and (verdict.bad is None or held.seq < verdict.bad):
        watched.accept(held)
        held = None
    found = Intact(kept=verdict.records, stored=verdict.records)
    if verdict.bad is None:
        return found
    found.bad, found.reason = verdict.bad, verdict.reason
    if _command_cut(watched.last, held):
        found.kept = watched.start - 1
    found.stored += watched.unreadable or (held is not None and held.seq == verdict.bad)
    found.after, found.unread = _rows_from(store, verdict.bad)
    found.stored += found.after
    return found


def _command_cut(last: StoredRow | None, held: StoredRow | None) -> bool:
    """Whether the damage cuts the command of the last intact record ``last`` short (``held``:
    the row read after it, if any): an unsigned record ends its command only where the next
    one is of another."""
    if last is None or last.sig:
        return False
    after = held if held is not None and held.seq == last.seq + 1 else None
    return after is None or after.command == last.command


def _rows_from(store: Store, seq: int) -> tuple[int, bool]:
    """How many rows can be read from record ``seq`` on, and whether a read failed first."""
    count = 0
    try:
        for _ in store.rows(seq):
            count += 1
    except StoreError:
        return count, True
    return count, False


def salvage(source: Store, dest: str) -> Intact:
    """Copy ``source``'s intact records (``find_intact``) and their signatures into a new,
    verified table ``dest`` that appears only complete; what was kept."""
    found = find_intact(source)
    if found.kept == 0:
        raise StoreError(
            f"{source.name}: record {found.bad} {found.reason}; no whole command before it "
            "to salvage, nothing written"
        )
    copy_table(source, dest, upto=found.kept)
    return found
