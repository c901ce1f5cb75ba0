"""The web door of ``margin host``: each seat's screen in a browser, behind a link of its own.

Pages and sockets live under ``/seat/TOKEN``, one long random token per seat
made at start; any other request (a wrong or missing token included) gets 403.
The browser side and the pipe protocol to the session's process are
textual-serve's; the session's command and environment are margin's, and the
session can neither send files to the browser nor open links there.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import shlex
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp_jinja2
import jinja2
import textual_serve
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from margin.events import short_name

from .commits import Commits
from .ssh import (
    HOST_STOPPED,
    STOP_GRACE,
    TERMINAL_RESET,
    Hosting,
    end_group,
    session_argv,
    session_env,
)

if TYPE_CHECKING:
    from asyncio.subprocess import Process


#: textual-serve's script, styles and fonts, served by margin's host
SERVE_FILES = Path(textual_serve.__file__).parent
#: margin's page for a seat: textual-serve's terminal, nothing from another host
PAGE = Path(__file__).with_name("seat.html")
PAGE_POLICY = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; script-src 'self'; worker-src 'self' blob:"
)


class SeatService(AppService):
    """A browser session's process: margin's command, margin's environment, no file delivery.

    The process is started without a shell, in a process group of its own, so
    that ending the session reaches the session itself.
    """

    def __init__(
        self,
        seat: str,
        argv: list[str],
        env: dict[str, str],
        commits: Commits | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.seat = seat
        self.argv = argv
        self.env = env
        #: what tells the session of each commit, and the host's end of its pipe (-1: none)
        self.commits = commits
        self.told = -1
        #: the line the browser gets once the session has ended, if the host ended it
        self.notice: str | None = None

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.returncode is None else None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return {
            **self.env,
            "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
            "TEXTUAL_FPS": "60",
            "TEXTUAL_COLOR_SYSTEM": "truecolor",
            "TERM_PROGRAM": "textual",
            "COLUMNS": str(width),
            "ROWS": str(height),
        }

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        env = self._build_environment(width, height)
        given = -1
        if self.commits is not None and self.told < 0:
            given, self.told = self.commits.pipe()
            env.update(self.commits.env(given))
        try:
            self._process = process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd="/",
                start_new_session=True,
                pass_fds=(given,) if given >= 0 else (),
            )
        except OSError:
            self.forget()
            raise
        finally:
            if given >= 0:
                os.close(given)  # the session's process holds its end now
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        await super().run()
        # the session's output has ended (it quit, or was ended): so does its page's socket
        await self.finish()

    async def on_meta(self, data: bytes) -> None:
        # Only the end of the session reaches the browser: no downloads, no links opened.
        with contextlib.suppress(ValueError):
            if json.loads(data).get("type") == "exit":
                await self.finish()

    async def on_packed(self, payload: bytes) -> None:
        return None

    async def finish(self) -> None:
        """Close the browser's socket, after the host's notice if it ended the session."""
        notice, self.notice = self.notice, None
        with contextlib.suppress(ConnectionError, RuntimeError):
            if notice is not None:
                await self.remote_write_bytes(TERMINAL_RESET + notice.encode() + b"\r\n")
            await self.remote_close()

    async def end(self) -> None:
        """End the session's process group: asked, then killed after ``STOP_GRACE``."""
        if self._process is not None:
            await end_group(self._process)
        self.forget()

    def forget(self) -> None:
        """Close the host's end of the pipe that told the session of commits."""
        if self.commits is not None and self.told >= 0:
            self.commits.forget(self.told)
        self.told = -1

    async def close(self, notice: str = HOST_STOPPED, code: int = 0) -> None:
        """End the session, telling the browser why (the host stops, say)."""
        self.notice = notice
        await self.end()
        if self._task is not None:
            # the session's last output first, unless the browser is too slow to take it
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._task), STOP_GRACE)
        await self.finish()


def _number(request: web.Request, name: str) -> int:
    """A whole number in the query (0 when it is missing or not one), at most 10**9."""
    value = request.query.get(name, "")
    if not (value.isascii() and value.isdigit()):
        return 0
    return int(value) if len(value) < 10 else 10**9


