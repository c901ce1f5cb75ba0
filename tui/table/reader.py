"""A table as one viewer reads it: live or at a replay record, whole or through a player's lens.

The lens is applied here, where records and state are read, so nothing a
player may not see ever reaches a widget. Log rows are read from the store
only for the window on screen: a long table costs one index entry per record,
not one line of text.
"""

from __future__ import annotations

import bisect
import functools
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

import msgspec

from margin.core import RuleError, TableState, find_character, get_system
from margin.core import snapshot as snapshots
from margin.core.authority import Seat, authorize
from margin.core.clock import table_clock
from margin.core.columns import Positions
from margin.core.commands import Command
from margin.core.lens import PlayerLens, about, player_state, serves
from margin.core.panels import character_status
from margin.core.state import snapshot
from margin.core.systems.base import Clock, Odds
from margin.events import Draft, Record, Store, open_store, record_to_builtins
from margin.tui.text import render

from .table import Table


class LogRow(msgspec.Struct, frozen=True):
    """One line of the log panel."""

    seq: int
    text: str
    author: str
    #: the number shown: the record's own for the GM, its place in a player's
    #: list for a player (so gaps do not tell that GM-only records exist)
    number: int = 0
    #: voided at the moment shown (struck through)
    undone: bool = False
    #: undone later on (replay as it happened marks the mistake before its undo)
    mistake: bool = False
    #: a record with hidden fields (to a player: only its outcome is shown)
    secret: bool = False
    #: when it was written (ISO 8601, UTC)
    at: str = ""


class CharacterRow(msgspec.Struct, frozen=True):
    name: str
    status: tuple[str, ...]
    hidden: bool = False


