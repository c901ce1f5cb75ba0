"""Ed25519 signatures over a log's chain head: who wrote a table, and that nobody changed it since.

Every commit signs the hash of its last record. The chain makes that hash
depend on every record before it, so a valid signature at the head vouches
for the whole log up to there. Keys and signatures are written as text:
``ed25519:`` and the raw key in unpadded URL-safe base64; a signature is its
64 bytes the same way.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

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


@dataclass
class SignatureCheck:
    """Follows a log's signed heads in order and finds the first bad record.

    Every stored signature must be valid for the key stored beside it; the
    first head whose signature fails is the bad record. A valid signature at
    a head covers every record up to it, through the chain. Without ``key``
    unsigned records are allowed (an earlier margin wrote them); with
    ``key`` every record must be covered by a signature of that key, and the
    bad record is the first one that is not.
    """

    key: str | None = None
    bad: int | None = None
    reason: str = ""
    covered: int = 0
    signed: int = 0
    signers: Counter[str] = field(default_factory=Counter)

    def head(self, seq: int, digest: str, signer: str, signature: str) -> None:
        if self.bad is not None:
            return
        if not signature_valid(signer, signature, seq, digest):
            self.bad, self.reason = seq, f"has a signature by {signer} that does not match"
            return
        self.signers[signer] += seq - self.signed
        self.signed = seq
        if self.key is None or signer == self.key:
            self.covered = seq

    def finish(self, last: int) -> None:
        """The end of the log: with a key, records after its last signed head are not covered."""
        if self.bad is None and self.key is not None and self.covered < last:
            self.bad = self.covered + 1
            self.reason = f"is not signed by {self.key}"

    def describe(self, last: int) -> str:
        """Who signed the log, for ``margin verify``."""
        if not self.signers:
            return "unsigned (written by an earlier margin)"
        parts = [f"{count} signed by {key}" for key, count in self.signers.items()]
        unsigned = last - self.signed
        if unsigned:
            parts.append(f"{unsigned} unsigned (written by an earlier margin)")
        if len(parts) == 1:
            return f"signed by {next(iter(self.signers))}"
        return "records " + ", ".join(parts)
