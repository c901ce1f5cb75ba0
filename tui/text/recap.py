"""After play: the recap and the luck report of a table, as the GM or one player may read them."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from margin.core.luck import Luck, percent
from margin.core.panels import character_status
from margin.core.recap import (
    CharacterLuck,
    CheckLine,
    Encounter,
    Reading,
    Recap,
    Tally,
    read,
    summarize,
)
from margin.events import Record, Store, open_store
from margin.tui.table.reader import LiveTable, View, open_view

if TYPE_CHECKING:
    from margin.core.state import TableState


def recap_of(path: str, name: str | None, corrected: bool = True, progress: bool = False) -> Recap:
    """The recap of the table at ``path``, as the GM reads it (``name`` None) or as the player
    of the character ``name``. The GM's is read beside the fold that opens the table."""
    show = progress and sys.stderr.isatty()
    if name is not None:
        view = open_view(path, name=name)
        reading = None
    else:
        table = _RecapTable.opened(path, show)
        view, reading = View(table), table.reading
    try:
        return build(view, corrected, show, reading)
    finally:
        view.table.close()


def build(
    view: View, corrected: bool = True, progress: bool = False, reading: Reading | None = None
) -> Recap:
    """The recap of the table ``view`` reads, as its reader (the GM or a player) may read it;
    ``reading``: what a ``_RecapTable`` read as it opened."""
    state = view.state()
    shown = progress and view.table.projection.seq >= PROGRESS_FROM
    if reading is None:
        total = view.table.projection.seq
        reading = read(view.readable(), state.system, _progress(total) if shown else None)
    else:
        assert isinstance(view.table, _RecapTable)
        view.table.read_rest()
    if shown:
        sys.stderr.write("\r" + " " * 40 + "\r")
    return summarize(reading, state.system, corrected, _standing(state))


#: a recap of this many records or more shows how far its reading has gone
PROGRESS_FROM = 20_000


def _standing(state: TableState) -> list[tuple[str, list[str]]]:
    return [(c.name, character_status(c, state)) for c in state.characters.values()]


def _progress(total: int) -> Any:
    def show(seq: int) -> None:
        sys.stderr.write(f"\rreading records: {seq:,} of {total:,}")
        sys.stderr.flush()

    return show


class _RecapTable(LiveTable):
    """The GM's table, read into a recap as it opens: each record the fold reads is read
    into ``reading`` too (those before the snapshot it opened from, if any, first), so a
    recap reads the log once."""

    def __init__(self, store: Store, reading: Reading) -> None:
        self.reading = reading
        super().__init__(store)

    @classmethod
    def opened(cls, path: str, progress: bool = False) -> _RecapTable:
        """The table at ``path`` read into a recap as it opens (``progress``: shown on the
        way, on a long table)."""
        store = open_store(path, readonly=True)
        try:
            total = store.last_seq
            shown = progress and total >= PROGRESS_FROM
            return cls(store, Reading(progress=_progress(total) if shown else None))
        except BaseException:
            store.close()
            raise

    def _extend(self, records: Iterable[Record]) -> None:
        super()._extend(self._read(records))

    def _read(self, records: Iterable[Record]) -> Iterator[Record]:
        reading = self.reading
        for record in records:
            if record.seq > reading.records + 1:
                self._read_before(record.seq)
            _feed(reading, record)
            yield record

    def _read_before(self, seq: int) -> None:
        """Read the records the fold did not (the snapshot's), up to ``seq``."""
        for record in self.store.records(self.reading.records, seq - 1):
            _feed(self.reading, record)

    def read_rest(self) -> None:
        """Read what the fold did not, once open (a snapshot of the whole log)."""
        if self.reading.records < self.projection.seq:
            self._read_before(self.projection.seq + 1)


def _feed(reading: Reading, record: Record) -> None:
    """Read one record into a recap: its event as a dict only when the recap reads it."""
    event, drawn = record.event, record.drawn
    kind = type(event)
    tag = _TAGS.get(kind) or _TAGS.setdefault(kind, str(kind.__struct_config__.tag))
    if drawn is None and not reading.wants(tag):
        reading.read(record.seq, {"type": tag}, None)
        return
    body = msgspec.to_builtins(event)
    reading.read(record.seq, body, msgspec.to_builtins(drawn) if drawn is not None else None)


#: each kind of event's tag, as the recap reads it
_TAGS: dict[type[msgspec.Struct], str] = {}


# -- text -----------------------------------------------------------------------


#: how a recap read the log, as corrected or not, and what it says of the undone records
READ_AS = {
    True: ("as corrected", "undone records left out"),
    False: ("as it happened", "records undone later, marked"),
}


def how_read(r: Recap, name: str | None) -> str:
    """One line: which records count, and whose view this is."""
    kind, undone = READ_AS[r.corrected]
    if r.undone:
        kind += f" ({r.undone} {undone})"
    whose = f"; what {name}'s player saw" if name else ""
    return f"{r.records:,} records, {kind}{whose}."


