"""Every event type has a fold step: its system's, or the table's own (undo, redo and a
branch's first record declare theirs a step that changes nothing)."""

from __future__ import annotations

from margin.core import SYSTEMS
from margin.core.decider import HANDLERS
from margin.events import ALL_EVENTS
from margin.events import table as table_events
from margin.events.systems import SYSTEM_EVENTS


def test_every_event_type_has_a_fold_step() -> None:
    # a system's steps are added as the system is imported: listing the systems imports all
    assert len(list(SYSTEMS.values())) == len(SYSTEM_EVENTS)
    missing = [kind.__name__ for kind in ALL_EVENTS if kind not in HANDLERS]
    assert missing == []


def test_each_system_folds_its_own_events_and_only_those() -> None:
    for system in SYSTEMS.values():
        own = set(SYSTEM_EVENTS[system.package.rsplit(".", 1)[1]])
        assert set(system.handlers) == own, system.id


def test_the_tables_own_events_are_folded_by_the_core() -> None:
    for kind in table_events.EVENTS:
        assert kind in HANDLERS
        assert not any(kind in s.handlers for s in SYSTEMS.values())
