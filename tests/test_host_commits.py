"""A hosted session is told of each commit by its host, instead of asking the table 50
times a second: the host watches the table once and writes to a pipe each session's
process holds; the session follows at once, and looks by itself only now and then in
case a notice is lost."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path

import pytest
from hosting import (
    Host,
    Terminals,
    build_table,
    keys_file,
    make_keys,
    ssh_argv,
    the_hosts_gm,
    write,
)
from support import need, pilot_test, pilot_until, until

from margin.core.commands import Note
from margin.tui.host.commits import ENV, Commits, Files, told
from margin.tui.screens import app as appmod
from margin.tui.screens.base import TableApp

pytestmark = pytest.mark.slow

#: a ``margin host`` whose sessions look for commits by themselves only every FALLBACK
#: seconds (the first argument): what they show sooner, the host told them of
HOST = (
    sys.executable,
    "-c",
    "import sys; from margin.tui.host import commits; commits.FALLBACK = float(sys.argv.pop(1)); "
    "from margin.tui.cli import main; raise SystemExit(main())",
)


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


def test_a_hosted_session_is_told_of_another_process_commit_by_its_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("ssh", "ssh-keygen", "tmux")
    the_hosts_gm(tmp_path, monkeypatch)
    table = build_table(tmp_path / "fight.margin")
    keys = make_keys(tmp_path / "keys", ("gm", "Kael"))
    seats = keys_file(tmp_path / "seats.keys", keys)
    host = Host(table, seats, tmp_path / "data", program=(*HOST, "600"))
    terminals = Terminals(tmp_path)
    try:
        kael = terminals.open("kael", ssh_argv(host.port, keys["Kael"], "-tt", "127.0.0.1"))
        gm = terminals.open("gm", ssh_argv(host.port, keys["gm"], "-tt", "127.0.0.1"))
        kael.wait_for("watching as Kael")
        gm.wait_for("F1 lists the keys")
        sessions = host.wait_sessions(2)
        for pid in sessions:
            # each session was given its end of the host's pipe, and looks by itself only
            # every ten minutes: whatever it shows within the test, the host told it of
            fd, every = _environ(pid)[ENV].split()
            assert every == "600"
            assert os.readlink(f"/proc/{pid}/fd/{fd}").startswith("pipe:")
        for n in range(3):
            write(table, Note(text=f"a bell rings {n} times"))
            kael.wait_for(f"a bell rings {n} times", timeout=20)
            gm.wait_for(f"a bell rings {n} times", timeout=20)
    finally:
        terminals.close()
        host.stop()


def test_a_pipe_given_by_the_environment_is_read_only_when_it_is_one() -> None:
    read, write_end = os.pipe()
    try:
        assert told({ENV: f"{read} 0.5"}) == (read, 0.5)
        assert not os.get_blocking(read)
        assert told({}) is None
        assert told({ENV: f"{read}"}) is None
        assert told({ENV: f"{read} soon"}) is None
        assert told({ENV: f"{read} 0"}) is None
        assert told({ENV: "1 0.5"}) is None  # standard output is no pipe of the host's
        with open(os.devnull) as null:
            assert told({ENV: f"{null.fileno()} 0.5"}) is None  # open, but not a pipe
        os.close(write_end)
        write_end = -1
    finally:
        os.close(read)
        if write_end >= 0:
            os.close(write_end)


def test_the_host_tells_every_pipe_and_forgets_a_session_gone(tmp_path: Path) -> None:
    told_of = Commits(str(tmp_path / "t.margin"), fallback=2)
    first, host_first = told_of.pipe()
    second, host_second = told_of.pipe()
    assert told_of.env(first) == {ENV: f"{first} 2"}
    told_of.tell()
    assert os.read(first, 10) == b"\n"
    assert os.read(second, 10) == b"\n"
    # a pipe nobody reads fills up, and the host drops the notices it cannot write
    for _ in range(70_000):
        told_of.tell()
    os.close(second)  # that session is gone
    told_of.tell()
    assert told_of.pipes == {host_first}
    told_of.stop()
    assert told_of.pipes == set()
    assert os.read(first, 1 << 20)  # what was told before the host stopped
    assert os.read(first, 10) == b""  # and then the host's end closed
    os.close(first)


@pilot_test
async def test_a_told_screen_follows_at_once_and_looks_by_itself_as_a_fallback(
    tmp_path: Path,
) -> None:
    path = build_table(tmp_path / "fight.margin")
    pipes = [os.pipe(), os.pipe()]
    for read, _ in pipes:
        os.set_blocking(read, False)
    player = appmod.watch_app(str(path), "Kael")
    player.told = (pipes[0][0], 600.0)
    gm = appmod.play_app(str(path))
    gm.told = (pipes[1][0], 0.2)
    async with player.run_test(size=(100, 30)) as pilot:

        def shows(app: TableApp, text: str) -> bool:
            rows = app.view.rows(0, app.view.log_len())
            return any(text in row.text for row in rows)

        # what the pipe tells the screen, counted: looking by itself only every ten
        # minutes, the screen can follow this commit only because it was told of it
        told: list[bool] = []
        commit_told = player.commit_told

        def counted() -> None:
            told.append(True)
            commit_told()

        player.commit_told = counted  # type: ignore[method-assign]
        await pilot_until(pilot, lambda: player.watching, "never opened")
        write(path, Note(text="the tide turns"))
        os.write(pipes[0][1], b"\n")
        await pilot_until(pilot, lambda: shows(player, "the tide turns"), "never followed")
        assert told
        # the host going (its end closed): the screen looks by itself, as often as untold
        os.close(pipes[0][1])
        await pilot_until(pilot, lambda: player.told is None, "never saw the host go")
        write(path, Note(text="gulls circle"))
        await pilot_until(pilot, lambda: shows(player, "gulls circle"), "never looked again")
    async with gm.run_test(size=(100, 30)) as pilot:
        # a notice lost: the screen's own look, every 0.2 s here, still finds the record
        write(path, Note(text="a ship's lantern"))
        await pilot_until(pilot, lambda: shows(gm, "a ship's lantern"), "never looked itself")
    for fd in (pipes[1][0], pipes[1][1]):
        os.close(fd)


@pytest.mark.parametrize("kernel", [True, False], ids=["inotify", "asking"])
def test_the_host_tells_of_a_commit_whether_the_kernel_says_a_file_was_written_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: bool
) -> None:
    path = build_table(tmp_path / "fight.margin")
    if not kernel:
        monkeypatch.setattr(Files, "watch", classmethod(lambda cls, folder: None))

    async def notice(read: int, within: float = 30) -> bool:
        """Whether the host tells of a commit on the pipe within ``within`` seconds."""
        end = asyncio.get_running_loop().time() + within
        while True:
            try:
                return bool(os.read(read, 100))
            except BlockingIOError:
                if asyncio.get_running_loop().time() > end:
                    return False
                await asyncio.sleep(0.01)

    async def told_of_commits() -> int:
        watch = Commits(str(path))
        read, _ = watch.pipe()
        os.set_blocking(read, False)
        watch.start()
        # the kernel's word is read on the host's loop; else a thread asks the table, which
        # the watch has open as it starts: a commit at once is told
        assert (watch._files is not None) is kernel
        assert (watch._thread is not None) is not kernel
        told = 0
        try:
            for n in range(3):
                with contextlib.suppress(BlockingIOError):
                    os.read(read, 100)  # nothing is left over to be taken for this commit
                await asyncio.to_thread(write, path, Note(text=f"wave {n}"))
                told += await notice(read)
        finally:
            await asyncio.to_thread(watch.stop)
            os.close(read)
        return told

    assert asyncio.run(told_of_commits()) == 3


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
def test_the_kernel_names_the_files_written_in_the_watched_folder(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    files = Files.watch(tmp_path)
    assert files is not None
    seen: set[bytes] = set()

    def named() -> bool:
        seen.update(files.names())
        return b"t.margin-wal" in seen

    try:
        (tmp_path / "elsewhere" / "other.margin-wal").write_bytes(b"x")
        (tmp_path / "t.margin-wal").write_bytes(b"x")
        until(named, "the kernel never named the file written")
        assert b"other.margin-wal" not in seen, "a file in another folder is not watched"
    finally:
        files.close()
