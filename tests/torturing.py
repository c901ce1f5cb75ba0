"""A table tortured by the real process mix, on a seeded schedule, and checked afterwards.

A schedule is a list of steps drawn from one seed, each a pause and an action: the
GM's screen (``margin play`` in a terminal) notes something, a ``margin do`` writer
writes a few notes, a player's ``margin watch`` joins or quits, ``margin log``,
``state``, ``export``, ``verify`` or ``backup`` runs, a seat joins or quits over SSH
through ``margin host`` (the GM's seat too, noting beside the GM's own screen), or
one of the running processes is killed with ``kill -9``.
Steps start in order, each after its pause, and run side by side: the screen types
its notes one after another, every other process runs on its own.

Afterwards (``Torture.run``): every acknowledged note is on the table exactly once,
at the number it was acknowledged with; no number is held twice or skipped; the chain
and signatures verify with the GM's key; every watcher still running shows the last
record; every backup holds every note acknowledged before it started; and once every
process has ended, the table file alone (copied without its ``-wal`` and ``-shm``)
holds every record. ``Figures`` counts what happened and what went wrong.

The same schedule replays from its seed (``MARGIN_TORTURE_SEED``); timing is the
machine's, so a replay takes the same steps in the same order with the same pauses.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from hosting import Host, Terminals, keys_file, make_keys, ssh_argv
from mixing import Acks, GmScreen, Watcher, exported, judge, note_line, watch_argv
from support import MARGIN

from margin.events import Noted, SQLiteStore, is_url

#: what a schedule's steps do, and how often each is drawn
ACTIONS = {
    "gm-note": 5,
    "do": 4,
    "watch-join": 2,
    "watch-quit": 1,
    "log": 1,
    "state": 1,
    "export": 1,
    "verify": 1,
    "backup": 2,
    "kill": 3,
}
#: the same, where seats join over SSH
HOSTED_ACTIONS = {**ACTIONS, "ssh-join": 2, "ssh-quit": 1, "ssh-gm-note": 4}
#: what a kill may hit
VICTIMS = ("gm", "do", "watch", "reader", "backup", "session")
#: the player every watcher and seat follows
PLAYER = "Kael"


@dataclass
class Figures:
    """What schedules did and what went wrong (every count after ``acknowledged`` must be 0)."""

    schedules: int = 0
    started: int = 0
    killed: int = 0
    acknowledged: int = 0
    refused: int = 0
    lost: int = 0
    duplicated: int = 0
    forks: int = 0
    unconverged: int = 0
    backups_missing: int = 0
    failures: int = 0

    def add(self, other: Figures) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def sound(self) -> bool:
        return not (
            self.lost
            or self.duplicated
            or self.forks
            or self.unconverged
            or self.backups_missing
            or self.failures
        )

    def lines(self) -> list[str]:
        return [f"{f.name.replace('_', ' ')}: {getattr(self, f.name)}" for f in fields(self)]


@dataclass(frozen=True)
class Step:
    pause: float
    action: str
    #: how many notes a writer writes; which kind of process a kill hits
    arg: str = ""

    def __str__(self) -> str:
        return f"+{self.pause:.2f}s {self.action}{' ' + self.arg if self.arg else ''}"


def schedule(seed: int, steps: int, hosted: bool = False) -> list[Step]:
    """The steps of the schedule ``seed``: the GM's screen first, then ``steps`` drawn."""
    rng = random.Random(seed)
    actions = HOSTED_ACTIONS if hosted else ACTIONS
    names, weights = list(actions), list(actions.values())
    drawn = [Step(0.0, "gm-note")]
    for _ in range(steps):
        action = rng.choices(names, weights)[0]
        arg = ""
        if action == "do":
            arg = str(rng.randint(1, 6))
        elif action == "kill":
            arg = rng.choice(VICTIMS if hosted else VICTIMS[:-1])
        drawn.append(Step(round(rng.uniform(0, 0.8), 2), action, arg))
    return drawn


def replay_line(seed: int, plan: list[Step]) -> str:
    return f"schedule {seed} (replay: MARGIN_TORTURE_SEED={seed}): " + "; ".join(map(str, plan))


