"""d100-chance: the last details the rules text states, each test quoting the text it plays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import character, events_of, one, player_log, refused, run_margin
from test_chance_effects import fighter

from margin.core.systems.chance import present
from margin.core.systems.chance.state import ChanceCharacter
from margin.core.systems.chance.words import GRAMMAR
from margin.events.systems.chance import (
    AttackRolled,
    CheckRolled,
    EffectRemoved,
    EffectTicked,
    Moved,
    OpposedRolled,
    SideSwitched,
    TurnStarted,
)
from margin.tui.table.table import Table

SYSTEM = "d100-chance"


def new_table(tmp_path: Path, hidden: tuple[str, ...] = (), **options: Any) -> Table:
    t = Table.create(tmp_path / "t.margin", SYSTEM, options)
    for name, side in (("Ana", "party"), ("Bo", "cult"), ("Cy", "party")):
        events_of(t, **fighter(name, side=side), hidden=name in hidden)
    return t


def char(t: Table, name: str) -> ChanceCharacter:
    return character(t, name, ChanceCharacter)


def line(event: Any) -> str:
    return present.describe(msgspec.to_builtins(event)) or ""


# -- the difficulty table: "| 61–80 | Hard | Break a sealed network, ..." -----------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("effortless", 5),
        ("easy", 18),
        ("moderate", 33),
        ("challenging", 50),
        ("Hard", 70),
        ("extreme", 90),
    ],
)
def test_a_difficulty_named_by_its_band_is_the_bands_middle(
    tmp_path: Path, name: str, value: int
) -> None:
    """ "| 1–10 | Effortless | ... | 81–100 | Extreme |": a band named stands for its middle
    value, halves rounded down."""
    t = new_table(tmp_path)
    check = one(
        events_of(
            t,
            type="check",
            character="Ana",
            skill="lockpick",
            proficiency=10,
            difficulty=name,
            faces=[50],
        ),
        CheckRolled,
    )
    assert (check.difficulty, check.difficulty_band) == (value, name.lower())


def test_every_check_record_names_its_band_and_the_log_shows_it(tmp_path: Path) -> None:
    """ "| 41–60 | Challenging | Disarm a bomb, counterfeit gear, precision micro-work |" """
    t = new_table(tmp_path)
    check = one(
        events_of(t, type="check", character="Ana", skill="lockpick", difficulty=45, faces=[20]),
        CheckRolled,
    )
    assert check.difficulty_band == "challenging"
    assert "vs difficulty 45 (challenging)" in line(check)
    opposed = one(
        events_of(
            t,
            type="opposed",
            actor="Ana",
            skill="lockpick",
            defender="Bo",
            defender_skill="perception",
            actor_difficulty="easy",
            faces=[10, 90],
        ),
        OpposedRolled,
    )
    assert (opposed.actor_difficulty, opposed.actor_difficulty_band) == (18, "easy")
    assert opposed.defender_difficulty_band == "moderate"  # Ana's proficiency 30
    assert "vs difficulty 18 (easy)" in line(opposed)
    # a record written before the field still shows its band
    old = msgspec.to_builtins(check)
    old.pop("difficulty_band")
    assert "(challenging)" in (present.describe(old) or "")


def test_a_secret_checks_band_is_hidden_like_its_difficulty(tmp_path: Path) -> None:
    """ "You hear the outcome, not the DC": the band would tell the DC's range."""
    t = new_table(tmp_path)
    events_of(t, type="check", character="Ana", skill="lockpick", difficulty="hard", faces=[50])
    seen = player_log(t)[-1]["event"]
    assert seen["type"] == "chance.check"
    assert seen["band"] == "setback"
    assert "difficulty_band" not in seen
    assert "difficulty" not in seen


def test_a_band_name_through_margin_do_and_the_log(tmp_path: Path) -> None:
    path = str(tmp_path / "t.margin")
    assert run_margin("new", path, "--system", SYSTEM)[0] == 0
    commands = [
        fighter("Ana"),
        {"type": "check", "character": "Ana", "skill": "lockpick", "difficulty": "hard",
         "faces": [30], "secret": False},
        {"type": "check", "character": "Ana", "skill": "lockpick", "difficulty": "tough"},
    ]  # fmt: skip
    _, out, _ = run_margin("do", path, stdin="\n".join(json.dumps(c) for c in commands) + "\n")
    replies = [json.loads(r) for r in out.splitlines()]
    assert replies[1]["ok"]
    assert not replies[2].get("ok")
    assert "difficulty: 'tough' is not a difficulty" in replies[2]["error"]
    _, out, _ = run_margin("log", path)
    assert "vs difficulty 70 (hard)" in out