def ending(enc: Encounter) -> str:
    """How an encounter ended, in one sentence ("" for the play outside encounters)."""
    if enc.outside:
        return ""
    if enc.ended is None:
        return "Still running at the end of the log."
    return "Ended" + (f" {enc.ended}" if enc.ended else "") + "."


def markdown(r: Recap, name: str | None = None) -> str:
    """The recap as Markdown."""
    title = r.title or "a table"
    out = [f"# Recap: {title} ({r.system})", "", how_read(r, name), ""]
    for enc in r.encounters:
        out += _encounter_markdown(enc)
    out += ["## Luck", ""] + luck_table(r) + [""]
    for title, items in closing_lists(r):
        out += [f"## {title}", "", *[f"- {item}" for item in items], ""]
    return "\n".join(out)


def closing_lists(r: Recap) -> list[tuple[str, list[str]]]:
    """What a recap ends with, each list under its heading (those with nothing left out):
    the secrets revealed, and how each character ended."""
    standing = [f"{who}: {', '.join(status) or 'no status'}" for who, status in r.standing]
    return _held([("Secrets revealed", list(r.revealed)), ("How it ended", standing)])


def encounter_lists(enc: Encounter) -> list[tuple[str, list[str]]]:
    """An encounter's lists, each under its heading (those with nothing left out): the
    harms each character took, then the notable rolls (the first ``NOTABLE_SHOWN``)."""
    tallies = enc.tallies.values()
    harms = [f"{t.name}: {'; '.join(t.harms)}" for t in tallies if t.harms]
    notable = [f"{t.name}: {n}" for t in tallies for n in t.notable]
    if len(notable) > NOTABLE_SHOWN:
        notable[NOTABLE_SHOWN:] = [f"and {len(notable) - NOTABLE_SHOWN} more"]
    return _held([("Injuries and conditions", harms), ("Notable rolls", notable)])


def _held(lists: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    return [(title, items) for title, items in lists if items]


#: notable rolls an encounter lists (and how many more there were)
NOTABLE_SHOWN = 30

#: the columns of an encounter's table, a character a row (``tally_cells``)
TALLY_HEAD = ["Character", "Turns", "Checks passed", "Hits", "Dealt", "Taken", "Spent"]


def tally_cells(t: Tally) -> list[str]:
    """One character's row of an encounter's table."""
    return [
        t.name,
        str(t.turns),
        f"{t.successes}/{t.checks}",
        f"{t.hits}/{t.attacks}" if t.attacks else "-",
        str(t.dealt),
        str(t.taken),
        ", ".join(f"{k} {v}" for k, v in t.spent.items()) or "-",
    ]


#: the columns of the luck report by source of dice, then by band (``luck_cells``)
FAR_OUT = "Chance of a result this far out"
LUCK_HEAD = ["Character", "Dice", "Checks", "Expected", "Successes", FAR_OUT]
BAND_HEAD = ["Character", "Band", "Expected", "Actual", FAR_OUT]


def luck_cells(r: Recap) -> tuple[list[list[str]], list[list[str]]]:
    """The luck report's rows: each character's by source of dice, then by band."""
    by_source = [
        [c.name, source, str(luck.checks), *_luck_cells(luck)]
        for c in r.luck
        for source, luck in luck_rows(c)
    ]
    by_band = [[c.name, b.band, *_luck_cells(b.luck)] for c in r.luck for b in c.bands]
    return by_source, by_band


def _luck_cells(luck: Luck) -> list[str]:
    return [f"{luck.expected:.2f}", str(luck.actual), f"{luck.tail}: {luck.percent}"]


def _markdown_table(head: list[str], align: str, rows: list[list[str]]) -> list[str]:
    """A Markdown table, ``align`` its line of column alignments."""
    return [_markdown_row(head), align] + [_markdown_row(row) for row in rows]


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _encounter_markdown(enc: Encounter) -> list[str]:
    """One encounter's section: how it ended, its tallies, harms, notable rolls, damage."""
    out = [f"## {enc.name}", ""] + ([ending(enc), ""] if ending(enc) else [])
    if enc.tallies:
        rows = [tally_cells(t) for t in enc.tallies.values()]
        out += [
            *_markdown_table(MARKDOWN_TALLY_HEAD, "|---|---:|---:|---:|---:|---:|---|", rows),
            "",
        ]
    for title, items in encounter_lists(enc):
        out += [f"{title}:", "", *[f"- {item}" for item in items], ""]
    return out + _damage_markdown(enc)


#: the Markdown recap's names of an encounter's columns
MARKDOWN_TALLY_HEAD = [
    *TALLY_HEAD[:4], "Damage dealt", "Damage taken", TALLY_HEAD[-1],
]  # fmt: skip


def _damage_markdown(enc: Encounter) -> list[str]:
    if not enc.damage:
        return []
    rounds = "; ".join(
        f"round {n}: " + ", ".join(f"{who} {amount}" for who, amount in dealt.items())
        for n, dealt in sorted(enc.damage.items())
    )
    return [f"Damage by round: {rounds}.", ""]


def luck_table(r: Recap) -> list[str]:
    """The luck report as a Markdown table (one row per character, then per source)."""
    if not r.luck:
        return ["No check of known chance was rolled."]
    by_source, by_band = luck_cells(r)
    head = [*LUCK_HEAD[:3], "Expected successes", *LUCK_HEAD[4:]]
    out = _markdown_table(head, "|---|---|---:|---:|---:|---:|", by_source)
    if by_band:
        out += ["", *_markdown_table(BAND_HEAD, "|---|---|---:|---:|---:|", by_band)]
    return out


def luck_rows(c: CharacterLuck) -> list[tuple[str, Luck]]:
    """A character's luck by source of dice, with the whole first when both sources rolled."""
    if len(c.by_source) > 1:
        return [("all dice", c.overall), *c.by_source]
    return list(c.by_source)


BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float, whole: float, width: int = 24) -> str:
    """``value`` out of ``whole`` as a bar of ``width`` cells, in eighths."""
    if whole <= 0:
        return " " * width
    eighths = round(max(0.0, min(1.0, value / whole)) * width * 8)
    full, part = divmod(eighths, 8)
    return ("█" * full + (BLOCKS[part] if part else "")).ljust(width)


