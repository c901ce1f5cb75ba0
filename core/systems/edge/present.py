"""What the table screen shows of 2d10-edge, and the short forms typed on its command line."""

from __future__ import annotations

from typing import Any

from ...errors import RuleError
from ...state import TableState
from ..base import Clock, ClockRow, Command, Odds
from . import rules
from .commands import Attack, Check
from .decide import sources, turn_order
from .state import (
    EdgeCharacter,
    character,
    defense,
    edge_max,
    health,
    key,
    sheet_of,
    skill_bonus,
    weapon,
    world,
)

# -- log lines ----------------------------------------------------------------


def _check_line(e: dict[str, Any]) -> str:
    who = e.get("character", "someone unseen")
    tn = (
        f"TN {e['tn']}" + (f" ({e['tn_name']})" if e.get("tn_name") else "")
        if "tn" in e
        else "TN ?"
    )
    mode = {"advantage": " with Advantage", "disadvantage": " with Disadvantage"}.get(
        e.get("mode", ""), ""
    )
    edge = " (Edge)" if e.get("edge") else ""
    if "faces" not in e:
        return f"{who}: {e.get('skill', '?')} check{mode}{edge} (secret)"
    faces = e["faces"]
    keep = e.get("keep") or list(range(len(faces)))
    shown = ",".join(str(f) if i in keep else f"~{f}~" for i, f in enumerate(faces))
    adj = e.get("adjustment", 0)
    doubles = (
        f" {'+' if adj > 0 else ''}{adj} double"
        if e.get("double") and adj
        else (" double" if e.get("double") else "")
    )
    skill = f"{e['skill']} +{e.get('bonus', 0)}" if "skill" in e else "attack"
    head = f"{who}: {skill}{mode}{edge} [{shown}]{doubles} = "
    if "mos" not in e:
        outcome = "success" if e.get("success") else "failure"
        return head + f"{e.get('total')} vs a secret TN: {outcome}"
    secret = " (secret TN)" if e.get("secret_tn") else ""
    band = e.get("band", "").replace("-", " ")
    return head + f"{e.get('total')} vs {tn}{secret}: MoS {e.get('mos')}, {band}" + _assumed(e)


def _assumed(e: dict[str, Any]) -> str:
    """What the sheet lacked and was counted as 0, said so."""
    missing = e.get("assumed")
    return f" ({', '.join(missing)}: not on the sheet, counted as 0)" if missing else ""


