"""The d100-under dice system."""

from __future__ import annotations

from .base import System

SYSTEM = System(
    id="d100-under",
    title="d100-under",
    summary="d100 under a target from a rating, with a timing track of counts",
)
