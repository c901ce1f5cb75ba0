"""Dice anyone can check: commitments, derivations and their verification.

A session's dice come from a seed the GM's margin commits to (a salted hash) before the
first die it draws; each seated player's margin adds entropy in the log as it sits
down. A command's dice are derived with HMAC-SHA256 from one key per command:

- an **open** command (players see every record of it whole) from the seed, the
  entropy published so far and the command's place among the session's open
  commands: anyone recomputes them once ``end-session`` publishes the seed;
- a **secret** command (players see it with fields cut) from the session's next secret
  key, one leaf of a hash tree whose root was committed with the seed; the record
  carries a commitment (``Record.sealed``) to what players do not see, and a reveal
  publishes the key and its path to the root, never the tree's other keys;
- a **hidden** command (players do not see it at all) from a key that is never
  published.

Faces are drawn from HMAC output by rejection sampling, so every face of a die is
exactly as likely. Nothing here draws randomness: the keys come from outside
(``SessionKeys`` built by the GM's margin from the operating system's generator).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import msgspec

from margin.events import (
    PUBLIC,
    Commitment,
    DiceEntropy,
    DiceOpened,
    Draft,
    Drawn,
    Record,
    Revealed,
)

from .errors import RuleError

#: secret keys in a session's tree: a session's secret commands past this many go on in
#: a new session, committed with the command that needs it
LEAVES = 1024
#: bytes of a seed, a salt, a secret-tree key and a seat's entropy
SEED_BYTES = 32
SALT_BYTES = 16

Stream = Literal["open", "secret", "hidden"]

#: the events a ledger follows besides records carrying dice or a commitment
DICE_EVENTS = frozenset({DiceEntropy, DiceOpened})


def _mac(key: bytes, label: bytes, *parts: bytes | int | str) -> bytes:
    """HMAC-SHA256 of a label and parts, each length-prefixed so no two inputs collide."""
    msg = bytearray(label)
    for part in parts:
        if isinstance(part, int):
            raw = part.to_bytes(8, "big", signed=True)
        elif isinstance(part, str):
            raw = part.encode()
        else:
            raw = part
        msg += len(raw).to_bytes(4, "big") + raw
    return hmac.new(key, msg, hashlib.sha256).digest()


def seed_commitment(seed: bytes, salt: bytes) -> str:
    """The salted hash of a seed that a session's commitment publishes."""
    return _mac(salt, b"margin dice seed", seed).hex()


def _leaf(index: int, key: bytes) -> bytes:
    return hashlib.sha256(b"margin dice leaf" + index.to_bytes(4, "big") + key).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"margin dice node" + left + right).digest()


@dataclass(frozen=True)
class SessionKeys:
    """What the GM keeps secret for one session: the seed, its salt, the secret-tree key."""

    seed: bytes
    salt: bytes
    secret: bytes

    @cached_property
    def commitment(self) -> str:
        return seed_commitment(self.seed, self.salt)

    def leaf_key(self, index: int) -> bytes:
        """The key of the session's ``index``-th secret command."""
        return _mac(self.secret, b"margin secret key", index)

    @cached_property
    def _levels(self) -> list[list[bytes]]:
        level = [_leaf(i, self.leaf_key(i)) for i in range(LEAVES)]
        levels = [level]
        while len(level) > 1:
            level = [_node(level[i], level[i + 1]) for i in range(0, len(level), 2)]
            levels.append(level)
        return levels

    @property
    def root(self) -> str:
        return self._levels[-1][0].hex()

    def proof(self, index: int) -> list[str]:
        """The siblings on the path from leaf ``index`` to the root, leaf first."""
        out = []
        for level in self._levels[:-1]:
            out.append(level[index ^ 1].hex())
            index //= 2
        return out

    def to_json(self) -> dict[str, str]:
        return {"seed": self.seed.hex(), "salt": self.salt.hex(), "secret": self.secret.hex()}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> SessionKeys:
        return cls(
            bytes.fromhex(data["seed"]), bytes.fromhex(data["salt"]), bytes.fromhex(data["secret"])
        )


