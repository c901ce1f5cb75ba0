"""What players acting from their own seats costs: a request's way to the GM, and the check.

    python bench/players.py [--players 20] [--requests 60] [--reps 30]

In one run, on the 2d10-edge demo table with PLAYERS seated characters:

1. a player's request from Enter on their screen to the GM's screen, over SSH: a real
   ``margin host`` process, the GM's session and every player's connected (asyncssh
   clients with a 100x30 pseudo-terminal) under ``players=ask``. A player opens their
   command line (``:``), types a check and, once the line is on their screen, presses
   Enter; the time runs from that Enter to the moment the GM's terminal output holds the
   request. Players take turns at random intervals of 80-250 ms. First with one player
   seated alone beside the GM (the baseline, same run), then with every player.
   Target: p99 under 250 ms with 20 players.
2. the authority check's cost per record: a player's check under ``trust`` decided in
   memory (authorised, decided, each record named the seat's) against the same check
   decided as the GM's, the two timed rep by rep in turn (which goes first alternates);
   the ratio of the two best reps, and the check itself (``authorize``) timed alone
   against the GM's decision. Target: under 5% more.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import asyncssh
from host import Screen, cpu_seconds, host_port, percentile, processes

from margin.core import decide
from margin.core.authority import GM_SEAT, Seat, authorize
from margin.core.commands import AddCharacter, SetOption, convert_command
from margin.tui.table.demo import build_demo
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

SIZE = (100, 30)
CHECK = {"type": "check", "character": "Kael", "skill": "athletics", "tn": 15}


def build(folder: Path, players: int) -> tuple[Path, list[str], dict[str, asyncssh.SSHKey]]:
    """The demo table with ``players`` copies of Kael's sheet, and a key for every seat."""
    path = folder / "bench.margin"
    table = build_demo(path, "2d10-edge")
    sheet = dict(table.state.characters["kael"].sheet)
    names = [f"P{n:02d}" for n in range(1, players + 1)]
    for name in names:
        table.execute(AddCharacter(name=name, sheet=sheet))
    if table.state.options.get("players") != "ask":
        table.execute(SetOption(name="players", value="ask"))
    table.close()
    keys = {name: asyncssh.generate_private_key("ssh-ed25519") for name in ["gm", *names]}
    lines = [f"{name} {key.export_public_key().decode().strip()}" for name, key in keys.items()]
    (folder / "seats.keys").write_text("\n".join(lines) + "\n")
    return path, names, keys


class Seated:
    """One SSH session at the table: its connection, its input and what it was sent."""

    def __init__(self, conn: asyncssh.SSHClientConnection, chan: object, screen: Screen):
        self.conn, self.chan, self.screen = conn, chan, screen

    def send(self, text: str) -> None:
        self.chan.write(text.encode())  # type: ignore[attr-defined]

    async def shows(self, text: str, timeout: float = 30) -> float:
        if text.encode() in self.screen.data:
            return time.perf_counter()
        return await asyncio.wait_for(self.screen.expect(text), timeout)


async def sit(port: int, key: asyncssh.SSHKey, ready: str) -> Seated:
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="bench", client_keys=[key], known_hosts=None, agent_path=None
    )
    chan, screen = await conn.create_session(
        Screen, term_type="xterm-256color", term_size=SIZE, encoding=None
    )
    seated = Seated(conn, chan, screen)
    await seated.shows(ready, 60)
    return seated


async def open_line(player: Seated) -> None:
    """The player's command line, open for their checks (``:`` once the seat can act)."""
    for _ in range(60):
        player.send(":")
        try:
            await player.shows("Enter gives it", 1)
            return
        except TimeoutError:
            continue
    raise TimeoutError("a player's command line never opened")


#: when each request's Enter was pressed, by wall clock (its mark -> seconds since the epoch)
ENTERED: dict[str, float] = {}


async def requests(
    gm: Seated,
    players: dict[str, Seated],
    count: int,
    tag: str,
    roles: dict[str, list[int]] | None = None,
) -> list[float]:
    """``count`` requests, players in turn: each one's ms from Enter to the GM's screen.
    With ``roles``, the processor time of each role is added up in ``CPU``, typing (from
    the first key to Enter) apart from the rest (from Enter to the next line's first key)."""
    delays: list[float] = []
    names = list(players)
    spent = {f"{role} {part}": 0.0 for role in roles or () for part in ("typing", "after Enter")}

    def count_cpu(part: str, sign: float) -> None:
        for role, pids in (roles or {}).items():
            spent[f"{role} {part}"] += sign * cpu_seconds(pids)

    for n in range(count):
        await asyncio.sleep(random.uniform(0.08, 0.25))
        name = names[n % len(names)]
        player = players[name]
        mark = f"{tag}{n:03d}"
        line = f"check {name.lower()} athletics vs 15 for {mark}"
        if n:
            count_cpu("after Enter", +1)
        count_cpu("typing", -1)
        # the line emptied first (Home, then delete to its end)
        player.send(f"\x1b[H\x0b{line}")
        await player.shows(mark)
        arrived = gm.screen.expect(mark)
        asked = player.screen.expect("asked the GM")
        count_cpu("typing", +1)
        count_cpu("after Enter", -1)
        start = time.perf_counter()
        ENTERED[mark] = time.time()
        player.send("\r")
        delays.append((await asyncio.wait_for(arrived, 30) - start) * 1000)
        await asyncio.wait_for(asked, 30)
    await asyncio.sleep(0.5)
    count_cpu("after Enter", +1)
    CPU.update({k: v / count for k, v in spent.items()})
    return delays


