"""A session's recap: a fold over its records into what happened, encounter by encounter.

The records come as dicts, whole for the GM or through the player lens for a
player, so one fold serves both: a reader of the system (``System.recap``)
turns each event into facts (``core.facts``) and this module counts them.
Nothing here decides what a player may see; a character whose joining the
reader did not see is left out of every count and named nowhere.

As corrected (the default), records undone anywhere in the log do not count;
as it happened, they count where they were made, and the undo is noted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any

import msgspec

from . import facts as f
from .luck import Fit, Luck, fit, luck_of
from .systems import get_system

Progress = Callable[[int], None]


@dataclass(slots=True)
class Tally:
    """One character's part in an encounter."""

    name: str
    turns: int = 0
    checks: int = 0
    successes: int = 0
    attacks: int = 0
    hits: int = 0
    dealt: int = 0
    taken: int = 0
    harms: list[str] = field(default_factory=list)
    down: bool = False
    spent: dict[str, int] = field(default_factory=dict)
    notable: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Encounter:
    """An encounter (or the play outside any): who did what, round by round."""

    name: str
    #: the play before, between and after encounters (it has no end of its own)
    outside: bool = False
    first: int = 0
    last: int = 0
    #: how it ended; None while it still runs at the end of the log
    ended: str | None = None
    rounds: int = 0
    tallies: dict[str, Tally] = field(default_factory=dict)
    #: round -> dealer's name -> damage dealt in that round
    damage: dict[int, dict[str, int]] = field(default_factory=dict)
    #: round -> character's name -> checks rolled in that round
    activity: dict[int, dict[str, int]] = field(default_factory=dict)

    def tally(self, name: str) -> Tally:
        found = self.tallies.get(name)
        if found is None:
            found = self.tallies[name] = Tally(name)
        return found


class CheckLine(msgspec.Struct, frozen=True):
    """One check of the luck report (a struct: a long session makes one a check)."""

    record: int
    name: str
    label: str
    chance: Fraction | None
    success: bool
    band: str
    typed: bool
    #: undone later (shown as it happened only)
    undone: bool = False


@dataclass(frozen=True, slots=True)
class BandLuck:
    band: str
    luck: Luck


@dataclass(frozen=True, slots=True)
class CharacterLuck:
    """A character's checks of known chance set against what happened."""

    name: str
    overall: Luck
    #: the same split by where the dice came from: "margin's dice" and "typed dice"
    by_source: tuple[tuple[str, Luck], ...]
    bands: tuple[BandLuck, ...]


@dataclass(frozen=True, slots=True)
class DiceFit:
    """One source of dice (margin's, or one character's typed in) and one kind of die:
    how often each face came up, and how well that fits a fair die."""

    source: str
    sides: int
    counts: tuple[int, ...]
    fit: Fit


@dataclass(slots=True)
class Recap:
    system: str
    title: str = ""
    corrected: bool = True
    records: int = 0
    encounters: list[Encounter] = field(default_factory=list)
    luck: list[CharacterLuck] = field(default_factory=list)
    checks: list[CheckLine] = field(default_factory=list)
    revealed: list[str] = field(default_factory=list)
    #: records undone in the log (as corrected they are left out; as it happened, marked)
    undone: int = 0
    #: each character's status at the end, as the system shows it
    standing: list[tuple[str, list[str]]] = field(default_factory=list)
    #: the fairness of every source of dice, every die counted (undone ones too)
    fairness: list[DiceFit] = field(default_factory=list)


OUTSIDE = "Outside encounters"


