"""``margin host`` against clients that ask for too much: many connections with one key, many
channels on one connection, a terminal of 30000 by 30000, a session that grows, sheet files
that are pipes or lie outside the host's folder. Driven by the real OpenSSH client (and, to
ask for sizes no terminal has, asyncssh's)."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import struct
import subprocess
import tempfile
import termios
import threading
import time

import asyncssh
import pytest
from hosting import (
    Terminals,
    build_table,
    hosted,
    keys_file,
    make_keys,
    resident,
    ssh_argv,
    wait_gone,
)
from mixing import GmScreen
from support import demo_sheet, need, run_margin

from margin.tui.table.notices import MAX_BYTES, Notices, post

pytestmark = pytest.mark.slow

#: the limits the module's host runs with, small enough to reach
PER_SEAT, CHANNELS, SESSIONS, COLS, ROWS, MEMORY = 2, 2, 3, 120, 40, 150


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    need("ssh", "ssh-keygen", "tmux")
    folder = tmp_path_factory.mktemp("limits")
    sheets = folder / "sheets"
    sheets.mkdir()
    os.mkfifo(sheets / "pipe.json")
    (sheets / "mook.json").write_text(json.dumps(demo_sheet("2d10-edge")), encoding="utf-8")
    (folder / "outside.json").write_text(json.dumps(demo_sheet("2d10-edge")), encoding="utf-8")
    options = (
        *("--per-seat", str(PER_SEAT), "--channels", str(CHANNELS), "--sessions", str(SESSIONS)),
        *("--max-size", f"{COLS}x{ROWS}", "--memory", str(MEMORY), "--sheets", str(sheets)),
    )
    host, table, keys = hosted(folder, ("gm", "Kael", "Zed"), options=options)
    terminals = Terminals(folder)
    yield {"host": host, "keys": keys, "table": table, "terms": terminals, "dir": folder}
    terminals.close()
    host.stop()


@pytest.fixture(autouse=True)
def close_terminals(request):
    yield
    if "site" in request.fixturenames:
        site = request.getfixturevalue("site")
        site["terms"].close_all()
        site["host"].wait_sessions(0)


def join(site, seat, name, *flags):
    argv = ssh_argv(site["host"].port, site["keys"][seat], *flags, "-tt", "127.0.0.1")
    return site["terms"].open(name, argv)


def test_fifty_connections_with_one_key_get_the_seats_sessions_and_one_line_each(site, tmp_path):
    host = site["host"]
    before = resident(host.proc.pid)
    most = [0]
    watching = threading.Event()

    def count():
        while not watching.is_set():
            most[0] = max(most[0], len(host.sessions()))
            time.sleep(0.01)

    counter = threading.Thread(target=count)
    counter.start()
    argv = ssh_argv(host.port, site["keys"]["Kael"], "-tt", "127.0.0.1")
    outs = [tmp_path / f"out{n}" for n in range(50)]
    clients = [
        subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=out.open("wb"), stderr=subprocess.STDOUT
        )
        for out in outs
    ]
    try:
        end = time.monotonic() + 60
        while sum(c.poll() is not None for c in clients) < 50 - PER_SEAT:
            assert time.monotonic() < end, "the refused clients were never let go"
            time.sleep(0.05)
        refused = [c for c in clients if c.poll() == 1]
        host.wait_sessions(PER_SEAT)
        used = resident(host.proc.pid)
    finally:
        watching.set()
        counter.join()
        for client in clients:
            client.kill()
            client.wait()
    assert len(refused) == 50 - PER_SEAT
    assert most[0] == PER_SEAT
    line = f"margin: Kael has {PER_SEAT} sessions open already; close one and try again"
    said = [out.read_bytes().decode() for out, c in zip(outs, clients, strict=True) if c in refused]
    assert all(text.strip() == line for text in said), said[0]
    assert host.output().count("refused Kael over ssh 127.0.0.1:") == 50 - PER_SEAT
    assert "(--per-seat)" in host.output()
    # the sessions a seat may have, each within its memory, and the host as it was
    assert used <= before + PER_SEAT * MEMORY * 2**20, (before >> 20, used >> 20)


def test_sessions_in_all_and_channels_on_one_connection_are_limited(site):
    host = site["host"]
    control = os.path.join(tempfile.mkdtemp(prefix="m"), "c")
    master = ("-o", "ControlMaster=yes", "-o", f"ControlPath={control}")
    first = join(site, "Zed", "zed-master", *master)
    first.wait_for("Waiting for the GM to seat Zed")
    shared = ("-o", "ControlMaster=no", "-o", f"ControlPath={control}")
    second = join(site, "Zed", "zed-second", *shared)
    second.wait_for("Waiting for the GM to seat Zed")
    # a third channel on the same connection
    argv = ssh_argv(host.port, site["keys"]["Zed"], *shared, "-tt", "127.0.0.1")
    done = subprocess.run(argv, stdin=subprocess.PIPE, capture_output=True, text=True, timeout=20)
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"margin: this connection has {CHANNELS} sessions open already; close one and try again"
    )
    host.wait_line("(--channels)")
    kael = join(site, "Kael", "kael-third")
    kael.wait_for("watching as Kael")
    assert len(host.sessions()) == SESSIONS
    gm = join(site, "gm", "gm-refused")
    gm.wait_for("[exit 1]")
    assert f"margin: the host has {SESSIONS} sessions open, as many as it serves" in gm.screen()
    assert "refused gm over ssh" in host.wait_line("(--sessions)")


def test_the_gms_screen_says_which_seat_the_host_refused_and_why(site):
    host = site["host"]
    # the host is the module's: earlier tests' refusals are in its output already
    since = len(host.lines)
    gm = GmScreen(site["terms"], "gm-beside", str(site["table"]), site["dir"] / "data")
    for n in range(PER_SEAT):
        join(site, "Zed", f"zed-{n}").wait_for("Waiting for the GM to seat Zed")
    refused = join(site, "Zed", "zed-refused")
    refused.wait_for("[exit 1]")
    why = f"Zed has {PER_SEAT} sessions open already (--per-seat)"
    assert host.wait_line("refused Zed over ssh", since=since).endswith(why)
    # one line on the GM's screen, naming the seat and why
    gm.term.wait_for(f"host refused Zed: {why}")
    gm.quit()


async def _terminal(site, requests):
    """A session on a pseudo-terminal of the first size asked for, resized to each next one:
    the size the session's terminal had after each."""
    host = site["host"]
    found = []
    async with asyncssh.connect(
        "127.0.0.1",
        host.port,
        client_keys=[str(site["keys"]["Kael"])],
        known_hosts=None,
        config=None,
        agent_path=None,
    ) as conn:
        process = await conn.create_process(term_type="xterm", term_size=requests[0])
        pid = (await asyncio.to_thread(host.wait_sessions, 1))[0]
        for n, size in enumerate(requests):
            if n:
                process.change_terminal_size(*size)
            found.append(await asyncio.to_thread(_size_becomes, pid, size))
        process.close()
    return pid, found


