"""``margin host``'s seats and its SSH door, and what the web door shares with it.

Every session is a process of its own (``python -m margin.tui.host.session TABLE SEAT``)
with an argument list and an environment built here: the seat comes from the
key (SSH) or the link (web), never from what a client asks for. A client's
command, subsystem (sftp, scp), environment variables, port, agent and X11
forwarding reach nothing. SSH sessions run on a pseudo-terminal that follows
the client's window; web sessions speak textual-serve's protocol to the
browser.

Each session runs in a process group of its own, which is what is ended when
its connection ends (asked, then killed): nothing a session does outlives its
client. ``Limits`` bounds what clients may have: sessions a seat, channels a
connection, sessions in all, terminal size, and memory a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import re
import signal
import struct
import sys
import termios
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import asyncssh
from cryptography.hazmat.primitives.asymmetric import rsa

from margin.events import display_name, is_url
from margin.events.postgres import url_password
from margin.tui.table.keys import data_dir

from .commits import Commits
from .limits import Limits
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
NO_COMMAND = (
    "margin: this table runs one command, plain (a player's seat in lines of text); "
    "connect with ssh -t and no command, or ssh -t HOST plain"
)
NO_PLAIN_GM = "margin: the GM's seat has no plain form; connect with ssh -t and no command"
#: the one command a session may ask for: the player's plain seat
PLAIN = "plain"
HOST_STOPPED = "margin: the host stopped"


class Session(Protocol):
    """A hosted session, by either door: what the host counts and ends."""

    seat: str

    @property
    def pid(self) -> int | None: ...

    async def close(self, notice: str = HOST_STOPPED, code: int = 0) -> None: ...


class HostError(Exception):
    """A bad ``margin host`` argument or KEYS file; printed as one line."""


class Hosting(Protocol):
    """What a door reads of the host it serves: the table, the seats, the limits, and the
    sessions and connections it counts."""

    table: str
    seats: dict[bytes, str]
    sheets: Path | None
    limits: Limits
    sessions: set[Session]
    connections: set[Any]
    tokens: dict[str, str]
    web: tuple[str, int] | None
    #: what tells the sessions of each commit (None: they look for themselves)
    commits: Commits | None

    @property
    def say(self) -> Callable[[str], None]:
        """Where the host says what happens (a line at a time)."""

    def admit(self, seat: str, door: str) -> str | None: ...

    def refuse(self, seat: str, door: str, why: str, option: str) -> str: ...


# -- arguments --------------------------------------------------------------


def parse_address(text: str, option: str) -> tuple[str, int]:
    """``[ADDR:]PORT`` as (address, port); the address defaults to 127.0.0.1."""
    addr, _, port = text.rpartition(":")
    addr = addr.strip("[]") or "127.0.0.1"
    if not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        raise HostError(f"{option} {text!r}: expected [ADDR:]PORT with PORT 0-65535")
    return addr, int(port)


#: authorized_keys options that take no value (those that take one have an ``=``): a line
#: copied from an authorized_keys file starts with them where a KEYS line has its seat
KEY_OPTIONS = frozenset(
    [
        "agent-forwarding",
        "cert-authority",
        "no-agent-forwarding",
        "no-port-forwarding",
        "no-pty",
        "no-touch-required",
        "no-user-rc",
        "no-x11-forwarding",
        "port-forwarding",
        "pty",
        "restrict",
        "user-rc",
        "verify-required",
        "x11-forwarding",
    ]
)
#: the smallest RSA key a seat may have (NIST SP 800-131A: 1024-bit RSA is not to be used)
RSA_BITS = 2048


def _key_problem(key: asyncssh.SSHKey) -> str | None:
    """Why a seat may not have this key, or None: ed25519, ECDSA and RSA of 2048 bits or more."""
    algorithm = key.get_algorithm()
    if "ed25519" in algorithm or "ecdsa" in algorithm:
        return None
    rsa_key = key.pyca_key
    if isinstance(rsa_key, rsa.RSAPublicKey):
        bits = rsa_key.key_size
        if bits >= RSA_BITS:
            return None
        return f"an RSA key of {bits} bits is too weak; use {RSA_BITS} or more, or ed25519"
    return f"{algorithm} keys are not accepted; use ed25519, ECDSA or RSA of {RSA_BITS} bits"


def _key_line(words: list[str]) -> tuple[str, asyncssh.SSHKey]:
    """One KEYS line's seat and key; ``HostError`` says what is wrong with it."""
    if len(words) < 3:
        raise HostError("expected NAME KEYTYPE BASE64 [comment]")
    name, keytype, blob = words[:3]
    if any(c in name for c in ',="') or name.lower() in KEY_OPTIONS:
        raise HostError(
            f"{name!r} is an authorized_keys option, not a seat; a line is NAME KEYTYPE"
            " BASE64 [comment], with no options"
        )
    try:
        key = asyncssh.import_public_key(f"{keytype} {blob}")
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise HostError(f"{name}: not an SSH public key ({exc})") from None
    problem = _key_problem(key)
    if problem is not None:
        raise HostError(f"{name}: {problem}")
    return name, key


