"""What the table screens show of d100-chance: log lines, status, clock, odds, short forms."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import Character, TableState, find_character
from ..base import Clock, ClockRow, Command, Odds, describer, fight_title
from ..shared_face import if_given, sums
from . import rules
from .commands import Attack, Check
from .decide import attack_gates, aware_of, next_actor, plan_check
from .state import (
    EFFECTS,
    ChanceCharacter,
    ChanceWorld,
    Encounter,
    sheet_of,
    weapon,
)
from .words import GRAMMAR, MODIFIER_WORDS

# -- log lines --------------------------------------------------------------------


def _check_line(e: dict[str, Any]) -> str:
    who, skill = e["character"], e["skill"] + if_given(e, "reason", " for {}")
    secret = if_given(e, "secret", " in secret")
    if e.get("automatic"):
        head = f"{who} {skill}: automatic success, no roll"
    elif "roll" in e:
        mods = f"{e['modifier_total']:+d} " if e.get("modifier_total") else ""
        head = (
            f"{who} {skill} vs difficulty {e['difficulty']}{_band_of(e)} {mods}"
            f"-> chance {e['chance']}%, "
            f"rolled {e['roll']} (margin {e['margin']:+d}){secret}: {e['band']}"
        )
    else:
        head = f"{who} {skill}{secret}: {e['band']}"
    retry = {"changed": " (retry, new approach)", "override": " (retry allowed by the GM)"}.get(
        e.get("retry", ""), ""
    )
    head += retry
    return f"{head} - {e['narration']}" if e.get("narration") else head


def _band_of(e: dict[str, Any], prefix: str = "") -> str:
    """ " (hard)": the difficulty's band, as the record names it or, in an older record,
    as its difficulty gives it."""
    band = e.get(f"{prefix}difficulty_band") or rules.difficulty_band(e[f"{prefix}difficulty"])
    return f" ({band})"


def _opposed_side(e: dict[str, Any], side: str) -> str:
    """One side of an opposed check: who, the skill, and the numbers players may see."""
    who: str = e[side]
    if f"{side}_skill" not in e:
        return who
    if f"{side}_roll" in e:
        return (
            f"{who} {e[f'{side}_skill']} vs difficulty {e[f'{side}_difficulty']}"
            f"{_band_of(e, f'{side}_')} ({e[f'{side}_chance']}%, rolled {e[f'{side}_roll']})"
        )
    band = e.get(f"{side}_band")
    return f"{who} {e[f'{side}_skill']}" + (f" ({band})" if band else "")


def _opposed_line(e: dict[str, Any]) -> str:
    a, b = _opposed_side(e, "actor"), _opposed_side(e, "defender")
    return f"{a} vs {b}: {e['winner']} wins"


def _attacker(e: dict[str, Any]) -> str:
    """Who attacks whom, with what: ``Vex attacks Brute with pistol``."""
    if "attacker" not in e:
        return f"someone unseen attacks {e['target']}"
    weapon = f" with {e['weapon']}" if "weapon" in e else ""
    return f"{e['attacker']} attacks {e['target']}{weapon}"


def _attack_head(e: dict[str, Any]) -> str:
    """An attack's line up to its outcome: who, from where, and the hit roll."""
    where = "" if e.get("position", "front") == "front" else f" from the {e['position']}"
    surround = if_given(e, "extra_attackers", ", {} more around")
    unaware = f", unaware (+{e['unaware_percent']}%)" if not e.get("aware", True) else ""
    head = _attacker(e) + where + surround + unaware
    head += if_given(e, "intended", " (confused: meant {})")
    head += if_given(e, "burst_of", " (caught in the burst at {})")
    if "hit_chance" in e:
        head += f" [hit {e['hit_chance']}%, rolled {e['roll']}]"
    return head


def _attack_line(e: dict[str, Any]) -> str:
    head = _attack_head(e)
    if not e.get("hit"):
        return head + ": miss"
    if e.get("dodged"):
        return head + ": dodged"
    crit = if_given(e, "crit", " critical")
    vitals = if_given(e, "vitals", " to the vitals")
    shield = if_given(e, "absorbed", ", shield absorbs {}")
    line = f"{head}:{crit} hit{vitals} ({e['location']}) for {e['damage']}{shield}"
    if e.get("steps"):
        line += " | " + "; ".join(f"{s[0]} {sums(s[1])}" for s in e["steps"])
    return line


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _effect_line(e: dict[str, Any]) -> str:
    source = e.get("source") or "someone unseen"
    by = {
        "spread": f"fire spreads from {source}: ",
        "haste": "haste wears off: ",
        "attack": f"{source}'s hit carries {e['effect']}: ",
    }.get(e.get("reason", ""), "")
    contest = _contest(e)
    if not e.get("landed"):
        return f"{by}{e['effect']} fails to take hold on {e['target']}{contest}"
    lasting = "until removed" if not e.get("total_turns") else _count(e["total_turns"], "turn")
    what = e["becomes"]
    escalated = f" ({e['effect']} escalates)" if what != e["effect"] else ""
    stacks = f"{e['total_stacks']} stack{'s' if e['total_stacks'] != 1 else ''}"
    state = f"has {what}" if what in _NOUN_EFFECTS else f"is {what}"
    return f"{by}{e['target']} {state}{escalated}, {stacks}, {lasting}{contest}"