def describe(e: dict[str, Any]) -> str | None:
    """One log line for a 2d10-edge event."""
    tag = e.get("type", "")
    if tag == "edge.check":
        line = _check_line(e)
        if e.get("pending_kind"):
            line += f"; {e['pending_kind']} pending ({e.get('pending_scope')})"
        return line
    if tag == "edge.attack":
        if "faces" not in e and "skill" not in e:
            # an unseen attacker: only the blow and where it landed
            outcome = e.get("band", "").replace("-", " ") or ("hit" if e.get("success") else "miss")
            return f"{e.get('character')} attacks {e.get('target')}: {outcome}"
        weapon = f" with {e['weapon']}" if "weapon" in e else ""
        line = f"attack on {e.get('target')}{weapon}"
        if e.get("fire_mode") == "burst":
            line += " (burst)"
        line += ": " + _check_line(e)
        if e.get("success"):
            line += f", damage dice +{e.get('damage_dice', 0)}"
        if e.get("dodge_penalty"):
            line += f" (defense -{e['dodge_penalty']} for the target's armor)"
        return line
    if tag == "edge.spent":
        what = {
            "advantage": "gains Advantage",
            "remove-disadvantage": "removes Disadvantage",
            "initiative": f"boosts initiative by +{e.get('value', 0)} ({e.get('faces')}) for a turn",
            "reaction": "gains an extra reaction",
            "damage": "adds +2d6 damage",
            "lessen-injury": "lessens an injury",
        }.get(e.get("purpose", ""), e.get("purpose", ""))
        return f"{e.get('character')} spends Edge: {what} (Edge left {e.get('edge_after')})"
    if tag == "edge.damage":
        pool = rules.Pool(e.get("dice", 0), e.get("bonus", 0))
        kind = " stun" if e.get("stun") else ""
        armor = ""
        if e.get("pt") or e.get("dr"):
            reduction = f"-{e['pt_reduction']}" if e.get("pt_reduction") else ""
            armor = f" vs PT {e.get('pt')}{reduction}/DR {e.get('dr')}"
        result = (
            f"{e.get('soaked')} soaked, {e.get('taken')} taken"
            if e.get("penetrated")
            else "stopped by the armor"
        )
        edge = " (+2d6 Edge)" if e.get("edge_boost") else ""
        if e.get("degraded"):
            result += f", the armor degrades: PT -{e['degraded']}"
        if "faces" not in e:
            return f"{e.get('target')} takes{kind} damage{armor}: {result}"
        return f"{e.get('target')} takes {pool}{kind}{edge} {e.get('faces')} = {e.get('raw')}{armor}: {result}"
    if tag == "edge.injury":
        sev = f"{e['severity']} " if e.get("severity") else ""
        kind = "stun " if e.get("stun") else ""
        end = ""
        if e.get("overwhelmed") or e.get("severity") == "fatal":
            end = " - knocked out" if e.get("stun") else " - FATAL"
        # players who may not see this character's health get no Health to measure by
        levels = f" ({e.get('accumulated')}/{e['health']})" if "health" in e else ""
        return f"{e.get('character')}: {sev}{kind}injury, {e.get('points')} points{levels}{end}"
    if tag == "edge.injury-lessened":
        which = f"injury #{e['injury']}" if "injury" in e else "an injury"
        change = f"{e.get('severity_from')} -> {e.get('severity_to')}"
        return f"{e.get('character')}: {which} lessened {change}"
    if tag == "edge.burned":
        return (
            f"{e.get('character')} burns Edge to survive: Edge {e.get('edge_after')}/"
            f"{e.get('edge_max_after')}, needs urgent medical care"
        )
    if tag == "edge.recovered":
        size = f" ({e['size']})" if e.get("size") else ""
        return f"{e.get('character')} regains {e.get('amount')} Edge: {e.get('reason')}{size} (now {e.get('edge_after')})"
    if tag == "edge.pending-dismissed":
        which = f"pending #{e['pending']}" if "pending" in e else "a pending Advantage/Disadvantage"
        return f"{e.get('character')}: {which} dismissed"
    if tag == "edge.healed":
        kind = "stun" if e.get("stun") else "damage"
        care = ", urgent care given" if e.get("cared") else ""
        left = f" (left {e['damage_after']})" if "damage_after" in e else ""
        return f"{e.get('character')} recovers {e.get('points')} {kind}{left}{care}"
    if tag == "edge.armor-repaired":
        left = f" ({e['wear_after']} still worn off)" if e.get("wear_after") else ""
        return f"{e.get('character')}'s armor is repaired: PT +{e.get('points')}{left}"
    if tag == "edge.encounter-started":
        return f"encounter starts{': ' + e['name'] if e.get('name') else ''}"
    if tag == "edge.joined":
        return (
            f"{e.get('character')} joins: initiative {e.get('faces')} + {e.get('bonus')} = "
            f"{e.get('initiative')}{_assumed(e)}"
        )
    if tag == "edge.left":
        return f"{e.get('character')} leaves the encounter"
    if tag == "edge.turn":
        return (
            f"round {e.get('round')}: {e.get('character')}'s turn (initiative {e.get('initiative')}; "
            f"{', '.join(e.get('actions', []))})"
        )
    if tag == "edge.action":
        what = f": {e['what']}" if e.get("what") else ""
        return f"{e.get('character')} uses a {e.get('action')} action{what}"
    if tag == "edge.encounter-ended":
        return "encounter ends"
    return None


# -- status and clock ---------------------------------------------------------


