"""What the table screens show of d100-chance: log lines, status, clock, odds, short forms."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import Character, TableState, find_character
from ..base import Clock, ClockRow, Command, Odds
from . import rules
from .commands import Attack, Check
from .decide import _difficulty, proficiency_of
from .state import (
    EFFECTS,
    ChanceCharacter,
    ChanceWorld,
    accuracy,
    can_dodge,
    evasion,
    table_of,
    weapon,
)

# -- log lines --------------------------------------------------------------------


def _check_line(e: dict[str, Any]) -> str:
    who, skill = e["character"], e["skill"]
    secret = " in secret" if e.get("secret") else ""
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
    return f"{head}{retry} - {e['narration']}" if e.get("narration") else head + retry


def _band_of(e: dict[str, Any], prefix: str = "") -> str:
    """ " (hard)": the difficulty's band, as the record names it or, in an older record,
    as its difficulty gives it."""
    band = e.get(f"{prefix}difficulty_band") or rules.difficulty_band(e[f"{prefix}difficulty"])
    return f" ({band})"


def _opposed_side(e: dict[str, Any], side: str) -> str:
    """One side of an opposed check: who, the skill, and the numbers players may see."""
    who = e[side]
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


def _attack_line(e: dict[str, Any]) -> str:
    where = "" if e.get("position", "front") == "front" else f" from the {e['position']}"
    surround = f", {e['extra_attackers']} more around" if e.get("extra_attackers") else ""
    unaware = f", unaware (+{e['unaware_percent']}%)" if not e.get("aware", True) else ""
    if "attacker" in e:
        weapon = f" with {e['weapon']}" if "weapon" in e else ""
        head = f"{e['attacker']} attacks {e['target']}{weapon}"
    else:
        head = f"someone unseen attacks {e['target']}"
    head += where + surround + unaware
    if e.get("intended"):
        head += f" (confused: meant {e['intended']})"
    if e.get("burst_of"):
        head += f" (caught in the burst at {e['burst_of']})"
    if "hit_chance" in e:
        head += f" [hit {e['hit_chance']}%, rolled {e['roll']}]"
    if not e.get("hit"):
        return head + ": miss"
    if e.get("dodged"):
        return head + ": dodged"
    crit = " critical" if e.get("crit") else ""
    vitals = " to the vitals" if e.get("vitals") else ""
    shield = f", shield absorbs {e['absorbed']}" if e.get("absorbed") else ""
    line = f"{head}:{crit} hit{vitals} ({e['location']}) for {e['damage']}{shield}"
    if e.get("steps"):
        line += " | " + "; ".join(f"{s[0]} {s[1]}" for s in e["steps"])
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
    forced = e.get("reason") in ("spread", "haste")
    contest = (
        f" (potency {e['potency']} vs resistance {e['resistance']})"
        if "potency" in e and not forced
        else ""
    )
    if not e.get("landed"):
        return f"{by}{e['effect']} fails to take hold on {e['target']}{contest}"
    lasting = "until removed" if not e.get("total_turns") else _count(e["total_turns"], "turn")
    what = e["becomes"]
    escalated = f" ({e['effect']} escalates)" if what != e["effect"] else ""
    stacks = f"{e['total_stacks']} stack{'s' if e['total_stacks'] != 1 else ''}"
    state = f"has {what}" if what in _NOUN_EFFECTS else f"is {what}"
    return f"{by}{e['target']} {state}{escalated}, {stacks}, {lasting}{contest}"


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
    speed = f" at {e['speed']} knots" if e.get("speed") else ""
    note = f" ({e['note']})" if e.get("note") else ""
    return f"travel by {e['domain']}: {e['distance']} {e['unit']}{speed}{note}"


def describe(e: dict[str, Any]) -> str | None:
    tag = e.get("type")
    if tag == "chance.check":
        return _check_line(e)
    if tag == "chance.opposed":
        return _opposed_line(e)
    if tag == "chance.attack":
        return _attack_line(e)
    if tag == "chance.effect":
        return _effect_line(e)
    if tag == "chance.tick":
        return _tick_line(e)
    if tag == "chance.removed":
        return f"{e['character']} is no longer {e['effect']} ({e.get('reason') or 'removed'})"
    if tag == "chance.encounter":
        return "fight begins: " + ", ".join(e["order"]) if "order" in e else "fight begins"
    if tag == "chance.joined":
        return f"{e['character']} joins the fight"
    if tag == "chance.turn":
        line = f"round {e['round']}: {e['actor']}'s turn, {e['actions']} action(s)"
        if e.get("flee_to"):
            frm = e.get("flee_from")
            line += (
                f"; feared, it must flee from {frm} (to {e['flee_to']} unless the GM says where)"
            )
        elif "flee_from" in e and e["flee_from"]:
            line += f"; feared, it must flee from {e['flee_from']} (the GM says where)"
        return line
    if tag == "chance.side":
        if e.get("reason") == "charm-ended":
            back = f"its own side, {e['side']}" if e.get("side") else "its own side"
            return f"{e['character']} is no longer charmed and returns to {back}"
        return f"{e['character']} is charmed and turns on its friends: now fights for {e['side']}"
    if tag == "chance.encounter-ended":
        return f"fight ends after {_count(e.get('rounds', 0), 'round')}"
    if tag == "chance.moved":
        if e.get("start") is None:
            return f"{e['character']} takes a place at {e['to']}"
        verb = "flees" if e.get("fled") else "moves"
        return f"{e['character']} {verb} {e.get('feet', 0)} ft to {e['to']}"
    if tag == "chance.hp":
        amount = e["amount"]
        verb = "heals" if amount > 0 else "takes"
        shield = f" (shield absorbs {e['absorbed']})" if e.get("absorbed") else ""
        reason = f": {e['reason']}" if e.get("reason") else ""
        return f"{e['character']} {verb} {abs(amount)}{shield}{reason}"
    if tag == "chance.traveled":
        return _travel_line(e)
    return None


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
    elif char.sheet.get("side"):
        items.append(f"side {char.sheet['side']}")
    return items


def clock(state: TableState) -> Clock | None:
    world = state.world
    if not isinstance(world, ChanceWorld) or world.encounter is None:
        return None
    enc = world.encounter
    rows = []
    for i, cid in enumerate(enc.order):
        char = state.characters.get(cid)
        if not isinstance(char, ChanceCharacter):
            continue
        current = i == enc.current
        value = f"{enc.actions} action(s)" if current else f"HP {char.hp}/{char.max_hp}"
        note = ", ".join(e.name for e in char.effects)
        rows.append(ClockRow(name=char.name, value=value, current=current, note=note))
    title = f"round {enc.round}" if enc.round else "fight: before the first turn"
    return Clock(title=title, rows=tuple(rows))


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
    char = find_character(state, cmd.character)
    assert isinstance(char, ChanceCharacter)
    skill = cmd.skill.strip().lower()
    proficiency = proficiency_of(char, skill, cmd.proficiency, "skill")
    total, _ = rules.modifier_total(cmd.modifiers)
    difficulty = _difficulty(cmd.difficulty)
    o = rules.check_odds(proficiency, difficulty, total)
    label = (
        f"{char.name}: {skill} {proficiency} vs {difficulty} ({rules.difficulty_band(difficulty)})"
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
    aware = (not attacker.has("stealthed")) if cmd.aware is None else cmd.aware
    g = rules.gates(
        accuracy(attacker, w),
        evasion(target),
        cmd.position,
        cmd.extra_attackers,
        aware and can_dodge(target),
    )
    hit = g.hit_chance / 100
    connect = float(rules.connect_probability(g))
    bands = {"connects": connect, "dodged": hit - connect, "miss": 1 - hit}
    label = f"{attacker.name} vs {target.name}: hit {g.hit_chance}%, dodge {g.dodge_chance}%"
    return Odds(connect, bands, label)


# -- the command line's short forms ---------------------------------------------------

MODIFIER_WORDS = {
    "tools": "proper-tools",
    "ideal": "ideal-conditions",
    "helper": "helper",
    "help": "helper",
    "blueprint": "blueprint",
    "recipe": "blueprint",
    "notools": "no-tools",
    "rushed": "rushed",
    "fire": "under-fire",
    "hostile": "under-fire",
}
MODIFIER_WORDS.update({name: name for name in rules.MODIFIERS})


def _int_word(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise RuleError(f"{what}: expected a whole number, got {word!r}") from None


def _float_word(word: str, what: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise RuleError(f"{what}: expected a number, got {word!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RuleError(f"{what}: expected a number, got {word!r}")
    return value


def _no_more(head: str, extra: list[str], usage: str) -> None:
    if extra:
        raise RuleError(f"{head}: {extra[0]!r} is not understood ({usage})")


def _check_words(rest: list[str]) -> dict[str, Any]:
    if len(rest) < 3:
        raise RuleError("check: check WHO SKILL DIFFICULTY [tools ideal helper ... open override]")
    given = rest[2].lower()
    if given not in rules.DIFFICULTY_MIDDLES and not given.lstrip("-").isdigit():
        bands = ", ".join(rules.DIFFICULTY_MIDDLES)
        raise RuleError(f"difficulty: expected 1..100 or a band ({bands}), got {rest[2]!r}")
    out: dict[str, Any] = {
        "type": "check",
        "character": rest[0],
        "skill": rest[1],
        "difficulty": given if given in rules.DIFFICULTY_MIDDLES else int(given),
    }
    mods: list[str] = []
    for word in rest[3:]:
        low = word.lower()
        if low in MODIFIER_WORDS:
            mods.append(MODIFIER_WORDS[low])
        elif low == "open":
            out["secret"] = False
        elif low == "secret":
            out["secret"] = True
        elif low == "override":
            out["override"] = True
        else:
            words = ", ".join(sorted(MODIFIER_WORDS))
            raise RuleError(
                f"check: {word!r} is not a modifier word ({words}, open, secret, override)"
            )
    if mods:
        out["modifiers"] = mods
    return out


def _attack_words(rest: list[str], state: TableState) -> dict[str, Any]:
    if len(rest) < 2:
        raise RuleError(
            "attack: attack WHO TARGET [weapon] [side|rear] [unaware [PCT]] [vitals] "
            "[+N] [location]"
        )
    out: dict[str, Any] = {"type": "attack", "attacker": rest[0], "target": rest[1]}
    attacker = find_character(state, rest[0])
    target = find_character(state, rest[1])
    weapons = table_of(attacker, "weapons")
    locations = table_of(target, "armor")
    words = rest[2:]
    i = 0
    while i < len(words):
        low = words[i].lower()
        if low in rules.POSITIONS:
            out["position"] = low
        elif low == "unaware":
            out["aware"] = False
            if i + 1 < len(words) and words[i + 1].isdigit():
                i += 1
                out["unaware_percent"] = int(words[i])
        elif low == "vitals":
            out["vitals"] = True
        elif low == "override":
            out["override"] = True
        elif low.startswith("+") and low[1:].isdigit():
            out["extra_attackers"] = int(low[1:])
        elif low in weapons:
            out["weapon"] = low
        elif low in locations:
            out["location"] = low
        else:
            raise RuleError(
                f"attack: {words[i]!r} is not a weapon of {attacker.name}, a location, or one of "
                "front, side, rear, unaware, vitals, +N, override"
            )
        i += 1
    return out


def _join_words(rest: list[str]) -> dict[str, Any]:
    """``join WHO [after WHO] [at X Y]``: into the running fight."""
    usage = "join WHO [after WHO] [at X Y] (at the end of the turn order if no after)"
    low = [w.lower() for w in rest]
    if not rest or low[0] in ("after", "at"):
        raise RuleError(f"join: {usage}")
    out: dict[str, Any] = {"type": "join", "character": rest[0]}
    i = 1
    while i < len(rest):
        if low[i] == "after" and i + 1 < len(rest):
            out["after"] = rest[i + 1]
            i += 2
        elif low[i] == "at" and i + 2 < len(rest):
            out["position"] = [_int_word(rest[i + 1], "x"), _int_word(rest[i + 2], "y")]
            i += 3
        else:
            raise RuleError(f"join: {rest[i]!r} not understood ({usage})")
    return out


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    if not words:
        return None
    head, rest = words[0].lower(), words[1:]
    if head == "check":
        return _check_words(rest)
    if head == "attack":
        return _attack_words(rest, state)
    if head == "effect":
        usage = "effect SOURCE TARGET EFFECT POTENCY [STAT] (source may be gm)"
        if len(rest) < 4:
            raise RuleError(f"effect: {usage}")
        _no_more("effect", rest[5:], usage)
        effect: dict[str, Any] = {
            "type": "effect",
            "source": rest[0],
            "target": rest[1],
            "effect": rest[2],
            "potency": _int_word(rest[3], "potency"),
        }
        if len(rest) > 4:
            effect["stat"] = rest[4]
        return effect
    if head == "next":
        _no_more("next", rest, "next")
        return {"type": "next"}
    if head == "opposed":
        usage = "opposed WHO SKILL DEFENDER [DEFENDER-SKILL]; modifiers in the JSON form"
        if len(rest) < 3:
            raise RuleError(f"opposed: {usage}")
        _no_more("opposed", rest[4:], usage)
        out = {"type": "opposed", "actor": rest[0], "skill": rest[1], "defender": rest[2]}
        if len(rest) > 3:
            out["defender_skill"] = rest[3]
        return out
    if head == "move":
        if len(rest) != 3:
            raise RuleError("move: move WHO X Y (feet)")
        return {
            "type": "move",
            "character": rest[0],
            "to": [_int_word(rest[1], "x"), _int_word(rest[2], "y")],
        }
    if head == "flee":
        if len(rest) not in (1, 3, 4) or (len(rest) == 4 and rest[3].lower() != "override"):
            raise RuleError("flee: flee WHO [X Y [override]] (feet; the place proposed if none)")
        flee: dict[str, Any] = {"type": "flee", "character": rest[0]}
        if len(rest) > 1:
            flee["to"] = [_int_word(rest[1], "x"), _int_word(rest[2], "y")]
        if len(rest) == 4:
            flee["override"] = True
        return flee
    if head == "side":
        if len(rest) not in (1, 2):
            raise RuleError(
                "side: side WHO [SIDE] (a charmed character; the charmer's side if none)"
            )
        side: dict[str, Any] = {"type": "switch-side", "character": rest[0]}
        if len(rest) == 2:
            side["side"] = rest[1]
        return side
    if head == "bandage":
        if len(rest) != 1:
            raise RuleError("bandage: bandage WHO")
        return {"type": "bandage", "character": rest[0]}
    if head == "fight":
        if not rest:
            raise RuleError("fight: fight WHO WHO ... (in turn order)")
        return {"type": "encounter", "order": rest}
    if head == "endfight":
        _no_more("endfight", rest, "endfight")
        return {"type": "end-encounter"}
    if head == "join":
        return _join_words(rest)
    if head == "hp":
        if len(rest) < 2:
            raise RuleError("hp: hp WHO AMOUNT [reason] (negative for damage)")
        return {"type": "hp", "character": rest[0], "amount": _int_word(rest[1], "amount"),
                "reason": " ".join(rest[2:])}  # fmt: skip
    if head == "clear":
        if len(rest) != 2:
            raise RuleError("clear: clear WHO EFFECT")
        return {"type": "clear-effect", "character": rest[0], "effect": rest[1]}
    if head == "travel":
        usage = "travel DOMAIN DISTANCE UNIT [KNOTS]"
        if len(rest) < 3:
            raise RuleError(f"travel: {usage}")
        _no_more("travel", rest[4:], usage)
        leg: dict[str, Any] = {
            "type": "travel",
            "domain": rest[0],
            "distance": _float_word(rest[1], "distance"),
            "unit": rest[2],
        }
        if len(rest) > 3:
            leg["speed"] = _float_word(rest[3], "knots")
        return leg
    return None


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    weapons: set[str] = set()
    locations: set[str] = set()
    for char in state.characters.values():
        skills.update(table_of(char, "skills"))
        weapons.update(table_of(char, "weapons"))
        locations.update(table_of(char, "armor"))
    return {
        "command": [
            "check",
            "attack",
            "effect",
            "next",
            "opposed",
            "move",
            "flee",
            "side",
            "bandage",
            "fight",
            "join",
            "endfight",
            "hp",
            "clear",
            "travel",
        ],
        "character": sorted(c.id for c in state.characters.values()),
        "skill": sorted(skills),
        "weapon": sorted(weapons),
        "location": sorted(locations),
        "effect": list(EFFECTS),
        "modifier": sorted(MODIFIER_WORDS),
        "position": list(rules.POSITIONS),
        "difficulty": list(rules.DIFFICULTY_MIDDLES),
    }
