"""The recap and the luck report: a fight in each system with dice typed in, checked by hand.

Every expected number below is worked out in the comment beside it from the
rules text, not read back from margin.
"""

from __future__ import annotations

import contextlib
import random
import resource
import signal
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support import add_character, check, events_of, run_margin

from margin.core import SYSTEMS, get_system
from margin.core.commands import convert_command
from margin.core.luck import luck, successes
from margin.core.recap import CharacterLuck, Recap
from margin.tui.table.demo import build_demo
from margin.tui.table.reader import LiveTable, View
from margin.tui.table.table import Table
from margin.tui.text.recap import build, markdown, recap_of


def _gm_view(table: Table) -> View:
    """The GM's reader of a table a test writes."""
    return View(LiveTable(table.store))


def _table(tmp_path: Path, system: str, *commands: dict[str, Any], **options: object) -> Table:
    table = Table.create(tmp_path / "t.margin", system, dict(options))
    for data in commands:
        table.execute(convert_command(system, data))
    return table


def _luck(r: Recap, name: str) -> CharacterLuck:
    (found,) = [c for c in r.luck if c.name == name]
    return found


def _tally(r: Recap, encounter: int, name: str):
    return r.encounters[encounter].tallies[name]


# -- the distribution itself ----------------------------------------------------


def test_poisson_binomial_by_hand() -> None:
    # chances 1/2, 1/4, 1/5: P(0) = 1/2*3/4*4/5 = 0.3; P(3) = 1/2*1/4*1/5 = 0.025
    # P(1) = 1/2*3/4*4/5 + 1/2*1/4*4/5 + 1/2*3/4*1/5 = 0.3 + 0.1 + 0.075 = 0.475
    dist = successes([0.5, 0.25, 0.2])
    assert dist.at_least(0) == 1.0
    assert dist.at_least(1) == pytest.approx(0.7)
    assert dist.at_least(2) == pytest.approx(1 - 0.3 - 0.475)
    assert dist.at_least(3) == pytest.approx(0.025)
    assert dist.at_least(4) == 0.0


def test_many_checks_of_one_chance_are_a_binomial() -> None:
    # 2,000 fair checks: P(X >= 1,000) = 1/2 + P(X = 1,000) / 2, and
    # P(X = 1,000) = C(2000, 1000) / 2^2000 (about 0.01784)
    from math import comb

    exact = 0.5 + comb(2000, 1000) / 2**2000 / 2
    assert luck([0.5] * 2000, 1000).at_least == pytest.approx(exact, rel=1e-9)
    # certain checks shift the count, impossible ones add nothing
    assert luck([1.0, 1.0, 0.0, 0.5], 3).at_least == pytest.approx(0.5)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 2_000, 10_000])
@pytest.mark.parametrize("p", [1e-9, 0.003, 0.1, 0.37, 0.5, 0.81, 0.999, 1 - 1e-9])
def test_a_binomial_keeps_every_term_that_is_not_negligible(n: int, p: float) -> None:
    # each term from the log-gamma function, all n + 1 of them; the distribution keeps
    # exactly the run of them from the first to the last of at least NEGLIGIBLE
    from math import exp, lgamma, log, log1p

    from margin.core.luck import NEGLIGIBLE, _binomial

    terms = [
        exp(lgamma(n + 1) - lgamma(j + 1) - lgamma(n - j + 1) + j * log(p) + (n - j) * log1p(-p))
        for j in range(n + 1)
    ]
    kept = [j for j, t in enumerate(terms) if t >= NEGLIGIBLE]
    dist = _binomial(n, p)
    assert dist.offset == kept[0]
    assert dist.weights == tuple(terms[kept[0] : kept[-1] + 1])


