"""Character sheets read from files (JSON or TOML) for ``add NAME from FILE``.

The sheet read goes into the command, and so into the record: a table never
refers to a file. Whoever names the file, it is read the same careful way:
a regular file only (a pipe or a device is refused before anything waits on
it), never more than ``MAX_BYTES`` of it, and only the values a JSON command
may hold (``core.inputs``: bounded nesting and numbers, finite, no lone
surrogates; from TOML, no dates). A hosted GM's seat reads only inside the
folder its host names, and a file outside it is answered exactly as a missing
one.
"""

from __future__ import annotations

import datetime
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from margin.core import RuleError
from margin.core.inputs import check_value, read_json
from margin.events import is_url

#: larger than any sheet; a bigger file is a mistake (a log, an image)
MAX_BYTES = 1_000_000
#: what a hosted GM's seat is told when its host reads no sheet files
HOSTED_OFF = "sheet files are off in this hosted session (the host allows a folder: --sheets DIR)"
#: the files beside a SQLite table that are its own too
TABLE_SUFFIXES = ("", "-wal", "-shm", "-journal")

#: descriptors of the table's own files, opened as a sheet when one was swapped in after
#: the check: never closed, since that would drop this process's SQLite locks on the table
_KEPT_OPEN: list[int] = []

_KINDS = {
    datetime.datetime: "a date and time",
    datetime.date: "a date",
    datetime.time: "a time of day",
}


@dataclass(frozen=True)
class SheetFiles:
    """Where a screen reads sheet files from.

    ``margin play`` reads any file its user names; a hosted GM's seat
    (``hosted``) reads only inside ``folder``, and none without one.
    """

    hosted: bool = False
    folder: Path | None = None
    #: the table being played (a path or a URL): its files are never opened as a sheet,
    #: since closing any descriptor of them would drop this process's SQLite locks
    table: str = ""

    def read(self, name: str) -> dict[str, Any]:
        """The sheet in the file ``name`` (TOML by its suffix, else JSON); ``RuleError`` says
        in one line why it cannot be had."""
        path = self._path(name)
        raw = self._bytes(name, path)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RuleError(f"sheet {name}: not UTF-8 text") from None
        toml = path.suffix.lower() == ".toml"
        data = _parse_toml(name, text) if toml else _parse_json(name, raw)
        if not isinstance(data, dict):
            raise RuleError(
                f"sheet {name}: a sheet is an object of fields, not {type(data).__name__}"
            )
        return data

    def _missing(self, name: str) -> RuleError:
        where = " in the host's sheets folder" if self.hosted else ""
        return RuleError(f"sheet {name}: no such file{where}")

    def _path(self, name: str) -> Path:
        if "\0" in name:  # no file has one in its name
            raise self._missing(name)
        return self._in_folder(name) if self.hosted else Path(name).expanduser()

    def _in_folder(self, name: str) -> Path:
        """A hosted seat's sheet file, inside the host's folder (else missing)."""
        if self.folder is None:
            raise RuleError(f"sheet {name}: {HOSTED_OFF}")
        folder = os.path.realpath(self.folder)
        found = os.path.realpath(os.path.join(folder, name))
        # outside the folder (by .., an absolute path or a link) is answered as missing is
        if os.path.commonpath([folder, found]) != folder or not os.path.exists(found):
            raise self._missing(name)
        return Path(found)

    def _bytes(self, name: str, path: Path) -> bytes:
        fd = self._open(name, path)
        kept = False
        try:
            info = os.fstat(fd)
            if self._is_table(info):
                # the table's file, put at that name since it was checked: closing this
                # descriptor would drop the locks of this process's connections to it
                kept = True
                _KEPT_OPEN.append(fd)
                raise _own(name)
            return _read_regular(name, fd, info)
        except OSError as exc:
            raise _unreadable(name, exc) from None
        finally:
            if not kept:
                os.close(fd)

    def _open(self, name: str, path: Path) -> int:
        """A descriptor of the file at ``path``, once it is a regular file, not the table's."""
        try:
            info = os.stat(path)
            _regular(name, info)
            if self._is_table(info):
                raise _own(name)
            # no wait on a file that became a pipe since: non-blocking, and checked again
            return os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise self._missing(name) from None
        except OSError as exc:
            raise _unreadable(name, exc) from None

    def _is_table(self, seen: os.stat_result) -> bool:
        if not self.table or is_url(self.table):
            return False
        own = {_identity(self.table + suffix) for suffix in TABLE_SUFFIXES}
        return (seen.st_dev, seen.st_ino) in own


