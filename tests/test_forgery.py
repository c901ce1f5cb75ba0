"""Rows forged into a table: margin never signs after what it has not checked.

A forger who may write a table but holds no GM's key adds rows with the
engine's own client, as one would: the ``sqlite3`` shell on a table file,
``psql`` on a table in PostgreSQL (as a superuser here: the roles the docs
give writers cannot; ``test_cli_postgres.py`` tries them). Each forgery is
refused by the GM's next ``margin do``, run as its own process, before
anything is signed over it, and ``branch``, ``new --from``, ``import`` and
``backup`` refuse to carry it on. ``margin verify`` names what it cannot vouch
for and never takes a forged row for an earlier margin's.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from forging import Row, chained, forge
from support import margin_do, margin_process

from margin.events import StoredRow, open_store
from margin.events.signing import SigningKey
from margin.tui.table.keys import CHECKED_FOLDER, data_dir, signing_key

TABLES = Path(__file__).parent / "tables"
NOT_SIGNED = "is not signed (inserted outside margin?)"


def stored(table: str) -> list[StoredRow]:
    with open_store(table, readonly=True) as store:
        return list(store.rows())


@pytest.fixture
def table(table_name: str) -> str:
    """A table of five records, each a command the GM signed."""
    assert margin_process("new", table_name, "--system", "2d10-edge").returncode == 0
    code, _ = margin_do(
        table_name, *({"type": "note", "text": t} for t in ("one", "two", "three", "four"))
    )
    assert code == 0
    return table_name


def after_the_head(rows: list[StoredRow]) -> list[Row]:
    return [chained(rows[-1])]


def in_the_middle(rows: list[StoredRow]) -> list[Row]:
    """A forged row, then a command signed with the GM's key over it, as the margin
    that signed whatever it found left it."""
    forged = chained(rows[-1])
    after = chained(forged, "signed over", command="next")
    gm = signing_key()
    after.key, after.sig = gm.public, gm.sign(after.seq, after.hash)
    return [forged, after]


def past_the_head(rows: list[StoredRow]) -> list[Row]:
    """A row numbered as if one came between."""
    forged = chained(rows[-1])
    forged.seq += 1
    return [forged]


def off_the_chain(rows: list[StoredRow]) -> list[Row]:
    forged = chained(rows[-1])
    forged.prev = rows[-2].hash
    return [forged]


def a_signature_that_does_not_match(rows: list[StoredRow]) -> list[Row]:
    """The GM's own signature of the head, copied onto the forged row."""
    forged = chained(rows[-1])
    forged.key, forged.sig = rows[-1].key, rows[-1].sig
    return [forged]


FORGER = SigningKey.generate()


def another_keys_signature(rows: list[StoredRow]) -> list[Row]:
    forged = chained(rows[-1])
    forged.key, forged.sig = FORGER.public, FORGER.sign(forged.seq, forged.hash)
    return [forged]


