"""Signed tables: the GM's key signs every commit, and a byte changed anywhere is found.

The chain proves that records follow one another; the signature of its head
proves who wrote them. A forger who edits a record and recomputes the chain
cannot sign the new heads with the GM's key.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support import run_margin, tamper

from margin.events import Draft, Noted, SQLiteStore, chain_hash
from margin.events.sqlite import TABLE_FORMAT
from margin.tui.table.keys import key_path, signing_key


@pytest.fixture
def run():
    def go(*args: str, stdin: str = "") -> tuple[int, str, str]:
        code, out, err = run_margin(*args, stdin=stdin)
        assert "Traceback" not in err
        assert code == 0 or err.count("\n") == 1, err
        return code, out, err

    return go


def use_data_dir(monkeypatch: Any, folder: Path) -> str:
    """Act as the GM whose margin data lives in ``folder``; their public key."""
    monkeypatch.setenv("XDG_DATA_HOME", str(folder))
    return signing_key().public


def notes(*texts: str) -> str:
    return "".join(json.dumps({"type": "note", "text": t}) + "\n" for t in texts)


@pytest.fixture
def signed(tmp_path: Path, monkeypatch: Any, run: Any) -> tuple[Path, str]:
    """A table of five records, one command each, written by the GM whose key is returned."""
    key = use_data_dir(monkeypatch, tmp_path / "gm-data")
    path = tmp_path / "t.margin"
    assert run("new", str(path), "--system", "2d10-edge")[0] == 0
    assert run("do", str(path), stdin=notes("one", "two", "three", "four"))[0] == 0
    return path, key


def test_margin_key_makes_one_key_readable_by_its_owner_only(
    tmp_path: Path, monkeypatch: Any, run: Any
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, _ = run("key")
    key = out.strip()
    assert code == 0
    assert key.startswith("ed25519:")
    assert len(key) == len("ed25519:") + 43
    assert run("key")[1].strip() == use_data_dir(monkeypatch, tmp_path / "data") == key
    assert key_path() == tmp_path / "data" / "margin" / "signing-key.pem"
    assert key_path().stat().st_mode & 0o777 == 0o600
    assert use_data_dir(monkeypatch, tmp_path / "other") != key


def test_a_table_verifies_against_its_gms_key_and_fails_against_another(
    signed: tuple[Path, str], tmp_path: Path, monkeypatch: Any, run: Any
) -> None:
    path, key = signed
    code, out, _ = run("verify", str(path), "--key", key)
    assert code == 0
    assert f"5 records checked from t.margin; chain intact; signed by {key}" in out
    key_file = tmp_path / "gm.pub"
    key_file.write_text(key + "\n")
    assert run("verify", str(path), "--key", str(key_file))[0] == 0

    other = use_data_dir(monkeypatch, tmp_path / "someone-else")
    code, _, err = run("verify", str(path), "--key", other)
    assert code == 1
    assert err == f"margin: {path}: record 1 is not signed by {other}\n"
    code, _, err = run("verify", str(path), "--key", "ed25519:nonsense")
    assert code == 1
    assert "not a margin public key" in err


def forge(path: Path, seq: int, edit: Any) -> None:
    """What a forger does: rewrite record ``seq`` and recompute the chain after it."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER records_no_update")
    rows = db.execute("SELECT seq, hash, body FROM records ORDER BY seq").fetchall()
    prev = rows[seq - 2][1] if seq > 1 else ""
    for s, _, body in rows[seq - 1 :]:
        if s == seq:
            body = edit(body)
        digest = chain_hash(prev, body)
        db.execute(
            "UPDATE records SET prev = ?, hash = ?, body = ? WHERE seq = ?", (prev, digest, body, s)
        )
        prev = digest
    db.commit()
    db.close()