def test_the_short_form_names_a_band(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    cmd = GRAMMAR.parse(["check", "ana", "lockpick", "extreme", "tools"], t.state)
    assert cmd is not None
    check = one(events_of(t, **cmd, faces=[1]), CheckRolled)
    assert (check.difficulty, check.difficulty_band) == (90, "extreme")


# -- "Crit chance comes from DEX and gear. Crit multiplier starts at 1.5× and increases with
# STR, DEX, and weapon mods"


def test_crits_come_from_the_sheet_as_written_by_default(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    attack = one(
        events_of(t, type="attack", attacker="Ana", target="Bo", faces=[1, 99, 51]), AttackRolled
    )
    # no crit chance on the sheet: no crit roll, the range die gives 100% of 10 + STR 10
    assert (attack.crit_chance, attack.crit_roll, attack.damage) == (0, None, 20)


def test_crit_chance_and_multiplier_derive_from_dex_and_str_with_gm_steps(
    tmp_path: Path,
) -> None:
    """ "Crit chance comes from DEX and gear. Crit multiplier starts at 1.5x and increases with
    STR, DEX, and weapon mods — never below 1.5x." With the steps set, DEX 10 at 2 a point
    gives +5%; STR + DEX 20 at 4 a step gives 5 steps of +0.1; the sheet's numbers are gear."""
    t = new_table(tmp_path, crit_dex_step=2, crit_multiplier_step=4)
    attack = one(
        events_of(t, type="attack", attacker="Ana", target="Bo", faces=[1, 99, 5]), AttackRolled
    )
    assert (attack.crit_chance, attack.crit_roll, attack.crit) == (5, 5, True)
    assert ["crit", "x 2 = 40"] in attack.steps
    assert attack.damage == 40
    events_of(t, type="update-character", character="Ana",
              sheet={"crit_chance": 10, "crit_multiplier": 1.75})  # fmt: skip
    geared = one(
        events_of(t, type="attack", attacker="Ana", target="Bo", faces=[1, 99, 15]),
        AttackRolled,
    )
    # gear 10% + DEX 5%; 1.75 + 0.5 = 2.25 x 20 = 45
    assert (geared.crit_chance, geared.crit, geared.damage) == (15, True, 45)


def test_a_poisoned_stat_lowers_the_derived_crits(tmp_path: Path) -> None:
    t = new_table(tmp_path, crit_dex_step=2)
    events_of(t, type="effect", target="Ana", effect="poisoned", potency=5, stat="dex")
    attack = one(
        events_of(t, type="attack", attacker="Ana", target="Bo", faces=[1, 99, 99, 51]),
        AttackRolled,
    )
    assert attack.crit_chance == 2  # DEX 10 - 5 = 5, at 2 a point


# -- "Feared / Charmed / Confused | Forced movement, wrong targets, or a friend turned enemy"


def _frighten(t: Table, potency: int = 25, source: str = "Bo") -> None:
    events_of(t, type="encounter", order=["Ana", "Bo"], positions={"Ana": [0, 0], "Bo": [10, 0]})
    events_of(t, type="effect", target="Ana", effect="feared", potency=potency, source=source)


def test_a_feared_character_must_flee_on_its_turn_and_the_gm_confirms_it(
    tmp_path: Path,
) -> None:
    """ "Feared ... | Forced movement": the turn's record says from whom and where to; the GM
    confirms the flight before anything else happens on that turn."""
    t = new_table(tmp_path)
    _frighten(t)
    turn = one(events_of(t, type="next"), TurnStarted)
    assert (turn.flee_from, turn.flee_to) == ("bo", [-30, 0])
    assert "feared, it must flee from bo" in line(turn)
    refused(t, "Ana is feared and must flee first", type="next")
    refused(t, "must flee first", type="move", character="Ana", to=[-5, 0])
    refused(t, "feared and flees instead of attacking", type="attack", attacker="Ana",
            target="Bo")  # fmt: skip
    fled = one(events_of(t, type="flee", character="Ana"), Moved)
    assert (fled.to, fled.feet, fled.fled) == ([-30, 0], 30, True)
    assert line(fled) == "ana flees 30 ft to [-30, 0]"
    refused(t, "no forced move due", type="flee", character="Ana")
    refused(t, "more than Ana's 30 ft", type="move", character="Ana", to=[-35, 0])
    events_of(t, type="next")  # Bo's turn: nobody flees
    events_of(t, type="undo")
    events_of(t, type="undo")
    refused(t, "must flee first", type="next")  # undoing the flight makes it due again


def test_the_gm_may_pick_another_place_away_from_the_frightener(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    _frighten(t)
    events_of(t, type="next")
    refused(t, "must move away from Bo", type="flee", character="Ana", to=[5, 5])
    refused(t, "more than the 30 ft", type="flee", character="Ana", to=[-40, 0])
    assert one(events_of(t, type="flee", character="Ana", to=[0, -20]), Moved).to == [0, -20]
    cmd = GRAMMAR.parse(["flee", "ana", "3", "4", "override"], t.state)
    assert cmd == {"type": "flee", "character": "ana", "to": [3, 4], "override": True}


def test_no_flight_when_the_fear_ends_as_the_turn_starts_or_the_character_cannot_move(
    tmp_path: Path,
) -> None:
    t = new_table(tmp_path)
    _frighten(t, potency=5)  # one turn: its tick at the start of Ana's turn ends it
    events = events_of(t, type="next")
    assert one(events, EffectTicked).ended
    assert one(events, TurnStarted).flee_from == ""
    events_of(t, type="next")
    events_of(t, type="effect", target="Ana", effect="feared", potency=25, source="Bo")
    events_of(t, type="effect", target="Ana", effect="rooted", potency=25)
    assert one(events_of(t, type="next"), TurnStarted).flee_from == ""


def test_fear_from_the_gm_or_a_placeless_source_leaves_the_place_to_the_gm(
    tmp_path: Path,
) -> None:
    t = new_table(tmp_path)
    _frighten(t, source="gm")
    turn = one(events_of(t, type="next"), TurnStarted)
    assert (turn.flee_from, turn.flee_to) == ("gm", None)
    refused(t, "give the place Ana flees to", type="flee", character="Ana")
    assert one(events_of(t, type="flee", character="Ana", to=[0, 25]), Moved).fled


def test_clearing_the_fear_takes_the_forced_move_back(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    _frighten(t)
    events_of(t, type="next")
    events_of(t, type="clear-effect", character="Ana", effect="feared")
    events_of(t, type="move", character="Ana", to=[5, 0])
    events_of(t, type="next")


def test_where_a_feared_character_runs_does_not_betray_a_hidden_frightener(
    tmp_path: Path,
) -> None:
    t = new_table(tmp_path, hidden=("Bo",))
    _frighten(t)
    turn = one(events_of(t, type="next"), TurnStarted)
    assert (turn.flee_from, turn.flee_to) == ("bo", [-30, 0])
    [seen] = [r["event"] for r in player_log(t) if r["event"]["type"] == "chance.turn"]
    assert seen["flee_from"] == "someone unseen"
    assert "flee_to" not in seen
    assert "must flee from someone unseen (the GM says where)" in (present.describe(seen) or "")


def test_a_charmed_characters_side_is_switched_and_switched_back(tmp_path: Path) -> None:
    """ "Feared / Charmed / Confused | ... or a friend turned enemy" """
    t = new_table(tmp_path)
    refused(t, "Cy is not charmed", type="switch-side", character="Cy")
    events_of(t, type="effect", target="Cy", effect="charmed", potency=25, source="Bo")
    switched = one(events_of(t, type="switch-side", character="Cy"), SideSwitched)
    assert (switched.side, switched.before, switched.reason) == ("cult", "party", "charmed")
    assert line(switched).endswith("now fights for cult")
    assert char(t, "cy").side == "cult"
    assert "fights for cult (charmed)" in present.status(char(t, "cy"), t.state)
    refused(t, "already fights for 'cult'", type="switch-side", character="Cy")
    cleared = events_of(t, type="clear-effect", character="Cy", effect="charmed")
    back = one(cleared, SideSwitched)
    assert isinstance(cleared[0], EffectRemoved)
    assert (back.side, back.before, back.reason) == ("party", "cult", "charm-ended")
    assert char(t, "cy").side is None
    assert "returns to its own side, party" in line(back)
    events_of(t, type="undo")
    assert char(t, "cy").side == "cult"


def test_a_charm_running_out_switches_the_side_back_on_its_tick(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    events_of(t, type="encounter", order=["Cy", "Bo"])
    events_of(t, type="effect", target="Cy", effect="charmed", potency=5, source="Bo")
    cmd = GRAMMAR.parse(["side", "cy", "rebels"], t.state)
    assert cmd == {"type": "switch-side", "character": "cy", "side": "rebels"}
    events_of(t, **cmd)
    events = events_of(t, type="next")
    assert one(events, EffectTicked).ended
    assert one(events, SideSwitched).side == "party"
    assert char(t, "cy").side is None


def test_a_charmer_without_a_side_needs_the_side_named(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    events_of(t, type="effect", target="Cy", effect="charmed", potency=25)
    refused(t, "name the side Cy now fights for", type="switch-side", character="Cy")
    assert one(events_of(t, type="switch-side", character="Cy", side="gm"), SideSwitched)


def test_margin_rules_documents_the_new_rulings() -> None:
    code, out, _ = run_margin("rules", SYSTEM)
    assert code == 0
    for words in (
        '"difficulty": "hard"',
        "middle",
        "crit_dex_step",
        "crit_multiplier_step",
        "`flee`",
        "`switch-side`",
        "`side`",
    ):
        assert words in out, words


def test_a_hidden_charmers_side_is_not_taken_for_the_players_to_see(tmp_path: Path) -> None:
    """The switch is shown to players like the charm; a hidden charmer's own side is not."""
    t = new_table(tmp_path, hidden=("Bo",))
    events_of(t, type="effect", target="Cy", effect="charmed", potency=25, source="Bo")
    refused(t, "whoever charmed it is hidden", type="switch-side", character="Cy")
    events_of(t, type="switch-side", character="Cy", side="enemies")
    seen = player_log(t)[-1]["event"]
    assert (seen["type"], seen["side"], seen["before"]) == ("chance.side", "enemies", "party")
