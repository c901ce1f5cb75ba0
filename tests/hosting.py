"""What the ``margin host`` tests share: a table with secrets, seat keys, a running host,
terminals (tmux panes) running the real OpenSSH client, and browsers at its web seats."""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import CHROMIUM_FLAGS, MARGIN, chromium, need, wait_until

from margin.core.commands import AddCharacter, Note, RollDice
from margin.tui.table.demo import build_demo
from margin.tui.table.table import Table

#: What players must never receive: a secret roll's value, a hidden character's name, a GM note.
SECRET_FACE = 947
HIDDEN_NAME = "Nightglass"
GM_NOTE = "the cultist is a spy"
#: Seats with keys: gm, a seated player, a player not seated yet.
SEATS = ("gm", "Kael", "Zed")

_ESCAPES = re.compile(
    rb"\x1b(\[[0-9;?<>=$ ]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)"
)


#: what a terminal is told between characters: a move (row;column H) or anything else
_CONTROL = re.compile(
    r"\x1b\[(\d+);(\d+)H|\x1b(\[[0-9;?<>=$ ]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)"
)
#: a control sequence that is whole (one cut short waits for the rest of it)
_WHOLE = re.compile(r"\x1b(\[[0-9;?<>=$ ]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[^\[\]])", re.DOTALL)


class ScreenRows:
    """The rows a terminal shows, from its output as it arrives, for output that places
    each run of text with a cursor move (as Textual's does)."""

    def __init__(self) -> None:
        self._rows: dict[int, list[str]] = {}
        self._row = self._col = 0
        self._held = ""
        self._decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def feed(self, data: bytes) -> None:
        output = self._held + self._decode(data)
        cut = output.rfind("\x1b")
        if cut != -1 and not _WHOLE.match(output, cut):
            output, self._held = output[:cut], output[cut:]
        else:
            self._held = ""
        at = 0
        for found in [*_CONTROL.finditer(output), None]:
            self._text(output[at : found.start() if found else len(output)])
            if found is None:
                break
            if found.group(1):
                self._row, self._col = int(found.group(1)) - 1, int(found.group(2)) - 1
            at = found.end()

    def _text(self, text: str) -> None:
        for char in text:
            if char in "\r\n":
                self._row, self._col = (self._row + 1, 0) if char == "\n" else (self._row, 0)
                continue
            line = self._rows.setdefault(self._row, [])
            line.extend(" " * (self._col + 1 - len(line)))
            line[self._col] = char
            self._col += 1

    def rows(self) -> dict[int, str]:
        """Row number -> the text it shows."""
        return {n: "".join(chars).rstrip() for n, chars in sorted(self._rows.items())}


def screen_rows(output: str) -> dict[int, str]:
    """The rows a terminal shows after ``output`` (``ScreenRows``): row number -> its text."""
    screen = ScreenRows()
    screen.feed(output.encode())
    return screen.rows()


def plain(data: bytes) -> str:
    """Terminal output without its escape sequences."""
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


def build_table(path: Path) -> Path:
    """The demo fight, then a secret roll, a hidden character and a GM note."""
    table = build_demo(path, "2d10-edge")
    table.execute(RollDice(dice="1d1000", faces=[SECRET_FACE], secret=True, reason="ambush"))
    table.execute(AddCharacter(name=HIDDEN_NAME, hidden=True))
    table.execute(Note(text=GM_NOTE, gm_only=True))
    table.close()
    return path


def the_hosts_gm(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process acts as the GM of the host ``hosted`` started in ``folder``: its data
    folder, so its key. (One GM signs with one key: the host's margin signs after no other.)"""
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "data"))


def write(path: Path, command: object) -> None:
    """The GM's hand on the table from another process: one command appended."""
    table = Table.open(path)
    try:
        table.execute(command)  # type: ignore[arg-type]
    finally:
        table.close()


def make_keys(folder: Path, names: tuple[str, ...]) -> dict[str, Path]:
    """An ed25519 key pair per name: {name: private key file}."""
    need("ssh-keygen")
    folder.mkdir(parents=True, exist_ok=True)
    keys = {}
    for name in names:
        key = folder / name.lower()
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@test", "-f", str(key)],
            check=True,
        )
        keys[name] = key
    return keys


def keys_file(path: Path, keys: dict[str, Path]) -> Path:
    lines = ["# seat keytype key comment"]
    for name, key in keys.items():
        lines.append(f"{name} {key.with_suffix('.pub').read_text().strip()}")
    path.write_text("\n".join(lines) + "\n")
    return path