def parse_keys(text: str, source: str) -> dict[bytes, str]:
    """A KEYS file (``NAME KEYTYPE BASE64 [comment]`` a line) as {public key blob: seat}.

    ``HostError`` names every bad line, one a line.
    """
    seats: dict[bytes, str] = {}
    problems: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _seat_key(seats, *_key_line(line.split()))
        except HostError as exc:
            problems.append(f"{source}:{lineno}: {exc}")
    if problems:
        raise HostError("\n".join(problems))
    if not seats:
        raise HostError(f"{source}: no keys (one a line: NAME KEYTYPE BASE64 [comment])")
    return seats


def _seat_key(seats: dict[bytes, str], name: str, key: asyncssh.SSHKey) -> None:
    """The seat ``name`` given ``key`` in ``seats``, unless another seat has it."""
    data = key.public_data
    if data in seats:
        raise HostError(f"{name}: the same key is already {seats[data]}'s (one key, one seat)")
    seats[data] = GM if name.lower() == GM else name


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


def session_argv(
    table: str, seat: str, sheets: Path | None = None, plain: bool = False, door: str = ""
) -> list[str]:
    """The one command a session runs: the seat's screen of this table (a player's
    ``plain`` seat: its lines of text).

    A table URL goes without its password, which would show in process lists;
    ``session_env`` carries it. ``sheets`` is the folder the GM's seat reads
    sheet files from (none: it reads none); ``door`` how a player's seat came in
    (``ssh SHA256:...``, ``web LINK``), which the records they write name.
    """
    argv = [sys.executable, "-P", "-m", "margin.tui.host.session", display_name(table), seat]
    if plain:
        argv.append("--plain")
    elif seat == GM and sheets is not None:
        argv.append(str(sheets))
    elif seat != GM and door:
        argv.append(door)
    return argv


#: What a session of a table in PostgreSQL takes from the host's own environment:
#: how libpq finds the server's password and certificates (never the client's).
DATABASE_ENV = ("PGPASSWORD", "PGPASSFILE", "PGSERVICEFILE", "PGSSLMODE", "PGSSLROOTCERT")


def session_env(term: str | None = None, table: str = "") -> dict[str, str]:
    """A session's whole environment: nothing of the host's or the client's but a sane TERM
    and the host's margin data folder.

    The data folder (``XDG_DATA_HOME``, for ``keys.data_dir``) holds the GM's signing key
    and command history, so a hosted GM signs and remembers as ``margin play`` would. For
    a table in PostgreSQL the host's ``DATABASE_ENV`` passes too, and its ``~/.pgpass`` as
    ``PGPASSFILE``: sessions have no home folder.
    """
    env = {
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_DATA_HOME": os.path.abspath(data_dir().parent),
    }
    if term is not None:
        env["TERM"] = term if _TERM.fullmatch(term) else "xterm-256color"
    if is_url(table):
        env.update(_database_env(table))
    return env


def _database_env(url: str) -> dict[str, str]:
    """What a session of the table at ``url`` in PostgreSQL takes of the host's
    environment (``DATABASE_ENV``, its ``~/.pgpass``), and the URL's password."""
    env = {name: os.environ[name] for name in DATABASE_ENV if name in os.environ}
    pgpass = Path.home() / ".pgpass"
    if "PGPASSFILE" not in env and pgpass.is_file():
        env["PGPASSFILE"] = str(pgpass)
    password = url_password(url)
    if password is not None:
        env["PGPASSWORD"] = password
    return env


# -- a session's process --------------------------------------------------------


async def end_group(process: asyncio.subprocess.Process) -> bool:
    """End a session's process group (the session started it with ``start_new_session``):
    SIGTERM, then SIGKILL after ``STOP_GRACE``; True if it had to be killed.

    The whole group, not the process alone, so that nothing it started stays
    behind; and the kill does not wait on the session, whatever it is stuck on.
    """
    if process.returncode is not None:
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


