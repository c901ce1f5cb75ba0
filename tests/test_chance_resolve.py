"""``margin resolve`` for d100-chance against an independent evaluation of the rules."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import Band, band_of, margin_process

from margin.tui.table.resolve import run

# -- an independent reading of the rules, written without margin's code ----------------

#: The rules text's modifier table, rows as it prints them; each named as margin's commands
#: name it. "Each helper (max two)" is counted apart.
MODIFIER_ROWS = """
| Proper tools | +10 |
| Ideal conditions | +10 |
| Each helper (max two) | +10 each |
| Blueprint, recipe, or reference | +10 |
| No tools | −30 |
| Rushed | −20 |
| Under fire / hostile conditions | −20 |
"""
MODIFIER_NAMES = {
    "Proper tools": "proper-tools",
    "Ideal conditions": "ideal-conditions",
    "Each helper (max two)": "helper",
    "Blueprint, recipe, or reference": "blueprint",
    "No tools": "no-tools",
    "Rushed": "rushed",
    "Under fire / hostile conditions": "under-fire",
}
MODS = {
    MODIFIER_NAMES[cells[0]]: int(cells[1].split()[0].replace("−", "-"))
    for row in MODIFIER_ROWS.strip().splitlines()
    if (cells := [c.strip() for c in row.strip("|").split("|")])
}
#: The range profiles' table: name, then minimum and maximum damage, as the text prints them.
RANGE_ROWS = """
| Standard | 50% | 100% |
| Calibrated | 65% | 95% |
| High-Power | 35% | 110% |
| Focused | 70% | 90% |
| Volatile | 25% | 115% |
"""
RANGES = {
    cells[0].lower(): (int(cells[1].rstrip("%")), int(cells[2].rstrip("%")))
    for row in RANGE_ROWS.strip().splitlines()
    if (cells := [c.strip() for c in row.strip("|").split("|")])
}
#: Bands from margin = chance - roll (RULINGS 3, reading the text's "Success by 10+ - clean",
#: "Success", "Failure within 10 - recoverable", "Failure by 10+ - a setback"): "margin >= 10
#: clean success; 0..9 success; -1..-10 recoverable failure; below -10 setback".
MARGIN_BANDS: list[Band] = [
    (10, None, "clean-success"),
    (0, 9, "success"),
    (-10, -1, "recoverable-failure"),
    (None, -11, "setback"),
]


def expect_check(prof: int, diff: int, mods: list[str], roll: int) -> dict[str, Any]:
    helpers = min(2, mods.count("helper"))
    bonus = sum(MODS[m] for m in mods if m != "helper") + MODS["helper"] * helpers
    chance = min(95, max(5, 55 + 2 * (prof - diff) + bonus))
    if prof - diff >= 25:
        return {"automatic": True, "chance": chance, "roll": None, "success": True,
                "margin": None, "band": "success"}  # fmt: skip
    margin = chance - roll
    return {"automatic": False, "chance": chance, "roll": roll, "success": roll <= chance,
            "margin": margin, "band": band_of(margin, MARGIN_BANDS)}  # fmt: skip


#: "Flanking is coming at a target from the side or rear: +15% damage and evasion −15% from
#: the side; +25% damage from the rear and the target's evasion −30%. Each extra attacker
#: surrounding a target costs 5% more evasion."
FLANK_DAMAGE_PERCENT = {"front": 0, "side": 15, "rear": 25}
FLANK_EVASION_LOST = {"front": 0, "side": 15, "rear": 30}
EVASION_LOST_PER_EXTRA_ATTACKER = 5


def expect_damage(r: dict[str, Any]) -> int:
    """Exact rational arithmetic: one product over one denominator, rounded half up once."""
    num = Fraction(r["base"] + r["scaling"])
    unaware = r["unaware_percent"]
    if r["crit"] or unaware:
        num *= Fraction(str(r["crit_multiplier"]))
    else:
        num *= Fraction(r["range_percent"], 100)
    num *= Fraction(str(r["vitals"]))
    pos = FLANK_DAMAGE_PERCENT[r["position"]]
    num *= Fraction(100 + pos + unaware, 100)
    num *= Fraction(100, 100 + r["armor"])
    num *= Fraction(100 - r["resistance_percent"], 100)
    twice = num * 2
    rounded = (twice.numerator + twice.denominator) // (2 * twice.denominator)
    return max(1, rounded)


def expect_attack(r: dict[str, Any]) -> dict[str, Any]:
    lose = (
        FLANK_EVASION_LOST[r["position"]] + EVASION_LOST_PER_EXTRA_ATTACKER * r["extra_attackers"]
    )
    ev = r["evasion"] - lose
    hit_chance = max(5, min(95, r["accuracy"] - ev))
    hit = r["roll"] <= hit_chance
    dodged = hit and r["aware"] and r["dodge_roll"] <= max(0, min(95, ev))
    return {"hit_chance": hit_chance, "hit": hit, "dodged": dodged, "connects": hit and not dodged}


def resolve(*requests: dict[str, Any], seed: int | None = 7) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = run(io.StringIO("\n".join(json.dumps(r) for r in requests) + "\n"), out, seed=seed)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


# -- random cases ----------------------------------------------------------------------

modifier_lists = st.lists(st.sampled_from(["helper", "blueprint", "rushed", "ideal-conditions"]),
                          max_size=5).map(lambda ms: [m for i, m in enumerate(ms)
                                                      if m == "helper" or m not in ms[:i]])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    prof=st.integers(0, 100),
    diff=st.integers(1, 100),
    mods=modifier_lists,
    tools=st.sampled_from([[], ["proper-tools"], ["no-tools"]]),
    roll=st.integers(1, 100),
)
def test_check_agrees(prof: int, diff: int, mods: list[str], tools: list[str], roll: int) -> None:
    mods = mods + tools
    req = {"system": "d100-chance", "action": "check", "proficiency": prof, "difficulty": diff,
           "modifiers": mods, "roll": roll}  # fmt: skip
    code, [result] = resolve(req)
    assert code == 0
    want = expect_check(prof, diff, mods, roll)
    assert {k: result[k] for k in want} == want


@settings(max_examples=300, deadline=None)
@given(
    base=st.integers(0, 60),
    scaling=st.integers(0, 30),
    profile=st.sampled_from(list(RANGES)),
    pick=st.integers(0, 90),
    crit=st.booleans(),
    mult=st.sampled_from([1.5, 1.75, 2, 2.25, 3]),
    vitals=st.sampled_from([1, 1.5, 2]),
    position=st.sampled_from(["front", "side", "rear"]),
    unaware=st.sampled_from([0, 0, 50, 75, 100]),
    armor=st.integers(0, 200),
    resistance=st.integers(-50, 100),
)
def test_damage_agrees(
    base: int, scaling: int, profile: str, pick: int, crit: bool, mult: float, vitals: float,
    position: str, unaware: int, armor: int, resistance: int,
) -> None:  # fmt: skip
    lo, hi = RANGES[profile]
    req = {
        "system": "d100-chance", "action": "damage", "base": base, "scaling": scaling,
        "profile": profile, "range_percent": lo + pick % (hi - lo + 1), "crit": crit,
        "crit_multiplier": mult, "vitals": vitals, "position": position,
        "unaware_percent": unaware, "armor": armor, "resistance_percent": resistance,
    }  # fmt: skip
    code, [result] = resolve(req)
    assert code == 0
    assert result["damage"] == expect_damage(req)


@settings(max_examples=300, deadline=None)
@given(
    accuracy=st.integers(40, 140),
    evasion=st.integers(-10, 80),
    position=st.sampled_from(["front", "side", "rear"]),
    extra=st.integers(0, 4),
    aware=st.booleans(),
    roll=st.integers(1, 100),
    dodge=st.integers(1, 100),
)
def test_attack_agrees(
    accuracy: int, evasion: int, position: str, extra: int, aware: bool, roll: int, dodge: int
) -> None:
    req = {"system": "d100-chance", "action": "attack", "accuracy": accuracy, "evasion": evasion,
           "position": position, "extra_attackers": extra, "aware": aware, "roll": roll,
           "dodge_roll": dodge}  # fmt: skip
    code, [result] = resolve(req)
    assert code == 0
    want = expect_attack(req)
    assert {k: result[k] for k in want} == want
    assert result["roll"] == roll
    assert result["dodge_roll"] == (dodge if want["hit"] and aware else None)


# -- the contract's details --------------------------------------------------------------


def test_the_text_example_through_resolve() -> None:
    _, [gamble, done] = resolve(
        {"system": "d100-chance", "action": "check", "proficiency": 8, "difficulty": 15,
         "roll": 41},
        {"system": "d100-chance", "action": "check", "proficiency": 40, "difficulty": 15},
    )  # fmt: skip
    assert (gamble["chance"], gamble["success"], gamble["band"]) == (41, True, "success")
    assert done["automatic"]
    assert done["roll"] is None
    assert done["success"]


def test_rolled_dice_are_echoed_and_reproducible() -> None:
    req = {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 30}
    _, [a] = resolve(req, seed=11)
    _, [b] = resolve(req, seed=11)
    assert a == b
    assert 1 <= a["roll"] <= 100
    assert a == expect_check(20, 30, [], a["roll"]) | {
        k: a[k] for k in a if k not in expect_check(20, 30, [], a["roll"])
    }
    _, [dmg] = resolve({"system": "d100-chance", "action": "damage", "base": 10,
                        "profile": "focused"})  # fmt: skip
    assert 70 <= dmg["range_percent"] <= 90
    assert dmg["damage"] == expect_damage({
        "base": 10, "scaling": 0, "crit": False, "unaware_percent": 0, "crit_multiplier": 1.5,
        "range_percent": dmg["range_percent"], "vitals": 1, "position": "front", "armor": 0,
        "resistance_percent": 0,
    })  # fmt: skip


def test_crit_reports_no_range_roll() -> None:
    _, [r] = resolve({"system": "d100-chance", "action": "damage", "base": 10, "crit": True,
                      "crit_multiplier": 2})  # fmt: skip
    assert r["range_percent"] is None
    assert r["damage"] == 20


def test_unaware_attack_cannot_be_dodged() -> None:
    _, [r] = resolve({"system": "d100-chance", "action": "attack", "accuracy": 90, "evasion": 40,
                      "aware": False, "roll": 10, "dodge_roll": 1})  # fmt: skip
    assert r["connects"]
    assert not r["dodged"]
    assert r["dodge_roll"] is None


def test_errors_name_the_field_and_the_run_goes_on() -> None:
    code, results = resolve(
        {"system": "d100-chance", "action": "check", "proficiency": 20},
        {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 0},
        {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 10,
         "colour": "red"},
        {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 10,
         "modifiers": ["lucky"]},
        {"system": "d100-chance", "action": "damage", "base": 10, "crit": True,
         "crit_multiplier": 1.2},
        {"system": "d100-chance", "action": "damage", "base": 10, "profile": "focused",
         "range_percent": 95},
        {"system": "d100-chance", "action": "attack", "accuracy": 80, "evasion": 20,
         "position": "below"},
        {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 10,
         "roll": 101},
        {"system": "d100-chance", "action": "check", "proficiency": 20, "difficulty": 10,
         "roll": 50},
    )  # fmt: skip
    assert code == 1
    errors = [r.get("error", "") for r in results]
    assert errors[0].startswith("difficulty: missing")
    assert errors[1].startswith("difficulty: 0 is out of range")
    assert errors[2].startswith("colour: unknown field")
    assert errors[3].startswith("modifiers: 'lucky'")
    assert errors[4].startswith("crit_multiplier:")
    assert errors[5].startswith("range_percent:")
    assert errors[6].startswith("position:")
    assert errors[7].startswith("roll: 101 is out of range")
    assert "error" not in results[8]
    assert results[8]["band"] == "clean-success"


def test_odds_opposed_and_effect_actions() -> None:
    _, [odds, opposed, effect] = resolve(
        {"system": "d100-chance", "action": "odds", "proficiency": 8, "difficulty": 15},
        {"system": "d100-chance", "action": "opposed",
         "a": {"proficiency": 30, "difficulty": 25, "roll": 40},
         "b": {"proficiency": 25, "difficulty": 30, "roll": 40}},
        {"system": "d100-chance", "action": "effect", "potency": 70, "resistance": 10},
    )  # fmt: skip
    assert odds["success"] == 0.41
    assert odds["bands"] == {"clean-success": 0.31, "success": 0.10,
                             "recoverable-failure": 0.10, "setback": 0.49}  # fmt: skip
    assert opposed["a"]["chance"] == 65
    assert opposed["b"]["chance"] == 45
    assert opposed["winner"] == "a"
    assert effect == {"landed": True, "gap": 60, "turns": 7, "stacks": 4}


def test_margin_resolve_as_a_process() -> None:
    lines = [
        {"system": "d100-chance", "action": "check", "proficiency": 8, "difficulty": 15,
         "roll": 60},
        {"system": "d100-chance", "action": "damage", "base": 30, "range_percent": 100,
         "armor": 50},
        {"system": "d100-chance", "action": "attack", "accuracy": 80, "evasion": 30,
         "position": "rear", "roll": 3},
    ]  # fmt: skip
    done = margin_process(
        "resolve", "--seed", "5", stdin="\n".join(json.dumps(r) for r in lines) + "\n"
    )
    assert done.returncode == 0, done.stderr
    check, damage, attack = (json.loads(x) for x in done.stdout.splitlines())
    assert (check["band"], check["margin"]) == ("setback", -19)
    assert damage["damage"] == 20
    assert attack["hit_chance"] == 80
    assert attack["hit"]
    assert attack["dodge_chance"] == 0
    assert attack["dodge_roll"] is not None  # the target saw it: the dodge is rolled, and fails
    assert attack["connects"]


def test_huge_numbers_are_refused_by_resolve() -> None:
    code, results = resolve(
        {"system": "d100-chance", "action": "effect", "potency": 10**20},
        {"system": "d100-chance", "action": "effect", "potency": 50, "resistance": -(10**12)},
        {"system": "d100-chance", "action": "effect", "potency": 50, "duration_step": 10**9},
        {"system": "d100-chance", "action": "damage", "base": 10**20, "range_percent": 50},
        {"system": "d100-chance", "action": "attack", "accuracy": 10**20, "evasion": 0},
    )
    assert code == 1
    errors = [r.get("error", "") for r in results]
    assert errors == [
        "potency: 100000000000000000000 is out of range (0..1000)",
        "resistance: -1000000000000 is out of range (-1000..1000)",
        "duration_step: 1000000000 is out of range (1..100)",
        "base: 100000000000000000000 is out of range (-1000000..1000000)",
        "accuracy: 100000000000000000000 is out of range (-1000000..1000000)",
    ]
