"""Events of the d100-chance dice system.

Each event carries the numbers that went into its outcome and the outcome
itself, so a fold never re-derives a rule; the decider computes it once.
"""

from __future__ import annotations

from ..base import Event, PlayerForm, declared


class CheckRolled(Event, frozen=True, tag="chance.check"):
    """A skill check: usually rolled by the GM in secret (the numbers are GM-only)."""

    character: str
    skill: str
    task: str
    proficiency: int
    difficulty: int
    modifiers: list[str] = []
    modifier_total: int = 0
    chance: int = 0
    automatic: bool = False
    #: the d100 face, None for an automatic success
    roll: int | None = None
    #: chance - roll; None for an automatic success
    margin: int | None = None
    success: bool = False
    band: str = ""
    narration: str = ""
    secret: bool = True
    approach: str = ""
    #: "" a first attempt, "changed" a retry with a new approach, "override" the GM allowed it
    retry: str = ""
    source: str = "rng"
    #: the difficulty's band on the ladder ("hard"); "" in records older than the field
    difficulty_band: str = ""
    #: why the check was made, as the GM said it
    reason: str = ""


class OpposedRolled(Event, frozen=True, tag="chance.opposed"):
    """Two characters' checks against each other; the defender wins ties."""

    actor: str
    defender: str
    actor_skill: str
    defender_skill: str
    actor_difficulty: int
    defender_difficulty: int
    actor_chance: int
    defender_chance: int
    actor_roll: int
    defender_roll: int
    actor_margin: int
    defender_margin: int
    actor_band: str
    defender_band: str
    winner: str
    actor_modifiers: list[str] = []
    defender_modifiers: list[str] = []
    secret: bool = True
    source: str = "rng"
    #: each side's difficulty band on the ladder; "" in records older than the fields
    actor_difficulty_band: str = ""
    defender_difficulty_band: str = ""


class AttackRolled(Event, frozen=True, tag="chance.attack"):
    """An attack through both gates and, when it connects, the damage pipeline."""

    attacker: str
    target: str
    weapon: str
    position: str = "front"
    extra_attackers: int = 0
    aware: bool = True
    #: the target the attacker meant, when confusion sent the attack elsewhere
    intended: str = ""
    confusion_roll: int | None = None
    accuracy: int = 0
    evasion: int = 0
    hit_chance: int = 0
    roll: int = 0
    hit: bool = False
    dodge_chance: int = 0
    dodge_roll: int | None = None
    dodged: bool = False
    connects: bool = False
    crit_chance: int = 0
    crit_roll: int | None = None
    crit: bool = False
    range_percent: int | None = None
    location: str = "torso"
    vitals: bool = False
    element: str = "physical"
    unaware_percent: int = 0
    #: the pipeline step by step: [step, "what it did = value"]
    steps: list[list[str]] = []
    damage: int = 0
    absorbed: int = 0
    taken: int = 0
    #: the attacker had one of the turn's actions (False: outside a fight, or the GM overrode)
    action: bool = False
    override: bool = False
    #: for a blow of a burst: the target the burst was aimed at
    burst_of: str = ""
    source: str = "rng"


class EffectApplied(Event, frozen=True, tag="chance.effect"):
    """A status effect's contest of potency against resistance, and what landed."""

    target: str
    effect: str
    potency: int
    resistance: int
    gap: int
    landed: bool
    source: str = ""
    #: turns it lasts (0: until removed), and its stacks
    turns: int = 0
    stacks: int = 0
    #: what the target carries afterwards: the effect, or what it escalated into
    becomes: str = ""
    total_stacks: int = 0
    total_turns: int = 0
    stat: str = ""
    pool: int = 0
    #: why it came: "" a command, "attack", "spread" (from burning), "haste" (its end)
    reason: str = ""


class EffectTicked(Event, frozen=True, tag="chance.tick"):
    """One effect's turn at the start of its bearer's turn."""

    character: str
    effect: str
    stacks: int
    #: HP change: negative for damage over time, positive for regeneration
    hp: int = 0
    turns_left: int = 0
    ended: bool = False


class EffectRemoved(Event, frozen=True, tag="chance.removed"):
    """An effect taken off early: a bandage stops bleeding, the GM clears an effect."""

    character: str
    effect: str
    reason: str = ""


class EncounterStarted(Event, frozen=True, tag="chance.encounter"):
    order: list[str]
    #: character id -> [x, y] in feet
    positions: dict[str, list[int]] = {}
    hidden: list[str] = []


class EncounterJoined(Event, frozen=True, tag="chance.joined"):
    """A character joins a running fight at ``index`` in the turn order."""

    character: str
    index: int
    #: [x, y] in feet, when the GM placed them
    position: list[int] | None = None
    hidden: bool = False


