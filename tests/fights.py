"""A short fight at each dice system's demo table, played from three screens through a real
door: the GM's and two players', the players giving their own commands and the GM ruling.

Each door's test gives three ``Screen`` s (tmux panes, SSH terminals, browser pages) and
``play`` drives them as people would: a player presses ``:``, types a line and Enter; the
GM reads the request on their screen and presses the key that rules on it. What the log
holds afterwards (who wrote each record, what was ruled) and what each screen showed are
checked against the fight.

The fight, in every system: player A rolls a check with margin's dice and the GM accepts
it; player B types the faces they rolled and the GM amends the request before it is
applied; A asks for something the GM refuses with a reason; B spends their own resource
(Edge, a move, time on the track, their help), the GM accepts, then undoes the ruling, and
the request waits again with the resource back as it was. Neither player ever sees the
other's requests or rulings.

Refusals are checked too, through the same screens: another character's command, a
GM-only command, a forged author, and, at a table whose option ``players`` is ``off``,
any command at all: each is one line on the player's screen and writes nothing.
"""

from __future__ import annotations

import json
import re
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from support import log_json, margin_output, state_json, until, wait_until

from margin.tui.table.table import Table

#: the state a ruling and its undo are compared on (the record number moves on)
RULED_STATE = ("characters", "world", "fight", "requests")


class Screen(Protocol):
    """One seat's screen through a door: what is typed into it and what it shows."""

    def type(self, text: str) -> None: ...

    def key(self, name: str) -> None:
        """Press one key by a name both doors know: F5, F6, F7, Enter, Home, ctrl+k."""

    def shows(self) -> str:
        """What the screen shows now (its rows as text)."""

    def received(self) -> str:
        """Everything the seat was sent so far, escape sequences removed."""


def wait_for(screen: Screen, text: str, timeout: float = 30) -> str:
    """What ``screen`` shows once it holds ``text``; fails after ``timeout``."""
    return wait_until(
        screen.shows,
        lambda shown: text in shown,
        lambda shown: f"{text!r} never shown:\n{shown}",
        timeout,
    )


def wait_match(screen: Screen, pattern: str, timeout: float = 30) -> re.Match[str]:
    """The first match of ``pattern`` on ``screen`` once there is one."""
    shown = wait_until(
        screen.shows,
        lambda shown: re.search(pattern, shown),
        lambda shown: f"{pattern!r} never shown:\n{shown}",
        timeout,
    )
    found = re.search(pattern, shown)
    assert found is not None
    return found


def give(screen: Screen, line: str, shown: str) -> str:
    """A player's line: ``:`` opens their command line (which keeps the focus after), the
    line is typed and, once it is on the screen, Enter gives it; what the screen shows once
    it holds ``shown``."""
    if screen not in _opened:
        screen.type(":")
        wait_for(screen, "Enter gives it")
        _opened.add(screen)
    clear_line(screen)
    return enter(screen, line, shown)


#: the screens whose command line is open
_opened: weakref.WeakSet[Screen] = weakref.WeakSet()


def enter(screen: Screen, line: str, shown: str) -> str:
    """Type ``line`` on a command line that has the focus, Enter once it is on the screen,
    then wait for ``shown``."""
    screen.type(line)
    # a line wider than the screen shows its end, where the cursor is
    wait_for(screen, line[-40:])
    screen.key("Enter")
    return wait_for(screen, shown)


def clear_line(screen: Screen) -> None:
    """Empty the focused command line (Home, then delete to its end)."""
    screen.key("Home")
    screen.key("ctrl+k")


@dataclass(frozen=True)
class Fight:
    """One system's short fight: its two players and the lines each gives."""

    system: str
    #: player A (margin's dice) and player B (typed faces), by name
    a: str
    b: str
    #: A's check with margin's dice, which the GM accepts
    a_check: str
    #: B's check with the faces they rolled, and the line the GM amends it to
    b_faces: str
    b_amended: str
    #: what the applied amendment shows in the log
    amended_shows: str
    #: A's request the GM refuses
    a_refused: str
    #: B spending their own resource: accepted, then the ruling undone
    b_spends: str

    @property
    def a_id(self) -> str:
        return self.a.lower()

    @property
    def b_id(self) -> str:
        return self.b.lower()


FIGHTS = {
    "2d10-edge": Fight(
        "2d10-edge",
        a="Kael",
        b="Moreau",
        # Kael spends Edge for Advantage
        a_check="check kael melee vs 15 edge",
        b_faces="check moreau firearms vs 15 = 7 3",
        b_amended="check moreau firearms vs 20 = 7 3",
        amended_shows="vs TN 20",
        a_refused="check kael perception vs 12",
        b_spends="edge moreau initiative",
    ),
    "d100-chance": Fight(
        "d100-chance",
        a="Rook",
        b="Vex",
        a_check="check rook lockpick hard",
        b_faces="check vex arcana hard = 30",
        b_amended="check vex arcana challenging = 30",
        amended_shows="arcana",
        a_refused="check rook stealth hard",
        # it is Rook's turn in the demo's fight: Vex moves up on the GM's ruling (override)
        b_spends="move vex 0 25",
    ),
    "d100-under": Fight(
        "d100-under",
        a="Kael",
        b="Ada",
        a_check="check kael melee",
        b_faces="check ada revolver = 1 2",
        b_amended="check ada revolver 40 = 1 2",
        amended_shows="12 (typed) vs 40",
        a_refused="act kael spell ward 4",
        # Ada's action takes her time on the timing track
        b_spends="act ada revolver",
    ),
    "2d6-effect": Fight(
        "2d6-effect",
        a="Vex",
        b="Mira",
        a_check="check vex electronics difficult",
        b_faces="check mira broker = 4 4",
        b_amended="check mira broker difficult = 4 4",
        amended_shows="4+4 (typed)",
        a_refused="check vex streetwise",
        # Mira's help on Vex's next electronics check
        b_spends="assist mira vex electronics",
    ),
}