class WebDoor:
    """The HTTP routes of one host."""

    def __init__(self, host: Hosting) -> None:
        self.host = host

    def seat(self, request: web.Request) -> str:
        token = request.match_info.get("token", "")
        found = None
        for known, seat in self.host.tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = seat
        if found is None:
            raise web.HTTPForbidden(text="margin: this link is not valid for this table\n")
        return found

    async def forbidden(self, request: web.Request) -> web.Response:
        raise web.HTTPForbidden(text="margin: this link is not valid for this table\n")

    async def page(self, request: web.Request) -> web.Response:
        seat = self.seat(request)
        forwarded = request.headers.get("X-Forwarded-Proto", "")
        scheme = "wss" if request.secure or forwarded == "https" else "ws"
        token = request.match_info["token"]
        font = _number(request, "fontsize")
        context = {
            "font_size": min(max(font, 6), 64) if font else 16,
            "websocket": f"{scheme}://{request.host}/seat/{token}/ws",
            "static": "/static/",
            "title": f"margin · {short_name(self.host.table)} · {seat}",
        }
        response = aiohttp_jinja2.render_template(PAGE.name, request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        # the browser itself refuses anything from elsewhere, should a page ask
        response.headers["Content-Security-Policy"] = PAGE_POLICY
        return response

    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        seat = self.seat(request)
        ws = web.WebSocketResponse(heartbeat=15)
        await ws.prepare(request)
        refusal = self.host.admit(seat, f"web {request.remote}")
        if refusal is not None:
            with contextlib.suppress(ConnectionError):
                await ws.send_bytes(refusal.encode() + b"\r\n")
            await ws.close()
            return ws
        host = self.host
        service = SeatService(
            seat,
            session_argv(
                host.table, seat, host.sheets, door=link_door(request.match_info["token"])
            ),
            session_env("xterm-256color", host.table),
            host.commits,
            write_bytes=ws.send_bytes,
            write_str=ws.send_str,
            close=ws.close,
            download_manager=DownloadManager(),
        )
        host.sessions.add(service)
        host.say(f"{seat} connected over web from {request.remote}")
        try:
            size = host.limits.size(_number(request, "width"), _number(request, "height"))
            await service.start(*size)
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self.received(ws, service, message.data)
        finally:
            await service.end()
            host.sessions.discard(service)
            host.say(f"{seat} left (web {request.remote})")
        return ws

    async def received(self, ws: web.WebSocketResponse, service: SeatService, text: str) -> None:
        try:
            kind, data = json.loads(text)
        except (ValueError, TypeError):  # not JSON, or not a [kind, data] pair
            return
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8", "replace"))
        elif kind == "resize" and isinstance(data, dict):
            await self._resize(service, data)
        elif kind == "ping":
            await ws.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()

    async def _resize(self, service: SeatService, size: dict[str, Any]) -> None:
        """The browser's terminal has a new size (in characters), within the host's limits."""
        width, height = size.get("width"), size.get("height")
        if isinstance(width, int) and isinstance(height, int):
            await service.set_terminal_size(*self.host.limits.size(width, height))

    def application(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(PAGE.parent))
        app.add_routes(
            [
                web.get("/seat/{token}", self.page),
                web.get("/seat/{token}/ws", self.socket),
                web.static("/static", SERVE_FILES / "static"),
                web.route("*", "/{tail:.*}", self.forbidden),
            ]
        )
        return app


async def start_web(host: Hosting) -> tuple[WebDoor, web.AppRunner, str]:
    """Listen on ``host.web``; the door, its runner and the base URL of the links."""
    assert host.web is not None
    addr, port = host.web
    door = WebDoor(host)
    runner = web.AppRunner(door.application(), access_log=None, handle_signals=False)
    await runner.setup()
    info = socket.getaddrinfo(addr, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(info[4])
    sock.listen(128)
    sock.setblocking(False)
    await web.SockSite(runner, sock).start()
    bound = sock.getsockname()[1]
    shown = f"[{addr}]" if ":" in addr else addr
    return door, runner, f"http://{shown}:{bound}"


def link_door(token: str) -> str:
    """How a seat that came by a browser link is named in its records: ``web`` and the
    start of the link's hash, which tells links apart and gives none of them away."""
    return "web " + hashlib.sha256(token.encode()).hexdigest()[:12]