def exact_distribution(chances: list[Fraction]) -> list[Fraction]:
    """P(successes = j) of independent checks for each j, in exact fractions."""
    dist = [Fraction(1)]
    for p in chances:
        dist = [
            (dist[j] if j < len(dist) else 0) * (1 - p) + (dist[j - 1] * p if j else 0)
            for j in range(len(dist) + 1)
        ]
    return dist


@pytest.mark.parametrize("seed", range(6))
def test_the_dropped_terms_change_no_tail_by_more_than_a_billionth(seed: int) -> None:
    # a session's mix of chances (some shared, some sure or impossible), against the
    # distribution worked out in exact fractions, at every count
    rng = random.Random(seed)
    odds = [Fraction(rng.randint(1, 99), 100) for _ in range(6)] + [Fraction(1), Fraction(0)]
    chances = [rng.choice(odds) for _ in range(rng.randint(50, 160))]
    dist = successes(chances)
    exact = exact_distribution(chances)
    for k in range(-1, len(chances) + 2):
        at_least = sum(exact[max(k, 0) :], Fraction(0))
        at_most = sum(exact[: max(k + 1, 0)], Fraction(0))
        assert abs(dist.at_least(k) - float(at_least)) < 1e-9
        assert abs(dist.at_most(k) - float(at_most)) < 1e-9
        # a possible count is never said impossible, nor an impossible one possible
        assert (dist.at_least(k) > 0) == (at_least > 0)
        assert (dist.at_most(k) > 0) == (at_most > 0)
        assert (dist.at_least(k) < 1) == (at_least < 1)
        assert (dist.at_most(k) < 1) == (at_most < 1)


def test_a_run_too_lucky_to_keep_in_the_distribution_is_below_a_tenth_of_a_percent() -> None:
    # two hundred coin flips all won: 2**-200, far below the terms kept; still possible,
    # and the report says so; more wins than there were checks cannot be
    lucky = luck([0.5] * 200, 200)
    assert 0 < lucky.at_least < 1e-15
    assert lucky.percent == "<0.1%"
    assert 0 < luck([0.5] * 200, 0).at_most < 1e-15
    assert luck([0.5] * 200, 0).percent == "<0.1%"
    assert luck([0.5] * 200, 201).at_least == 0.0
    assert luck([1.0] * 10, 10).at_least == 1.0


def test_bad_luck_is_the_chance_of_as_few_or_fewer() -> None:
    # same chances as above: P(X <= 0) = 0.3, P(X <= 1) = 0.775
    dist = successes([0.5, 0.25, 0.2])
    assert dist.at_most(-1) == 0.0
    assert dist.at_most(0) == pytest.approx(0.3)
    assert dist.at_most(1) == pytest.approx(0.775)
    assert dist.at_most(3) == 1.0
    # expected 0.95, one success: the luck is good, and asked as at least as many
    good = luck([0.5, 0.25, 0.2], 1)
    assert good.tail == "at least as many"
    assert good.chance == pytest.approx(0.7)
    # ten 90% checks, three successes: bad luck, asked as at most as many
    bad = luck([0.9] * 10, 3)
    assert bad.tail == "at most as many"
    assert bad.chance == pytest.approx(bad.at_most)
    assert bad.at_most < 0.001 < 0.999 < bad.at_least
    assert bad.percent == "<0.1%"


def test_opposed_checks_count_in_the_bands(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "demo.margin", "d100-under")
    r = build(_gm_view(table))
    table.close()
    for c in r.luck:
        if not c.bands:
            continue
        # every check of known chance falls in exactly one band
        assert sum(b.luck.actual for b in c.bands) == c.overall.checks
        assert sum(b.luck.expected for b in c.bands) == pytest.approx(c.overall.checks)
    bands = {b.band for b in _luck(r, "Kael").bands}
    assert {"won opposed", "lost opposed"} <= bands
    # the kept 2d6-effect table: Vex expected 2.11 successes and got 1
    kept = tmp_path / "effect.margin"
    kept.write_bytes((Path(__file__).parent / "tables" / "2d6-effect.margin").read_bytes())
    text = run_margin("luck", str(kept)).out
    assert "actual   ████████                       1   chance of at most as many: 17.7%" in text
    # a count of one says one check: the 2d10-edge demo's characters made one each
    build_demo(tmp_path / "edge.margin", "2d10-edge").close()
    text = run_margin("luck", str(tmp_path / "edge.margin")).out
    assert "Kael    typed dice: 1 check\n" in text, text


