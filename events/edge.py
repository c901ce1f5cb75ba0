"""Events of the edge dice system."""

from __future__ import annotations

from .base import Event

EVENTS: tuple[type[Event], ...] = ()