def proves(key: bytes, index: int, proof: list[str], root: str) -> bool:
    """Whether ``key`` is leaf ``index`` of the tree with ``root``."""
    if not 0 <= index < LEAVES or len(proof) != LEAVES.bit_length() - 1:
        return False
    try:
        node = _leaf(index, key)
        for sibling in proof:
            other = bytes.fromhex(sibling)
            node = _node(node, other) if index % 2 == 0 else _node(other, node)
            index //= 2
    except ValueError:
        return False
    return hmac.compare_digest(node.hex(), root)


# -- derivations ----------------------------------------------------------------


def entropy_start(commitment: str) -> bytes:
    """The entropy digest right after a commitment: players have added nothing yet."""
    return hashlib.sha256(b"margin dice entropy" + commitment.encode()).digest()


def entropy_next(digest: bytes, seat: str, entropy: str) -> bytes:
    """The digest once a seat's entropy is published after it (entropy that is not hex, in
    a record changed outside margin, is mixed in as its text: the verifier names it)."""
    seat_bytes = seat.encode()
    try:
        raw = bytes.fromhex(entropy)
    except ValueError:
        raw = entropy.encode()
    return hashlib.sha256(digest + len(seat_bytes).to_bytes(4, "big") + seat_bytes + raw).digest()


def open_key(seed: bytes, entropy: bytes, index: int) -> bytes:
    # the parts have fixed lengths (a 32-byte digest, an 8-byte number): no prefixes needed
    msg = b"margin open dice" + entropy + index.to_bytes(8, "big")
    return hmac.new(seed, msg, hashlib.sha256).digest()


def secret_key(leaf_key: bytes, entropy: bytes) -> bytes:
    return _mac(leaf_key, b"margin secret dice", entropy)


def hidden_key(secret: bytes, entropy: bytes, seq: int) -> bytes:
    return _mac(secret, b"margin hidden dice", entropy, seq)


class Draws:
    """The faces one command key gives, die after die.

    The key's HMAC blocks (``HMAC(key, 0)``, ``HMAC(key, 1)``, ...) are read eight bytes
    at a time as 64-bit numbers; a die of ``sides`` sides takes the next number below
    the largest multiple of ``sides`` under 2**64 (a number past it is thrown away,
    which happens less than once in 2**54 draws of a d1000), so every face is exactly
    as likely. A command's dice are drawn in order from one such stream.
    """

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.block = b""
        self.blocks = 0
        self.at = 32

    def face(self, sides: int) -> int:
        limit = (1 << 64) - (1 << 64) % sides
        while True:
            if self.at == 32:
                count = self.blocks.to_bytes(8, "big")
                self.block = hmac.new(self.key, count, hashlib.sha256).digest()
                self.blocks += 1
                self.at = 0
            value = int.from_bytes(self.block[self.at : self.at + 8], "big")
            self.at += 8
            if value < limit:
                return value % sides + 1


class KeyedDice:
    """Dice drawn from one command's key: the ``Dice`` margin rolls with commitments.

    The key is made (``key()``) only when the first die is drawn, so a command that
    rolls nothing costs nothing. ``drawn`` keeps each die's sides and face in order,
    ``tally`` the dice typed in while deciding the command (``TypedDice`` adds them),
    both for the command's record.
    """

    source = "rng"

    def __init__(self, key: Callable[[], bytes]) -> None:
        self.key = key
        self.draws: Draws | None = None
        self.drawn: list[tuple[int, int]] = []
        self.tally: list[tuple[int, int]] = []

    def roll(self, sides: int, count: int = 1) -> list[int]:
        if self.draws is None:
            self.draws = Draws(self.key())
        out = []
        for _ in range(count):
            got = self.draws.face(sides)
            self.drawn.append((sides, got))
            out.append(got)
        return out


def faces_of(key: bytes, sides: Iterable[int]) -> list[tuple[int, int]]:
    """The dice a command key gives, for dice of these sides in order."""
    draws = Draws(key)
    return [(s, draws.face(s)) for s in sides]


# -- what the log says of a session ------------------------------------------------


