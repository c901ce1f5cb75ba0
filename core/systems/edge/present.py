"""What the table screen shows of 2d10-edge, and the short forms typed on its command line."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import Character, TableState
from ..base import Clock, ClockRow, Command, Odds, describer, fight_title
from ..shared_face import if_given, plus
from . import rules
from .commands import Check
from .decide import next_up, plan_check, turn_order
from .state import (
    Combatant,
    EdgeCharacter,
    Encounter,
    edge_max,
    health,
    key,
    sheet_of,
    world,
)
from .words import GRAMMAR

# -- log lines ----------------------------------------------------------------


def _check_line(e: dict[str, Any]) -> str:
    who = e.get("character", "someone unseen")
    tn = f"TN {e['tn']}" + if_given(e, "tn_name", " ({})") if "tn" in e else "TN ?"
    mode = {"advantage": " with Advantage", "disadvantage": " with Disadvantage"}.get(
        e.get("mode", ""), ""
    )
    edge = if_given(e, "edge", " (Edge)")
    if "faces" not in e:
        return f"{who}: {e.get('skill', '?')} check{mode}{edge} (secret)"
    skill = f"{e['skill']} +{e.get('bonus', 0)}" if "skill" in e else "attack"
    head = f"{who}: {skill}{mode}{edge} [{_kept(e)}]{_doubles(e)} = "
    if "mos" not in e:
        outcome = "success" if e.get("success") else "failure"
        return head + f"{e.get('total')} vs a secret TN: {outcome}"
    secret = if_given(e, "secret_tn", " (secret TN)")
    band = e.get("band", "").replace("-", " ")
    return head + f"{e.get('total')} vs {tn}{secret}: MoS {e.get('mos')}, {band}" + _assumed(e)


def _kept(e: dict[str, Any]) -> str:
    """A check's faces, those it did not keep struck through: ``7,~2~,9``."""
    faces = e["faces"]
    keep = e.get("keep") or list(range(len(faces)))
    return ",".join(str(f) if i in keep else f"~{f}~" for i, f in enumerate(faces))


def _doubles(e: dict[str, Any]) -> str:
    """A kept double, and what it added to the total: `` +5 double``."""
    if not e.get("double"):
        return ""
    adj = e.get("adjustment", 0)
    return f" {'+' if adj > 0 else ''}{adj} double" if adj else " double"


def _assumed(e: dict[str, Any]) -> str:
    """What the sheet lacked and was counted as 0, said so."""
    missing = e.get("assumed")
    return f" ({', '.join(missing)}: not on the sheet, counted as 0)" if missing else ""


def _line_check(e: dict[str, Any]) -> str:
    line = _check_line(e) + if_given(e, "reason", ", for {}")
    if e.get("pending_kind"):
        line += f"; {e['pending_kind']} pending ({e.get('pending_scope')})"
    return line


def _line_attack(e: dict[str, Any]) -> str:
    if "faces" not in e and "skill" not in e:
        return _unseen_attack(e)
    weapon = f" with {e['weapon']}" if "weapon" in e else ""
    line = f"attack on {e.get('target')}{weapon}"
    if e.get("fire_mode") == "burst":
        line += " (burst)"
    line += ": " + _check_line(e)
    if e.get("success"):
        line += f", damage dice +{e.get('damage_dice', 0)}"
    if e.get("damage_held"):
        line += f"; damage{_held_pool(e)} waits for damage {e.get('character')}"
    line += if_given(e, "dodge_penalty", " (defense -{} for the target's armor)")
    return line + if_given(e, "reason", ", for {}")


def _unseen_attack(e: dict[str, Any]) -> str:
    """An unseen attacker's attack: only the blow and where it landed."""
    outcome = e.get("band", "").replace("-", " ") or ("hit" if e.get("success") else "miss")
    return f"{e.get('character')} attacks {e.get('target')}: {outcome}"


def _held_pool(e: dict[str, Any]) -> str:
    """A held hit's damage pool, `` 6d6+3``, when players may see what it is made of."""
    if "base_dice" not in e or "mos" not in e:
        return ""
    dice = e["base_dice"] + rules.damage_dice_of(e["mos"]) + e.get("extra_dice", 0)
    return f" {rules.Pool(dice, e.get('damage_bonus', 0))}"


def _line_spent(e: dict[str, Any]) -> str:
    what = {
        "advantage": "gains Advantage",
        "remove-disadvantage": "removes Disadvantage",
        "initiative": f"boosts initiative by +{e.get('value', 0)} ({e.get('faces')}) for a turn",
        "reaction": "gains an extra reaction",
        "damage": "adds +2d6 damage",
        "lessen-injury": "lessens an injury",
    }.get(e.get("purpose", ""), e.get("purpose", ""))
    return f"{e.get('character')} spends Edge: {what} (Edge left {e.get('edge_after')})"


