"""A fold read a stretch at a time (with its checkpoints' tails) equals the plain fold."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from margin.core import Projection, TableState, evolve
from margin.core.history import History
from margin.events import (
    PUBLIC,
    Noted,
    Record,
    Redone,
    Rolled,
    TableCreated,
    Undone,
    Visibility,
)

#: a command: a note, a roll and the roll it caused, an undo of the n-th command still in
#: force from the end, a redo, a GM-only note, a roll whose faces players do not see, or a
#: note to one player
command = st.one_of(
    st.tuples(st.just("note")),
    st.tuples(st.just("roll"), st.integers(1, 6)),
    st.tuples(st.just("undo"), st.integers(0, 3) | st.integers(0, 40)),
    st.tuples(st.just("redo")),
    st.tuples(st.just("secret")),
    st.tuples(st.just("hidden"), st.integers(1, 6)),
    st.tuples(st.just("whisper")),
)


def log(ops: list[tuple[Any, ...]]) -> list[Record]:
    """Records of the commands, each undo voiding a command still in force."""
    records = [
        Record(seq=1, at="t", author="gm", command="c0", event=TableCreated(system="2d10-edge"))
    ]
    standing: list[tuple[str, list[int]]] = []
    undone: list[tuple[str, list[int]]] = []

    def add(cid: str, event: Any, cause: int | None = None, visibility: Visibility = PUBLIC) -> int:
        seq = len(records) + 1
        records.append(
            Record(
                seq=seq,
                at="t",
                author="gm",
                command=cid,
                event=event,
                cause=cause,
                visibility=visibility,
            )
        )
        return seq

    for n, op in enumerate(ops, 1):
        cid = f"c{n}"
        if op[0] == "undo" and standing:
            target, seqs = standing.pop(-1 - op[1] % len(standing))
            add(cid, Undone(command=target, voids=seqs))
            undone.append((target, seqs))
        elif op[0] == "redo" and undone:
            target, seqs = undone.pop()
            add(cid, Redone(command=target, restores=seqs))
            standing.append((target, seqs))
        elif op[0] == "roll":
            first = add(cid, Rolled(actor="gm", dice="1d6", faces=[op[1]], total=op[1]))
            second = add(cid, Rolled(actor="gm", dice="1d6", faces=[1], total=1), cause=first)
            standing.append((cid, [first, second]))
        elif op[0] == "hidden":
            roll = Rolled(actor="gm", dice="1d6", faces=[op[1]], total=op[1], secret=True)
            standing.append((cid, [add(cid, roll, visibility=Visibility(hidden=("faces",)))]))
        elif op[0] in ("note", "secret", "whisper"):
            seen = {"secret": Visibility(gm_only=True), "whisper": Visibility(to="kael")}
            standing.append((cid, [add(cid, Noted(text=cid), visibility=seen.get(op[0], PUBLIC))]))
    return records


def plain(records: list[Record], upto: int, corrected: bool) -> Any:
    """The state after record ``upto`` folded one record at a time from the start."""
    voided: set[int] = set()
    for record in records[: len(records) if corrected else upto]:
        event = record.event
        if isinstance(event, Undone):
            voided.update(event.voids)
        elif isinstance(event, Redone):
            voided.difference_update(event.restores)
    state = TableState()
    for record in records[:upto]:
        if record.seq in voided or isinstance(record.event, Undone | Redone):
            state.seq = record.seq
        else:
            evolve(state, record)
    return msgspec.to_builtins(state)


def one_by_one(records: list[Record]) -> History:
    """The history taken in a record at a time through its single steps."""
    history = History()
    for record in records:
        if record.command != history._current:
            history.start_command(record)
        if record.cause is not None:
            history.cause(record, record.cause)
        if record.visibility != PUBLIC:
            history.hide(record)
        if isinstance(record.event, Undone | Redone):
            history.change(record)
        history.head = record.seq
    return history


@settings(max_examples=60, deadline=None)
@given(st.lists(command, min_size=30, max_size=150), st.sampled_from([3, 20, 25]), st.data())
def test_a_fold_by_stretches_equals_a_fold_record_by_record(
    ops: list[tuple[Any, ...]], every: int, data: st.DataObject
) -> None:
    records = log(ops)

    def fetch(after: int, upto: int) -> list[Record]:
        return records[after:upto]

    whole = Projection(fetch, every=every)
    whole.extend(records)
    # the same log arriving in pieces of random lengths
    pieces = Projection(fetch, every=every)
    at = 0
    while at < len(records):
        step = data.draw(st.integers(1, 2 * every))
        pieces.extend(records[at : at + step])
        at += step
    last = len(records)
    reference = msgspec.to_builtins(one_by_one(records).data())
    for projection in (whole, pieces):
        assert msgspec.to_builtins(projection.state) == plain(records, last, False)
        assert msgspec.to_builtins(projection.history.data()) == reference
    for seq in range(1, last + 1):
        for corrected in (False, True):
            want = plain(records, seq, corrected)
            for projection in (whole, pieces):
                assert msgspec.to_builtins(projection.state_at(seq, corrected)) == want


@settings(max_examples=40, deadline=None)
@given(st.lists(command, min_size=30, max_size=150), st.sampled_from([3, 20]), st.data())
def test_records_that_skip_numbers_fold_as_they_do_one_at_a_time(
    ops: list[tuple[Any, ...]], every: int, data: st.DataObject
) -> None:
    # a stretch is taken whole only when its records are one after another; records that
    # skip numbers are looked at one by one, to the same state, history and checkpoints
    records = log(ops)
    gone = data.draw(st.sets(st.integers(2, len(records)), min_size=1))
    left = [record for record in records if record.seq not in gone]

    def fetch(after: int, upto: int) -> list[Record]:
        return [record for record in left if after < record.seq <= upto]

    whole, single = Projection(fetch, every=every), Projection(fetch, every=every)
    whole.extend(left)
    for record in left:
        single.apply(record)
    assert msgspec.to_builtins(whole.state) == msgspec.to_builtins(single.state)
    assert msgspec.to_builtins(whole.history.data()) == msgspec.to_builtins(single.history.data())
    marks = [mark for mark, _ in single.checkpoints()]
    assert [mark for mark, _ in whole.checkpoints()] == marks
    assert marks == [record.seq for record in left if record.seq % every == 0]
