"""Events of dice anyone can check: a session's commitment, players' entropy, the opening.

What each field is and how a verifier uses it is in ``docs/design.md`` ("Dice anyone
can check"); the derivations live in ``core.fairness``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from .base import Event, PlayerForm, declared


class Drawn(msgspec.Struct, frozen=True, omit_defaults=True):
    """The dice margin drew for one command, carried by the command's first record.

    ``stream`` says which key they come from: ``open`` (the session's seed, recomputable
    once the session is opened), ``secret`` (a secret record players see: the session's
    ``index``-th secret key, published when the record is revealed) or ``hidden`` (a
    record players do not see at all; never published). ``dice`` holds each die's sides
    and face in the order drawn; ``typed``, the dice typed in for the command, never
    drawn and never checked, kept so the luck report can count them.
    """

    stream: Literal["open", "secret", "hidden"]
    index: int = 0
    dice: tuple[tuple[int, int], ...] = ()
    typed: tuple[tuple[int, int], ...] = ()


class Commitment(msgspec.Struct, frozen=True):
    """The GM's margin commits to the seed every die it draws until the session is opened.

    ``commitment`` is a salted hash of the seed, ``secrets`` the root of a hash tree over
    the session's ``leaves`` secret keys, one per secret command players see. It travels
    on the first record of the command that first needs it (``Record.committed``).
    """

    commitment: str
    secrets: str
    leaves: int


class DiceEntropy(Event, frozen=True, tag="dice.entropy"):
    """Random bytes a seat's margin gave as it sat down, mixed into every later die."""

    seat: str
    entropy: str

    PLAYER = PlayerForm()


class DiceOpened(Event, frozen=True, tag="dice.opened"):
    """The end of a session: the seed (and its salt) behind ``commitment``, made public.

    Its record commits to the next session's dice (``Record.committed``).
    """

    commitment: str
    seed: str
    salt: str

    PLAYER = PlayerForm()


EVENTS = declared(globals(), Event)
