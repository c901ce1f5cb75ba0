"""The browser door: ``margin host --web`` and three seats in headless Chromium (Debian's,
driven by Playwright, a fresh profile), the GM's link and two players', a short fight in
each dice system.

The players give their own commands from the watch screens in their pages and the GM
rules from the table screen in theirs (``tests/fights.py``); each player's records name
their link's door (the start of its hash, never the link). What a page shows is read from
the websocket frames it received. Then the refusals, from a player's page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fights import FIGHTS, play, refuses_everything
from hosting import Frames, Host, ScreenRows, browser_at, keys_file, make_keys, the_hosts_gm
from support import log_json

from margin.tui.host.web import link_door
from margin.tui.table.demo import build_demo

pytestmark = pytest.mark.slow

#: the system whose fight the refusals are tried in; the fights are played in every system
FIGHT = FIGHTS["d100-under"]


@pytest.fixture
def fight():
    return FIGHT


#: Playwright's names for the keys the fights press
KEYS = {"F5": "F5", "F6": "F6", "F7": "F7", "Enter": "Enter", "Home": "Home"}
KEYS["ctrl+k"] = "Control+k"


class Page(Frames):
    """A seat's page in the browser as a fight's screen."""

    def __init__(self, browser, url: str) -> None:
        self.screen = ScreenRows()
        super().__init__(browser.new_page())
        self.page.goto(url)

    def took(self, payload: bytes) -> None:
        self.screen.feed(payload)

    def _focus(self) -> None:
        self.page.bring_to_front()
        self.page.focus(".xterm-helper-textarea")

    def type(self, text: str) -> None:
        self._focus()
        self.page.keyboard.type(text)

    def key(self, name: str) -> None:
        self._focus()
        self.page.keyboard.press(KEYS[name])

    def shows(self) -> str:
        # the page's events (its frames) are taken while Playwright waits
        self.page.wait_for_timeout(10)
        return "\n".join(self.screen.rows().values())


@pytest.fixture
def site(tmp_path: Path, monkeypatch, fight):
    from playwright.sync_api import sync_playwright

    table = tmp_path / "fight.margin"
    build_demo(table, fight.system).close()
    keys = make_keys(tmp_path / "keys", ("gm", fight.a, fight.b))
    seats = keys_file(tmp_path / "seats.keys", keys)
    host = Host(table, seats, tmp_path / "data", web=True, options=("--max-size", "120x32"))
    the_hosts_gm(tmp_path, monkeypatch)
    try:
        with sync_playwright() as playwright:
            browser = browser_at(playwright, tmp_path / "profile", (1200, 720))
            try:
                yield {"host": host, "table": table, "browser": browser}
            finally:
                browser.close()
    finally:
        host.stop()


def _open(site, seat: str) -> Page:
    return Page(site["browser"], site["host"].web[seat])


@pytest.mark.parametrize("fight", list(FIGHTS.values()), ids=list(FIGHTS))
def test_a_fight_in_the_browser_from_three_seats(site, fight):
    gm = _open(site, "gm")
    a, b = _open(site, fight.a), _open(site, fight.b)
    play(fight, site["table"], gm, a, b, "web ")
    token = site["host"].web[fight.a].rsplit("/", 1)[1]
    authors = {r["author"] for r in log_json(site["table"])}
    assert f"{fight.a_id} ({link_door(token)})" in authors
    assert not any(token in author for author in authors)


def test_a_players_page_refuses_in_one_line_and_writes_nothing(site):
    table = site["table"]
    kael = _open(site, FIGHT.a)
    refuses_everything(FIGHT, kael, table)
