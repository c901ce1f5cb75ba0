"""A screen's process starts with Python's cycle collector paused, until its first frame.

Starting a screen builds some hundreds of thousands of objects that live as long as the
process (modules, classes, Textual's styles, the table's state), and the collector, run
every few hundred allocations, walks them again and again on the way: about 30 ms of a
first frame's 0.5 s of processor time. ``pause`` stops it as a screen command begins, and
the screen calls ``resume`` once it has drawn its first frame: what was built by then is
frozen (``gc.freeze``: left out of every later collection, which then walks only what the
session adds) and the collector runs again. A process that paused nothing resumes nothing,
so screens run under tests keep the collector as it was.

``collector_paused`` stops it over one stretch of such work, inside a screen or not.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_paused = False


def pause() -> None:
    """Stop the collector until ``resume`` (nothing if it is already stopped)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what was built since ``pause`` and run the collector again."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector stopped while a stretch of work (a fold, a snapshot decoded, an
    import) builds objects that stay alive, and started again after it, if it ran before."""
    collect = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.enable()
