"""What a recap reads from a record: a few plain facts every dice system can state.

Each system maps its event tags to readers (``System.recap``) that turn one
record's event, given as a dict that may have come through the player lens,
into facts. A reader states only what the event it is given shows: a field the
lens removed is a fact left out (a check's chance unknown, a hit without its
numbers), never a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import msgspec

from .inputs import is_whole


class Check(msgspec.Struct, frozen=True):
    """A roll that succeeds or fails, with its exact chance when the reader may know it."""

    actor: str
    label: str
    success: bool
    #: chance of success before the roll; None when unknown to this reader
    chance: Fraction | None = None
    band: str = ""
    #: exact chance of each band, best first; None when unknown or the system has none
    bands: Mapping[str, Fraction] | None = None
    #: physical dice typed in at the table (not margin's random source)
    typed: bool = False
    attack: bool = False
    target: str = ""


class Damage(msgspec.Struct, frozen=True):
    """Damage a character took; ``by`` dealt it, or the attack record ``attack`` did."""

    target: str
    amount: int
    by: str = ""
    attack: int = 0
    stun: bool = False


class Harm(msgspec.Struct, frozen=True):
    """An injury or condition a character came away with; ``down``: out of the fight."""

    character: str
    text: str
    down: bool = False


class Spent(msgspec.Struct, frozen=True):
    """A resource spent (Edge, a counter)."""

    character: str
    resource: str
    amount: int = 1
    purpose: str = ""


class Notable(msgspec.Struct, frozen=True):
    """A roll worth telling: a critical, a fumble, doubles, an automatic success."""

    character: str
    text: str


class Turn(msgspec.Struct, frozen=True):
    """A character's turn (or declared action) began, in round ``round``."""

    character: str
    round: int


class Round(msgspec.Struct, frozen=True):
    """The encounter's clock moved to round (or count) ``number``."""

    number: int


class Begins(msgspec.Struct, frozen=True):
    """An encounter began."""

    name: str = ""


class Ends(msgspec.Struct, frozen=True):
    """The encounter ended; ``how`` in a few words ("after 3 rounds")."""

    how: str = ""


class Revealed(msgspec.Struct, frozen=True):
    """The GM showed the players a secret record."""

    record: int


Fact = Check | Damage | Harm | Spent | Notable | Turn | Round | Begins | Ends | Revealed

Reader = Callable[[dict[str, Any]], list[Fact]]
"""Facts of one event, given as a (possibly lensed) dict."""


def number(event: dict[str, Any], name: str) -> int | None:
    """A whole-number field of an event, or None when it is absent (cut by the lens)."""
    value = event.get(name)
    return value if is_whole(value) else None


def typed(event: dict[str, Any]) -> bool:
    return event.get("source") == "typed"


def opposed_checks(
    event: dict[str, Any],
    odds: Mapping[str, Fraction] | None,
    keys: tuple[str, str],
    notable: Callable[[dict[str, Any]], list[Fact]],
) -> list[Fact]:
    """Both sides of an opposed roll kept in ``a`` and ``b``: each a check against the other.

    ``keys`` name each side's chance of winning in ``odds``; ``notable`` tells
    what one side's roll showed beyond winning or losing.
    """
    a, b = event.get("a", {}), event.get("b", {})
    facts: list[Fact] = []
    for side, other, key in ((a, b, keys[0]), (b, a, keys[1])):
        facts.append(
            Check(
                side.get("actor", ""),
                side.get("label", ""),
                event.get("winner") == side.get("actor", ""),
                odds[key] if odds is not None else None,
                typed=typed(side),
                target=other.get("actor", ""),
            )
        )
        facts.extend(notable(side))
    return facts
