"""Character sheets read from files (JSON or TOML) for ``add NAME from FILE``.

The sheet read goes into the command, and so into the record: a table never
refers to a file.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from margin.core import RuleError

#: larger than any sheet; a bigger file is a mistake (a log, an image)
MAX_BYTES = 1_000_000


def read_sheet(name: str) -> dict[str, Any]:
    """The sheet in a JSON or TOML file (by its suffix; JSON when it has neither)."""
    path = Path(name).expanduser()
    try:
        if path.stat().st_size > MAX_BYTES:
            raise RuleError(f"sheet {name}: larger than a sheet can be ({MAX_BYTES} bytes)")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RuleError(f"sheet {name}: no such file") from None
    except IsADirectoryError:
        raise RuleError(f"sheet {name}: a folder, not a sheet file") from None
    except OSError as exc:
        raise RuleError(f"sheet {name}: cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RuleError(f"sheet {name}: not UTF-8 text") from None
    if path.suffix.lower() == ".toml":
        try:
            data: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise RuleError(f"sheet {name}: not valid TOML ({exc})") from None
    else:
        try:
            data = json.loads(text)
        except RecursionError:
            raise RuleError(f"sheet {name}: nested too deeply to be a sheet") from None
        except json.JSONDecodeError as exc:
            raise RuleError(
                f"sheet {name}: not valid JSON ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}); a .toml file is read as TOML"
            ) from None
    if not isinstance(data, dict):
        raise RuleError(f"sheet {name}: a sheet is an object of fields, not {type(data).__name__}")
    return data
