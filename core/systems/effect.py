"""The 2d6-effect dice system."""

from __future__ import annotations

from .base import System

SYSTEM = System(
    id="2d6-effect",
    title="2d6-effect",
    summary="2D6 + DMs against 8, Effect bands, assistance and a difficulty ladder",
)
