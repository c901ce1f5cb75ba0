"""``margin host --web`` in headless Chromium (Debian's, driven by Playwright).

The terminal in the page draws on a canvas, so what a seat receives is read
from the websocket frames the browser got: every byte of the session, not
just what is on the screen at the end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import signal
import urllib.error
import urllib.request
from collections.abc import Callable

import aiohttp
import pytest
from hosting import (
    GM_NOTE,
    HIDDEN_NAME,
    SECRET_FACE,
    Frames,
    browser_at,
    gm_of_the_site,
    plain,
    shows,
    wait_gone,
    web_site,
    write,
)

from margin.core.commands import AddCharacter, Note, RollDice
from margin.tui.host.web import link_door
from margin.tui.table.table import Table

pytestmark = pytest.mark.slow

#: the largest terminal the module's host gives a session
COLS, ROWS = 160, 50


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from web_site(tmp_path_factory.mktemp("web"), ("--max-size", f"{COLS}x{ROWS}"))


@pytest.fixture(autouse=True)
def as_the_hosts_gm(request, monkeypatch):
    """What the tests write, the host's GM writes."""
    gm_of_the_site(request, monkeypatch)


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = browser_at(playwright, site["dir"] / "profile", (1100, 700))
        yield context
        context.close()


class Seat(Frames):
    """A page open at a seat's link, keeping what the session sent."""

    def __init__(self, browser, url: str) -> None:
        super().__init__(browser.new_page())
        self.response = self.page.goto(url)


def test_a_players_link_shows_their_view_live_and_no_secret(site, browser):
    kael = Seat(browser, site["host"].web["Kael"])
    assert kael.response.status == 200
    kael.wait_for("watching as Kael")
    write(site["table"], Note(text="the tide turns"))
    kael.wait_for("the tide turns")
    write(site["table"], RollDice(dice="1d1000", faces=[613], secret=True, reason="trapdoor"))
    write(site["table"], AddCharacter(name="Vesperine", hidden=True))
    write(site["table"], Note(text="the lamp gutters"))
    kael.wait_for("the lamp gutters")
    seen = kael.received()
    assert "trapdoor" in seen
    for secret in (str(SECRET_FACE), "613", HIDDEN_NAME, "Vesperine", GM_NOTE):
        assert not shows(seen, secret), f"{secret!r} reached the player's browser"
    site["host"].wait_line("Kael connected over web")
    kael.page.screenshot(path=str(site["dir"] / "kael.png"))
    kael.page.close()
    site["host"].wait_line("Kael left (web")


def test_a_player_says_from_their_link_and_the_record_names_the_link(site, browser):
    kael = Seat(browser, site["host"].web["Kael"])
    kael.wait_for("watching as Kael")
    kael.wait_for("the GM rules on it")
    kael.page.mouse.click(300, 300)
    kael.page.keyboard.press(":")
    kael.wait_for("Enter gives it")
    kael.page.keyboard.type("say hello from the browser")
    kael.page.keyboard.press("Enter")
    kael.wait_for("Kael says: hello from the browser")
    table = Table.open(site["table"], readonly=True)
    try:
        said = list(table.store.records())[-1]
    finally:
        table.close()
    token = site["host"].web["Kael"].rsplit("/", 1)[1]
    assert said.event.text == "hello from the browser"
    assert said.author == f"kael ({link_door(token)})"
    assert token not in said.author
    kael.page.close()


def test_the_gm_link_shows_the_table_screen(site, browser):
    gm = Seat(browser, site["host"].web["gm"])
    gm.wait_for("type a command")
    gm.wait_for(HIDDEN_NAME)
    gm.page.close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_wrong_token_gets_403(site, browser):
    good = site["host"].web["Kael"]
    base = good.split("/seat/")[0]
    page = browser.new_page()
    assert page.goto(f"{base}/seat/{'x' * 43}").status == 403
    assert page.goto(f"{base}/").status == 403
    assert page.goto(good[:-1]).status == 403
    page.close()
    assert _status(f"{base}/seat/nothing/ws") == 403
    assert _status(f"{base}/download/anything") == 403
    assert _status(good) == 200


def test_a_session_whose_page_closes_while_it_is_stuck_is_gone_within_seconds(site, browser):
    host = site["host"]
    before = set(host.sessions())
    gm = Seat(browser, host.web["gm"])
    gm.wait_for("type a command")
    (pid,) = set(host.sessions()) - before
    # stopped, the session can answer nothing: the host has to end it whatever it is doing
    os.kill(pid, signal.SIGSTOP)
    gm.page.close()
    assert wait_gone(pid, 5) < 5
    host.wait_line("gm left (web")


