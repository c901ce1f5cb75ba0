"""One hosted session: the screen a seat of ``margin host`` gets, in a process of its own.

``margin host`` starts ``python -m margin.tui.host.session TABLE SEAT [SHEETS]`` for every
SSH or browser session, with a fixed argument list and an environment it builds
itself. SEAT ``gm`` gets the GM's table screen, which reads sheet files only
inside the folder SHEETS (none without it); any other seat gets that
player's live view through the player lens, after a waiting screen while the
GM has not seated the character yet. Nothing here writes a file or starts a
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

from rich.text import Text
from textual import events
from textual.app import SystemCommand
from textual.screen import Screen
from textual.widgets import Footer, Static

from margin.core import RuleError
from margin.core.authority import Door, Seat
from margin.events import StoreError, short_name
from margin.tui.screens.app import PlayApp, TableApp, WatchApp
from margin.tui.table.reader import LiveTable, View, player_id
from margin.tui.table.sheets import SheetFiles

#: The seat name that gets the GM's table screen.
GM = "gm"
#: How often a waiting player's session looks whether the character is seated.
SEAT_INTERVAL = 0.1


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

    def _fatal_error(self) -> None:
        # Textual's report of an unexpected error shows source lines, install paths and
        # local values (a table's state among them) to whoever holds the terminal: a
        # hosted seat gets one line instead.
        error = self._exception
        kind = type(error).__name__ if error is not None else "error"
        self.panic(f"margin: this session ended on an error margin did not expect ({kind})")


class HostedPlay(Hosted, PlayApp):
    """The GM's table screen, served by ``margin host``."""


class HostedWatch(Hosted, WatchApp):
    """A player's live view, served by ``margin host``; a waiting screen until seated.

    Until the character is seated there is no ``View`` at all, so nothing of the
    table but its title is drawn: the view is made only for the seated player,
    through the lens.
    """

    def __init__(self, table: LiveTable, seat: str, name: str, acts: Seat | None = None) -> None:
        # Fail closed: no view until the player's lens can be made.
        super().__init__(None, name, seat=acts)  # type: ignore[arg-type]
        self.table = table
        self.seat_name = seat

    def compose(self) -> Any:
        if self.view is None:
            yield Static(self.waiting_text(), id="waiting")
            yield Footer()
        else:
            yield from super().compose()

    def waiting_text(self) -> Text:
        with self.table.lock:
            title = self.table.state.title or self.table_name
        text = Text()
        text.append(" margin ", style="bold reverse")
        text.append(f" {title}\n\n", style="bold")
        text.append(f"Waiting for the GM to seat {self.seat_name}.\n", style="bold cyan")
        text.append("Your view opens here as soon as you are at the table; q quits.", style="dim")
        return text

    def on_mount(self, event: events.Mount | None = None) -> None:
        # Textual calls every class's on_mount: the table's panels are not there yet.
        if event is not None:
            event.prevent_default()
        self.waiting = self.set_interval(SEAT_INTERVAL, self.look_for_seat)
        self.call_later(self.seated)

    def look_for_seat(self) -> None:
        """Fold what the GM appended (in a worker), then look for the seat's character."""
        if self.view is not None or self.busy:
            return
        try:
            changed = self.table.changed()
        except StoreError:
            return
        if changed:
            self.submit(self.table.catch_up, lambda _new, _error: self.seated())

    def seated(self) -> None:
        """Open the player's view once their character is at the table."""
        if self.view is not None:
            return
        try:
            with self.table.lock:
                player = player_id(self.table.state, self.seat_name)
        except RuleError:
            return
        self.waiting.stop()
        self.view = View(self.table, player)
        # Outside the timer's callback: stopping the timer cancels that.
        self.call_later(self.open_view)

    async def open_view(self) -> None:
        # A recompose redraws the screen on top: the view replaces the waiting screen, so
        # the command palette (or anything else open over it) closes first.
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        await self.recompose()
        WatchApp.on_mount(self)

    def follow(self) -> None:
        if self.view is not None:
            super().follow()

    def action_help(self) -> None:
        if self.view is not None:
            super().action_help()

    def action_rules(self) -> None:
        if self.view is not None:
            super().action_rules()


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
    return HostedWatch(table, seat, name, Seat(seat, kind, via))


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
        sys.stderr.write("usage: python -m margin.tui.host.session TABLE SEAT [SHEETS]\n")
        return 2
    _own_terminal()
    try:
        app = session_app(*args)
    except (StoreError, RuleError) as exc:
        sys.stderr.write(f"margin: {exc}\r\n")
        return 1

    end_on_signals(app.exit)
    try:
        app.run()
    finally:
        table = app.table if isinstance(app, HostedWatch) else app.view.table
        table.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
