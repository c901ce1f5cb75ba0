"""Log lines say a sum as a person writes it: a negative term is subtracted."""

from __future__ import annotations

from margin.core import get_system
from margin.core.systems.shared_face import plus, sums


def test_a_negative_term_is_subtracted() -> None:
    assert sums("16 + -1 = 15") == "16 - 1 = 15"
    assert sums("16 + 1 = 17") == "16 + 1 = 17"
    assert plus(-2) == "- 2"
    assert plus(3) == "+ 3"


def test_a_damage_breakdown_with_a_negative_scaling() -> None:
    # a step as tables written so far keep it in the event
    line = get_system("d100-chance").describe(
        {
            "type": "chance.attack",
            "attacker": "Brakk",
            "target": "Rook",
            "hit": True,
            "location": "torso",
            "damage": 15,
            "steps": [["base", "16 + -1 = 15"], ["final", "rounded half up, at least 1 = 15"]],
        }
    )
    assert line is not None
    assert "base 16 - 1 = 15" in line
    assert "+ -" not in line


def test_an_initiative_with_a_negative_bonus() -> None:
    line = get_system("2d10-edge").describe(
        {"type": "edge.joined", "character": "Guard", "faces": 7, "bonus": -1, "initiative": 6}
    )
    assert line is not None
    assert "initiative 7 - 1 = 6" in line