def status(char: Any, state: TableState) -> list[str]:
    if not isinstance(char, EdgeCharacter):
        return []
    out = [
        f"Edge {char.edge}/{edge_max(char)}",
        f"Health {health(char) - char.damage}/{health(char)}",
    ]
    if char.stun:
        out.append(f"stun {char.stun}")
    players = world(state).players

    def number(seq: int) -> str:
        # players' logs are numbered apart from the GM's, so a GM record number means nothing there
        return "" if players else f" (#{seq})"

    for i in char.injuries:
        label = f"{i.severity} injury" if i.severity else "injury"
        out.append(f"{label} {i.points}{' stun' if i.stun else ''}{number(i.seq)}")
    for p in char.pending:
        if players and p.secret and p.seq not in state.revealed:
            continue  # what a secret-TN check left pending tells its margin
        what = "adv" if p.kind == "advantage" else "dis"
        scope = p.skill if p.scope == "related" else "any check"
        out.append(f"{what} pending: {scope}{number(p.seq)}")
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
    if enc.round:
        title = f"Round {enc.round}, turn {len(enc.acted)}"
    else:
        title = "Encounter (not started: next-turn)"
    if enc.name:
        title += f" - {enc.name}"
    rows = []
    for c in turn_order(enc.order):
        char = state.characters.get(c.id)
        if char is None:
            continue  # left the table: no longer takes turns
        name = char.name
        value = str(c.initiative) + (f"+{c.boost}" if c.boost else "")
        left = " ".join(c.actions) if c.id == enc.current else ""
        note = left
        if c.reactions:
            note = f"{note} | reaction x{c.reactions}".strip(" |")
        if c.id in enc.acted and c.id != enc.current:
            note = f"acted {note}".strip()
        if isinstance(char, EdgeCharacter) and (char.dead or char.knocked_out):
            note = "dead" if char.dead else "knocked out"
        rows.append(ClockRow(name=name, value=value, current=c.id == enc.current, note=note))
    return Clock(title=title, rows=tuple(rows))


def odds(cmd: Command, state: TableState) -> Odds | None:
    """Exact odds of a check or attack before it is rolled, pending effects included."""
    if not isinstance(cmd, Check):
        return None
    try:
        char = character(state, cmd.character)
        if isinstance(cmd, Attack):
            target = character(state, cmd.target)
            skill = cmd.skill or weapon(char, cmd.weapon)["skill"]
            defended = defense(target, state.options)
            tn_raw = cmd.tn if cmd.tn is not None else defended[0] if defended else None
            if tn_raw is None:
                return None
        else:
            skill, tn_raw = cmd.skill, cmd.tn
        sid, bonus = skill_bonus(char, skill)
        bonus += cmd.modifier
        tn, _ = rules.tn_value(tn_raw)
        _, adv, dis = sources(cmd, char, sid)
        mode = rules.check_mode(adv, dis, cmd.remove_disadvantage, cmd.edge)
    except RuleError:
        return None
    o = rules.check_odds(mode, bonus, tn, bool(cmd.edge))
    label = f"{char.name}: {sid} +{bonus} vs TN {tn}" + ("" if mode == "normal" else f" ({mode})")
    return Odds(
        success=float(o.success), bands={k: float(v) for k, v in o.bands.items()}, label=label
    )


def vocabulary(state: TableState) -> dict[str, list[str]]:
    skills: set[str] = set()
    weapons: set[str] = set()
    for c in state.characters.values():
        normal = sheet_of(c)
        skills.update(normal["skills"])
        weapons.update(key(w["name"]) for w in normal["weapons"])
    return {
        "command": list(SHORT_FORMS),
        "character": sorted(state.characters),
        "skill": sorted(skills),
        "weapon": sorted(weapons),
        "difficulty": list(rules.LADDER),
    }


# -- short forms ----------------------------------------------------------------