@dataclass(slots=True)
class DiceLedger:
    """Where a log's dice stand: the session committed to, the entropy since, counters.

    Fed every record as it happened (undo changes none of it), so a die's key never
    depends on what was undone later.
    """

    commitment: str = ""
    root: str = ""
    entropy: bytes = b""
    #: open commands and secret commands with dice drawn so far this session
    opened: int = 0
    secrets: int = 0
    #: whether players have seen the current commitment
    published: bool = False
    #: the first record of each secret command -> (its session's commitment, leaf)
    leaf_of: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: every commitment seen -> its tree's root
    roots: dict[str, str] = field(default_factory=dict)
    #: the secret command being fed, and its leaf
    current: tuple[str, str, int] = ("", "", 0)
    #: sessions committed and not opened yet, oldest first (one whose secret keys ran
    #: out is followed by another before its end)
    unopened: list[str] = field(default_factory=list)
    #: the seats (the GM, a character's id) whose entropy the current session has, in
    #: order: a seat sitting down again gives none twice
    gave: list[str] = field(default_factory=list)

    def feed(self, record: Record, count: bool = True) -> None:
        """Follow one more record: an opening closes its session, a commitment starts one,
        entropy is mixed in, dice drawn move the session's counters on (unless not
        ``count``: then ``count`` is called once they are read)."""
        event = record.event
        kind = type(event)
        if kind is DiceOpened:
            self._close(event.commitment)
        if record.committed is not None:
            self._committed(record, record.committed)
        if kind is DiceEntropy and self.commitment:
            self.entropy = entropy_next(self.entropy, event.seat, event.entropy)
            if event.seat not in self.gave:
                self.gave.append(event.seat)
        if count:
            self.count(record)

    def _close(self, commitment: str) -> None:
        """A session opened: it is no longer waiting, and no longer the current one."""
        if commitment in self.unopened:
            self.unopened.remove(commitment)
        if commitment == self.commitment:
            self.commitment, self.root, self.published = "", "", False
            self.gave = []

    def _committed(self, record: Record, commitment: Commitment) -> None:
        """A record carrying a commitment: a new session starts, or the current one has
        been published once players at large have seen it (not on a record no player or
        one player sees)."""
        if commitment.commitment != self.commitment:
            self.start(commitment.commitment, commitment.secrets)
        seen = not record.visibility.gm_only and not record.visibility.to
        self.published = self.published or seen

    def count(self, record: Record) -> None:
        """Move the session's counters on past a record's dice (``feed`` does it too)."""
        mark = record.drawn
        if mark is None and self.current[0] and record.command == self.current[0]:
            self.leaf_of[record.seq] = (self.current[1], self.current[2])
        elif mark is not None and self.commitment:
            if mark.stream == "open" and mark.dice:
                self.opened += 1
            elif mark.stream == "secret":
                self.leaf_of[record.seq] = (self.commitment, mark.index)
                self.current = (record.command, self.commitment, mark.index)
                self.secrets += 1

    @property
    def secret_command(self) -> str:
        """The secret command whose records are being fed (its later records share its leaf)."""
        return self.current[0]

    def start(self, commitment: str, root: str) -> None:
        self.commitment, self.root = commitment, root
        self.entropy = entropy_start(commitment)
        self.opened = self.secrets = 0
        self.published = False
        self.gave = []
        self.roots[commitment] = root
        self.unopened.append(commitment)

    def copy(self) -> DiceLedger:
        return DiceLedger(
            self.commitment,
            self.root,
            self.entropy,
            self.opened,
            self.secrets,
            self.published,
            dict(self.leaf_of),
            dict(self.roots),
            self.current,
            list(self.unopened),
            list(self.gave),
        )


# -- deciding a command with committed dice -------------------------------------------


def stream_of(drafts: list[Draft]) -> Stream:
    """Whose dice a command's are: players see all of it, part of it, or none of it (a
    record for one player alone, a ruling on their request, is none of players' at large)."""
    shown = [d for d in drafts if not d.visibility.to]
    if all(d.visibility.gm_only for d in shown):
        return "hidden"
    if all(d.visibility == PUBLIC for d in shown):
        return "open"
    return "secret"


def _path(data: Any, path: str) -> Any:
    for name in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(name)
    return data


_canon = msgspec.json.Encoder(order="sorted")


