"""Events of the under dice system."""

from __future__ import annotations

from .base import Event

EVENTS: tuple[type[Event], ...] = ()
