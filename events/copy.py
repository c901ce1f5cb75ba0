"""Copying a table between stores: the same rows, byte for byte, in a table that appears complete."""

from __future__ import annotations

from collections.abc import Iterator

from .opening import build_store
from .store import Row, Store, StoreError


def copy_table(source: Store, dest: str, upto: int | None = None) -> int:
    """Copy ``source``'s records (up to ``upto``) and signatures into a new table ``dest``.

    The rows are read in one pass (one read transaction), checked link by link
    as they are written, and the new table is verified before it appears;
    returns the number of records it holds.
    """
    signatures: list[tuple[int, str, str]] = []

    def rows() -> Iterator[Row]:
        for row in source.rows(0, upto):
            if row.sig:
                signatures.append((row.seq, row.key, row.sig))
            yield row.seq, row.command, row.v, row.prev, row.hash, row.body

    with build_store(dest) as copy:
        copy.import_rows(rows())
        copy.import_signatures(signatures)
        verdict = copy.check()
        if verdict.bad is not None:
            raise StoreError(
                f"{source.name}: record {verdict.bad} {verdict.reason}; not copied "
                f"(margin verify {source.name} says more)"
            )
    return verdict.records
