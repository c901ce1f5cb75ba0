"""The 2d10-edge dice system."""

from __future__ import annotations

from .base import System

SYSTEM = System(
    id="2d10-edge",
    title="2d10-edge",
    summary="2d10 + skill bonus against a Target Number, with Advantage, Edge and armor",
)