# -- 2d10-edge ------------------------------------------------------------------


def test_edge_fight_by_hand(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "demo.margin", "2d10-edge")
    # one more check: Kael perception (2 ranks + IN 4 + WI 5 = +11) vs TN 20, faces 2 3: 16, a failure
    events_of(table, type="check", character="Kael", skill="perception", tn=20, faces=[2, 3])
    r = build(_gm_view(table))
    table.close()
    fight = 1  # 0 is the play outside the encounter (Kael's climb)
    # Moreau's burst: check 3+4 +15 = 22 vs 20 (MoS 2, no extra die); damage 4+4+4+4+4+3 +1 = 24
    # vs medium armor PT 25 - 3 = 22: it gets through, DR 40% soaks round(9.6) = 10: 14 taken
    assert _tally(r, fight, "Moreau").dealt == 14
    assert _tally(r, fight, "Guard").taken == 14
    # Vask: 6+7 +13 = 26 vs 20 (MoS 6: +1d6), +2d6 for Edge; 24 vs inertial PT 20, DR 40%: 14
    assert _tally(r, fight, "Vask").dealt == 14
    assert _tally(r, fight, "Vask").spent == {"Edge": 1}
    assert _tally(r, fight, "Enforcer").taken == 14
    assert _tally(r, fight, "Moreau").hits == 1
    assert "serious injury (14 points)" in _tally(r, fight, "Guard").harms
    # Kael athletics +20 vs 30: 2d10 must reach 10. Of the 100 throws, 64 sum to 10 or more;
    # doubles 5-5..10-10 add 5 (still successes), doubles 1-1..4-4 fail either way: 64/100.
    # Perception +11 vs 20: 72 throws sum to 9 or more, doubles 5-5 up succeed: 72/100.
    kael = _luck(r, "Kael")
    assert kael.overall.checks == 2
    assert kael.overall.expected == pytest.approx(0.64 + 0.72)
    assert kael.overall.actual == 1
    # at least one success in two: 1 - 0.36 * 0.28
    assert kael.overall.at_least == pytest.approx(1 - 0.36 * 0.28)
    assert kael.by_source[0][0] == "typed dice"
    # significant success (MoS 5..9). The climb: throws summing 15..19 that are not doubles
    # (18), and doubles 5-5, 6-6, 7-7 (+5): 21/100. Perception: sums 14..18 not doubles (22),
    # and doubles 5-5, 6-6 (+5): 24/100. The climb was one; perception (16, MoS -4) was not.
    bands = {b.band: b.luck for b in kael.bands}
    assert bands["significant-success"].expected == pytest.approx(0.21 + 0.24)
    assert bands["significant-success"].actual == 1
    assert bands["significant-success"].at_least == pytest.approx(1 - 0.79 * 0.76)
    # Moreau +15 vs 20: all but the 6 throws summing 2..4 (doubles 3-3 up gain 5): 94/100
    assert _luck(r, "Moreau").overall.at_least == pytest.approx(0.94)


def test_edge_doubles_and_edge_are_notable(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "demo.margin", "2d10-edge")
    # 6-6 on perception +11 vs 20: 12 + 11 = 23 >= 20, so the double adds 5
    events_of(table, type="check", character="Kael", skill="perception", tn=20, faces=[6, 6])
    r = build(_gm_view(table))
    table.close()
    # the demo's encounter still runs: the check is part of it
    assert "doubles 6-6 (+5) on perception vs TN 20" in _tally(r, 1, "Kael").notable