def _ruled(table: Path) -> dict[str, Any]:
    state = state_json(table)
    return {k: state[k] for k in RULED_STATE}


def requests(table: Path) -> list[dict[str, Any]]:
    """The requests in the table's log, oldest first."""
    return [r for r in log_json(table) if r["type"] == "player.requested"]


def _asked(table: Path, screen: Screen, line: str, seen: int) -> int:
    """``line`` given from ``screen`` as a request: its record number in the GM's log."""
    give(screen, line, "asked the GM (request #")
    until(lambda: len(requests(table)) > seen, f"no request for {line!r} in the log", step=0.05)
    return int(requests(table)[-1]["seq"])


def play(fight: Fight, table: Path, gm: Screen, a: Screen, b: Screen, door: str) -> None:
    """The fight from the three screens; then the log and each screen are checked.

    ``door`` is how the players' records name their door: ``local``, ``ssh`` or ``web``.
    """
    wait_for(gm, "type a command")
    for player, name in ((a, fight.a), (b, fight.b)):
        wait_for(player, f"watching as {name}")
    seen = len(requests(table))

    # A's check with margin's dice: the GM accepts it with one key
    first = _asked(table, a, fight.a_check, seen)
    wait_for(gm, f"#{first} {fight.a}: ")
    gm.key("F5")
    wait_for(gm, f"GM accepts {fight.a}'s request #{first}")
    wait_for(a, f"GM accepts {fight.a}'s request")

    # B's typed faces: F7 puts the request on the GM's line, which the GM changes
    second = _asked(table, b, fight.b_faces, seen + 1)
    wait_for(gm, f"#{second} {fight.b}: ")
    gm.key("F7")
    # the line holds the request's command as JSON, to change; its start, once at it
    gm.key("Home")
    wait_for(gm, f"amend {second} {{")
    # once the line holds it, from its start (a short line showed it whole before Home)
    gm.key("Home")
    gm.key("ctrl+k")
    enter(gm, f"amend {second} {fight.b_amended}", f"GM amends {fight.b}'s request #{second}")
    wait_for(b, f"GM amends {fight.b}'s request")

    # A's next request: F6 puts the refusal on the line, the GM adds a reason
    third = _asked(table, a, fight.a_refused, seen + 2)
    wait_for(gm, f"#{third} {fight.a}: ")
    gm.key("F6")
    wait_for(gm, f"refuse {third}")
    enter(gm, " not while the bridge burns", f"GM refuses {fight.a}'s request #{third}")
    wait_for(a, f"GM refuses {fight.a}'s request")

    # B spends their resource; the GM accepts, then undoes the ruling
    fourth = _asked(table, b, fight.b_spends, seen + 3)
    wait_for(gm, f"#{fourth} {fight.b}: ")
    before = _ruled(table)
    gm.key("F5")
    wait_for(gm, f"GM accepts {fight.b}'s request #{fourth}")
    spent = _ruled(table)
    assert spent != before, f"{fight.b_spends!r} changed nothing"
    clear_line(gm)
    # the GM's screen shows what the undo voids and asks first
    enter(gm, "undo", "Enter: undo it")
    gm.key("Enter")
    wait_for(gm, "undo of #")
    wait_for(gm, f"#{fourth} {fight.b}: ")
    wait_for(b, f"GM accepts {fight.b}'s request")
    assert _ruled(table) == before, "the undone ruling left its mark on the state"

    _check_log(fight, table, door, (first, second, third, fourth))
    _check_screens(fight, a, b)


