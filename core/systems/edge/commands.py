"""The commands of 2d10-edge: what the GM asks for, one JSON object each in ``margin do``."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from margin.events.systems.edge import SECRET_TN

from ..base import Acting, Command

ACTIONS = ("major", "move", "minor", "bonus", "reaction")

#: most Advantage or Disadvantage sources one check may count
MAX_SOURCES = 20
#: largest situational modifier of a check, either way
MAX_MODIFIER = 100
#: largest flat bonus or penalty of direct damage, either way
MAX_DAMAGE_BONUS = 1000
#: largest PT reduction of direct damage
MAX_PT_REDUCTION = 200

Sources = Annotated[int, Meta(ge=0, le=MAX_SOURCES)]


class Check(Command, tag="check"):
    """A success check of a skill against a TN (a number or a ladder name)."""

    character: str
    skill: str
    tn: int | str = 20
    advantage: Sources = 0
    disadvantage: Sources = 0
    remove_disadvantage: bool = False
    #: spend one Edge on the roll: "advantage" or "remove-disadvantage"
    edge: str | None = None
    #: Disadvantage taken on by using a talent or attack option (0 or 1); refused when
    #: the check already has Disadvantage, so a second such option is refused too
    chosen_disadvantage: Sources = 0
    #: a flat situational bonus or penalty to the skill bonus
    modifier: Annotated[int, Meta(ge=-MAX_MODIFIER, le=MAX_MODIFIER)] = 0
    #: pending Advantage/Disadvantage to apply: "auto" (same skill, or any-scope),
    #: "none", or the sequence numbers of the pending items
    pending: str | list[int] = "auto"
    #: two indices into the faces to keep (overrides the default choice)
    keep: list[int] | None = None
    faces: list[int] | None = None
    #: keep the TN and the margin from the players (the GM may not tell the difficulty)
    secret_tn: bool = False
    reason: str = ""


#: Fields of an attack by a hidden character that players do not see (who struck, with what).

#: Fields of a check a secret TN hides from players until the GM reveals the record.
SECRET_TN_FIELDS = SECRET_TN


class Attack(Check, tag="attack", kw_only=True):
    """An attack: a check with a weapon's skill, then its damage against the target's armor."""

    character: str
    target: str
    skill: str = ""
    weapon: str | None = None
    mode: Literal["single", "burst"] = "single"
    #: the attack's TN; defaults to the target's sheet ``defense``
    tn: int | str | None = None  # type: ignore[assignment]
    #: spend one Edge for +2d6 damage (not if Edge went into the roll)
    edge_damage: bool = False
    #: roll damage now (false: later with the damage command)
    damage: bool = True
    #: in an encounter: "major", "bonus", "reaction" or "none" (default: the next free of major, bonus)
    action: str | None = None


class Damage(Command, tag="damage"):
    """Roll damage: an earlier attack's (by seq or by attacker) or direct damage to a target."""

    attack: int | None = None
    attacker: str | None = None
    target: str | None = None
    dice: int = 0
    bonus: Annotated[int, Meta(ge=-MAX_DAMAGE_BONUS, le=MAX_DAMAGE_BONUS)] = 0
    stun: bool = False
    pt_reduction: Annotated[int, Meta(ge=0, le=MAX_PT_REDUCTION)] = 0
    #: whether the target's armor applies to direct damage
    armor: bool = True
    edge_boost: bool = False
    faces: list[int] | None = None
    reason: str = ""


class SpendEdge(Command, tag="spend-edge"):
    """Spend one Edge outside a roll: "initiative", "reaction" or "lessen-injury"."""

    character: str
    purpose: str
    injury: int | None = None
    faces: list[int] | None = None


class LessenInjury(Command, tag="lessen-injury"):
    """Spend one Edge to move an injury one severity step down (the latest when not named)."""

    character: str
    injury: int | None = None


class BurnEdge(Command, tag="edge-burn"):
    """Edge Burn against a fatal result (the latest when not named)."""

    character: str
    injury: int | None = None


class RecoverEdge(Command, tag="recover-edge"):
    """Edge recovery for the party (or the named characters)."""

    #: simple: "session-end", "refresh"; complex: "long-rest", "scenario-end", "final-boss"
    reason: str
    characters: list[str] = []
    #: a long rest during downtime recovers nothing
    downtime: bool = False


class AwardEdge(Command, tag="award-edge"):
    """A GM award of Edge: 1 point (simple) or by size minor/major/boss (complex)."""

    character: str
    size: str | None = None
    note: str = ""


class DismissPending(Command, tag="dismiss-pending"):
    """Drop a pending Advantage/Disadvantage (the oldest when not named)."""

    character: str
    pending: int | None = None


class Heal(Command, tag="heal"):
    """Recover damage points (lethal or stun); ``cared`` ends the need for urgent care."""

    character: str
    points: int = 0
    stun: bool = False
    cared: bool = False


class RepairArmor(Command, tag="repair-armor"):
    """Restore PT worn off a character's armor: ``points`` of it, or all when not given."""

    character: str
    points: int | None = None


class StartEncounter(Command, tag="start-encounter"):
    name: str = ""
    #: characters who join at once, rolling initiative in this order
    characters: list[str] = []
    faces: list[int] | None = None


class Join(Command, tag="join"):
    """Roll initiative (Xd6 + AG + CU) and join the encounter."""

    character: str
    #: override the sheet's number of initiative dice
    dice: int | None = None
    faces: list[int] | None = None


class Leave(Command, tag="leave"):
    character: str


class NextTurn(Command, tag="next-turn"):
    """Start the next turn: the highest initiative who has not acted this round."""


class UseAction(Command, tag="use-action"):
    character: str
    action: str
    what: str = ""


class EndEncounter(Command, tag="end-encounter"):
    pass


COMMANDS: tuple[type[Command], ...] = (
    Check,
    Attack,
    Damage,
    SpendEdge,
    LessenInjury,
    BurnEdge,
    RecoverEdge,
    AwardEdge,
    DismissPending,
    Heal,
    RepairArmor,
    StartEncounter,
    Join,
    Leave,
    NextTurn,
    UseAction,
    EndEncounter,
)

#: what a player may give from their own seat: their character's checks, attacks and
#: initiative, which die Advantage drops (``keep``), and the Edge the rules make theirs
#: to spend (Advantage, removing Disadvantage, a boost, surviving, burning)
PLAYERS: dict[type[Command], Acting] = {
    Check: Acting("character", gm=("secret_tn",)),
    Attack: Acting("character", others=("target",), gm=("secret_tn",)),
    SpendEdge: Acting("character"),
    LessenInjury: Acting("character"),
    BurnEdge: Acting("character"),
    DismissPending: Acting("character"),
    Join: Acting("character", gm=("dice",)),
    UseAction: Acting("character"),
}