# -- d100-chance ----------------------------------------------------------------

CHANCE_PARTY = [
    add_character(
        name,
        {
            "hp": 40,
            "stats": {"str": 8, "dex": 10},
            "skills": {"stealth": 45, "hacking": 30, "athletics": 40},
            "speed": 30,
            "weapons": {"knife": {"type": "melee", "base": 10, "profile": "volatile", "range": 5}},
        },
    )
    for name in ("Rook", "Brakk")
]


def test_chance_fight_by_hand(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        "d100-chance",
        *CHANCE_PARTY,
        # chance = 55 + 2 x (proficiency - difficulty): stealth 45 vs 40 -> 65; roll 30 succeeds
        check("Rook", "stealth", difficulty=40, faces=[30]),
        # hacking 30 vs 30 -> 55; roll 70 fails
        check("Rook", "hacking", difficulty=30, faces=[70]),
        # stealth 45 vs 20 leads by 25: an automatic success, no roll
        check("Rook", "stealth", difficulty=20, task="the back door"),
        {"type": "encounter", "order": ["Rook", "Brakk"]},
        {"type": "next"},
        # athletics 40 against athletics 40: each difficulty defaults to the other's
        # proficiency, so both chances are 55; rolls 20 and 50: both succeed, Rook's
        # margin 35 beats 5
        {
            "type": "opposed",
            "actor": "Rook",
            "skill": "athletics",
            "defender": "Brakk",
            "faces": [20, 50],
        },
        {"type": "hp", "character": "Brakk", "amount": -7, "reason": "a fall"},
        {"type": "hp", "character": "Rook", "amount": -3},
    )
    r = build(_gm_view(table))
    table.close()
    rook = _luck(r, "Rook")
    # Rook: 0.65 + 0.55 + 1 (automatic) + the opposed check. Rook wins when his roll succeeds
    # and Brakk's fails (55 x 45 pairs) or both succeed with Rook's roll lower (55 x 54 / 2):
    # (2475 + 1485) / 10000 = 0.396
    assert rook.overall.expected == pytest.approx(0.65 + 0.55 + 1 + 0.396)
    assert rook.overall.actual == 3
    # at least 3 of 4 with the automatic one certain: at least 2 of (0.65, 0.55, 0.396)
    p = (0.65, 0.55, 0.396)
    none_or_one = (
        (1 - p[0]) * (1 - p[1]) * (1 - p[2])
        + p[0] * (1 - p[1]) * (1 - p[2])
        + (1 - p[0]) * p[1] * (1 - p[2])
        + (1 - p[0]) * (1 - p[1]) * p[2]
    )
    assert rook.overall.at_least == pytest.approx(1 - none_or_one)
    brakk = _luck(r, "Brakk")
    assert brakk.overall.expected == pytest.approx(1 - 0.396)
    assert brakk.overall.actual == 0
    # clean success (margin 10 or more) on a chance of 65: rolls 1..55
    bands = {b.band: b.luck for b in rook.bands}
    assert bands["clean-success"].expected == pytest.approx(0.55 + 0.45 + 0)
    notable = _tally(r, 0, "Rook").notable
    assert "automatic success: stealth" in notable
    assert _tally(r, 1, "Brakk").taken == 7
    assert _tally(r, 1, "Rook").taken == 3


def test_chance_attack_damage_is_counted_for_both_sides(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        "d100-chance",
        *CHANCE_PARTY,
        {"type": "encounter", "order": ["Rook", "Brakk"]},
        {"type": "next"},
    )
    # unaware: no dodge roll, and the hit is a critical; rolls: 10 to hit
    (attack,) = events_of(
        table, type="attack", attacker="Rook", target="Brakk", aware=False, faces=[10]
    )
    r = build(_gm_view(table))
    table.close()
    assert attack.connects
    assert attack.crit
    assert attack.taken > 0
    assert _tally(r, 0, "Rook").dealt == attack.taken
    assert _tally(r, 0, "Brakk").taken == attack.taken
    assert _tally(r, 0, "Rook").hits == 1
    assert "critical hit" in _tally(r, 0, "Rook").notable
    # not aware: no dodge, so the chance to connect is the hit chance alone
    assert _luck(r, "Rook").overall.expected == pytest.approx(attack.hit_chance / 100)


