"""What players acting from their own seats costs: a request's way to the GM, and the check.

In one run, on the 2d10-edge demo table:

- a player's request from Enter to the GM's screen, with many players at once
  (``--players``, 20): each player is a writer of its own (``Table.execute`` from the
  player's seat: authorised, decided, appended to the table file and signed, as the
  player's session does it), every player asking for a check in turn, while a GM's
  follower (``LiveTable``, as the GM's screen follows the log) polls ``data_version``
  and folds what arrives; the time from a player's Enter to the GM's fold holding the
  request, p50 and p99; target: p99 under 250 ms. Over SSH a keystroke and a screen
  update go over the network besides; this measures margin's part of the way;
- the authority check's cost per record: a player's check under ``trust`` decided in
  memory (authorised, then decided, each record named the seat's) against the same
  check decided as the GM's; target: under 5% more.

    python bench/players.py
    python bench/players.py --players 20 --rounds 10
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from margin.core import decide
from margin.core.authority import GM_SEAT, Seat
from margin.core.commands import SetOption, convert_command
from margin.tui.table.demo import build_demo
from margin.tui.table.reader import LiveTable
from margin.tui.table.rng import RandomDice
from margin.tui.table.table import Table

CHECK = {"type": "check", "character": "Kael", "skill": "athletics", "tn": 15}


def _player_names(table: Table, count: int) -> list[str]:
    """``count`` player characters at the table, seated here as copies of Kael's sheet."""
    from margin.core.commands import AddCharacter

    sheet = dict(table.state.characters["kael"].sheet)
    names = [f"Player {n}" for n in range(1, count + 1)]
    for name in names:
        table.execute(AddCharacter(name=name, sheet=sheet))
    return names


def requests_to_gm(path: Path, players: int, rounds: int) -> list[float]:
    """Seconds from each player's Enter to the GM's follower holding the request."""
    setup = Table.open(str(path))
    if setup.state.options.get("players") != "ask":
        setup.execute(SetOption(name="players", value="ask"))
    names = _player_names(setup, players)
    setup.close()
    gm = LiveTable.open_live(str(path), readonly=True, lens=False)
    entered: dict[str, float] = {}
    seen: list[float] = []
    lock = threading.Lock()
    done = threading.Event()

    def follow() -> None:
        known: set[int] = set()
        last = False
        while not last:
            # once every player is done, one more look, then stop
            last = done.is_set()
            if gm.changed():
                gm.catch_up()
                now = time.perf_counter()
                for seq, req in gm.state.requests.items():
                    if seq in known:
                        continue
                    known.add(seq)
                    key = f"{req.seat}:{req.command.get('reason', '')}"
                    with lock:
                        if key in entered:
                            seen.append(now - entered[key])
            else:
                time.sleep(0.001)

    def player(name: str) -> None:
        table = Table.open(str(path))
        seat = Seat(name, "ssh", "SHA256:bench")
        cid = name.lower().replace(" ", "-")
        try:
            for n in range(rounds):
                command = convert_command(
                    "2d10-edge", {**CHECK, "character": name, "reason": f"round {n}"}
                )
                with lock:
                    entered[f"{cid}:round {n}"] = time.perf_counter()
                table.execute(command, seat=seat)
                time.sleep(0.05)  # a player types the next line
        finally:
            table.close()

    follower = threading.Thread(target=follow)
    follower.start()
    threads = [threading.Thread(target=player, args=(name,)) for name in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    follower.join()
    gm.close()
    return seen


def authority_cost(path: Path, repeats: int) -> tuple[float, float]:
    """Seconds per check decided as the GM's, and from a player's seat under ``trust``."""
    table = Table.open(str(path))
    table.execute(SetOption(name="players", value="trust"))
    command = convert_command("2d10-edge", CHECK)
    state, history = table.state, table.projection.history
    seat = Seat("Kael", "ssh", "SHA256:bench")
    best = {"gm": float("inf"), "player": float("inf")}
    for _ in range(5):
        for who, chair in (("gm", GM_SEAT), ("player", seat)):
            dice = RandomDice(1)
            start = time.perf_counter()
            for _ in range(repeats):
                decide(command, state, dice, history, chair)
            best[who] = min(best[who], (time.perf_counter() - start) / repeats)
    table.close()
    return best["gm"], best["player"]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.margin"
        build_demo(path, "2d10-edge").close()
        gm, player = authority_cost(path, args.repeats)
        waits = sorted(requests_to_gm(path, args.players, args.rounds))
    p50 = statistics.median(waits)
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
    print(f"requests from {args.players} players, {len(waits)} in all, Enter to the GM's fold:")
    print(f"  p50 {_ms(p50)}, p99 {_ms(p99)} (target: p99 under 250 ms)")
    extra = player / gm - 1
    print("a check decided in memory, as the GM's and from a player's seat (trust):")
    print(
        f"  {gm * 1e6:.1f} us and {player * 1e6:.1f} us a check: "
        f"{extra:+.1%} for the authority check (target: under 5%)"
    )


if __name__ == "__main__":
    main()
