"""``margin host`` over SSH, driven by the real OpenSSH client on 127.0.0.1.

Each seat's terminal is a tmux pane running ``ssh -tt``: what it shows is
read back from tmux, and every byte the session sent is kept, so the secrecy
checks cover everything that reached the player, not just the last frame.
"""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import threading
import time
from typing import Any

import pytest
from hosting import (
    GM_NOTE,
    HIDDEN_NAME,
    SEATS,
    SECRET_FACE,
    Host,
    Terminals,
    build_table,
    hosted,
    keys_file,
    make_keys,
    shows,
    ssh_argv,
    the_hosts_gm,
    write,
)
from support import margin_process, need, pilot_test, run_margin, until
from textual.command import CommandPalette

from margin.core.commands import AddCharacter
from margin.core.dicecheck import check_dice
from margin.events import open_store
from margin.tui.host.session import HostedWatch, session_app
from margin.tui.host.ssh import (
    NO_COMMAND,
    NO_PLAIN_GM,
    NO_PTY,
    HostError,
    parse_address,
    parse_keys,
    session_env,
)
from margin.tui.screens.watch import WaitingScreen
from margin.tui.table import seats
from margin.tui.table.table import Table

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    need("ssh", "sftp", "scp", "ssh-keygen", "tmux")
    folder = tmp_path_factory.mktemp("host")
    host, table, keys = hosted(folder, SEATS, strangers=("Stranger",))
    terminals = Terminals(folder)
    yield {"host": host, "keys": keys, "table": table, "terms": terminals, "dir": folder}
    terminals.close()
    host.stop()


@pytest.fixture(autouse=True)
def close_terminals(request, monkeypatch):
    """Each test acts as the host's GM, and its sessions end with it, so that later tests
    do not share the machine."""
    if "site" in request.fixturenames:
        the_hosts_gm(request.getfixturevalue("site")["dir"], monkeypatch)
    yield
    if "site" in request.fixturenames:
        request.getfixturevalue("site")["terms"].close_all()


def join(site, seat, name=None, size=(100, 30)):
    argv = ssh_argv(site["host"].port, site["keys"][seat], "-tt", "127.0.0.1")
    return site["terms"].open(name or seat.lower(), argv, size)


def run_ssh(site, seat, *extra, program="ssh", timeout=20, **kwargs):
    argv = ssh_argv(site["host"].port, site["keys"][seat], *extra, program=program)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kwargs)


def test_host_prints_its_key_and_how_to_join(site):
    out = site["host"].output()
    assert f"ssh 127.0.0.1:{site['host'].port} host key SHA256:" in out
    assert "Zed: not seated yet" in out
    key = site["dir"] / "data" / "margin" / "host_key"
    assert key.stat().st_mode & 0o077 == 0


def test_player_sees_their_view_and_new_records_live(site):
    from margin.core.commands import Note

    kael = join(site, "Kael")
    kael.wait_for("watching as Kael")
    write(site["table"], Note(text="a gull cries over the cliff"))
    kael.wait_for("a gull cries over the cliff")
    assert "Kael connected over ssh" in site["host"].output()


def test_a_player_back_over_ssh_reads_what_happened_while_away(site):
    from margin.core.commands import Note

    kael = join(site, "Kael", name="kael-away")
    kael.wait_for("watching as Kael")
    kael.type("q")
    kael.wait_for("[exit 0]")
    # Kael left long enough ago to be shown the digest (``seats.AWAY``)
    mark = seats.last_read(str(site["table"]), "kael")
    assert mark is not None
    seats.keep_read(str(site["table"]), "kael", mark.read, at=mark.at - seats.AWAY)
    write(site["table"], Note(text="the lighthouse goes dark"))
    write(site["table"], Note(text="a smuggler's signal", gm_only=True))
    back = join(site, "Kael", name="kael-back")
    shown = back.wait_for("since you left")
    assert "the lighthouse goes dark" in shown
    assert "smuggler" not in shown
    back.key("Enter")
    back.wait_for("watching as Kael")


