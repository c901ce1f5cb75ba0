"""Character sheets read from files (JSON or TOML) for ``add NAME from FILE``.

The sheet read goes into the command, and so into the record: a table never
refers to a file. Whoever names the file, it is read the same careful way:
a regular file only (a pipe or a device is refused before anything waits on
it), never more than ``MAX_BYTES`` of it, and only the values a sheet can
hold. A hosted GM's seat reads only inside the folder its host names, and a
file outside it is answered exactly as a missing one.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from margin.core import RuleError
from margin.events import is_url

#: larger than any sheet; a bigger file is a mistake (a log, an image)
MAX_BYTES = 1_000_000
#: deeper than any sheet nests (skills.Melee.ranks is three)
MAX_DEPTH = 16
#: the whole numbers a record holds (64 bits, signed)
INT_RANGE = range(-(2**63), 2**63)
#: what a hosted GM's seat is told when its host reads no sheet files
HOSTED_OFF = "sheet files are off in this hosted session (the host allows a folder: --sheets DIR)"
#: the files beside a SQLite table that are its own too
TABLE_SUFFIXES = ("", "-wal", "-shm", "-journal")

_KINDS = {
    datetime.datetime: "a date and time",
    datetime.date: "a date",
    datetime.time: "a time of day",
}


class _Constant(Exception):
    """A JSON NaN or Infinity, which no sheet holds."""


def _no_constant(word: str) -> Any:
    raise _Constant(word)


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
        data = (
            _parse_toml(name, text) if path.suffix.lower() == ".toml" else _parse_json(name, text)
        )
        if not isinstance(data, dict):
            raise RuleError(
                f"sheet {name}: a sheet is an object of fields, not {type(data).__name__}"
            )
        _check(name, data, "the sheet")
        return data

    def _missing(self, name: str) -> RuleError:
        where = " in the host's sheets folder" if self.hosted else ""
        return RuleError(f"sheet {name}: no such file{where}")

    def _path(self, name: str) -> Path:
        if not self.hosted:
            return Path(name).expanduser()
        if self.folder is None:
            raise RuleError(f"sheet {name}: {HOSTED_OFF}")
        folder = os.path.realpath(self.folder)
        found = os.path.realpath(os.path.join(folder, name))
        # outside the folder (by .., an absolute path or a link) is answered as missing is
        if os.path.commonpath([folder, found]) != folder or not os.path.exists(found):
            raise self._missing(name)
        return Path(found)

    def _bytes(self, name: str, path: Path) -> bytes:
        try:
            _regular(name, os.stat(path))
            if self._is_table(path):
                raise RuleError(f"sheet {name}: the table's own file, not a sheet")
            # no wait on a file that became a pipe since: non-blocking, and checked again
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except FileNotFoundError:
            raise self._missing(name) from None
        except OSError as exc:
            raise RuleError(f"sheet {name}: cannot be read ({exc.strerror})") from None
        try:
            _regular(name, os.fstat(fd))
            raw = b""
            # a file that grows as it is read is still read no further than the limit
            while len(raw) <= MAX_BYTES and (chunk := os.read(fd, MAX_BYTES + 1 - len(raw))):
                raw += chunk
        except OSError as exc:
            raise RuleError(f"sheet {name}: cannot be read ({exc.strerror})") from None
        finally:
            os.close(fd)
        if len(raw) > MAX_BYTES:
            raise RuleError(f"sheet {name}: larger than a sheet can be ({MAX_BYTES} bytes)")
        return raw

    def _is_table(self, path: Path) -> bool:
        if not self.table or is_url(self.table):
            return False
        seen = os.stat(path)
        for suffix in TABLE_SUFFIXES:
            try:
                own = os.stat(self.table + suffix)
            except OSError:
                continue
            if (own.st_dev, own.st_ino) == (seen.st_dev, seen.st_ino):
                return True
        return False


def _regular(name: str, info: os.stat_result) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise RuleError(f"sheet {name}: a folder, not a sheet file")
    if not stat.S_ISREG(info.st_mode):
        raise RuleError(f"sheet {name}: not a regular file (a pipe or a device); give a sheet file")


def _parse_toml(name: str, text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError(f"sheet {name}: not valid TOML ({exc})") from None
    except RecursionError:
        raise RuleError(f"sheet {name}: nested too deeply to be a sheet") from None
    except ValueError:  # a whole number of thousands of digits
        raise RuleError(f"sheet {name}: a number too long to be a sheet's") from None


def _parse_json(name: str, text: str) -> Any:
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise RuleError(f"sheet {name}: nested too deeply to be a sheet") from None
    except _Constant as exc:
        raise RuleError(f"sheet {name}: {exc} is not a number a sheet holds") from None
    except json.JSONDecodeError as exc:
        raise RuleError(
            f"sheet {name}: not valid JSON ({exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}); a .toml file is read as TOML"
        ) from None
    except ValueError:  # a whole number of thousands of digits
        raise RuleError(f"sheet {name}: a number too long to be a sheet's") from None


def _check(name: str, value: Any, at: str, depth: int = 0) -> None:
    """Refuse what no sheet holds: dates, numbers past 64 bits or infinite, deep nesting."""
    if depth > MAX_DEPTH:
        raise RuleError(f"sheet {name}: {at}: nested deeper than a sheet goes ({MAX_DEPTH})")
    if isinstance(value, dict):
        for key, item in value.items():
            _check(name, item, f"{at}.{key}" if depth else key, depth + 1)
    elif isinstance(value, list):
        for n, item in enumerate(value):
            _check(name, item, f"{at}[{n}]", depth + 1)
    elif isinstance(value, bool | str):
        return
    elif isinstance(value, int):
        if value not in INT_RANGE:
            digits = len(str(abs(value)))
            raise RuleError(
                f"sheet {name}: {at}: a number of {digits} digits, too large for a sheet"
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise RuleError(f"sheet {name}: {at}: {value} is not a number a sheet holds")
    else:
        kind = next((k for t, k in _KINDS.items() if isinstance(value, t)), type(value).__name__)
        raise RuleError(
            f"sheet {name}: {at}: {kind}, which a sheet cannot hold "
            "(text, numbers, true or false, lists and tables of them)"
        )