FLAG_WORDS = {
    "adv": ("advantage", 1),
    "adv2": ("advantage", 2),
    "dis": ("disadvantage", 1),
    "dis2": ("disadvantage", 2),
}


def _number(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise RuleError(f"{what}: {word!r} is not a whole number") from None


CHECK_WORDS = (
    "vs, adv, adv2, dis, dis2, remove-dis, edge, edge-remove, mod N, keep I J, no-pending, "
    "secret, option-dis, faces ..."
)
ATTACK_WORDS = CHECK_WORDS + ", burst, single, edge-damage, hold, reaction, bonus, free"


def _tail(
    words: list[str], cmd: dict[str, Any], allowed: set[str], known: str = CHECK_WORDS
) -> list[str]:
    """Read the options common to checks and attacks; return the words left over.

    The words left over (a skill or a weapon name) come before the options; a
    word after the first option that is not one of them is refused by name
    (``known`` lists the words the command takes).
    """
    rest: list[str] = []
    i = 0
    edge = False
    optioned = False
    check = "check" in allowed
    while i < len(words):
        w = words[i].lower()
        if w not in _ALL_WORDS:
            if optioned:
                raise RuleError(f"{words[i]!r} is not a word of this command ({known})")
            rest.append(words[i])
            i += 1
            continue
        optioned = True
        if w in FLAG_WORDS and check:
            name, n = FLAG_WORDS[w]
            cmd[name] = cmd.get(name, 0) + n
        elif w in ("remove-dis", "nv") and check:
            cmd["remove_disadvantage"] = True
        elif w in ("edge", "edge-adv") and check:
            edge = True
        elif w == "edge-remove" and check:
            cmd["edge"] = "remove-disadvantage"
        elif w == "vs" and check:
            j = i + 1
            ladder = []
            while j < len(words) and not words[j].isdigit() and words[j].lower() not in _ALL_WORDS:
                ladder.append(words[j])
                j += 1
            if j < len(words) and words[j].isdigit() and not ladder:
                cmd["tn"] = int(words[j])
                j += 1
            elif ladder:
                cmd["tn"] = "-".join(ladder).lower()
            else:
                raise RuleError("vs: give a TN or a difficulty (vs 30, vs difficult)")
            i = j
            continue
        elif w in ("mod", "modifier") and check:
            if i + 1 >= len(words):
                raise RuleError("mod: give a number (mod -2)")
            cmd["modifier"] = _number(words[i + 1], "mod")
            i += 2
            continue
        elif w == "faces":
            j = i + 1
            while j < len(words) and words[j].lstrip("-").isdigit():
                j += 1
            if j == i + 1:
                raise RuleError("faces: give the dice rolled, in order (faces 3 4 9)")
            cmd["faces"] = [int(x) for x in words[i + 1 : j]]
            i = j
            continue
        elif w == "keep" and check:
            if i + 2 >= len(words):
                raise RuleError("keep: give two die positions, counted from 0 (keep 0 2)")
            cmd["keep"] = [_number(words[i + 1], "keep"), _number(words[i + 2], "keep")]
            i += 3
            continue
        elif w == "no-pending" and check:
            cmd["pending"] = "none"
        elif w == "secret" and check:
            cmd["secret_tn"] = True
        elif w == "option-dis" and check:
            cmd["chosen_disadvantage"] = 1
        else:
            raise RuleError(f"{words[i]!r} is not a word of this command ({known})")
        i += 1
    if edge:
        cmd["edge"] = (
            "remove-disadvantage"
            if cmd.get("disadvantage") and not cmd.get("advantage")
            else "advantage"
        )
    return rest


_ALL_WORDS = {
    *FLAG_WORDS,
    "remove-dis",
    "nv",
    "edge",
    "edge-adv",
    "edge-remove",
    "vs",
    "mod",
    "modifier",
    "faces",
    "keep",
    "no-pending",
    "secret",
    "option-dis",
    "burst",
    "single",
    "edge-damage",
    "hold",
    "reaction",
    "bonus",
    "free",
}


def _need(words: list[str], n: int, usage: str) -> None:
    if len(words) < n:
        raise RuleError(f"usage: {usage}")


def _check_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 3, "check NAME SKILL [vs TN|difficulty] [adv|dis|edge|...] [faces ...]")
    cmd: dict[str, Any] = {"type": "check", "character": words[1]}
    rest = _tail(words[2:], cmd, {"check"})
    if not rest:
        raise RuleError("check: name the skill (check kael athletics vs 30)")
    cmd["skill"] = "-".join(rest)
    return cmd