def sealed_value(record: Record | Draft, mark: Drawn | None) -> bytes:
    """What a secret record's commitment covers: the fields players do not see, and the
    command's dice when the record carries them."""
    body = msgspec.to_builtins(record.event)
    hidden = {name: _path(body, name) for name in record.visibility.hidden}
    dice = [list(d) for d in mark.dice] + [list(d) for d in mark.typed] if mark else []
    return _canon.encode([hidden, dice])


def seal_of(leaf_key: bytes, place: int, value: bytes) -> str:
    """The commitment to the ``place``-th record of a secret command."""
    return _mac(leaf_key, b"margin sealed", place, value).hex()


Decide = Callable[[Any], list[Draft]]


class Keyring:
    """The GM's session keys as a command needs them: the ones behind a commitment
    (``find``, None when this margin does not hold them) and a new session's, made by
    ``make`` only if the command needs them (``made`` then holds them)."""

    def __init__(
        self, find: Callable[[str], SessionKeys | None], make: Callable[[], SessionKeys]
    ) -> None:
        self.find = find
        self.make = make
        self.made: SessionKeys | None = None

    @property
    def fresh(self) -> SessionKeys:
        if self.made is None:
            self.made = self.make()
        return self.made


def committed(
    decide: Decide, ledger: DiceLedger, keyring: Keyring, seq: int, hint: Stream = "open"
) -> list[Draft]:
    """A command decided with committed dice: ``decide(dice)`` gives its drafts.

    ``seq`` is the table's last record; ``hint`` the stream the command most likely
    draws from (a command marked secret: ``secret``). The first draft players see carries the
    command's dice (``Drawn``), and the session's commitment when the table has none
    this margin holds the keys of, or players have not seen it yet; each secret record
    carries its commitment (``sealed``); a reveal the key and path that open the
    revealed record's commitment.
    """
    keys, ledger, commit = _session(ledger, keyring)
    stream, dice, drafts = _decided(decide, hint, lambda s: _stream_key(s, keys, ledger, seq))
    drafts = [_opened(d, ledger, keyring) if type(d.event) is Revealed else d for d in drafts]
    at = _dice_draft(drafts)
    if dice.drawn or dice.tally or stream == "secret":
        return _with_dice(drafts, at, dice, stream, ledger, keys, commit)
    if commit and any(type(d.event) is DiceEntropy for d in drafts):
        # entropy counts only after a commitment, so the seed cannot follow from it
        drafts[at] = _with(drafts[at], committed=commitment_of(keys))
    return drafts


def _dice_draft(drafts: list[Draft]) -> int:
    """Which draft carries a command's dice and commitment: the first record players see,
    if any; else one no player sees (a check the GM rolls in secret for a player, whose
    prompt that player sees, must not tell them whether the session's dice were new)."""
    public = (n for n, d in enumerate(drafts) if not d.visibility.gm_only and not d.visibility.to)
    return next(public, next((n for n, d in enumerate(drafts) if d.visibility.gm_only), 0))


def _with_dice(
    drafts: list[Draft],
    at: int,
    dice: KeyedDice,
    stream: Stream,
    ledger: DiceLedger,
    keys: SessionKeys,
    commit: bool,
) -> list[Draft]:
    """A command's drafts with the dice it drew on the first one players see (``at``), each
    secret record sealed, and the session's commitment where players need it."""
    index = {"open": ledger.opened, "secret": ledger.secrets, "hidden": 0}[stream]
    drafts[at] = _with(drafts[at], drawn=Drawn(stream, index, tuple(dice.drawn), tuple(dice.tally)))
    if stream == "secret":
        drafts = _sealed_secrets(drafts, keys.leaf_key(ledger.secrets))
    # players have not seen the commitment (it came with commands they do not see)
    commit = commit or (stream != "hidden" and not ledger.published)
    if commit and (dice.drawn or stream == "secret"):
        drafts[at] = _with(drafts[at], committed=commitment_of(keys))
    return drafts