# -- d100-under -----------------------------------------------------------------


def test_under_checks_by_hand(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        "d100-under",
        add_character("Ada", {"skills": {"Revolver": 55}}),
        {"type": "start-track", "label": "Vicker Street"},
        # tens then ones: 3 1 reads 31 (a success); 0 0 reads 100 (a fumble); 0 1 reads 01
        # (a critical)
        check("Ada", "Revolver", faces=[3, 1]),
        check("Ada", "Revolver", faces=[0, 0]),
        check("Ada", "Revolver", faces=[0, 1]),
        {"type": "end-track"},
    )
    r = build(_gm_view(table))
    table.close()
    ada = _luck(r, "Ada")
    # target 55: rolls 01..55 succeed, 100 fails: 55/100 each
    assert ada.overall.expected == pytest.approx(3 * 0.55)
    assert ada.overall.actual == 2
    # at least 2 of 3 at 0.55: 3 x 0.55^2 x 0.45 + 0.55^3
    assert ada.overall.at_least == pytest.approx(3 * 0.55**2 * 0.45 + 0.55**3)
    # criticals at 55 (table reading): 01 and the top two points of the target, 54 and 55
    bands = {b.band: b.luck for b in ada.bands}
    assert bands["critical"].expected == pytest.approx(3 * 0.03)
    assert bands["fumble"].expected == pytest.approx(3 * 0.01)
    assert bands["fumble"].actual == 1
    enc = r.encounters[0]
    assert enc.name == "Vicker Street"
    assert enc.ended == "at count 0"
    assert enc.tallies["Ada"].notable == ["fumble on Revolver", "critical on Revolver"]


# -- 2d6-effect -----------------------------------------------------------------


def test_effect_checks_by_hand(tmp_path: Path) -> None:
    vex = {"characteristics": {"INT": 10, "STR": 6}, "skills": {"Electronics": 2}}
    mira = {"characteristics": {"INT": 12}, "skills": {"Medic": 2}}
    table = _table(
        tmp_path,
        "2d6-effect",
        add_character("Vex", vex),
        add_character("Mira", mira),
        # Electronics 2 + INT 10 (DM +1), average: 2D6 + 3 against 8; 6 6 -> 15, Effect 7
        check("Vex", "Electronics", characteristic="INT", faces=[6, 6]),
        # Medic 2 + INT 12 (DM +2): 2D6 + 4; 1 1 -> 6, Effect -2
        check("Mira", "Medic", characteristic="INT", faces=[1, 1]),
    )
    r = build(_gm_view(table))
    table.close()
    # 2D6 + 3 >= 8 needs 5 or more: 30 of 36 throws
    assert _luck(r, "Vex").overall.at_least == pytest.approx(30 / 36)
    # exceptional success (Effect 6+) needs 11 or more: 3 of 36
    bands = {b.band: b.luck for b in _luck(r, "Vex").bands}
    assert bands["exceptional-success"].at_least == pytest.approx(3 / 36)
    # 2D6 + 4 >= 8 needs 4 or more: 33 of 36; Mira failed
    mira_luck = _luck(r, "Mira").overall
    assert mira_luck.expected == pytest.approx(33 / 36)
    assert (mira_luck.actual, mira_luck.at_least) == (0, 1.0)
    assert "exceptional success on Electronics" in _tally(r, 0, "Vex").notable


# -- undo: as corrected and as it happened ----------------------------------------