def test_a_player_asks_over_ssh_and_the_gm_accepts_it_with_one_key(site):
    kael = join(site, "Kael")
    kael.wait_for("watching as Kael")
    kael.wait_for("the GM rules on it")
    kael.type(":")
    kael.wait_for("Enter gives it from your seat")
    kael.submit("say the cliff path is ours", "done: say the cliff path is ours")
    kael.submit("roll 2d6 for the climb", "asked the GM (request #")
    gm = join(site, "gm", name="gm-rules")
    gm.wait_for("F5 accepts the first")
    # the GM's seat lists Kael's, by the door it came in
    gm.wait_for("seated: Kael (ssh) up to date")
    gm.key("F5")
    gm.wait_for("GM accepts Kael's request")
    kael.wait_for("GM accepts Kael's request")
    table = Table.open(site["table"], readonly=True)
    try:
        # the accepted roll commits the session's dice: Kael's seat gives entropy to it
        # (``test_seats.py``), whenever its view sees the commitment
        kept = [r for r in table.store.records() if type(r.event).__name__ != "DiceEntropy"]
        said, asked, rolled, ruled = kept[-4:]
    finally:
        table.close()
    fingerprint = asked.author.removeprefix("kael (ssh ").removesuffix(")")
    assert fingerprint.startswith("SHA256:")
    assert said.author == asked.author == rolled.author == f"kael (ssh {fingerprint})"
    assert (type(asked.event).__name__, rolled.event.reason, ruled.author) == (
        "Requested",
        "the climb",
        "gm",
    )
    # a key's session cannot give another seat's command: the core refuses it in one line
    kael.submit("roll 2d6 as Zed", "Kael: roll actor: a player commands their own character")
    # the seat's own process gave the session committed by the accepted roll its entropy
    until(
        lambda: any(r.author == said.author for r in _entropy(site["table"])),
        "Kael's seat gave the dice no entropy",
        step=0.05,
    )
    assert check_dice(_records(site["table"])).problems == []


def _records(path):
    table = Table.open(path, readonly=True)
    try:
        return list(table.store.records())
    finally:
        table.close()


def _entropy(path):
    return [r for r in _records(path) if type(r.event).__name__ == "DiceEntropy"]


def test_session_follows_its_terminal_size(site):
    kael = join(site, "Kael", name="kael-resize", size=(100, 30))
    kael.wait_for("watching as Kael")
    assert max(len(line) for line in kael.screen().splitlines()) > 90
    kael.resize(72, 20)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = kael.screen().splitlines()
        if "watching" in kael.screen() and all(len(line) <= 72 for line in lines):
            footer = [line for line in lines if "palette" in line]
            if footer and footer[0].rstrip().endswith("palette") and len(footer[0]) > 60:
                break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the screen did not follow the resize:\n{kael.screen()}")


def test_gm_key_gets_the_table_screen_and_plays(site):
    gm = join(site, "gm")
    gm.wait_for("type a command")
    gm.submit("note the rope holds", "note: the rope holds")
    table = Table.open(site["table"], readonly=True)
    try:
        last = table.store.record(table.projection.seq)
    finally:
        table.close()
    assert last.event.text == "the rope holds"


def test_a_hosted_gm_signs_with_the_hosts_key_as_margin_play_would(tmp_path, monkeypatch):
    need("ssh", "ssh-keygen", "tmux")
    # the GM's margin data in a folder of its own, for the table, the host and the checks
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    host, table, keys = hosted(tmp_path, ("gm",))
    terminals = Terminals(tmp_path)
    try:
        gm = terminals.open("gm", ssh_argv(host.port, keys["gm"], "-tt", "127.0.0.1"))
        gm.wait_for("type a command")
        gm.submit("note signed over ssh", "note: signed over ssh")
    finally:
        terminals.close()
        host.stop()
    key = margin_process("key")
    assert key.returncode == 0, key.stderr
    verified = margin_process("verify", str(table), "--key", key.stdout.strip())
    assert verified.returncode == 0, verified.stderr
    with open_store(table, readonly=True) as store:
        last = store.record(store.last_seq)
    assert last.event.text == "signed over ssh"