def _attack_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(
        words, 3, "attack ATTACKER TARGET [WEAPON] [burst] [vs TN] [edge|edge-damage] [faces ...]"
    )
    cmd: dict[str, Any] = {"type": "attack", "character": words[1], "target": words[2]}
    tail = words[3:]
    for flag, field, value in (
        ("burst", "mode", "burst"),
        ("single", "mode", "single"),
        ("hold", "damage", False),
    ):
        if flag in [w.lower() for w in tail]:
            cmd[field] = value
            tail = [w for w in tail if w.lower() != flag]
    for flag in ("reaction", "bonus", "free"):
        if flag in [w.lower() for w in tail]:
            cmd["action"] = "none" if flag == "free" else flag
            tail = [w for w in tail if w.lower() != flag]
    if "edge-damage" in [w.lower() for w in tail]:
        cmd["edge_damage"] = True
        tail = [w for w in tail if w.lower() != "edge-damage"]
    rest = _tail(tail, cmd, {"check"}, ATTACK_WORDS)
    if rest:
        cmd["weapon"] = "-".join(rest)
    return cmd


def _edge_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 3, "edge NAME damage|initiative|reaction|lessen [INJURY]|burn [INJURY]")
    name, what = words[1], words[2].lower()
    seq = [_number(w, "injury") for w in words[3:4] if w.lower() != "faces"]
    if what == "damage":
        return {"type": "damage", "attacker": name, "edge_boost": True}
    if what in ("initiative", "init"):
        cmd: dict[str, Any] = {"type": "spend-edge", "character": name, "purpose": "initiative"}
        if len(words) > 3 and words[3].lower() == "faces":
            cmd["faces"] = [_number(w, "faces") for w in words[4:]]
        return cmd
    if what == "reaction":
        return {"type": "spend-edge", "character": name, "purpose": "reaction"}
    if what in ("lessen", "lessen-injury"):
        return {"type": "lessen-injury", "character": name, **({"injury": seq[0]} if seq else {})}
    if what == "burn":
        return {"type": "edge-burn", "character": name, **({"injury": seq[0]} if seq else {})}
    raise RuleError(
        f"edge: {what!r} is not a use of Edge here (damage, initiative, reaction, lessen, burn)"
    )


def _damage_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "damage ATTACKER | damage TARGET 3d6+2 [stun] [no-armor] [pt-2]")
    if len(words) == 2:
        return {"type": "damage", "attacker": words[1]}
    cmd: dict[str, Any] = {"type": "damage", "target": words[1]}
    from ...dice import ConstTerm, DiceTerm, parse

    expr = parse(words[2])
    for term in expr.terms:
        if isinstance(term, DiceTerm):
            if term.sides != 6 or term.keep or term.sign < 0:
                raise RuleError(f"damage: {words[2]!r} must be d6 plus or minus a number (3d6+2)")
            cmd["dice"] = cmd.get("dice", 0) + term.count
        elif isinstance(term, ConstTerm):
            cmd["bonus"] = cmd.get("bonus", 0) + term.sign * term.value
    rest = words[3:]
    for i, w in enumerate(rest):
        low = w.lower()
        if low == "stun":
            cmd["stun"] = True
        elif low == "no-armor":
            cmd["armor"] = False
        elif low.startswith("pt-"):
            cmd["pt_reduction"] = _number(low[3:], "pt")
        elif low == "faces":
            cmd["faces"] = [_number(x, "faces") for x in rest[i + 1 :]]
            break
        else:
            raise RuleError(f"damage: {w!r} is not understood (stun, no-armor, pt-N, faces ...)")
    return cmd


