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
import json
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

if TYPE_CHECKING:
    from .host import Host

SERVE_FILES = Path(textual_serve.__file__).parent


class SeatService(AppService):
    """A browser session's process: margin's command, margin's environment, no file delivery."""

    def __init__(self, command: str, env: dict[str, str], **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self.env = env

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

    async def on_meta(self, data: bytes) -> None:
        # Only the end of the session reaches the browser: no downloads, no links opened.
        with contextlib.suppress(ValueError):
            if json.loads(data).get("type") == "exit":
                await self.remote_close()

    async def on_packed(self, payload: bytes) -> None:
        return None

    async def end(self, grace: float) -> None:
        """Ask the process to quit; kill it if it has not within ``grace`` seconds."""
        try:
            await asyncio.wait_for(self.stop(), grace)
        except (TimeoutError, ConnectionError):
            if self._process is not None and self._process.returncode is None:
                self._process.kill()


def _size(request: web.Request, name: str, default: int) -> int:
    value = request.query.get(name, "")
    return min(max(int(value), 10), 1000) if value.isascii() and value.isdigit() else default


class WebDoor:
    """The HTTP routes of one host."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.services: set[SeatService] = set()

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
        context = {
            "font_size": _size(request, "fontsize", 16),
            "app_websocket_url": f"{scheme}://{request.host}/seat/{token}/ws",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": f"margin · {short_name(self.host.table)} · {seat}"},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def socket(self, request: web.Request) -> web.WebSocketResponse:
        from .host import STOP_GRACE, session_argv, session_env

        seat = self.seat(request)
        ws = web.WebSocketResponse(heartbeat=15)
        await ws.prepare(request)
        service = SeatService(
            shlex.join(session_argv(self.host.table, seat)),
            session_env("xterm-256color", self.host.table),
            write_bytes=ws.send_bytes,
            write_str=ws.send_str,
            close=ws.close,
            download_manager=DownloadManager(),
        )
        self.host.say(f"{seat} connected over web from {request.remote}")
        self.services.add(service)
        try:
            await service.start(_size(request, "width", 80), _size(request, "height", 24))
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self.received(ws, service, message.data)
        finally:
            self.services.discard(service)
            await service.end(STOP_GRACE)
            self.host.say(f"{seat} left (web {request.remote})")
        return ws

    async def received(self, ws: web.WebSocketResponse, service: SeatService, text: str) -> None:
        try:
            kind, data = json.loads(text)
        except ValueError:
            return
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int):
                await service.set_terminal_size(max(width, 10), max(height, 5))
        elif kind == "ping":
            await ws.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()

    async def close(self) -> None:
        from .host import STOP_GRACE

        await asyncio.gather(*(s.end(STOP_GRACE) for s in list(self.services)))

    def application(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(SERVE_FILES / "templates"))
        app.add_routes(
            [
                web.get("/seat/{token}", self.page),
                web.get("/seat/{token}/ws", self.socket),
                web.static("/static", SERVE_FILES / "static"),
                web.route("*", "/{tail:.*}", self.forbidden),
            ]
        )
        return app


async def start_web(host: Host) -> tuple[WebDoor, web.AppRunner, str]:
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