class LiveTable(Table):
    """A table that also keeps the sequence numbers of the records its reader may see.

    A player's table reads every record through the player lens (``core.lens``)
    as it arrives, so what it lists, numbers and shows is the lens's alone.

    ``reads`` is the connection a screen reads log rows through: a second one
    to the same table when a worker folds and writes through ``store``, since
    a connection is not to be used by two threads at once (and one busy with
    a slow write would hold the screen up).
    """

    def __init__(
        self,
        store: Store,
        lens: bool = False,
        every: int = 1000,
        reads: Store | None = None,
        player: str | None = None,
    ) -> None:
        self.lens = lens
        #: the name of the player who reads, who alone sees the records addressed to them
        self.player = player
        self.reads = reads or store
        self.reader: PlayerLens | None = None
        self.seqs: Sequence[int] = range(0)
        #: while a player's table opens from no snapshot, the players' index of a reader
        #: none is addressed to, fed as the fold reads the log (``_opened`` keeps it for
        #: this player when nothing up to there is addressed to them)
        self._early = PlayerLens() if lens else None
        self._ready = False
        super().__init__(store, every)
        self._ready = True
        self._version = store.data_version()

    @classmethod
    def open_live(
        cls,
        path: str,
        *,
        readonly: bool,
        lens: bool,
        every: int = 1000,
        worker: bool = False,
        player: str | None = None,
    ) -> LiveTable:
        """The table at ``path``; for a screen with a ``worker``, a connection for its reads;
        through the lens of the ``player`` named, if any."""
        store = open_store(path, readonly=readonly)
        reads = None
        try:
            reads = open_store(path, readonly=True) if worker else None
            return cls(store, lens=lens, every=every, reads=reads, player=player)
        except BaseException:
            if reads is not None:
                reads.close()
            store.close()
            raise

    @property
    def threaded(self) -> bool:
        """Whether a worker folds and writes this table while a screen reads it."""
        return self.reads is not self.store

    def close(self) -> None:
        # the writing connection last: the last one out leaves the table one file
        if self.threaded:
            self.reads.close()
        super().close()

    def _opened(self) -> None:
        """Index the records the reader may see; a players' index read from the whole log
        (the snapshot had none) is kept in a new snapshot, for the next to open."""
        upto = self.projection.seq
        if not self.lens:
            # the GM reads every record: their numbers are a range, not a column to fill
            self.seqs = range(1, upto + 1)
            super()._opened()
            return
        revealed = self.projection.state.revealed
        who = self._reader_id()
        early, self._early = self._early, None
        found = self._snapshot_reader(revealed)
        # where the index the table goes on from was read from: the snapshot's, or the log's
        # first record (one fed beside the fold, or read now)
        since = 0
        if found is not None and serves(self.projection.history, who, found.last):
            since = found.last
        elif (
            early is not None and early.last == upto and serves(self.projection.history, who, upto)
        ):
            found = early
        else:
            found = None
        self.reader = found or PlayerLens(revealed, who)
        self.reader.reader, self.reader.revealed = who, revealed
        self.reader.feed(self.store.records(self.reader.last, upto))
        self.seqs = self.reader.seqs
        self.keep_snapshot(0 if upto - since >= self.snapshot_every else self.snapshot_due())

    def _index_early(self, records: Iterable[Record]) -> Iterator[Record]:
        """Records as the opening fold reads them, each indexed for players on the way (a
        fold that starts past the first record, from a snapshot, leaves them unindexed)."""
        for record in records:
            early = self._early
            if early is not None:
                if record.seq == early.last + 1:
                    early.index(record)
                else:
                    self._early = None
            yield record

    def _reader_id(self) -> str | None:
        """The id of the player's character who reads (None: a reader none is addressed to)."""
        if self.player is None:
            return None
        try:
            return player_id(self.projection.state, self.player)
        except RuleError:
            return None

    def _lens_at(self, seq: int) -> bytes | None:
        reader = self.reader
        if reader is None or reader.last != seq:
            return None
        # a snapshot keeps the index of a reader none is addressed to, for every player
        if not serves(self.projection.history, reader.reader, seq):
            return None
        return snapshots.encode_lens(reader)

    def _index(self, records: Iterable[Record]) -> None:
        if self.reader is not None:
            self.reader.revealed = self.projection.state.revealed
            self.reader.feed(records)
        else:
            self.seqs = range(1, self.projection.seq + 1)

    def _extend(self, records: Iterable[Record]) -> None:
        if not self._ready:  # opening: folded and indexed as read, or indexed once open
            super()._extend(self._index_early(records) if self._early is not None else records)
            return
        kept = list(records)
        with self.lock:
            super()._extend(kept)
            self._index(kept)

    def changed(self) -> bool:
        """Whether another process committed since the last look (cheap: reads nothing)."""
        version = self.store.data_version()
        if version == self._version:
            return False
        self._version = version
        return True

    def poll(self) -> list[Record]:
        """Records another process committed since the last look (cheap when there are none)."""
        if not self.changed():
            return []
        new = self.catch_up()
        self.keep_snapshot(self.snapshot_due())
        return new


class Skipping(Positions[int]):
    """A sorted column of record numbers less a few of them (a replay as corrected: the
    undone records and the undos), read through the column rather than copied from it, so
    switching to as corrected costs what the undos do, not what the log does."""

    __slots__ = ("_len", "_seqs", "_shift", "_skip")

    def __init__(self, seqs: Sequence[int], skip: Iterable[int]) -> None:
        self._seqs = seqs
        count = len(seqs)
        places = _places(seqs, skip)
        self._skip = frozenset(seqs[i] for i in places)
        #: for the j-th skipped place p, the records kept before it (p - j): how many
        #: places a position in this list lies past its place in the column
        self._shift = array("q", (p - j for j, p in enumerate(places)))
        self._len = count - len(places)

    def __len__(self) -> int:
        return self._len

    def _at(self, i: int) -> int:
        return self._seqs[i + bisect.bisect_right(self._shift, i)]

    def __iter__(self) -> Iterator[int]:
        skip = self._skip
        seqs = self._seqs
        return (seqs[i] for i in range(self._len + len(self._shift)) if seqs[i] not in skip)