class Host:
    """A ``margin host`` process; its output is collected line by line."""

    def __init__(
        self,
        table: Path,
        keys: Path,
        data: Path,
        web: bool = False,
        options: tuple[str, ...] = (),
        program: tuple[str, ...] = tuple(MARGIN),
    ) -> None:
        argv = [*program, "host", str(table), "--ssh", "0", "--keys", str(keys), *options]
        if web:
            argv += ["--web", "0"]
        env = {**os.environ, "XDG_DATA_HOME": str(data), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        try:
            self.wait_line("hosting ")
            found = re.search(r"ssh join: ssh -t -p (\d+)", self.output())
            assert found, self.output()
        except BaseException:
            # a host that never came up is ended here: no fixture is left to stop it
            self.stop()
            raise
        self.port = int(found.group(1))
        self.web = dict(re.findall(r"^web (\S+) (\S+)$", self.output(), re.MULTILINE))

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_line(self, text: str, timeout: float = 60, since: int = 0) -> str:
        """The first line holding ``text`` among those from line ``since`` on."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines[since:]:
                if text in line:
                    return line
            if self.proc.poll() is not None and not self.reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"host never printed {text!r}:\n{self.output()}")

    def sessions(self) -> list[int]:
        """The process ids of the sessions the host runs now."""
        return [
            pid for pid in children(self.proc.pid) if b"margin.tui.host.session" in cmdline(pid)
        ]

    def wait_sessions(self, count: int, timeout: float = 60) -> list[int]:
        """The host's sessions once there are ``count`` of them."""
        return wait_until(
            self.sessions,
            lambda found: len(found) == count,
            lambda found: f"{len(found)} sessions, not {count}:\n{self.output()}",
            timeout,
        )

    def wait_all_left(self, timeout: float = 30) -> None:
        """Once the host has said of every session that connected that it left (it
        forgets a session after its process has ended)."""
        wait_until(
            self.output,
            lambda said: said.count(" connected over ") == said.count(" left ("),
            lambda said: f"a session never left:\n{said}",
            timeout,
        )

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(5)
        return self.proc.returncode


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that are still there."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def group(pgid: int) -> list[int]:
    """Every process still in the process group ``pgid`` (a zombie counts: it is not gone)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # the fields after the command's name, which is in parentheses and may hold spaces
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[2]) == pgid:
                found.append(int(stat.parent.name))
    return found


def wait_gone(pgid: int, timeout: float) -> float:
    """Seconds until no process is left in the group ``pgid``; fails after ``timeout``."""
    start = time.monotonic()
    wait_until(
        lambda: group(pgid),
        lambda left: not left,
        lambda left: f"process group {pgid} still there: {left}",
        timeout,
    )
    return time.monotonic() - start


def resident(pid: int) -> int:
    """Resident memory of ``pid`` and every process under it, in bytes (0 once gone)."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") + sum(resident(c) for c in children(pid))


def ssh_argv(port: int, key: Path, *extra: str, program: str = "ssh") -> list[str]:
    """The real OpenSSH client, with no user configuration, agent or known hosts."""
    need(program)
    port_flag = "-P" if program in ("sftp", "scp") else "-p"
    return [
        program,
        "-F",
        "/dev/null",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "LogLevel=ERROR",
        "-o",
        "BatchMode=yes",
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "IdentityAgent=none",
        port_flag,
        str(port),
        "-i",
        str(key),
        *extra,
    ]


class Terminals:
    """Terminal windows (panes of a private tmux server) that each run one command."""

    def __init__(self, folder: Path) -> None:
        need("tmux")
        self.folder = folder
        self.socket = f"margin-test-{os.getpid()}-{id(self)}"
        # A session that stays keeps the server up while tests close theirs.
        self.tmux("new-session", "-d", "-s", "keep", "sleep 3600")

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def open(self, name: str, argv: list[str], size: tuple[int, int] = (100, 30)) -> Terminal:
        log = self.folder / f"{name}.raw"
        log.write_bytes(b"")
        # The pane stays after the command ends, with its exit status, so both can be read.
        command = f'{shlex.join(argv)}; echo "[exit $?]"; sleep 600'
        self.tmux(
            "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]), command,
            ";", "pipe-pane", "-t", name, "-o", f"cat >> {shlex.quote(str(log))}",
        )  # fmt: skip
        return Terminal(self, name, log)

    def close_all(self) -> None:
        """End every terminal opened so far."""
        for name in self.tmux("list-sessions", "-F", "#{session_name}").split():
            if name != "keep":
                self.tmux("kill-session", "-t", name)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


