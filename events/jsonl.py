"""The JSON Lines form of a log, as ``margin export`` writes and ``margin import`` reads it.

Each line is a stored body with the chain fields in front:
``{"v":1,"prev":"...","hash":"...","seq":1,...}``; the last record of each
commit also carries the signature of its hash (``"key":"ed25519:...",
"sig":"..."`` after ``hash``). Import cuts them off to get the body back byte
for byte, so the chain hash proves the line unchanged. The file ends with
``{"end":{"records":N,"head":"..."}}``: an export without that line, or with
other figures in it, was cut short and is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO

import msgspec

from .opening import build_store, display_name, table_exists
from .record import FORMAT, DecodeError, _record_decoder, chain_hash, decode_body
from .signing import SignatureCheck
from .store import Row, Store, StoredRow, StoreError

_FAST = b'{"v":%d,"prev":"' % FORMAT
_KEY = b'"key":"'
_SIG = b'","sig":"'
_END = b'{"end":'
_dict_decoder = msgspec.json.Decoder(dict)


class End(msgspec.Struct, forbid_unknown_fields=True):
    records: int
    head: str


class _EndLine(msgspec.Struct):
    end: End


_end_decoder = msgspec.json.Decoder(_EndLine)


def export_line(row: StoredRow) -> bytes:
    head = b'{"v":%d,"prev":"%s","hash":"%s",' % (row.v, row.prev.encode(), row.hash.encode())
    if row.sig:
        head += b'"key":"%s","sig":"%s",' % (row.key.encode(), row.sig.encode())
    return head + row.body[1:] + b"\n"


def end_line(records: int, head: str) -> bytes:
    return b'{"end":{"records":%d,"head":"%s"}}\n' % (records, head.encode())


def export(store: Store, out: IO[bytes], upto: int | None = None) -> int:
    """Write every record (up to ``upto``), then the end line; the number of records.

    The chain is checked on the way: a damaged record stops the export before
    it, and without its end line the file will not import.
    """
    count, head = 0, ""
    for row in store.rows(0, upto):
        if row.seq != count + 1 or row.prev != head or chain_hash(head, row.body) != row.hash:
            raise StoreError(
                f"{store.name}: record {count + 1} is damaged; the export stops before it "
                f"(margin verify {store.name} says more)"
            )
        out.write(export_line(row))
        count, head = row.seq, row.hash
    out.write(end_line(count, head))
    return count


class ExportReader:
    """Reads an export line by line into rows, keeping its signatures and its end line.

    Every body is decoded on the way, so a line that would not load is
    refused here, naming its line number; every signature is checked against
    the hash its line claims (the store checks the chain itself).
    """

    def __init__(self, source: str, key: str | None = None) -> None:
        self.source = source
        self.signatures: list[tuple[int, str, str]] = []
        self.check = SignatureCheck(key=key)
        self.end: End | None = None
        self.count = 0
        self.head = ""

    def rows(self, lines: Iterable[bytes]) -> Iterator[Row]:
        for lineno, line in enumerate(lines, 1):
            try:
                row = self._row(line, lineno)
                if row is None:
                    continue
            except (msgspec.DecodeError, KeyError, TypeError, ValueError) as exc:
                if not line.endswith(b"\n"):
                    raise StoreError(
                        f"{self.source}: truncated export: its last line (line {lineno}) "
                        "is cut short"
                    ) from None
                raise StoreError(
                    f"{self.source} line {lineno}: not an exported margin record ({exc})"
                ) from None
            except DecodeError as exc:
                raise StoreError(
                    f"{self.source} line {lineno}: record cannot be read ({exc})"
                ) from None
            except RecursionError:
                raise StoreError(
                    f"{self.source} line {lineno}: not an exported margin record (nested too deeply)"
                ) from None
            self.count, self.head = row[0], row[4]
            yield row

    def _row(self, line: bytes, lineno: int) -> Row | None:
        """The row of one line of the export; None for a line that holds none (the end line,
        a blank one, a record that is not stored)."""
        if self.end is not None:
            if line.strip():
                raise StoreError(f"{self.source} line {lineno}: more lines after the end line")
            return None
        if line.startswith(_FAST):
            return self._fast(line)
        if line.startswith(_END):
            self.end = _end_decoder.decode(line).end
            return None
        if not line.strip():
            return None
        return self._reencode(line)

    def _fast(self, line: bytes) -> Row:
        """The layout export writes: one decode gives the record, a cut the body."""
        record = _record_decoder.decode(line)
        digest = record.hash
        middle = b'","hash":"' + digest.encode() + b'",'
        start = len(_FAST) + len(record.prev)
        if not line.startswith(middle, start):
            row = self._reencode(line)
            if row is None:
                raise KeyError("v")
            return row
        start += len(middle)
        key = sig = ""
        if line.startswith(_KEY, start):
            key_end = line.index(_SIG, start)
            sig_end = line.index(b'",', key_end + len(_SIG))
            key = line[start + len(_KEY) : key_end].decode()
            sig = line[key_end + len(_SIG) : sig_end].decode()
            start = sig_end + 2
        self._read(record.seq, record.command, digest, key, sig)
        body = b"{" + line[start:].rstrip(b"\r\n")
        return record.seq, record.command, FORMAT, record.prev, digest, body

    def _reencode(self, line: bytes) -> Row | None:
        """A line laid out otherwise (edited by hand, another tool): rebuild its body."""
        data = _dict_decoder.decode(line)
        if set(data) == {"end"}:
            self.end = msgspec.convert(data, _EndLine).end
            return None
        v, prev, digest = data.pop("v"), data.pop("prev"), data.pop("hash")
        key, sig = data.pop("key", None), data.pop("sig", None)
        body = msgspec.json.encode(data)
        record = decode_body(body, v)
        signed = key is not None or sig is not None
        self._read(record.seq, record.command, digest, *((str(key), str(sig)) if signed else ()))
        return record.seq, record.command, v, prev, digest, body

    def _read(self, seq: int, command: str, digest: str, key: str = "", sig: str = "") -> None:
        """The signature check reads every line, so a line no signature of its own covers is
        refused; a line out of order is left to the chain check, which names the gap."""
        if seq == self.count + 1:
            self.check.row(seq, command, digest, key, sig)
        if self.check.bad is not None:
            raise StoreError(f"{self.source}: record {self.check.bad} {self.check.reason}")
        if key or sig:
            self.signatures.append((seq, key, sig))

    def finish(self) -> None:
        """Refuse an export cut short, or not covered by the key asked for."""
        end = self.end
        if end is None:
            raise StoreError(
                f"{self.source}: truncated export: {self.count} records and no end line "
                "(a complete export ends with its record count and head hash; "
                "exports from earlier margins lack it: export the table again)"
            )
        if end.records != self.count or end.head != self.head:
            raise StoreError(
                f"{self.source}: truncated export: {self.count} of {end.records} records"
                if self.count < end.records
                else f"{self.source}: the end line says {end.records} records ending in "
                f"{end.head[:12]}, the file holds {self.count} ending in {self.head[:12]}"
            )
        self.check.finish()
        if self.check.bad is not None:
            raise StoreError(f"{self.source}: record {self.check.bad} {self.check.reason}")


def import_table(lines: Iterable[bytes], source: str, target: str, key: str | None = None) -> int:
    """Build a table at ``target`` (a path or a URL) from an export; it appears only complete.

    A table file is written beside ``target`` under a hidden name and moved
    into place at the end; a table in PostgreSQL is written in one
    transaction. So an import that fails or is killed leaves nothing at
    ``target``. Each line's chain hash is checked and its body decoded as it
    is written, so the new table is verified without reading it again.
    """
    if table_exists(target):
        raise StoreError(f"{display_name(target)}: already exists; import writes a new table")
    reader = ExportReader(source, key)
    with build_store(target) as store:
        try:
            count = store.import_rows(reader.rows(lines))
        except StoreError as exc:
            if str(exc).startswith("record "):
                raise StoreError(f"{source}: {exc}") from None
            raise
        reader.finish()
        if count == 0:
            raise StoreError(f"{source}: no records to import")
        store.import_signatures(reader.signatures)
    return count