def test_undone_rolls_count_only_as_it_happened(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        "d100-under",
        add_character("Ada", {"skills": {"Revolver": 55}}),
        check("Ada", "Revolver", faces=[3, 1]),
        check("Ada", "Revolver", faces=[9, 0]),
        {"type": "undo"},
    )
    corrected = build(_gm_view(table))
    happened = build(_gm_view(table), corrected=False)
    table.close()
    assert _luck(corrected, "Ada").overall.checks == 1
    assert _luck(happened, "Ada").overall.checks == 2
    assert [line.undone for line in happened.checks] == [False, True]
    assert "1 records undone later, marked" in markdown(happened)
    assert "1 undone records left out" in markdown(corrected)


# -- what a player may see ----------------------------------------------------------


def test_player_recap_has_no_hidden_name_or_secret_value(tmp_path: Path) -> None:
    table = build_demo(tmp_path / "demo.margin", "2d10-edge")
    sniper = get_system("2d10-edge").demo[3]["sheet"]
    events_of(table, type="add-character", name="Nightjar", sheet=sniper, hidden=True)
    # the hidden sniper shoots at Kael and misses (a record players see: Kael is in it)
    events_of(table, type="attack", character="Nightjar", target="Kael", tn=40, faces=[1, 2])
    # a check against a secret TN of 37
    events_of(
        table,
        type="check",
        character="Kael",
        skill="perception",
        tn=37,
        secret_tn=True,
        faces=[5, 6],
    )
    table.close()
    path = str(tmp_path / "demo.margin")
    code, gm, _ = run_margin("recap", path)
    assert code == 0
    assert "Nightjar" in gm
    code, gm, _ = run_margin("luck", path, "--checks")
    assert code == 0
    assert "Nightjar: attack on Kael" in gm
    assert "perception vs TN 37" in gm
    for fmt in ("md", "html"):
        code, out, err = run_margin("recap", path, "--as", "Kael", "--format", fmt)
        assert code == 0, err
        assert "Nightjar" not in out
        assert "nightjar" not in out
        assert "TN 37" not in out
    code, out, _ = run_margin("luck", path, "--as", "Kael", "--checks")
    assert code == 0
    assert "nightjar" not in out.lower()
    assert "37" not in out
    # the secret check is listed without its chance, and counts in no player's luck
    assert "perception: chance unknown, failure" in out
    code, _, err = run_margin("recap", path, "--as", "Nightjar")
    assert code == 1
    assert "no such player character" in err


def test_recap_writes_a_file_and_refuses_bad_input(tmp_path: Path) -> None:
    build_demo(tmp_path / "demo.margin", "2d10-edge").close()
    path = str(tmp_path / "demo.margin")
    out_file = tmp_path / "recap.md"
    code, out, _ = run_margin("recap", path, "-o", str(out_file))
    assert code == 0
    assert out == ""
    assert out_file.read_text().startswith("# Recap: 2d10-edge demo (2d10-edge)")
    code, _, err = run_margin("recap", path, "--format", "pdf")
    assert code == 2
    assert "invalid choice: 'pdf'" in err
    code, _, err = run_margin("recap", str(tmp_path / "none.margin"))
    assert code == 1
    assert "none.margin" in err
    assert "Traceback" not in err
    code, _, err = run_margin("recap", path, "-o", str(tmp_path))
    assert code == 1
    assert "is a folder" in err


