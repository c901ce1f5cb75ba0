"""What every store promises, as one test class each backend subclasses.

A subclass gives the ``name`` fixture: a name ``open_store`` and
``build_store`` take (a file path, a ``memory:`` name, a ``postgresql://``
URL) where no table is yet. Everything else goes through the ``Store``
protocol, so a backend that passes here can stand wherever the SQLite store
stands.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from margin.events import (
    FORMAT,
    ConcurrencyError,
    Draft,
    Noted,
    Record,
    Rolled,
    Store,
    StoreError,
    TableCreated,
    Unvouched,
    build_store,
    chain_hash,
    encode_body,
    follow,
    open_store,
    table_exists,
    utc_now,
)
from margin.events import store as store_module
from margin.events.history import Ledger
from margin.events.signing import SigningKey
from margin.events.store import Row


def created(store: Store) -> Store:
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    return store


def notes(store: Store, *texts: str, command: str = "c") -> None:
    store.append([Draft(Noted(text=t)) for t in texts], store.refresh(), command=command)


def chained(store: Store, text: str = "forged", command: str = "forger") -> Row:
    """A note chained onto the table's last record, as a row inserted outside margin is."""
    last = list(store.rows(store.refresh() - 1))[-1]
    seq = last.seq + 1
    record = Record(seq=seq, at=utc_now(), author="gm", command=command, event=Noted(text=text))
    body = encode_body(record)
    return seq, command, FORMAT, last.hash, chain_hash(last.hash, body), body


