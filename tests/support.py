"""Helpers the test files share: run margin in this process or as its own, run a command,
expect a refusal."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TypeVar

import msgspec
import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from margin.core import RuleError, TableState, get_system
from margin.core.commands import Redo, Undo, convert_command
from margin.core.lens import PlayerLens, player_state
from margin.events import Draft, Noted, Record
from margin.tui.cli import main
from margin.tui.screens.app import play_app
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

_Kind = TypeVar("_Kind")
_Seen = TypeVar("_Seen")

#: ``margin`` as a process of its own, run by this Python
MARGIN = [sys.executable, "-m", "margin.tui"]

#: The programs some tests start, and the Debian package of each (``.ci/run`` installs them).
PACKAGES = {
    "chromium": "chromium",
    "ssh": "openssh-client",
    "sftp": "openssh-client",
    "scp": "openssh-client",
    "ssh-keygen": "openssh-client",
    "tmux": "tmux",
    "sqlite3": "sqlite3",
    "psql": "postgresql-client",
    "iptables": "iptables",
}


def wait_until(
    look: Callable[[], _Seen],
    done: Callable[[_Seen], object],
    failure: Callable[[_Seen], str],
    timeout: float = 30,
    step: float = 0.02,
) -> _Seen:
    """What ``look`` sees once ``done`` holds of it, looked at every ``step`` seconds; after
    ``timeout`` seconds an AssertionError says ``failure`` of what it saw last."""
    end = time.monotonic() + timeout
    while True:
        seen = look()
        if done(seen):
            return seen
        if time.monotonic() > end:
            raise AssertionError(failure(seen))
        time.sleep(step)


def until(
    done: Callable[[], object], failure: str, timeout: float = 30, step: float = 0.02
) -> None:
    """Once ``done()`` holds; an AssertionError saying ``failure`` after ``timeout`` seconds."""
    wait_until(done, bool, lambda _: failure, timeout, step)


async def pilot_until(
    pilot: Pilot[Any], done: Callable[[], object], failure: str, timeout: float = 30
) -> None:
    """Once ``done()`` holds of a running screen, its Pilot pausing between looks; an
    AssertionError saying ``failure`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, failure
        await pilot.pause(0.02)


def finds(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> list[bool]:
    """Whether each call of ``owner.method`` from now on found something (returned other
    than None), in order: the method is wrapped for the test, its answers unchanged."""
    found: list[bool] = []
    wrapped = getattr(owner, method)

    def counted(self: Any, *args: Any) -> Any:
        answer = wrapped(self, *args)
        found.append(answer is not None)
        return answer

    monkeypatch.setattr(owner, method, counted)
    return found


def lacking(what: str, packages: Iterable[str]) -> NoReturn:
    """The test needs ``what``, which this machine lacks: skipped, saying so and how to install
    it; under CI (``CI`` set, as ``.ci/run`` sets it), where everything is installed, failed."""
    reason = f"needs {what}: apt-get install {' '.join(dict.fromkeys(packages))}"
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (.ci/run installs it)")
    pytest.skip(reason)


def need(*programs: str) -> None:
    """Skip (or under CI fail) a test on a machine without these programs (``lacking``)."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        lacking(", ".join(missing), (PACKAGES[p] for p in missing))


def chromium() -> str:
    """The headless browser the web and recap tests drive (``need``)."""
    need("chromium")
    return str(shutil.which("chromium"))


#: how Chromium runs in a container without a desktop
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class Done(NamedTuple):
    """What a run of ``margin`` left: its exit status, standard output and standard error."""

    code: int
    out: str
    err: str


def run_margin(*args: str, stdin: str | bytes = "") -> Done:
    """``margin ARGS`` in this process, reading ``stdin`` (bytes may be invalid UTF-8)."""
    raw = stdin.encode() if isinstance(stdin, str) else stdin
    # real text streams over bytes, as a terminal or pipe gives margin, not StringIO
    fake_in = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out = io.BytesIO()
    fake_out = io.TextIOWrapper(out, encoding="utf-8")
    fake_err = io.StringIO()
    real = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        fake_out.flush()
        sys.stdin, sys.stdout, sys.stderr = real
    # a file name that is not UTF-8 is written as its bytes: read back as Python names it
    return Done(code, out.getvalue().decode("utf-8", "surrogateescape"), fake_err.getvalue())


def margin_output(*args: str, stdin: str | bytes = "") -> str:
    """What ``margin ARGS`` run in this process writes on standard output; it must succeed."""
    done = run_margin(*args, stdin=stdin)
    assert done.code == 0, (args, done.err)
    return done.out


def margin_demo(folder: Path, system: str, name: str = "demo.margin") -> str:
    """The path of the table ``margin demo`` writes in ``folder`` for ``system``."""
    path = str(folder / name)
    margin_output("demo", path, "--system", system)
    return path


def state_json(table: str | Path, *args: str) -> Any:
    """The table's state as ``margin state TABLE --json ARGS`` writes it."""
    return json.loads(margin_output("state", str(table), "--json", *args))


def log_json(table: str | Path, *args: str) -> list[Any]:
    """The table's records as ``margin log TABLE --json ARGS`` writes them, one a line."""
    return [
        json.loads(line) for line in margin_output("log", str(table), "--json", *args).splitlines()
    ]


def margin_do(table: str | Path, *commands: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """``margin do TABLE`` fed ``commands``, a JSON line each: its exit status and its replies."""
    done = run_margin("do", str(table), stdin="".join(json.dumps(c) + "\n" for c in commands))
    return done.code, [json.loads(line) for line in done.out.splitlines()]


def margin_process(
    *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``margin ARGS`` as a process of its own, for what only a process shows (signals, exit
    status, locks held by another process, a terminal's absence)."""
    return subprocess.run(
        [*MARGIN, *args], input=stdin, capture_output=True, text=True, timeout=timeout
    )


#: A store-level writer, signing as the GM, that takes a table's turn to write, says
#: "holding", and keeps the turn until a line comes on its standard input; then it appends
#: ``HELD_NOTE``.
TURN_HOLDER = """
import sys
from margin.events import Draft, Noted, open_store
from margin.tui.table.keys import sign_as_gm

store = sign_as_gm(open_store(sys.argv[1]))

def decide():
    print("holding", flush=True)
    sys.stdin.readline()
    return [Draft(Noted(text=sys.argv[2]))], store.refresh()

store.append_decided(decide, command="holder")
store.close()
"""
HELD_NOTE = "written by the holder of the turn"


def python_process(script: str, *args: str) -> subprocess.Popen[str]:
    """Python running ``script`` with ``args`` on its own, fed and read a line at a time
    through pipes."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )


@contextlib.contextmanager
def turn_held(table: str) -> Iterator[Callable[[], None]]:
    """Another process holding ``table``'s turn to write (``TURN_HOLDER``) while the block
    runs; the block gets a function that lets it go (at the end, if the block did not)."""
    holder = python_process(TURN_HOLDER, table, HELD_NOTE)
    assert holder.stdin is not None
    assert holder.stdout is not None
    stdin = holder.stdin

    def let_go() -> None:
        if not stdin.closed:
            stdin.close()
            assert holder.wait(30) == 0

    try:
        assert holder.stdout.readline() == "holding\n"
        yield let_go
    finally:
        let_go()
        holder.stdout.close()


#: A band as a rules text states it: lowest and highest value (None: no end), and its name.
Band = tuple[int | None, int | None, str]


def exported_notes(folder: Path, name: str, commands: int) -> tuple[Path, Path]:
    """A table ``folder/name.margin`` of ``commands`` signed commands of 100 long notes each
    after its first record, and its export ``folder/name.jsonl``."""
    path = folder / f"{name}.margin"
    table = Table.create(path, "2d10-edge")
    for k in range(commands):
        drafts = [Draft(Noted(text=f"command {k} note {i} " + "x" * 80)) for i in range(100)]
        table.store.append(drafts, table.store.last_seq, command=f"c{k:04d}")
    table.close()
    dump = folder / f"{name}.jsonl"
    with dump.open("wb") as out:
        assert subprocess.run([*MARGIN, "export", str(path)], stdout=out).returncode == 0
    return path, dump


def margin_writer(table: str, *args: str) -> subprocess.Popen[str]:
    """``margin do TABLE ARGS`` running on its own, fed and read a line at a time through pipes."""
    return subprocess.Popen(
        [*MARGIN, "do", table, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
    )


def tamper(path: Path | str, *statements: str | tuple[str, tuple[Any, ...]]) -> None:
    """Change a table file behind margin's back: each SQL statement (or statement and its
    parameters) in one committed transaction."""
    db = sqlite3.connect(path)
    try:
        for statement in statements:
            sql, params = (statement, ()) if isinstance(statement, str) else statement
            db.execute(sql, params)
        db.commit()
    finally:
        db.close()


def one(events: Iterable[Any], kind: type[_Kind]) -> _Kind:
    """The first of ``events`` of type ``kind``."""
    return next(e for e in events if isinstance(e, kind))


def character(table: Table, name: str, kind: type[_Kind]) -> _Kind:
    """The character called ``name``, as its system's character type ``kind``."""
    found = table.state.characters[name]
    assert isinstance(found, kind)
    return found


def played_table(path: Path, system: str, title: str, demo: bool = True) -> Table:
    """A new table of ``system`` (its dice seeded) with the system's demo played on it."""
    table = Table.create(path, system, title=title)
    table.dice = RandomDice(11)
    for data in get_system(system).demo if demo else ():
        table.execute(convert_command(system, data))
    return table


def saved_table(path: Path, system: str, title: str, *then: Any, demo: bool = True) -> str:
    """A ``played_table`` with ``then`` (commands) run on it, closed for a screen to open: its
    path."""
    table = played_table(path, system, title, demo)
    for command in then:
        table.execute(command)
    table.close()
    return str(path)


def demo_opening(path: Path, system: str, count: int, **options: Any) -> Table:
    """A new table of ``system`` (with ``options``) with the first ``count`` commands of the
    system's demo played: its characters, mostly."""
    table = Table.create(path, system, options)
    for data in get_system(system).demo[:count]:
        table.execute(convert_command(system, data))
    return table


def opening_fixture(system: str, count: int, **options: Any) -> Any:
    """A ``table`` fixture: a table of ``system`` with the demo's first ``count`` commands
    played (``demo_opening``), closed after the test."""

    @pytest.fixture
    def table(tmp_path: Path) -> Iterator[Table]:
        with contextlib.closing(demo_opening(tmp_path / "t.margin", system, count, **options)) as t:
            yield t

    return table


def demo_sheet(system: str, last: bool = False, name: str | None = None) -> dict[str, Any]:
    """The sheet of the first (or ``last``, or the one called ``name``) character the system's
    demo adds."""
    added = [
        c
        for c in get_system(system).demo
        if c["type"] == "add-character" and name in (None, c["name"])
    ]
    if not added:
        return {}
    sheet: dict[str, Any] = added[-1 if last else 0].get("sheet", {})
    return sheet


def add_character(name: str, sheet: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """The JSON fields of adding a character called ``name`` with ``sheet`` (and ``more``, such
    as ``hidden``)."""
    return {
        "type": "add-character",
        "name": name,
        **({} if sheet is None else {"sheet": sheet}),
        **more,
    }


def band_of(value: int, bands: list[Band]) -> str:
    """The one band of the text's list that ``value`` falls in; the text's ranges must neither
    overlap nor leave a gap there."""
    found = [
        name
        for low, high, name in bands
        if (low is None or value >= low) and (high is None or value <= high)
    ]
    assert len(found) == 1, (value, found)
    return found[0]


def records_of(table: Table, **data: Any) -> list[Record]:
    """Run one command, given as its JSON fields, and return the records it appended."""
    return table.execute(convert_command(table.state.system, data))


def events_of(table: Table, **data: Any) -> list[Any]:
    """Run one command, given as its JSON fields, and return the events it appended."""
    return [r.event for r in records_of(table, **data)]


def check(who: str, skill: str, **more: Any) -> dict[str, Any]:
    """The JSON fields of a check of ``skill`` by ``who``, with ``more``."""
    return {"type": "check", "character": who, "skill": skill, **more}


def assist(helper: str, who: str, skill: str, **more: Any) -> dict[str, Any]:
    """The JSON fields of ``helper`` assisting ``who`` with ``skill`` (2d6-effect), with ``more``."""
    return {"type": "assist", "helper": helper, "character": who, "skill": skill, **more}


def short_form(line: str, table: Table) -> dict[str, Any] | None:
    """A line typed on the table screen, read by the grammar of the table's system."""
    parse = get_system(table.state.system).parse_words
    assert parse is not None
    return parse(line.split(), table.state)


def short_form_refused(line: str, table: Table, match: str) -> None:
    """The typed line is refused in one line matching ``match``."""
    with pytest.raises(RuleError, match=match) as caught:
        short_form(line, table)
    assert "\n" not in str(caught.value)


def refused(table: Table, match: str, **data: Any) -> None:
    """The command is refused in one line matching ``match``, and nothing is appended."""
    before = table.store.last_seq
    with pytest.raises(RuleError, match=match) as caught:
        events_of(table, **data)
    assert "\n" not in str(caught.value)
    assert table.store.last_seq == before, "nothing is appended on error"


def player_log(table: Table) -> list[dict[str, Any]]:
    """Every record of a table as players see it (``core.lens``), in their numbering."""
    lens = PlayerLens(table.state.revealed)
    return [data for record in table.store.records() if (data := lens.read(record)) is not None]


def player_state_of(table: Table) -> TableState:
    """The table's state now, as players see it."""
    lens = PlayerLens(table.state.revealed)
    lens.feed(table.store.records())
    world = get_system(table.state.system).player_world
    return player_state(table.state, lens, world, table.projection.history.voided)


def message(app: Any) -> str:
    """The screen's message line (what margin said of the last command)."""
    return str(app.query_one("#message").render())


async def settled(pilot: Pilot[Any]) -> None:
    """Pause until the screen has nothing left to write or fold: its table jobs (run in
    worker threads), the lines waiting for them, and what it shows of their answers."""
    app = pilot.app
    for _ in range(10_000):
        if app.return_code is not None or not getattr(app, "busy", False):
            return  # idle, or quit (a screen that quits cancels its workers)
        jobs = [worker for worker in app.workers if worker.group == "table"]
        if jobs:
            # even a job whose answer has come is cancelled when the screen quits
            with contextlib.suppress(WorkerCancelled):
                await app.workers.wait_for_complete(jobs)
        await _PAUSE(pilot)
    raise AssertionError("the screen is still busy with its table")


#: Pilot's own pause, before ``pilot_test`` makes it wait for the table too
_PAUSE = Pilot.pause
_PRESS = Pilot.press
#: whether Pilot's presses and pauses wait for the screen's table jobs (``unsettled``)
_settle = contextvars.ContextVar("settle", default=True)


async def _press_settled(pilot: Pilot[Any], *keys: str) -> None:
    await _PRESS(pilot, *keys)
    if _settle.get():
        await settled(pilot)


async def _pause_settled(pilot: Pilot[Any], delay: float | None = None) -> None:
    await _PAUSE(pilot, delay)
    if _settle.get():
        await settled(pilot)


@contextlib.contextmanager
def unsettled() -> Iterator[None]:
    """Presses and pauses that do not wait for the screen's writes (to test it while one is
    in flight)."""
    token = _settle.set(False)
    try:
        yield
    finally:
        _settle.reset(token)


def pilot_test(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test on its own event loop (no async plugin needed).

    The screen writes and folds in worker threads; here each of Pilot's presses and pauses
    also waits until those are done (``settled``), as a GM waits to see a line land."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Pilot, "press", _press_settled)
            patch.setattr(Pilot, "pause", _pause_settled)
            asyncio.run(test(*args, **kwargs))

    return run


def snapshot(table: Table) -> dict[str, Any]:
    """The characters and the world of a table's state, as plain values."""
    data = msgspec.to_builtins(table.state)
    return {"characters": data["characters"], "world": data["world"]}


def undo_redo_replay(table: Table, steps: list[dict[str, Any]], undo_every: int) -> None:
    """Run ``steps`` (JSON commands; a refused one changes nothing) and undo and redo every
    ``undo_every``-th: undo gives back the state before, redo the state after. Then the
    replay at every record, and the table opened again, give the state it had."""
    system = table.state.system
    seen: dict[int, dict[str, Any]] = {table.state.seq: snapshot(table)}
    for n, data in enumerate(steps):
        before, seq = snapshot(table), table.state.seq
        try:
            table.execute(convert_command(system, data))
        except RuleError:
            assert table.state.seq == seq
            assert snapshot(table) == before
            continue
        after = snapshot(table)
        seen[table.state.seq] = after
        if n % undo_every == 0:
            table.execute(Undo())
            assert snapshot(table) == before
            seen[table.state.seq] = before
            table.execute(Redo())
            assert snapshot(table) == after
            seen[table.state.seq] = after
    for at, state in seen.items():
        replayed = msgspec.to_builtins(table.projection.state_at(at))
        assert {"characters": replayed["characters"], "world": replayed["world"]} == state
    reopened = Table.open(table.store.name, readonly=True)
    assert snapshot(reopened) == snapshot(table)
    reopened.close()


def play(path: str) -> Any:
    """The GM's screen on the table at ``path``, its dice seeded."""
    app = play_app(path)
    app.view.table.dice = RandomDice(5)
    return app


@contextlib.asynccontextmanager
async def playing(path: str, size: tuple[int, int]) -> AsyncIterator[tuple[Any, Any]]:
    """The GM's screen on ``path`` (``play``) running in a terminal of ``size``, and its Pilot."""
    app = play(path)
    async with app.run_test(size=size) as pilot:
        yield app, pilot