class Terminal:
    def __init__(self, terminals: Terminals, name: str, log: Path) -> None:
        self.terminals = terminals
        self.name = name
        self.log = log

    def screen(self) -> str:
        return self.terminals.tmux("capture-pane", "-p", "-t", self.name)

    def received(self) -> str:
        """Everything the session sent to this terminal, escape sequences removed."""
        return plain(self.log.read_bytes())

    def wait_received(self, text: str, timeout: float = 20) -> str:
        """Once what the session sent holds ``text``: the terminal's copy of it reaches its
        file a moment after the screen shows it."""
        return wait_until(
            self.received,
            lambda got: text in got,
            lambda got: f"{text!r} never received on {self.name}:\n{got[-2000:]}",
            timeout,
        )

    def wait_for(self, text: str, timeout: float = 20) -> str:
        return wait_until(
            self.screen,
            lambda shown: text in shown,
            lambda shown: f"{text!r} never shown on {self.name}:\n{shown}",
            timeout,
        )

    def type(self, text: str) -> None:
        self.terminals.tmux("send-keys", "-t", self.name, "-l", text)

    def submit(self, line: str, shown: str) -> None:
        """Type a line, and once it is on the screen press Enter; then wait for ``shown``."""
        self.type(line)
        self.wait_for(line)
        self.key("Enter")
        self.wait_for(shown)

    def key(self, *keys: str) -> None:
        self.terminals.tmux("send-keys", "-t", self.name, *keys)

    def resize(self, cols: int, rows: int) -> None:
        self.terminals.tmux("resize-window", "-t", self.name, "-x", str(cols), "-y", str(rows))


def hosted(
    folder: Path,
    seats: tuple[str, ...],
    strangers: tuple[str, ...] = (),
    web: bool = False,
    options: tuple[str, ...] = (),
) -> tuple[Host, Path, dict[str, Path]]:
    """``build_table``'s fight hosted from ``folder`` for ``seats`` (with the host's
    ``options``): the host, the table and a key for every seat and every one of
    ``strangers`` (keys the host does not list)."""
    table = build_table(folder / "fight.margin")
    keys = make_keys(folder / "keys", (*seats, *strangers))
    listed = {name: keys[name] for name in seats}
    seats_file = keys_file(folder / "seats.keys", listed)
    host = Host(table, seats_file, folder / "data", web=web, options=options)
    return host, table, keys


def web_site(folder: Path, options: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
    """``hosted``'s fight served from ``folder`` to the GM and Kael over SSH and the web (with
    the host's ``options``), for a module's ``site`` fixture: the host, the table and the
    folder, the host stopped after."""
    host, table, _ = hosted(folder, ("gm", "Kael"), web=True, options=options)
    try:
        yield {"host": host, "table": table, "dir": folder}
    finally:
        host.stop()


def gm_of_the_site(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a test that uses its module's ``site`` writes, the host's GM writes."""
    if "site" in request.fixturenames:
        the_hosts_gm(request.getfixturevalue("site")["dir"], monkeypatch)


def browser_at(playwright: Any, profile: Path, size: tuple[int, int]) -> Any:
    """Headless Chromium with a profile of its own and a window of ``size`` (width, height)."""
    return playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=chromium(),
        args=CHROMIUM_FLAGS,
        headless=True,
        viewport={"width": size[0], "height": size[1]},
    )


class Frames:
    """What a page's websockets received: every byte of its sessions, less the page's
    keep-alive answers (they carry the browser's clock, whose digits say nothing of the
    table)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.frames: list[bytes] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: bytes | str) -> None:
        if isinstance(payload, str):
            if payload.startswith('["pong"'):
                return
            payload = payload.encode()
        self.frames.append(payload)
        self.took(payload)

    def took(self, payload: bytes) -> None:
        """One more frame of the session (for a page that reads them as they come)."""

    def received(self) -> str:
        return plain(b"".join(self.frames))

    def wait_for(self, text: str, timeout: float = 30) -> None:
        """Once the session has sent ``text`` (the page's events served while it waits)."""
        end = time.monotonic() + timeout
        while text not in self.received():
            if time.monotonic() > end:
                raise AssertionError(f"{text!r} never arrived:\n{self.received()[-2000:]}")
            self.page.wait_for_timeout(20)


def shows(seen: str, secret: str) -> bool:
    """Whether what a player received shows ``secret``; a number, as one of its own (a seat's
    entropy, in hex, may hold the same digits)."""
    if not secret.isdigit():
        return secret in seen
    return re.search(rf"(?<![0-9a-fA-F]){secret}(?![0-9a-fA-F])", seen) is not None
