"""The random source: a generator seeded from the operating system's CSPRNG."""

from __future__ import annotations

import random
import secrets


class RandomDice:
    """Dice rolled by margin. Only the faces are recorded, never the seed."""

    source = "rng"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(secrets.randbits(256) if seed is None else seed)

    def roll(self, sides: int, count: int = 1) -> list[int]:
        return [self._rng.randint(1, sides) for _ in range(count)]
