"""Real margin processes side by side on one table: the GM's screen in a terminal, players
watching, ``margin do`` writers, readers; what each acknowledged, and what the table holds.

A process here is always the real program: the GM's screen is ``margin play`` in a tmux
pane, typed into and read back from its screen, so what it acknowledges is what a GM
sees. The checks at the end are the same whatever ran: every acknowledged note is on the
table exactly once, at the number it was acknowledged with.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hosting import Terminal, Terminals, children
from support import MARGIN, until, wait_until

#: what the GM's command line shows when it is empty and ready for a line
PROMPT = "type a command"


def environment(data: Path) -> list[str]:
    """The start of a command line that runs a program with ``data`` as margin's data folder
    (so its key): tmux starts a pane with its server's environment, not this process's."""
    return ["env", f"XDG_DATA_HOME={data}", f"PGPASSFILE={os.environ.get('PGPASSFILE', '')}"]


def pane_process(terminal: Terminal, timeout: float = 20) -> int:
    """The process a tmux pane runs (the one command its shell started)."""
    shell = int(
        terminal.terminals.tmux("display-message", "-p", "-t", terminal.name, "#{pane_pid}")
    )
    found = wait_until(
        lambda: children(shell),
        bool,
        lambda _: f"{terminal.name}: no process in the pane:\n{terminal.screen()}",
        timeout,
    )
    return found[0]


def deleted_files(pid: int, table: str) -> list[str]:
    """The files of ``table`` that process ``pid`` holds open although they were deleted."""
    found = []
    for fd in Path(f"/proc/{pid}/fd").glob("*"):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(table) and target.endswith(" (deleted)"):
            found.append(target)
    return found


class Pane:
    """A screen's process in a tmux pane; ``quit`` presses ``QUIT`` as its user leaves."""

    QUIT = "q"
    term: Terminal
    pid: int

    def alive(self) -> bool:
        return _alive(self.pid)

    def kill(self) -> None:
        """``kill -9`` of the screen's process."""
        os.kill(self.pid, signal.SIGKILL)
        _wait_gone(self.pid)

    def quit(self, timeout: float = 60) -> None:
        """Press ``QUIT``; the screen (and an SSH client with it) ends."""
        if self.alive():
            self.term.key(self.QUIT)
            _wait_gone(self.pid, timeout)


class GmScreen(Pane):
    """``margin play TABLE`` in a terminal of ``terminals``, as a GM at a keyboard uses it.
    Quitting is Ctrl+Q, as a GM does, once what was typed is on the table."""

    QUIT = "C-q"

    def __init__(
        self, terminals: Terminals, name: str, table: str, data: Path, argv: list[str] | None = None
    ) -> None:
        """``argv``: the GM's seat another way, as the OpenSSH client into ``margin host``."""
        self.table = table
        argv = argv or [*environment(data), *MARGIN, "play", table]
        self.term = terminals.open(name, argv, (120, 30))
        self.term.wait_for(PROMPT, timeout=60)
        self.pid = pane_process(self.term)

    def note(self, text: str, timeout: float = 60) -> int:
        """Type ``note TEXT`` and wait for the screen to acknowledge it: its record's number."""
        seq = self.try_note(text, timeout)
        if seq is None:
            raise AssertionError(f"the screen ended before it acknowledged note {text!r}")
        return seq

    def try_note(self, text: str, timeout: float = 60) -> int | None:
        """``note`` on a screen that may be killed meanwhile: None if it ends unacknowledged."""
        line = f"note {text}"
        acknowledged = re.compile(rf"#(\d+) note: {re.escape(text)}\b")
        stage = 0  # 1: typed, 2: entered
        end = time.monotonic() + timeout
        while True:
            shown = self.term.screen()
            if (found := acknowledged.search(shown)) is not None:
                return int(found[1])
            if not self.alive():
                return None
            if stage == 0 and PROMPT in shown:
                self.term.type(line)
                stage = 1
            elif stage == 1 and line in shown:
                self.term.key("Enter")
                stage = 2
            if time.monotonic() > end:
                raise AssertionError(f"note {text!r} never acknowledged:\n{shown}")
            time.sleep(0.02)


class Watcher(Pane):
    """A player following the table in a terminal: ``margin watch`` (``watch_argv``), or a
    seat's SSH client (``hosting.ssh_argv``); q quits, as a player leaving does."""

    def __init__(self, terminals: Terminals, name: str, argv: list[str]) -> None:
        self.term = terminals.open(name, argv, (120, 30))
        self.pid = pane_process(self.term)

    def shows(self, text: str, timeout: float = 60) -> None:
        self.term.wait_for(text, timeout=timeout)


def watch_argv(table: str, data: Path, seat: str) -> list[str]:
    """``margin watch TABLE --as SEAT`` with ``data`` as margin's data folder."""
    return [*environment(data), *MARGIN, "watch", table, "--as", seat]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout: float = 60) -> None:
    until(lambda: not _alive(pid), f"process {pid} did not end", timeout)


def note_line(text: str) -> str:
    """A ``margin do`` line that adds the note ``text``."""
    return json.dumps({"type": "note", "text": text}) + "\n"


def exported(table: str, *, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every record of ``table`` as ``margin export`` (a process of its own) writes it."""
    done = subprocess.run(
        [*MARGIN, "export", table], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert "end" in lines[-1], lines[-1]
    return lines[:-1]


@dataclass
class Acks:
    """The notes a table acknowledged: text -> the number of its record."""

    seqs: dict[str, int] = field(default_factory=dict)

    def add(self, text: str, seq: int) -> None:
        assert text not in self.seqs, f"note {text!r} acknowledged twice"
        self.seqs[text] = seq


@dataclass
class Verdict:
    """How a table's records bear out what was acknowledged."""

    records: int = 0
    #: acknowledged notes not on the table
    lost: list[str] = field(default_factory=list)
    #: notes on the table more than once
    duplicated: list[str] = field(default_factory=list)
    #: acknowledged notes whose number holds another record (two writers given one number)
    forks: list[str] = field(default_factory=list)
    #: numbers held by two records, or numbers skipped
    numbering: list[int] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        return not (self.lost or self.duplicated or self.forks or self.numbering)


def judge(records: list[dict[str, Any]], acks: Acks) -> Verdict:
    """What ``records`` (``exported``) hold of the acknowledged notes ``acks``."""
    seqs = [r["seq"] for r in records]
    numbering = sorted(s for s, n in Counter(seqs).items() if n > 1)
    numbering += [n for n in range(1, len(records) + 1) if n not in set(seqs)]
    notes = Counter(r["event"]["text"] for r in records if r["event"]["type"] == "table.note")
    at = {r["seq"]: r["event"].get("text") for r in records}
    return Verdict(
        records=len(records),
        lost=[t for t in acks.seqs if notes[t] == 0],
        duplicated=[t for t, n in notes.items() if n > 1],
        forks=[t for t, s in acks.seqs.items() if notes[t] and at.get(s) != t],
        numbering=numbering,
    )