def new_table(table: str, env: dict[str, str]) -> None:
    """A table with the player everyone watches, written by margin processes."""
    for args, stdin in (
        (["new", table, "--system", "2d10-edge"], None),
        (["do", table], json.dumps({"type": "add-character", "name": PLAYER}) + "\n"),
    ):
        done = subprocess.run(
            [*MARGIN, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr


class Torture:
    """One schedule run against ``table`` (a file or a ``postgresql://`` URL), from ``folder``
    (where its terminals, backups and copies go), signing with the key in ``data``."""

    def __init__(
        self,
        table: str,
        folder: Path,
        data: Path,
        seed: int,
        steps: int,
        hosted: bool = False,
    ) -> None:
        self.table, self.folder, self.data, self.seed = table, folder, data, seed
        self.plan = schedule(seed, steps, hosted)
        self.hosted = hosted
        self.rng = random.Random(seed + 1)
        self.env = {**os.environ, "XDG_DATA_HOME": str(data)}
        self.figures = Figures(schedules=1)
        self.acks = Acks()
        self.problems: list[str] = []
        self.lock = threading.Lock()
        #: running processes by kind: (pid, what ends it gently)
        self.running: dict[str, list[tuple[int, Callable[[], None] | None]]] = {
            v: [] for v in VICTIMS
        }
        self.watchers: list[Watcher] = []
        self.threads: list[threading.Thread] = []
        self.gm_lines: queue.Queue[str | None] = queue.Queue()
        self.gm: GmScreen | None = None
        #: the GM seated over SSH too, as a GM with a second device is
        self.ssh_gm_lines: queue.Queue[str | None] = queue.Queue()
        self.ssh_gm: GmScreen | None = None
        self.host: Host | None = None
        self.keys: dict[str, Path] = {}
        self.count = 0

    # -- bookkeeping --------------------------------------------------------

    def _n(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def _problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)
            self.figures.failures += 1

    def _ack(self, text: str, seq: int) -> None:
        with self.lock:
            self.acks.add(text, seq)
            self.figures.acknowledged += 1

    def _started(self, kind: str, pid: int, end: Callable[[], None] | None = None) -> None:
        with self.lock:
            self.running[kind].append((pid, end))
            self.figures.started += 1

    def _ended(self, kind: str, pid: int) -> None:
        with self.lock:
            self.running[kind] = [r for r in self.running[kind] if r[0] != pid]

    def _thread(self, target: Callable[[], object], name: str) -> None:
        def run() -> None:
            try:
                target()
            except BaseException as exc:  # a failure in a thread fails the schedule
                self._problem(f"{name}: {type(exc).__name__}: {exc}")

        thread = threading.Thread(target=run, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    # -- the actors ---------------------------------------------------------

    def _gm(self, terminals: Terminals) -> None:
        """The GM at the screen: types each note given, starting a screen if there is none
        (the first, or a new one after a kill)."""
        while (text := self.gm_lines.get()) is not None:
            if self.gm is None or not self.gm.alive():
                if self.gm is not None:
                    self._ended("gm", self.gm.pid)
                try:
                    self.gm = GmScreen(terminals, f"gm{self._n()}", self.table, self.data)
                except AssertionError:
                    if self.gm is not None and not self.gm.alive():
                        continue  # killed as it started
                    raise
                self._started("gm", self.gm.pid)
            seq = self.gm.try_note(text)
            if seq is not None:
                self._ack(text, seq)

    def _hosted_gm(self, terminals: Terminals) -> None:
        """The GM's seat over SSH: types each note given, seated anew after a kill."""
        assert self.host is not None
        while (text := self.ssh_gm_lines.get()) is not None:
            if self.ssh_gm is None or not self.ssh_gm.alive():
                before = set(self.host.sessions())
                argv = ssh_argv(self.host.port, self.keys["gm"], "-tt", "127.0.0.1")
                self.ssh_gm = GmScreen(terminals, f"sgm{self._n()}", self.table, self.data, argv)
                with self.lock:
                    self.figures.started += 1  # the ssh client
                new = set(self.host.sessions()) - before
                if new:
                    self._started("session", new.pop(), self.ssh_gm.quit)
            seq = self.ssh_gm.try_note(text)
            if seq is not None:
                self._ack(text, seq)

    def _do(self, count: int) -> None:
        n = self._n()
        proc = subprocess.Popen(
            [*MARGIN, "do", self.table],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=self.env,
        )
        assert proc.stdin is not None
        assert proc.stdout is not None
        self._started("do", proc.pid)
        try:
            for i in range(count):
                text = f"d{n}.{i}"
                try:
                    proc.stdin.write(note_line(text))
                    proc.stdin.flush()
                except BrokenPipeError:
                    break
                line = proc.stdout.readline()
                if not line:
                    break
                reply = json.loads(line)
                if reply.get("ok"):
                    first, last = reply["seq"]
                    if first != last:
                        self._problem(f"margin do: note {text} written as records {first}-{last}")
                    self._ack(text, first)
                else:
                    with self.lock:
                        self.figures.refused += 1
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            code = proc.wait(120)
        finally:
            self._ended("do", proc.pid)
        err = proc.stderr.read() if proc.stderr else ""
        if code not in (0, -signal.SIGKILL):
            self._problem(f"margin do ended with {code}: {err.strip()}")

    def _margin(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """``margin ARGS`` as this run's GM, run to its end (two minutes at the most)."""
        return subprocess.run(
            [*MARGIN, *args], input=stdin, capture_output=True, text=True, env=self.env, timeout=120
        )

    def _reader(self, args: list[str], kind: str = "reader") -> int | None:
        """A margin command run to its end (or its kill): its exit status, None if killed."""
        proc = subprocess.Popen(
            [*MARGIN, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
        )
        self._started(kind, proc.pid)
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            self._ended(kind, proc.pid)
        if proc.returncode == -signal.SIGKILL:
            return None
        if proc.returncode != 0:
            self._problem(f"margin {' '.join(args)} ended with {proc.returncode}: {err.strip()}")
        return proc.returncode

    def _backup(self) -> None:
        dest = self.folder / f"backup{self._n()}.margin"
        with self.lock:
            before = dict(self.acks.seqs)
        if self._reader(["backup", self.table, str(dest)], "backup") != 0:
            return
        with SQLiteStore(dest, readonly=True) as copy:
            held = {r.event.text for r in copy.records() if isinstance(r.event, Noted)}
        if set(before) - held:
            with self.lock:
                self.figures.backups_missing += 1
            self._problem(f"{dest.name} lacks notes acknowledged before it: {set(before) - held}")

    def _watch_join(self, terminals: Terminals) -> None:
        argv = watch_argv(self.table, self.data, PLAYER)
        watcher = Watcher(terminals, f"w{self._n()}", argv)
        self._started("watch", watcher.pid, watcher.quit)
        self.watchers.append(watcher)

    def _ssh_join(self, terminals: Terminals) -> None:
        """A player's seat over SSH: the real OpenSSH client, and the session the host starts."""
        assert self.host is not None
        before = set(self.host.sessions())
        argv = ssh_argv(self.host.port, self.keys[PLAYER], "-tt", "127.0.0.1")
        seat = Watcher(terminals, f"s{self._n()}", argv)
        self.watchers.append(seat)
        with self.lock:
            self.figures.started += 1  # the ssh client
        end = time.monotonic() + 60
        while not (new := set(self.host.sessions()) - before) and seat.alive():
            if time.monotonic() > end:
                raise AssertionError(f"no session for {seat.term.name}:\n{self.host.output()}")
            time.sleep(0.02)
        if new:
            self._started("session", new.pop(), seat.quit)

    def _quit_one(self, kind: str) -> None:
        with self.lock:
            live = [r for r in self.running[kind] if r[1] is not None]
            if not live:
                return
            pid, end = live[self.rng.randrange(len(live))]
            self.running[kind].remove((pid, end))
        assert end is not None
        end()

    def _kill(self, kind: str) -> None:
        """``kill -9`` of a running process of ``kind``, or if none runs, of any other."""
        with self.lock:
            kinds = [kind] if self.running[kind] else [k for k, r in self.running.items() if r]
            if not kinds:
                return
            live = self.running[kinds[self.rng.randrange(len(kinds))]]
            pid, _ = live.pop(self.rng.randrange(len(live)))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            with self.lock:
                self.figures.killed += 1

    # -- a schedule ---------------------------------------------------------

    def run(self) -> Figures:
        """Run the schedule, end every process, and check the table."""
        terminals = Terminals(self.folder)
        try:
            if self.hosted:
                self.keys = make_keys(self.folder / "keys", (PLAYER, "gm"))
                seats = keys_file(self.folder / "seats.keys", self.keys)
                self.host = Host(Path(self.table), seats, self.data)
            # the GM is at the table when the session begins
            self.gm = GmScreen(terminals, f"gm{self._n()}", self.table, self.data)
            self._started("gm", self.gm.pid)
            self._thread(lambda: self._gm(terminals), "gm")
            if self.hosted:
                self._thread(lambda: self._hosted_gm(terminals), "ssh-gm")
            self._steps(terminals)
            self.gm_lines.put(None)
            self.ssh_gm_lines.put(None)
            for thread in self.threads:
                thread.join(180)
                if thread.is_alive():
                    self._problem(f"{thread.name} never ended")
            self._converge()
            self._end_all(terminals)
        finally:
            if self.host is not None:
                self.host.stop()
            terminals.close()
        self._check()
        return self.figures

    def _steps(self, terminals: Terminals) -> None:
        for step in self.plan:
            time.sleep(step.pause)
            match step.action:
                case "gm-note":
                    self.gm_lines.put(f"g{self._n()}")
                case "ssh-gm-note":
                    self.ssh_gm_lines.put(f"h{self._n()}")
                case "do":
                    self._thread(functools.partial(self._do, int(step.arg)), "do")
                case "log" | "state" | "export" | "verify" as command:
                    self._thread(functools.partial(self._reader, [command, self.table]), command)
                case "backup":
                    self._thread(self._backup, "backup")
                case "watch-join":
                    self._watch_join(terminals)
                case "watch-quit":
                    self._thread(lambda: self._quit_one("watch"), "watch-quit")
                case "ssh-join":
                    self._thread(lambda: self._ssh_join(terminals), "ssh-join")
                case "ssh-quit":
                    self._thread(lambda: self._quit_one("session"), "ssh-quit")
                case "kill":
                    self._kill(step.arg)

    def _converge(self) -> None:
        """A last note; every watcher and seat still running must come to show it."""
        last = f"last{self.seed}"
        done = self._margin("do", self.table, stdin=note_line(last))
        if done.returncode != 0:
            self._problem(f"the last note was refused: {done.stderr.strip()}")
            return
        self._ack(last, json.loads(done.stdout)["seq"][0])
        for watcher in self.watchers:
            if not watcher.alive():
                continue  # quit or killed
            try:
                watcher.shows(f"note: {last}")
            except AssertionError:
                with self.lock:
                    self.figures.unconverged += 1
                self._problem(f"{watcher.term.name} never showed the last record")

    def _end_all(self, terminals: Terminals) -> None:
        for gm in (self.gm, self.ssh_gm):
            if gm is not None:
                gm.quit()
        for watcher in self.watchers:
            watcher.quit()
        if self.host is not None:
            end = time.monotonic() + 60
            while self.host.sessions() and time.monotonic() < end:
                time.sleep(0.05)
            self.host.stop()
        terminals.close_all()

    def _check(self) -> None:
        key = subprocess.run(
            [*MARGIN, "key"], capture_output=True, text=True, env=self.env, check=True
        ).stdout.strip()
        # the last process out: it may write, so it folds the log back into the file
        done = self._margin("verify", self.table, "--key", key)
        if done.returncode != 0:
            self._problem(f"margin verify --key: {done.stderr.strip()}")
        source = self.table
        if not is_url(self.table):
            if Path(self.table + "-wal").exists():
                self._problem("a -wal file is left beside the table after every process ended")
            alone = self.folder / "alone" / Path(self.table).name
            alone.parent.mkdir(exist_ok=True)
            shutil.copyfile(self.table, alone)
            source = str(alone)
        try:
            records = exported(source, env=self.env)
        except AssertionError as exc:
            self._problem(f"the table cannot be read: {exc}")
            self.figures.lost += len(self.acks.seqs)
            return
        verdict = judge(records, self.acks)
        self.figures.lost += len(verdict.lost)
        self.figures.duplicated += len(verdict.duplicated)
        self.figures.forks += len(verdict.forks) + len(verdict.numbering)
        if not verdict.sound:
            self._problem(f"the table bears out what was acknowledged only in part: {verdict}")

    def report(self) -> str:
        return "\n".join([replay_line(self.seed, self.plan), *self.figures.lines(), *self.problems])


def seeds(default: list[int]) -> list[int]:
    """The seeds to run: ``MARGIN_TORTURE_SEED`` (one, or several with commas) or ``default``."""
    given = os.environ.get("MARGIN_TORTURE_SEED")
    return [int(s) for s in given.split(",")] if given else default


def torture(
    table: str, folder: Path, data: Path, seed: int, steps: int, hosted: bool = False
) -> Torture:
    """A new table at ``table`` (with ``data``'s key) put through the schedule ``seed``."""
    folder.mkdir(parents=True, exist_ok=True)
    run = Torture(table, folder, data, seed, steps, hosted)
    new_table(table, run.env)
    run.run()
    return run


def as_json(figures: Figures) -> dict[str, Any]:
    return {f.name: getattr(figures, f.name) for f in fields(figures)}