def _line_damage(e: dict[str, Any]) -> str:
    pool = rules.Pool(e.get("dice", 0), e.get("bonus", 0))
    kind = if_given(e, "stun", " stun")
    armor = _armor_met(e)
    result = (
        f"{e.get('soaked')} soaked, {e.get('taken')} taken"
        if e.get("penetrated")
        else "stopped by the armor"
    )
    edge = if_given(e, "edge_boost", " (+2d6 Edge)")
    if e.get("degraded"):
        result += f", the armor degrades: PT -{e['degraded']}"
    if "faces" not in e:
        return f"{e.get('target')} takes{kind} damage{armor}: {result}"
    return f"{e.get('target')} takes {pool}{kind}{edge} {e.get('faces')} = {e.get('raw')}{armor}: {result}"


def _armor_met(e: dict[str, Any]) -> str:
    """The armor a blow met, `` vs PT 6-2/DR 40``; nothing for none."""
    if not (e.get("pt") or e.get("dr")):
        return ""
    return f" vs PT {e.get('pt')}{if_given(e, 'pt_reduction', '-{}')}/DR {e.get('dr')}"


def _line_injury(e: dict[str, Any]) -> str:
    sev = if_given(e, "severity", "{} ")
    kind = if_given(e, "stun", "stun ")
    end = ""
    if e.get("overwhelmed") or e.get("severity") == "fatal":
        end = " - knocked out" if e.get("stun") else " - FATAL"
    # players who may not see this character's health get no Health to measure by
    levels = f" ({e.get('accumulated')}/{e['health']})" if "health" in e else ""
    return f"{e.get('character')}: {sev}{kind}injury, {e.get('points')} points{levels}{end}"


def _line_injury_lessened(e: dict[str, Any]) -> str:
    which = f"injury #{e['injury']}" if "injury" in e else "an injury"
    change = f"{e.get('severity_from')} -> {e.get('severity_to')}"
    return f"{e.get('character')}: {which} lessened {change}"


def _line_recovered(e: dict[str, Any]) -> str:
    size = if_given(e, "size", " ({})")
    return f"{e.get('character')} regains {e.get('amount')} Edge: {e.get('reason')}{size} (now {e.get('edge_after')})"


def _line_pending_dismissed(e: dict[str, Any]) -> str:
    which = f"pending #{e['pending']}" if "pending" in e else "a pending Advantage/Disadvantage"
    return f"{e.get('character')}: {which} dismissed"


def _line_healed(e: dict[str, Any]) -> str:
    kind = "stun" if e.get("stun") else "damage"
    care = if_given(e, "cared", ", urgent care given")
    left = f" (left {e['damage_after']})" if "damage_after" in e else ""
    return f"{e.get('character')} recovers {e.get('points')} {kind}{left}{care}"


def _line_armor_repaired(e: dict[str, Any]) -> str:
    left = if_given(e, "wear_after", " ({} still worn off)")
    return f"{e.get('character')}'s armor is repaired: PT +{e.get('points')}{left}"


def _line_encounter_started(e: dict[str, Any]) -> str:
    return f"encounter starts{': ' + e['name'] if e.get('name') else ''}"


def _line_joined(e: dict[str, Any]) -> str:
    return (
        f"{e.get('character')} joins: initiative {e.get('faces')} {plus(e.get('bonus'))} = "
        f"{e.get('initiative')}{_assumed(e)}"
    )


def _line_turn(e: dict[str, Any]) -> str:
    return (
        f"round {e.get('round')}: {e.get('character')}'s turn (initiative {e.get('initiative')}; "
        f"{', '.join(e.get('actions', []))})"
    )


def _line_action(e: dict[str, Any]) -> str:
    what = if_given(e, "what", ": {}")
    return f"{e.get('character')} uses a {e.get('action')} action{what}"


#: one log line for a 2d10-edge event, by its tag (the event given as a dict, possibly
#: lensed); None for a tag not here
describe = describer(
    {
        "edge.check": _line_check,
        "edge.attack": _line_attack,
        "edge.spent": _line_spent,
        "edge.damage": _line_damage,
        "edge.injury": _line_injury,
        "edge.injury-lessened": _line_injury_lessened,
        "edge.burned": (
            "{character} burns Edge to survive: Edge {edge_after}/{edge_max_after},"
            " needs urgent medical care"
        ),
        "edge.recovered": _line_recovered,
        "edge.pending-dismissed": _line_pending_dismissed,
        "edge.healed": _line_healed,
        "edge.armor-repaired": _line_armor_repaired,
        "edge.encounter-started": _line_encounter_started,
        "edge.joined": _line_joined,
        "edge.left": "{character} leaves the encounter",
        "edge.turn": _line_turn,
        "edge.action": _line_action,
        "edge.encounter-ended": "encounter ends",
    }
)


# -- status and clock ---------------------------------------------------------


def _health_left(char: EdgeCharacter) -> str:
    """Health left of the sheet's; damage beyond it (a character may live on past 0, each
    hit's injury judged alone) is said apart rather than as a negative Health."""
    top = health(char)
    left = top - char.damage
    if left >= 0:
        return f"Health {left}/{top}"
    return f"Health 0/{top} ({-left} damage past 0)"


