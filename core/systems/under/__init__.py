"""The d100-under dice system: roll percentile under a target, and the timing track."""

from __future__ import annotations

from typing import Any

from margin.events import Event
from margin.events.systems import under as under_events

from ...state import Moment, TableState
from ..base import Option
from ..shape import shaped
from . import rules, state

OPTIONS = (
    Option(
        "crit_reading",
        "table",
        "critical range: 'table' crits on the range's top rolls up to the target; "
        "'example' adds the range below the target",
        rules.CRIT_READINGS,
    ),
)

#: Commands that build the demo table: a padlock, a tug of war and a street fight on the track.
DEMO: tuple[dict[str, Any], ...] = (
    {
        "type": "add-character",
        "name": "Kael",
        "sheet": {"attributes": {"AW": 1, "BR": 2}, "skills": {"Melee": 66}},
    },
    {
        "type": "add-character",
        "name": "Ada",
        "sheet": {
            "attributes": {"AW": 3, "BR": 0},
            "skills": {"Library": 60, "Revolver": 55, "Sorcery": 48},
        },
    },
    {
        "type": "add-character",
        "name": "Rifleman",
        "sheet": {
            "attributes": {"AW": 0, "BR": 3},
            "skills": {"Arc Rifle": 50},
            "actions": {"arc rifle": 6},
        },
    },
    {"type": "add-character", "name": "Cultist", "sheet": {"attributes": {"BR": 1}}},
    {
        "type": "check",
        "character": "Kael",
        "skill": "Security",
        "attribute": "AW",
        "faces": [7, 3],
        "reason": "the warehouse padlock",
    },
    {
        "type": "opposed",
        "a": {"character": "Kael", "attribute": "BR", "roll": 22},
        "b": {"character": "Cultist", "attribute": "BR", "roll": 28},
        "reason": "the artifact",
    },
    {"type": "start-track", "label": "Vicker Street"},
    {"type": "act", "character": "Ada", "action": "draw"},
    {"type": "act", "character": "Rifleman", "action": "arc rifle"},
    {"type": "act", "character": "Kael", "action": "spell ward", "cost": 4},
    {"type": "advance", "next": True},
    {"type": "act", "character": "Ada", "action": "revolver"},
    {"type": "advance", "next": True},
    {"type": "advance", "next": True},
    {
        "type": "check",
        "character": "Ada",
        "skill": "Revolver",
        "faces": [3, 1],
        "reason": "the rifleman",
    },
    {"type": "interrupt", "character": "Rifleman", "reason": "shot before the barrel came up"},
)


def moment(table: TableState) -> Moment | None:
    """Where the timing track stands: its count."""
    world = table.world
    running = isinstance(world, state.TrackWorld) and world.running
    return Moment(count=world.now) if running else None


#: the table screen's short forms, in an order that runs on the demo table
SHORT_FORMS: tuple[tuple[str, str], ...] = (
    ("check kael melee", "a skill check against the sheet's target"),
    ("check kael melee secret for the guard's keys", "a secret check, with a reason"),
    ("check ada library 60 for the old ledger", "a given target, with a reason"),
    ("check kael br", "an attribute: target (5 + rating) x 5"),
    ("opposed kael br vs cultist 30", "opposed check; each side a skill, rating or target"),
    ("act ada revolver", "put an action on the track (its cost from the sheet or the text)"),
    ("act kael spell 5", "an action with the cost named"),
    ("act rifleman aim 4", "any action the GM names, with its cost"),
    ("advance", "one count on"),
    ("advance next", "on to the next count where something resolves"),
    ("change kael draw", "change a pending action (timed from now)"),
    ("interrupt rifleman", "take a pending action off the track"),
    ("advance 3", "several counts on"),
    ("end-track", "end the timing track"),
    ("track the warehouse", "start a timing track, with a label"),
)

#: the events that move the system's own clock
CLOCK_EVENTS: tuple[type[Event], ...] = (
    under_events.TrackStarted,
    under_events.TrackAdvanced,
    under_events.TrackEnded,
)

#: d100-under tracks no health
health = None
mask_health = None


SYSTEM = shaped(
    __name__,
    id="d100-under",
    title="d100-under",
    summary="d100 under a target from a rating, with a timing track of counts",
    next_words="advance next",
    time_units=("counts",),
)
