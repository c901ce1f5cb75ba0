"""Checking a log's dice: every die margin drew recomputed, every revealed secret opened.

``check_dice`` reads the records in order, as ``DiceLedger`` follows them when a
command is decided, and needs nothing but the log: the seeds come from the sessions'
openings, the secret keys from the reveals. What it cannot check yet (a session not
opened, a secret not revealed) it counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from margin.events import DiceEntropy, DiceOpened, Drawn, Record, Revealed

from .authority import GM, author_seat
from .fairness import (
    DiceLedger,
    faces_of,
    open_key,
    proves,
    seal_of,
    sealed_value,
    secret_key,
    seed_commitment,
)
from .lens import about
from .state import character_id

#: a seat's entropy as margin writes it
_HEX64 = re.compile("[0-9a-f]{64}")


@dataclass(slots=True)
class Tally:
    """One character's dice: drawn by margin (and how many of them were checked), typed
    in, secret rolls still closed, and rolls from before dice were committed."""

    drawn: int = 0
    checked: int = 0
    typed: int = 0
    closed: int = 0
    uncommitted: int = 0


@dataclass(slots=True)
class _Open:
    seq: int
    actor: str
    entropy: bytes
    mark: Drawn


@dataclass(slots=True)
class _Secret:
    commitment: str
    actor: str
    entropy: bytes
    mark: Drawn
    records: list[Record] = field(default_factory=list)
    opened: bool = False


@dataclass(slots=True)
class DiceReport:
    """What ``check_dice`` found: the problems, each naming its record, and the tallies."""

    problems: list[str] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    sessions: int = 0
    opened: int = 0

    @property
    def committed(self) -> bool:
        return self.sessions > 0

    def tally(self, actor: str) -> Tally:
        found = self.tallies.get(actor)
        if found is None:
            found = self.tallies[actor] = Tally()
        return found


def actor_of(record: Record) -> str:
    """Whose dice a record's are: the first character it is about, else the GM's."""
    event = record.event
    name = getattr(event, "actor", None) or getattr(event, "character", None)
    if isinstance(name, str) and name:
        return name
    ids = sorted(about(event))
    return ids[0] if ids else "gm"


def _differs(mark: Drawn, got: list[tuple[int, int]]) -> str:
    """The first die that differs, worded, or ""."""
    for n, ((sides, want), (_, have)) in enumerate(zip(mark.dice, got, strict=True), 1):
        if want != have:
            return f"die {n} (a d{sides}) is {want}, the committed dice give {have}"
    return ""


class _Checker:
    def __init__(self) -> None:
        self.report = DiceReport()
        self.ledger = DiceLedger()
        self.commits: dict[str, int] = {}
        self.pending: dict[str, list[_Open]] = {}
        self.secrets: dict[int, _Secret] = {}
        self.of_command: dict[str, _Secret] = {}
        self.by_seq: dict[int, _Secret] = {}
        self.command = ""
        self.marked = False

    def problem(self, seq: int, text: str) -> None:
        self.report.problems.append(f"record {seq}: {text}")

    def feed(self, record: Record) -> None:
        if record.command != self.command:
            self.command, self.marked = record.command, record.drawn is not None
        self._with_secret(record)
        event = record.event
        kind = type(event)
        commitment = record.committed
        if commitment is not None and commitment.commitment not in self.commits:
            self.commits[commitment.commitment] = record.seq
            self.report.sessions += 1
        if kind is DiceOpened:
            self.open(record.seq, event)
        elif kind is DiceEntropy:
            self.entropy(record, event)
        self.ledger.feed(record, count=False)
        if record.drawn is not None:
            self.drawn(record, record.drawn)
        elif not self.marked:
            self._unmarked(record)
        self.ledger.count(record)
        if kind is Revealed:
            self.reveal(record.seq, event)

    def _with_secret(self, record: Record) -> None:
        """A record of a command whose dice are secret goes with that command's secret."""
        secret = self.of_command.get(record.command)
        if (
            secret is not None
            and record.command == self.command
            and secret.records[0] is not record
        ):
            secret.records.append(record)
            self.by_seq[record.seq] = secret

    def _unmarked(self, record: Record) -> None:
        """A roll of a command that carries no dice: typed dice, or dice never committed."""
        source = getattr(record.event, "source", None)
        if source not in ("rng", "typed"):
            return
        tally = self.report.tally(actor_of(record))
        if source == "typed":
            tally.typed += 1
        else:
            tally.uncommitted += 1

    def drawn(self, record: Record, mark: Drawn) -> None:
        seq, ledger = record.seq, self.ledger
        actor = actor_of(record)
        tally = self.report.tally(actor)
        tally.typed += len(mark.typed)
        tally.drawn += len(mark.dice)
        if not ledger.commitment:
            if mark.dice or mark.stream == "secret":
                self.problem(seq, "its dice were drawn when no session's dice were committed")
            return
        if mark.stream == "open" and mark.dice:
            self._drawn_open(seq, actor, mark)
        elif mark.stream == "secret":
            self._drawn_secret(record, actor, mark)
        elif mark.stream == "hidden":
            # drawn from a key never published: they stay closed, revealed or not
            tally.closed += 1

    def _drawn_open(self, seq: int, actor: str, mark: Drawn) -> None:
        """Dice drawn as the session's next open roll, checked once the session opens."""
        ledger = self.ledger
        if mark.index != ledger.opened:
            self.problem(
                seq,
                f"its dice are drawn as the session's open roll {mark.index} but it is "
                f"roll {ledger.opened} (a record moved, added or taken out?)",
            )
            return
        opened = _Open(seq, actor, ledger.entropy, mark)
        self.pending.setdefault(ledger.commitment, []).append(opened)

    def _drawn_secret(self, record: Record, actor: str, mark: Drawn) -> None:
        """Dice drawn as the session's next secret, checked once the GM reveals it."""
        ledger = self.ledger
        if mark.index != ledger.secrets:
            self.problem(
                record.seq,
                f"its dice are drawn as the session's secret {mark.index} but it is "
                f"secret {ledger.secrets} (a record moved, added or taken out?)",
            )
            return
        secret = _Secret(ledger.commitment, actor, ledger.entropy, mark, [record])
        self.secrets[record.seq] = secret
        self.of_command = {record.command: secret}
        self.by_seq[record.seq] = secret

    def entropy(self, record: Record, event: DiceEntropy) -> None:
        """A seat's entropy: 32 bytes in hex, written by the seat it names (a player's by
        their own seat, the GM's by the GM's)."""
        if not _HEX64.fullmatch(event.entropy):
            self.problem(record.seq, "its entropy is not 32 bytes in hex")
        by = author_seat(record.author) or GM
        if character_id(event.seat) != by:
            writer = "the GM's seat" if by == GM else f"{by}'s seat"
            self.problem(record.seq, f"it gives entropy as {event.seat}'s but {writer} wrote it")

    def open(self, seq: int, event: DiceOpened) -> None:
        made = self.commits.get(event.commitment)
        if made is None:
            self.problem(seq, "it opens a session whose dice the log never committed")
            return
        try:
            matches = seed_commitment(bytes.fromhex(event.seed), bytes.fromhex(event.salt))
        except ValueError:
            matches = ""
        if matches != event.commitment:
            self.problem(seq, f"the seed it opens does not match the commitment of record {made}")
            return
        self.report.opened += 1
        seed = bytes.fromhex(event.seed)
        for drawn in self.pending.pop(event.commitment, []):
            mark = drawn.mark
            got = faces_of(open_key(seed, drawn.entropy, mark.index), (s for s, _ in mark.dice))
            wrong = _differs(mark, got)
            if wrong:
                self.problem(drawn.seq, wrong)
            else:
                self.report.tally(drawn.actor).checked += len(mark.dice)

    def reveal(self, seq: int, event: Revealed) -> None:
        target = event.record
        secret = self.by_seq.get(target)
        if secret is None:
            return
        if not event.key:
            self.problem(seq, f"it reveals record {target} without the key to its commitment")
            return
        key = self._proven_key(seq, event, secret)
        if key is None:
            return
        mark = secret.mark
        first = secret.records[0]
        if not _seals_hold(secret.records, target, key):
            self.problem(target, "what it reveals does not match its commitment")
            return
        got = faces_of(secret_key(key, secret.entropy), (s for s, _ in mark.dice))
        wrong = _differs(mark, got)
        if wrong:
            self.problem(first.seq, wrong)
            return
        if not secret.opened:
            secret.opened = True
            self.report.tally(secret.actor).checked += len(mark.dice)

    def _proven_key(self, seq: int, event: Revealed, secret: _Secret) -> bytes | None:
        """The key a reveal gives, when it is the secret key the session committed to; None
        (a problem of the reveal's record ``seq``) when it is not."""
        mark = secret.mark
        try:
            key = bytes.fromhex(event.key)
        except ValueError:
            key = b""
        if proves(key, mark.index, event.proof, self.ledger.roots.get(secret.commitment, "")):
            return key
        made = self.commits.get(secret.commitment, 0)
        self.problem(
            seq,
            f"the key it gives is not secret key {mark.index} of the session committed "
            f"in record {made}",
        )
        return None

    def finish(self) -> DiceReport:
        for secret in self.secrets.values():
            if not secret.opened:
                self.report.tally(secret.actor).closed += 1
        return self.report


