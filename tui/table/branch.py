"""``margin branch`` and ``margin diff``: what-if tables and where two tables part."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from margin.core.branch import branch_drafts
from margin.core.panels import character_status
from margin.events import (
    Draft,
    Store,
    StoredRow,
    StoreError,
    Unvouched,
    build_store,
    display_name,
    open_store,
    record_to_builtins,
    short_name,
    table_exists,
)
from margin.events.salvage import Intact, find_intact
from margin.tui.text import render

from .keys import sign_as_gm
from .reader import names_of
from .table import Table, new_command_id


@dataclass(frozen=True)
class Branch:
    """A branch made: the record it was made at, its records, and how much of a damaged
    source was intact (None when the source was whole)."""

    at: int
    records: int
    intact: Intact | None = None


def branch(source: str | Path, at: int | None, new: str | Path) -> Branch:
    """Write ``new``: ``source``'s records 1..``at`` byte for byte, then the branch mark.

    The copy is checked link by link as it is written, and the GM signs the
    branch mark only once the copied records have passed the check every
    writer makes before it signs (``Store.vouch``): a source whose records up
    to ``at`` fail it is refused, and nothing is kept. A damaged source (or
    ``at`` None: at its last intact record) is branched from its intact
    records (``events.salvage.find_intact``), as they fold: what undos after
    the damage would have changed is not known.
    """
    if table_exists(new):
        raise StoreError(f"{display_name(new)}: already exists; branch writes a new table")
    table, intact = _shared(source, at)
    try:
        at = _branch_point(table, source, at, intact)
        history = table.projection.history
        rows = list(table.store.rows(0, at))
        drafts = branch_drafts(history, at, short_name(source), table.state.title, rows[-1].hash)
    finally:
        table.close()
    # appears only once the GM has signed after the copy, as margin import appears whole
    with build_store(new) as store:
        sign_as_gm(store)
        _copy(store, source, at, rows)
        _mark(store, source, at, drafts)
        count = store.last_seq
    return Branch(at, count, intact)


def _copy(store: Store, source: str | Path, at: int, rows: list[StoredRow]) -> None:
    """``source``'s records up to ``at`` (``rows``) written byte for byte, with their
    signatures, each checked link by link."""
    try:
        store.import_rows((r.seq, r.command, r.v, r.prev, r.hash, r.body) for r in rows)
    except StoreError as exc:
        if not str(exc).startswith("record "):
            raise
        # damage that still folds: found only as the records are copied
        with open_store(source, readonly=True) as damaged:
            raise _past_damage(source, at, find_intact(damaged)) from None
    store.import_signatures((r.seq, r.key, r.sig) for r in rows if r.sig)


def _mark(store: Store, source: str | Path, at: int, drafts: list[Draft]) -> None:
    """The branch mark written after the copy, once the copied records pass the check
    every writer makes before it signs."""
    try:
        store.append(drafts, at, command=new_command_id())
    except Unvouched as exc:
        name = display_name(source)
        raise StoreError(
            f"{name}: record {exc.seq} {exc.reason}; no branch was written; "
            f"margin verify {name} says more"
        ) from None


def _branch_point(table: Table, source: str | Path, at: int | None, intact: Intact | None) -> int:
    """The record a branch of ``table`` shares up to: ``at`` (None: the last), which must be
    one of its records and end a command."""
    last = table.projection.seq
    at = last if at is None else at
    if not 1 <= at <= last:
        if intact is not None:
            raise _past_damage(source, at, intact)
        raise StoreError(f"--at {at}: {display_name(source)} has records 1..{last}")
    history = table.projection.history
    command = history.command_of(at)
    if command is not None and history.seqs(command)[-1] != at:
        span = history.seqs(command)
        raise StoreError(
            f"--at {at}: record {at} is inside one command (records {span[0]}..{span[-1]}); "
            f"branch at {span[0] - 1} or {span[-1]}"
        )
    return at


def _past_damage(source: str | Path, at: int, intact: Intact) -> StoreError:
    return StoreError(
        f"--at {at}: {display_name(source)}: record {intact.bad} {intact.reason}; "
        f"a branch shares records 1..{intact.kept} at most (or --salvage)"
    )


def _shared(source: str | Path, at: int | None) -> tuple[Table, Intact | None]:
    """The table a branch shares records of: the whole of it, or its intact records (at the
    last intact one, or when it is damaged), and how much was intact."""
    if at is not None:
        try:
            return Table.open(source, readonly=True), None
        except StoreError:
            # a damaged table can still be branched before its damage
            pass
    with open_store(source, readonly=True) as store:
        found = find_intact(store)
    if found.bad is None and at is not None:
        # not damaged after all: the table could not be opened for another reason
        return Table.open(source, readonly=True), None
    if found.kept == 0:
        raise StoreError(
            f"{display_name(source)}: record {found.bad} {found.reason}; no whole command "
            "before it to branch from"
        )
    return Table.open(source, readonly=True, upto=found.kept), found


def first_difference(a: Store, b: Store) -> int | None:
    """The first record number at which two logs differ (by chain hash), or None."""
    for ra, rb in zip_longest(a.rows(), b.rows()):
        if ra is None or rb is None or ra.hash != rb.hash:
            return (ra or rb).seq
    return None


def _line(table: Table, seq: int) -> str:
    if seq > table.projection.seq:
        return "(no such record: the log ends before it)"
    data = record_to_builtins(table.store.record(seq))
    return render.describe(table.state.system, data, names_of(table.state))


#: the width ``margin diff`` fits when its output is not a terminal
PLAIN_WIDTH = 80


def diff(path_a: str | Path, path_b: str | Path, width: int = PLAIN_WIDTH) -> str:
    """Where two tables part, and their characters' state side by side at their ends, in
    lines of at most ``width`` columns (a long status wraps within its column)."""
    a, b = Table.open(path_a, readonly=True), Table.open(path_b, readonly=True)
    name_a, name_b = display_name(path_a), display_name(path_b)
    try:
        out = [
            *_wrapped(f"A: {name_a}", width, "", "   "),
            *_wrapped(f"B: {name_b}", width, "", "   "),
        ]
        parted = first_difference(a.store, b.store)
        if parted is None:
            out.append(f"They hold the same {a.projection.seq} records.")
        else:
            shared = f"share records 1..{parted - 1}" if parted > 1 else "share no records"
            out.append(f"They {shared} and part at record {parted}:")
            out += _wrapped(f"A: {_line(a, parted)}", width, "  ", "     ")
            out += _wrapped(f"B: {_line(b, parted)}", width, "  ", "     ")
        out.append("")
        out += side_by_side(a, b, width)
        return "\n".join(out) + "\n"
    finally:
        a.close()
        b.close()


def _wrapped(text: str, width: int, first: str = "", later: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken between words."""
    return textwrap.wrap(
        text, width, initial_indent=first, subsequent_indent=later, break_on_hyphens=False
    ) or [first]