def all_at_once(writers: list[Store], write: Callable[[int, Store], None]) -> list[BaseException]:
    """``write(w, writer)`` for each writer in a thread of its own, all at once, each writer
    closed after; what they raised."""
    errors: list[BaseException] = []

    def run(w: int, own: Store) -> None:
        try:
            write(w, own)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w, s)) for w, s in enumerate(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for s in writers:
        s.close()
    return errors


class Reads:
    """The ranges a store's ``rows`` is asked for."""

    def __init__(self, store: Store) -> None:
        self.ranges: list[tuple[int, int | None]] = []
        real = store.rows

        def rows(after: int = 0, upto: int | None = None):
            self.ranges.append((after, upto))
            return real(after, upto)

        store.rows = rows  # type: ignore[method-assign]


class StoreContract:
    @pytest.fixture
    def name(self, tmp_path: Path) -> str:
        raise NotImplementedError

    @pytest.fixture
    def store(self, name: str) -> Iterator[Store]:
        with build_store(name) as made:
            created(made)
        store = open_store(name)
        yield store
        store.close()

    def other(self, name: str, **kwargs: object) -> Store:
        """A second connection to the table, as another process would open it."""
        return open_store(name, **kwargs)  # type: ignore[arg-type]

    def other_wrote_first(self, name: str) -> Store:
        """A second connection that has appended record 2, note "first" (command c1), after
        the table's creation; the caller closes it."""
        other = self.other(name)
        other.append([Draft(Noted(text="first"))], 1, command="c1")
        return other

    # -- appending ---------------------------------------------------------

    def test_is_a_store(self, store: Store) -> None:
        assert isinstance(store, Store)

    def test_append_numbers_records_gaplessly_and_chains_them(self, store: Store) -> None:
        recs = store.append(
            [Draft(Noted(text="a")), Draft(Noted(text="b"), cause=2)], 1, command="c1"
        )
        assert [r.seq for r in recs] == [2, 3]
        assert recs[1].cause == 2
        assert store.last_seq == 3
        rows = list(store.rows())
        assert [r.seq for r in rows] == [1, 2, 3]
        assert rows[1].prev == rows[0].hash
        assert rows[2].prev == rows[1].hash
        assert [r.command for r in rows] == ["c0", "c1", "c1"]
        assert store.verify() is None

    def test_records_read_back_as_appended(self, store: Store) -> None:
        made = store.append(
            [Draft(Rolled(actor="gm", dice="1d6", faces=[4], total=4))],
            1,
            command="c1",
            author="kael",
            at="2026-11-29T20:00:00.000000Z",
        )
        assert list(store.records(1)) == made
        assert store.record(2) == made[0]
        assert store.record(2).author == "kael"

    def test_ranges_are_after_exclusive_upto_inclusive(self, store: Store) -> None:
        for i in range(5):
            notes(store, f"n{i}")
        assert [r.seq for r in store.records(2, 4)] == [3, 4]
        assert [r.seq for r in store.rows(0, 2)] == [1, 2]
        assert [r.seq for r in store.records(6)] == []
        assert [r.seq for r in store.records(4, 2)] == []

    def test_a_missing_record_is_a_store_error(self, store: Store) -> None:
        with pytest.raises(StoreError, match="no record 9"):
            store.record(9)

    def test_nothing_to_append_writes_nothing(self, store: Store) -> None:
        assert store.append([], 1, command="c") == []
        assert store.last_seq == 1

    def test_stale_writer_gets_a_concurrency_error_and_nothing_is_written(
        self, store: Store, name: str
    ) -> None:
        other = self.other_wrote_first(name)
        try:
            with pytest.raises(ConcurrencyError) as err:
                store.append(
                    [Draft(Noted(text="late")), Draft(Noted(text="late too"))], 1, command="c2"
                )
            assert (err.value.expected, err.value.actual) == (1, 2)
            assert [r.event.text for r in store.records(1)] == ["first"]
            assert store.refresh() == 2
            assert store.append([Draft(Noted(text="after"))], 2, command="c3")[0].seq == 3
        finally:
            other.close()

    def test_a_failing_batch_appends_none_of_its_events(self, store: Store) -> None:
        class BadEvent:
            def __getattr__(self, name: str) -> object:
                raise RuntimeError(name)

        with pytest.raises(Exception):  # noqa: B017, PT011 - any encoding failure must roll back
            store.append([Draft(Noted(text="ok")), Draft(BadEvent())], 1, command="c1")  # type: ignore[arg-type]
        assert store.last_seq == 1
        assert store.refresh() == 1
        assert store.append([Draft(Noted(text="next"))], 1, command="c2")[0].seq == 2

    def test_concurrent_writers_leave_a_gapless_log(self, store: Store, name: str) -> None:
        writers = [self.other(name) for _ in range(4)]

        def write(w: int, own: Store) -> None:
            for i in range(15):
                while True:
                    try:
                        own.append(
                            [Draft(Noted(text=f"w{w} {i}")), Draft(Noted(text="and"))],
                            own.refresh(),
                            command=f"w{w}-{i}",
                        )
                        break
                    except ConcurrencyError:
                        continue

        assert not all_at_once(writers, write)
        rows = list(store.rows())
        assert [r.seq for r in rows] == list(range(1, 122))
        by_command: dict[str, list[int]] = {}
        for r in rows:
            by_command.setdefault(r.command, []).append(r.seq)
        assert all(
            b - a == 1 for seqs in by_command.values() for a, b in zip(seqs, seqs[1:], strict=False)
        )
        assert store.verify() is None

    def test_a_decided_append_follows_what_another_wrote_meanwhile(
        self, store: Store, name: str
    ) -> None:
        self.other_wrote_first(name).close()
        seen: list[int] = []

        def decide() -> tuple[list[Draft], int]:
            seen.append(store.refresh())
            return [Draft(Noted(text="after it"))], seen[-1]

        records = store.append_decided(decide, command="c2", author="w")
        assert seen == [2]
        assert [(r.seq, r.command, r.author) for r in records] == [(3, "c2", "w")]
        assert store.last_seq == 3
        assert store.append_decided(lambda: ([], store.last_seq), command="c3") == []

        def refuse() -> tuple[list[Draft], int]:
            raise StoreError("refused while deciding")

        with pytest.raises(StoreError, match="refused while deciding"):
            store.append_decided(refuse, command="c4")
        assert store.refresh() == 3
        assert store.verify() is None

    def test_decided_writers_take_turns_and_never_decide_twice(
        self, store: Store, name: str
    ) -> None:
        writers = [self.other(name) for _ in range(4)]
        decisions: list[str] = []

        def write(w: int, own: Store) -> None:
            for i in range(15):

                def decide(command: str = f"w{w}-{i}") -> tuple[list[Draft], int]:
                    decisions.append(command)
                    return [Draft(Noted(text=command)), Draft(Noted(text="and"))], own.refresh()

                own.append_decided(decide, command=f"w{w}-{i}")

        assert not all_at_once(writers, write)
        # no writer came between another's decision and its records
        assert sorted(decisions) == sorted({f"w{w}-{i}" for w in range(4) for i in range(15)})
        rows = list(store.rows())
        assert [r.seq for r in rows] == list(range(1, 122))
        assert [r.command for r in rows[1::2]] == [r.command for r in rows[2::2]]
        assert store.verify() is None

    def test_read_only_refuses_to_append(self, store: Store, name: str) -> None:
        reader = self.other(name, readonly=True)
        try:
            assert reader.readonly
            assert reader.last_seq == 1
            with pytest.raises(StoreError, match="read-only"):
                reader.append([Draft(Noted(text="x"))], 1, command="c")
            with pytest.raises(StoreError, match="read-only"):
                reader.append_decided(lambda: ([Draft(Noted(text="x"))], 1), command="c")
        finally:
            reader.close()

    # -- signing -----------------------------------------------------------

    def test_every_append_signs_its_head(self, store: Store) -> None:
        key = SigningKey.generate()
        store.signer = key
        notes(store, "a", "b", command="c1")
        notes(store, "c", command="c2")
        signed = [(r.seq, r.key) for r in store.rows() if r.sig]
        assert signed == [(3, key.public), (4, key.public)]
        verdict = store.check(key.public)
        assert verdict.bad is None
        assert verdict.records == 4
        # record 1 was written unsigned, but the head at 3 covers it through the chain
        assert verdict.signatures.covered == 4
        assert store.check(SigningKey.generate().public).bad == 1

    def test_unsigned_records_after_the_last_signed_head_are_not_covered(
        self, store: Store
    ) -> None:
        store.signer = SigningKey.generate()
        notes(store, "signed")
        key = store.signer.public
        store.signer = None
        notes(store, "unsigned")
        verdict = store.check(key)
        assert verdict.bad == 3
        assert "not signed" in verdict.reason

    # -- signing only what was checked -------------------------------------
    #
    # A forger who may write the table but holds no GM's key adds rows with the
    # engine's own inserts (``import_rows``, ``import_signatures``: what an
    # INSERT outside margin does); the GM's next append must refuse to sign
    # after them, and write nothing.

    @pytest.fixture
    def gm(self, store: Store) -> SigningKey:
        """The GM's key, which has signed record 2 of ``store``."""
        store.signer = SigningKey.generate()
        notes(store, "signed", command="c1")
        return store.signer

    def forge(
        self, name: str, *rows: Row, signatures: tuple[tuple[int, str, str], ...] = ()
    ) -> None:
        forger = self.other(name)
        try:
            forger.import_rows(rows)
            forger.import_signatures(signatures)
        finally:
            forger.close()

    def refused(self, store: Store, seq: int, reason: str) -> None:
        """The GM's next command is refused, naming record ``seq``, and nothing is written."""
        before = list(store.rows())
        with pytest.raises(Unvouched) as err:
            store.append([Draft(Noted(text="the GM's"))], store.refresh(), command="gm")
        assert (err.value.seq, err.value.reason) == (seq, reason)
        assert f"{store.name}: record {seq} {reason}; nothing was written" in str(err.value)
        assert list(store.rows()) == before
        assert store.refresh() == before[-1].seq

    def test_a_signer_refuses_to_sign_after_a_row_inserted_after_the_head(
        self, store: Store, name: str, gm: SigningKey
    ) -> None:
        self.forge(name, chained(store))
        self.refused(store, 3, "is not signed (inserted outside margin?)")
        # verify names it too, with the key or without, never as an earlier margin's
        assert (store.check().bad, store.check().reason) == (
            3,
            "is not signed (inserted outside margin?)",
        )
        assert store.check(gm.public).bad == 3

    def test_a_later_signature_never_vouches_for_a_row_inserted_before_it(
        self, store: Store, name: str, gm: SigningKey
    ) -> None:
        forged = chained(store)
        self.forge(name, forged)
        # an earlier margin signed over whatever it found: the forged row is now inside the log
        after = chained(store, "signed over", command="c2")
        self.forge(name, after, signatures=((4, gm.public, gm.sign(4, after[4])),))
        self.refused(store, 3, "is not signed (inserted outside margin?)")
        assert store.check(gm.public).bad == 3

    def test_a_signer_refuses_a_signature_row_that_does_not_match(
        self, store: Store, name: str, gm: SigningKey
    ) -> None:
        forged = chained(store)
        self.forge(name, forged, signatures=((3, gm.public, gm.sign(2, forged[4])),))
        self.refused(store, 3, f"has a signature by {gm.public} that does not match")
        assert store.check().bad == 3

    def test_a_signer_refuses_another_keys_record_once_it_has_signed_the_table(
        self, store: Store, name: str, gm: SigningKey
    ) -> None:
        forger = SigningKey.generate()
        forged = chained(store)
        self.forge(name, forged, signatures=((3, forger.public, forger.sign(3, forged[4])),))
        self.refused(
            store,
            3,
            f"is signed by another key, {forger.public}, not by this GM's (inserted outside "
            "margin? a key of the GM's own goes in trusted-keys)",
        )
        # the signature itself is sound: verify passes, and says whose it is
        verdict = store.check()
        assert verdict.bad is None
        assert verdict.signatures.describe() == (
            f"records 1 unsigned (written by an earlier margin), 1 signed by {gm.public}, "
            f"1 signed by another key, {forger.public}"
        )
        assert store.check(gm.public).bad == 3
        # a key the GM lists as theirs is taken
        store.trusted = frozenset({forger.public})
        notes(store, "after a trusted key")
        assert store.last_seq == 4

    def test_a_signer_takes_a_table_on_with_the_keys_that_signed_it_before(
        self, store: Store
    ) -> None:
        earlier, gm, stranger = (SigningKey.generate() for _ in range(3))
        store.signer = earlier
        notes(store, "the table's first GM")
        store.signer = gm
        notes(store, "taken on")
        store.signer, store.trusted = earlier, frozenset({gm.public})
        notes(store, "the first GM again, who trusts the second")
        store.signer, store.trusted = gm, frozenset()
        notes(store, "the second GM again")
        store.signer = stranger  # who has never signed here: takes the table as it is
        notes(store, "a stranger")
        store.signer = gm
        self.refused(
            store,
            6,
            f"is signed by another key, {stranger.public}, not by this GM's (inserted outside "
            "margin? a key of the GM's own goes in trusted-keys)",
        )

    def test_records_of_an_earlier_margin_are_signed_over_and_said_unsigned(
        self, store: Store
    ) -> None:
        notes(store, "an earlier margin's", "unsigned")
        assert store.check().signatures.describe() == "unsigned (written by an earlier margin)"
        store.signer = key = SigningKey.generate()
        notes(store, "signed", command="c1")
        verdict = store.check(key.public)
        assert verdict.bad is None
        assert verdict.signatures.describe() == (
            f"records 3 unsigned (written by an earlier margin), 1 signed by {key.public}"
        )
        store.signer = None
        notes(store, "unsigned again", command="c2")
        assert (store.check().bad, store.check().reason) == (
            5,
            "is not signed (inserted outside margin?)",
        )

    def test_a_signer_reads_only_the_records_since_the_last_it_checked(
        self, store: Store, name: str
    ) -> None:
        key = SigningKey.generate()
        store.signer = key
        reads = Reads(store)
        notes(store, "a", command="c1")
        notes(store, "b", command="c2")
        other = self.other(name, signer=key)
        try:
            for i in range(3):
                notes(other, f"o{i}", command=f"o{i}")
        finally:
            other.close()
        notes(store, "c", command="c3")
        assert reads.ranges == [(0, None), (3, None)]
        assert store.check(key.public).bad is None

    def test_a_ledger_spares_the_next_process_what_was_checked_and_no_more(
        self, store: Store, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(store_module, "KEEP_EVERY", 3)
        key = SigningKey.generate()
        ledger = Ledger(tmp_path / "checked")

        def writer(table: str) -> Store:
            opened = self.other(table, signer=key)
            opened.ledger = ledger
            return opened

        first = writer(name)
        try:
            for i in range(4):  # record 1 read, then its own: kept at 1, and again at 4
                notes(first, f"n{i}", command=f"c{i}")
        finally:
            first.close()
        store.signer = key
        notes(store, "by another writer", command="c9")  # record 6, not checked yet
        second = writer(name)
        try:
            reads = Reads(second)
            notes(second, "next", command="c10")
            # record 1 (whose hash names the table's file), record 4 (where it was kept), then on
            assert reads.ranges == [(0, 1), (3, 4), (4, None)]
        finally:
            second.close()
        # a branch shares records 1..3 and then parts: what was kept at 4 is not its history
        branch = name + "-branch"
        with build_store(branch) as made:
            made.import_rows(
                [(r.seq, r.command, r.v, r.prev, r.hash, r.body) for r in store.rows(0, 3)]
            )
            made.import_signatures([(r.seq, r.key, r.sig) for r in store.rows(0, 3) if r.sig])
            made.signer = key
            notes(made, "the branch parts", command="b1")
        third = writer(branch)
        try:
            reads = Reads(third)
            notes(third, "in the branch", command="b2")
            assert reads.ranges[-1] == (0, None)
        finally:
            third.close()

    # -- following ---------------------------------------------------------

    def test_data_version_and_wait_tell_of_another_connections_commit(
        self, store: Store, name: str
    ) -> None:
        reader = self.other(name, readonly=True)
        try:
            before = reader.data_version()
            assert reader.wait(0.05) is False
            notes(store, "news")
            assert reader.wait(5.0) is True
            assert reader.data_version() != before
            assert reader.refresh() == 2
            assert [r.seq for r in reader.records(1)] == [2]
            assert reader.wait(0.05) is False
        finally:
            reader.close()

    def test_follow_delivers_new_records_in_order(self, store: Store, name: str) -> None:
        reader = self.other(name, readonly=True)
        seen: list[int] = []
        done = threading.Event()

        def on_records(batch: list) -> None:  # type: ignore[type-arg]
            seen.extend(r.seq for r in batch)
            if seen[-1] >= 7:
                done.set()

        thread = threading.Thread(
            target=follow, args=(reader, 1, on_records), kwargs={"stop": done.is_set}
        )
        notes(store, "before the follower started")
        thread.start()
        for i in range(5):
            notes(store, str(i))
            time.sleep(0)
        assert done.wait(10)
        thread.join(10)
        reader.close()
        assert seen == [2, 3, 4, 5, 6, 7]

    # -- importing, building, copying --------------------------------------

    def test_import_rows_checks_every_link(self, store: Store, name: str, tmp_path: Path) -> None:
        notes(store, "a", "b")
        rows = [(r.seq, r.command, r.v, r.prev, r.hash, r.body) for r in store.rows()]
        with (
            pytest.raises(StoreError, match="record 2 is missing"),
            build_store(name + "-gap") as copy,
        ):
            copy.import_rows([rows[0], rows[2]])
        assert not table_exists(name + "-gap")
        tampered = (*rows[1][:5], rows[1][5].replace(b'"a"', b'"A"'))
        with (
            pytest.raises(StoreError, match="record 2: hash chain broken"),
            build_store(name + "-bad") as copy,
        ):
            copy.import_rows([rows[0], tampered])
        assert not table_exists(name + "-bad")
        with build_store(name + "-good") as copy:
            assert copy.import_rows(rows) == 3
            copy.import_signatures([(3, "ed25519:x", "sig")])
        with open_store(name + "-good", readonly=True) as copy:
            assert [r.hash for r in copy.rows()] == [r[4] for r in rows]
            assert [(r.key, r.sig) for r in copy.rows()][-1] == ("ed25519:x", "sig")

    def test_a_table_being_built_is_not_there_until_it_is_complete(self, name: str) -> None:
        class Stop(Exception):
            pass

        # the build is looked at from inside, then left by the exception
        with pytest.raises(Stop), build_store(name) as made:  # noqa: PT012
            created(made)
            assert not table_exists(name)
            raise Stop
        assert not table_exists(name)
        with pytest.raises(StoreError):
            open_store(name)
        with build_store(name) as made:
            created(made)
        assert table_exists(name)
        with pytest.raises(StoreError, match="already exists"), build_store(name) as made:
            created(made)

    def test_backup_copies_every_row_and_signature_into_a_table_file(
        self, store: Store, tmp_path: Path
    ) -> None:
        store.signer = SigningKey.generate()
        notes(store, "a", "b")
        dest = tmp_path / "copy.margin"
        assert store.backup(str(dest)) == 3
        with open_store(dest, readonly=True) as copy:
            assert list(copy.rows()) == list(store.rows())
            assert copy.check(store.signer.public).bad is None
        with pytest.raises(StoreError, match="already exists"):
            store.backup(str(dest))

    def test_check_finds_no_fault_in_a_sound_table(self, store: Store) -> None:
        notes(store, "a")
        verdict = store.check()
        assert (verdict.records, verdict.bad) == (2, None)
        assert store.location().startswith("from ")

    # -- snapshots ---------------------------------------------------------

    def test_a_snapshot_kept_is_found_by_its_fold_at_the_record_it_names(
        self, store: Store, name: str
    ) -> None:
        notes(store, "a", "b")
        assert store.snapshot("f1") is None
        assert store.keep_snapshot(2, "f1", b"at two")
        assert store.keep_snapshot(3, "f1", b"at three")
        assert store.keep_snapshot(3, "f2", b"another fold")
        found = store.snapshot("f1")
        assert found is not None
        assert (found.seq, found.fold, found.body) == (3, "f1", b"at three")
        assert found.hash == list(store.rows(2, 3))[0].hash
        older = store.snapshot("f1", upto=2)
        assert older is not None
        assert older.body == b"at two"
        assert store.snapshot("f1", upto=1) is None
        assert store.snapshot("f3") is None
        other = self.other(name, readonly=True)
        try:
            seen = other.snapshot("f2")
            assert seen is not None
            assert seen.body == b"another fold"
        finally:
            other.close()

    def test_a_snapshot_of_a_record_not_in_the_log_is_not_kept(self, store: Store) -> None:
        assert not store.keep_snapshot(5, "f1", b"beyond the log")
        assert store.snapshot("f1") is None

    def test_only_the_newest_snapshots_of_a_fold_are_kept(self, store: Store) -> None:
        notes(store, *"abcdef")
        for seq in range(1, 8):
            assert store.keep_snapshot(seq, "f1", b"%d" % seq)
        store.keep_snapshot(1, "old", b"an earlier margin's")
        assert store.snapshot("f1", upto=7 - store_module.SNAPSHOTS_KEPT) is None
        kept = store.snapshot("f1", upto=8 - store_module.SNAPSHOTS_KEPT)
        assert kept is not None
        assert kept.seq == 8 - store_module.SNAPSHOTS_KEPT
        assert store.snapshot("old") is not None

    def test_dropped_snapshots_are_gone_and_the_log_is_as_it_was(self, store: Store) -> None:
        notes(store, "a")
        before = list(store.rows())
        store.keep_snapshot(2, "f1", b"x")
        store.keep_snapshot(1, "f2", b"y")
        assert store.drop_snapshots() == 2
        assert store.snapshot("f1") is None
        assert store.snapshot("f2") is None
        assert list(store.rows()) == before
        assert store.check().bad is None

    def test_snapshots_are_left_out_of_the_rows_verify_and_export_read(self, store: Store) -> None:
        store.signer = SigningKey.generate()
        notes(store, "a")
        rows = list(store.rows())
        store.keep_snapshot(2, "f1", b"x" * 1000)
        assert list(store.rows()) == rows
        verdict = store.check(store.signer.public)
        assert (verdict.records, verdict.bad) == (2, None)