class Socket:
    """A websocket to a seat's link, spoken as a page would, or as a hostile client might."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.data = b""

    async def until(self, found: Callable[[bytes], bool]) -> bytes:
        """What the session sends from now until a frame of it is ``found``."""
        start = len(self.data)
        while True:
            message = await asyncio.wait_for(self.ws.receive(), 20)
            if message.type != aiohttp.WSMsgType.BINARY:
                raise AssertionError(f"the socket closed: {plain(self.data[start:])[-500:]}")
            self.data += message.data
            if found(message.data):
                return self.data[start:]

    async def resize(self, width: int, height: int) -> None:
        await self.ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))


def lowest_row(frames: bytes) -> int:
    """The lowest row the session drew on (it places each line it draws: ESC [ ROW ; COL H)."""
    return max(int(row) for row in re.findall(rb"\x1b\[(\d+);\d+H", frames))


def draws_row(row: int) -> Callable[[bytes], bool]:
    return lambda frame: f"\x1b[{row};".encode() in frame


async def _resized(url: str, host) -> tuple[list[int], int]:
    """The lowest row a session drew on when opened at 30000x30000, then resized to 100x30
    and to 30000x30000 again; and its process id."""
    rows = []
    async with (
        aiohttp.ClientSession() as client,
        client.ws_connect(f"{url}?width=30000&height=30000") as ws,
    ):
        socket = Socket(ws)
        rows.append(lowest_row(await socket.until(lambda f: b"watching as Kael" in f)))
        (pid,) = await asyncio.to_thread(host.wait_sessions, 1)
        # what no page sends: a lone surrogate typed, messages of no shape; the session goes on
        for junk in ('["stdin", "\\ud800"]', "7", '["resize", [1, 2]]', "[1, 2, 3]"):
            await ws.send_str(junk)
        await socket.resize(100, 30)
        await socket.until(draws_row(30))
        await socket.resize(30000, 30000)
        # each frame is whole: the one reaching the last row allowed shows any row beyond it
        rows.append(lowest_row(await socket.until(draws_row(ROWS))))
    return rows, pid


def apart(coroutine):
    """``coroutine`` run on an event loop in a thread of its own (Playwright holds this one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_huge_resize_from_a_link_is_clamped_and_the_session_ends_with_its_socket(site):
    url = site["host"].web["Kael"].replace("http://", "ws://", 1) + "/ws"
    rows, pid = apart(_resized(url, site["host"]))
    assert rows == [ROWS, ROWS]
    assert wait_gone(pid, 5) < 5
    assert "Traceback" not in site["host"].output()


async def _many(url: str, count: int) -> list[bytes]:
    """What each of ``count`` sockets opened at once to one link got before it closed (or
    once it had a screen)."""
    async with aiohttp.ClientSession() as client:

        async def one() -> bytes:
            async with client.ws_connect(url) as ws:
                got = b""
                while b"margin" not in got:
                    message = await asyncio.wait_for(ws.receive(), 30)
                    if message.type != aiohttp.WSMsgType.BINARY:
                        break
                    got += message.data
                return got

        return await asyncio.gather(*(one() for _ in range(count)))


def test_twenty_sockets_on_one_link_get_the_seats_sessions_and_one_line_each(site):
    url = site["host"].web["Kael"].replace("http://", "ws://", 1) + "/ws"
    site["host"].wait_all_left()
    got = apart(_many(url, 20))
    line = b"margin: Kael has 2 sessions open already; close one and try again\r\n"
    assert sum(g == line for g in got) == 18
    assert sum(b"watching as Kael" in plain(g).encode() or b"\x1b[" in g for g in got) == 2
    assert site["host"].output().count("refused Kael over web") == 18
    site["host"].wait_sessions(0)


def test_a_refused_page_keeps_the_line_that_says_why_in_sight(site, browser):
    site["host"].wait_all_left()
    url = site["host"].web["Kael"]
    held = [Seat(browser, url) for _ in range(2)]
    for seat in held:
        seat.wait_for("watching as Kael")
    refused = Seat(browser, url)
    refused.wait_for("Kael has 2 sessions open already")
    refused.page.wait_for_selector("body.-closed #ended", state="visible")
    box = refused.page.locator("#ended").bounding_box()
    height = refused.page.viewport_size["height"]
    # a band along the foot of the page: the terminal's top lines, where the host's line
    # is, stay uncovered
    assert box is not None
    assert box["y"] > height / 2, box
    assert box["y"] + box["height"] == pytest.approx(height, abs=1)
    refused.page.screenshot(path=str(site["dir"] / "refused.png"))
    for seat in [*held, refused]:
        seat.page.close()
    site["host"].wait_all_left()