def _status(table: Table) -> dict[str, str]:
    state = table.state
    return {c.name: ", ".join(character_status(c, state)) for c in state.characters.values()}


#: the narrowest a status column of ``margin diff`` is made, however narrow the terminal
MIN_COLUMN = 16


def side_by_side(a: Table, b: Table, width: int = PLAIN_WIDTH) -> list[str]:
    """Each character's state at the end of both tables; differing rows marked with *.
    The two status columns share what ``width`` leaves beside the names, each wrapping."""
    if a.state.system != b.state.system:
        return [f"A plays {a.state.system}, B plays {b.state.system}."]
    sa, sb = _status(a), _status(b)
    names = list(dict.fromkeys([*sa, *sb]))
    widths = _widths(names, sa, sb, width)
    out = _row(" ", ("character", "A", "B"), widths)
    for n in names:
        left, right = sa.get(n, "(not at the table)"), sb.get(n, "(not at the table)")
        out += _row("*" if left != right else " ", (n, left, right), widths)
    same = sum(1 for n in names if sa.get(n) == sb.get(n))
    out.append(f"\n{len(names) - same} of {len(names)} characters differ (marked *).")
    return out


def _widths(
    names: list[str], sa: dict[str, str], sb: dict[str, str], width: int
) -> tuple[int, int, int]:
    """The widths of the names' column and of A's and B's status columns in ``width``."""
    who = min(max([9, *map(len, names)]), max(9, width // 4))
    room = max(2 * MIN_COLUMN, width - who - 6)
    # as wide as A's statuses need, or half the room when both need more
    need_a, need_b = max([1, *map(len, sa.values())]), max([1, *map(len, sb.values())])
    col_a = need_a if need_a + need_b <= room else max(room // 2, room - need_b)
    return who, col_a, room - col_a


def _row(mark: str, cells: tuple[str, str, str], widths: tuple[int, int, int]) -> list[str]:
    """One row of the side-by-side table: each cell wrapped in its column, lines aligned."""
    wrapped = [
        textwrap.wrap(cell, w, break_on_hyphens=False) or [""]
        for cell, w in zip(cells, widths, strict=True)
    ]
    out = []
    for i, line in enumerate(zip_longest(*wrapped, fillvalue="")):
        parts = [f"{part:<{w}}" for part, w in zip(line, widths, strict=True)]
        out.append(f"{mark if i == 0 else ' '} {'  '.join(parts)}".rstrip())
    return out
