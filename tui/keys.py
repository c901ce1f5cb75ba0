"""margin's data directory and the GM's signing key kept in it."""

from __future__ import annotations

import os
from pathlib import Path

from margin.events import StoreError
from margin.events.signing import BadKey, SigningKey

#: The file name of the GM's private key inside the data directory.
KEY_FILE = "signing-key.pem"

_loaded: dict[Path, SigningKey] = {}


def data_dir() -> Path:
    """``$XDG_DATA_HOME/margin``, else ``~/.local/share/margin``: the default table and the key."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "margin"


def key_path() -> Path:
    return data_dir() / KEY_FILE


def signing_key() -> SigningKey:
    """The GM's signing key, created on first use (readable by its owner only)."""
    path = key_path()
    if path in _loaded:
        return _loaded[path]
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{KEY_FILE}.{os.getpid()}")
            partial.unlink(missing_ok=True)
            SigningKey.generate().save(partial)
            try:
                # two margins starting at once: the first key written is everyone's key
                os.link(partial, path)
            except FileExistsError:
                pass
            finally:
                partial.unlink()
        key = SigningKey.load(path)
    except OSError as exc:
        raise StoreError(
            f"{path}: cannot {'read' if path.exists() else 'create'} the signing key "
            f"({exc.strerror or exc}); set XDG_DATA_HOME to a folder margin may write"
        ) from None
    except BadKey as exc:
        raise StoreError(str(exc)) from None
    _loaded[path] = key
    return key
