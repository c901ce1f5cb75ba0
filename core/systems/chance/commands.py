"""Commands of the d100-chance system, one JSON object each in ``margin do``."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from ..base import Acting, Command

#: most extra attackers that can surround one target
MAX_EXTRA_ATTACKERS = 100
#: largest potency or resistance an effect contest takes, either way
MAX_POTENCY = 1000
#: largest HP change one ``hp`` command makes, either way
MAX_HP_CHANGE = 100_000

Proficiency = Annotated[int, Meta(ge=0, le=100)]
#: where an attack strikes from (``rules.POSITIONS`` holds what each costs the defender)
Position = Literal["front", "side", "rear"]
#: damage profiles (``rules.PROFILES``)
Profile = Literal["standard", "calibrated", "high-power", "focused", "volatile"]
#: what governs an attack's damage (``rules.ATTACK_TYPES``)
AttackType = Literal["melee", "ranged", "magic", "mutant"]


class Check(Command, tag="check"):
    """A skill check, rolled by the GM in secret unless ``secret`` is false.

    ``task`` names what is attempted (the skill when empty): a failed task may
    be retried only with other modifiers or another ``approach``, or with
    ``override`` (the GM's ruling).
    """

    character: str
    skill: str
    #: 1..100, or a band of the ladder by name ("hard": its middle value)
    difficulty: int | str
    modifiers: list[str] = []
    proficiency: Proficiency | None = None
    task: str = ""
    approach: str = ""
    secret: bool | None = None
    override: bool = False
    narration: str = ""
    faces: list[int] | None = None
    #: why the check is made, as the GM said it (``for the vault door``)
    reason: str = ""


class Opposed(Command, tag="opposed"):
    """Two characters' checks against each other; each side's difficulty defaults to the
    other side's proficiency."""

    actor: str
    skill: str
    defender: str
    defender_skill: str = ""
    actor_difficulty: int | str | None = None
    defender_difficulty: int | str | None = None
    actor_modifiers: list[str] = []
    defender_modifiers: list[str] = []
    secret: bool | None = None
    faces: list[int] | None = None


class Attack(Command, tag="attack"):
    """An attack: the hit gate, the dodge gate, and the damage pipeline."""

    attacker: str
    target: str
    weapon: str | None = None
    position: Position = "front"
    extra_attackers: Annotated[int, Meta(ge=0, le=MAX_EXTRA_ATTACKERS)] = 0
    #: None: aware unless the attacker is stealthed
    aware: bool | None = None
    #: extra damage against an unaware target, 50..100 (the table's default when omitted)
    unaware_percent: int | None = None
    location: str = "torso"
    vitals: bool = False
    override: bool = False
    faces: list[int] | None = None


class ApplyEffect(Command, tag="effect"):
    """A status effect: potency against the target's resistance."""

    target: str
    effect: str
    potency: Annotated[int, Meta(ge=0, le=MAX_POTENCY)]
    source: str = "gm"
    #: the target's resistance when not the sheet's (helpful effects meet none)
    resistance: Annotated[int, Meta(ge=-MAX_POTENCY, le=MAX_POTENCY)] | None = None
    #: the stat a poison lowers
    stat: str = ""


class Bandage(Command, tag="bandage"):
    character: str


class ClearEffect(Command, tag="clear-effect"):
    character: str
    effect: str
    reason: str = ""


class StartEncounter(Command, tag="encounter"):
    """Start a fight: the turn order, and where everyone stands in feet ([x, y])."""

    order: list[str]
    positions: dict[str, list[int]] = {}


class Join(Command, tag="join"):
    """Characters join the running fight: after ``after`` in the turn order, or at its end."""

    character: str | list[str]
    after: str | None = None
    #: where they stand, [x, y] in feet
    position: list[int] | None = None


class NextTurn(Command, tag="next"):
    """End the current turn; the next character's effects tick as their turn starts."""


class EndEncounter(Command, tag="end-encounter"):
    pass


class Move(Command, tag="move"):
    character: str
    to: list[int]
    override: bool = False


class Flee(Command, tag="flee"):
    """The forced move of a feared character at the start of its turn, as the GM confirms it:
    to the place margin proposed, or to ``to``."""

    character: str
    to: list[int] | None = None
    override: bool = False


class SwitchSide(Command, tag="switch-side"):
    """A charmed character turns on its friends: it fights for ``side`` (the charmer's side
    when not given) until the charm ends."""

    character: str
    side: str | None = None


class ChangeHp(Command, tag="hp"):
    """Damage (negative) or healing (positive) outside an attack."""

    character: str
    amount: Annotated[int, Meta(ge=-MAX_HP_CHANGE, le=MAX_HP_CHANGE)]
    reason: str = ""


class Travel(Command, tag="travel"):
    """A leg of a journey in its domain's units; ``speed`` (knots) at sea and in the air."""

    domain: str
    distance: float
    unit: str
    speed: float | None = None
    note: str = ""


COMMANDS: tuple[type[Command], ...] = (
    Check,
    Opposed,
    Attack,
    ApplyEffect,
    Bandage,
    ClearEffect,
    StartEncounter,
    Join,
    NextTurn,
    EndEncounter,
    Move,
    Flee,
    SwitchSide,
    ChangeHp,
    Travel,
)

#: what a player may give from their own seat: their character's checks and attacks
#: (whether a check is rolled in secret, and overrides, stay the GM's), a bandage, a
#: move and a flight
PLAYERS: dict[type[Command], Acting] = {
    Check: Acting("character", gm=("secret", "override", "proficiency")),
    Attack: Acting(
        "attacker",
        others=("target",),
        gm=("override", "aware", "unaware_percent", "extra_attackers"),
    ),
    Bandage: Acting("character"),
    Move: Acting("character", gm=("override",)),
    Flee: Acting("character", gm=("override",)),
}
