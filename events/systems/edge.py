"""Events of the 2d10-edge dice system.

Each event carries the numbers that went into its result and the result
itself, so a fold never re-derives a rule outcome from the dice.
"""

from __future__ import annotations

from ..base import Event, PlayerForm, declared


class Checked(Event, frozen=True, tag="edge.check"):
    """A success check: 2d10 (3d10 with Advantage or Disadvantage) + skill bonus vs TN."""

    RECORD_FIELDS = ("pending_used",)

    character: str
    skill: str
    #: skill ranks + the two key attributes + any flat modifier
    bonus: int
    tn: int
    #: the difficulty's ladder name when the TN was given by name ("difficult")
    tn_name: str = ""
    modifier: int = 0
    #: counted sources, including pending Advantage/Disadvantage applied to this check
    advantage: int = 0
    disadvantage: int = 0
    remove_disadvantage: bool = False
    #: how Edge was spent on the roll: "" (none), "advantage" or "remove-disadvantage"
    edge: str = ""
    mode: str = "normal"
    faces: list[int] = []
    #: indices into ``faces`` of the two dice kept, in rolled order
    keep: list[int] = []
    kept: list[int] = []
    #: True when a player or the GM named the kept dice instead of the default choice
    keep_chosen: bool = False
    double: bool = False
    adjustment: int = 0
    total: int = 0
    mos: int = 0
    success: bool = False
    band: str = ""
    damage_dice: int = 0
    #: sequence numbers of the pending Advantage/Disadvantage this check used up
    pending_used: list[int] = []
    #: what this check leaves pending: "" | "advantage" | "disadvantage"
    pending_kind: str = ""
    #: "related" (next check of the same skill) or "any" (the next check at all)
    pending_scope: str = ""
    source: str = "rng"
    #: the TN and margin are hidden from players (see the record's visibility)
    secret_tn: bool = False
    reason: str = ""
    #: what the sheet lacks and was counted as 0: attributes (AG), or the skill of a
    #: sheet that has no skills at all (a mook's)
    assumed: list[str] = []


class Attacked(Checked, frozen=True, tag="edge.attack"):
    """An attack: a success check plus what the damage roll needs from the weapon."""

    target: str = ""
    weapon: str = ""
    fire_mode: str = "single"
    #: the weapon's base pool after strength conversion, before MoS/Edge/extras
    base_dice: int = 0
    damage_bonus: int = 0
    melee: bool = False
    stun: bool = False
    #: extra d6 from the fire mode (a burst)
    extra_dice: int = 0
    #: total PT reduction from the weapon's mode and the attacker's talents
    pt_reduction: int = 0
    #: the action this attack used in the encounter ("" outside one)
    action: str = ""
    #: what the target's armor took off its defense (options armor_dodge_*) when the TN was
    #: the target's defense
    dodge_penalty: int = 0
    #: a hit whose damage is rolled later (``damage``): held, or its faces not typed yet
    damage_held: bool = False


class EdgeSpent(Event, frozen=True, tag="edge.spent"):
    """One point of Edge spent; ``purpose`` says on what."""

    character: str
    #: "advantage", "remove-disadvantage", "initiative", "reaction", "damage", "lessen-injury"
    purpose: str
    edge_after: int
    #: dice rolled for the spend (the +2d6 initiative boost), if any
    faces: list[int] = []
    value: int = 0
    #: actions gained at once (an initiative boost spent during the character's own turn)
    actions: list[str] = []
    source: str = "rng"


class Damaged(Event, frozen=True, tag="edge.damage"):
    """A damage roll against a target's armor."""

    RECORD_FIELDS = ("attack",)

    target: str
    dice: int
    bonus: int
    faces: list[int]
    raw: int
    pt: int = 0
    dr: int = 0
    pt_reduction: int = 0
    penetrated: bool = True
    soaked: int = 0
    taken: int = 0
    stun: bool = False
    #: sequence number of the attack this damage answers (0 for direct damage)
    attack: int = 0
    edge_boost: bool = False
    source: str = "rng"
    reason: str = ""
    #: PT the armor lost stopping this blow (options armor_degrade_*); ``pt`` is as it stood
    degraded: int = 0


class Injured(Event, frozen=True, tag="edge.injury"):
    """The effect of a damage roll that got through: severity and Health afterwards."""

    character: str
    points: int
    #: "" when the injuries option is off
    severity: str = ""
    stun: bool = False
    #: lethal (or stun) damage accumulated after this hit, and the Health it is measured against
    accumulated: int = 0
    health: int = 0
    #: the accumulated damage reached Health: death (lethal) or knock-out (stun)
    overwhelmed: bool = False


class InjuryLessened(Event, frozen=True, tag="edge.injury-lessened"):
    """Edge moved an injury one step down the severity ladder; the points stay."""

    RECORD_FIELDS = ("injury",)

    character: str
    injury: int
    severity_from: str
    severity_to: str


