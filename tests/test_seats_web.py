"""A browser seat at phone and desktop sizes, asking nothing of any host but margin's.

Headless Chromium (Debian's, driven by Playwright) opens a player's link and
the GM's; every request the page makes is kept, and any to a host other than
the one serving the table fails the test. Screenshots are saved in the test's
folder to be looked at.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from hosting import Frames, browser_at, gm_of_the_site, screen_rows, web_site, write

from margin.core.commands import Note

pytestmark = pytest.mark.slow

#: a phone held upright (a common Android size), a small phone, a desktop window
SIZES = {"phone": (412, 915), "small-phone": (360, 640), "desktop": (1280, 800)}
#: a record whose text must fit one line of the log at every size (each size its own)
MARK = "Kael ducks low ({})"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from web_site(tmp_path_factory.mktemp("seats"))


@pytest.fixture(autouse=True)
def as_the_hosts_gm(request, monkeypatch):
    gm_of_the_site(request, monkeypatch)


@pytest.fixture(scope="module")
def playwright():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


class Page(Frames):
    """A fresh browser (its own profile) at one size, with every request it made."""

    def __init__(self, playwright, profile, size: tuple[int, int]) -> None:
        self.context = browser_at(playwright, profile, size)
        self.requests: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        super().__init__(self.context.new_page())

    def rows(self) -> dict[int, str]:
        return screen_rows(b"".join(self.frames).decode("utf-8", "replace"))

    def wait_on_one_row(self, text: str, timeout: float = 30) -> str:
        """Wait until some row of the screen holds all of ``text``; that row."""
        end = time.monotonic() + timeout
        while True:
            shown = [row for row in self.rows().values() if text in row]
            if shown:
                return shown[-1]
            if time.monotonic() > end:
                screen = "\n".join(self.rows().values())
                raise AssertionError(f"{text!r} is on no one row:\n{screen}")
            self.page.wait_for_timeout(20)

    def close(self) -> None:
        self.context.close()


def _only_margin(requests: list[str], url: str) -> None:
    home = urlsplit(url).netloc
    strangers = [r for r in requests if urlsplit(r).netloc != home]
    assert not strangers, f"the page asked other hosts: {strangers}"
    assert any(urlsplit(r).path.endswith(".ttf") for r in requests), "no font came from margin"


@pytest.mark.parametrize("seat", ["Kael", "gm"])
def test_a_seats_page_asks_no_other_host(site, playwright, tmp_path, seat):
    url = site["host"].web[seat]
    page = Page(playwright, tmp_path / "profile", SIZES["desktop"])
    try:
        response = page.page.goto(url)
        assert response is not None
        assert response.status == 200
        page.wait_for("watching as Kael" if seat == "Kael" else "type a command")
        _only_margin(page.requests, url)
    finally:
        page.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_players_seat_fits_the_screen_it_is_on(site, playwright, tmp_path, size):
    url = site["host"].web["Kael"]
    page = Page(playwright, tmp_path / "profile", SIZES[size])
    try:
        page.page.goto(url)
        page.wait_for("watching as Kael")
        mark = MARK.format(list(SIZES).index(size))
        write(site["table"], Note(text=mark))
        page.wait_on_one_row(mark)
        # the footer names the keys
        page.wait_on_one_row("Help")
        page.wait_on_one_row("Quit")
        page.page.wait_for_timeout(300)  # the last frame painted, for the picture
        page.page.screenshot(path=str(tmp_path / f"kael-{size}.png"))
    finally:
        page.close()
