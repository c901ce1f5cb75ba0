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
from collections.abc import Iterator
from pathlib import Path

import pytest

from margin.events import (
    ConcurrencyError,
    Draft,
    Noted,
    Rolled,
    Store,
    StoreError,
    TableCreated,
    build_store,
    follow,
    open_store,
    table_exists,
)
from margin.events.signing import SigningKey


def created(store: Store) -> Store:
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    return store


def notes(store: Store, *texts: str, command: str = "c") -> None:
    store.append([Draft(Noted(text=t)) for t in texts], store.last_seq, command=command)


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
        other = self.other(name)
        try:
            other.append([Draft(Noted(text="first"))], 1, command="c1")
            with pytest.raises(ConcurrencyError) as err:
                store.append(
                    [Draft(Noted(text="late")), Draft(Noted(text="late too"))], 1, command="c2"
                )
            assert (err.value.expected, err.value.actual) == (1, 2)
            assert [r.event.text for r in store.records(1)] == ["first"]  # type: ignore[attr-defined]
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
        errors: list[BaseException] = []

        def write(w: int, own: Store) -> None:
            try:
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
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w, s)) for w, s in enumerate(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for s in writers:
            s.close()
        assert not errors
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
        other = self.other(name)
        try:
            other.append([Draft(Noted(text="first"))], 1, command="c1")
        finally:
            other.close()
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
        errors: list[BaseException] = []

        def write(w: int, own: Store) -> None:
            try:
                for i in range(15):

                    def decide(command: str = f"w{w}-{i}") -> tuple[list[Draft], int]:
                        decisions.append(command)
                        return [Draft(Noted(text=command)), Draft(Noted(text="and"))], own.refresh()

                    own.append_decided(decide, command=f"w{w}-{i}")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w, s)) for w, s in enumerate(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for s in writers:
            s.close()
        assert not errors
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