class EdgeBurned(Event, frozen=True, tag="edge.burned"):
    """Edge Burn against a fatal result: the character lives and needs urgent care."""

    RECORD_FIELDS = ("injury",)

    character: str
    injury: int
    edge_after: int
    edge_max_after: int


class EdgeRecovered(Event, frozen=True, tag="edge.recovered"):
    """Edge regained; ``reason`` names the recovery rule used."""

    character: str
    reason: str
    amount: int
    edge_after: int
    #: award size for complex awards: "minor", "major" or "boss"
    size: str = ""
    note: str = ""


class ArmorRepaired(Event, frozen=True, tag="edge.armor-repaired"):
    """PT worn off a character's armor restored (part of it, or all)."""

    character: str
    points: int
    #: PT still worn off afterwards
    wear_after: int = 0


class PendingDismissed(Event, frozen=True, tag="edge.pending-dismissed"):
    """The GM dismissed a pending Advantage or Disadvantage."""

    RECORD_FIELDS = ("pending",)

    character: str
    pending: int


class Healed(Event, frozen=True, tag="edge.healed"):
    """Damage recovered (lethal or stun), and whether urgent care was given."""

    character: str
    points: int = 0
    stun: bool = False
    cared: bool = False
    damage_after: int = 0


class EncounterStarted(Event, frozen=True, tag="edge.encounter-started"):
    name: str = ""


class Joined(Event, frozen=True, tag="edge.joined"):
    """A character rolled initiative (Xd6 + AG + CU) and joined the encounter."""

    character: str
    faces: list[int]
    bonus: int
    initiative: int
    source: str = "rng"
    #: a hidden character's place in the order is not shown to players
    hidden: bool = False
    #: attributes the sheet lacks, counted as 0 in the bonus
    assumed: list[str] = []


class Left(Event, frozen=True, tag="edge.left"):
    character: str


class TurnStarted(Event, frozen=True, tag="edge.turn"):
    """A character's turn began, with the actions its initiative bracket allows."""

    round: int
    index: int
    character: str
    #: effective initiative this turn (including an Edge boost)
    initiative: int
    actions: list[str]


class ActionUsed(Event, frozen=True, tag="edge.action"):
    character: str
    #: "major", "move", "minor", "bonus" or "reaction"
    action: str
    what: str = ""


class EncounterEnded(Event, frozen=True, tag="edge.encounter-ended"):
    name: str = ""


EVENTS = declared(globals(), Event)


# -- what players see ---------------------------------------------------------

#: A check with a secret TN: the numbers that would tell the TN.
SECRET_TN = ("tn", "tn_name", "mos", "band", "damage_dice", "pending_kind", "pending_scope")
#: An attack's TN comes from the target's defense less what its armor takes off.
SECRET_ATTACK_TN = (*SECRET_TN, "dodge_penalty")
#: What an attack shows of its attacker: the skill, the dice and everything that adds up
#: to the total, the weapon and its damage.
ATTACKER = (
    "assumed",
    "skill",
    "bonus",
    "modifier",
    "advantage",
    "disadvantage",
    "remove_disadvantage",
    "edge",
    "mode",
    "faces",
    "keep",
    "kept",
    "keep_chosen",
    "double",
    "adjustment",
    "total",
    "mos",
    "damage_dice",
    "pending_used",
    "pending_kind",
    "pending_scope",
    "source",
    "reason",
    "weapon",
    "fire_mode",
    "base_dice",
    "damage_bonus",
    "melee",
    "stun",
    "extra_dice",
    "pt_reduction",
    "action",
)
_CHARACTER = PlayerForm(about=("character",))
Checked.PLAYER = PlayerForm(about=("character",), secret=SECRET_TN)
Attacked.PLAYER = PlayerForm(
    about=("character", "target"),
    unseen={"character": ATTACKER, "target": ("tn", "tn_name", "mos", "dodge_penalty")},
    secret=SECRET_ATTACK_TN,
)
EdgeSpent.PLAYER = _CHARACTER
# a hidden attacker's damage dice and bonus would tell the weapon
Damaged.PLAYER = PlayerForm(
    about=("target",),
    via_unseen=("dice", "bonus", "faces", "raw", "edge_boost", "source", "reason", "pt_reduction"),
)
for _kind in (InjuryLessened, EdgeBurned, EdgeRecovered, PendingDismissed):
    _kind.PLAYER = _CHARACTER
# the Health an injury is measured against, and what is left, say how hurt the character is
Injured.PLAYER = PlayerForm(about=("character",), health=("accumulated", "health"))
Healed.PLAYER = PlayerForm(about=("character",), health=("damage_after",))
ArmorRepaired.PLAYER = _CHARACTER
EncounterStarted.PLAYER = PlayerForm()
EncounterEnded.PLAYER = PlayerForm()
Joined.PLAYER = _CHARACTER
Left.PLAYER = _CHARACTER
# the index counts hidden combatants' places in the order
TurnStarted.PLAYER = PlayerForm(about=("character",), private=("index",))
ActionUsed.PLAYER = _CHARACTER