def resident(pid: int) -> int | None:
    """The resident memory of process ``pid`` in bytes (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return None


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

    async def start(
        self,
        argv: list[str],
        env: dict[str, str],
        cols: int,
        rows: int,
        pass_fds: tuple[int, ...] = (),
    ) -> None:
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
                pass_fds=pass_fds,
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
        """End the process group: asked first, killed after ``STOP_GRACE``; True if killed."""
        if self.process is None:
            return False
        # read on, so that the end of the process is seen however slow the client was
        self.pause(False)
        return await end_group(self.process)


# -- the SSH door -------------------------------------------------------------


class SeatSession(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: the seat's screen on a pseudo-terminal, or one line and goodbye."""

    def __init__(self, server: SeatServer, refusal: str | None = None) -> None:
        assert server.seat is not None
        self.server = server
        self.fingerprint = server.fingerprint
        self.host = server.host
        self.seat = server.seat
        self.peer = server.peer
        self.chan: Any = None
        self.term: str | None = None
        self.size = (80, 24)
        self.refusal = refusal
        #: the client asked for the plain seat (``ssh -t HOST plain``)
        self.plain = False
        self.pty: PtyProcess | None = None
        #: the host's end of the pipe that tells the session of each commit (-1: none)
        self.told = -1
        self.stopping = False
        self.gone = False
        self.finished = asyncio.Event()

    @property
    def pid(self) -> int | None:
        process = self.pty.process if self.pty is not None else None
        return process.pid if process is not None and process.returncode is None else None

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], _: Any) -> bool:
        self.term = term_type
        self.size = self.host.limits.size(term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        if command.strip() != PLAIN:
            self.refusal = self.refusal or NO_COMMAND
        elif self.seat == GM:
            self.refusal = self.refusal or NO_PLAIN_GM
        else:
            self.plain = True
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        if self.refusal is None and self.term is None:
            self.refusal = NO_PTY
        if self.refusal is None:
            self.refusal = self.host.admit(self.seat, f"ssh {self.peer}")
        if self.refusal is not None:
            self.chan.write(self.refusal.encode() + b"\r\n")
            self.chan.exit(1)
            return
        self.pty = PtyProcess(self._send, self._ended)
        self.host.sessions.add(self)
        asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        assert self.pty is not None
        commits = self.host.commits
        env = session_env(self.term, self.host.table)
        given = -1
        if commits is not None and not self.plain:
            given, self.told = commits.pipe()
            env.update(commits.env(given))
        try:
            await self.pty.start(
                session_argv(
                    self.host.table,
                    self.seat,
                    self.host.sheets,
                    self.plain,
                    f"ssh {self.fingerprint}",
                ),
                env,
                *self.size,
                pass_fds=(given,) if given >= 0 else (),
            )
        except OSError as exc:
            self._forget_pipe()
            self.host.sessions.discard(self)
            self.host.say(f"{self.seat}: could not start the session ({exc})")
            self.chan.write(b"margin: the host could not start your session\r\n")
            self.chan.exit(1)
            return
        finally:
            if given >= 0:
                os.close(given)  # the session's process holds its end now
        if self.gone:  # the client left while its session was starting
            await self.pty.stop()

    def _forget_pipe(self) -> None:
        if self.host.commits is not None and self.told >= 0:
            self.host.commits.forget(self.told)
        self.told = -1

    def _send(self, data: bytes) -> None:
        # The client may be gone while the screen still writes its goodbye.
        with contextlib.suppress(OSError, asyncssh.Error):
            self.chan.write(data)

    def _ended(self, code: int) -> None:
        self._forget_pipe()
        self.host.sessions.discard(self)
        self.finished.set()
        if not self.stopping:
            with contextlib.suppress(OSError, asyncssh.Error):
                self.chan.exit(code)

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.pty is not None:
            self.pty.write(data)

    def terminal_size_changed(self, width: int, height: int, pw: int, ph: int) -> None:
        self.size = self.host.limits.size(width, height)
        if self.pty is not None:
            self.pty.resize(*self.size)

    def pause_writing(self) -> None:
        if self.pty is not None:
            self.pty.pause(True)

    def resume_writing(self) -> None:
        if self.pty is not None:
            self.pty.pause(False)

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.server.channels.discard(self)
        if self.pty is not None:
            asyncio.ensure_future(self.pty.stop())

    async def close(self, notice: str = HOST_STOPPED, code: int = 0) -> None:
        """End the screen, tidy the client's terminal, and say why (the host stops, say)."""
        if self.pty is None or self.stopping:
            return
        self.stopping = True
        killed = await self.pty.stop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.finished.wait(), STOP_GRACE)
        with contextlib.suppress(OSError, asyncssh.Error):
            if killed:
                self.chan.write(TERMINAL_RESET)
            self.chan.write(notice.encode() + b"\r\n")
            self.chan.exit(code)


class SeatServer(asyncssh.SSHServer):
    """One SSH connection: the key decides the seat; nothing else is allowed."""

    def __init__(self, host: Hosting) -> None:
        self.host = host
        self.seat: str | None = None
        self.peer = "?"
        self.offered: str | None = None
        #: the fingerprint of the key the client proved it holds (SHA256:...)
        self.fingerprint = ""
        self.channels: set[SeatSession] = set()

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
        self.fingerprint = key.get_fingerprint()
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
        refusal = None
        if len(self.channels) >= self.host.limits.channels:
            refusal = self.host.refuse(
                self.seat,
                f"ssh {self.peer}",
                f"this connection has {len(self.channels)} sessions open already",
                "--channels",
            )
        session = SeatSession(self, refusal)
        self.channels.add(session)
        return session
