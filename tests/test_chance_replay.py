"""Random fights: every command undone and redone restores the state exactly, and the
replay at any record equals the state the table had there."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import undo_redo_replay

from margin.core.commands import convert_command
from margin.core.systems.chance.state import EFFECTS
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SYSTEM = "d100-chance"
NAMES = ("ana", "bo", "cy")


def sheet(dex: int) -> dict[str, Any]:
    return {
        "hp": 40,
        "stats": {"str": 8, "dex": dex},
        "speed": 20,
        "speed_bonus": 5,
        "crit_chance": 25,
        "armor": {"torso": 30},
        "status_resistance": 10,
        "weapons": {"claw": {"type": "melee", "base": 9, "range": 10, "profile": "volatile",
                             "effect": "bleeding", "potency": 35}},
    }  # fmt: skip


commands = st.lists(
    st.one_of(
        st.just({"type": "next"}),
        st.just({"type": "next"}),
        st.builds(
            lambda a, t, pos, o: {"type": "attack", "attacker": a, "target": t, "position": pos,
                                  "override": o},
            st.sampled_from(NAMES), st.sampled_from(NAMES),
            st.sampled_from(["front", "side", "rear"]), st.booleans(),
        ),
        st.builds(
            lambda t, e, p: {"type": "effect", "target": t, "effect": e, "potency": p},
            st.sampled_from(NAMES), st.sampled_from(list(EFFECTS)), st.integers(0, 80),
        ),
        st.builds(
            lambda c, x, y: {"type": "move", "character": c, "to": [x, y]},
            st.sampled_from(NAMES), st.integers(-10, 10), st.integers(-10, 10),
        ),
        st.builds(lambda c: {"type": "bandage", "character": c}, st.sampled_from(NAMES)),
    ),
    min_size=5,
    max_size=30,
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=commands, seed=st.integers(0, 2**16), undo_every=st.integers(1, 3))
def test_undo_redo_and_replay_restore_the_state(
    steps: list[dict[str, Any]], seed: int, undo_every: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        table = Table.create(Path(tmp) / "r.margin", SYSTEM)
        table.dice = RandomDice(seed)
        for i, name in enumerate(NAMES):
            table.execute(convert_command(SYSTEM, {"type": "add-character", "name": name,
                                                   "sheet": sheet(8 + 4 * i)}))  # fmt: skip
        table.execute(convert_command(SYSTEM, {
            "type": "encounter", "order": list(NAMES),
            "positions": {"ana": [0, 0], "bo": [5, 0], "cy": [5, 5]}}))  # fmt: skip
        undo_redo_replay(table, [*steps, {"type": "next"}], undo_every)
        table.close()