def parse_words(words: list[str], state: TableState) -> dict[str, Any] | None:
    """A short form typed on the table screen -> a command, or None if not one of ours."""
    if not words:
        return None
    head = words[0].lower()
    form = SHORT_FORMS.get(head)
    return form(words, state) if form else None


def _simple(kind: str, field: str = "character") -> Any:
    def build(words: list[str], state: TableState) -> dict[str, Any]:
        _need(words, 2, f"{words[0]} NAME")
        return {"type": kind, field: words[1]}

    return build


def _join_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "join NAME [faces ...]")
    cmd: dict[str, Any] = {"type": "join", "character": words[1]}
    rest = _tail(words[2:], cmd, set(), "faces ...")
    if rest:
        raise RuleError(f"join: {rest[0]!r} is not understood (join NAME [faces ...])")
    return cmd


def _start_words(words: list[str], state: TableState) -> dict[str, Any]:
    return {"type": "start-encounter", "name": " ".join(words[1:])}


def _use_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 3, "use NAME major|move|minor|bonus|reaction [what ...]")
    return {
        "type": "use-action",
        "character": words[1],
        "action": words[2].lower(),
        "what": " ".join(words[3:]),
    }


def _recover_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "recover session-end|refresh|long-rest|scenario-end|final-boss [NAME ...]")
    return {"type": "recover-edge", "reason": words[1].lower(), "characters": words[2:]}


def _award_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "award NAME [minor|major|boss]")
    cmd: dict[str, Any] = {"type": "award-edge", "character": words[1]}
    if len(words) > 2:
        cmd["size"] = words[2].lower()
    return cmd


def _dismiss_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "dismiss NAME [PENDING]")
    cmd: dict[str, Any] = {"type": "dismiss-pending", "character": words[1]}
    if len(words) > 2:
        cmd["pending"] = _number(words[2], "pending")
    return cmd


def _heal_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 3, "heal NAME POINTS [stun] [cared]")
    flags = {w.lower() for w in words[3:]}
    unknown = flags - {"stun", "cared"}
    if unknown:
        raise RuleError(f"heal: {sorted(unknown)[0]!r} is not understood (stun, cared)")
    return {
        "type": "heal",
        "character": words[1],
        "points": _number(words[2], "points"),
        "stun": "stun" in flags,
        "cared": "cared" in flags,
    }


def _repair_words(words: list[str], state: TableState) -> dict[str, Any]:
    _need(words, 2, "repair NAME [POINTS]")
    if words[3:]:
        raise RuleError(f"repair: {words[3]!r} is not understood (repair NAME [POINTS])")
    cmd: dict[str, Any] = {"type": "repair-armor", "character": words[1]}
    if len(words) > 2:
        cmd["points"] = _number(words[2], "points")
    return cmd


def _injury_words(kind: str) -> Any:
    def build(words: list[str], state: TableState) -> dict[str, Any]:
        _need(words, 2, f"{words[0]} NAME [INJURY]")
        cmd: dict[str, Any] = {"type": kind, "character": words[1]}
        if len(words) > 2:
            cmd["injury"] = _number(words[2], "injury")
        return cmd

    return build


SHORT_FORMS: dict[str, Any] = {
    "check": _check_words,
    "attack": _attack_words,
    "edge": _edge_words,
    "damage": _damage_words,
    "burn": _injury_words("edge-burn"),
    "lessen": _injury_words("lessen-injury"),
    "next": lambda words, state: {"type": "next-turn"},
    "start": _start_words,
    "join": _join_words,
    "leave": _simple("leave"),
    "end": lambda words, state: {"type": "end-encounter"},
    "use": _use_words,
    "recover": _recover_words,
    "award": _award_words,
    "dismiss": _dismiss_words,
    "heal": _heal_words,
    "repair": _repair_words,
}
