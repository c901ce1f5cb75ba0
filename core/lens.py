"""The player lens: what players may see of the log and of the state, for every system.

This is the one place that decides, by one policy (``core.policy``: ``judge`` for
a record, ``seal`` as records are written). It fails closed: an unseen record
leaves no trace: players number the records they see 1, 2, 3..., a record that
only reports on unseen records (an undo of a GM-only roll) is unseen too, and
numbers of unseen records are cut from what they see.

The stored visibility says what players get, so a player's index of a long
table is read without decoding it; ``PlayerLens`` reads the same policy again,
so tables written by earlier versions are read by the same rules. The state
players see (``player_state``) is built from the GM's state by the same
knowledge of who is hidden, with the system's own ``player_world`` for its
table-wide state; a system without one shows players no world at all.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from typing import Any

import msgspec

from margin.events import (
    PUBLIC,
    AnyEvent,
    CharacterAdded,
    CharacterUpdated,
    Event,
    Noted,
    PlayerForm,
    Record,
    Revealed,
    Rolled,
    record_to_builtins,
)

from .clock import player_fight
from .columns import Blob, Column
from .health import for_players
from .history import History
from .policy import (
    SHOWN,
    UNSEEN,
    Verdict,
    about,
    hidden_around,
    hidden_ids,
    judge,
    mask_field,
    named_ids,
    seal,
    seq_list,
    track_hidden,
)
from .state import Character, LastRoll, Prompt, Request, TableState, Time

__all__ = [
    "UNSEEN",
    "LensIndex",
    "PlayerLens",
    "Verdict",
    "about",
    "judge",
    "player_state",
    "seal",
]


#: a free roll players saw: its record, who rolled, the dice, the total, and whether it
#: was secret to them
Roll = tuple[int, str, str, int, bool]

#: whether players see the GM's record of that number without its numbers
Kept = Callable[[int], bool]


class Words:
    """A few strings said again and again (who rolled, which dice), each kept once and
    named by its place."""

    __slots__ = ("_places", "words")

    def __init__(self, words: list[str] | None = None) -> None:
        self.words: list[str] = words or []
        self._places = {w: i for i, w in enumerate(self.words)}

    def place(self, word: str) -> int:
        found = self._places.get(word)
        if found is None:
            found = self._places[word] = len(self.words)
            self.words.append(word)
        return found


class Rolls:
    """The free rolls players saw, in log order, a column of machine integers each (a
    long table's hundreds of thousands of rolls cost bytes, not objects)."""

    __slots__ = ("_actors", "_dice", "_secret", "_seqs", "_totals", "names")

    def __init__(self, index: RollsIndex | None = None, mapped: bool = False) -> None:
        self.names = Words(index.names if index is not None else None)
        if index is None:
            index = _NO_ROLLS
        self._seqs, self._totals = (
            Column("q", index.seqs, mapped),
            Column("q", index.totals, mapped),
        )
        self._actors = Column("l", index.actors, mapped)
        self._dice = Column("l", index.dice, mapped)
        self._secret = Column("b", index.secret, mapped)

    def append(self, roll: Roll) -> None:
        seq, actor, dice, total, secret = roll
        self._seqs.append(seq)
        self._totals.append(total)
        self._actors.append(self.names.place(actor))
        self._dice.append(self.names.place(dice))
        self._secret.append(secret)

    def __len__(self) -> int:
        return len(self._seqs)

    def __getitem__(self, i: int) -> Roll:
        words = self.names.words
        return (
            self._seqs[i],
            words[self._actors[i]],
            words[self._dice[i]],
            self._totals[i],
            bool(self._secret[i]),
        )

    def upto(self, seq: int) -> int:
        """How many of the rolls are at or before record ``seq``."""
        return self._seqs.bisect_right(seq)

    def seq(self, i: int) -> int:
        return self._seqs[i]

    def index_data(self) -> RollsIndex:
        return RollsIndex(
            self._seqs.data(),
            self._totals.data(),
            self._actors.data(),
            self._dice.data(),
            self._secret.data(),
            self.names.words,
        )


class RollsIndex(msgspec.Struct, array_like=True):
    """``Rolls`` as a snapshot keeps it: its columns' bytes and the strings they name."""

    seqs: memoryview
    totals: memoryview
    actors: memoryview
    dice: memoryview
    secret: memoryview
    names: list[str]


_NONE = memoryview(b"")
_NO_ROLLS = RollsIndex(_NONE, _NONE, _NONE, _NONE, _NONE, [])

#: what players get of a shown record with fields cut or masked: its verdict and the ids
#: masked
Masking = tuple[Verdict, frozenset[str]]


class Verdicts:
    """Shown records with fields cut or masked, by the GM's number: a column of record
    numbers and one of which of the few distinct maskings each has."""

    __slots__ = ("_kinds", "_places", "_seqs", "_which")

    def __init__(self, index: VerdictsIndex | None = None, mapped: bool = False) -> None:
        self._seqs = Column("q", index.seqs if index is not None else b"", mapped)
        self._which = Column("l", index.which if index is not None else b"", mapped)
        self._kinds: list[Masking] = index.kinds if index is not None else []
        self._places = {k: i for i, k in enumerate(self._kinds)}

    def __setitem__(self, seq: int, masking: Masking) -> None:
        # records are indexed in log order, so the column stays sorted
        place = self._places.get(masking)
        if place is None:
            place = self._places[masking] = len(self._kinds)
            self._kinds.append(masking)
        self._seqs.append(seq)
        self._which.append(place)

    def get(self, seq: int) -> Masking | None:
        i = self._seqs.find(seq)
        return self._kinds[self._which[i]] if i >= 0 else None

    def index_data(self) -> VerdictsIndex:
        return VerdictsIndex(self._seqs.data(), self._which.data(), self._kinds)


class VerdictsIndex(msgspec.Struct, array_like=True):
    """``Verdicts`` as a snapshot keeps them."""

    seqs: memoryview
    which: memoryview
    kinds: list[Masking]


class Unseen:
    """Records players do not see, for a reveal to show: their events encoded end to end
    (each decoded when a reveal asks for it), by the GM's number."""

    __slots__ = ("_ends", "_events", "_seqs")

    def __init__(self, index: UnseenIndex | None = None, mapped: bool = False) -> None:
        self._seqs = Column("q", index.seqs if index is not None else b"", mapped)
        self._ends = Column("q", index.ends if index is not None else b"", mapped)
        self._events = Blob(index.events if index is not None else b"", mapped)

    def __setitem__(self, seq: int, event: Event) -> None:
        # records are indexed in log order, so the column stays sorted
        self._events += _event_encoder.encode(event)
        self._seqs.append(seq)
        self._ends.append(len(self._events))

    def get(self, seq: int) -> Event | None:
        i = self._seqs.find(seq)
        if i < 0:
            return None
        start = self._ends[i - 1] if i else 0
        event: Event = _event_decoder.decode(self._events.read(start, self._ends[i]))
        return event

    def __getitem__(self, seq: int) -> Event:
        event = self.get(seq)
        if event is None:
            raise KeyError(seq)
        return event

    def index_data(self) -> UnseenIndex:
        return UnseenIndex(self._seqs.data(), self._ends.data(), self._events.data())


class UnseenIndex(msgspec.Struct, array_like=True):
    """``Unseen`` as a snapshot keeps it."""

    seqs: memoryview
    ends: memoryview
    events: memoryview


_event_encoder = msgspec.msgpack.Encoder()
_event_decoder: msgspec.msgpack.Decoder[Any] = msgspec.msgpack.Decoder(AnyEvent)


class Numbers(Mapping[int, int]):
    """The GM's record number -> the players', read from the ordered list of the records
    players see (an array of machine integers, not a dictionary of a million entries)."""

    __slots__ = ("seqs",)

    def __init__(self, seqs: Column) -> None:
        self.seqs = seqs

    def __getitem__(self, seq: int) -> int:
        i = self.seqs.find(seq)
        if i < 0:
            raise KeyError(seq)
        return i + 1

    def __contains__(self, seq: object) -> bool:
        return isinstance(seq, int) and self.seqs.find(seq) >= 0

    def __len__(self) -> int:
        return len(self.seqs)

    def __iter__(self) -> Iterator[int]:
        return iter(self.seqs)


def serves(history: History, reader: str | None, seq: int) -> bool:
    """Whether the players' index of a snapshot at record ``seq`` (a reader none is
    addressed to) is ``reader``'s too: no record up to there is addressed to them."""
    return reader is None or not any(
        to == reader and n <= seq for n, to in history.addressed.items()
    )


class LensIndex(msgspec.Struct, array_like=True):
    """A players' index of the log up to the GM's record ``seq``, as a snapshot keeps it."""

    seq: int
    hidden: set[str]
    hidden_ever: set[str]
    #: the GM's numbers of the records players see (``array("q")`` bytes)
    seqs: memoryview
    #: players' numbers of their notes (``array("q")`` bytes)
    notes: memoryview
    #: the GM's numbers of shown records whose numbers players do not see (``array("q")``)
    secrets: memoryview
    rolls: RollsIndex
    verdicts: VerdictsIndex
    unseen: UnseenIndex
    #: a reveal's record -> the record it shows and who was hidden when it was made
    shows: dict[int, tuple[int, frozenset[str]]]
    names: dict[str, str]


class PlayerLens:
    """Reads a log in order as the players see it.

    ``index(record)`` follows the log (who is hidden, what players saw) and
    tells whether players see the record; ``form(record)`` is the players'
    form of an indexed record (a dict like ``record_to_builtins`` gives,
    numbered in the players' log); ``read`` does both. ``revealed``: the
    records the GM has revealed, as of when the log is read. ``reader``: the
    player's character who reads, who alone sees the records addressed to them
    (None: a reader none is addressed to).
    """

    def __init__(self, revealed: Container[int] = (), reader: str | None = None) -> None:
        self.revealed = revealed
        self.reader = reader
        self.hidden: set[str] = set()
        #: characters hidden at some point and not shown since (removed ones too)
        self.hidden_ever: set[str] = set()
        #: the GM's numbers of the records players see, in order
        self.seqs = Column("q")
        #: the GM's record number -> the players'
        self.numbers = Numbers(self.seqs)
        #: the last record indexed
        self.last = 0
        #: players' numbers of their notes (a count the state shows)
        self.notes = Column("q")
        #: the GM's numbers of shown records that keep their numbers from players (a
        #: secret check's dice and total), in order; ``kept`` reads them
        self.secrets = Column("q")
        #: free rolls players saw (the state's last roll is the last of these)
        self.rolls = Rolls()
        #: shown records with fields cut or masked: their verdict and the ids masked
        self._verdicts = Verdicts()
        #: records players do not see, for a reveal to show
        self._unseen = Unseen()
        #: a reveal's record -> the record it shows and who was hidden when it was made
        self._shows: dict[int, tuple[int, frozenset[str]]] = {}
        #: every character's name by id, so a revealed record can say who it was about
        self._names: dict[str, str] = {}

    def index_data(self) -> LensIndex:
        """What this index knows, for a snapshot (``from_index`` reads it back)."""
        return LensIndex(
            seq=self.last,
            hidden=self.hidden,
            hidden_ever=self.hidden_ever,
            seqs=self.seqs.data(),
            notes=self.notes.data(),
            secrets=self.secrets.data(),
            rolls=self.rolls.index_data(),
            verdicts=self._verdicts.index_data(),
            unseen=self._unseen.index_data(),
            shows=self._shows,
            names=self._names,
        )

    @classmethod
    def from_index(
        cls,
        index: LensIndex,
        revealed: Container[int] = (),
        reader: str | None = None,
        mapped: bool = False,
    ) -> PlayerLens:
        """The lens as it stood after the GM's record ``index.seq``, ready to read on.

        A snapshot keeps the index of a reader none is addressed to; it serves ``reader``
        only while no record up to ``index.seq`` is addressed to them (``serves``).
        ``mapped``: the snapshot's bytes are a mapped file's, which the columns stand on
        rather than copy (``core.columns``)."""
        lens = cls(revealed, reader)
        lens.last = index.seq
        lens.hidden, lens.hidden_ever = index.hidden, index.hidden_ever
        lens.seqs = Column("q", index.seqs, mapped)
        lens.numbers = Numbers(lens.seqs)
        lens.notes = Column("q", index.notes, mapped)
        lens.secrets = Column("q", index.secrets, mapped)
        lens.rolls = Rolls(index.rolls, mapped)
        lens._verdicts = Verdicts(index.verdicts, mapped)
        lens._unseen = Unseen(index.unseen, mapped)
        lens._shows, lens._names = index.shows, index.names
        return lens

    def number(self, seq: int) -> int | None:
        """A record's number in the players' log, None for one they do not see."""
        return self.numbers.get(seq)

    def upto(self, seq: int) -> int:
        """How many records players see up to the GM's record ``seq``."""
        return self.seqs.bisect_right(seq)

    def feed(self, records: Iterable[Record]) -> list[int]:
        """Index records; the GM's numbers of those players see."""
        return [r.seq for r in records if self.index(r)]

    def read(self, record: Record) -> dict[str, Any] | None:
        return self.form(record) if self.index(record) else None

    def index(self, record: Record) -> bool:
        """Follow one more record of the log; True if players see it."""
        event = record.event
        self.last = record.seq
        around = hidden_around(event, self.hidden)
        verdict = judge(
            event, record.visibility, around, self._via_unseen(record.cause), self.reader
        )
        track_hidden(event, self.hidden)
        self._follow_names(event)
        shown = verdict.shown and self._follows(type(event), event)
        if type(event) is Revealed and not shown:
            shown = self._reveal(record)
        if not shown:
            self._unseen[record.seq] = event
            return False
        if verdict is not SHOWN:
            self._keep_verdict(record, verdict, around)
        self._number(record)
        return True

    def _keep_verdict(self, record: Record, verdict: Verdict, around: set[str]) -> None:
        """Keep what players get of a record they see less some of it: the verdict, the
        hidden characters it masks (``around``: who was hidden then) and whether it is
        a secret whose numbers they do not see."""
        event, stored = record.event, record.visibility.hidden
        masked = frozenset(
            i
            for name in verdict.unseen
            for i in named_ids(getattr(event, name))
            if i in around or name in stored
        )
        self._verdicts[record.seq] = (verdict, masked)
        if _keeps_numbers(type(event).PLAYER, verdict):
            self.secrets.append(record.seq)

    def kept(self, seq: int) -> bool:
        """Whether players see the GM's record ``seq`` without its numbers (a secret check
        the GM has not revealed): what it left in the state tells them none either."""
        return self.secrets.holds(seq) and seq not in self.revealed

    def _via_unseen(self, cause: int | None) -> bool:
        """Whether a record's cause was shown with a character masked as unseen."""
        found = self._verdicts.get(cause) if cause is not None else None
        return found is not None and bool(found[0].unseen)

    def _follow_names(self, event: Event) -> None:
        """Who is called what, and who has been hidden and not shown since."""
        if isinstance(event, CharacterAdded):
            self._names[event.id] = event.name
        if isinstance(event, CharacterAdded | CharacterUpdated) and event.hidden is not None:
            (self.hidden_ever.add if event.hidden else self.hidden_ever.discard)(event.id)

    def _number(self, record: Record) -> None:
        """Give a record players see the next number of their log."""
        self.seqs.append(record.seq)
        number = len(self.seqs)
        if type(record.event) is Noted:
            self.notes.append(number)
        elif type(record.event) is Rolled:
            e = record.event
            self.rolls.append(
                (record.seq, e.actor, e.dice, e.total, e.secret or bool(record.visibility.hidden))
            )

    def form(self, record: Record) -> dict[str, Any]:
        """The players' form of a record ``index`` showed them."""
        data = record_to_builtins(record)
        data.pop("visibility", None)
        found = self._verdicts.get(record.seq)
        drawn = data.get("drawn")
        if drawn is not None and not self._drawn_shown(record, drawn, found is None):
            # which secret key the dice come from, never the dice
            data["drawn"] = {k: drawn[k] for k in ("stream", "index") if k in drawn}
        if found is not None and self._lensed(record, data["event"], *found):
            data["secret"] = True
        shows = self._shows.get(record.seq)
        if shows is not None:
            self._show(data["event"], *shows)
        self._name_shown_or_hidden(record.event, data["event"])
        self._renumber(type(record.event), data)
        return data

    def _name_shown_or_hidden(self, event: Event, body: dict[str, Any]) -> None:
        """A character shown to players, or hidden from them, is news players read by name,
        even once the character is out of their sight again (then no state names them)."""
        if type(event) is CharacterUpdated and event.hidden is not None:
            name = self._names.get(event.id)
            if name is not None and body.get("id") == event.id:
                body["names"] = {event.id: name}

    def _drawn_shown(self, record: Record, drawn: dict[str, Any], whole: bool) -> bool:
        """Whether players see a record's dice as drawn: a record revealed, or a public one
        shown ``whole`` whose dice come from the open stream."""
        if record.seq in self.revealed:
            return True
        return whole and record.visibility == PUBLIC and drawn["stream"] == "open"

    def _lensed(
        self, record: Record, body: dict[str, Any], verdict: Verdict, masked: frozenset[str]
    ) -> bool:
        """Mask and cut a record's event (``body``) as its verdict says; whether that keeps a
        secret from players (fields players never see make no record a secret)."""
        form = type(record.event).PLAYER
        private = form.private if form is not None else ()
        cut = list(verdict.cut)
        if form is not None and record.seq in self.revealed:
            cut = _cut_after_reveal(form, verdict, cut)
        for name in verdict.unseen:
            body[name] = mask_field(body.get(name), masked)
        for name in cut:
            _cut(body, name.split("."))
        return bool(verdict.unseen) or any(c not in private for c in cut)

    def _show(self, body: dict[str, Any], seq: int, hidden: frozenset[str]) -> None:
        """A reveal's event shows the event of the record ``seq`` it reveals, and the names
        of the characters that names. A character hidden when the reveal was made stays
        unseen in it, as in any record players see: the reveal shows what was done (a
        hidden spy's dice), never who did it."""
        body.pop("record", None)
        shown = _unseen_masked(self._unseen_event(seq), hidden)
        body["shown"] = shown
        named = {i: self._names[i] for i in _strings(shown) if i in self._names}
        if named:
            body["names"] = named

    def _unseen_event(self, seq: int) -> Event:
        return self._unseen[seq]

    def _follows(self, kind: type[Event], event: Event) -> bool:
        form = kind.PLAYER
        if form is None or not form.follows:
            return True
        return any(s in self.numbers for n in form.follows for s in seq_list(getattr(event, n)))

    def _reveal(self, record: Record) -> bool:
        """A reveal of a record players never saw shows them that record's event."""
        target = record.event.record
        event = self._unseen.get(target)
        if event is None or type(event).PLAYER is None:
            return False
        self._shows[record.seq] = (target, frozenset(self.hidden | self.hidden_ever))
        return True

    def _renumber(self, kind: type[Event], data: dict[str, Any]) -> None:
        data["seq"] = self.numbers[data["seq"]]
        cause = data.pop("cause", None)
        if cause is not None and cause in self.numbers:
            data["cause"] = self.numbers[cause]
        self._renumber_event(kind, data["event"])

    def _renumber_event(self, kind: type[Event], body: dict[str, Any]) -> None:
        """An event's record numbers as players number records; a number of a record they
        did not see is left out."""
        numbers = self.numbers
        for name in kind.RECORD_FIELDS:
            value = body.get(name)
            if isinstance(value, list):
                body[name] = [numbers[n] for n in value if n in numbers]
            elif isinstance(value, int) and value in numbers:
                body[name] = numbers[value]
            elif isinstance(value, int):
                body.pop(name, None)


def _keeps_numbers(form: PlayerForm | None, verdict: Verdict) -> bool:
    """Whether a shown record's verdict cuts what it came to (a secret's fields, a health
    the GM keeps), beyond fields players never see and those that would name a hidden
    character."""
    if form is None:
        return bool(verdict.cut)
    masked = {f for name in verdict.unseen for f in form.unseen.get(name, ())}
    kept = {*form.private, *form.via_unseen, *masked}
    return any(c not in kept for c in verdict.cut)


def _unseen_masked(event: Event, hidden: frozenset[str]) -> dict[str, Any]:
    """A revealed event's plain form with the hidden characters it names masked, and the
    fields its player form says would give them away cut."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    form = type(event).PLAYER
    for name in form.about if form is not None else ():
        if any(i in hidden for i in named_ids(getattr(event, name))):
            for field in form.unseen.get(name, ()) if form is not None else ():
                _cut(data, field.split("."))
    masked: dict[str, Any] = _masked_deep(data, hidden)
    return masked


def _masked_deep(value: Any, hidden: frozenset[str]) -> Any:
    """Plain data with every hidden character's id masked (dropped as a key)."""
    if isinstance(value, str):
        return UNSEEN if value in hidden else value
    if isinstance(value, list):
        return [_masked_deep(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: _masked_deep(v, hidden) for k, v in value.items() if k not in hidden}
    return value


def _cut_after_reveal(form: PlayerForm, verdict: Verdict, cut: list[str]) -> list[str]:
    """What stays cut of a revealed record. A reveal lifts the record's secrets (its secret
    fields, a health the GM kept) and nothing else: characters still hidden stay unseen,
    with whatever would give them away, and private fields stay private."""
    kept = {*form.private, *form.via_unseen, *verdict.unseen}
    for name in verdict.unseen:
        kept.update(form.unseen.get(name, ()))
    return [c for c in cut if c in kept]


def _strings(value: Any) -> set[str]:
    """Every string inside plain data (keys too): where a revealed record names characters."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in (*_strings(k), *_strings(v))}
    if isinstance(value, list):
        return {s for item in value for s in _strings(item)}
    return set()


def _cut(data: Any, path: list[str]) -> None:
    """Remove the field at a dotted path (``positions.sniper``), if it is there."""
    for key in path[:-1]:
        data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            return
    if isinstance(data, dict):
        data.pop(path[-1], None)


def player_state(
    state: TableState,
    lens: PlayerLens,
    player_world: Callable[[TableState], Any] | None,
    voided: Container[int] = (),
) -> TableState:
    """The state as players may see it, at the GM's record ``state.seq``.

    Hidden characters are left out, the system's world is the players' world
    (none at all when the system declares no ``player_world``), record numbers
    are the players', and nothing counts records players did not see.
    ``voided``: the records undone as of ``state.seq`` (the fold skipped them).
    """
    world = player_world(state) if player_world is not None else None
    shown = lens.upto(state.seq)
    numbers = lens.numbers
    # every character players cannot see, here now or gone
    hidden = hidden_ids(state) | lens.hidden_ever
    kept = lens.kept
    return msgspec.structs.replace(
        state,
        characters=_players_characters(state, numbers, hidden, kept),
        world=_numbered(world, numbers, hidden, kept),
        seq=shown,
        last_roll=_last_roll(state.seq, lens, voided),
        revealed={lens.numbers[s] for s in state.revealed if s in lens.numbers},
        notes=lens.notes.bisect_right(shown),
        fight=_numbered(player_fight(state.fight, hidden), numbers, hidden, kept),
        # turns begun, of the characters players see (where the clock is: the fight's)
        time=Time(turns={k: n for k, n in state.time.turns.items() if k not in hidden}),
        aliases={},
        # those who left, but for characters players never saw or saw hidden last
        departed={k: name for k, name in state.departed.items() if k not in hidden},
        requests=_own_requests(state, lens),
        prompts=_own_prompts(state, lens),
    )


def _players_characters(
    state: TableState, numbers: Mapping[int, int], hidden: Container[str], kept: Kept
) -> dict[str, Character]:
    """The characters players see, as they may see them (their health as the table shows it
    to players, less the GM's own conditions)."""
    return {
        k: _numbered(_players_character(for_players(c, state)), numbers, hidden, kept)
        for k, c in state.characters.items()
        if not c.hidden
    }


def _own_requests(state: TableState, lens: PlayerLens) -> dict[int, Request]:
    """The reader's own requests to the GM, by the players' numbers, and nobody else's."""
    numbers = lens.numbers
    return {
        numbers[seq]: req
        for seq, req in state.requests.items()
        if req.seat == lens.reader and seq in numbers
    }


def _own_prompts(state: TableState, lens: PlayerLens) -> dict[int, Prompt]:
    """The reader's own prompts waiting for their answer, and nobody else's."""
    numbers = lens.numbers
    return {
        numbers[seq]: prompt
        for seq, prompt in state.prompts.items()
        if prompt.seat == lens.reader and not prompt.answered and seq in numbers
    }


def _players_character(char: Character) -> Character:
    """A character less what the GM keeps to themself: GM-only conditions."""
    if not any(c.gm_only for c in char.conditions):
        return char
    return msgspec.structs.replace(char, conditions=[c for c in char.conditions if not c.gm_only])


def _numbered(value: Any, numbers: Mapping[int, int], hidden: Container[str], kept: Kept) -> Any:
    """A part of the state as players may see it.

    Record numbers are the players' (state structs name their record-number
    fields in ``RECORD_FIELDS``); an item of a list or mapping that stems from
    a record players did not see (a pending Advantage from a GM-only check) or saw
    without its numbers, or
    that is a hidden character (an id, a mapping key, a struct with that
    ``id`` or ``actor``), is left out; any other value that is a hidden
    character's id reads ``UNSEEN`` (the helper behind a pending bonus). ``kept``
    tells the records players see without their numbers (``PlayerLens.kept``).
    """
    if isinstance(value, str):
        return UNSEEN if value in hidden else value
    if isinstance(value, msgspec.Struct):
        return _numbered_struct(value, numbers, hidden, kept)
    if isinstance(value, list | dict):
        return _numbered_items(value, numbers, hidden, kept)
    if isinstance(value, set | frozenset):
        return type(value)(v for v in value if v not in hidden)
    return value


def _numbered_items(
    value: list[Any] | dict[Any, Any],
    numbers: Mapping[int, int],
    hidden: Container[str],
    kept: Kept,
) -> list[Any] | dict[Any, Any]:
    """A list or mapping of the state as players may see it, less the items they may not."""
    if isinstance(value, list):
        seen = [v for v in value if _seen_item(v, numbers, hidden, kept)]
        return [_numbered(v, numbers, hidden, kept) for v in seen]
    return {
        k: _numbered(v, numbers, hidden, kept)
        for k, v in value.items()
        if k not in hidden and _seen_item(v, numbers, hidden, kept)
    }


def _numbered_struct(
    value: msgspec.Struct, numbers: Mapping[int, int], hidden: Container[str], kept: Kept
) -> msgspec.Struct:
    fields = getattr(type(value), "RECORD_FIELDS", ())
    changes: dict[str, Any] = {}
    for name in value.__struct_fields__:
        old = getattr(value, name)
        if isinstance(old, msgspec.Struct) and _unseen_origin(old, numbers, kept):
            # what a record players did not see left (the last check, rolled by the GM
            # alone), or one they saw without its numbers (a secret check): none, to players
            changes[name] = None
            continue
        new = _seqs(old, numbers) if name in fields else _numbered(old, numbers, hidden, kept)
        if new is not old and new != old:
            changes[name] = new
    return msgspec.structs.replace(value, **changes) if changes else value


def _unseen_origin(value: msgspec.Struct, numbers: Mapping[int, int], kept: Kept) -> bool:
    """Whether a piece of state is one a record players did not see left, or one they saw
    without its numbers."""
    if "seq" not in getattr(type(value), "RECORD_FIELDS", ()):
        return False
    seq = getattr(value, "seq", 0)
    return bool(seq) and (seq not in numbers or kept(seq))


def _seen_item(value: Any, numbers: Mapping[int, int], hidden: Container[str], kept: Kept) -> bool:
    """False for a state item born of a record players did not see or saw without its
    numbers (a pending Advantage a secret TN's margin left), or that is a hidden
    character."""
    if isinstance(value, str):
        return value not in hidden
    for name in ("id", "actor"):
        who = getattr(value, name, None)
        if isinstance(who, str) and who in hidden:
            return False
    if "seq" not in getattr(type(value), "RECORD_FIELDS", ()):
        return True
    seq = value.seq
    return not seq or (seq in numbers and not kept(seq))


def _seqs(value: Any, numbers: Mapping[int, int]) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return numbers.get(value, 0)
    if isinstance(value, list):
        return [numbers[v] for v in value if v in numbers]
    if isinstance(value, dict):
        return {k: numbers[v] for k, v in value.items() if v in numbers}
    return value


def _last_roll(seq: int, lens: PlayerLens, voided: Container[int]) -> LastRoll | None:
    """The last free roll players saw up to the GM's record ``seq`` (none if it was secret)."""
    rolls = lens.rolls
    # rolls are in log order: start at the last one at or before ``seq``
    for i in range(rolls.upto(seq) - 1, -1, -1):
        if rolls.seq(i) in voided:
            continue
        roll_seq, actor, dice, total, secret = rolls[i]
        if secret:
            return None
        return LastRoll(seq=lens.numbers[roll_seq], actor=actor, dice=dice, total=total)
    return None