FORGERIES: dict[str, tuple[Callable[[list[StoredRow]], list[Row]], int, str]] = {
    "after the head": (after_the_head, 6, NOT_SIGNED),
    "in the middle": (in_the_middle, 6, NOT_SIGNED),
    "past the head": (past_the_head, 6, "is missing or out of order"),
    "off the chain": (off_the_chain, 6, "breaks the hash chain"),
    "a signature that does not match": (
        a_signature_that_does_not_match,
        6,
        "has a signature by {gm} that does not match",
    ),
    "another key's signature": (
        another_keys_signature,
        6,
        f"is signed by another key, {FORGER.public}, not by this GM's",
    ),
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_the_gms_next_command_is_refused_after_a_forged_row_and_nothing_is_signed(
    table: str, forgery: str
) -> None:
    make, bad, reason = FORGERIES[forgery]
    reason = reason.format(gm=signing_key().public)
    forge(table, make(stored(table)))
    before = stored(table)
    code, replies = margin_do(table, {"type": "note", "text": "the GM's next"})
    assert code == 1
    (reply,) = replies
    assert reply["error"].startswith(f"line 1: {table}: record {bad} {reason}")
    assert reply["error"].endswith(f"; nothing was written; margin verify {table} says more")
    assert stored(table) == before
    # the key that signed the table never vouches for the forged rows
    check = margin_process("verify", table, "--key", signing_key().public)
    assert check.returncode == 1
    assert f"record {bad} " in check.stderr
    assert check.stderr.count("\n") == 1


def test_verify_says_what_it_cannot_vouch_for_and_never_an_earlier_margin(table: str) -> None:
    forge(table, after_the_head(stored(table)))
    check = margin_process("verify", table)
    assert check.returncode == 1
    assert check.stderr == f"margin: {table}: record 6 {NOT_SIGNED}\n"
    assert "earlier margin" not in check.stdout + check.stderr


def test_verify_says_which_records_another_key_signed(table: str) -> None:
    forge(table, another_keys_signature(stored(table)))
    check = margin_process("verify", table)
    assert check.returncode == 0, check.stderr
    gm = signing_key().public
    assert check.stdout.endswith(
        f"chain intact; records 5 signed by {gm}, 1 signed by another key, {FORGER.public}\n"
    )
    assert "earlier margin" not in check.stdout


def no_table(name: str) -> bool:
    return margin_process("log", name).returncode == 1


def test_branch_new_from_import_and_backup_refuse_a_forged_history(
    table: str, tmp_path: Path
) -> None:
    forge(table, after_the_head(stored(table)))
    made = table + "-made" if table.startswith("postgresql://") else str(tmp_path / "made.margin")
    for args in (
        ("branch", table, "--at", "6", made),
        ("new", made, "--from", table),
        ("backup", table, made),
    ):
        done = margin_process(*args)
        assert done.returncode == 1, args
        assert done.stderr.count("\n") == 1, done.stderr
        assert f"{table}: record 6 {NOT_SIGNED}" in done.stderr, done.stderr
        assert no_table(made), args
    exported = margin_process("export", table)
    assert exported.returncode == 0
    dump = tmp_path / "t.jsonl"
    dump.write_text(exported.stdout)
    done = margin_process("import", str(dump), made)
    assert done.returncode == 1
    assert done.stderr == f"margin: {dump}: record 6 {NOT_SIGNED}\n"
    assert no_table(made)
    # what came before the forged row is the GM's: a branch of it carries the table on
    done = margin_process("branch", table, "--at", "5", made)
    assert done.returncode == 0, done.stderr
    assert margin_process("verify", made, "--key", signing_key().public).returncode == 0
    assert margin_do(made, {"type": "note", "text": "the GM goes on"})[0] == 0


def test_branch_and_new_from_refuse_another_keys_record_that_backup_copies(
    table: str, tmp_path: Path
) -> None:
    forge(table, another_keys_signature(stored(table)))
    made = table + "-made" if table.startswith("postgresql://") else str(tmp_path / "made.margin")
    for args in (("branch", table, "--at", "6", made), ("new", made, "--from", table)):
        done = margin_process(*args)
        assert done.returncode == 1, args
        assert f"{table}: record 6 is signed by another key, {FORGER.public}" in done.stderr
        assert no_table(made), args
    # its signatures are sound: a copy is the table as it is, signed by whom it says
    copy = str(tmp_path / "copy.margin")
    assert margin_process("backup", table, copy).returncode == 0
    assert stored(copy) == stored(table)


@pytest.mark.parametrize("system", ["2d10-edge", "d100-chance", "d100-under", "2d6-effect"])
def test_a_table_an_earlier_margin_signed_with_another_key_takes_the_gms_commands(
    system: str, tmp_path: Path
) -> None:
    path = tmp_path / f"{system}.margin"
    shutil.copyfile(TABLES / f"{system}.margin", path)
    (earlier,) = {row.key for row in stored(str(path)) if row.key}
    code, replies = margin_do(path, {"type": "note", "text": "a new session"})
    assert code == 0, replies
    gm = signing_key().public
    check = margin_process("verify", str(path))
    assert check.returncode == 0, check.stderr
    count = len(stored(str(path)))
    assert check.stdout.endswith(
        f"records {count - 1} signed by {earlier}, 1 signed by another key, {gm}\n"
    )
    assert margin_process("verify", str(path), "--key", gm).returncode == 0
    # the earlier GM's records are the history this GM took the table on with
    assert margin_do(path, {"type": "note", "text": "and goes on"})[0] == 0


def test_the_next_process_checks_only_what_came_since_the_last(tmp_path: Path) -> None:
    """What a writer checked is kept in the GM's data folder, by the table's first record;
    a forged row after it is still found."""
    path = str(tmp_path / "t.margin")
    assert margin_process("new", path, "--system", "2d10-edge").returncode == 0
    assert margin_do(path, *({"type": "note", "text": f"n{i}"} for i in range(3)))[0] == 0
    first = stored(path)[0].hash
    kept = json.loads((data_dir() / CHECKED_FOLDER / f"{first}.json").read_text())
    assert [h["records"] for h in kept["histories"]] == [1]
    forge(path, after_the_head(stored(path)))
    code, replies = margin_do(path, {"type": "note", "text": "the GM's next"})
    assert code == 1
    assert f"record 5 {NOT_SIGNED}" in replies[0]["error"]


def test_a_key_the_gm_lists_in_trusted_keys_is_signed_after(tmp_path: Path) -> None:
    """The keys of the GM's other machines, one a line beside the signing key."""
    path = str(tmp_path / "t.margin")
    assert margin_process("new", path, "--system", "2d10-edge").returncode == 0
    forge(path, another_keys_signature(stored(path)))
    trusted = data_dir() / "trusted-keys"
    trusted.write_text(f"# the GM's laptop\n{FORGER.public}  # and a comment\n\n")
    code, replies = margin_do(path, {"type": "note", "text": "from the desktop"})
    assert code == 0, replies
    trusted.write_text("ed25519:not-a-key\n")
    done = margin_process("do", path, stdin='{"type": "note", "text": "x"}\n')
    assert done.returncode == 1
    assert (
        done.stderr
        == f"margin: {trusted} line 1: {'ed25519:not-a-key'!r}: not a margin public key (32 bytes of base64 after ed25519:)\n"
    )