def _check_log(fight: Fight, table: Path, door: str, asked: tuple[int, ...]) -> None:
    first, second, third, fourth = asked
    log = log_json(table)
    by_seq = {r["seq"]: r for r in log}
    a_author = f"{fight.a_id} ({door}"
    b_author = f"{fight.b_id} ({door}"
    for seq, author in zip(asked, (a_author, b_author, a_author, b_author), strict=True):
        assert by_seq[seq]["type"] == "player.requested"
        assert by_seq[seq]["author"].startswith(author), by_seq[seq]
    rulings = [r for r in log if r["type"] == "player.ruled"]
    assert [(r["request"], r["ruling"], r["author"]) for r in rulings] == [
        (first, "accepted", "gm"),
        (second, "amended", "gm"),
        (third, "refused", "gm"),
        (fourth, "accepted", "gm"),
    ]
    assert rulings[2]["reason"] == "not while the bridge burns"
    # an accepted request's records are the player's, an amended one's the GM's: those
    # the ruling's command wrote beside the ruling
    applied = {r["request"]: r for r in rulings}
    for seq, author in ((first, a_author), (second, "gm")):
        ruling = applied[seq]
        rows = [r for r in log if r["command"] == ruling["command"] and r is not ruling]
        assert rows, f"request #{seq}'s ruling applied nothing"
        assert all(r["author"].startswith(author) for r in rows), rows
    last = log[-1]
    assert last["type"] == "table.undone"
    assert last["author"] == "gm"
    assert applied[fourth]["seq"] in last["voids"]
    # the request waits again, in the GM's state
    assert str(fourth) in state_json(table)["requests"]
    assert fight.amended_shows in "\n".join(_log_lines(table, second))


def _log_lines(table: Path, after: int) -> list[str]:
    return [
        line
        for line in margin_output("log", str(table)).splitlines()
        if line.split() and line.split()[0].isdigit() and int(line.split()[0]) > after
    ]


def _check_screens(fight: Fight, a: Screen, b: Screen) -> None:
    """What each player was sent: their own requests and rulings, never the other's."""
    seen_a, seen_b = a.received(), b.received()
    assert f"{fight.a} asks" in seen_a
    assert f"{fight.b} asks" in seen_b
    for other, seen in ((fight.b, seen_a), (fight.a, seen_b)):
        assert f"{other} asks" not in seen
        assert f"{other}'s request" not in seen


@dataclass(frozen=True)
class Refusal:
    """A line a player's seat gives, and the start of the one line it is refused with."""

    line: str
    says: str


def refusals(fight: Fight) -> list[Refusal]:
    """What ``fight.a`` may not give: another character's command, a GM-only command, and
    a forged author (a JSON line naming one, and margin's entropy given as the GM's)."""
    return [
        Refusal(fight.b_faces, f"{fight.a}: check character: a player commands their own"),
        Refusal(f"note {fight.a} wins", f"{fight.a}: 'note' is the GM's command"),
        Refusal(
            '{"type": "say", "text": "the GM says so", "author": "gm"}',
            "bad command: Object contains unknown field `author`",
        ),
        Refusal(
            '{"type": "entropy", "seat": "gm", "entropy": "' + "ab" * 32 + '"}',
            f"{fight.a}: entropy seat: a player commands their own character only",
        ),
    ]


def sat_down(table: Path, player: str) -> None:
    """Once ``player``'s seat has given the dice its entropy, as it does when it sits down
    at a table whose dice session players have seen committed (a record of its own)."""
    opened = Table.open(str(table), readonly=True)
    try:
        committed = bool(opened.entropy_session())
    finally:
        opened.close()
    if not committed:
        return
    mine = f"{player.lower()} ("

    def given() -> bool:
        return any(
            r["type"] == "dice.entropy" and r["author"].startswith(mine) for r in log_json(table)
        )

    until(given, f"{player}'s seat gave the dice no entropy", step=0.05)


def refused_through(screen: Screen, table: Path, tried: list[Refusal], player: str) -> None:
    """Each of ``tried`` given from ``player``'s ``screen`` is refused in one line and
    writes nothing."""
    wait_for(screen, f"watching as {player}")
    sat_down(table, player)
    before = len(log_json(table))
    for refusal in tried:
        shown = give(screen, refusal.line, refusal.says)
        [said] = [row for row in shown.splitlines() if refusal.says in row]
        assert "Traceback" not in shown
        assert said.strip().startswith(refusal.says), said
    assert len(log_json(table)) == before


#: what a player's screen says when they try to act at a table with ``players=off``
WATCH_ONLY = "watch only: the GM has players' commands off at this table"


def watching_only(screen: Screen, table: Path) -> None:
    """At a table with ``players=off``, ``:`` on a player's screen says in one line that
    they watch only, and nothing is written (the line is not even opened)."""
    before = len(log_json(table))
    # the line the player had open is closed: ':' no longer opens it
    _opened.discard(screen)
    screen.type(":")
    wait_for(screen, WATCH_ONLY)
    assert len(log_json(table)) == before


def _players(value: str) -> str:
    """The GM's ``margin do`` line that sets the table's ``players`` option."""
    return json.dumps({"type": "set-option", "name": "players", "value": value}) + "\n"


def refuses_everything(fight: Fight, screen: Screen, table: Path) -> None:
    """A player's seat at any door: each of ``refusals(fight)`` is refused in one line and
    writes nothing; with ``players=off`` the seat watches only; turned on again (``trust``),
    the same seat acts."""
    wait_for(screen, f"watching as {fight.a}")
    wait_for(screen, "the GM rules on it")
    refused_through(screen, table, refusals(fight), fight.a)
    margin_output("do", str(table), stdin=_players("off"))
    wait_for(screen, "option players = off")
    watching_only(screen, table)
    margin_output("do", str(table), stdin=_players("trust"))
    wait_for(screen, "option players = trust")
    give(screen, "say back in", "done: say back in")