@contextlib.contextmanager
def small_disk(size: int) -> Iterator[None]:
    """Files this process writes stop at ``size`` bytes, as on a disk that is full."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    was = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, was)


def test_recap_onto_a_full_disk_names_the_file_and_leaves_what_was_there(tmp_path: Path) -> None:
    build_demo(tmp_path / "demo.margin", "2d10-edge").close()
    out_file = tmp_path / "recap.md"
    out_file.write_text("last week's recap\n")
    with small_disk(512):
        code, _, err = run_margin("recap", str(tmp_path / "demo.margin"), "-o", str(out_file))
    assert code == 1
    assert err == (
        f"margin: -o {out_file}: cannot be written (File too large); {out_file} was left as it was\n"
    )
    assert out_file.read_text() == "last week's recap\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.margin", "recap.md"]


def test_a_long_session_draws_one_chart_over_its_encounters(tmp_path: Path) -> None:
    from margin.tui.table.rng import RandomDice
    from margin.tui.text.recap_html import CHARTED_ENCOUNTERS, html

    sheets = {d["name"]: d["sheet"] for d in get_system("2d10-edge").demo if "sheet" in d}
    table = _table(tmp_path, "2d10-edge", add_character("Kael", sheets["Kael"]))
    table.dice = RandomDice(1)
    fights = CHARTED_ENCOUNTERS + 1
    for n in range(1, fights + 1):
        events_of(table, type="add-character", name=f"Rat {n}", sheet=sheets["Guard"])
        events_of(
            table, type="start-encounter", name=f"Cellar {n}", characters=["Kael", f"Rat {n}"]
        )
        events_of(table, type="end-encounter")
    page = html(build(_gm_view(table)))
    table.close()
    assert page.count("<h2>The session</h2>") == 1
    assert "Damage dealt by encounter" in page
    assert "Damage dealt by round" not in page
    assert "Timeline" not in page
    assert f"{fights} encounters" in page
    assert page.count("<h2>Cellar ") == fights


def test_a_campaigns_session_chart_names_the_top_dealers_and_sums_runs_of_encounters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import re

    from margin.core.recap import Encounter, Recap, Tally
    from margin.tui.text import recap_html

    # a campaign in small: a fresh rat each fight, more of them and more fights than the
    # chart names and draws one by one
    monkeypatch.setattr(recap_html, "SESSION_DEALERS", 2)
    monkeypatch.setattr(recap_html, "SESSION_BARS", 3)
    recap = Recap("2d10-edge", encounters=[Encounter("Outside", outside=True)])
    for n in range(1, 8):
        enc = Encounter(f"Cellar {n}")
        enc.tallies = {"Kael": Tally("Kael", dealt=10), f"Rat {n}": Tally(f"Rat {n}", dealt=n)}
        recap.encounters.append(enc)
    chart = recap_html.session_chart(recap, recap_html.palette(recap))
    legends = re.findall(r'class="color-\d+ reactive" /><text[^>]*>([^<]*)</text>', chart)
    assert legends == ["Kael", "Rat 7", "everyone else"]
    # seven encounters in at most three bars: three a bar, the last one alone
    assert "(3 encounters a bar)" in chart
    assert [label for label in ("1-3", "4-6", "7-7") if f">{label}<" in chart] == [
        "1-3",
        "4-6",
        "7-7",
    ]
    # each bar sums its encounters: Kael 30, 30, 10; the other rats 1+2+3, 4+5+6, none
    values = [float(v) for v in re.findall(r'<desc class="value">([0-9.]+)</desc>', chart)]
    assert values == [30, 30, 10, 0, 0, 7, 6, 15, 0]


def _chart_colours(page: str) -> list[tuple[str, dict[str, str]]]:
    """Each chart of an HTML recap: its title and the colour of each series, by its name."""
    import re

    out = []
    for chart in page.split('<div class="chart">')[1:]:
        fills = dict(re.findall(r"\.color-(\d+),[^{]*\{stroke:(#[0-9a-f]{6})", chart))
        legends = re.findall(r'class="color-(\d+) reactive" /><text[^>]*>([^<]*)</text>', chart)
        title = re.search(r'class="title plot_title">([^<]*)<', chart)
        out.append((title[1] if title else "", {who: fills[n] for n, who in legends}))
    return out


@pytest.mark.parametrize("system", ["2d10-edge", "d100-chance"])
def test_a_character_has_one_colour_in_every_chart_of_the_html_recap(
    tmp_path: Path, system: str
) -> None:
    build_demo(tmp_path / "demo.margin", system).close()
    code, page, err = run_margin("recap", str(tmp_path / "demo.margin"), "--format", "html")
    assert code == 0, err
    charts = [c for c in _chart_colours(page) if not c[0].startswith("Luck")]
    assert len(charts) >= 2, [c[0] for c in charts]
    colour: dict[str, str] = {}
    for title, series in charts:
        for who, fill in series.items():
            assert colour.setdefault(who, fill) == fill, (who, title)
    # and no two characters share one
    assert len(set(colour.values())) == len(colour)


def test_a_character_keeps_its_colour_when_the_charts_list_others_first() -> None:
    from margin.core.recap import Encounter
    from margin.tui.text.recap_html import html

    # Kael only checks and the guard only hurts: the charts side by side list them apart
    fight = Encounter(
        "Ambush",
        rounds=1,
        damage={1: {"Guard": 7}},
        activity={1: {"Kael": 1, "Guard": 1}},
    )
    fight.tally("Kael").checks = 1
    fight.tally("Guard").dealt = 7
    charts = dict(_chart_colours(html(Recap(system="2d10-edge", encounters=[fight]))))
    damage, timeline = charts["Damage dealt by round"], charts["Timeline: checks by round"]
    assert damage["Guard"] == timeline["Guard"]
    assert timeline["Kael"] != timeline["Guard"]


def test_the_luck_chart_of_a_crowded_session_shows_those_with_the_most_checks() -> None:
    from margin.core.recap import CharacterLuck
    from margin.tui.text.recap_html import LUCK_CHARTED, luck_chart

    def rolled(name: str, checks: int) -> CharacterLuck:
        odds = luck([0.5] * checks, checks // 2)
        return CharacterLuck(name, odds, (("margin's dice", odds),), ())

    # two more characters than the chart shows: the two with the fewest checks are left out
    few = {"Rat 3": 1, "Rat 9": 2}
    names = [f"Rat {n}" for n in range(LUCK_CHARTED + 2)]
    crowd = [rolled(name, few.get(name, 10 + n)) for n, name in enumerate(names)]
    chart = luck_chart(Recap(system="2d10-edge", luck=crowd))
    assert f"({LUCK_CHARTED} of {LUCK_CHARTED + 2} characters: those with the most checks)" in chart
    labels = [name for name in names if f">{name}<" in chart]
    assert labels == [name for name in names if name not in few]
    # a session of no more is charted whole, under the plain title
    whole = luck_chart(Recap(system="2d10-edge", luck=crowd[:LUCK_CHARTED]))
    assert all(f">{name}<" in whole for name in names[:LUCK_CHARTED])
    assert "those with the most checks" not in whole


# -- read beside the fold ---------------------------------------------------------


def _reread(path: Path, corrected: bool) -> str:
    """The recap read the long way: the table opened, then every record read again."""
    table = LiveTable(Table.open(path, readonly=True).store)
    try:
        return markdown(build(View(table), corrected))
    finally:
        table.close()


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("snapshot_at", [None, 9, "end"])
def test_recap_read_beside_the_fold_is_the_recap_read_again(
    tmp_path: Path, system: str, snapshot_at: int | str | None
) -> None:
    # the GM's recap reads each record as the fold that opens the table does; from a snapshot
    # (mid-log, or of the whole log) it reads the records the fold skipped first
    path = tmp_path / "t.margin"
    table = Table.create(path, system, title="beside")
    for i, data in enumerate(get_system(system).demo):
        table.execute(convert_command(system, data))
        if snapshot_at == i:
            assert table.keep_snapshot(0)
    if snapshot_at == "end":
        assert table.keep_snapshot(0)
    table.store.close()
    for corrected in (True, False):
        beside = markdown(recap_of(str(path), None, corrected))
        assert beside == _reread(path, corrected)
        assert "beside" in beside