def _size_becomes(pid, asked):
    """The session's terminal size once it has answered ``asked`` (the same or clamped)."""
    with open(f"/proc/{pid}/fd/0", "rb", buffering=0) as tty:
        end = time.monotonic() + 10
        while True:
            rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(tty, termios.TIOCGWINSZ, bytes(8)))
            if (cols, rows) == (min(asked[0], COLS), min(asked[1], ROWS)) or time.monotonic() > end:
                return cols, rows
            time.sleep(0.02)


def test_a_terminal_of_any_size_is_clamped_on_every_resize(site):
    asked = [(30000, 30000), (90, 30), (50000, 65535), (100, 35)]
    pid, sizes = asyncio.run(_terminal(site, asked))
    assert sizes == [(COLS, ROWS), (90, 30), (COLS, ROWS), (100, 35)]
    assert wait_gone(pid, 5) < 5


def test_a_hosted_gm_reads_sheets_from_the_hosts_folder_only(site):
    gm = join(site, "gm", "gm-sheets")
    gm.wait_for("type a command")
    gm.submit("add Rat from pipe.json", "not a regular file")
    gm.key("C-u")
    gm.submit("add Rat from ../outside.json", "no such file in the host's sheets folder")
    gm.key("C-u")
    gm.submit("add Mook from mook.json", "Mook joins the table")
    gm.submit("note the pipe did not hold the screen", "note: the pipe did not hold")


