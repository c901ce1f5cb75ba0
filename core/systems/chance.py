"""The d100-chance dice system."""

from __future__ import annotations

from .base import System

SYSTEM = System(
    id="d100-chance",
    title="d100-chance",
    summary="d100 against a chance from proficiency and difficulty, secret by default",
)
