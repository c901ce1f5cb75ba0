"""Ed25519 signatures over a log's chain head: who wrote a table, and that nobody changed it since.

Every commit signs the hash of its last record. The chain makes that hash
depend on every record before it, so a valid signature at the head vouches
for the whole log up to there, which a margin checks before it signs; a
record counts as signed only through the signature of its own command
(``SignatureCheck``). Keys and signatures are written as text:
``ed25519:`` and the raw key in unpadded URL-safe base64; a signature is its
64 bytes the same way.
"""

from __future__ import annotations

import base64
import binascii
import os
from functools import lru_cache
from pathlib import Path

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

PREFIX = "ed25519:"


class BadKey(ValueError):
    """A key given by the user is not a margin public key; the message says what is."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def head_message(seq: int, digest: str) -> bytes:
    """What a commit signs: the sequence number and hash of its last record."""
    return b"margin chain head %d %s" % (seq, digest.encode())


class SigningKey:
    """A GM's private key; ``public`` is the text others verify with."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        raw = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        self.public = PREFIX + _b64(raw)

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load(cls, path: Path) -> SigningKey:
        """Read a key written by ``save``; a file that holds none is an error naming it."""
        try:
            private = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except ValueError:
            raise BadKey(f"{path}: not a margin signing key (an Ed25519 PEM key)") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise BadKey(f"{path}: not an Ed25519 key")
        return cls(private)

    def save(self, path: Path) -> None:
        """Write the key readable by its owner only; never over an existing key."""
        pem = self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, pem)
            os.fsync(fd)
        finally:
            os.close(fd)

    def sign(self, seq: int, digest: str) -> str:
        return _b64(self._private.sign(head_message(seq, digest)))


@lru_cache(maxsize=64)
def _public(text: str) -> Ed25519PublicKey:
    if not text.startswith(PREFIX):
        raise BadKey(f"{text[:60]!r}: not a margin public key (ed25519:... as margin key prints)")
    try:
        raw = _unb64(text[len(PREFIX) :])
    except (binascii.Error, ValueError):
        raw = b""
    # one spelling per key: base64 has spare bits a changed byte could hide in
    if len(raw) != 32 or _b64(raw) != text[len(PREFIX) :]:
        raise BadKey(f"{text[:60]!r}: not a margin public key (32 bytes of base64 after ed25519:)")
    return Ed25519PublicKey.from_public_bytes(raw)


def public_key(text: str) -> str:
    """A public key given as text or as a file holding it, checked; its canonical text."""
    text = text.strip()
    if not text.startswith(PREFIX):
        path = Path(text)
        try:
            content = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            content = None
        if content is None:
            raise BadKey(
                f"--key {text[:60]!r}: neither a public key (ed25519:...) nor a readable file"
            )
        text = content
    _public(text)
    return text


def signature_valid(key: str, signature: str, seq: int, digest: str) -> bool:
    """Whether ``signature`` by ``key`` signs record ``seq`` with hash ``digest``."""
    try:
        sig = _unb64(signature)
        if _b64(sig) != signature:
            return False
        _public(key).verify(sig, head_message(seq, digest))
    except (BadKey, InvalidSignature, binascii.Error, ValueError):
        return False
    return True


#: Why a record no signature of its own command covers is refused.
NOT_SIGNED = "is not signed (inserted outside margin?)"