@dataclass(slots=True)
class Reading:
    """A log read a record at a time into facts, before undos are settled: on its own, or
    beside the fold that opens the table, so the log is read once."""

    #: what the system's recap reads from each of its events (``System.recap``)
    readers: Mapping[str, f.Reader] = field(default_factory=dict)
    progress: Progress | None = None
    facts: list[tuple[int, int, int, f.Fact]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    encounters: list[Encounter] = field(default_factory=lambda: [Encounter(OUTSIDE, outside=True)])
    voided: set[int] = field(default_factory=set)
    title: str = ""
    #: the last record read
    records: int = 0
    #: where the record being read happened: its encounter (an index) and round
    current: int = 0
    round: int = 0
    #: (source, sides) -> how often each face came up: margin's dice ("") and each
    #: character's typed dice (by id)
    faces: dict[tuple[str, int], list[int]] = field(default_factory=dict)

    def wants(self, tag: str) -> bool:
        """Whether an event of this tag tells the recap anything (beyond its dice)."""
        return tag in self.readers or tag in _TABLE_READERS

    def feed(self, data: Mapping[str, Any]) -> None:
        """Read one record, given as a dict (``record_to_builtins``'s, or the lens's)."""
        self.read(data["seq"], data["event"], data.get("drawn"))

    def read(self, seq: int, event: dict[str, Any], drawn: Mapping[str, Any] | None) -> None:
        """Read one record's event and its dice (``Record.drawn``, as the reader sees it)."""
        self.records = seq
        if drawn is not None:
            self.count_dice(drawn, event)
        reader = self.readers.get(event["type"])
        if reader is not None:
            for fact in reader(event):
                self.place(seq, fact)
        elif event["type"] in _TABLE_READERS:
            _TABLE_READERS[event["type"]](self, seq, event)
        if self.progress is not None and seq % 10_000 == 0:
            self.progress(seq)

    def count_dice(self, drawn: Mapping[str, Any], event: Mapping[str, Any]) -> None:
        """Count the faces a record's dice show."""
        who = event.get("actor") or event.get("character") or "gm"
        for source, dice in (("", drawn.get("dice", ())), (str(who), drawn.get("typed", ()))):
            for sides, face in dice:
                counts = self.faces.get((source, sides))
                if counts is None:
                    counts = self.faces[(source, sides)] = [0] * sides
                if 1 <= face <= sides:
                    counts[face - 1] += 1

    def place(self, seq: int, fact: f.Fact) -> None:
        """Keep a fact with where it happened, following the encounters and rounds it tells of."""
        # facts are final structs: their type says what they are, the quick way
        if type(fact) is f.Turn:
            self.round = fact.round
        elif type(fact) is f.Begins:
            self.encounters.append(Encounter(fact.name or f"Encounter {len(self.encounters)}"))
            self.current, self.round = len(self.encounters) - 1, 0
            self.encounters[self.current].first = seq
        elif type(fact) is f.Round:
            self.round = fact.number
        self.facts.append((seq, self.current, self.round, fact))
        if type(fact) is f.Ends:
            self.current, self.round = 0, 0


def reading(system: str, progress: Progress | None = None) -> Reading:
    """A reading of a log of ``system``'s table, to feed record by record."""
    return Reading(get_system(system).recap, progress)


def _added_read(out: Reading, seq: int, event: Mapping[str, Any]) -> None:
    if "id" in event and "name" in event:
        out.names[event["id"]] = event["name"]


def _undone_read(out: Reading, seq: int, event: Mapping[str, Any]) -> None:
    out.voided.update(event.get("voids", ()))


def _redone_read(out: Reading, seq: int, event: Mapping[str, Any]) -> None:
    out.voided.difference_update(event.get("restores", ()))


def _reveal_read(out: Reading, seq: int, event: Mapping[str, Any]) -> None:
    if "record" in event:
        out.facts.append((seq, out.current, out.round, f.Revealed(event["record"])))


def _created_read(out: Reading, seq: int, event: Mapping[str, Any]) -> None:
    out.title = event.get("title", "")
    if "system" in event:  # a log names its system first: a reading need not be told it
        out.readers = get_system(event["system"]).recap


#: what a recap reads from the table's own events (each system's readers read its own)
_TABLE_READERS: dict[str, Callable[[Reading, int, Mapping[str, Any]], None]] = {
    "character.added": _added_read,
    "table.undone": _undone_read,
    "table.redone": _redone_read,
    "table.revealed": _reveal_read,
    "table.created": _created_read,
}


def read(
    records: Iterable[Mapping[str, Any]], system: str, progress: Progress | None = None
) -> Reading:
    """Read every record's facts, noting where each happened (encounter, round)."""
    out = reading(system, progress)
    for data in records:
        out.feed(data)
    return out


@dataclass(slots=True)
class _Luckbook:
    """One character's checks of known chance, counted as the luck report sums them: how
    many checks had each chance (by where their dice came from), how many were won, and
    how many had each set of band odds and got each band. Checks that share a chance are
    counted, not kept, so a long session's report costs a few sums a character."""

    #: (typed, chance) -> how many checks had it
    chances: dict[tuple[bool, float], int] = field(default_factory=dict)
    #: checks won: with margin's dice, with typed dice
    won: list[int] = field(default_factory=lambda: [0, 0])
    #: id of a set of band odds (in floats, kept alive by ``_Counting.floats``) -> the
    #: odds and how many checks had them, in the order first seen
    odds: dict[int, list[Any]] = field(default_factory=dict)
    #: band -> how many checks got it
    got: dict[str, int] = field(default_factory=dict)

    def count(
        self, chance: float, typed: bool, success: bool, odds: dict[str, float], got: str
    ) -> None:
        key = (typed, chance)
        self.chances[key] = self.chances.get(key, 0) + 1
        self.won[typed] += success
        group = self.odds.get(id(odds))
        if group is None:
            self.odds[id(odds)] = [odds, 1]
        else:
            group[1] += 1
        self.got[got] = self.got.get(got, 0) + 1


@dataclass(slots=True)
class _Counting:
    """What ``summarize`` builds while it reads the facts, record by record."""

    recap: Recap
    names: Mapping[str, str]
    #: attack record -> who made it, so its damage is counted to them
    attackers: dict[int, str] = field(default_factory=dict)
    #: check record -> its line, so a reveal names what it showed
    labels: dict[int, str] = field(default_factory=dict)
    #: each character's checks of known chance, in the order they first rolled one
    books: dict[str, _Luckbook] = field(default_factory=dict)
    #: each distinct set of band odds and each distinct chance (the rules hand out one
    #: object per kind of check), by its id, with what the luck report sums of it in floats
    floats: dict[int, tuple[object, Any]] = field(default_factory=dict)

    def in_floats(self, odds: Mapping[str, Fraction]) -> dict[str, float]:
        """Band odds as the luck report sums them: converted once for every check sharing
        them."""
        found: dict[str, float] = self._converted(
            odds, lambda: {k: float(v) for k, v in odds.items()}
        )
        return found

    def in_float(self, chance: Fraction) -> float:
        """A check's chance as the luck report sums it, converted once for every check
        sharing the same one."""
        found: float = self._converted(chance, lambda: float(chance))
        return found

    def _converted(self, shared: object, convert: Callable[[], Any]) -> Any:
        """``convert()`` of an object many checks share, worked out once: kept by the
        object's id, with the object itself, so an id that a dead object's left behind
        is never taken for it."""
        found = self.floats.get(id(shared))
        if found is None or found[0] is not shared:
            found = self.floats[id(shared)] = (shared, convert())
        return found[1]


def summarize(
    read_: Reading,
    system: str,
    corrected: bool = True,
    standing: list[tuple[str, list[str]]] | None = None,
) -> Recap:
    """Count the facts read: as corrected (undone records left out) or as it happened."""
    recap = Recap(
        system,
        read_.title,
        corrected,
        read_.records,
        read_.encounters,
        undone=len(read_.voided),
        standing=standing or [],
    )
    counting = _Counting(recap, read_.names)
    for seq, where, round_, fact in read_.facts:
        undone = seq in read_.voided
        if undone and corrected:
            continue
        enc = recap.encounters[where]
        enc.last = seq
        enc.rounds = max(enc.rounds, round_)
        _COUNT[type(fact)](counting, seq, enc, round_, fact, undone)
    if not recap.encounters[0].tallies:
        recap.encounters.pop(0)
    recap.luck = [_character_luck(name, book) for name, book in counting.books.items()]
    recap.fairness = _dice_fits(read_)
    return recap


def _dice_fits(read_: Reading) -> list[DiceFit]:
    """How well the faces of each source's dice fit fair dice: margin's, and each
    player's typed ones."""
    return [
        DiceFit(
            f"{read_.names.get(source, source)}'s typed dice" if source else "margin's dice",
            sides,
            tuple(counts),
            fit(counts),
        )
        for (source, sides), counts in sorted(read_.faces.items())
    ]


def _check(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Check, undone: bool
) -> None:
    name = c.names.get(fact.actor)
    if name is None:
        return
    label = _check_label(c, fact)
    t = enc.tally(name)
    t.checks += 1
    t.successes += fact.success
    if fact.attack:
        t.attacks += 1
        t.hits += fact.success
        c.attackers[seq] = name
    c.labels[seq] = f"{name}: {label}"
    per_round = enc.activity.setdefault(round_, {})
    per_round[name] = per_round.get(name, 0) + 1
    line = CheckLine(seq, name, label, fact.chance, fact.success, fact.band, fact.typed, undone)
    c.recap.checks.append(line)
    if fact.chance is not None:
        book = c.books.get(name)
        if book is None:
            book = c.books[name] = _Luckbook()
        odds, got = _banded(fact, fact.chance)
        book.count(c.in_float(fact.chance), fact.typed, fact.success, c.in_floats(odds), got)


def _check_label(c: _Counting, fact: f.Check) -> str:
    """What a check was, as the recap names it: an attack by its target, an opposed check
    by the other side (someone unseen to a reader who may not see them)."""
    other = c.names.get(fact.target) if fact.target else None
    label = fact.label
    if fact.attack:
        return f"attack on {other or 'someone unseen'}" + (f" ({label})" if label else "")
    if fact.target:
        return label + f" against {other or 'someone unseen'}"
    return label


def _banded(fact: f.Check, chance: Fraction) -> tuple[Mapping[str, Fraction], str]:
    """A check of known chance as the bands count it: its bands' odds and the band it got.
    One with no band odds (an opposed roll, an attack) still counts in the bands, as won or
    lost, so they add up to the totals."""
    if fact.bands is not None:
        return fact.bands, fact.band
    won, lost = _UNBANDED["attack" if fact.attack else "opposed" if fact.target else ""]
    return _unbanded_odds(won, lost, chance), won if fact.success else lost


@lru_cache(maxsize=1024)
def _unbanded_odds(won: str, lost: str, chance: Fraction) -> Mapping[str, Fraction]:
    """The odds of a check with no bands of its own, one mapping for all that share them."""
    return MappingProxyType({won: chance, lost: 1 - chance})


#: the bands of a check whose rules give no bands: by kind of check, (won, lost)
_UNBANDED = {
    "attack": ("attack hit", "attack missed"),
    "opposed": ("won opposed", "lost opposed"),
    "": ("succeeded", "failed"),
}
_UNBANDED_NAMES = {band for pair in _UNBANDED.values() for band in pair}


def _damage(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Damage, undone: bool
) -> None:
    target = c.names.get(fact.target)
    if target is not None:
        enc.tally(target).taken += fact.amount
    dealer = c.names.get(fact.by) if fact.by else c.attackers.get(fact.attack)
    if dealer is not None:
        enc.tally(dealer).dealt += fact.amount
        per_round = enc.damage.setdefault(round_, {})
        per_round[dealer] = per_round.get(dealer, 0) + fact.amount


def _harm(c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Harm, undone: bool) -> None:
    name = c.names.get(fact.character)
    if name is not None:
        t = enc.tally(name)
        t.harms.append(fact.text)
        t.down = t.down or fact.down


def _spent(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Spent, undone: bool
) -> None:
    name = c.names.get(fact.character)
    if name is not None:
        spent = enc.tally(name).spent
        spent[fact.resource] = spent.get(fact.resource, 0) + fact.amount


def _notable(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Notable, undone: bool
) -> None:
    name = c.names.get(fact.character)
    if name is not None:
        enc.tally(name).notable.append(fact.text + (" (undone)" if undone else ""))


def _turn(c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Turn, undone: bool) -> None:
    name = c.names.get(fact.character)
    if name is not None:
        enc.tally(name).turns += 1


def _ends(c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Ends, undone: bool) -> None:
    enc.ended = fact.how


def _revealed(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Revealed, undone: bool
) -> None:
    c.recap.revealed.append(c.labels.get(fact.record, f"record {fact.record}"))


def _nothing(
    c: _Counting, seq: int, enc: Encounter, round_: int, fact: f.Fact, undone: bool
) -> None:
    """A fact read while the encounters are found (a round, a beginning) counts for nothing here."""


#: what each kind of fact adds to the recap
_COUNT: dict[type, Callable[..., None]] = {
    f.Check: _check,
    f.Damage: _damage,
    f.Harm: _harm,
    f.Spent: _spent,
    f.Notable: _notable,
    f.Turn: _turn,
    f.Ends: _ends,
    f.Revealed: _revealed,
    f.Round: _nothing,
    f.Begins: _nothing,
}


def _character_luck(name: str, book: _Luckbook) -> CharacterLuck:
    overall: dict[float, int] = {}
    sources = []
    for source, typed in (("margin's dice", False), ("typed dice", True)):
        subset = {p: n for (t, p), n in book.chances.items() if t is typed}
        if subset:
            sources.append((source, luck_of(subset, book.won[typed])))
        for p, n in subset.items():
            overall[p] = overall.get(p, 0) + n
    return CharacterLuck(name, luck_of(overall, sum(book.won)), tuple(sources), _band_luck(book))


def _band_luck(book: _Luckbook) -> tuple[BandLuck, ...]:
    """The luck in each band of a character's checks (each its bands' odds and the band it
    got), in the order the bands first came; none where the rules gave no bands: won or lost
    alone says no more than the totals."""
    groups = list(book.odds.values())
    if not any(odds.keys() - _UNBANDED_NAMES for odds, _ in groups):
        return ()
    bands = []
    for band in dict.fromkeys(band for odds, _ in groups for band in odds):
        chances: dict[float, int] = {}
        for odds, n in groups:
            p = odds.get(band, 0.0)
            chances[p] = chances.get(p, 0) + n
        bands.append(BandLuck(band, luck_of(chances, book.got.get(band, 0))))
    return tuple(bands)


def recap(
    records: Iterable[Mapping[str, Any]],
    system: str,
    corrected: bool = True,
    standing: list[tuple[str, list[str]]] | None = None,
    progress: Progress | None = None,
) -> Recap:
    """The recap of a log given as record dicts (whole, or through a player's lens)."""
    return summarize(read(records, system, progress), system, corrected, standing)
