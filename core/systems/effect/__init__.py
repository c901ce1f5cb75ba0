"""The 2d6-effect dice system: 2D6 + DMs against 8, Effect, assistance and tasks."""

from __future__ import annotations

from typing import Any

from margin.events import Event

from ..base import Option
from ..shape import shaped

OPTIONS = (
    Option(
        "characteristic_dm",
        "table",
        "'table': sheets hold characteristic scores, turned into DMs by the table; "
        "'sheet': sheets hold the DMs themselves",
        ("table", "sheet"),
    ),
    Option("law_level", True, "a world's law level may set a check's difficulty"),
    Option("opposed_checks", False, "reference rule: opposed checks (higher Effect wins)"),
    Option("task_time", False, "reference rule: a task takes 1D6 x its time increment"),
    Option("task_format", False, "reference rule: checks may be given as a written task"),
    Option("time_trading", False, "reference rule: trade up to two rows of time for DM"),
    Option("multiple_actions", False, "reference rule: -2 on every check per extra action"),
)


#: Commands that build the demo table: a password, help refused and given, a law check, a
#: door, and a fight in the cargo bay.
DEMO: tuple[dict[str, Any], ...] = (
    {
        "type": "add-character",
        "name": "Vex",
        "sheet": {
            "characteristics": {"STR": 6, "DEX": 9, "INT": 10, "EDU": 8, "SOC": 5},
            "skills": {"Electronics": 2, "Pilot": 1, "Gun Combat": 0},
        },
    },
    {
        "type": "add-character",
        "name": "Mira",
        "sheet": {
            "characteristics": {"STR": 8, "DEX": 7, "INT": 12, "EDU": 11, "SOC": 9},
            "skills": {"Electronics": 3, "Persuade": 1, "Medic": 2},
        },
    },
    {
        "type": "add-character",
        "name": "Dock Boss",
        "sheet": {
            "characteristics": {"INT": 7, "SOC": 6},
            "skills": {"Broker": 2},
            "disposition": "friendly",
        },
    },
    {
        "type": "add-character",
        "name": "Bartender",
        "sheet": {
            "characteristics": {"INT": 6},
            "skills": {"Carouse": 2},
            "disposition": "friendly",
        },
    },
    {"type": "assist", "helper": "Bartender", "character": "Vex", "skill": "Electronics"},
    {
        "type": "assist",
        "helper": "Mira",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "faces": [5, 4],
    },
    {
        "type": "check",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "task": "the port computer",
        "faces": [1, 1],
        "reason": "the password",
    },
    {
        "type": "check",
        "character": "Vex",
        "skill": "Electronics",
        "characteristic": "INT",
        "difficulty": "difficult",
        "circumstance": 1,
        "task": "the port computer",
        "faces": [6, 2],
    },
    {
        "type": "check",
        "character": "Mira",
        "skill": "Streetwise",
        "characteristic": "SOC",
        "law_level": 8,
        "faces": [4, 4],
        "reason": "a restricted sidearm past the port",
    },
    {
        "type": "check",
        "character": "Vex",
        "characteristic": "STR",
        "task": "the cargo door",
        "faces": [1, 2],
        "reason": "shoving the jammed door",
    },
    {"type": "close-task", "task": "the cargo door", "reason": "the handle snapped off"},
    {
        "type": "assist",
        "helper": "Dock Boss",
        "character": "Mira",
        "skill": "Broker",
        "characteristic": "SOC",
        "faces": [5, 3],
    },
    {
        "type": "check",
        "character": "Mira",
        "skill": "Broker",
        "characteristic": "SOC",
        "faces": [4, 5],
        "reason": "selling the salvage",
    },
    # a fight in the cargo bay on margin's turn order, Endurance kept on a counter
    {
        "type": "add-character",
        "name": "Port Guard",
        "sheet": {
            "characteristics": {"STR": 7, "DEX": 8, "END": 7},
            "skills": {"Gun Combat": 1},
        },
    },
    {"type": "set-counter", "character": "Port Guard", "name": "END", "max": 7},
    {"type": "set-counter", "character": "Vex", "name": "END", "max": 6},
    {
        "type": "start-encounter",
        "name": "the cargo bay",
        "characters": ["Vex", "Mira", "Port Guard"],
        "faces": [5, 4, 3, 3, 5, 3],
    },
    {"type": "next-turn"},
    {
        "type": "check",
        "character": "Vex",
        "skill": "Gun Combat",
        "characteristic": "DEX",
        "faces": [5, 6],
        "reason": "a shot at the guard",
    },
    {"type": "adjust-counter", "character": "Port Guard", "name": "END", "by": -5},
    {"type": "next-turn"},
    {
        "type": "check",
        "character": "Port Guard",
        "skill": "Gun Combat",
        "characteristic": "DEX",
        "faces": [2, 3],
        "reason": "firing back at Vex",
    },
    {"type": "next-turn"},
    {
        "type": "add-condition",
        "character": "Port Guard",
        "name": "pinned down",
        "rounds": 1,
        "reason": "Mira's covering fire",
    },
)


#: the table screen's short forms, in an order that runs on the demo table
SHORT_FORMS: tuple[tuple[str, str], ...] = (
    ("check vex electronics difficult", "a skill check at a rung of the ladder"),
    ("check vex electronics very-difficult +1 for the lock", "a situational +1 and a reason"),
    ("check mira streetwise law 8", "unskilled, the difficulty from a law level"),
    ("check vex str routine", "a characteristic alone"),
    ("check vex electronics secret for the guard's keys", "a secret check, with a reason"),
    ("assist mira vex electronics", "help: the helper's Effect waits for vex's next check"),
    ("check vex electronics average task the vault door", "a check on a named task"),
    ("close the safe", "the GM closes a task: no attempts from now on"),
    ("set opposed_checks true", "switch on a reference rule"),
    ("opposed vex electronics vs mira electronics", "an opposed check (reference rule)"),
)

#: 2d6-effect keeps no clock of its own (margin's turn order serves) and no health
moment = None
CLOCK_EVENTS: tuple[type[Event], ...] = ()
health = None
mask_health = None


SYSTEM = shaped(
    __name__,
    id="2d6-effect",
    title="2d6-effect",
    summary="2D6 + DMs against 8, Effect bands, assistance and a difficulty ladder",
)
