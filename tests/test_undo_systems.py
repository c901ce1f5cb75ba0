"""Random play of d100-under and 2d6-effect: undoing a command restores the state before it,
redoing it restores the state after, and the replay at any record equals the state there
(as ``test_chance_replay`` and ``test_undo`` show for d100-chance and 2d10-edge)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import undo_redo_replay

from margin.core import get_system
from margin.core.commands import convert_command
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

UNDER = ("Kael", "Ada", "Rifleman", "Cultist")
EFFECT = ("Vex", "Mira", "Dock Boss", "Bartender")


def checks(
    names: tuple[str, ...], skills: list[str], field: str, values: list[str], **fixed: str
) -> st.SearchStrategy[dict[str, Any]]:
    """Checks by any of ``names`` with any of ``skills``, ``field`` one of ``values`` (left out
    when empty), and the ``fixed`` fields."""
    return st.builds(
        lambda who, skill, value: {
            "type": "check",
            "character": who,
            "skill": skill,
            **fixed,
            **({field: value} if value else {}),
        },
        st.sampled_from(names),
        st.sampled_from(skills),
        st.sampled_from(values),
    )


def opposed(names: tuple[str, ...], side: dict[str, str]) -> st.SearchStrategy[dict[str, Any]]:
    """Opposed checks between any two of ``names``, each side rolling ``side``."""
    return st.builds(
        lambda a, b: {
            "type": "opposed",
            "a": {"character": a, **side},
            "b": {"character": b, **side},
        },
        st.sampled_from(names),
        st.sampled_from(names),
    )


under_commands = st.one_of(
    checks(UNDER, ["Melee", "Revolver", "Library", "Security"], "attribute", ["", "AW", "BR"]),
    opposed(UNDER, {"attribute": "BR"}),
    st.just({"type": "start-track", "label": "the street"}),
    st.builds(
        lambda who, action: {"type": "act", "character": who, **action},
        st.sampled_from(UNDER),
        st.sampled_from(
            [{"action": "draw"}, {"action": "revolver"}, {"action": "spell", "cost": 3}]
        ),
    ),
    st.builds(
        lambda who: {"type": "change", "character": who, "action": "draw"}, st.sampled_from(UNDER)
    ),
    st.just({"type": "advance", "next": True}),
    st.builds(lambda n: {"type": "advance", "counts": n}, st.integers(1, 4)),
    st.builds(lambda who: {"type": "interrupt", "character": who}, st.sampled_from(UNDER)),
    st.just({"type": "end-track"}),
)

effect_commands = st.one_of(
    checks(
        EFFECT,
        ["Electronics", "Broker", "Persuade", "Pilot"],
        "task",
        ["", "the port computer", "the cargo door"],
        characteristic="INT",
    ),
    st.builds(
        lambda helper, who: {
            "type": "assist",
            "helper": helper,
            "character": who,
            "skill": "Electronics",
        },
        st.sampled_from(EFFECT),
        st.sampled_from(EFFECT),
    ),
    opposed(EFFECT, {"skill": "Electronics"}),
    st.builds(
        lambda task: {"type": "close-task", "task": task},
        st.sampled_from(["the port computer", "the cargo door"]),
    ),
)

SESSIONS = {
    "d100-under": (under_commands, {}),
    "2d6-effect": (effect_commands, {"opposed_checks": True}),
}


def _seat(table: Table, system: str) -> None:
    for command in get_system(system).demo:
        if command["type"] == "add-character":
            table.execute(convert_command(system, command))


def play(system: str, steps: list[dict[str, Any]], seed: int, undo_every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.create(Path(tmp) / "t.margin", system, options=SESSIONS[system][1])
        table.dice = RandomDice(seed)
        _seat(table, system)
        undo_redo_replay(table, steps, undo_every)
        table.close()


@pytest.mark.parametrize("system", sorted(SESSIONS))
def test_undo_redo_and_replay_restore_the_state(system: str) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        steps=st.lists(SESSIONS[system][0], min_size=4, max_size=20),
        seed=st.integers(0, 2**16),
        undo_every=st.integers(1, 3),
    )
    def session(steps: list[dict[str, Any]], seed: int, undo_every: int) -> None:
        play(system, steps, seed, undo_every)

    session()
