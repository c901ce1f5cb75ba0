"""Events of the chance dice system."""

from __future__ import annotations

from .base import Event

EVENTS: tuple[type[Event], ...] = ()
