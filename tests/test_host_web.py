"""``margin host --web`` in headless Chromium (Debian's, driven by Playwright).

The terminal in the page draws on a canvas, so what a seat receives is read
from the websocket frames the browser got: every byte of the session, not
just what is on the screen at the end.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
from hosting import GM_NOTE, HIDDEN_NAME, SECRET_FACE, hosted, need, plain, the_hosts_gm, write
from support import CHROMIUM, CHROMIUM_FLAGS

from margin.core.commands import AddCharacter, Note, RollDice

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    need("chromium", "ssh-keygen")
    folder = tmp_path_factory.mktemp("web")
    host, table, _ = hosted(folder, ("gm", "Kael"), web=True)
    yield {"host": host, "table": table, "dir": folder}
    host.stop()


@pytest.fixture(autouse=True)
def as_the_hosts_gm(request, monkeypatch):
    """What the tests write, the host's GM writes."""
    if "site" in request.fixturenames:
        the_hosts_gm(request.getfixturevalue("site")["dir"], monkeypatch)


@pytest.fixture(scope="module")
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(site["dir"] / "profile"),
            executable_path=CHROMIUM,
            args=CHROMIUM_FLAGS,
            headless=True,
            viewport={"width": 1100, "height": 700},
        )
        yield context
        context.close()


class Seat:
    """A page open at a seat's link, keeping what the session sent."""

    def __init__(self, browser, url: str) -> None:
        self.frames: list[bytes] = []
        self.page = browser.new_page()
        self.page.on("websocket", self._socket)
        self.response = self.page.goto(url)

    def _socket(self, ws) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            # the page's keep-alive answer carries the browser's clock, whose
            # digits say nothing of the table
            if payload.startswith('["pong"'):
                return
            payload = payload.encode()
        self.frames.append(payload)

    def received(self) -> str:
        return plain(b"".join(self.frames))

    def wait_for(self, text: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while text not in self.received():
            if time.monotonic() > end:
                raise AssertionError(f"{text!r} never arrived:\n{self.received()[-2000:]}")
            self.page.wait_for_timeout(20)


def test_a_players_link_shows_their_view_live_and_no_secret(site, browser):
    kael = Seat(browser, site["host"].web["Kael"])
    assert kael.response.status == 200
    kael.wait_for("watching as Kael")
    write(site["table"], Note(text="the tide turns"))
    kael.wait_for("the tide turns", timeout=5)
    write(site["table"], RollDice(dice="1d1000", faces=[613], secret=True, reason="trapdoor"))
    write(site["table"], AddCharacter(name="Vesperine", hidden=True))
    write(site["table"], Note(text="the lamp gutters"))
    kael.wait_for("the lamp gutters", timeout=5)
    seen = kael.received()
    assert "trapdoor" in seen
    for secret in (str(SECRET_FACE), "613", HIDDEN_NAME, "Vesperine", GM_NOTE):
        assert secret not in seen, f"{secret!r} reached the player's browser"
    site["host"].wait_line("Kael connected over web")
    kael.page.screenshot(path=str(site["dir"] / "kael.png"))
    kael.page.close()
    site["host"].wait_line("Kael left (web")


def test_the_gm_link_shows_the_table_screen(site, browser):
    gm = Seat(browser, site["host"].web["gm"])
    gm.wait_for("type a command")
    gm.wait_for(HIDDEN_NAME)
    gm.page.close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
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
