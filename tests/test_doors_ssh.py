"""The SSH door: ``margin host`` and three seats over the real OpenSSH client (``ssh -tt``
in tmux panes), the GM's key and two players', a short fight in each dice system.

The players give their own commands from their hosted watch screens and the GM rules
from the hosted table screen (``tests/fights.py``); each player's records name the
fingerprint of the key they came in with. Then the refusals, from a player's seat.
"""

from __future__ import annotations

import pytest
from fights import FIGHTS, play, refuses_everything
from hosting import Host, Terminals, keys_file, make_keys, ssh_argv, the_hosts_gm
from support import need
from test_doors_local import Pane

from margin.tui.table.demo import build_demo

pytestmark = pytest.mark.slow

#: the system whose fight the refusals are tried in; the fights are played in every system
FIGHT = FIGHTS["d100-chance"]


@pytest.fixture
def fight():
    return FIGHT


@pytest.fixture
def site(tmp_path, monkeypatch, fight):
    need("ssh", "ssh-keygen", "tmux")
    # the GM makes the table with the data folder the host reads, so its dice keys too
    the_hosts_gm(tmp_path, monkeypatch)
    table = tmp_path / "fight.margin"
    build_demo(table, fight.system).close()
    keys = make_keys(tmp_path / "keys", ("gm", fight.a, fight.b))
    host = Host(table, keys_file(tmp_path / "seats.keys", keys), tmp_path / "data")
    terminals = Terminals(tmp_path)
    yield {"host": host, "table": table, "keys": keys, "terms": terminals}
    terminals.close()
    host.stop()


def _join(site, seat: str, size: tuple[int, int] = (120, 32)) -> Pane:
    argv = ssh_argv(site["host"].port, site["keys"][seat], "-tt", "127.0.0.1")
    return Pane(site["terms"].open(seat.lower(), argv, size))


@pytest.mark.parametrize("fight", list(FIGHTS.values()), ids=list(FIGHTS))
def test_a_fight_over_ssh_from_three_seats(site, fight):
    gm = _join(site, "gm", (110, 32))
    a, b = _join(site, fight.a), _join(site, fight.b)
    play(fight, site["table"], gm, a, b, "ssh SHA256:")


def test_a_players_ssh_seat_refuses_in_one_line_and_writes_nothing(site):
    table = site["table"]
    rook = _join(site, FIGHT.a)
    refuses_everything(FIGHT, rook, table)