def status(char: Any, state: TableState) -> list[str]:
    if not isinstance(char, EdgeCharacter):
        return []
    out = [
        f"Edge {char.edge}/{edge_max(char)}",
        _health_left(char),
    ]
    if char.stun:
        out.append(f"stun {char.stun}")
    players = world(state).players
    return (
        out + _injuries(char, players) + _pending(char, state, players) + _conditions(char, state)
    )


def _numbered(seq: int, players: bool) -> str:
    """A record's number for the GM; players' logs are numbered apart from the GM's, so a
    GM record number means nothing there."""
    return "" if players else f" (#{seq})"


def _injuries(char: EdgeCharacter, players: bool) -> list[str]:
    """The status items of a character's injuries: ``serious injury 4 stun (#12)``."""
    return [
        f"{f'{i.severity} injury' if i.severity else 'injury'} {i.points}"
        f"{' stun' if i.stun else ''}{_numbered(i.seq, players)}"
        for i in char.injuries
    ]


def _pending(char: EdgeCharacter, state: TableState, players: bool) -> list[str]:
    """The status items of pending Advantage and Disadvantage: ``adv pending: melee``."""
    out = []
    for p in char.pending:
        if players and p.secret and p.seq not in state.revealed:
            continue  # what a secret-TN check left pending tells its margin
        what = "adv" if p.kind == "advantage" else "dis"
        scope = p.skill if p.scope == "related" else "any check"
        out.append(f"{what} pending: {scope}{_numbered(p.seq, players)}")
    return out


def _conditions(char: EdgeCharacter, state: TableState) -> list[str]:
    """The status items of worn armor, urgent care, death and being knocked out."""
    out = []
    if char.armor_wear:
        out.append(f"armor worn: PT -{char.armor_wear}")
    if char.urgent_care:
        out.append("needs urgent care")
    if char.dead:
        can_burn = state.options.get("edge_burn", True) and edge_max(char) >= 1
        out.append("DEAD (Edge Burn can save)" if can_burn else "DEAD")
    if char.knocked_out:
        out.append("knocked out")
    return out


def clock(state: TableState) -> Clock | None:
    enc = world(state).encounter
    if enc is None:
        return None
    title = fight_title(enc.round, enc.name, len(enc.acted) if enc.round else None)
    up = next_up(state, enc)
    rows = [
        _clock_row(c, state.characters[c.id], enc, up is not None and up[0].id == c.id)
        for c in turn_order(enc.order)
        # one who left the table no longer takes turns
        if c.id in state.characters
    ]
    if not enc.round:
        return Clock(title=title, rows=tuple(rows))
    return Clock(title=title, rows=tuple(rows), round=enc.round, turn=len(enc.acted))


def _clock_row(c: Combatant, char: Character, enc: Encounter, up: bool) -> ClockRow:
    """A combatant's line of the clock: initiative (and a boost), actions and reactions left."""
    value = str(c.initiative) + (f"+{c.boost}" if c.boost else "")
    now = c.id == enc.current
    return ClockRow(
        name=char.name,
        value=value,
        current=now,
        note=_clock_note(c, char, enc),
        turn=now,
        on_deck=up and not now,
    )


def _clock_note(c: Combatant, char: Character, enc: Encounter) -> str:
    """What the clock says beside a combatant: actions left on its turn, reactions left,
    that it has acted this round; or that it is dead or knocked out."""
    if isinstance(char, EdgeCharacter) and (char.dead or char.knocked_out):
        return "dead" if char.dead else "knocked out"
    note = " ".join(c.actions) if c.id == enc.current else ""
    if c.reactions:
        note = f"{note} | reaction x{c.reactions}".strip(" |")
    if c.id in enc.acted and c.id != enc.current:
        note = f"acted {note}".strip()
    return note


def odds(cmd: Command, state: TableState) -> Odds | None:
    """Exact odds of a check or attack before it is rolled, from the plan its roll uses."""
    if not isinstance(cmd, Check):
        return None
    try:
        plan = plan_check(cmd, state)
    except RuleError:
        return None
    o = rules.check_odds(plan.mode, plan.bonus, plan.tn, bool(cmd.edge))
    mode = "" if plan.mode == "normal" else f" ({plan.mode})"
    label = f"{plan.character.name}: {plan.skill} +{plan.bonus} vs TN {plan.tn}{mode}"
    return Odds(
        success=float(o.success), bands={k: float(v) for k, v in o.bands.items()}, label=label
    )


#: a character holds no data the status does not already say
field_lines = None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    weapons: set[str] = set()
    for c in state.characters.values():
        normal = sheet_of(c)
        skills.update(normal.skills)
        weapons.update(key(w.name) for w in normal.weapons)
    return {
        "command": list(GRAMMAR.usages),
        "character": sorted(state.characters),
        "skill": sorted(skills),
        "weapon": sorted(weapons),
        "difficulty": list(rules.LADDER),
    }