def start_host(path: Path, folder: Path, sessions: int) -> tuple[subprocess.Popen[str], int]:
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data"), "PYTHONUNBUFFERED": "1"}
    host = subprocess.Popen(
        [sys.executable, "-m", "margin.tui", "host", str(path), "--ssh", "0",
         "--keys", str(folder / "seats.keys"), "--sessions", str(sessions)],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    return host, host_port(host)


async def over_ssh(
    folder: Path, players: int, count: int
) -> tuple[list[float], list[float], dict[str, float]]:
    """Enter to the GM's screen: one player seated alone, then all ``players``."""
    path, names, keys = build(folder, players)
    host, port = start_host(path, folder, len(keys))
    seats: list[Seated] = []
    try:
        gm = await sit(port, keys["gm"], "F1 lists the keys")
        first = await sit(port, keys[names[0]], "watching as")
        seats += [gm, first]
        await open_line(first)
        alone = await requests(gm, {names[0]: first}, count, "alone")
        others = await asyncio.gather(*(sit(port, keys[n], "watching as") for n in names[1:]))
        seats += others
        everyone = {names[0]: first, **dict(zip(names[1:], others, strict=True))}
        await asyncio.gather(*(open_line(p) for p in others))
        full = await requests(gm, everyone, count, "full", sessions(host.pid))
    finally:
        for seat in seats:
            seat.conn.close()
        host.terminate()
        host.wait(20)
    return alone, full, written(path)


#: processor seconds a request cost each part of the host (its role -> seconds)
CPU: dict[str, float] = {}


def sessions(host: int) -> dict[str, list[int]]:
    """The host's processes by role: the SSH server, the GM's session, the players'."""
    roles: dict[str, list[int]] = {"host": [host], "gm session": [], "player sessions": []}
    for pid in processes(host)[1:]:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"margin.tui.host.session" in argv:
            seat = argv[argv.index(b"margin.tui.host.session") + 2]
            roles["gm session" if seat == b"gm" else "player sessions"].append(pid)
    return roles


def written(path: Path) -> dict[str, float]:
    """ms from each request's Enter to its record's time in the log (its mark -> ms)."""
    table = Table.open(str(path), readonly=True)
    try:
        found = {}
        for record in table.store.records():
            asked = getattr(record.event, "asked", None)
            if isinstance(asked, dict) and asked.get("reason") in ENTERED:
                at = datetime.fromisoformat(str(record.at).replace("Z", "+00:00")).timestamp()
                found[asked["reason"]] = (at - ENTERED[asked["reason"]]) * 1000
        return found
    finally:
        table.close()


def authority_cost(folder: Path, reps: int, repeats: int) -> tuple[float, float, float]:
    """Best seconds per check decided as the GM's and from a player's seat under ``trust``,
    the reps in turn; and per authority check alone."""
    path = folder / "authority.margin"
    build_demo(path, "2d10-edge").close()
    table = Table.open(str(path))
    table.execute(SetOption(name="players", value="trust"))
    command = convert_command("2d10-edge", CHECK)
    state, history = table.state, table.projection.history
    seat = Seat("Kael", "ssh", "SHA256:bench")
    best = {"gm": float("inf"), "player": float("inf"), "check": float("inf")}

    def gm() -> None:
        decide(command, state, dice, history, GM_SEAT)

    def player() -> None:
        decide(command, state, dice, history, seat)

    def check() -> None:
        authorize(seat, command, state)

    dice = RandomDice(1)
    for rep in range(reps):
        order = [("gm", gm), ("player", player), ("check", check)]
        for who, run in order if rep % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            for _ in range(repeats):
                run()
            best[who] = min(best[who], (time.perf_counter() - start) / repeats)
    table.close()
    return best["gm"], best["player"], best["check"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=300)
    args = parser.parse_args()
    random.seed(7)
    with tempfile.TemporaryDirectory(prefix="margin-bench-") as name:
        folder = Path(name)
        gm, player, check = authority_cost(folder, args.reps, args.repeats)
        alone, full, wrote = asyncio.run(over_ssh(folder, args.players, args.requests))
    print(f"a player's request over SSH, Enter to the GM's screen ({args.requests} each):")
    for label, values in (
        ("one player seated (baseline)", alone),
        (f"{args.players} players", full),
    ):
        print(
            f"  {label}: p50 {statistics.median(values):.0f} ms, "
            f"p99 {percentile(values, 99):.0f} ms, max {max(values):.0f} ms"
        )
    for tag in ("alone", "full"):
        part = [ms for mark, ms in wrote.items() if mark.startswith(tag)]
        if part:
            print(
                f"  of which Enter to the record written ({tag}): p50 "
                f"{statistics.median(part):.0f} ms, p99 {percentile(part, 99):.0f} ms"
            )
    print(f"  processor time a request, {args.players} players:")
    for part in ("typing", "after Enter"):
        print(
            f"    {part}: "
            + ", ".join(
                f"{role.removesuffix(' ' + part)} {seconds * 1000:.1f} ms"
                for role, seconds in CPU.items()
                if role.endswith(part)
            )
        )
    ratio = percentile(full, 99) / percentile(alone, 99)
    verdict = "met" if percentile(full, 99) < 250 else "MISSED"
    print(
        f"  p99 with {args.players} players / alone: {ratio:.2f}x; target p99 < 250 ms: {verdict}"
    )
    print("a check decided in memory, as the GM's and from a player's seat (trust), best reps:")
    print(
        f"  {gm * 1e6:.1f} us and {player * 1e6:.1f} us: {player / gm - 1:+.1%}; the authority "
        f"check alone {check * 1e6:.2f} us, {check / gm:+.1%} of the GM's (target: under 5%)"
    )


if __name__ == "__main__":
    main()