def _session(ledger: DiceLedger, keyring: Keyring) -> tuple[SessionKeys, DiceLedger, bool]:
    """The session keys a command draws with, the ledger as of them, and whether the
    command's records carry their commitment: a new session's (its own ledger), when
    this margin does not hold the keys of the table's or every secret key of it is used."""
    keys = keyring.find(ledger.commitment) if ledger.commitment else None
    if ledger.secrets >= LEAVES:
        # every secret key of the session is used: the dice go on in a new session
        keys = None
    if keys is not None:
        return keys, ledger, False
    keys = keyring.fresh
    ledger = ledger.copy()
    ledger.start(keys.commitment, "")
    return keys, ledger, True


def _stream_key(
    stream: Stream, keys: SessionKeys, ledger: DiceLedger, seq: int
) -> Callable[[], bytes]:
    """The key of the dice a command draws from ``stream``, the table's last record ``seq``."""
    if stream == "open":
        return lambda: open_key(keys.seed, ledger.entropy, ledger.opened)
    if stream == "secret":
        return lambda: secret_key(keys.leaf_key(ledger.secrets), ledger.entropy)
    return lambda: hidden_key(keys.secret, ledger.entropy, seq + 1)


def _decided(
    decide: Decide, hint: Stream, key: Callable[[Stream], Callable[[], bytes]]
) -> tuple[Stream, KeyedDice, list[Draft]]:
    """A command decided with the key its records will most likely need (``hint``), and
    again with the right one if they turn out otherwise; the dice are labelled with their
    key's stream."""
    dice = KeyedDice(key(hint))
    drafts = decide(dice)
    found = stream_of(drafts)
    if found == hint:
        return hint, dice, drafts
    dice = KeyedDice(key(found))
    return found, dice, decide(dice)


def _sealed_secrets(drafts: list[Draft], leaf: bytes) -> list[Draft]:
    """Each secret record players see with its commitment, sealed with the session's leaf."""
    return [
        _with(d, sealed=seal_of(leaf, n, sealed_value(d, d.drawn)))
        if d.visibility.hidden and not d.visibility.gm_only
        else d
        for n, d in enumerate(drafts)
    ]


def _with(
    draft: Draft,
    drawn: Drawn | None = None,
    committed: Commitment | None = None,
    sealed: str = "",
) -> Draft:
    """A draft with dice, a commitment or a seal added (quicker than ``dataclasses.replace``,
    which looks the fields up every time)."""
    return Draft(
        draft.event,
        draft.cause,
        draft.visibility,
        author=draft.author,
        drawn=drawn or draft.drawn,
        committed=committed or draft.committed,
        sealed=sealed or draft.sealed,
    )


def commitment_of(keys: SessionKeys) -> Commitment:
    """What a session's commitment publishes of its keys."""
    return Commitment(commitment=keys.commitment, secrets=keys.root, leaves=LEAVES)


def _opened(draft: Draft, ledger: DiceLedger, keyring: Keyring) -> Draft:
    """A reveal with what opens the revealed record's commitment, when it has one."""
    event = draft.event
    assert isinstance(event, Revealed)
    found = ledger.leaf_of.get(event.record)
    if found is None:
        return draft
    keys = keyring.find(found[0])
    if keys is None:
        return draft
    key = keys.leaf_key(found[1])
    opened = msgspec.structs.replace(event, key=key.hex(), proof=keys.proof(found[1]))
    return _with(
        Draft(opened, draft.cause, draft.visibility, author=draft.author),
        draft.drawn,
        draft.committed,
        draft.sealed,
    )


def end_session(ledger: DiceLedger, keyring: Keyring) -> list[Draft]:
    """The drafts of ``end-session``: the seed behind the session's commitment (and behind
    any earlier one not opened yet that this margin holds), then the next session's
    commitment."""
    if not ledger.commitment:
        raise RuleError("end-session: no session is open (its dice have not been committed)")
    if keyring.find(ledger.commitment) is None:
        raise RuleError(
            "end-session: this margin does not hold the keys of the session's commitment "
            "(they are kept in the data folder of the margin that made it)"
        )
    drafts = []
    for commitment in ledger.unopened:
        keys = keyring.find(commitment)
        if keys is not None:
            seed, salt = keys.seed.hex(), keys.salt.hex()
            drafts.append(Draft(DiceOpened(commitment=commitment, seed=seed, salt=salt)))
    drafts[-1] = _with(drafts[-1], committed=commitment_of(keyring.fresh))
    return drafts