def _places(seqs: Sequence[int], skip: Iterable[int]) -> list[int]:
    """Where the records of ``skip`` stand in the sorted column ``seqs`` (those it holds),
    in order: counted off a range of every record (the GM's), found by halving otherwise."""
    wanted = sorted(set(skip))
    if isinstance(seqs, range) and seqs.step == 1:
        return [seq - seqs.start for seq in wanted if seq in seqs]
    count = len(seqs)
    places = []
    for seq in wanted:
        i = bisect.bisect_left(seqs, seq, 0, count)
        if i < count and seqs[i] == seq:
            places.append(i)
    return places


def player_id(state: TableState, name: str) -> str:
    """The id of a player's character; hidden characters (the GM's) are refused."""
    try:
        char = find_character(state, name)
    except RuleError:
        char = None
    if char is None or char.hidden:
        shown = (
            ", ".join(sorted(c.name for c in state.characters.values() if not c.hidden)) or "none"
        )
        raise RuleError(f"--as {name!r}: no such player character (players: {shown})")
    return char.id


#: log rows read at a time while searching
SEARCH_CHUNK = 500

#: the numbers a replay can jump to
_NUMBER = ("round", "turn", "count")


def clock_position(clock: Clock | None) -> dict[str, int]:
    """The round, turn and count a clock stands at (those it has)."""
    if clock is None:
        return {}
    found = {"round": clock.round, "turn": clock.turn, "count": clock.count}
    out = {word: value for word, value in found.items() if value is not None}
    if "turn" not in out and "round" in out:
        # An initiative order: the turn is the place of whoever acts now.
        current = [i for i, row in enumerate(clock.rows) if row.current]
        if current:
            out["turn"] = current[0] + 1
    return out


