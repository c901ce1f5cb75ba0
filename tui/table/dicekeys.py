"""The GM's session keys for committed dice, kept in the data folder beside the signing key.

Each session's keys are one file, ``dice/COMMITMENT.json`` (readable by the GM only),
named by the commitment the log holds, so any of the GM's margins that opens the table
finds them, and a branch keeps drawing from its source's session.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

from margin.core.fairness import SALT_BYTES, SEED_BYTES, Keyring, SessionKeys
from margin.events import Draft, StoreError

from .keys import data_dir

DICE_FOLDER = "dice"
_HEX = re.compile(r"[0-9a-f]{64}")


def fresh_keys() -> SessionKeys:
    """A new session's keys, from the operating system's generator."""
    return SessionKeys(
        secrets.token_bytes(SEED_BYTES),
        secrets.token_bytes(SALT_BYTES),
        secrets.token_bytes(SEED_BYTES),
    )


class DiceKeys:
    """The session keys in one data folder, read once each and kept in memory."""

    def __init__(
        self, folder: Path | None = None, fresh: Callable[[], SessionKeys] = fresh_keys
    ) -> None:
        self.folder = folder if folder is not None else data_dir() / DICE_FOLDER
        self.fresh = fresh
        self._known: dict[str, SessionKeys | None] = {}

    def find(self, commitment: str) -> SessionKeys | None:
        """The keys behind ``commitment``, None when this folder does not hold them."""
        if commitment in self._known:
            return self._known[commitment]
        found = None
        if _HEX.fullmatch(commitment):
            try:
                data = json.loads((self.folder / f"{commitment}.json").read_text("utf-8"))
                keys = SessionKeys.from_json(data)
            except (OSError, ValueError, KeyError, TypeError):  # missing, unreadable or damaged
                keys = None
            if keys is not None and keys.commitment == commitment:
                found = keys
        self._known[commitment] = found
        return found

    def keyring(self) -> Keyring:
        """What one command needs: these keys and a fresh session's, kept only if used."""
        return Keyring(self.find, self.fresh)

    def keep(self, drafts: list[Draft], keyring: Keyring) -> None:
        """Keep the fresh keys when ``drafts`` commit to them, before they are written: a
        session whose keys were lost could never be opened."""
        fresh = keyring.made
        if fresh is None or not any(
            d.committed is not None and d.committed.commitment == fresh.commitment for d in drafts
        ):
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".keys.")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(fresh.to_json(), out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.folder / f"{fresh.commitment}.json")
        except OSError as exc:
            raise StoreError(
                f"{self.folder}: cannot keep the session's dice keys "
                f"({exc.strerror or exc}); nothing was written"
            ) from None
        self._known[fresh.commitment] = fresh
