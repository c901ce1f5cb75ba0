"""A throwaway PostgreSQL server for the tests and the benchmark.

``MARGIN_TEST_POSTGRES`` may name a server to use instead
(``postgresql://USER@HOST:PORT/DBNAME``, its password in ``PGPASSWORD`` or a
pgpass file). Otherwise Debian's ``postgresql`` package is used: ``initdb``
and ``pg_ctl`` run as an unprivileged account (PostgreSQL refuses to run as
root; the tests run as root in CI) in a temporary folder that account owns,
listening on 127.0.0.1 at a free port and on a socket in that folder. The
superuser ``margin`` logs in with a password kept in a pgpass file there.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The account the server runs as when the tests run as root: Debian's package makes it.
ACCOUNT = "postgres"
SUPERUSER = "margin"


@dataclass
class Server:
    """A running server: where it listens, and the pgpass file that logs its superuser in."""

    host: str
    port: int
    dbname: str
    user: str
    passfile: Path | None
    folder: Path | None = None

    def url(self, table: str, dbname: str | None = None, user: str | None = None) -> str:
        """A margin URL of ``table`` in this server's database (no password in it)."""
        return (
            f"postgresql://{user or self.user}@{self.host}:{self.port}/"
            f"{dbname or self.dbname}?table={table}"
        )

    def conninfo(self, dbname: str | None = None) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{dbname or self.dbname}"


def binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: Debian's newest, else whatever PATH has."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _version(path: str) -> int:
    part = Path(path).parent.parent.name
    return int(part) if part.isdigit() else 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_account(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", ACCOUNT, "--", *argv]


@contextlib.contextmanager
def running(durable: bool = False) -> Iterator[Server]:
    """A server for the length of the block: the given one, or a new one removed afterwards.

    ``durable`` keeps fsync on (the benchmark); tests turn it off, since they
    kill clients, never the server.
    """
    given = os.environ.get("MARGIN_TEST_POSTGRES")
    if given:
        yield _given(given)
        return
    bindir = binaries()
    if bindir is None:
        raise RuntimeError("no PostgreSQL server programs (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="margin-pg-"))
    client = Path(tempfile.mkdtemp(prefix="margin-pgpass-"))
    try:
        yield _start(bindir, folder, client, durable)
    finally:
        shutil.rmtree(client, ignore_errors=True)
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                _as_account(
                    [str(bindir / "pg_ctl"), "-D", str(folder / "data"), "-m", "immediate", "stop"]
                ),
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(folder, ignore_errors=True)


def _given(url: str) -> Server:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return Server(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        dbname=parts.path.lstrip("/") or "postgres",
        user=parts.username or "postgres",
        passfile=None,
    )


def _start(bindir: Path, folder: Path, client: Path, durable: bool) -> Server:
    if os.geteuid() == 0:
        account = pwd.getpwnam(ACCOUNT)
        os.chown(folder, account.pw_uid, account.pw_gid)
    folder.chmod(0o700)
    password = secrets.token_urlsafe(18)
    pwfile = folder / "pw"
    pwfile.write_text(password + "\n")
    if os.geteuid() == 0:
        os.chown(pwfile, account.pw_uid, account.pw_gid)
    data = folder / "data"
    subprocess.run(
        _as_account(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    pwfile.unlink()
    port = _free_port()
    options = [
        f"-p {port}",
        f"-k {folder}",
        "-c listen_addresses=127.0.0.1",
        "-c max_connections=300",
        "-c shared_buffers=128MB",
    ]
    if not durable:
        options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
    subprocess.run(
        _as_account(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-o",
                " ".join(options),
                "-w",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
        timeout=120,
    )
    # the client side (root, or whoever runs the tests) logs in with a pgpass file of its own
    passfile = client / "pgpass"
    passfile.write_text(f"127.0.0.1:{port}:*:{SUPERUSER}:{password}\n")
    passfile.chmod(0o600)
    server = Server("127.0.0.1", port, "margin_test", SUPERUSER, passfile, folder)
    import psycopg

    with psycopg.connect(
        server.conninfo("postgres"), passfile=str(passfile), autocommit=True
    ) as conn:
        conn.execute("CREATE DATABASE margin_test")
    return server