def turn_names(clock: Clock) -> tuple[list[str], list[str]]:
    """The names of those whose turn it is on ``clock``, and of those on deck."""
    return [r.name for r in clock.rows if r.turn], [r.name for r in clock.rows if r.on_deck]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[View, _P], _R]) -> Callable[Concatenate[View, _P], _R]:
    """A ``View`` method run holding the table's lock, so a worker never folds under it."""

    def read(view: View, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with view.table.lock:
            return method(view, *args, **kwargs)

    functools.update_wrapper(read, method)
    return read


class View:
    """What a screen shows of a table: live (``at`` None) or at a record of a replay.

    Every method reads the table holding its lock (``Table``), and what it
    hands out is the screen's own: the live state of a table a worker writes
    is a copy taken when the table changed, so a widget may keep it while the
    worker folds on.
    """

    def __init__(self, table: LiveTable, player: str | None = None) -> None:
        self.table = table
        self.player = player
        self.system = get_system(table.state.system)
        #: replay: position in ``seqs()`` shown; None follows the live table
        self.at: int | None = None
        self.corrected = False
        self._state_key: tuple[Any, ...] | None = None
        self._state: TableState = table.state
        self._gm_state: TableState = table.state
        self._seqs_key: tuple[int, int] = (-1, -1)
        self._corrected_seqs: Sequence[int] = ()
        #: list only the records about this character (an id), or every record
        self.only: str | None = None
        self._only_key: tuple[int, bool, str] = (-1, False, "")
        self._only_seqs: list[int] = []

    @property
    def lens(self) -> bool:
        return self.player is not None

    # -- which records -----------------------------------------------------

    @_locked
    def seqs(self) -> Sequence[int]:
        """The records this view lists, oldest first (only those about ``only`` when set)."""
        listed = self._listed()
        if self.only is None:
            return listed
        key = (len(listed), self.corrected, self.only)
        if key != self._only_key:
            self._only_seqs = [r.seq for r in self._fetch(listed) if self.only in about(r.event)]
            self._only_key = key
        return self._only_seqs

    def _listed(self) -> Sequence[int]:
        if not self.corrected:
            return self.table.seqs
        history = self.table.projection.history
        key = (len(self.table.seqs), len(history.changes))
        if key != self._seqs_key:
            skip = history.voided | {c.seq for c in history.changes}
            self._corrected_seqs = Skipping(self.table.seqs, skip)
            self._seqs_key = key
        return self._corrected_seqs

    @_locked
    def set_only(self, ref: str | None) -> str | None:
        """List only the records about one character (None: every record); their name."""
        seq = self.seq
        if ref is None:
            self.only = None
        else:
            self.only = find_character(self.state(), ref).id
        if self.at is not None:
            self.goto_seq(seq)
        return None if self.only is None else self.state().characters[self.only].name

    @_locked
    def search(self, text: str, before: int) -> int | None:
        """The last position before ``before`` whose log line holds ``text`` (any case),
        going round from the newest when none is; None when no line does."""
        saved, self.at = self.at, None  # a replay searches the whole session
        try:
            return self._search(text.lower(), before)
        finally:
            self.at = saved

    def _search(self, want: str, before: int) -> int | None:
        count = self.log_len()
        for start, stop in ((0, min(before, count)), (min(before, count), count)):
            found = None
            for low in range(start, stop, SEARCH_CHUNK):
                for row in self.rows(low, min(stop, low + SEARCH_CHUNK)):
                    if want in row.text.lower():
                        found = self._position(row.seq)
            if found is not None:
                return found
        return None

    def _position(self, seq: int) -> int:
        return bisect.bisect_left(self.seqs(), seq)

    @property
    @_locked
    def seq(self) -> int:
        """The record the view stands at (the last one live)."""
        if self.at is None:
            return self.table.projection.seq
        seqs = self.seqs()
        return seqs[self.at] if seqs else 0

    @property
    @_locked
    def number(self) -> int:
        """The record shown last, numbered as the log panel numbers it."""
        return self.log_len() if self.lens else self.seq

    @_locked
    def log_len(self) -> int:
        if self.at is None:
            return len(self.seqs())
        return self.at + 1

    # -- state -------------------------------------------------------------

    @_locked
    def state(self) -> TableState:
        """The (lensed) state shown: live, or right after the replay's record."""
        projection = self.table.projection
        key = (self.at, self.corrected, self.seq, projection.seq, len(projection.history.changes))
        if key != self._state_key:
            live = self.at is None
            state = projection.state if live else projection.state_at(self.seq, self.corrected)
            self._gm_state = state
            shown = self._lensed(state) if self.lens else state
            # a worker goes on changing the live state: the screen keeps a copy
            self._state = snapshot(shown) if live and self.table.threaded else shown
            self._state_key = key
        return self._state

    def _lensed(self, state: TableState) -> TableState:
        reader = self.table.reader
        assert reader is not None
        return player_state(state, reader, self.system.player_world, self._voided()[0])

    def characters(self) -> list[CharacterRow]:
        state = self.state()
        return [
            CharacterRow(c.name, tuple(character_status(c, state)), c.hidden)
            for c in state.characters.values()
        ]

    def clock(self) -> Clock | None:
        return table_clock(self.state())

    @_locked
    def odds(self, command: Command | None) -> Odds | None:
        """The exact odds of a check before it is rolled; to a player only of a command
        their seat may give, and from what they may see (the lensed state)."""
        if command is None:
            return None
        state = self.state()
        try:
            if self.lens:
                authorize(Seat(self.player or ""), command, state)
            return self.system.odds(command, state)
        except RuleError:
            return None

    # -- log ---------------------------------------------------------------

    def _voided(self) -> tuple[set[int], set[int]]:
        """(voided as shown, undone at some point later): struck and marked."""
        history = self.table.projection.history
        if self.at is None or self.corrected:
            return history.voided, set()
        now = history.voided_at(self.seq)
        return now, history.voided - now

    def _fetch(self, wanted: Sequence[int]) -> list[Record]:
        if not wanted:
            return []
        store = self.table.reads
        first, last = wanted[0], wanted[-1]
        if last - first <= 4 * len(wanted) + 200:
            keep = set(wanted)
            return [r for r in store.records(first - 1, last) if r.seq in keep]
        return [store.record(s) for s in wanted]

    @_locked
    def names(self) -> dict[str, str]:
        """Who the log says by name, as this view's reader knows them: the characters at the
        table (those the reader may see) and those who have left, as they were last called."""
        return names_of(self.state())

    @_locked
    def rows(self, start: int, stop: int) -> list[LogRow]:
        """Log rows ``start`` to ``stop`` (positions in the listed records, oldest first)."""
        return [row for row, _ in self.entries(start, stop)]

    @_locked
    def entries(self, start: int, stop: int) -> list[tuple[LogRow, dict[str, Any]]]:
        """Log rows ``start`` to ``stop``, each with its record as this view's reader may read
        it (through the player lens for a player, whole for the GM)."""
        stop = min(stop, self.log_len())
        if start >= stop:
            return []
        voided, later = self._voided()
        self.state()
        reader = self.table.reader
        if reader is not None:
            # what players know at the record shown
            reader.revealed = self._gm_state.revealed
        names = self.names()
        lookup = self._player_line if self.lens else self.record_line
        out = []
        for record in self._fetch(self.seqs()[start:stop]):
            data, number, secret = _read(record, reader)
            row = LogRow(
                seq=record.seq,
                number=number,
                text=render.describe(self.system.id, data, names, lookup),
                author=record.author,
                undone=record.seq in voided,
                mistake=record.seq in later,
                secret=secret,
                at=record.at,
            )
            out.append((row, data))
        return out

    def readable(self) -> Iterator[dict[str, Any]]:
        """Every record of the table, oldest first, as this view's reader may read it (what
        ``entries`` gives, for a reader of the whole log such as a recap)."""
        reader = self.table.reader
        records = self.table.reads.records(0, self.table.projection.seq)
        if reader is None:
            yield from (record_to_builtins(r) for r in records)
            return
        with self.table.lock:
            reader.revealed = self.table.projection.state.revealed
        yield from (reader.form(r) for r in records if r.seq in reader.numbers)

    def _player_line(self, number: int) -> str | None:
        """The line of the record a player knows as ``number``, as that player reads it (an
        undo a player sees names what it undid with this)."""
        reader = self.table.reader
        if reader is None or not 0 < number <= len(reader.seqs):
            return None
        data = reader.form(self.table.reads.record(reader.seqs[number - 1]))
        return render.describe(self.system.id, data, self.names())

    @_locked
    def record_line(self, seq: int) -> str:
        """One record's line as the GM reads it (an undo names what it undid with this)."""
        data = record_to_builtins(self.table.reads.record(seq))
        return render.describe(self.system.id, data, self.names())

    @_locked
    def gm_rows(self, seqs: Iterable[int]) -> list[LogRow]:
        """Log rows of the given records, as the GM reads them, whatever the view shows."""
        voided = self.table.projection.history.voided
        names = names_of(self.table.state)
        rows = []
        for seq in seqs:
            record = self.table.reads.record(seq)
            rows.append(
                LogRow(
                    seq=seq,
                    text=render.describe(
                        self.system.id, record_to_builtins(record), names, self.record_line
                    ),
                    author=record.author,
                    undone=seq in voided,
                    secret=bool(record.visibility.hidden),
                    at=record.at,
                )
            )
        return rows

    def decided(self, command: Command) -> list[Draft]:
        """What ``command`` would record now, decided but not written (``RuleError``: refused)."""
        return self.table.decide(command)

    # -- replay ------------------------------------------------------------

    @_locked
    def goto(self, position: int) -> None:
        count = len(self.seqs())
        self.at = max(0, min(position, count - 1)) if count else None

    @_locked
    def last_number(self) -> int:
        """The number of the table's last record, as this view's reader numbers records."""
        reader = self.table.reader
        return len(reader.seqs) if reader is not None else self.table.projection.seq

    @_locked
    def position_of(self, number: int) -> int:
        """The listed position of record ``number`` (a player's own numbering for a player),
        or of the last listed record before it."""
        seq = number
        reader = self.table.reader
        if reader is not None:
            shown = reader.seqs
            seq = shown[min(number, len(shown)) - 1] if number >= 1 and shown else 0
        return max(0, bisect.bisect_right(self.seqs(), seq) - 1)

    @_locked
    def goto_seq(self, seq: int) -> None:
        """Stand at the last listed record at or before ``seq``."""
        self.goto(bisect.bisect_right(self.seqs(), seq) - 1)

    @_locked
    def set_corrected(self, corrected: bool) -> None:
        """Switch between as it happened and as corrected, staying near the same record."""
        seq = self.seq
        self.corrected = corrected
        if self.at is not None:
            self.goto_seq(seq)

    @_locked
    def find(self, target: dict[str, int]) -> int:
        """The first position whose clock reaches ``target`` ({"round": 3} or {"round": 2, "turn": 1}).

        A search over the positions by halving, so it assumes the clock only
        moves forward, as it does within one encounter.
        """
        keys = list(target)
        want = tuple(target[k] for k in keys)
        saved = self.at
        low, high = 0, len(self.seqs())
        try:
            while low < high:
                mid = (low + high) // 2
                self.at = mid
                shown = clock_position(self.clock())
                got = tuple(shown.get(k, -1) for k in keys)
                if got < want:
                    low = mid + 1
                else:
                    high = mid
        finally:
            self.at = saved
        if low >= len(self.seqs()):
            raise RuleError(
                f"jump: the clock never reaches {' '.join(f'{k} {v}' for k, v in target.items())}"
            )
        return low


def _read(record: Record, reader: PlayerLens | None) -> tuple[dict[str, Any], int, bool]:
    """A record as its reader may read it (through the player lens, or whole for the GM),
    its number to them, and whether it holds what they are not shown (a secret)."""
    if reader is None:
        return record_to_builtins(record), record.seq, bool(record.visibility.hidden)
    data = reader.form(record)
    return data, data["seq"], bool(data.get("secret"))


def names_of(state: TableState) -> dict[str, str]:
    """The names map of a state (the GM's, or a player's through the lens): id -> name."""
    return {**state.departed, **{c.id: c.name for c in state.characters.values()}}


def open_view(
    path: str,
    *,
    name: str | None = None,
    readonly: bool = True,
    every: int = 1000,
    live: bool = False,
) -> View:
    """The table at ``path`` as the GM reads it (``name`` None) or as the player of the
    character ``name`` does: what every command and every screen reads a table through.
    ``live``: followed and written by a screen's workers."""
    table = LiveTable.open_live(
        path, readonly=readonly, lens=name is not None, every=every, worker=live, player=name
    )
    try:
        player = player_id(table.state, name) if name is not None else None
    except RuleError:
        table.close()
        raise
    return View(table, player)


def parse_jump(text: str, view: View) -> int:
    """A replay position from ``42`` (a record) or ``round 3`` / ``turn 2`` / ``count 5``."""
    words = text.lower().split()
    if len(words) == 1 and _whole_number(words[0]):
        return view.position_of(int(words[0]))
    target = _clock_target(words)
    if target is None:
        raise RuleError(
            f"jump: {text!r} not understood (a record number, or round N, turn N, count N)"
        )
    if "turn" in target and "round" not in target:
        now = clock_position(view.clock()).get("round")
        if now is None:
            raise RuleError(
                f"jump: {text.strip()!r} counts turns in the current round, and no "
                "round is running here (give round N turn N)"
            )
        target = {"round": now, **target}
    return view.find(target)


def _whole_number(word: str) -> bool:
    return word.isascii() and word.isdigit()


def _clock_target(words: list[str]) -> dict[str, int] | None:
    """A place on the clock from words in pairs (``round 3 turn 2``); None when they are not."""
    if not words or len(words) % 2:
        return None
    pairs = list(zip(words[::2], words[1::2], strict=True))
    if not all(word in _NUMBER and _whole_number(number) for word, number in pairs):
        return None
    return {word: int(number) for word, number in pairs}