def check_dice(records: Iterable[Record]) -> DiceReport:
    """Recompute every die margin drew in a log and open every revealed secret."""
    checker = _Checker()
    for record in records:
        checker.feed(record)
    return checker.finish()


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def report_lines(report: DiceReport) -> list[str]:
    """The dice check as ``margin verify --dice`` says it: sessions, then one line a character."""
    if not report.committed:
        lines = ["dice not committed (written by a margin before committed dice)"]
    else:
        still = report.sessions - report.opened
        lines = [
            f"dice: {_count(report.sessions, 'session')} committed, {report.opened} opened"
            + (f" ({still} still to be opened by end-session)" if still else "")
            + ("; every die checked agrees" if not report.problems else "")
        ]
    for actor in sorted(report.tallies):
        parts = _tally_parts(report.tallies[actor])
        if parts:
            lines.append(f"  {actor}: " + "; ".join(parts))
    return lines


def _tally_parts(t: Tally) -> list[str]:
    """What one character's dice came to, as ``report_lines`` says it."""
    parts = []
    if t.drawn:
        parts.append(f"{_count(t.drawn, 'die', 'dice')} drawn, {t.checked} checked")
    if t.typed:
        parts.append(f"{t.typed} typed")
    if t.closed:
        parts.append(f"{_count(t.closed, 'secret')} still closed")
    if t.uncommitted:
        parts.append(f"{_count(t.uncommitted, 'roll')} drawn before dice were committed")
    return parts


def _seals_hold(records: list[Record], target: int, key: bytes) -> bool:
    """Whether the seals of a secret's record ``target`` open with the secret key ``key``."""
    return all(
        seal_of(key, place, sealed_value(record, record.drawn)) == record.sealed
        for place, record in enumerate(records)
        if record.seq == target and record.sealed
    )