def test_a_forged_record_with_a_recomputed_chain_fails_naming_it(
    signed: tuple[Path, str], run: Any
) -> None:
    path, key = signed
    forge(path, 3, lambda body: body.replace(b'"two"', b'"TWO"'))
    for args in ([], ["--key", key]):
        code, _, err = run("verify", str(path), *args)
        assert code == 1
        assert f"record 3 has a signature by {key} that does not match" in err


def test_a_forger_who_drops_the_signatures_fails_verify_naming_the_first_unsigned_record(
    signed: tuple[Path, str], run: Any
) -> None:
    """Records after the first signed one are never taken for an earlier margin's."""
    path, key = signed
    forge(path, 4, lambda body: body.replace(b'"three"', b'"THREE"'))
    tamper(path, "DROP TRIGGER signatures_no_delete", "DELETE FROM signatures WHERE seq >= 4")
    for args in ([], ["--key", key]):
        code, out, err = run("verify", str(path), *args)
        assert code == 1
        assert err == f"margin: {path}: record 4 is not signed (inserted outside margin?)\n"
        assert "earlier margin" not in out + err


def test_signed_exports_import_only_with_the_right_key(
    signed: tuple[Path, str], tmp_path: Path, monkeypatch: Any, run: Any
) -> None:
    path, key = signed
    _, exported, _ = run("export", str(path))
    dump = tmp_path / "t.jsonl"
    dump.write_text(exported)
    code, _, err = run("import", str(dump), str(tmp_path / "a.margin"), "--key", key)
    assert code == 0, err
    assert run("verify", str(tmp_path / "a.margin"), "--key", key)[0] == 0
    other = use_data_dir(monkeypatch, tmp_path / "someone-else")
    code, _, err = run("import", str(dump), str(tmp_path / "b.margin"), "--key", other)
    assert code == 1
    assert f"record 1 is not signed by {other}" in err
    assert not (tmp_path / "b.margin").exists()

    # a forged export: a total changed, the chain recomputed, the signatures left as they were
    lines = exported.splitlines()
    forged = []
    prev = ""
    for i, line in enumerate(lines[:-1], 1):
        data = json.loads(line)
        if i == 2:
            data["event"]["text"] = "forged"
        data["prev"] = prev
        body_fields = {
            k: v for k, v in data.items() if k not in ("v", "prev", "hash", "key", "sig")
        }
        body = json.dumps(body_fields, separators=(",", ":")).encode()
        data["hash"] = prev = chain_hash(prev, body)
        forged.append(json.dumps(data))
    forged.append(json.dumps({"end": {"records": len(forged), "head": prev}}))
    dump.write_text("\n".join(forged) + "\n")
    code, _, err = run("import", str(dump), str(tmp_path / "c.margin"))
    assert code == 1
    assert f"record 2 has a signature by {key} that does not match" in err
    assert not (tmp_path / "c.margin").exists()


def test_a_table_from_the_previous_version_opens_verifies_unsigned_and_is_upgraded(
    tmp_path: Path, run: Any
) -> None:
    from margin.events import TableCreated

    path = tmp_path / "old.margin"
    store = SQLiteStore(path, create=True)  # no signer: as the previous margin wrote
    store.append([Draft(TableCreated(system="2d10-edge"))], 0, command="c0")
    store.append([Draft(Noted(text="old"))], 1, command="c1")
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE signatures; PRAGMA user_version=1;")
    db.close()

    code, out, _ = run("verify", str(path))
    assert code == 0
    assert out.endswith("chain intact; unsigned (written by an earlier margin)\n")
    assert json.loads(run("state", str(path), "--json")[1])["seq"] == 2
    assert run("do", str(path), stdin=notes("new"))[0] == 0
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == TABLE_FORMAT
    assert db.execute("SELECT seq FROM signatures").fetchall() == [(3,)]
    db.close()
    code, out, _ = run("verify", str(path))
    assert code == 0
    assert "signed by ed25519:" in out