def _identity(path: str) -> tuple[int, int] | None:
    """The device and inode of the file at ``path``, None when there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _own(name: str) -> RuleError:
    return RuleError(f"sheet {name}: the table's own file, not a sheet")


def _unreadable(name: str, exc: OSError) -> RuleError:
    return RuleError(f"sheet {name}: cannot be read ({exc.strerror})")


def _read_regular(name: str, fd: int, info: os.stat_result) -> bytes:
    """The bytes of the open file ``fd`` (``info``: its status), a regular file no larger
    than a sheet can be."""
    _regular(name, info)
    raw = b""
    # a file that grows as it is read is still read no further than the limit
    while len(raw) <= MAX_BYTES and (chunk := os.read(fd, MAX_BYTES + 1 - len(raw))):
        raw += chunk
    if len(raw) > MAX_BYTES:
        raise RuleError(f"sheet {name}: larger than a sheet can be ({MAX_BYTES} bytes)")
    return raw


def _regular(name: str, info: os.stat_result) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise RuleError(f"sheet {name}: a folder, not a sheet file")
    if not stat.S_ISREG(info.st_mode):
        raise RuleError(f"sheet {name}: not a regular file (a pipe or a device); give a sheet file")


def _parse_toml(name: str, text: str) -> Any:
    import tomllib  # read with the first sheet, not at every start

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"sheet {name}: not valid TOML ({exc})") from None
    except RecursionError:
        raise RuleError(f"sheet {name}: not TOML margin accepts: nested too deeply") from None
    except ValueError:  # a whole number of thousands of digits
        raise RuleError(f"sheet {name}: not TOML margin accepts: a number too long") from None
    try:
        check_value(data)  # the bounds of every JSON command margin reads
    except RuleError as exc:
        raise RuleError(f"sheet {name}: {exc}") from None
    _json_kinds(name, data, "")
    return data


def _parse_json(name: str, raw: bytes) -> Any:
    try:
        return read_json(raw)
    except RuleError as exc:
        malformed = str(exc).startswith("not JSON:")
        hint = "; a .toml file is read as TOML" if malformed else ""
        raise RuleError(f"sheet {name}: {exc}{hint}") from None


def _json_kinds(name: str, value: Any, at: str) -> None:
    """Refuse what TOML holds and JSON cannot: dates and times, infinite numbers, NaN."""
    for item, path in _inside(value, at):
        _json_kinds(name, item, path)
    if isinstance(value, float) and not math.isfinite(value):
        raise RuleError(f"sheet {name}: {at}: {value} is not a number a sheet holds")
    kind = next((k for t, k in _KINDS.items() if isinstance(value, t)), None)
    if kind is not None:
        raise RuleError(
            f"sheet {name}: {at}: {kind}, which a sheet cannot hold "
            "(text, numbers, true or false, lists and tables of them)"
        )


def _inside(value: Any, at: str) -> list[tuple[Any, str]]:
    """The values a table or a list holds, each with its path (``a.b``, ``a[0]``)."""
    if isinstance(value, dict):
        return [(item, f"{at}.{key}" if at else key) for key, item in value.items()]
    if isinstance(value, list):
        return [(item, f"{at}[{n}]") for n, item in enumerate(value)]
    return []
