"""Columns of machine integers, and of bytes, that may stand on a snapshot's own bytes.

A column read from a snapshot that the store hands out as a mapped file (``mapped``)
keeps those bytes as they are, a read-only view, and holds what comes after them in
memory (its tail). The kernel then loads only the pages a lookup reads, and shares them
between every process that maps the same file, so a long table's undo history and
players' index cost a screen what it reads of them, not their length. A column read from
any other bytes copies them, so it never keeps a snapshot's whole body alive.

Lookups at opening and on the hot path are binary searches and reads from the end (the
newest records), never a pass over a whole column.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Iterator, Sequence
from typing import Literal, TypeVar, overload

#: the ``array`` type codes columns are kept in
Code = Literal["b", "l", "q", "B"]

T = TypeVar("T")

#: bytes read at a time where the bytes of a column are searched from their end
_CHUNK = 1 << 16


def _base(data: bytes | memoryview, code: Code, mapped: bool) -> memoryview[int] | None:
    """The read-only view a column stands on (None: none, its bytes are copied)."""
    view = memoryview(data)
    if not mapped or not view.nbytes:
        return None
    return view.cast("B").cast(code)


class Positions(Sequence[T]):
    """A sequence read by position through ``_at``: a slice gives a list, a negative
    position counts from the end, and one outside gives ``IndexError``."""

    __slots__ = ()

    def _at(self, i: int) -> T:
        """The item at ``i``, from 0 up to the length."""
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        size = len(self)
        if isinstance(i, slice):
            return [self._at(n) for n in range(*i.indices(size))]
        if i < 0:
            i += size
        if not 0 <= i < size:
            raise IndexError(i)
        return self._at(i)


class Column(Positions[int]):
    """Machine integers of one ``array`` type code, in order: a read-only base (a view of a
    mapped snapshot, or none) and a tail in memory that only grows at its end."""

    __slots__ = ("_base", "_n", "_tail")

    def __init__(self, code: Code = "q", data: bytes | memoryview = b"", mapped: bool = False):
        self._tail = array(code)
        if memoryview(data).nbytes % self._tail.itemsize:
            raise ValueError("a column's bytes are not a whole number of items")
        base = _base(data, code, mapped)
        if base is None:
            self._tail.frombytes(data)
        self._base: Sequence[int] = base if base is not None else ()
        self._n = len(self._base)

    def __len__(self) -> int:
        return self._n + len(self._tail)

    def _at(self, i: int) -> int:
        n = self._n
        return self._base[i] if i < n else self._tail[i - n]

    def __iter__(self) -> Iterator[int]:
        return itertools.chain(self._base, self._tail)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Column):
            return NotImplemented
        return self._tail.typecode == other._tail.typecode and self.data() == other.data()

    __hash__ = None  # type: ignore[assignment]

    def append(self, value: int) -> None:
        self._tail.append(value)

    def extend(self, values: Sequence[int]) -> None:
        self._tail.extend(values)

    def insert(self, i: int, value: int) -> None:
        """``value`` at position ``i``; before the end of the base, the base is copied into
        memory first (a record out of order: a table written outside margin)."""
        if i < self._n:
            self._tail = array(self._tail.typecode, self._base) + self._tail
            self._base, self._n = (), 0
        self._tail.insert(i - self._n, value)

    def last(self) -> int | None:
        return self[-1] if len(self) else None

    def bisect_left(self, value: int) -> int:
        """Where ``value`` goes in a sorted column, before any equal to it."""
        n = self._n
        if not n or self._base[n - 1] < value:
            return n + bisect.bisect_left(self._tail, value)
        return bisect.bisect_left(self._base, value)

    def bisect_right(self, value: int) -> int:
        """Where ``value`` goes in a sorted column, after any equal to it."""
        n = self._n
        if not n or self._base[n - 1] <= value:
            return n + bisect.bisect_right(self._tail, value)
        return bisect.bisect_right(self._base, value)

    def holds(self, value: int) -> bool:
        """Whether a sorted column holds ``value`` (one binary search)."""
        return self.find(value) >= 0

    def find(self, value: int) -> int:
        """The position of ``value`` in a sorted column, -1 where it holds none (one binary
        search, in the base or the tail, with no layer of ``Positions`` between)."""
        n = self._n
        if not n or self._base[n - 1] < value:
            tail = self._tail
            i = bisect.bisect_left(tail, value)
            return n + i if i < len(tail) and tail[i] == value else -1
        base = self._base
        i = bisect.bisect_left(base, value)
        return i if base[i] == value else -1

    def data(self) -> memoryview:
        """The column's bytes, for a snapshot (a copy: the column may go on)."""
        out = bytearray(self._base) if isinstance(self._base, memoryview) else bytearray()
        out += self._tail.tobytes()
        return memoryview(out)


class Blob:
    """Bytes end to end: a read-only base (a view of a mapped snapshot, or none) and a tail
    in memory that only grows at its end."""

    __slots__ = ("_base", "_n", "_tail")

    def __init__(self, data: bytes | memoryview = b"", mapped: bool = False) -> None:
        base = _base(data, "B", mapped)
        self._base = base if base is not None else memoryview(b"")
        self._tail = bytearray() if base is not None else bytearray(data)
        self._n = len(self._base)

    def __len__(self) -> int:
        return self._n + len(self._tail)

    def __iadd__(self, more: bytes) -> Blob:
        self._tail += more
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Blob):
            return NotImplemented
        return self.data() == other.data()

    __hash__ = None  # type: ignore[assignment]

    def read(self, start: int, end: int) -> bytes:
        """The bytes from ``start`` up to ``end``."""
        n = self._n
        if start >= n:
            return bytes(self._tail[start - n : end - n])
        if end <= n:
            return self._base[start:end].tobytes()
        return self._base[start:].tobytes() + self._tail[: end - n]

    def rfind(self, want: bytes, stop: int) -> int:
        """Where the last whole match of ``want`` that ends by ``stop`` starts, else -1 (a
        match across the end of the base is none: no entry spans it)."""
        n = self._n
        if stop > n:
            at = self._tail.rfind(want, 0, stop - n)
            if at >= 0:
                return n + at
        return self._rfind_base(want, min(stop, n))

    def _rfind_base(self, want: bytes, end: int) -> int:
        """``rfind`` in the base, a chunk at a time from ``end`` back: a search for a recent
        entry reads the pages at the end, not the whole base."""
        width = len(want)
        chunk = max(_CHUNK, 4 * width)
        while end >= width:
            begin = max(0, end - chunk)
            at = self._base[begin:end].tobytes().rfind(want)
            if at >= 0:
                return begin + at
            if not begin:
                break
            # the next chunk overlaps this one by a match's width less one byte
            end = begin + width - 1
        return -1

    def data(self) -> memoryview:
        """The bytes, for a snapshot (a copy)."""
        out = bytearray(self._base)
        out += self._tail
        return memoryview(out)