def test_a_session_that_holds_more_memory_than_allowed_is_ended_with_a_line(tmp_path, monkeypatch):
    need("ssh", "ssh-keygen", "tmux")
    host, table, keys = hosted(tmp_path, ("Kael",), options=("--memory", "20"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the host's, so the GM's
    told = Notices(table)
    terminals = Terminals(tmp_path)
    try:
        kael = terminals.open("kael", ssh_argv(host.port, keys["Kael"], "-tt", "127.0.0.1"))
        kael.wait_for("[exit 1]")
        got = kael.wait_received("more than the host allows (20 MiB); it was ended")
        assert "margin: your session held" in got
        assert "more than 20 MiB (--memory)" in host.wait_line("ended a session of Kael")
        host.wait_sessions(0)
        # what the GM's screens of the table are told
        (line,) = told.new()
        assert line.startswith("host ended a session of Kael: it held ")
        assert line.endswith(" MiB, more than 20 MiB (--memory)")
    finally:
        terminals.close()
        host.stop()


def test_a_host_without_a_sheets_folder_reads_no_sheet_file(tmp_path):
    need("ssh", "ssh-keygen", "tmux")
    host, _, keys = hosted(tmp_path, ("gm",))
    terminals = Terminals(tmp_path)
    try:
        gm = terminals.open("gm", ssh_argv(host.port, keys["gm"], "-tt", "127.0.0.1"), (140, 30))
        gm.wait_for("type a command")
        gm.submit("add Rat from /etc/passwd", "sheet files are off in this hosted session")
        assert "--sheets DIR" in gm.screen()
    finally:
        terminals.close()
        host.stop()


def test_bad_limits_are_one_line(tmp_path):
    table = build_table(tmp_path / "t.margin")
    keys = keys_file(tmp_path / "k", make_keys(tmp_path / "keys", ("Kael",)))
    for option, value, said in (
        ("--max-size", "30000", "--max-size '30000': expected COLSxROWS"),
        ("--max-size", "5x5", "at least 10x5"),
        ("--per-seat", "0", "expected a whole number, 1 or more"),
        ("--memory", "lots", "expected a whole number, 1 or more"),
        ("--sheets", str(tmp_path / "none"), "not a folder"),
    ):
        code, _, err = run_margin(
            "host", str(table), "--ssh", "0", "--keys", str(keys), option, value
        )
        assert code != 0
        assert err.count("\n") == 1, err
        assert said in err


def test_the_gms_screens_are_told_only_whole_lines_posted_since_they_opened(tmp_path, data_home):
    table = tmp_path / "t.margin"
    post(table, "host refused Zed: before the screen opened")
    told = Notices(table)
    assert told.new() == []
    post(table, "host refused Zed: one\nline")
    with told.path.open("a", encoding="utf-8") as out:
        out.write("half a li")
    assert told.new() == ["host refused Zed: one line"]
    with told.path.open("a", encoding="utf-8") as out:
        out.write("ne\n")
    assert told.new() == ["half a line"]
    assert Notices(tmp_path / "other.margin").new() == []
    with told.path.open("a", encoding="utf-8") as out:
        out.write("x" * MAX_BYTES + "\n")
    told.new()
    post(table, "host refused Zed: past the end")  # a flood stops here; the host still prints it
    assert told.new() == []