def _contest(e: dict[str, Any]) -> str:
    """An effect's potency against the target's resistance, where they were contested (not
    for fire that spreads or haste wearing off, which take hold whatever)."""
    if "potency" not in e or e.get("reason") in ("spread", "haste"):
        return ""
    return f" (potency {e['potency']} vs resistance {e['resistance']})"


#: effects named by a noun or a verb, which read "has haste" rather than "is haste"
_NOUN_EFFECTS = ("haste", "shield", "regenerate")


def _tick_line(e: dict[str, Any]) -> str:
    hp = e.get("hp", 0)
    change = f", {'heals' if hp > 0 else 'loses'} {abs(hp)} HP" if hp else ""
    after = (
        "ends"
        if e.get("ended")
        else (f"{_count(e['turns_left'], 'turn')} left" if e.get("turns_left") else "until removed")
    )
    return f"{e['character']} {e['effect']} x{e['stacks']}{change}; {after}"


def _travel_line(e: dict[str, Any]) -> str:
    speed = if_given(e, "speed", " at {} knots")
    note = if_given(e, "note", " ({})")
    return f"travel by {e['domain']}: {e['distance']} {e['unit']}{speed}{note}"


def _line_check(e: dict[str, Any]) -> str:
    return _check_line(e)


def _line_opposed(e: dict[str, Any]) -> str:
    return _opposed_line(e)


def _line_attack(e: dict[str, Any]) -> str:
    return _attack_line(e)


def _line_effect(e: dict[str, Any]) -> str:
    return _effect_line(e)


def _line_tick(e: dict[str, Any]) -> str:
    return _tick_line(e)


def _line_removed(e: dict[str, Any]) -> str:
    return f"{e['character']} is no longer {e['effect']} ({e.get('reason') or 'removed'})"


def _line_encounter(e: dict[str, Any]) -> str:
    return "fight begins: " + ", ".join(e["order"]) if "order" in e else "fight begins"


def _line_joined(e: dict[str, Any]) -> str:
    return f"{e['character']} joins the fight"


def _actions(count: int) -> str:
    return f"{count} action" + ("" if count == 1 else "s")


def _line_turn(e: dict[str, Any]) -> str:
    line = f"round {e['round']}: {e['actor']}'s turn, {_actions(e['actions'])}"
    if e.get("flee_to"):
        frm = e.get("flee_from")
        line += f"; feared, it must flee from {frm} (to {e['flee_to']} unless the GM says where)"
    elif e.get("flee_from"):
        line += f"; feared, it must flee from {e['flee_from']} (the GM says where)"
    return line


def _line_side(e: dict[str, Any]) -> str:
    if e.get("reason") == "charm-ended":
        back = f"its own side, {e['side']}" if e.get("side") else "its own side"
        return f"{e['character']} is no longer charmed and returns to {back}"
    return f"{e['character']} is charmed and turns on its friends: now fights for {e['side']}"


def _line_encounter_ended(e: dict[str, Any]) -> str:
    return f"fight ends after {_count(e.get('rounds', 0), 'round')}"


def _line_moved(e: dict[str, Any]) -> str:
    if e.get("start") is None:
        return f"{e['character']} takes a place at {e['to']}"
    verb = "flees" if e.get("fled") else "moves"
    return f"{e['character']} {verb} {e.get('feet', 0)} ft to {e['to']}"


def _line_hp(e: dict[str, Any]) -> str:
    amount = e["amount"]
    verb = "heals" if amount > 0 else "takes"
    shield = if_given(e, "absorbed", " (shield absorbs {})")
    reason = if_given(e, "reason", ": {}")
    return f"{e['character']} {verb} {abs(amount)}{shield}{reason}"


def _line_traveled(e: dict[str, Any]) -> str:
    return _travel_line(e)


#: one log line for a d100-chance event, by its tag (the event given as a dict, possibly
#: lensed); None for a tag not here
describe = describer(
    {
        "chance.check": _line_check,
        "chance.opposed": _line_opposed,
        "chance.attack": _line_attack,
        "chance.effect": _line_effect,
        "chance.tick": _line_tick,
        "chance.removed": _line_removed,
        "chance.encounter": _line_encounter,
        "chance.joined": _line_joined,
        "chance.turn": _line_turn,
        "chance.side": _line_side,
        "chance.encounter-ended": _line_encounter_ended,
        "chance.moved": _line_moved,
        "chance.hp": _line_hp,
        "chance.traveled": _line_traveled,
    }
)


