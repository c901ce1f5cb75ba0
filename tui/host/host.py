"""``margin host``: a table served to its seats over SSH and, with ``--web``, over HTTP.

``Host`` listens by both doors (``ssh.py``, ``web.py``), counts every session either
door starts against ``Limits``, ends those that hold too much memory, and ends them all
when it stops. It watches the table for commits once and tells every session of each
(``commits.py``), so that no session has to keep asking.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from margin.events import short_name
from margin.tui.table.keys import data_dir
from margin.tui.table.notices import post

from .commits import FALLBACK, Commits
from .limits import Limits
from .session import GM
from .ssh import STOP_GRACE, SeatServer, Session, host_key, resident
from .web import start_web

#: Seconds between two looks at how much memory each session holds.
MEMORY_INTERVAL = 1.0


@dataclass
class Host:
    """A table served to the seats of a KEYS file."""

    #: a table file's full path, or a URL
    table: str
    seats: dict[bytes, str]
    ssh: tuple[str, int]
    web: tuple[str, int] | None = None
    say: Callable[[str], None] = print
    key_dir: Path = field(default_factory=data_dir)
    limits: Limits = field(default_factory=Limits)
    #: the folder the GM's seat reads sheet files from (None: it reads none)
    sheets: Path | None = None
    #: seconds between a session's own looks for commits, besides the host's notices
    fallback: float = FALLBACK
    #: what tells every session of a commit, once the host has started
    commits: Commits | None = None
    #: every session whose process runs, by either door
    sessions: set[Session] = field(default_factory=set)
    connections: set[SeatServer] = field(default_factory=set)
    tokens: dict[str, str] = field(default_factory=dict)
    servers: list[Any] = field(default_factory=list)
    door: Any = None
    watchdog: asyncio.Task[None] | None = None

    async def start(self) -> None:
        key = host_key(self.key_dir)
        self.commits = Commits(self.table, self.fallback)
        self.commits.start()
        acceptor = await asyncssh.create_server(
            lambda: SeatServer(self),
            self.ssh[0],
            self.ssh[1],
            server_host_keys=[key],
            config=None,
            encoding=None,
            allow_pty=True,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            password_auth=False,
            kbdint_auth=False,
            login_timeout=30,
            keepalive_interval=30,
        )
        self.servers.append(acceptor)
        port = acceptor.sockets[0].getsockname()[1]
        self.ssh = (self.ssh[0], port)
        self.say(
            f"ssh {self.ssh[0]}:{port} host key {key.get_fingerprint()} ({key.algorithm.decode()})"
        )
        self.say(f"ssh join: ssh -t -p {port} {self.ssh[0]}")
        if self.web is not None:
            self.door, runner, url = await start_web(self)
            self.servers.append(runner)
            for token, seat in self.tokens.items():
                self.say(f"web {seat} {url}/seat/{token}")
        self.watchdog = asyncio.ensure_future(self.watch_memory())

    def seat_names(self) -> list[str]:
        return sorted(set(self.seats.values()), key=lambda s: (s != GM, s.lower()))

    def new_tokens(self) -> None:
        self.tokens = {secrets.token_urlsafe(32): seat for seat in self.seat_names()}

    def admit(self, seat: str, door: str) -> str | None:
        """None if a new session of ``seat`` may start, else the line its client gets.

        The caller adds the session to ``sessions`` at once, before anything is
        awaited, so two clients asking together cannot both take the last place.
        """
        mine = sum(1 for session in self.sessions if session.seat == seat)
        if len(self.sessions) >= self.limits.sessions:
            why = f"the host has {len(self.sessions)} sessions open, as many as it serves"
            return self.refuse(seat, door, why, "--sessions")
        if mine >= self.limits.per_seat:
            return self.refuse(seat, door, f"{seat} has {mine} sessions open already", "--per-seat")
        return None

    def refuse(self, seat: str, door: str, why: str, option: str) -> str:
        """Say who was refused and why (with the option that sets the limit); the client's line."""
        self.say(f"refused {seat} over {door}: {why} ({option})")
        post(self.table, f"host refused {seat}: {why} ({option})")
        return f"margin: {why}; close one and try again"

    async def watch_memory(self) -> None:
        """End every session that holds more memory than ``limits.memory``, saying so."""
        limit = self.limits.memory * 2**20
        ending: set[Session] = set()
        while True:
            await asyncio.sleep(MEMORY_INTERVAL)
            ending &= self.sessions
            for session in self.sessions - ending:
                pid = session.pid
                used = resident(pid) if pid is not None else None
                if used is None or used <= limit:
                    continue
                ending.add(session)
                mib = used // 2**20
                line = (
                    f"ended a session of {session.seat}: it held {mib} MiB,"
                    f" more than {self.limits.memory} MiB (--memory)"
                )
                self.say(line)
                post(self.table, f"host {line}")
                notice = (
                    f"margin: your session held {mib} MiB of memory, more than the host allows"
                    f" ({self.limits.memory} MiB); it was ended"
                )
                asyncio.ensure_future(session.close(notice, 1))

    async def stop(self) -> None:
        """Stop listening, then end every session cleanly (all at once)."""
        if self.watchdog is not None:
            self.watchdog.cancel()
        for server in self.servers:
            if isinstance(server, asyncssh.SSHAcceptor):
                server.close()
        await asyncio.gather(*(s.close() for s in list(self.sessions)))
        await self._disconnect()
        for server in self.servers:
            await _closed(server)
        if self.commits is not None:
            await asyncio.to_thread(self.commits.stop)

    async def _disconnect(self) -> None:
        """Clients leave by themselves once their session has ended (and ssh has its
        exit status); what is still connected after a moment is closed."""
        closing = asyncio.gather(*(c.conn.wait_closed() for c in list(self.connections)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(closing), 1.0)
        for connection in list(self.connections):
            connection.conn.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(closing, STOP_GRACE)


async def _closed(server: Any) -> None:
    """A door's server closed: an SSH acceptor, or the web door's runner."""
    if isinstance(server, asyncssh.SSHAcceptor):
        await server.wait_closed()
    else:
        await server.cleanup()


async def serve(host: Host) -> None:
    """Run ``host`` until SIGINT or SIGTERM."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    if host.web is not None:
        host.new_tokens()
    await host.start()
    host.say(f"hosting {short_name(host.table)}; Ctrl+C stops")
    await stop.wait()
    host.say("stopping: ending every session")
    await host.stop()
