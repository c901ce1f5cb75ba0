"""Commits told: the host watches its table for commits, once, and tells every session.

A session's screen would otherwise ask the table whether anything was committed 50
times a second (``FOLLOW_INTERVAL``), and with twenty seats that asking is most of
what an idle host costs. Instead the host watches, and writes a byte to a pipe each
session's process was started with; the session's screen reads the pipe in its event
loop and follows the table at once.

The host watches a table file without asking it anything while nothing happens: the
kernel tells it of writes to the file and its write-ahead log (inotify), and only then
does it ask SQLite's ``data_version`` whether a commit is whole, a few milliseconds
apart for a moment. Without inotify it asks ``data_version`` a hundred times a second
in a thread of its own; a table in PostgreSQL is watched by its notifications, which
wait on the socket (the store's ``wait``).

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
from pathlib import Path

try:
    from inotify_simple import INotify, flags
except ImportError:  # not Linux: the host asks data_version instead
    INotify = flags = None

from margin.events import StoreError, is_url, open_store
from margin.events.store import Store

#: the environment variable that names a session's end of the pipe, and how often the
#: session looks for commits by itself: ``FD SECONDS``
ENV = "MARGIN_COMMITS"
#: seconds between a told session's own looks for commits (in case a notice is lost)
FALLBACK = 1.0
#: seconds the host's watch waits for a commit at a time before looking whether it stops
WAIT = 0.5
#: once the table's files are written: seconds between two looks whether a commit is
#: whole, and how many looks at most before the watch waits for the next write
LOOK = 0.005
LOOKS = 60


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
        #: the watch on the table file's folder, the table as it reads it, the version it
        #: last told of, the table's files by name, and its next look for a commit
        self._files: Files | None = None
        self._store: Store | None = None
        self._version = 0
        self._names: set[bytes] = set()
        self._looking: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Watch the table from now on (called in the host's event loop)."""
        self._loop = asyncio.get_running_loop()
        if not is_url(self.table) and self._watch_files():
            return
        try:
            # open here, so that every commit from now on is told; else the thread opens it
            store: Store | None = open_store(self.table, readonly=True)
        except StoreError:
            store = None
        self._thread = threading.Thread(
            target=self._watch, args=(store,), name="margin-commits", daemon=True
        )
        self._thread.start()

    def _watch_files(self) -> bool:
        """Watch the table file's folder by inotify; False when it cannot be watched so."""
        path = Path(self.table)
        files = Files.watch(path.parent)
        if files is None:
            return False
        try:
            self._store = open_store(self.table, readonly=True)
            self._version = self._store.data_version()
        except StoreError:
            files.close()
            return False
        self._files = files
        self._names = {os.fsencode(path.name + end) for end in ("", "-wal", "-journal")}
        assert self._loop is not None
        self._loop.add_reader(files.fd, self._written)
        return True

    def _written(self) -> None:
        """A file in the table's folder was written: if it is the table's, look for a commit."""
        assert self._files is not None
        if self._files.names() & self._names:
            if self._looking is not None:
                self._looking.cancel()
            self._look(LOOKS)

    def _look(self, left: int) -> None:
        """Tell the sessions once the table's ``data_version`` moves; look again ``LOOK``
        seconds on, ``left`` times more (a commit's log is written before it is whole)."""
        self._looking = None
        assert self._store is not None
        assert self._loop is not None
        try:
            version = self._store.data_version()
        except StoreError:
            version = -1  # unreadable this moment: the sessions' own looks will tell
        if version != self._version:
            self._version = version
            self.tell()
        elif left > 0:
            self._looking = self._loop.call_later(LOOK, self._look, left - 1)

    def _watch(self, store: Store | None) -> None:
        """Wait for commits to the table (``store``, as ``start`` opened it, or None); tell
        the sessions of each, on the host's loop."""
        loop = self._loop
        assert loop is not None
        while not self._stopping.is_set():
            try:
                if store is None:
                    store = open_store(self.table, readonly=True)
                if store.wait(WAIT):
                    loop.call_soon_threadsafe(self.tell)
            except (StoreError, OSError):
                # the table cannot be read this moment (a database restarting): the
                # sessions look by themselves meanwhile, and the watch opens it again
                _close_quietly(store)
                store = None
                self._stopping.wait(self.fallback)
            except RuntimeError:  # the host's loop has closed: the host is gone
                break
        _close_quietly(store)

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
        files, self._files = self._files, None
        if files is not None:
            self._unwatch(files)
        for fd in list(self.pipes):
            self.forget(fd)

    def _unwatch(self, files: Files) -> None:
        """Stop watching the table's folder (``files``) and reading its version."""
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(Exception):
                self._loop.remove_reader(files.fd)
        if self._looking is not None:
            self._looking.cancel()
        files.close()
        _close_quietly(self._store)
        self._store = None


def _close_quietly(store: Store | None) -> None:
    """Close ``store``, if there is one; failing to close it changes nothing now."""
    if store is not None:
        with contextlib.suppress(Exception):
            store.close()


#: inotify's events margin watches a folder for: a file written, closed after writing,
#: made, or moved in
_WRITTEN = (
    (flags.MODIFY | flags.CLOSE_WRITE | flags.CREATE | flags.MOVED_TO) if flags is not None else 0
)


class Files:
    """The kernel's word (inotify, through ``inotify_simple``) of the files written in one
    folder."""

    def __init__(self, notify: INotify) -> None:
        self.notify = notify
        self.fd = notify.fileno()

    @classmethod
    def watch(cls, folder: Path) -> Files | None:
        """A watch on ``folder``; None where the system gives none (not Linux, no room)."""
        if INotify is None:
            return None
        try:
            notify = INotify(nonblocking=True)
        except OSError:
            return None
        try:
            notify.add_watch(folder, _WRITTEN)
        except OSError:
            notify.close()
            return None
        return cls(notify)

    def names(self) -> set[bytes]:
        """The names of the files written since the last call."""
        try:
            return {os.fsencode(event.name) for event in self.notify.read(timeout=0)}
        except OSError:
            return set()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.notify.close()


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