def test_waiting_player_enters_when_seated_and_the_gm_leaving_ends_no_one_else(site):
    zed = join(site, "Zed")
    zed.wait_for("Waiting for the GM to seat Zed")
    gm = join(site, "gm", name="gm-seats")
    gm.wait_for("type a command")
    gm.submit("add Zed", "Zed joins")
    zed.wait_for("watching as Zed")
    gm.key("C-q")
    gm.wait_for("[exit 0]")
    from margin.core.commands import Note

    write(site["table"], Note(text="Zed hears the tide"))
    zed.wait_for("Zed hears the tide")


def test_secrets_never_reach_a_players_terminal(site):
    kael = join(site, "Kael", name="kael-secrets")
    kael.wait_for("watching as Kael")
    gm = join(site, "gm", name="gm-secrets")
    gm.wait_for("type a command")
    gm.submit("roll 1d1000 secret for trapdoor = 613", "for trapdoor: [613]")
    gm.submit("add Vesperine hidden", "Vesperine joins")
    gm.submit("note the lamp gutters", "note: the lamp gutters")
    kael.wait_for("the lamp gutters")
    kael.key("End")
    seen = kael.received()
    assert "trapdoor" in seen  # the secret roll reached the player: that it happened
    for secret in (str(SECRET_FACE), "613", HIDDEN_NAME, "Vesperine", GM_NOTE):
        assert not shows(seen, secret), f"{secret!r} reached the player"
    # the GM's own screen does show them
    assert "Vesperine" in gm.received()


def test_a_connection_without_a_pty_gets_one_line(site):
    done = run_ssh(site, "Kael", "-T", "127.0.0.1")
    assert done.returncode == 1
    assert done.stdout.strip() == NO_PTY


def test_ssh_plain_gives_a_player_the_plain_seat(site):
    from margin.core.commands import Note

    argv = ssh_argv(site["host"].port, site["keys"]["Kael"], "-tt", "127.0.0.1", "plain")
    kael = site["terms"].open("kael-plain", argv, (100, 30))
    kael.wait_for("* your turn, Kael")
    kael.wait_received("watching as Kael. Keys:")
    write(site["table"], Note(text="the tide is out"))
    kael.wait_for("the tide is out")
    kael.type("s")
    kael.wait_for("Kael: Edge")
    seen = kael.received()
    for secret in (str(SECRET_FACE), HIDDEN_NAME, GM_NOTE):
        assert not shows(seen, secret), f"{secret!r} reached the player"
    # appended lines only: no alternate screen, no cursor placed, no colour
    assert "\x1b[?1049h" not in kael.log.read_bytes().decode("utf-8", "replace")
    assert not re.search(
        r"\x1b\[\d+;\d+H|\x1b\[[0-9;]*m", kael.log.read_bytes().decode("utf-8", "replace")
    )
    kael.type("q")
    site["host"].wait_line("Kael left")


def test_the_gms_seat_has_no_plain_form(site):
    done = run_ssh(site, "gm", "-tt", "127.0.0.1", "plain")
    assert done.returncode == 1
    assert done.stdout.strip() == NO_PLAIN_GM


@pytest.mark.parametrize("command", ["bash", "cat /etc/passwd", "margin play"])
def test_commands_get_nothing(site, command):
    for flags in (["-T"], ["-tt"]):
        done = run_ssh(site, "Kael", *flags, "127.0.0.1", command)
        assert done.returncode == 1
        assert done.stdout.strip() == NO_COMMAND
        assert "root:" not in done.stdout


