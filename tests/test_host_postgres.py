"""Two ``margin host`` processes, on two ports as on two machines, serve one table in PostgreSQL:
the GM plays through one, a player watches through the other and sees the GM's records."""

from __future__ import annotations

from pathlib import Path

import pytest
from hosting import Host, Terminals, build_table, keys_file, make_keys, ssh_argv
from support import need

from margin.tui.table.table import Table

pytestmark = pytest.mark.slow


def test_a_gm_and_a_player_on_two_hosts_of_one_table(pg_url: str, tmp_path: Path) -> None:
    need("ssh", "ssh-keygen", "tmux")
    build_table(pg_url)  # type: ignore[arg-type]
    keys = make_keys(tmp_path / "keys", ("gm", "Kael"))
    gm_host = Host(pg_url, keys_file(tmp_path / "gm.keys", {"gm": keys["gm"]}), tmp_path / "a")  # type: ignore[arg-type]
    player_host = Host(
        pg_url,  # type: ignore[arg-type]
        keys_file(tmp_path / "player.keys", {"Kael": keys["Kael"]}),
        tmp_path / "b",
    )
    terminals = Terminals(tmp_path)
    try:
        assert gm_host.port != player_host.port
        name = pg_url.rpartition("=")[2]
        assert f"hosting {name}" in gm_host.output()
        gm = terminals.open("gm", ssh_argv(gm_host.port, keys["gm"], "-tt", "127.0.0.1"))
        kael = terminals.open("kael", ssh_argv(player_host.port, keys["Kael"], "-tt", "127.0.0.1"))
        gm.wait_for("type a command")
        kael.wait_for("watching as Kael")
        gm.submit("note the harbour bell rings twice", "note: the harbour bell rings twice")
        kael.wait_for("the harbour bell rings twice")
        # a GM-only note stays with the GM
        gm.submit("gmnote the smuggler is listening", "the smuggler is listening")
        gm.submit("note the tide turns", "note: the tide turns")
        kael.wait_for("the tide turns")
        assert "smuggler" not in kael.received()
    finally:
        terminals.close()
        gm_host.stop()
        player_host.stop()
    table = Table.open(pg_url, readonly=True)
    try:
        texts = [getattr(r.event, "text", "") for r in table.store.records()]
    finally:
        table.close()
    assert texts.count("the harbour bell rings twice") == 1


def test_a_hosted_table_url_keeps_its_password_off_the_sessions_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from margin.tui.host.ssh import session_argv, session_env

    url = "postgresql://gm:hush@db.example:5433/club?table=harbour"
    monkeypatch.setenv("PGSSLMODE", "verify-full")
    monkeypatch.setenv("SECRET_OF_THE_HOST", "x")
    argv = session_argv(url, "Kael")
    assert "hush" not in " ".join(argv)
    assert argv[-2:] == ["postgresql://gm@db.example:5433/club?table=harbour", "Kael"]
    env = session_env("xterm", url)
    assert env["PGPASSWORD"] == "hush"
    assert env["PGSSLMODE"] == "verify-full"
    assert "SECRET_OF_THE_HOST" not in env
    assert "PGSSLMODE" not in session_env("xterm", "/tables/fight.margin")
