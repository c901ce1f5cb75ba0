"""``margin host``: a table served to its seats over SSH and, with ``--web``, over HTTP.

Every session is a process of its own (``python -m margin.tui.session TABLE SEAT``)
with an argument list and an environment built here: the seat comes from the
key (SSH) or the link (web), never from what a client asks for. A client's
command, subsystem (sftp, scp), environment variables, port, agent and X11
forwarding reach nothing. SSH sessions run on a pseudo-terminal that follows
the client's window; web sessions speak textual-serve's protocol to the
browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import secrets
import signal
import struct
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from margin.events import display_name, is_url, short_name
from margin.events.postgres import url_password

from .keys import data_dir
from .session import GM

#: Seconds a session's process gets to leave its screen tidy before it is killed.
STOP_GRACE = 3.0
#: A terminal type passed on to a session: the client's, when it looks like one.
_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
#: Put back what a killed screen leaves behind: main screen, cursor, no mouse, no paste mode.
TERMINAL_RESET = (
    b"\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[0m\r\n"
)
NO_PTY = "margin: this table needs a terminal: use ssh -t"
NO_COMMAND = "margin: this table runs no commands; connect with ssh -t and no command"


class HostError(Exception):
    """A bad ``margin host`` argument or KEYS file; printed as one line."""


# -- arguments --------------------------------------------------------------


def parse_address(text: str, option: str) -> tuple[str, int]:
    """``[ADDR:]PORT`` as (address, port); the address defaults to 127.0.0.1."""
    addr, _, port = text.rpartition(":")
    addr = addr.strip("[]") or "127.0.0.1"
    if not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        raise HostError(f"{option} {text!r}: expected [ADDR:]PORT with PORT 0-65535")
    return addr, int(port)


def parse_keys(text: str, source: str) -> dict[bytes, str]:
    """A KEYS file (``NAME KEYTYPE BASE64 [comment]`` a line) as {public key blob: seat}."""
    seats: dict[bytes, str] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if len(words) < 3:
            raise HostError(f"{source}:{lineno}: expected NAME KEYTYPE BASE64 [comment]")
        name, keytype, blob = words[:3]
        try:
            key = asyncssh.import_public_key(f"{keytype} {blob}")
        except (asyncssh.KeyImportError, ValueError) as exc:
            raise HostError(f"{source}:{lineno}: {name}: not an SSH public key ({exc})") from None
        data = key.public_data
        if data in seats:
            raise HostError(
                f"{source}:{lineno}: {name}: the same key is already {seats[data]}'s"
                " (one key, one seat)"
            )
        seats[data] = GM if name.lower() == GM else name
    if not seats:
        raise HostError(f"{source}: no keys (one a line: NAME KEYTYPE BASE64 [comment])")
    return seats


def host_key(folder: Path) -> asyncssh.SSHKey:
    """The host's SSH key, made the first time and kept (owner-only) in ``folder``."""
    path = folder / "host_key"
    if path.exists():
        return asyncssh.read_private_key(path)
    folder.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.export_private_key())
    return key


def session_argv(table: str, seat: str) -> list[str]:
    """The one command a session runs: the seat's screen of this table.

    A table URL goes without its password, which would show in process lists;
    ``session_env`` carries it.
    """
    return [sys.executable, "-P", "-m", "margin.tui.session", display_name(table), seat]


