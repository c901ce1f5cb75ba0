"""The JSON Lines form of a log, as ``margin export`` writes and ``margin import`` reads it.

Each line is a stored body with the chain fields in front:
``{"v":1,"prev":"...","hash":"...","seq":1,...}``. Import cuts them off to get
the body back byte for byte, so the chain hash proves the line unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from .record import FORMAT, DecodeError, _record_decoder, decode_body
from .store import StoredRow, StoreError

_FAST = b'{"v":%d,"prev":"' % FORMAT
_dict_decoder = msgspec.json.Decoder(dict)


def export_line(row: StoredRow) -> bytes:
    head = b'{"v":%d,"prev":"%s","hash":"%s",' % (row.v, row.prev.encode(), row.hash.encode())
    return head + row.body[1:] + b"\n"


#: A row as ``SQLiteStore.import_rows`` takes it: seq, command, v, prev, hash, body.
Row = tuple[int, str, int, str, str, bytes]


def read_lines(lines: Iterable[bytes], source: str) -> Iterator[Row]:
    """A row for each exported line; every body is decoded on the way, so a line
    that would not load is refused here, naming its line number."""
    decode = _record_decoder.decode
    fast = _FAST
    for lineno, line in enumerate(lines, 1):
        try:
            if line.startswith(fast):
                # the layout export writes: one decode gives the record, a cut the body
                record = decode(line)
                digest = record.hash
                middle = b'","hash":"' + digest.encode() + b'",'
                start = len(fast) + len(record.prev)
                if line.startswith(middle, start):
                    body = b"{" + line[start + len(middle) :].rstrip(b"\r\n")
                    yield record.seq, record.command, FORMAT, record.prev, digest, body
                    continue
            if not line.strip():
                continue
            yield _reencode(line)
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError) as exc:
            raise StoreError(
                f"{source} line {lineno}: not an exported margin record ({exc})"
            ) from None
        except DecodeError as exc:
            raise StoreError(f"{source} line {lineno}: record cannot be read ({exc})") from None


def _reencode(line: bytes) -> Row:
    """A line laid out otherwise (edited by hand, another tool): rebuild its body."""
    data = _dict_decoder.decode(line)
    v, prev, digest = data.pop("v"), data.pop("prev"), data.pop("hash")
    body = msgspec.json.encode(data)
    record = decode_body(body, v)
    return record.seq, record.command, v, prev, digest, body
