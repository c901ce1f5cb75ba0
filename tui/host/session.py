"""One hosted session: the screen a seat of ``margin host`` gets, in a process of its own.

``margin host`` starts ``python -m margin.tui.host.session TABLE SEAT [SHEETS|--plain]`` for every
SSH or browser session, with a fixed argument list and an environment it builds
itself. SEAT ``gm`` gets the GM's table screen, which reads sheet files only
inside the folder SHEETS (none without it); any other seat gets that
player's live view through the player lens, after a waiting screen while the
GM has not seated the character yet; ``--plain`` in place of SHEETS gives a player
the plain seat instead (``ssh -t HOST plain``). Nothing here writes a file or starts a
program: screenshots and links are refused, and a player's command palette
holds only a player's actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from textual import events
from textual.app import SystemCommand
from textual.screen import Screen
from textual.widgets import Input

from margin.core import RuleError
from margin.core.authority import Door, Seat
from margin.events import StoreError, short_name
from margin.tui.screens.app import PlayApp
from margin.tui.screens.base import TableApp
from margin.tui.screens.watch import WatchApp
from margin.tui.table import startup
from margin.tui.table.reader import LiveTable, View
from margin.tui.table.sheets import SheetFiles
from margin.tui.text.plain import plain_seat

from .commits import told

#: The seat name that gets the GM's table screen.
GM = "gm"


class Hosted(TableApp):
    """What every hosted session refuses: files on the host, programs on the host."""

    def deliver_screenshot(self, *args: Any, **kwargs: Any) -> str | None:
        self.notify("screenshots are off in a hosted session", severity="warning")
        return None

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.notify(f"links do not open in a hosted session: {url}", severity="warning")

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":
                yield command

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # A hosted line's cursor stays lit instead of blinking: each blink is a frame drawn
        # and sent over the network twice a second, from every seat whose line is open
        # (twenty seats drew more than all their records did).
        if isinstance(event.widget, Input):
            event.widget.cursor_blink = False

    #: whether an unexpected error has ended the session (said once, in one line)
    _ended = False

    def _fatal_error(self) -> None:
        # Textual's report of an unexpected error shows source lines, install paths and
        # local values (a table's state among them) to whoever holds the terminal: a
        # hosted seat gets one line instead. A second error on the way out (a timer that
        # fired again) adds nothing: Textual would print a note of it, naming its tools.
        if self._ended:
            return
        self._ended = True
        error = self._exception
        kind = type(error).__name__ if error is not None else "error"
        self.panic(f"margin: this session ended on an error margin did not expect ({kind})")


class HostedPlay(Hosted, PlayApp):
    """The GM's table screen, served by ``margin host``."""


class HostedWatch(Hosted, WatchApp):
    """A player's live view, served by ``margin host``; a waiting screen until seated."""


def _own_terminal() -> None:
    """Take the pseudo-terminal on standard input as this session's controlling terminal,
    so that a resize of the client's window reaches the screen as SIGWINCH."""
    if not os.isatty(0):
        return
    import fcntl
    import termios

    with contextlib.suppress(OSError):
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def session_app(path: str, seat: str, extra: str | None = None) -> TableApp:
    """The app for ``seat`` at the table ``path``; the GM's reads sheet files only inside
    the folder ``extra`` (none without it); a player's came in by the door ``extra`` names
    (``ssh SHA256:...``, ``web LINK``), and gives commands from that seat."""
    name = short_name(path)
    if seat == GM:
        table = LiveTable.open_live(path, readonly=False, lens=False, worker=True)
        folder = Path(extra) if extra is not None else None
        return HostedPlay(View(table), name, sheets=SheetFiles(True, folder, path))
    door, _, via = (extra or "ssh").partition(" ")
    table = LiveTable.open_live(path, readonly=False, lens=True, worker=True, player=seat)
    kind: Door = "web" if door == "web" else "ssh"
    return HostedWatch(table, seat, name, acts=Seat(seat, kind, via))


#: seconds a session has to end by itself once told to, before it is ended outright
STOP_GRACE = 3.0


def end_on_signals(exit_app: Callable[[], None]) -> None:
    """End the session when the host stops or the client goes away (SIGTERM, SIGHUP).

    It ends as the app ends on q, the terminal restored, not killed mid-frame;
    but a session whose screen is busy (waiting for a database that went
    away) would never get to that, and would outlive its host: after
    ``STOP_GRACE`` seconds the process ends regardless.
    """

    def stop(*_: Any) -> None:
        watchdog = threading.Timer(STOP_GRACE, os._exit, args=(0,))
        watchdog.daemon = True
        watchdog.start()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise SystemExit(0) from None
        loop.call_soon_threadsafe(exit_app)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (2, 3):
        sys.stderr.write("usage: python -m margin.tui.host.session TABLE SEAT [SHEETS|--plain]\n")
        return 2
    _own_terminal()
    if args[2:] == ["--plain"] and args[1] != GM:
        return plain_seat(args[0], args[1], door="ssh")
    startup.pause()
    try:
        app = session_app(*args)
    except (StoreError, RuleError) as exc:
        sys.stderr.write(f"margin: {exc}\r\n")
        return 1

    # the host tells the session of each commit through a pipe (``commits.py``)
    app.told = told(os.environ)
    end_on_signals(app.exit)
    try:
        app.run()
    finally:
        app.table.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