#: What a session of a table in PostgreSQL takes from the host's own environment:
#: how libpq finds the server's password and certificates (never the client's).
DATABASE_ENV = ("PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "PGSSLMODE", "PGSSLROOTCERT")


def session_env(term: str | None = None, table: str = "") -> dict[str, str]:
    """A session's whole environment: nothing of the host's or the client's but a sane TERM,
    and where the host's margin keeps its data, so a GM's session signs with the host's key.

    For a table in PostgreSQL the host's ``DATABASE_ENV`` passes too, and its
    ``~/.pgpass`` as ``PGPASSFILE``: sessions have no home folder.
    """
    env = {
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_DATA_HOME": str(data_dir().parent),
    }
    if term is not None:
        env["TERM"] = term if _TERM.fullmatch(term) else "xterm-256color"
    if is_url(table):
        env.update({name: os.environ[name] for name in DATABASE_ENV if name in os.environ})
        pgpass = Path.home() / ".pgpass"
        if "PGPASSFILE" not in env and pgpass.is_file():
            env["PGPASSFILE"] = str(pgpass)
        password = url_password(table)
        if password is not None:
            env["PGPASSWORD"] = password
    return env


# -- a process on a pseudo-terminal ------------------------------------------


class PtyProcess:
    """A session's process on a pseudo-terminal, and the bytes between it and a client."""

    def __init__(self, output: Callable[[bytes], None], ended: Callable[[int], None]) -> None:
        self.output = output
        self.ended = ended
        self.master = -1
        self.process: asyncio.subprocess.Process | None = None
        self.pending = bytearray()
        self.paused = False
        self.closed = False

    async def start(self, argv: list[str], env: dict[str, str], cols: int, rows: int) -> None:
        master, slave = os.openpty()
        self.master = master
        self.resize(cols, rows)
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                cwd="/",
                start_new_session=True,
            )
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._readable)

    def resize(self, cols: int, rows: int) -> None:
        if self.master < 0 or self.closed:
            return
        size = struct.pack("HHHH", max(rows, 1), max(cols, 1), 0, 0)
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, size)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the process and its terminal are gone
            data = b""
        if data:
            self.output(data)
        else:
            asyncio.ensure_future(self._finish())

    async def _finish(self) -> None:
        if self.closed:
            return
        self._close_master()
        code = await self.process.wait() if self.process else 1
        self.ended(code)

    def _close_master(self) -> None:
        if self.closed:
            return
        self.closed = True
        loop = asyncio.get_running_loop()
        loop.remove_reader(self.master)
        loop.remove_writer(self.master)
        os.close(self.master)

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        self.pending.extend(data)
        self._flush()

    def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            sent = os.write(self.master, self.pending) if self.pending else 0
        except BlockingIOError:
            sent = 0
        except OSError:
            self.pending.clear()
            return
        del self.pending[:sent]
        if self.pending:
            loop.add_writer(self.master, self._flush)
        else:
            loop.remove_writer(self.master)

    def pause(self, paused: bool) -> None:
        """Stop reading while the client is slow; the session's writes then wait."""
        if self.closed or paused == self.paused:
            return
        self.paused = paused
        loop = asyncio.get_running_loop()
        if paused:
            loop.remove_reader(self.master)
        else:
            loop.add_reader(self.master, self._readable)

    async def stop(self) -> bool:
        """End the process: asked first, killed after ``STOP_GRACE``; True if it was killed."""
        process = self.process
        if process is None or process.returncode is not None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE)
            return False
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            return True


# -- the SSH door -------------------------------------------------------------