class TurnStarted(Event, frozen=True, tag="chance.turn"):
    actor: str
    index: int
    round: int
    actions: int
    #: the actor is feared and must flee this turn: from whom ("gm" for the GM's fear),
    #: and where margin proposes (None: the GM names the place with ``flee``)
    flee_from: str = ""
    flee_to: list[int] | None = None


class EncounterEnded(Event, frozen=True, tag="chance.encounter-ended"):
    rounds: int = 0


class Moved(Event, frozen=True, tag="chance.moved"):
    """A character moved on the battlefield (feet)."""

    character: str
    to: list[int]
    feet: int = 0
    start: list[int] | None = None
    override: bool = False
    #: the forced move of a feared character, confirmed by the GM with ``flee``
    fled: bool = False


class SideSwitched(Event, frozen=True, tag="chance.side"):
    """A charmed character fights for another side, or returns to its own when the charm ends."""

    character: str
    #: the side it fights on from now ("" for a sheet without a side)
    side: str
    before: str = ""
    #: "charmed" (the GM switched it) or "charm-ended" (back to its own side)
    reason: str = "charmed"


class HealthChanged(Event, frozen=True, tag="chance.hp"):
    """The GM set damage or healing outside an attack (a fall, a medkit)."""

    character: str
    amount: int
    absorbed: int = 0
    reason: str = ""


class Traveled(Event, frozen=True, tag="chance.traveled"):
    """A leg of a journey in its domain's travel units."""

    domain: str
    distance: float
    unit: str
    #: knots, for a leg at sea or in the air
    speed: float | None = None
    note: str = ""


EVENTS = declared(globals(), Event)


# -- what players see ---------------------------------------------------------

#: A secret check's numbers.
CHECK_SECRET = ("difficulty", "chance", "roll", "margin", "modifier_total", "difficulty_band")
OPPOSED_SECRET = (
    "actor_difficulty",
    "defender_difficulty",
    "actor_difficulty_band",
    "defender_difficulty_band",
    "actor_chance",
    "defender_chance",
    "actor_roll",
    "defender_roll",
    "actor_margin",
    "defender_margin",
)
#: An attack's dice and the target's numbers stay behind the GM's screen.
ATTACK_SECRET = (
    "accuracy",
    "evasion",
    "hit_chance",
    "roll",
    "dodge_chance",
    "dodge_roll",
    "crit_chance",
    "crit_roll",
    "range_percent",
    "steps",
    "confusion_roll",
)
EFFECT_SECRET = ("potency", "resistance", "gap")


def _side(prefix: str) -> tuple[str, ...]:
    return tuple(
        f"{prefix}_{n}"
        for n in (
            "skill",
            "difficulty",
            "difficulty_band",
            "chance",
            "roll",
            "margin",
            "band",
            "modifiers",
        )
    )


_CHARACTER = PlayerForm(about=("character",))
CheckRolled.PLAYER = PlayerForm(about=("character",), secret=CHECK_SECRET)
OpposedRolled.PLAYER = PlayerForm(
    about=("actor", "defender", "winner"),
    unseen={"actor": _side("actor"), "defender": _side("defender"), "winner": ()},
    secret=OPPOSED_SECRET,
)
AttackRolled.PLAYER = PlayerForm(
    about=("attacker", "target", "intended", "burst_of"),
    unseen={
        "attacker": ("weapon", "extra_attackers", "element", "source", "override"),
        "target": ("absorbed", "location", "vitals", "damage", "taken", "dodged"),
        "intended": (),
        "burst_of": (),
    },
    secret=ATTACK_SECRET,
)
EffectApplied.PLAYER = PlayerForm(
    about=("target", "source"),
    unseen={"source": ("reason",)},
    secret=EFFECT_SECRET,
)
for _kind in (EffectTicked, EffectRemoved, Moved, HealthChanged, SideSwitched):
    _kind.PLAYER = _CHARACTER
# a hidden participant's place and position are the GM's
EncounterStarted.PLAYER = PlayerForm(
    about=("order", "positions", "hidden"),
    unseen={"order": (), "positions": (), "hidden": ()},
)
# a place in the order counts hidden fighters
EncounterJoined.PLAYER = PlayerForm(about=("character",), private=("index",))
# whom a feared actor flees, and where margin sends it, would betray a hidden frightener
TurnStarted.PLAYER = PlayerForm(
    about=("actor", "flee_from"), unseen={"flee_from": ("flee_to",)}, private=("index",)
)
EncounterEnded.PLAYER = PlayerForm()
Traveled.PLAYER = PlayerForm()