def test_sftp_and_scp_get_nothing(site, tmp_path):
    done = run_ssh(site, "Kael", "-b", "-", "127.0.0.1", program="sftp", input="ls /\n")
    assert done.returncode != 0
    assert "subsystem request failed" in done.stderr
    for legacy in ([], ["-O"]):
        target = tmp_path / f"passwd{len(legacy)}"
        done = run_ssh(site, "Kael", *legacy, "127.0.0.1:/etc/passwd", str(target), program="scp")
        assert done.returncode != 0
        assert not target.exists()


@pytest.fixture
def bystander():
    """A TCP server on 127.0.0.1 that counts the connections it gets."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            accepted.append(conn)
            conn.sendall(b"hello from the bystander\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join()
    server.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_all(sock):
    data = b""
    sock.settimeout(5)
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def forwarding(site, *flags):
    argv = ["-N", *flags, "127.0.0.1"]
    from hosting import ssh_argv as argv_of

    proc = subprocess.Popen(
        argv_of(site["host"].port, site["keys"]["Kael"], *argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return proc


def wait_listening(port, proc):
    end = time.monotonic() + 15
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=1)
        except OSError:
            time.sleep(0.05)
    raise AssertionError("ssh never listened")


def test_port_forwarding_gets_nothing(site, bystander):
    target, accepted = bystander
    local = free_port()
    proc = forwarding(site, "-L", f"{local}:127.0.0.1:{target}")
    try:
        conn = wait_listening(local, proc)
        with conn:
            assert read_all(conn) == b""
    finally:
        proc.kill()
        proc.wait()
    assert accepted == []


def test_socks_forwarding_gets_nothing(site, bystander):
    target, accepted = bystander
    local = free_port()
    proc = forwarding(site, "-D", str(local))
    try:
        conn = wait_listening(local, proc)
        with conn:
            conn.sendall(b"\x05\x01\x00")
            assert conn.recv(2) == b"\x05\x00"
            conn.sendall(b"\x05\x01\x00\x01" + socket.inet_aton("127.0.0.1") + target.to_bytes(2))
            reply = read_all(conn)
            # refused (a non-zero SOCKS reply code) or closed: never connected
            assert reply == b"" or reply[1] != 0
    finally:
        proc.kill()
        proc.wait()
    assert accepted == []


def test_an_unknown_key_is_refused(site):
    done = run_ssh(site, "Stranger", "-tt", "127.0.0.1")
    assert done.returncode == 255
    assert "Permission denied (publickey)" in done.stderr
    site["host"].wait_line("refused a key from 127.0.0.1")


def test_a_second_table_is_hosted_beside_the_first_and_stopping_ends_sessions_cleanly(site):
    folder = site["dir"] / "second"
    folder.mkdir()
    table = build_table(folder / "other.margin")
    from margin.core.commands import Note

    write(table, Note(text="the second table"))
    keys = keys_file(folder / "seats.keys", {"Kael": site["keys"]["Kael"]})
    second = Host(table, keys, site["dir"] / "data")
    try:
        assert second.port != site["host"].port
        argv = ssh_argv(second.port, site["keys"]["Kael"], "-tt", "127.0.0.1")
        other = site["terms"].open("kael-second", argv)
        first = join(site, "Kael", name="kael-first")
        other.wait_for("the second table")
        first.wait_for("watching as Kael")
        assert "the second table" not in first.screen()
    finally:
        assert second.stop() == 0
    other.wait_for("[exit 0]")
    other.wait_received("the host stopped")
    # the terminal was handed back: main screen, cursor shown
    raw = other.log.read_bytes()
    assert raw.rfind(b"\x1b[?1049l") > raw.rfind(b"\x1b[?1049h")
    # the first host still serves
    first.wait_for("watching as Kael")
    assert "Kael left" in second.output()


# -- arguments, without a server -------------------------------------------


def test_addresses():
    assert parse_address("2222", "--ssh") == ("127.0.0.1", 2222)
    assert parse_address("0.0.0.0:22", "--ssh") == ("0.0.0.0", 22)
    assert parse_address("[::1]:8080", "--web") == ("::1", 8080)
    with pytest.raises(HostError, match=r"--ssh 'abc': expected \[ADDR:\]PORT"):
        parse_address("abc", "--ssh")
    with pytest.raises(HostError, match="PORT 0-65535"):
        parse_address("70000", "--web")


def test_keys_file_lines(tmp_path):
    keys = make_keys(tmp_path, ("a", "b"))
    a = keys["a"].with_suffix(".pub").read_text().split()
    b = keys["b"].with_suffix(".pub").read_text().split()
    seats = parse_keys(f"# comment\n\nGM {a[0]} {a[1]} laptop\nKael {b[0]} {b[1]}\n", "k")
    assert sorted(seats.values()) == ["Kael", "gm"]
    with pytest.raises(HostError, match=r"^k:1: expected NAME KEYTYPE BASE64"):
        parse_keys("Kael ssh-ed25519\n", "k")
    with pytest.raises(HostError, match=r"^k:1: Kael: not an SSH public key"):
        parse_keys("Kael ssh-ed25519 AAAAnotakey\n", "k")
    with pytest.raises(HostError, match=r"^k:2: Vask: the same key is already Kael's"):
        parse_keys(f"Kael {b[0]} {b[1]}\nVask {b[0]} {b[1]}\n", "k")
    with pytest.raises(HostError, match="no keys"):
        parse_keys("# nobody\n", "k")


def _public(algorithm: str, **kwargs: Any) -> str:
    import asyncssh

    key = asyncssh.generate_private_key(algorithm, **kwargs)
    return key.export_public_key().decode().strip()


def test_keys_file_takes_strong_keys_only_and_no_options():
    strong = {
        "Ann": _public("ssh-ed25519"),
        "Bo": _public("ecdsa-sha2-nistp256"),
        "Cy": _public("ssh-rsa", key_size=2048),
    }
    seats = parse_keys("".join(f"{name} {key}\n" for name, key in strong.items()), "k")
    assert sorted(seats.values()) == ["Ann", "Bo", "Cy"]
    ed25519 = strong["Ann"]
    bad = [
        f"Dee {_public('ssh-dss')}",
        f"Eve {_public('ssh-rsa', key_size=1024)}",
        f"restrict,pty {ed25519}",
        f'command="margin watch t --as Kael" {ed25519}',
        f"no-pty {ed25519}",
        f"Fay {ed25519}",
    ]
    with pytest.raises(HostError) as caught:
        parse_keys("\n".join(bad) + "\n", "k")
    lines = str(caught.value).splitlines()
    assert (
        lines[0]
        == "k:1: Dee: ssh-dss keys are not accepted; use ed25519, ECDSA or RSA of 2048 bits"
    )
    assert lines[1] == "k:2: Eve: an RSA key of 1024 bits is too weak; use 2048 or more, or ed25519"
    options = "is an authorized_keys option, not a seat; a line is NAME KEYTYPE BASE64 [comment]"
    assert lines[2] == f"k:3: 'restrict,pty' {options}, with no options"
    assert lines[3].startswith("k:4: 'command=\"margin")
    assert options in lines[3]
    assert lines[4] == f"k:5: 'no-pty' {options}, with no options"
    assert len(lines) == 5, "Fay's line is good: only the bad lines are named"


def test_bad_host_arguments_are_one_line(tmp_path):
    table = build_table(tmp_path / "t.margin")
    keys = tmp_path / "k"
    keys.write_text("Kael ssh-ed25519 AAAAnotakey\n")
    code, _, err = run_margin("host", str(table), "--ssh", "2222", "--keys", str(keys))
    assert code == 1
    assert err.count("\n") == 1
    assert "not an SSH public key" in err
    code, _, err = run_margin("host", str(table), "--ssh", "x:y", "--keys", str(keys))
    assert code == 1
    assert "--ssh 'x:y'" in err
    code, _, err = run_margin("host", str(table), "--ssh", "0", "--keys", str(tmp_path / "none"))
    assert code == 1
    assert "none" in err
    assert err.count("\n") == 1


def test_sessions_get_no_environment_of_the_host_or_the_client(data_home):
    env = session_env("xterm-256color")
    assert set(env) == {"PATH", "LANG", "PYTHONDONTWRITEBYTECODE", "TERM", "XDG_DATA_HOME"}
    # the host's data folder, so that a GM's session signs with the host's key
    assert env["XDG_DATA_HOME"] == str(data_home)
    assert session_env("xterm; rm -rf /")["TERM"] == "xterm-256color"
    assert "TERM" not in session_env(None)


async def _until(pilot, condition):
    for _ in range(1000):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("the session never got there")


@pilot_test
async def test_a_player_seated_while_the_command_palette_is_open_gets_their_view(tmp_path):
    table = build_table(tmp_path / "fight.margin")
    app = session_app(str(table), "Zed")
    assert isinstance(app, HostedWatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await _until(pilot, lambda: isinstance(app.screen, CommandPalette))
        write(table, AddCharacter(name="Zed"))
        await _until(pilot, lambda: app.watching and len(app.screen_stack) == 1)
        await pilot.pause()
        assert "watching as Zed" in str(app.query_one("#header").render())
    app.table.close()


@pilot_test
async def test_an_unexpected_error_in_a_hosted_session_is_one_line(tmp_path, monkeypatch, capsys):
    table = build_table(tmp_path / "fight.margin")
    app = session_app(str(table), "Zed")
    assert isinstance(app, HostedWatch)

    def broken(self):
        raise KeyError(HIDDEN_NAME)

    monkeypatch.setattr(WaitingScreen, "look_for_seat", broken)
    # the session runs until the waiting screen's next look for the seat ends it
    await asyncio.wait_for(app.run_async(headless=True, size=(100, 30)), 60)
    assert app.return_code == 1
    app.table.close()
    shown = capsys.readouterr()
    said = (shown.out + shown.err).strip()
    assert said == "margin: this session ended on an error margin did not expect (KeyError)"


def test_a_second_unexpected_error_on_the_way_out_adds_nothing(tmp_path, capsys):
    # a timer that fires again before the session has closed: still the one line
    table = build_table(tmp_path / "fight.margin")
    app = session_app(str(table), "Zed")
    try:
        app._handle_exception(KeyError(HIDDEN_NAME))
        app._handle_exception(ValueError(HIDDEN_NAME))
        app._print_error_renderables()
    finally:
        app.table.close()
    shown = capsys.readouterr()
    said = (shown.out + shown.err).strip()
    assert said == "margin: this session ended on an error margin did not expect (KeyError)"


STUCK_SESSION = """
import asyncio, time
from margin.tui.host import session

async def screen():
    print("ready", flush=True)
    while True:  # busy on the loop's own thread, waiting for a database that went away
        time.sleep(0.05)

session.STOP_GRACE = 0.5
session.end_on_signals(lambda: None)
asyncio.run(screen())
"""


def test_a_session_stuck_on_its_screen_still_ends_when_its_host_goes() -> None:
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", STUCK_SESSION], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_host_whose_output_went_away_says_nothing_more_and_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``margin host ... | tee host.log`` and Ctrl+C: tee ends with the host, whose next
    line ("stopping: ending every session") must not end it before its sessions are
    ended cleanly (each client's terminal restored)."""
    import io
    import sys

    from margin.tui import cli

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Gone())
    cli._say("stopping: ending every session")
    cli._say("gm left (ssh 127.0.0.1:4000)")
    assert not isinstance(sys.stdout, Gone)