class SeatSession(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: the seat's screen on a pseudo-terminal, or one line and goodbye."""

    def __init__(self, host: Host, seat: str, peer: str) -> None:
        self.host = host
        self.seat = seat
        self.peer = peer
        self.chan: Any = None
        self.term: str | None = None
        self.size = (80, 24)
        self.refusal: str | None = None
        self.pty: PtyProcess | None = None
        self.stopping = False
        self.finished = asyncio.Event()

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], _: Any) -> bool:
        self.term = term_type
        self.size = (term_size[0] or 80, term_size[1] or 24)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.refusal = NO_COMMAND
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        if self.refusal is None and self.term is None:
            self.refusal = NO_PTY
        if self.refusal is not None:
            self.chan.write(self.refusal.encode() + b"\r\n")
            self.chan.exit(1)
            return
        self.pty = PtyProcess(self._send, self._ended)
        self.host.sessions.add(self)
        asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        assert self.pty is not None
        try:
            await self.pty.start(
                session_argv(self.host.table, self.seat),
                session_env(self.term, self.host.table),
                *self.size,
            )
        except OSError as exc:
            self.host.say(f"{self.seat}: could not start the session ({exc})")
            self.chan.write(b"margin: the host could not start your session\r\n")
            self.chan.exit(1)

    def _send(self, data: bytes) -> None:
        # The client may be gone while the screen still writes its goodbye.
        with contextlib.suppress(OSError, asyncssh.Error):
            self.chan.write(data)

    def _ended(self, code: int) -> None:
        self.host.sessions.discard(self)
        self.finished.set()
        if not self.stopping:
            with contextlib.suppress(OSError, asyncssh.Error):
                self.chan.exit(code)

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.pty is not None:
            self.pty.write(data)

    def terminal_size_changed(self, width: int, height: int, pw: int, ph: int) -> None:
        self.size = (width or 80, height or 24)
        if self.pty is not None:
            self.pty.resize(*self.size)

    def pause_writing(self) -> None:
        if self.pty is not None:
            self.pty.pause(True)

    def resume_writing(self) -> None:
        if self.pty is not None:
            self.pty.pause(False)

    def connection_lost(self, exc: Exception | None) -> None:
        self.host.sessions.discard(self)
        if self.pty is not None:
            asyncio.ensure_future(self.pty.stop())

    async def close(self) -> None:
        """The host is stopping: end the screen, tidy the client's terminal, say so."""
        if self.pty is None:
            return
        self.stopping = True
        killed = await self.pty.stop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.finished.wait(), STOP_GRACE)
        with contextlib.suppress(OSError, asyncssh.Error):
            if killed:
                self.chan.write(TERMINAL_RESET)
            self.chan.write(b"margin: the host stopped\r\n")
            self.chan.exit(0)


class SeatServer(asyncssh.SSHServer):
    """One SSH connection: the key decides the seat; nothing else is allowed."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.seat: str | None = None
        self.peer = "?"
        self.offered: str | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.peer = f"{peer[0]}:{peer[1]}"
        self.conn = conn
        self.host.connections.add(self)

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # asyncssh asks once more with the signed request, so the last key asked
        # about before auth_completed is the one the client proved it holds.
        self.offered = self.host.seats.get(key.public_data)
        if self.offered is None:
            self.host.say(f"refused a key from {self.peer} ({key.get_fingerprint()})")
        return self.offered is not None

    def auth_completed(self) -> None:
        self.seat = self.offered
        self.host.say(f"{self.seat} connected over ssh from {self.peer}")

    def connection_lost(self, exc: Exception | None) -> None:
        self.host.connections.discard(self)
        if self.seat is not None:
            self.host.say(f"{self.seat} left (ssh {self.peer})")

    def session_requested(self) -> SeatSession | bool:
        if self.seat is None:
            return False
        return SeatSession(self.host, self.seat, self.peer)


# -- the host -------------------------------------------------------------------


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
    sessions: set[SeatSession] = field(default_factory=set)
    connections: set[SeatServer] = field(default_factory=set)
    tokens: dict[str, str] = field(default_factory=dict)
    servers: list[Any] = field(default_factory=list)
    door: Any = None

    async def start(self) -> None:
        key = host_key(self.key_dir)
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
            from .web import start_web

            self.door, runner, url = await start_web(self)
            self.servers.append(runner)
            for token, seat in self.tokens.items():
                self.say(f"web {seat} {url}/seat/{token}")

    def seat_names(self) -> list[str]:
        return sorted(set(self.seats.values()), key=lambda s: (s != GM, s.lower()))

    def new_tokens(self) -> None:
        self.tokens = {secrets.token_urlsafe(32): seat for seat in self.seat_names()}

    async def stop(self) -> None:
        """Stop listening, then end every session cleanly (all at once)."""
        for server in self.servers:
            if isinstance(server, asyncssh.SSHAcceptor):
                server.close()
        ending = [s.close() for s in list(self.sessions)]
        if self.door is not None:
            ending.append(self.door.close())
        await asyncio.gather(*ending)
        # Clients leave by themselves once their session has ended (and ssh has its
        # exit status); what is still connected after a moment is closed.
        closing = asyncio.gather(*(c.conn.wait_closed() for c in list(self.connections)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(closing), 1.0)
        for connection in list(self.connections):
            connection.conn.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(closing, STOP_GRACE)
        for server in self.servers:
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