class SignatureCheck(msgspec.Struct, kw_only=True):
    """Follows a log's records in order, with their signatures, and finds the first bad one.

    margin signs every command it writes: the last record of each carries a
    signature of its hash, and the chain makes that signature cover every
    record before it. So a record counts as signed only through the signature
    of its own command, the first signed head after it, whose records must
    all be that command's: a record of another command in between was put
    there outside margin, and a later signature never vouches for it. Records
    before the first signed command are a table's unsigned past (an earlier
    margin wrote them, before margin signed); after it, every command must be
    signed.

    Every stored signature must be valid for the key stored beside it. With
    ``key`` every record must also be covered by a signature of that key.
    With ``own`` (a writer's key) the check is the writer's, before it signs:
    once ``own`` has signed the table, every command must be signed by
    ``own``, by a key in ``trusted``, or by a key that signed the table before
    ``own`` first did (the history the writer took the table on with).

    The check keeps only what it needs to go on from its last record, so a
    writer can keep it and later check only the records that came since.
    """

    key: str | None = None
    own: str | None = None
    trusted: frozenset[str] = frozenset()
    bad: int | None = None
    reason: str = ""
    #: the last record read
    last: int = 0
    #: the last signed head read
    signed: int = 0
    #: how many records came before the first signed command
    unsigned: int = 0
    #: the first record (and command) read since the last signed head; 0 right after one
    start: int = 0
    command: str = ""
    #: with ``key``: the last head that key signed
    covered: int = 0
    #: with ``own``: its first signed head, and the keys that had signed before it
    own_from: int = 0
    adopted: set[str] = set()
    signers: dict[str, int] = {}

    def row(
        self,
        seq: int,
        command: str,
        digest: str,
        signer: str = "",
        signature: str = "",
        *,
        made: bool = False,
    ) -> None:
        """Read record ``seq`` of command ``command`` (hash ``digest``), with its signature if
        any; ``made``: this process made the signature just now, so it is not verified again."""
        if self.bad is not None:
            return
        if self.start and command != self.command:
            if self.signed:
                self._fail(self.start, NOT_SIGNED)
                return
            self.start = 0
        if not self.start:
            self.start, self.command = seq, command
        self.last = seq
        if signer or signature:
            self._head(seq, digest, signer, signature, made)

    def _head(self, seq: int, digest: str, signer: str, signature: str, made: bool) -> None:
        if not made and not signature_valid(signer, signature, seq, digest):
            self._fail(seq, f"has a signature by {signer} that does not match")
            return
        if self.own is not None and not self._takes(seq, signer):
            return
        if not self.signed:
            self.unsigned = self.start - 1
        self.signers[signer] = self.signers.get(signer, 0) + seq - self.start + 1
        if signer == self.key:
            self.covered = seq
        self.signed = seq
        self.start = 0

    def _takes(self, seq: int, signer: str) -> bool:
        """Whether the writer ``own`` takes the head ``seq`` signed by ``signer``: its own, a
        trusted key's, or one that signed before its first; the check fails otherwise."""
        if signer == self.own:
            self.own_from = self.own_from or seq
        elif signer not in self.trusted and signer not in self.adopted:
            if self.own_from:
                self._fail(
                    self.start,
                    f"is signed by another key, {signer}, not by this GM's "
                    "(inserted outside margin? a key of the GM's own goes in trusted-keys)",
                )
                return False
            self.adopted.add(signer)
        return True

    def _fail(self, seq: int, reason: str) -> None:
        self.bad, self.reason = seq, reason

    def open_tail(self) -> tuple[int, str] | None:
        """The first record of a command read last that has no signature, once the table is signed."""
        if self.start and self.signed:
            return self.start, NOT_SIGNED
        return None

    def finish(self) -> None:
        """The end of the log: an unsigned last command, or records the key does not cover."""
        if self.bad is not None:
            return
        tail = self.open_tail()
        if tail is not None:
            self._fail(*tail)
        elif self.key is not None and self.covered < self.last:
            self._fail(self.covered + 1, f"is not signed by {self.key}")

    def describe(self) -> str:
        """Who signed the log, for ``margin verify``."""
        if not self.signers:
            return "unsigned (written by an earlier margin)"
        keys = list(self.signers)
        if len(keys) == 1 and not self.unsigned:
            return f"signed by {keys[0]}"
        parts = (
            [f"{self.unsigned} unsigned (written by an earlier margin)"] if self.unsigned else []
        )
        parts.append(f"{self.signers[keys[0]]} signed by {keys[0]}")
        parts += [f"{self.signers[key]} signed by another key, {key}" for key in keys[1:]]
        return "records " + ", ".join(parts)
