"""The undo history kept in columns answers as a plain index of the log would (and a
replay as corrected lists what a filtered copy of the log's list would): command ids
found by id (one a part of another's bytes included), records by command, and what an undo
voids, with cause links pointing back as margin writes them or either way as a table
written elsewhere may have them."""

from __future__ import annotations

import bisect
from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from margin.core import snapshot as snapshots
from margin.core.columns import Column
from margin.core.history import Commands, History
from margin.core.lens import Numbers
from margin.core.state import TableState
from margin.events import Noted, Record, Undone
from margin.tui.table.reader import Skipping

IDS = st.text(alphabet="abé", min_size=0, max_size=4)


@given(st.lists(IDS, max_size=30), IDS)
def test_an_id_is_found_only_as_a_whole_id(ids: list[str], wanted: str) -> None:
    commands = Commands()
    for command in ids:
        commands.append(command)
    newest = max((i for i, c in enumerate(ids) if c == wanted), default=None)
    assert commands.find(wanted) == newest
    assert list(commands) == ids
    assert list(reversed(commands)) == ids[::-1]
    assert (wanted in commands) == (wanted in ids)


def walked(links: dict[int, list[int]], start: set[int], voided: set[int]) -> list[int]:
    out: set[int] = set()
    stack = list(start)
    while stack:
        seq = stack.pop()
        if seq in out or seq in voided:
            continue
        out.add(seq)
        stack.extend(links.get(seq, ()))
    return sorted(out)


@st.composite
def logs(draw: st.DrawFn) -> tuple[list[Record], bool]:
    """Records of commands of one to three records, some naming a cause; ``backward``:
    causes may name a later record or the record itself."""
    backward = draw(st.booleans())
    records: list[Record] = []
    seq = 0
    for n in range(draw(st.integers(1, 25))):
        for _ in range(draw(st.integers(1, 3))):
            seq += 1
            top = seq + 5 if backward else seq - 1
            cause = draw(st.none() | st.integers(1, top)) if top >= 1 else None
            event = Noted(text=f"{seq}")
            records.append(
                Record(seq=seq, at="", author="gm", command=f"c{n}", event=event, cause=cause)
            )
    return records, backward


@given(logs(), st.data())
def test_an_undo_voids_what_a_walk_of_the_links_reaches(
    log: tuple[list[Record], bool], data: st.DataObject
) -> None:
    records, _ = log
    history = History()
    links: dict[int, list[int]] = {}
    for record in records:
        if record.command != history._current:
            history.start_command(record)
        if record.cause is not None:
            history.cause(record, record.cause)
            links.setdefault(record.cause, []).append(record.seq)
    history.head = records[-1].seq
    voided = set(data.draw(st.lists(st.integers(1, history.head), max_size=4)))
    history.voided = voided
    for command in dict.fromkeys(r.command for r in records):
        own = {r.seq for r in records if r.command == command}
        assert list(history.seqs(command)) == sorted(own)
        assert history.cascade(command) == walked(links, own - voided, voided)
    assert history.command_of(history.head) == records[-1].command


@given(logs())
def test_a_snapshot_keeps_the_history_whole(log: tuple[list[Record], bool]) -> None:
    records, _ = log
    history = History()
    history.extend(records)
    history.gm_only.add(1)
    history.change(
        Record(
            seq=history.head, at="", author="gm", command="u", event=Undone(command="c0", voids=[1])
        )
    )
    state = TableState(system="2d10-edge", seq=history.head)
    restored = snapshots.decode(snapshots.encode(snapshots.encode_fold(state, history)))
    assert restored is not None
    assert restored.history == history


@given(st.sets(st.integers(1, 60)), st.sets(st.integers(0, 70)), st.integers(-70, 70))
def test_a_replay_as_corrected_lists_the_records_less_the_skipped(
    listed: set[int], skip: set[int], place: int
) -> None:
    seqs = array("q", sorted(listed))
    kept = [s for s in seqs if s not in skip]
    corrected = Skipping(seqs, skip)
    assert len(corrected) == len(kept)
    assert list(corrected) == kept
    assert [corrected[i] for i in range(len(kept))] == kept
    assert corrected[2:7] == kept[2:7]
    if -len(kept) <= place < len(kept):
        assert corrected[place] == kept[place]
    else:
        with pytest.raises(IndexError):
            corrected[place]
    assert bisect.bisect_right(corrected, place) == bisect.bisect_right(kept, place)


@given(
    st.lists(st.integers(-50, 50), unique=True, max_size=20),
    st.integers(0, 20),
    st.booleans(),
    st.integers(-60, 60),
)
def test_a_sorted_column_finds_a_number_where_a_list_would(
    numbers: list[int], split: int, mapped: bool, wanted: int
) -> None:
    # part of the column on a snapshot's bytes (mapped or copied), the rest appended after
    numbers.sort()
    base, tail = numbers[:split], numbers[split:]
    column = Column("q", array("q", base).tobytes(), mapped)
    column.extend(tail)
    place = numbers.index(wanted) if wanted in numbers else -1
    assert column.find(wanted) == place
    assert column.holds(wanted) == (place >= 0)
    lens_numbers = Numbers(column)
    assert (wanted in lens_numbers) == (place >= 0)
    assert lens_numbers.get(wanted) == (place + 1 if place >= 0 else None)


@given(
    st.lists(st.integers(-50, 50), max_size=20),
    st.integers(0, 20),
    st.booleans(),
    st.lists(st.tuples(st.integers(-25, 25), st.integers(-50, 50)), max_size=4),
)
def test_a_column_on_a_snapshots_bytes_reads_and_grows_as_a_list_does(
    numbers: list[int], split: int, mapped: bool, inserts: list[tuple[int, int]]
) -> None:
    # the base on a snapshot's bytes (mapped: read where they lie), the rest appended; then
    # numbers inserted anywhere, as a table written out of order has them
    base, tail = numbers[:split], numbers[split:]
    column = Column("q", array("q", base).tobytes(), mapped)
    column.extend(tail)
    plain = list(numbers)
    for at, value in inserts:
        column.insert(at, value)
        plain.insert(at, value)
    assert list(column) == plain
    assert len(column) == len(plain)
    assert column[1:-1] == plain[1:-1]
    assert [column[i] for i in range(-len(plain), len(plain))] == plain + plain
    assert column.last() == (plain[-1] if plain else None)
    assert Column("q", column.data()) == column
    with pytest.raises(IndexError):
        column[len(plain)]
    if plain == sorted(plain):
        for value in range(-52, 53):
            assert column.bisect_left(value) == bisect.bisect_left(plain, value)
            assert column.bisect_right(value) == bisect.bisect_right(plain, value)


@given(st.lists(IDS, max_size=12), st.integers(0, 12), st.booleans(), IDS)
def test_ids_on_a_snapshots_bytes_read_and_are_found_as_in_memory(
    ids: list[str], split: int, mapped: bool, wanted: str
) -> None:
    # the first ids from a snapshot's bytes (mapped or copied), the next appended after
    kept = Commands()
    kept.extend(ids[:split])
    commands = Commands(*kept.data(), mapped=mapped)
    for command in ids[split:]:
        commands.append(command)
    assert list(commands) == ids
    assert list(reversed(commands)) == ids[::-1]
    found = commands.find(wanted)
    assert found == (len(ids) - 1 - ids[::-1].index(wanted) if wanted in ids else None)
    assert Commands(*commands.data()) == commands