def fairness_lines(r: Recap) -> list[str]:
    """Each source of dice and kind of die: its faces counted, and whether they look fair."""
    if not r.fairness:
        return []
    out = ["Fairness of the dice (every die rolled, undone ones too):"]
    for d in r.fairness:
        test = (
            f"exact test: {d.fit.percent}"
            if d.fit.exact
            else (
                f"chi-square {d.fit.statistic:.1f} on {d.sides - 1} degrees of freedom: {d.fit.percent}"
            )
        )
        out.append(
            f"  {d.source}, d{d.sides}: {d.fit.rolls} rolled; a fair die fits this badly or worse: {test}"
        )
        out.append(f"    {_faces(d.counts)}")
    out.append("")
    return out


def _faces(counts: tuple[int, ...]) -> str:
    """How often each face came up: ``1:3 2:5 ...``, by tens for a die of more than 20 faces."""
    if len(counts) <= 20:
        return " ".join(f"{n}:{c}" for n, c in enumerate(counts, 1))
    tens = [counts[i : i + 10] for i in range(0, len(counts), 10)]
    return " ".join(f"{i * 10 + 1}-{i * 10 + len(t)}:{sum(t)}" for i, t in enumerate(tens))


def luck_text(r: Recap, name: str | None = None, checks: bool = False) -> str:
    """The luck report for a terminal: expected and actual successes drawn as bars."""
    out = [f"Luck: {r.title or 'a table'} ({r.system}), {how_read(r, name)}", ""]
    if not r.luck:
        out.append("No check of known chance was rolled.")
    width = max((len(c.name) for c in r.luck), default=0)
    for c in r.luck:
        out += _luck_lines(c, width)
    out += fairness_lines(r)
    if checks:
        out.append("Every check:")
        out += [_check_line(line) for line in r.checks]
    return "\n".join(out).rstrip() + "\n"


def _luck_lines(c: CharacterLuck, width: int) -> list[str]:
    """One character's luck, by source of dice then by band, its name ``width`` wide."""
    out = []
    pad = f"{'':{width}}"
    for i, (source, luck) in enumerate(luck_rows(c)):
        who = (c.name if i == 0 else "").ljust(width)
        out.append(f"{who}  {source}: {luck.checks} check{'' if luck.checks == 1 else 's'}")
        out.append(f"{pad}    expected {bar(luck.expected, luck.checks)} {luck.expected:7.2f}")
        out.append(
            f"{pad}    actual   {bar(luck.actual, luck.checks)} {luck.actual:7d}"
            f"   chance of {luck.tail}: {luck.percent}"
        )
    for b in c.bands:
        out.append(
            f"{pad}    {b.band:<22} expected {b.luck.expected:6.2f}  actual "
            f"{b.luck.actual:4d}  {b.luck.tail}: {b.luck.percent}"
        )
    out.append("")
    return out


def _check_line(line: CheckLine) -> str:
    """One check of ``margin luck --checks``."""
    chance = "unknown" if line.chance is None else percent(float(line.chance))
    result = "success" if line.success else "failure"
    marks = (" typed" if line.typed else "") + (" (undone)" if line.undone else "")
    band = f" ({line.band})" if line.band else ""
    return f"{line.record:>7}  {line.name}: {line.label}: chance {chance}, {result}{band}{marks}"