COLUMNS = {
    "seq": lambda v: v ^ 64,
    "command": lambda v: v[:-1] + chr(ord(v[-1]) ^ 1),
    "v": lambda v: v ^ 2,
    "prev": lambda v: v[:-1] + chr(ord(v[-1]) ^ 1),
    "hash": lambda v: v[:-1] + chr(ord(v[-1]) ^ 1),
    "body": lambda v: v.replace(b'"two"', b'"twn"'),
}
SIGNATURE_COLUMNS = {
    "key": lambda v: v[:-1] + chr(ord(v[-1]) ^ 1),
    "sig": lambda v: v[:-1] + chr(ord(v[-1]) ^ 1),
}


@pytest.mark.parametrize("column", [*COLUMNS, *SIGNATURE_COLUMNS])
def test_a_byte_changed_in_any_column_fails_verify_and_no_command_shows_a_traceback(
    signed: tuple[Path, str], column: str, run: Any
) -> None:
    path, key = signed
    table = "records" if column in COLUMNS else "signatures"
    change = COLUMNS.get(column) or SIGNATURE_COLUMNS[column]
    db = sqlite3.connect(path)
    db.execute(f"DROP TRIGGER {table}_no_update")
    (value,) = db.execute(f"SELECT {column} FROM {table} WHERE seq = 3").fetchone()
    db.execute(f"UPDATE {table} SET {column} = ? WHERE seq = 3", (change(value),))
    db.commit()
    db.close()
    for args in ([], ["--key", key]):
        code, _, err = run("verify", str(path), *args)
        assert code == 1
        assert err.startswith(f"margin: {path}: record 3 "), err
    for args in (["log", str(path)], ["state", str(path), "--json"], ["export", str(path)]):
        run(*args)  # a clean answer or a one-line error; the fixture checks
    code, _, err = run("backup", str(path), str(path.with_name("copy.margin")))
    assert code == 1
    assert "record 3" in err


@pytest.mark.parametrize(
    ("column", "value"),
    [("v", "two"), ("prev", b"\0"), ("hash", 7), ("body", 7), ("command", b"\0")],
)
def test_a_column_holding_the_wrong_kind_of_value_is_a_one_line_error(
    signed: tuple[Path, str], column: str, value: object, run: Any
) -> None:
    """A flipped bit in a row's header can change the kind of a stored value."""
    path, _ = signed
    tamper(
        path,
        "DROP TRIGGER records_no_update",
        (f"UPDATE records SET {column} = ? WHERE seq = 3", (value,)),
    )
    code, _, err = run("verify", str(path))
    assert code == 1
    assert err.startswith(f"margin: {path}: record 3 "), err
    code, _, err = run("export", str(path))
    assert code == 1
    assert "record 3" in err, err
    for args in (["log", str(path)], ["state", str(path), "--json"]):
        code, _, err = run(*args)  # what they read may be whole; if not, one line
        assert code == 0 or (err.count("\n") == 1 and "record 3" in err), err


def test_random_byte_changes_in_the_file_are_found_or_refused_in_one_line(
    tmp_path: Path, monkeypatch: Any, run: Any
) -> None:
    use_data_dir(monkeypatch, tmp_path / "data")
    path = tmp_path / "t.margin"
    run("demo", str(path))
    pristine = path.read_bytes()
    db = SQLiteStore(path, readonly=True)
    last = db.last_seq
    db.close()
    rng = random.Random(int(os.environ.get("MARGIN_SEED", "0")))
    found = 0
    for _ in range(40):
        damaged = bytearray(pristine)
        # the records' pages: past the header page, where record data lives
        at = rng.randrange(4096, len(damaged))
        damaged[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(damaged))
        code, _, err = run_margin("verify", str(path))
        assert code == 0 or err.count("\n") == 1, err
        found += code == 1
        for args in (["log", str(path)], ["state", str(path), "--json"], ["export", str(path)]):
            code, _, err = run_margin(*args)
            assert code == 0 or (err.count("\n") == 1 and "Traceback" not in err), err
    assert last > 10
    assert found > 0
