"""Dice anyone can check: committed, derived, opened and verified, and every change found.

Given a session with open and secret rolls, when its dice are opened, then every die
recomputes and every revealed secret opens; a die, a revealed secret, a commitment or
the order of records changed is named by its record; an unrevealed secret does not
follow from anything published.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import margin_do, run_margin

from margin.core.commands import convert_command
from margin.core.dicecheck import check_dice, report_lines
from margin.core.fairness import (
    LEAVES,
    Draws,
    SessionKeys,
    faces_of,
    open_key,
    proves,
    secret_key,
    seed_commitment,
)
from margin.core.lens import PlayerLens
from margin.events import Record, Rolled
from margin.tui.table.dicekeys import DiceKeys
from margin.tui.table.table import Table

TABLES = Path(__file__).parent / "tables"


def keys_from(n: int, secret: int = 0) -> SessionKeys:
    """Session keys fixed by ``n`` (and ``secret``, for the secret-tree key alone)."""
    return SessionKeys(bytes([n]) * 32, bytes([n + 1]) * 16, bytes([100 + n + secret]) * 32)


def fixed_keys(table: Table, tmp_path: Path, secret: int = 0) -> None:
    """Sessions whose keys follow from their number: the first 1, the next 2, ..."""
    made = iter(range(1, 100))
    table._keys = DiceKeys(tmp_path / "dice", lambda: keys_from(next(made), secret))


def play(table: Table, *commands: dict[str, Any]) -> list[list[Record]]:
    system = table.state.system
    return [table.execute(convert_command(system, c)) for c in commands]


@pytest.fixture
def session(tmp_path: Path) -> Table:
    """A table whose session rolled in the open and in secret, revealed one secret and was
    opened; a second secret stays closed."""
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    fixed_keys(table, tmp_path)
    play(
        table,
        {"type": "add-character", "name": "Kael", "sheet": {}},
        {"type": "entropy", "seat": "gm", "entropy": "ab" * 32},
        {"type": "roll", "dice": "2d6", "actor": "kael"},
        {"type": "roll", "dice": "1d20", "secret": True},
        {"type": "roll", "dice": "3d6", "faces": [1, 2, 6], "actor": "kael"},
        {"type": "roll", "dice": "4d8kh2", "actor": "kael"},
        {"type": "roll", "dice": "1d100", "secret": True, "actor": "kael"},
        {"type": "reveal", "seq": 5},
        {"type": "end-session"},
        {"type": "roll", "dice": "1d6"},
    )
    return table


def records(table: Table) -> list[Record]:
    return list(table.store.records())


def edited(rs: list[Record], seq: int, **changes: Any) -> list[Record]:
    """The log with record ``seq`` changed as a dishonest GM might write it."""
    return [msgspec.structs.replace(r, **changes) if r.seq == seq else r for r in rs]


def test_a_session_opened_verifies_every_die(session: Table) -> None:
    report = check_dice(records(session))
    assert report.problems == []
    assert (report.sessions, report.opened) == (2, 1)
    kael, gm = report.tallies["kael"], report.tallies["gm"]
    # 2d6 and 4d8 in the open, checked; 3 typed; the d100 still secret
    assert (kael.drawn, kael.checked, kael.typed, kael.closed) == (7, 6, 3, 1)
    # the revealed d20 checked, the d6 of the next session not yet opened
    assert (gm.drawn, gm.checked, gm.closed) == (2, 1, 0)
    lines = report_lines(report)
    assert lines[0].startswith("dice: 2 sessions committed, 1 opened")
    assert "  kael: 7 dice drawn, 6 checked; 3 typed; 1 secret still closed" in lines


def test_the_dice_are_the_ones_the_seed_and_the_entropy_give(session: Table) -> None:
    rs = records(session)
    opened = next(r for r in rs if r.event.__struct_config__.tag == "dice.opened")
    committed = next(r.committed for r in rs if r.committed is not None)
    seed = bytes.fromhex(opened.event.seed)
    assert seed_commitment(seed, bytes.fromhex(opened.event.salt)) == committed.commitment
    roll = next(r for r in rs if isinstance(r.event, Rolled) and r.event.dice == "2d6")
    assert roll.drawn is not None
    assert roll.drawn.stream == "open"
    assert list(roll.event.faces) == [f for _, f in roll.drawn.dice]
    # without the seat's entropy the same seed gives other dice
    from margin.core.fairness import entropy_next, entropy_start

    start = entropy_start(committed.commitment)
    mixed = entropy_next(start, "gm", "ab" * 32)
    assert faces_of(open_key(seed, mixed, 0), [6] * 2) == list(roll.drawn.dice)
    assert faces_of(open_key(seed, start, 0), [6] * 16) != faces_of(
        open_key(seed, mixed, 0), [6] * 16
    )


def test_typed_dice_stay_typed(session: Table) -> None:
    typed = next(r for r in records(session) if getattr(r.event, "source", "") == "typed")
    assert typed.drawn is not None
    assert typed.drawn.dice == ()
    assert typed.drawn.typed == ((6, 1), (6, 2), (6, 6))


def test_a_changed_die_is_named(session: Table) -> None:
    rs = records(session)
    roll = next(r for r in rs if r.drawn is not None and len(r.drawn.dice) == 4)
    assert roll.drawn is not None
    (sides, first), *rest = roll.drawn.dice
    changed = msgspec.structs.replace(roll.drawn, dice=((sides, first % sides + 1), *rest))
    problems = check_dice(edited(rs, roll.seq, drawn=changed)).problems
    assert problems == [
        f"record {roll.seq}: die 1 (a d8) is {first % sides + 1}, the committed dice give {first}"
    ]


def test_a_changed_revealed_secret_is_named(session: Table) -> None:
    rs = records(session)
    secret = next(r for r in rs if r.seq == 5)
    event = msgspec.structs.replace(secret.event, total=secret.event.total + 1)
    problems = check_dice(edited(rs, 5, event=event)).problems
    assert problems == ["record 5: what it reveals does not match its commitment"]


def test_a_changed_revealed_die_is_named(session: Table) -> None:
    rs = records(session)
    secret = next(r for r in rs if r.seq == 5)
    assert secret.drawn is not None
    ((sides, got),) = secret.drawn.dice
    mark = msgspec.structs.replace(secret.drawn, dice=((sides, got % sides + 1),))
    problems = check_dice(edited(rs, 5, drawn=mark)).problems
    # the commitment covers the dice too
    assert problems == ["record 5: what it reveals does not match its commitment"]


def test_a_swapped_commitment_is_named(session: Table) -> None:
    rs = records(session)
    first, made = next((r, r.committed) for r in rs if r.committed is not None)
    assert made is not None
    other = msgspec.structs.replace(made, commitment=seed_commitment(b"x" * 32, b"y" * 16))
    problems = check_dice(edited(rs, first.seq, committed=other)).problems
    opened = next(r.seq for r in rs if r.event.__struct_config__.tag == "dice.opened")
    assert f"record {opened}: it opens a session whose dice the log never committed" in problems


def test_a_swapped_secret_commitment_is_named(session: Table) -> None:
    rs = records(session)
    five, eight = (next(r for r in rs if r.seq == n) for n in (5, 8))
    problems = check_dice(edited(rs, 5, sealed=eight.sealed)).problems
    assert problems == ["record 5: what it reveals does not match its commitment"]
    assert five.sealed != eight.sealed


def test_a_reordered_record_is_named(session: Table) -> None:
    rs = records(session)
    # the 2d6 (record 4) and the 4d8 (record 7) change places
    four, seven = rs[3], rs[6]
    swapped = [*rs[:3], msgspec.structs.replace(seven, seq=4), *rs[4:6]]
    swapped += [msgspec.structs.replace(four, seq=7), *rs[7:]]
    problems = check_dice(swapped).problems
    assert problems[0].startswith("record 4: its dice are drawn as the session's open roll 1")


def test_a_reveal_without_its_key_or_with_another_is_named(session: Table) -> None:
    rs = records(session)
    reveal = next(r for r in rs if r.event.__struct_config__.tag == "table.revealed")
    keyless = msgspec.structs.replace(reveal.event, key="", proof=[])
    assert check_dice(edited(rs, reveal.seq, event=keyless)).problems == [
        f"record {reveal.seq}: it reveals record 5 without the key to its commitment"
    ]
    wrong = msgspec.structs.replace(reveal.event, key="00" * 32)
    assert (
        check_dice(edited(rs, reveal.seq, event=wrong))
        .problems[0]
        .startswith(f"record {reveal.seq}: the key it gives is not secret key 0")
    )


def test_an_unrevealed_secret_does_not_follow_from_what_is_published(tmp_path: Path) -> None:
    """Two sessions alike in everything published but the secret tree's key: every seed,
    salt, entropy, open die and revealed key is the same, and the closed secret differs.
    So nothing published (the commitments aside, which are hashes under that key)
    determines it."""

    def published(secret: int) -> tuple[list[Any], list[int]]:
        folder = tmp_path / str(secret)
        folder.mkdir()
        table = Table.create(folder / "t.margin", "2d10-edge")
        fixed_keys(table, folder, secret)
        play(
            table,
            {"type": "roll", "dice": "2d6"},
            {"type": "roll", "dice": "1d1000", "secret": True},
            {"type": "end-session"},
        )
        rs = records(table)
        lens = PlayerLens()
        seen = [lens.read(r) for r in rs]
        table.close()
        closed = next(r for r in rs if r.sealed)
        for data in seen:
            assert data is not None
            for name in ("at", "command"):
                data.pop(name)
            if data.get("committed"):
                data["committed"].pop("secrets")
            data.pop("sealed", None)
        return seen, list(closed.event.faces)

    one, two = published(0), published(1)
    assert one[0] == two[0]
    assert one[1] != two[1]


def test_the_secret_tree_proves_each_key_and_no_other() -> None:
    keys = keys_from(7)
    assert proves(keys.leaf_key(5), 5, keys.proof(5), keys.root)
    assert not proves(keys.leaf_key(5), 6, keys.proof(5), keys.root)
    assert not proves(keys.leaf_key(6), 5, keys.proof(5), keys.root)
    assert not proves(keys.leaf_key(5), LEAVES, keys.proof(5), keys.root)
    assert not proves(keys.leaf_key(5), 5, ["zz"] * 12, keys.root)
    assert secret_key(keys.leaf_key(5), b"") != secret_key(keys.leaf_key(6), b"")


def test_every_face_is_as_likely() -> None:
    """Rejection sampling: a d3 drawn from 64-bit blocks shows each face a third of the time."""
    counts = Counter(Draws(bytes([n % 256, n // 256]) * 16).face(3) for n in range(6000))
    assert set(counts) == {1, 2, 3}
    assert all(1800 < c < 2200 for c in counts.values())


def test_players_see_a_commitment_and_the_dice_once_revealed(session: Table) -> None:
    rs = records(session)
    lens = PlayerLens(revealed=set())
    seen = {r.seq: lens.read(r) for r in rs}
    closed = seen[8]
    assert closed is not None
    assert closed["drawn"] == {"stream": "secret", "index": 1}
    assert closed["sealed"] == rs[7].sealed
    assert "faces" not in closed["event"]
    lens = PlayerLens(revealed={5})
    shown = {r.seq: lens.read(r) for r in rs}[5]
    assert shown is not None
    assert [list(d) for d in shown["drawn"]["dice"]] == [[20, rs[4].event.faces[0]]]


def test_a_hidden_command_draws_from_a_key_never_published(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    fixed_keys(table, tmp_path)
    (added,), (rolled,), (public,) = play(
        table,
        {"type": "add-character", "name": "Shade", "sheet": {}, "hidden": True},
        {"type": "roll", "dice": "1d20", "actor": "Shade"},
        {"type": "roll", "dice": "1d20"},
    )
    assert rolled.visibility.gm_only
    assert rolled.drawn is not None
    assert rolled.drawn.stream == "hidden"
    # players did not see the commitment that came with it: it comes again, and the
    # open roll is the session's first whatever the GM did unseen
    assert rolled.committed is not None
    assert public.committed == rolled.committed
    assert public.drawn is not None
    assert public.drawn.index == 0
    report = check_dice(records(table))
    assert report.problems == []
    assert report.tallies["shade"].closed == 1


def test_undo_passes_over_entropy_and_the_end_of_a_session(session: Table) -> None:
    (undone,) = session.execute(convert_command("2d10-edge", {"type": "undo"}))
    assert undone.event.voids == [11]
    from margin.core import RuleError

    entropy = next(r for r in records(session) if r.event.__struct_config__.tag == "dice.entropy")
    with pytest.raises(RuleError, match="it stands"):
        session.execute(convert_command("2d10-edge", {"type": "undo", "record": entropy.seq}))


def test_end_session_needs_a_session_and_its_keys(tmp_path: Path) -> None:
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    from margin.core import RuleError

    with pytest.raises(RuleError, match="no session is open"):
        play(table, {"type": "end-session"})
    fixed_keys(table, tmp_path)
    play(table, {"type": "roll", "dice": "1d6"})
    table._keys = DiceKeys(tmp_path / "elsewhere")
    with pytest.raises(RuleError, match="does not hold the keys"):
        play(table, {"type": "end-session"})
    # a margin without the session's keys draws from a session of its own
    (rolled,) = play(table, {"type": "roll", "dice": "1d6"})[0]
    assert rolled.committed is not None
    with pytest.raises(RuleError, match="stands alone"):
        play(table, {"type": "each", "commands": [{"type": "end-session"}]})


def test_margin_verify_dice_on_a_table_and_its_export(tmp_path: Path) -> None:
    table = tmp_path / "t.margin"
    assert run_margin("new", str(table), "--system", "2d6-effect").code == 0
    code, out = margin_do(
        table,
        {"type": "roll", "dice": "2d6"},
        {"type": "roll", "dice": "1d20", "secret": True},
        {"type": "reveal", "seq": 3},
    )
    assert code == 0, out
    done = run_margin("end-session", str(table))
    assert done.code == 0
    assert "the session's dice are open (record 5)" in done.out
    verified = run_margin("verify", "--dice", str(table))
    assert verified.code == 0, verified.err
    assert "dice: 2 sessions committed, 1 opened" in verified.out
    assert "  gm: 3 dice drawn, 3 checked" in verified.out
    export = tmp_path / "t.jsonl"
    export.write_bytes(run_margin("export", str(table)).out.encode())
    from_export = run_margin("verify", "--dice", str(export))
    assert from_export.code == 0
    assert "from the export" in from_export.out
    assert from_export.out.splitlines()[1:] == verified.out.splitlines()[1:]


@pytest.mark.parametrize("system", ["2d10-edge", "2d6-effect", "d100-chance", "d100-under"])
def test_old_tables_open_and_verify_dice_not_committed(system: str, tmp_path: Path) -> None:
    table = tmp_path / f"{system}.margin"
    shutil.copy(TABLES / f"{system}.margin", table)
    done = run_margin("verify", "--dice", str(table))
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[1] == "dice not committed (written by a margin before committed dice)"
    # each character's rolls, counted as typed or drawn before commitments
    assert lines[2:]
    assert all(" typed" in line or "before dice were" in line for line in lines[2:])


def test_the_chi_square_tail_matches_its_tables() -> None:
    from margin.core.luck import chi_square_tail

    for x, df, p in ((3.841, 1, 0.05), (11.070, 5, 0.05), (6.635, 1, 0.01), (30.144, 19, 0.05)):
        assert abs(chi_square_tail(x, df) - p) < 2e-4
    assert chi_square_tail(0, 3) == 1.0
    assert chi_square_tail(400, 5) < 1e-80


@pytest.mark.parametrize("counts", [[3, 2, 1, 0, 0, 0], [2, 2, 2, 0], [5, 1, 0], [1, 1, 1, 1]])
def test_the_exact_test_sums_every_outcome_no_likelier(counts: list[int]) -> None:
    import itertools
    import math

    from margin.core.luck import fit

    n, k = sum(counts), len(counts)

    def log_p(x: tuple[int, ...] | list[int]) -> float:
        return math.lgamma(n + 1) - sum(math.lgamma(c + 1) for c in x) - n * math.log(k)

    seen = log_p(counts) + 1e-9
    every = [x for x in itertools.product(range(n + 1), repeat=k) if sum(x) == n]
    brute = sum(math.exp(log_p(x)) for x in every if log_p(x) <= seen)
    found = fit(counts)
    assert found.exact
    assert abs(found.p - brute) < 1e-12


def test_the_luck_report_says_whose_dice_look_loaded(tmp_path: Path) -> None:
    table = tmp_path / "t.margin"
    assert run_margin("new", str(table), "--system", "2d10-edge").code == 0
    rolls = [{"type": "roll", "dice": "2d6", "actor": "kael"}] * 40
    loaded = [{"type": "roll", "dice": "1d6", "faces": [6], "actor": "kael"}] * 9
    code, _ = margin_do(table, {"type": "add-character", "name": "Kael"}, *rolls, *loaded)
    assert code == 0
    report = run_margin("luck", str(table)).out
    assert "Fairness of the dice" in report
    margin_line = next(
        line for line in report.splitlines() if "margin's dice, d6: 80 rolled" in line
    )
    assert "chi-square" in margin_line
    typed = next(line for line in report.splitlines() if "Kael's typed dice, d6: 9 rolled" in line)
    assert typed.endswith("exact test: <0.1%")
    assert "1:0 2:0 3:0 4:0 5:0 6:9" in report


def test_a_session_whose_secret_keys_run_out_goes_on_in_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from margin.core import fairness

    monkeypatch.setattr(fairness, "LEAVES", 4)
    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    fixed_keys(table, tmp_path)
    rolled = play(table, *[{"type": "roll", "dice": "1d20", "secret": True}] * 6)
    fifth = rolled[4][0]
    assert fifth.committed is not None
    assert fifth.drawn is not None
    assert fifth.drawn.index == 0
    play(table, {"type": "reveal", "seq": 3}, {"type": "reveal", "seq": 7})
    (*openings,) = play(table, {"type": "end-session"})[0]
    assert [r.event.__struct_config__.tag for r in openings] == ["dice.opened"] * 2
    report = check_dice(records(table))
    assert report.problems == []
    assert (report.sessions, report.opened) == (3, 2)
    assert report.tallies["gm"].checked == 2


def test_a_player_sitting_down_gives_the_dice_entropy(tmp_path: Path) -> None:
    """Given a table, when a player sits down, then their entropy joins the session players
    saw committed, comes before the next die margin draws and changes it, and verifies."""
    from margin.core.authority import Seat
    from margin.core.fairness import entropy_next, entropy_start

    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    fixed_keys(table, tmp_path)
    play(table, {"type": "add-character", "name": "Kael"})
    seat = Seat("Kael", "ssh", "SHA256:abc")
    # no session committed yet: entropy now would count for nothing, so none is written
    assert table.entropy_session() == ""
    assert table.add_entropy(seat) == []
    (first,) = play(table, {"type": "roll", "dice": "1d6"})[0]
    assert first.committed is not None
    assert table.entropy_session() == first.committed.commitment
    (record,) = table.add_entropy(seat)
    assert record.event.__struct_config__.tag == "dice.entropy"
    assert record.event.seat == "kael"
    assert record.author == "kael (ssh SHA256:abc)"
    # a player's margin joins the session committed already and never commits one
    assert record.committed is None
    (rolled,) = play(table, {"type": "roll", "dice": "1d20"})[0]
    assert rolled.seq > record.seq
    assert rolled.drawn is not None
    assert rolled.drawn.index == 1
    made = (keys_from(n) for n in range(1, 9))
    seed = next(k.seed for k in made if k.commitment == first.committed.commitment)
    start = table.projection.history.dice.entropy
    mixed = entropy_next(entropy_start(first.committed.commitment), "kael", record.event.entropy)
    assert start == mixed
    assert faces_of(open_key(seed, mixed, 1), [20]) == list(rolled.drawn.dice)
    play(table, {"type": "end-session"})
    report = check_dice(records(table))
    assert report.problems == []
    assert report.tallies["gm"].checked == 2


def test_a_forged_entropy_record_is_named(tmp_path: Path) -> None:
    """Entropy changed after it was written moves the dice drawn after it and is named;
    entropy in a player's name written by another seat, or not hex, is named too."""
    from margin.core.authority import Seat

    table = Table.create(tmp_path / "t.margin", "2d10-edge")
    fixed_keys(table, tmp_path)
    play(table, {"type": "add-character", "name": "Kael"}, {"type": "roll", "dice": "1d6"})
    (given,) = table.add_entropy(Seat("Kael", "local", "alice"))
    play(table, {"type": "roll", "dice": "10d20"}, {"type": "end-session"})
    rs = records(table)
    assert check_dice(rs).problems == []
    roll = rs[given.seq]
    changed = msgspec.structs.replace(given.event, entropy="cd" * 32)
    problems = check_dice(edited(rs, given.seq, event=changed)).problems
    assert problems
    assert problems[0].startswith(f"record {roll.seq}: die ")
    by_gm = check_dice(edited(rs, given.seq, author="gm")).problems
    assert by_gm == [f"record {given.seq}: it gives entropy as kael's but the GM's seat wrote it"]
    unreadable = msgspec.structs.replace(given.event, entropy="not hex")
    problems = check_dice(edited(rs, given.seq, event=unreadable)).problems
    assert problems[0] == f"record {given.seq}: its entropy is not 32 bytes in hex"
    assert problems[1].startswith(f"record {roll.seq}: die ")