# -- status and clock -------------------------------------------------------------


def _effect_text(effect: Any) -> str:
    left = "until removed" if effect.turns == 0 else f"{effect.turns}t"
    pool = f" {effect.pool}hp" if effect.pool else ""
    stat = f" -{effect.stat}" if effect.stat else ""
    return f"{effect.name} x{effect.stacks}{stat}{pool} ({left})"


def status(char: Character, state: TableState) -> list[str]:
    if not isinstance(char, ChanceCharacter):
        return []
    items = [f"HP {char.hp}/{char.max_hp}"]
    if char.hp <= 0:
        items.append("down")
    items.extend(_effect_text(e) for e in char.effects)
    if char.position is not None:
        items.append(f"at {char.position[0]},{char.position[1]} ft")
    if char.side is not None:
        items.append(f"fights for {char.side or 'nobody'} (charmed)")
    elif sheet_of(char).side:
        items.append(f"side {sheet_of(char).side}")
    return items


def clock(state: TableState) -> Clock | None:
    world = state.world
    if not isinstance(world, ChanceWorld) or world.encounter is None:
        return None
    enc = world.encounter
    try:
        up = next_actor(state, enc.order, enc.current, enc.round)[0]
    except RuleError:  # nobody in the fight is at the table
        up = -1
    rows = (
        _clock_row(char, enc, i == enc.current, i == up)
        for i, char in enumerate(state.characters.get(cid) for cid in enc.order)
        if isinstance(char, ChanceCharacter)
    )
    return Clock(title=fight_title(enc.round), rows=tuple(rows), round=enc.round or None)


def _clock_row(char: ChanceCharacter, enc: Encounter, current: bool, up: bool) -> ClockRow:
    """A fighter's row of the turn order: the actions left to the one acting, the health
    of the others; ``up``: next to act."""
    return ClockRow(
        name=char.name,
        value=_actions(enc.actions) if current else f"HP {char.hp}/{char.max_hp}",
        current=current,
        note=", ".join(e.name for e in char.effects),
        turn=current,
        on_deck=up and not current,
    )


# -- odds -------------------------------------------------------------------------


def odds(command: Command, state: TableState) -> Odds | None:
    try:
        if isinstance(command, Check):
            return _check_odds(command, state)
        if isinstance(command, Attack):
            return _attack_odds(command, state)
    except RuleError:
        return None
    return None


def _check_odds(cmd: Check, state: TableState) -> Odds:
    plan = plan_check(cmd, state)
    o, difficulty = plan.odds, plan.difficulty
    label = (
        f"{plan.character.name}: {plan.skill} {plan.proficiency} vs {difficulty} "
        f"({rules.difficulty_band(difficulty)})"
    )
    if o.automatic:
        bands = {b: float(b == rules.AUTOMATIC_BAND) for b in rules.BANDS}
        return Odds(1.0, bands, label + " (automatic)")
    probs = rules.band_probabilities(o.chance)
    return Odds(o.chance / 100, {k: float(v) for k, v in probs.items()}, f"{label}: {o.chance}%")


def _attack_odds(cmd: Attack, state: TableState) -> Odds:
    attacker = find_character(state, cmd.attacker)
    target = find_character(state, cmd.target)
    assert isinstance(attacker, ChanceCharacter)
    assert isinstance(target, ChanceCharacter)
    _, w = weapon(attacker, cmd.weapon)
    g = attack_gates(
        attacker, w, target, cmd.position, cmd.extra_attackers, aware_of(cmd, attacker)
    )
    hit = g.hit_chance / 100
    connect = float(rules.connect_probability(g))
    bands = {"connects": connect, "dodged": hit - connect, "miss": 1 - hit}
    label = f"{attacker.name} vs {target.name}: hit {g.hit_chance}%, dodge {g.dodge_chance}%"
    return Odds(connect, bands, label)


#: a character holds no data the status does not already say
field_lines = None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    weapons: set[str] = set()
    locations: set[str] = set()
    for char in state.characters.values():
        sheet = sheet_of(char)
        skills.update(sheet.skills)
        weapons.update(sheet.weapons)
        locations.update(sheet.armor)
    return {
        "command": list(GRAMMAR.usages),
        "character": sorted(c.id for c in state.characters.values()),
        "skill": sorted(skills),
        "weapon": sorted(weapons),
        "location": sorted(locations),
        "effect": list(EFFECTS),
        "modifier": sorted(MODIFIER_WORDS),
        "position": list(rules.POSITIONS),
        "difficulty": list(rules.DIFFICULTY_MIDDLES),
    }
