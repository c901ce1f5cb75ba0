"""margin's data directory, and what the GM signs with kept in it: the key, the keys they
take as theirs, and what their margin has checked of each table."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from margin.events import Store, StoreError
from margin.events.history import Ledger
from margin.events.signing import BadKey, SigningKey, public_key

#: The file name of the GM's private key inside the data directory.
KEY_FILE = "signing-key.pem"
#: Public keys (one a line) whose commands the GM's margin signs after as after its own.
TRUSTED_FILE = "trusted-keys"
#: The folder where the GM's margin keeps what it has checked of each table (``Ledger``).
CHECKED_FOLDER = "checked"

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
                with contextlib.suppress(FileExistsError):
                    os.link(partial, path)
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


def trusted_keys() -> frozenset[str]:
    """The keys in ``trusted-keys`` (one a line, ``#`` comments): the GM's other machines'."""
    path = data_dir() / TRUSTED_FILE
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return frozenset()
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the trusted keys ({exc.strerror or exc})") from None
    keys = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.partition("#")[0].strip()
        if line:
            keys.add(_trusted_key(line, f"{path} line {lineno}"))
    return frozenset(keys)


def _trusted_key(line: str, where: str) -> str:
    """The public key on one line of ``trusted-keys`` (``where``: the file and line)."""
    if not line.startswith("ed25519:"):
        raise StoreError(f"{where}: not a public key (ed25519:... as margin key prints)")
    try:
        return public_key(line)
    except BadKey as exc:
        raise StoreError(f"{where}: {exc}") from None


def sign_as_gm(store: Store) -> Store:
    """``store`` set to sign as this GM: their key, the keys they trust, what they have checked."""
    store.signer = signing_key()
    store.trusted = trusted_keys()
    store.ledger = Ledger(data_dir() / CHECKED_FOLDER)
    return store
