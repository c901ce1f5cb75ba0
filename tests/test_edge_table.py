"""2d10-edge at a table: commands decided into events, folded, refused and undone."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import character, check, demo_sheet, player_log, player_state_of, refused

from margin.core import RuleError
from margin.core.commands import convert_command
from margin.core.systems.edge import SYSTEM, present
from margin.core.systems.edge.state import EdgeCharacter, EdgeWorld
from margin.events import Record
from margin.tui.table.demo import build_demo
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

#: the demo's Kael, carrying the FAM-90 the attack tests fire
HERO = {**demo_sheet("2d10-edge"), "weapons": ["sword", "punch", "fam-90"]}

#: the demo's guard, less hardy and easier to hit
FOE = {**demo_sheet("2d10-edge", name="Guard"), "health": 20, "defense": 15}


def new_table(tmp_path: Path, **options: Any) -> Table:
    t = Table.create(tmp_path / "t.margin", "2d10-edge", options)
    t.dice = RandomDice(5)
    return t


def do(t: Table, **cmd: Any) -> list[Record]:
    return t.execute(convert_command("2d10-edge", cmd))


def attack(who: str, target: str, **more: Any) -> dict[str, Any]:
    """The fields of an attack by ``who`` on ``target``, with ``more``."""
    return {"type": "attack", "character": who, "target": target, **more}


def spend(who: str, purpose: str, **more: Any) -> dict[str, Any]:
    """The fields of ``who`` spending a point of Edge on ``purpose``, with ``more``."""
    return {"type": "spend-edge", "character": who, "purpose": purpose, **more}


def act(who: str, action: str, **more: Any) -> dict[str, Any]:
    """The fields of ``who`` using an ``action`` of their turn, with ``more``."""
    return {"type": "use-action", "character": who, "action": action, **more}


def char(t: Table, name: str) -> EdgeCharacter:
    return character(t, name, EdgeCharacter)


def world(t: Table) -> EdgeWorld:
    assert isinstance(t.state.world, EdgeWorld)
    return t.state.world


@pytest.fixture
def party(tmp_path: Path) -> Table:
    t = new_table(tmp_path)
    do(t, type="add-character", name="Kael", sheet=HERO)
    do(t, type="add-character", name="Guard", sheet=FOE)
    return t


def event(records: list[Record], tag: str) -> Any:
    return next(r.event for r in records if r.event.__struct_config__.tag == tag)


# -- checks ---------------------------------------------------------------------


def test_cliff_climb_check(party: Table) -> None:
    recs = do(party, **check("kael", "Athletics", tn="difficult", faces=[6, 5]))
    e = event(recs, "edge.check")
    assert (e.bonus, e.tn, e.total, e.mos, e.band) == (20, 30, 31, 1, "marginal-success")
    assert e.source == "typed"
    assert char(party, "kael").pending == []


def test_significant_success_leaves_advantage_on_the_next_related_check(party: Table) -> None:
    do(party, **check("kael", "athletics", tn=30, faces=[7, 8]))
    pending = char(party, "kael").pending
    assert [(p.kind, p.scope, p.skill) for p in pending] == [("advantage", "related", "athletics")]
    other = event(
        do(party, **check("kael", "perception", tn=20, faces=[5, 6])),
        "edge.check",
    )
    assert other.mode == "normal"
    assert other.pending_used == []
    again = event(
        do(party, **check("kael", "athletics", tn=30, faces=[2, 9, 5])),
        "edge.check",
    )
    assert again.mode == "advantage"
    assert again.kept == [9, 5]
    assert again.pending_used == [pending[0].seq]
    assert char(party, "kael").pending == []


def test_complete_failure_leaves_disadvantage_on_any_next_check(party: Table) -> None:
    e = event(
        do(party, **check("kael", "perception", tn=40, faces=[2, 3])),
        "edge.check",
    )
    assert e.band == "complete-failure"
    nxt = event(
        do(party, **check("kael", "athletics", tn=20, faces=[9, 9, 2])),
        "edge.check",
    )
    assert nxt.mode == "disadvantage"
    assert nxt.kept in ([9, 2], [2, 9]) or nxt.double


def test_pending_can_be_dismissed_or_skipped(party: Table) -> None:
    do(party, **check("kael", "athletics", tn=30, faces=[7, 8]))
    skipped = event(
        do(party, **check("kael", "athletics", tn=30, pending="none", faces=[5, 6])),
        "edge.check",
    )
    assert skipped.mode == "normal"
    seq = char(party, "kael").pending[0].seq
    do(party, type="dismiss-pending", character="kael")
    assert char(party, "kael").pending == []
    refused(party, "nothing pending", type="dismiss-pending", character="kael")
    refused(party, f"pending: {seq} is not pending", **check("kael", "athletics", pending=[seq]))


def test_mos_consequences_option_off(tmp_path: Path) -> None:
    t = new_table(tmp_path, mos_consequences=False)
    do(t, type="add-character", name="Kael", sheet=HERO)
    do(t, **check("kael", "athletics", tn=30, faces=[10, 9]))
    assert char(t, "kael").pending == []


def test_edge_on_a_check_is_an_event_and_spends_a_point(party: Table) -> None:
    recs = do(
        party, **check("kael", "firearms", tn=20, modifier=1, edge="advantage", faces=[2, 2, 4])
    )
    spent = event(recs, "edge.spent")
    assert (spent.purpose, spent.edge_after) == ("advantage", 2)
    e = event(recs, "edge.check")
    assert (e.bonus, e.kept, e.total, e.band) == (14, [2, 2], 23, "marginal-success")
    assert char(party, "kael").edge == 2


def test_check_errors_name_the_problem(party: Table) -> None:
    refused(party, "skill: 'piloting' is not a skill of Kael", **check("kael", "piloting"))
    refused(party, "faces: 11 is not a face of a d10", **check("kael", "athletics", faces=[11, 2]))
    refused(party, "character 'nobody' is not at the table", **check("nobody", "athletics"))
    refused(
        party, "already has Advantage", **check("kael", "athletics", advantage=1, edge="advantage")
    )
    refused(party, "no Edge left", **check("guard", "firearms", edge="advantage"))
    refused(
        party, "faces: 3 given but the roll uses 2", **check("kael", "athletics", faces=[1, 2, 3])
    )
    refused(party, "impossible task", **check("kael", "athletics", tn="impossible"))


# -- attacks, damage and armor ---------------------------------------------------


def test_fam90_burst_against_medium_armor(party: Table) -> None:
    recs = do(
        party,
        **attack(
            "kael", "guard", weapon="FAM-90", mode="burst", tn=20, faces=[3, 4, 4, 4, 4, 4, 4, 3]
        ),
    )
    shot = recs[0]
    dmg = event(recs, "edge.damage")
    assert (dmg.dice, dmg.bonus, dmg.raw, dmg.pt, dmg.pt_reduction) == (6, 1, 24, 25, 3)
    assert (dmg.penetrated, dmg.soaked, dmg.taken) == (True, 10, 14)
    assert recs[1].cause == shot.seq
    assert recs[2].cause == recs[1].seq
    guard = char(party, "guard")
    assert guard.damage == 14
    assert guard.injuries[0].severity == "life-threatening"


def test_armor_piercer_talent_reduces_pt(party: Table) -> None:
    do(party, type="update-character", character="kael", sheet={"talents": ["armor-piercer"]})
    dmg = event(
        do(party, **attack("kael", "guard", weapon="fam-90", tn=20, faces=[3, 4, 4, 4, 4, 4, 3])),
        "edge.damage",
    )
    assert (dmg.dice, dmg.raw, dmg.pt_reduction, dmg.penetrated, dmg.taken) == (5, 20, 7, True, 12)


def test_sword_converts_strength_and_mos_adds_dice(party: Table) -> None:
    recs = do(party, **attack("kael", "guard", tn=15, faces=[10, 9] + [6] * 6))
    a = event(recs, "edge.attack")
    assert (a.base_dice, a.damage_bonus, a.mos, a.damage_dice) == (4, 3, 23, 2)
    dmg = event(recs, "edge.damage")
    assert (dmg.dice, dmg.bonus, dmg.raw) == (6, 3, 39)


def test_attack_tn_defaults_to_the_target_defense(party: Table) -> None:
    a = event(
        do(party, **attack("kael", "guard", weapon="fam-90", damage=False, faces=[5, 4])),
        "edge.attack",
    )
    assert a.tn == 15
    assert a.skill == "firearms"
    do(party, type="add-character", name="Vask", sheet=HERO)
    refused(party, "Vask's sheet has no defense", **attack("kael", "vask"))


def test_damage_later_with_an_edge_boost(party: Table) -> None:
    recs = do(party, **attack("kael", "guard", weapon="fam-90", tn=20, damage=False, faces=[5, 5]))
    attack_seq = recs[0].seq
    assert [a.seq for a in world(party).open_attacks] == [attack_seq]
    later = do(party, type="damage", attacker="kael", edge_boost=True, faces=[6] * 8)
    assert event(later, "edge.spent").purpose == "damage"
    dmg = event(later, "edge.damage")
    assert (dmg.dice, dmg.attack, dmg.edge_boost, dmg.raw) == (8, attack_seq, True, 49)
    assert all(r.cause is not None for r in later)
    assert world(party).open_attacks == []
    refused(party, "no hit awaiting damage", type="damage", attacker="kael")


def test_edge_boost_refused_when_edge_went_into_the_roll(party: Table) -> None:
    refused(
        party,
        "cannot also boost damage",
        **attack("kael", "guard", tn=20, edge="advantage", edge_damage=True),
    )
    do(party, **attack("kael", "guard", tn=20, edge="advantage", damage=False, faces=[9, 9, 9]))
    refused(party, "cannot also boost damage", type="damage", attacker="kael", edge_boost=True)


def test_direct_damage_and_stun(party: Table) -> None:
    dmg = event(
        do(party, type="damage", target="kael", dice=3, bonus=2, armor=False, faces=[1, 2, 3]),
        "edge.damage",
    )
    assert (dmg.raw, dmg.taken, dmg.attack) == (8, 8, 0)
    do(party, **attack("guard", "kael", weapon="assault-rifle", damage=False, tn=5, faces=[5, 4]))
    recs = do(
        party, type="damage", target="guard", dice=1, bonus=9, stun=True, armor=False, faces=[6]
    )
    guard = char(party, "guard")
    assert event(recs, "edge.injury").stun
    assert guard.stun == 15
    assert guard.damage == 0
    do(party, type="damage", target="guard", dice=1, bonus=4, stun=True, armor=False, faces=[1])
    assert guard.knocked_out
    assert not guard.dead
    refused(party, "knocked out", **check("guard", "firearms"))
    refused(party, "fatal result", type="edge-burn", character="guard")
    do(party, type="heal", character="guard", points=20, stun=True)
    assert not char(party, "guard").knocked_out


def test_undo_of_an_attack_voids_its_damage_injury_and_what_they_caused(party: Table) -> None:
    recs = do(party, **attack("guard", "kael", tn=10, faces=[10, 10] + [6] * 6))
    assert char(party, "kael").injuries
    do(party, type="lessen-injury", character="kael")
    assert char(party, "kael").edge == 2
    undo = do(party, type="undo", command=recs[0].command)
    voided = set(undo[0].event.voids)
    assert {r.seq for r in recs} < voided
    assert len(voided) == len(recs) + 2
    kael = char(party, "kael")
    assert (kael.damage, kael.injuries, kael.edge) == (0, [], 3)


# -- Edge: lessen, burn, initiative, reaction, recovery ------------------------------


def test_lessen_injury_moves_severity_not_points(party: Table) -> None:
    do(party, type="damage", target="kael", dice=2, bonus=8, armor=False, faces=[6, 6])
    inj = char(party, "kael").injuries[0]
    assert (inj.points, inj.severity) == (20, "life-threatening")
    recs = do(party, **spend("kael", "lessen-injury"))
    assert all(r.cause == inj.seq for r in recs)
    kael = char(party, "kael")
    assert (kael.injuries[0].severity, kael.damage, kael.edge) == ("serious", 20, 2)
    do(party, type="lessen-injury", character="kael")
    do(party, type="lessen-injury", character="kael")
    refused(party, "above grazing", type="lessen-injury", character="kael")


def test_edge_burn_saves_from_death_only(party: Table) -> None:
    refused(party, "fatal result", type="edge-burn", character="kael")
    do(party, type="damage", target="kael", dice=6, bonus=10, armor=False, faces=[6] * 6)
    kael = char(party, "kael")
    assert kael.dead
    assert kael.injuries[0].severity == "fatal"
    refused(party, "dead", **check("kael", "athletics"))
    assert SYSTEM.status is not None
    assert "DEAD (Edge Burn can save)" in SYSTEM.status(kael, party.state)
    burn = do(party, type="edge-burn", character="kael")
    assert burn[0].cause == kael.injuries[0].seq
    kael = char(party, "kael")
    assert (kael.dead, kael.urgent_care, kael.edge, kael.burns) == (False, True, 2, 1)
    assert "Edge 2/2" in SYSTEM.status(kael, party.state)
    assert "needs urgent care" in SYSTEM.status(kael, party.state)
    refused(party, "fatal result", type="edge-burn", character="kael")
    do(party, type="heal", character="kael", points=10, cared=True)
    assert not char(party, "kael").urgent_care


def test_lessening_a_fatal_hit_does_not_undo_accumulated_damage(party: Table) -> None:
    do(party, type="damage", target="kael", dice=5, bonus=10, armor=False, faces=[6] * 5)
    assert char(party, "kael").dead
    do(party, type="lessen-injury", character="kael")
    assert char(party, "kael").injuries[0].severity == "life-threatening"
    assert char(party, "kael").dead, "the damage still reaches Health"


def test_edge_burn_option_off(tmp_path: Path) -> None:
    t = new_table(tmp_path, edge_burn=False)
    do(t, type="add-character", name="Kael", sheet=HERO)
    do(t, type="damage", target="kael", dice=8, bonus=10, armor=False, faces=[6] * 8)
    refused(t, "edge_burn option is off", type="edge-burn", character="kael")


def test_injuries_option_off(tmp_path: Path) -> None:
    t = new_table(tmp_path, injuries=False)
    do(t, type="add-character", name="Kael", sheet=HERO)
    inj = event(
        do(t, type="damage", target="kael", dice=2, bonus=8, armor=False, faces=[6, 6]),
        "edge.injury",
    )
    assert inj.severity == ""
    refused(t, "injuries option is off", type="lessen-injury", character="kael")


def test_spending_with_no_edge_left_is_refused(party: Table) -> None:
    do(party, type="start-encounter", characters=["kael", "guard"], faces=[1, 1, 1])
    refused(party, "Guard has no Edge left", **spend("guard", "reaction"))
    refused(party, "not a use of Edge", **spend("kael", "flight"))
    refused(party, "give edge on the check", **spend("kael", "advantage"))


def test_recovery_simple(party: Table) -> None:
    for _ in range(2):
        do(party, **check("kael", "perception", tn=16, edge="advantage", faces=[1, 2, 3]))
    assert char(party, "kael").edge == 1
    do(party, type="award-edge", character="kael", note="held the bridge")
    assert char(party, "kael").edge == 2
    refused(
        party, "simple recovery awards 1 point", type="award-edge", character="kael", size="boss"
    )
    refused(party, "belongs to complex recovery", type="recover-edge", reason="long-rest")
    do(party, type="recover-edge", reason="session-end")
    assert char(party, "kael").edge == 3
    refused(party, "already has full Edge", type="recover-edge", reason="session-end")


def test_recovery_complex(party: Table) -> None:
    do(party, type="set-option", name="edge_recovery", value="complex")
    for _ in range(3):
        do(party, **check("kael", "perception", tn=16, edge="advantage", faces=[1, 2, 3]))
    assert char(party, "kael").edge == 0
    refused(party, "belongs to simple recovery", type="recover-edge", reason="session-end")
    refused(party, "downtime", type="recover-edge", reason="long-rest", downtime=True)
    do(party, type="recover-edge", reason="long-rest")
    assert char(party, "kael").edge == 1
    rec = event(do(party, type="award-edge", character="kael", size="major"), "edge.recovered")
    assert (rec.amount, rec.size) == (1, "major")
    do(party, type="recover-edge", reason="final-boss")
    assert char(party, "kael").edge == 3


def test_initiative_turns_actions_and_boost(party: Table) -> None:
    recs = do(
        party, type="start-encounter", name="ambush", characters=["kael", "guard"], faces=[2, 3, 1]
    )
    joined = [r.event for r in recs[1:]]
    assert [(j.character, j.initiative) for j in joined] == [("kael", 17), ("guard", 8)]
    refused(party, "not kael's turn|it is not Kael's turn", **act("kael", "major"))
    turn = event(do(party, type="next-turn"), "edge.turn")
    assert (turn.round, turn.character, turn.actions) == (
        1,
        "kael",
        ["major", "move", "minor", "bonus"],
    )
    do(party, **attack("kael", "guard", tn=15, damage=False, faces=[5, 5]))
    assert SYSTEM.clock is not None
    clock = SYSTEM.clock(party.state)
    assert clock is not None
    assert clock.rows[0].current
    assert "bonus" in clock.rows[0].note
    do(party, **attack("kael", "guard", tn=15, damage=False, faces=[5, 6]))
    refused(party, "no Major or bonus action left", **attack("kael", "guard", tn=15))
    do(party, **act("kael", "move", what="to cover"))
    refused(party, "no move action left", **act("kael", "move"))
    spent = event(
        do(party, **spend("kael", "initiative", faces=[6, 5])),
        "edge.spent",
    )
    assert (spent.value, spent.actions) == (11, ["bonus"])
    refused(party, "already boosted", **spend("kael", "initiative", faces=[1, 1]))
    do(party, **act("kael", "bonus"))
    refused(party, "reaction is taken outside", **act("kael", "reaction"))
    guard_turn = event(do(party, type="next-turn"), "edge.turn")
    assert (guard_turn.character, guard_turn.actions) == ("guard", ["major", "move", "minor"])
    do(party, **act("kael", "reaction", what="dive"))
    refused(party, "no reaction left", **act("kael", "reaction"))
    do(party, **spend("kael", "reaction"))
    refused(party, "already gained an extra reaction", **spend("kael", "reaction"))
    do(party, **attack("kael", "guard", tn=15, action="reaction", damage=False, faces=[5, 5]))
    turn2 = event(do(party, type="next-turn"), "edge.turn")
    assert (turn2.round, turn2.character, turn2.initiative) == (2, "kael", 17)
    do(party, type="leave", character="guard")
    do(party, type="end-encounter")
    assert world(party).encounter is None
    refused(party, "no encounter is running", type="next-turn")


def test_boost_spent_before_the_turn_lasts_that_turn(party: Table) -> None:
    do(party, type="start-encounter", characters=["kael", "guard"], faces=[1, 1, 1])
    do(party, type="next-turn")
    do(party, type="next-turn")
    do(party, **spend("kael", "initiative", faces=[6, 6]))
    turn = event(do(party, type="next-turn"), "edge.turn")
    assert (turn.character, turn.initiative, turn.actions.count("bonus")) == ("kael", 26, 2)
    do(party, type="next-turn")
    turn = event(do(party, type="next-turn"), "edge.turn")
    assert turn.initiative == 14


def test_brackets_option_off(tmp_path: Path) -> None:
    t = new_table(tmp_path, initiative_brackets=False)
    do(t, type="add-character", name="Kael", sheet=HERO)
    do(t, type="start-encounter", characters=["kael"], faces=[6, 6])
    assert event(do(t, type="next-turn"), "edge.turn").actions == ["major", "move", "minor"]


# -- sheets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sheet", "message"),
    [
        ({"skills": {"athletics": {"ranks": 4, "keys": ["ST"]}}}, "exactly two key attributes"),
        (
            {"attributes": {"ST": 3}, "skills": {"athletics": {"ranks": 4, "keys": ["ST", "AG"]}}},
            "AG is not an attribute",
        ),
        ({"weapons": ["laser-sword"]}, "'laser-sword' is not a weapon preset"),
        ({"weapons": [{"name": "club"}]}, "give a preset or the weapon's dice"),
        ({"armor": "plate"}, "'plate' is not an armor preset"),
        ({"armor": {"pt": 10}}, "both pt and dr"),
        ({"edge": -1}, "edge: -1 is out of range"),
        ({"luck": 3}, "luck: unknown field"),
        ({"weapons": [3]}, r"sheet.weapons\[0\]: expected text or an object, got 3"),
        ({"weapons": [{"preset": "sword", "edge": 1}]}, r"sheet.weapons\[0\].edge: unknown field"),
        ({"skills": {"melee": {"rank": 2}}}, "sheet.skills.melee.rank: unknown field"),
        ({"armor": {"pt": 3, "dr": 3, "class": "plate"}}, "armor.class: 'plate' is not one of"),
    ],
)
def test_bad_sheets_are_refused(party: Table, sheet: dict[str, Any], message: str) -> None:
    refused(party, message, type="add-character", name="Odd", sheet=sheet)


def test_custom_weapon_and_armor(party: Table) -> None:
    do(
        party,
        type="add-character",
        name="Tank",
        sheet={
            "attributes": {"ST": 4, "AG": 2, "CU": 2},
            "skills": {"heavy-weapons": {"ranks": 3, "keys": ["ST", "AG"]}},
            "weapons": [
                {
                    "name": "Rail Gun",
                    "dice": 7,
                    "bonus": 3,
                    "pt_single": 5,
                    "skill": "heavy weapons",
                }
            ],
            "armor": {"name": "carapace", "pt": 30, "dr": 50},
        },
    )
    a = event(
        do(party, **attack("tank", "kael", tn=10, damage=False, faces=[5, 5])),
        "edge.attack",
    )
    assert (a.weapon, a.skill, a.pt_reduction, a.base_dice) == ("Rail Gun", "heavy-weapons", 5, 7)


# -- the demo ---------------------------------------------------------------------------


def test_demo_reproduces_the_worked_examples(tmp_path: Path) -> None:
    t = build_demo(tmp_path / "demo.margin", "2d10-edge")
    guard, enforcer = char(t, "guard"), char(t, "enforcer")
    assert (guard.damage, enforcer.damage) == (14, 14)
    damages = [r.event for r in t.store.records() if r.event.__struct_config__.tag == "edge.damage"]
    assert [(d.raw, d.pt, d.pt_reduction, d.soaked, d.taken) for d in damages] == [
        (24, 25, 3, 10, 14),
        (24, 20, 0, 10, 14),
    ]
    assert damages[1].dice == 6
    assert damages[1].edge_boost
    assert char(t, "kael").pending[0].kind == "advantage"
    enc = world(t).encounter
    assert enc is not None
    assert enc.current == "kael"
    assert enc.round == 1
    t.close()


def test_no_option_that_adds_disadvantage_on_top_of_disadvantage(party: Table) -> None:
    refused(
        party,
        "already has Disadvantage",
        **attack("kael", "guard", disadvantage=1, chosen_disadvantage=1),
    )
    e = event(
        do(party, **attack("kael", "guard", chosen_disadvantage=1, damage=False, faces=[9, 9, 1])),
        "edge.attack",
    )
    assert e.mode == "disadvantage"
    assert e.disadvantage == 1


def test_hidden_characters_records_are_gm_only(party: Table) -> None:
    sheet = {**FOE, "attributes": {"ST": 5, "AG": 4, "CU": 3, "IN": 3}}
    do(party, type="add-character", name="Sniper", sheet=sheet, hidden=True)
    joined = do(party, type="start-encounter", characters=["kael", "sniper"], faces=[1, 1, 6])
    assert [r.visibility.gm_only for r in joined] == [False, False, True]
    checked = do(party, **check("sniper", "firearms", tn=10, faces=[5, 5]))
    assert checked[0].visibility.gm_only
    shot = do(
        party, **attack("sniper", "kael", tn=10, action="none", faces=[5, 4, 1, 6, 6, 6, 6, 6])
    )
    assert not any(r.visibility.gm_only for r in shot), "the target sees the shot"
    assert SYSTEM.player_world is not None
    seen = SYSTEM.player_world(party.state)
    assert [c.id for c in seen.encounter.order] == ["kael"]
    assert [c.id for c in world(party).encounter.order] == ["kael", "sniper"]  # type: ignore[union-attr]


def test_a_secret_tn_is_cut_from_the_players_view(party: Table) -> None:
    from margin.core.lens import PlayerLens

    recs = do(party, **check("kael", "athletics", tn=27, secret_tn=True, faces=[6, 5]))
    seen = PlayerLens().read(recs[0])
    assert seen is not None
    assert "tn" not in seen["event"]
    assert "mos" not in seen["event"]
    assert seen["event"]["total"] == 31
    assert seen["event"]["success"] is True
    line = present.describe(seen["event"])
    assert line is not None
    assert line.endswith("vs a secret TN: success")
    do(party, type="reveal", seq=recs[0].seq)
    shown = PlayerLens(revealed={recs[0].seq}).read(recs[0])
    assert shown is not None
    assert shown["event"]["tn"] == 27


def test_a_gauss_weapon_lowers_pt_by_mode(party: Table) -> None:
    gun = {"name": "Gauss carbine", "dice": 4, "bonus": 2, "burst": 1, "gauss": True}
    do(party, type="update-character", character="kael", sheet={"weapons": [gun]})
    single = event(
        do(party, **attack("kael", "guard", tn=10, damage=False, faces=[2, 3])),
        "edge.attack",
    )
    burst = event(
        do(party, **attack("kael", "guard", tn=10, mode="burst", damage=False, faces=[2, 3])),
        "edge.attack",
    )
    assert (single.pt_reduction, burst.pt_reduction, burst.extra_dice) == (5, 3, 1)


def test_sheet_updates_are_read_in_normal_form(party: Table) -> None:
    do(party, type="update-character", character="guard", sheet={"armor": "heavy", "edge": 2})
    do(party, type="update-character", character="kael", sheet={"talents": ["Armor Piercer"]})
    dmg = event(
        do(
            party, **attack("kael", "guard", weapon="fam-90", tn=10, faces=[2, 3, 6, 6, 6, 6, 6, 6])
        ),
        "edge.damage",
    )
    assert (dmg.pt, dmg.dr, dmg.pt_reduction) == (35, 60, 7)
    assert SYSTEM.status is not None
    assert SYSTEM.status(char(party, "guard"), party.state)[0] == "Edge 0/2"


def test_a_boost_spent_in_a_turn_ends_with_it(party: Table) -> None:
    do(party, type="start-encounter", characters=["kael"], faces=[1, 1])
    do(party, type="next-turn")
    do(party, **spend("kael", "initiative", faces=[6, 6]))
    turn = event(do(party, type="next-turn"), "edge.turn")
    assert (turn.round, turn.initiative) == (2, 14)
    assert world(party).encounter.order[0].boost == 0  # type: ignore[union-attr]


COMMANDS = st.sampled_from(
    [
        {"type": "check", "character": "kael", "skill": "athletics", "tn": 25},
        {
            "type": "check",
            "character": "kael",
            "skill": "perception",
            "tn": 20,
            "edge": "advantage",
        },
        {
            "type": "attack",
            "character": "kael",
            "target": "guard",
            "weapon": "fam-90",
            "mode": "burst",
        },
        {"type": "attack", "character": "kael", "target": "guard", "edge_damage": True},
        {"type": "attack", "character": "guard", "target": "kael", "tn": 12},
        {"type": "lessen-injury", "character": "kael"},
        {"type": "edge-burn", "character": "kael"},
        {"type": "award-edge", "character": "kael"},
        {"type": "dismiss-pending", "character": "kael"},
    ]
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(COMMANDS, min_size=1, max_size=8), st.integers(0, 1000))
def test_undo_returns_to_the_state_before(
    tmp_path: Path, script: list[dict[str, Any]], seed: int
) -> None:
    """Any command that went through, once undone, leaves the state as it was before it."""
    with tempfile.TemporaryDirectory(dir=tmp_path) as where:
        t = Table.create(Path(where) / "t.margin", "2d10-edge")
        t.dice = RandomDice(seed)
        do(t, type="add-character", name="Kael", sheet=HERO)
        do(t, type="add-character", name="Guard", sheet=FOE)
        for cmd in script:
            before = msgspec.to_builtins(t.state)
            try:
                recs = do(t, **cmd)
            except RuleError:
                continue
            do(t, type="undo", command=recs[0].command)
            after = msgspec.to_builtins(t.state)
            before.pop("seq"), after.pop("seq")
            assert after == before
            do(t, type="redo")
        t.close()


def test_an_edge_damage_boost_is_not_spent_on_a_miss(party: Table) -> None:
    recs = do(party, **attack("kael", "guard", tn=40, edge_damage=True, faces=[1, 2]))
    assert [r.event.__struct_config__.tag for r in recs] == ["edge.attack"]
    assert char(party, "kael").edge == 3
    refused(
        party, "damage is not rolled now", **attack("kael", "guard", edge_damage=True, damage=False)
    )


# -- found in play: player views and refusals --------------------------------


def _player_status(t: Table, name: str) -> list[str]:
    seen = player_state_of(t)
    c = seen.characters[name]
    assert isinstance(c, EdgeCharacter)
    return present.status(c, seen)


def test_what_a_secret_tn_check_leaves_pending_is_hidden_from_players(party: Table) -> None:
    # +20 vs a secret 25, [9, 9] -> 38 +5: complete success, Advantage pending on any check
    recs = do(party, **check("kael", "athletics", tn=25, secret_tn=True, faces=[9, 9]))
    gm = present.status(char(party, "kael"), party.state)
    assert any("pending: any check" in s for s in gm)
    assert not any("pending" in s for s in _player_status(party, "kael"))
    do(party, type="reveal", seq=recs[0].seq)
    assert "adv pending: any check" in _player_status(party, "kael")
    assert f"adv pending: any check (#{recs[0].seq})" in gm, "the GM sees record numbers"


def test_an_open_check_leaves_pending_visible_to_players(party: Table) -> None:
    do(party, **check("kael", "athletics", tn=25, faces=[9, 9]))
    assert any("pending: any check" in s for s in _player_status(party, "kael"))


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("modifier", 10**20, r"modifier: 100000000000000000000 is out of range \(-100..100\)"),
        ("modifier", -101, r"modifier: -101 is out of range \(-100..100\)"),
        ("advantage", 10**20, r"advantage: .* is out of range \(0..20\)"),
        ("disadvantage", 21, r"disadvantage: 21 is out of range \(0..20\)"),
        ("chosen_disadvantage", 99, r"chosen_disadvantage: 99 is out of range \(0..20\)"),
    ],
)
def test_huge_check_numbers_are_refused(party: Table, field: str, value: int, match: str) -> None:
    cmd = {"character": "kael", "skill": "athletics", "tn": 20, field: value}
    refused(party, match, type="check", **cmd)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("bonus", 10**20, r"bonus: 100000000000000000000 is out of range \(-1000..1000\)"),
        ("pt_reduction", 500, r"pt_reduction: 500 is out of range \(0..200\)"),
    ],
)
def test_huge_direct_damage_numbers_are_refused(
    party: Table, field: str, value: int, match: str
) -> None:
    refused(party, match, type="damage", target="guard", dice=2, **{field: value})


def _kill_guard(t: Table) -> None:
    do(t, type="damage", target="guard", dice=10, armor=False, faces=[6] * 10)
    assert char(t, "guard").dead


@pytest.mark.parametrize(
    ("command", "match"),
    [
        (attack("kael", "guard", tn=15), "target: Guard is dead"),
        (
            {"type": "heal", "character": "guard", "points": 100},
            "character: Guard is dead; healing does not bring them back",
        ),
        (
            {"type": "start-encounter", "characters": ["kael", "guard"]},
            "character: Guard is dead and cannot join the encounter",
        ),
    ],
)
def test_the_dead_are_not_attacked_healed_or_joined(
    party: Table, command: dict[str, Any], match: str
) -> None:
    _kill_guard(party)
    refused(party, match, **command)
    assert char(party, "guard").dead


def test_a_dead_character_cannot_spend_edge_to_act(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    do(t, type="add-character", name="Kael", sheet=HERO)
    do(t, type="add-character", name="Guard", sheet={**FOE, "edge": 2})
    do(t, type="start-encounter", characters=["kael", "guard"], faces=[1, 1, 1])
    do(t, type="next-turn")
    _kill_guard(t)
    for purpose in ("reaction", "initiative"):
        match = f"character: Guard is dead and cannot spend Edge on {purpose}"
        refused(t, match, **spend("guard", purpose))
    do(t, type="edge-burn", character="guard")
    assert not char(t, "guard").dead


def test_a_bad_award_size_is_named_even_when_edge_is_full(tmp_path: Path) -> None:
    t = new_table(tmp_path, edge_recovery="complex")
    do(t, type="add-character", name="Kael", sheet=HERO)
    refused(
        t,
        r"size: 'huge' is not an award size \(minor, major, boss\)",
        type="award-edge",
        character="kael",
        size="huge",
    )


def test_a_character_cannot_attack_themself(party: Table) -> None:
    refused(party, "target: a character cannot attack themself", **attack("kael", "Kael", tn=10))


def test_players_do_not_learn_who_a_hidden_attacker_is(party: Table) -> None:
    from margin.core.lens import UNSEEN

    do(party, type="add-character", name="Sniper", hidden=True, sheet=FOE)
    recs = do(party, **attack("sniper", "kael", tn=15, faces=[9, 8, 1, 1, 1, 1, 1, 1]))
    assert any(r.event.__struct_config__.tag == "edge.attack" for r in recs)
    seen = next(d for d in player_log(party) if d["event"]["type"] == "edge.attack")
    assert seen is not None
    assert seen["event"]["character"] == UNSEEN
    for field in ("weapon", "skill", "bonus"):
        assert field not in seen["event"], field
    assert seen["event"]["target"] == "kael"
    assert seen["event"]["success"] is True
    line = present.describe(seen["event"])
    assert line is not None
    assert "sniper" not in line
    assert "assault-rifle" not in line
    assert line.startswith("someone unseen attacks kael: ")
    assert "[9,8]" not in line
    # the dice, the total and the damage formula would tell the bonus and the weapon
    for field in ("faces", "total", "damage_dice"):
        assert field not in seen["event"], field


def test_recovery_at_an_empty_table_says_so(tmp_path: Path) -> None:
    t = new_table(tmp_path)
    refused(
        t, "recover-edge: nobody is at the table yet", type="recover-edge", reason="session-end"
    )


def test_dismissing_what_a_secret_check_left_is_for_the_gm(party: Table) -> None:
    [secret] = do(party, **check("kael", "athletics", tn=25, secret_tn=True, faces=[9, 9]))
    [dismissed] = do(party, type="dismiss-pending", character="kael")
    assert dismissed.visibility.gm_only
    [open_check] = do(party, **check("kael", "athletics", tn=25, faces=[9, 9]))
    [dismissed] = do(party, type="dismiss-pending", character="kael")
    assert not dismissed.visibility.gm_only
    assert dismissed.event.pending == open_check.seq
    assert secret.seq < open_check.seq
