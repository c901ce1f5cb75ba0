"""Commits told: the host watches its table for commits, once, and tells every session.

A session's screen would otherwise ask the table whether anything was committed 50
times a second (``FOLLOW_INTERVAL``), and with twenty seats that asking is most of
what an idle host costs. Instead the host asks (SQLite's ``data_version`` in a thread
of its own, or PostgreSQL's notifications, which wait on the socket: the store's
``wait``) and writes a byte to a pipe each session's process was started with; the
session's screen reads the pipe in its event loop and follows the table at once.

A notice is a hint, never the only way: the byte is dropped when the pipe is full (a
notice already waits there, which tells the same), and a session still looks for
itself every ``FALLBACK`` seconds, so nothing is missed if a notice never comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading

from margin.events import StoreError, open_store

#: the environment variable that names a session's end of the pipe, and how often the
#: session looks for commits by itself: ``FD SECONDS``
ENV = "MARGIN_COMMITS"
#: seconds between a told session's own looks for commits (in case a notice is lost)
FALLBACK = 1.0
#: seconds the host's watch waits for a commit at a time before looking whether it stops
WAIT = 0.5


class Commits:
    """The host's watch on its table, and the pipes that tell each session of a commit."""

    def __init__(self, table: str, fallback: float = FALLBACK) -> None:
        self.table = table
        self.fallback = fallback
        #: the host's end of every session's pipe
        self.pipes: set[int] = set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        """Watch the table from now on (called in the host's event loop)."""
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._watch, name="margin-commits", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        """Wait for commits to the table; tell the sessions of each, on the host's loop."""
        loop = self._loop
        assert loop is not None
        store = None
        while not self._stopping.is_set():
            try:
                if store is None:
                    store = open_store(self.table, readonly=True)
                if store.wait(WAIT):
                    loop.call_soon_threadsafe(self.tell)
            except (StoreError, OSError):
                # the table cannot be read this moment (a database restarting): the
                # sessions look by themselves meanwhile, and the watch opens it again
                if store is not None:
                    with contextlib.suppress(Exception):
                        store.close()
                store = None
                self._stopping.wait(self.fallback)
            except RuntimeError:  # the host's loop has closed: the host is gone
                break
        if store is not None:
            with contextlib.suppress(Exception):
                store.close()

    def pipe(self) -> tuple[int, int]:
        """A new pipe for a session: the end its process is started with (the caller closes
        it once the process has it), and the host's end (``forget`` it once the session is
        over)."""
        read, write = os.pipe()
        os.set_blocking(write, False)
        self.pipes.add(write)
        return read, write

    def env(self, read: int) -> dict[str, str]:
        """The environment entry that tells a session of its end of the pipe."""
        return {ENV: f"{read} {self.fallback:g}"}

    def tell(self) -> None:
        """Tell every session that the table has a commit."""
        for fd in list(self.pipes):
            try:
                os.write(fd, b"\n")
            except BlockingIOError:
                pass  # a notice already waits unread: it tells the same
            except OSError:  # the session is gone
                self.forget(fd)

    def forget(self, fd: int) -> None:
        """A session is over: close the host's end of its pipe."""
        if fd in self.pipes:
            self.pipes.discard(fd)
            with contextlib.suppress(OSError):
                os.close(fd)

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(WAIT + 5)
        for fd in list(self.pipes):
            self.forget(fd)


def told(environ: dict[str, str] | os._Environ[str]) -> tuple[int, float] | None:
    """A session's end of the host's pipe and the seconds between its own looks for
    commits, from its environment (``ENV``); None when it has none (or one that is not a
    pipe it holds open), and the session asks the table as an unhosted screen does."""
    words = environ.get(ENV, "").split()
    if len(words) != 2:
        return None
    try:
        fd, every = int(words[0]), float(words[1])
    except ValueError:
        return None
    if fd < 3 or not 0 < every <= 3600:
        return None
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
    except OSError:
        return None
    os.set_blocking(fd, False)
    return fd, every
