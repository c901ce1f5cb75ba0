"""The table screen's panels: clock, party, log, odds bar and command line.

Each panel is handed a ``View`` and redraws from it when told; none reads the
store around it or computes a rule.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Hashable
from pathlib import Path
from typing import Any, ClassVar

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.suggester import Suggester
from textual.widgets import Footer, Input, Static

from margin.core import TableState
from margin.core.systems.base import Clock, ClockRow, Odds
from margin.events import StoreError
from margin.tui.table.reader import CharacterRow, LogRow, View, turn_names

from . import commandline

#: How each band is drawn: a colour and a glyph of its own, so the bands stay apart
#: in 16 colours, in 256, and with NO_COLOR (glyphs alone). Success bands take
#: styles from the start, failure bands from the end, so a marginal success
#: and a marginal failure never look alike.
BAND_STYLES = (
    ("█", "bold bright_green"),
    ("▓", "green"),
    ("▒", "cyan"),
    ("░", "yellow"),
    ("▚", "red"),
    ("×", "magenta"),
)


def band_styles(odds: Odds) -> list[tuple[str, str]]:
    """A (glyph, style) for each band of ``odds``, in band order."""
    chances = list(odds.bands.values())
    split = None
    total = 0.0
    for i, p in enumerate(chances):
        total += p
        if abs(total - odds.success) < 1e-9:
            split = i + 1
            break
    half = len(BAND_STYLES) // 2
    count = len(chances)
    if split is None or split > half or count - split > half:
        return [BAND_STYLES[i % len(BAND_STYLES)] for i in range(count)]
    failures = count - split
    return [*BAND_STYLES[:split], *BAND_STYLES[len(BAND_STYLES) - failures :]]


def clock_text(clock: Clock | None, width: int = 80, console: Console | None = None) -> Text:
    """The clock's title, then one line per row.

    The title wraps at its words, and the row of whoever acts wraps (indented),
    so neither where the clock stands nor what they have left is lost; the other
    rows end in an ellipsis rather than wrap, to keep the order compact. Without
    a ``console`` every line ends in an ellipsis. A row players do not see says
    so (only the GM's clock has such rows).
    """
    if clock is None:
        return Text("no encounter running", style="dim")
    width = max(8, width)
    title = Text(clock.title, style="bold")
    if console is None:
        title.truncate(width, overflow="ellipsis")
        out = [title]
    else:  # the title wraps at its words: where the clock stands is never cut
        out = list(title.wrap(console, width))
    for row in clock.rows:
        out += _fitted(row, width, console)
    return Text("\n").join(out)


def _fitted(row: ClockRow, width: int, console: Console | None) -> list[Text]:
    """A row of the clock in ``width``: whoever acts wrapped (indented), another cut."""
    line = _clock_row(row)
    if row.current and console is not None and line.cell_len > width:
        parts = list(line.wrap(console, width - 4, overflow="fold"))
        return [parts[0], *(Text("    ") + part for part in parts[1:])]
    line.truncate(width, overflow="ellipsis")
    return [line]


def _clock_row(row: ClockRow) -> Text:
    """One row of the clock: who acts marked, then the name, value and note."""
    line = Text()
    line.append("▶ " if row.current else "  ", style="bold yellow")
    if row.hidden:  # before the name, which a narrow panel may cut
        line.append("(hidden) ", style="italic dim")
    line.append(row.name, style="bold" if row.current else "")
    if row.value:
        line.append(f"  {row.value}")
    if row.note:
        line.append(f"  {row.note}", style="dim")
    return line


class ClockPanel(Static):
    """The encounter's clock: initiative order, or the timing track's counts and tokens."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.clock: Clock | None = None

    def show(self, clock: Clock | None) -> None:
        self.clock = clock
        self.refresh(layout=True)

    def render(self) -> Text:
        return clock_text(self.clock, self.content_size.width or 80, self.app.console)


def brief_text(
    clock: Clock | None, rows: list[CharacterRow], own: str | None = None, width: int = 0
) -> Text:
    """The clock and the watching player's character in a line or two, for a narrow screen:
    whose turn it is (▶), who is on deck and where the clock stands, cut to ``width``; then
    ``own``'s status, wrapping."""
    out = _turn_brief(clock)
    if width:
        out.truncate(width, overflow="ellipsis")
    for row in rows:
        if row.name == own:
            out.append("\n")
            out.append(f"{row.name} (you)", style="bold cyan")
            if row.status:
                out.append(": " + " · ".join(row.status))
    return out


def _turn_brief(clock: Clock | None) -> Text:
    """Whose turn it is (▶), who is on deck and where the clock stands, in a line."""
    out = Text()
    if clock is None:
        out.append("no encounter running", style="dim")
        return out
    acting, deck = turn_names(clock)
    if acting:
        out.append("▶ ", style="bold yellow")
        out.append(", ".join(acting) + "  ", style="bold")
    if deck:
        out.append(f"next: {', '.join(deck)}  ")
    out.append(clock.title, style="dim")
    return out


class BriefLine(Static):
    """The clock and one's own character in a line or two, where the panels do not fit."""

    DEFAULT_CSS = """
    BriefLine { height: auto; max-height: 3; padding: 0 1; background: $boost; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.brief: tuple[Clock | None, list[CharacterRow], str | None] = (None, [], None)

    def show(self, brief: tuple[Clock | None, list[CharacterRow], str | None]) -> None:
        self.brief = brief
        self.refresh(layout=True)

    def render(self) -> Text:
        return brief_text(*self.brief, width=self.content_size.width)


class KeysFooter(Footer):
    """The footer, listing the keys whether the terminal has the focus or not.

    Textual's footer waits for the focus before it lists any key, and a
    browser's page often starts without it (a phone's always does): the seat
    would show an empty bar until tapped.
    """

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.recompose)


def party_text(
    rows: list[CharacterRow],
    own: str | None = None,
    empty: str = "nobody at the table yet",
    width: int = 0,
) -> Text:
    """The characters and their status; a watching player's own character first, marked.

    Status items are packed into lines under the name, indented, and broken
    between items when ``width`` is given.
    """
    if not rows:
        return Text(empty, style="dim")
    rows = sorted(rows, key=lambda row: row.name != own) if own else rows
    return Text("\n").join([_party_row(row, own, width) for row in rows])


def _party_row(row: CharacterRow, own: str | None, width: int) -> Text:
    """One character: the name, marked, then the status packed in lines under it."""
    text = Text.assemble((row.name, "bold"))
    if row.name == own:
        text.append(" (you)", style="bold cyan")
    if row.hidden:
        text.append(" (hidden)", style="italic dim")
    for line in _pack(list(row.status), width - 4 if width else 0):
        text.append("\n  " + line)
    return text


def _pack(items: list[str], room: int) -> list[str]:
    """Items joined with `` · ``, a new line where the next would pass ``room`` (0: one line)."""
    lines: list[str] = []
    for item in items:
        if lines and (not room or len(lines[-1]) + 3 + len(item) <= room):
            lines[-1] += " · " + item
        elif room and len(item) > room:
            lines.extend(textwrap.wrap(item, room) or [item])
        else:
            lines.append(item)
    return lines


class PartyPanel(Static):
    """The characters at the table, their status wrapped to the panel's width."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[CharacterRow] = []
        self.own: str | None = None
        self.empty = ""

    def show(self, rows: list[CharacterRow], own: str | None, empty: str) -> None:
        self.rows, self.own, self.empty = rows, own, empty
        self.refresh(layout=True)

    def render(self) -> Text:
        return party_text(self.rows, self.own, self.empty, self.content_size.width)


def odds_text(odds: Odds, width: int, result: str = "") -> Text:
    """A label, the chance of success (or what typed faces give), and the bands as one bar.

    The legend wraps between bands, never inside one, so it fits 60 columns.
    """
    width = max(10, width)
    out = Text()
    if odds.label:
        out.append(odds.label + "  ", style="bold")
    out.append(f"success {odds.success:.1%}", style="bold green")
    if result:
        out.append("\n")
        out.append("these faces: ", style="bold")
        out.append(result)
    out.append("\n")
    bands = list(odds.bands.items())
    styles = band_styles(odds)
    _bar(out, styles, [p for _, p in bands], width)
    _legend(out, styles, bands, width)
    return out


def _bar(out: Text, styles: list[tuple[str, str]], chances: list[float], width: int) -> None:
    """The bands as one bar ``width`` cells wide, each as long as its chance."""
    cells = [round(p * width) for p in chances]
    # Rounding may miss or overshoot the width by a cell or two; the largest band absorbs it.
    if cells:
        cells[cells.index(max(cells))] += width - sum(cells)
    for (glyph, style), n in zip(styles, cells, strict=True):
        out.append(glyph * max(0, n), style=style)


def _legend(
    out: Text, styles: list[tuple[str, str]], bands: list[tuple[str, float]], width: int
) -> None:
    """Each band's glyph, name and chance, the lines wrapped between bands to fit ``width``."""
    line = 0
    for (glyph, style), (name, p) in zip(styles, bands, strict=True):
        item = f"{glyph} {name} {p:.1%}"
        if line == 0 or line + 2 + len(item) > width:
            out.append("\n")
            line = 0
        else:
            out.append("  ")
            line += 2
        out.append(glyph + " ", style=style)
        out.append(item[2:])
        line += len(item)


#: cells a log row's number takes (before a space and its mark)
NUMBER_WIDTH = 6


def row_head(row: LogRow, digits: int = NUMBER_WIDTH) -> Text:
    """A log line's number (``digits`` wide) and mark (◆ secret, ✗ undone later)."""
    text = Text()
    text.append(f"{row.number or row.seq:>{digits}} ", style="dim")
    if row.mistake:
        text.append("✗ ", style="bold red")
    elif row.secret:
        text.append("◆ ", style="bold magenta")
    else:
        text.append("  ")
    return text


def row_body(row: LogRow) -> Text:
    """A log line's text, struck through when undone."""
    return Text(row.text, style=Style(strike=True, dim=True) if row.undone else Style())


def row_text(row: LogRow) -> Text:
    """A whole log line: number, mark and text (wrapping where it is shown)."""
    return row_head(row) + row_body(row)


def wrap_row(row: LogRow, width: int, console: Console, digits: int = NUMBER_WIDTH) -> list[Text]:
    """A log row as screen lines ``width`` wide: its text wraps under itself, never cut."""
    indent = digits + 3
    room = max(8, width - indent)
    body = row_body(row).wrap(console, room, overflow="fold")
    lines = list(body) or [Text()]
    out = [row_head(row, digits) + lines[0]]
    out.extend(Text(" " * indent) + line for line in lines[1:])
    return out


def key_pair(
    display: str, tooltip: str, first: tuple[str, str, str], second: tuple[str, str, str]
) -> list[Binding]:
    """Two keys (each key, action, description) that help lists on one line: ``display``,
    what they do, ``tooltip``. Neither shows in the footer."""
    return [
        Binding(*first, show=False, key_display=display, tooltip=tooltip),
        Binding(*second, show=False),
    ]


class LogView(ScrollView, can_focus=True):
    """The log, newest last; only the records on screen are read and drawn.

    Long records wrap. The scroll position counts records, not lines: at
    position ``p`` the record ``p + first`` is the lowest on screen, shown
    whole, with the records before it above (``first`` is the last record
    that fits the screen from the top), so each record is shown in full at
    some position, however long its neighbours are.
    """

    DEFAULT_CSS = """
    LogView { height: 1fr; scrollbar-size-vertical: 1; overflow-x: hidden; }
    """
    # A tooltip is the line help shows for a key; a pair shares the first one's line.
    BINDINGS = [
        *key_pair(
            "Up / Down", "scroll the log a line",
            ("up", "scroll('up')", "Up"),
            ("down", "scroll('down')", "Down"),
        ),
        *key_pair(
            "PageUp / PageDown", "scroll the log a page",
            ("pageup", "page_up", "Page up"),
            ("pagedown", "page_down", "Page down"),
        ),
        *key_pair(
            "Home / End", "oldest / newest record",
            ("home", "scroll('home')", "Oldest"),
            ("end", "scroll('end')", "Newest"),
        ),
    ]  # fmt: skip

    class Unread(Message):
        """The log's rows cannot be read from the table now: ``reason``, its store's line."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, view: View, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = view
        self._window: tuple[int, list[LogRow | None]] = (0, [])
        #: the rows could not be read since the last reload (said once, not once a row)
        self._unread = False
        #: how many records the panel shows, read once a redraw (``reload``), on the screen's
        #: thread: a worker folds on meanwhile, and a frame drawn line by line from a log
        #: that grew between two lines would drop rows, or join one record's lines to
        #: another's
        self._count = 0
        #: keep the newest record in sight as records arrive and the panel resizes
        self.stick = True
        #: the last record that fits the screen from the top, and the size it was found at
        self._first: tuple[tuple[int, int, int], int] = ((-1, -1, -1), 0)
        self._layout: tuple[tuple[int, ...], list[Text], int] = ((), [], 0)
        #: what each of the layout's lines shows (its row, the wrapping, the line of the
        #: row), None for a line of no row: what the drawn lines are kept by
        self._shows: list[Hashable] = []
        #: the rows on screen as wrapped lines, and their lines as drawn (``_drawn``), kept
        #: from one layout to the next: a record arriving scrolls the log by a line or
        #: two, and every other line on screen is one already drawn (a table watched by
        #: many players draws each new record on every seat's screen)
        self._wraps: dict[tuple[LogRow, int, int], list[Text]] = {}
        self._drawn: dict[tuple[Hashable, Style, int], Strip] = {}
        #: what a frame's lines are drawn from (the panel's style and width, the layout),
        #: read once a frame (``render_lines``) rather than once a line
        self._frame: tuple[Style, int, list[Text], list[Hashable]] | None = None
        self.lowest = 0
        #: on a narrow screen: numbers only as wide as they need
        self.narrow = False
        #: the log's length, and how wide its numbers are on a narrow screen
        self._digits = (-1, NUMBER_WIDTH)

    def on_mount(self) -> None:
        self.reload(follow=True)

    def digits(self) -> int:
        """How wide the numbers are: room for a million records, or on a narrow screen (a
        phone's) only as wide as the log's own numbers, to leave the room to the text."""
        if not self.narrow:
            return NUMBER_WIDTH
        count = self._count
        if self._digits[0] != count:
            row = self._rows(count - 1, count)[0]
            last = row.number or row.seq if row else 0
            self._digits = (count, max(2, len(str(last))))
        return self._digits[1]

    def _text_size(self) -> tuple[int, int]:
        """Where rows are laid out: the panel less its scrollbar, whether one shows or not
        (so the wrapping, and the scroll range it gives, never depend on it)."""
        return (max(1, self.size.width - 1), self.size.height)

    def _first_page(self) -> int:
        """The last record shown whole when the log is read from its first line."""
        size = self._text_size()
        count = self._count
        digits = self.digits()
        (known, first) = self._first
        if known == (*size, digits) and first < count - 1:
            return first
        height, used, first = max(1, size[1]), 0, 0
        for index in range(min(count, height)):
            row = self._row(index)
            used += len(wrap_row(row, size[0], self.app.console, digits)) if row else 1
            if used > height:
                break
            first = index
        self._first = ((*size, digits), first)
        return first

    def reload(self, follow: bool = False) -> None:
        """Re-read the log's length; keep the newest in sight when it was (or ``follow``)."""
        at_end = self.is_vertical_scroll_end or follow or self.stick
        self._window = (0, [])
        self._unread = False
        self._layout = ((), [], 0)
        count = self._count = self.view.log_len()
        first = self._first_page() if count else 0
        self.virtual_size = Size(self.size.width, max(0, count - 1 - first) + self.size.height)
        self.stick = at_end
        if at_end:
            # To the new end now, so the new rows are drawn in this frame (one frame a
            # record, not two: a table watched by many pays it many times); and again
            # once laid out, in case the log's own height changed with this refresh.
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True, force=True)
            self.call_after_refresh(self.scroll_end, animate=False, x_axis=False)
        self.refresh()

    def on_resize(self) -> None:
        self.reload()

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        """A scrollbar that appears starts where the panel is scrolled: one scrolled before
        it showed would otherwise keep the place it had when last shown (or the top)."""
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def scrolled(self) -> None:
        """The reader scrolled: follow new records again only once back at the newest."""
        self.stick = False
        self.call_after_refresh(lambda: setattr(self, "stick", self.is_vertical_scroll_end))

    def show(self, index: int) -> None:
        """Scroll so that record ``index`` is the lowest on screen."""
        self.stick = False
        self.scroll_to(
            y=max(0, index - self._first_page()), animate=False, immediate=True, force=True
        )
        self.call_after_refresh(lambda: setattr(self, "stick", self.is_vertical_scroll_end))

    def page(self, direction: int) -> None:
        """A screenful of records back or on (as many as the screen shows whole)."""
        shown = max(1, self.screen_lines()[2])
        self.scroll_to(y=self.scroll_offset.y + direction * shown, animate=False)
        self.scrolled()

    def action_scroll(self, way: str) -> None:
        """The reader's scroll (``up``, ``down``, ``home``, ``end``): as any scroll view's."""
        getattr(super(), f"action_scroll_{way}")()
        self.scrolled()

    def action_page_up(self) -> None:
        self.page(-1)

    def action_page_down(self) -> None:
        self.page(1)

    def _row(self, index: int) -> LogRow | None:
        start, rows = self._window
        if not start <= index < start + len(rows):
            height = max(1, self.size.height)
            start = max(0, index - height)
            rows = self._rows(start, min(index + 2 * height, self._count))
            self._window = (start, rows)
        offset = index - start
        return rows[offset] if 0 <= offset < len(rows) else None

    def _rows(self, start: int, stop: int) -> list[LogRow | None]:
        """Rows ``start`` to ``stop`` of the log; blank while the table cannot be read (its
        connection lost, its disk failing), which is said once a reload (``Unread``): the
        screen goes on drawing and answering keys, and reads again at the next."""
        try:
            return list(self.view.rows(start, stop))
        except StoreError as exc:
            if not self._unread:
                self._unread = True
                self.post_message(self.Unread(f"cannot read the table: {exc}"))
            return [None] * (stop - start)

    def screen_lines(self) -> tuple[tuple[int, ...], list[Text], int]:
        """The screen's lines at the current position (and how many records show whole)."""
        width, height = self._text_size()
        height = max(1, height)
        count = self._count
        lowest = count - 1
        if self.scroll_offset.y < self.max_scroll_y and not self.stick:
            lowest = min(lowest, self.scroll_offset.y + self._first_page())
        #: the record at the foot of the panel (the one a reader opens first)
        self.lowest = max(0, lowest)
        digits = self.digits()
        key = (lowest, width, height, count, digits)
        if self._layout[0] == key:
            return self._layout
        console = self.app.console
        wraps: dict[tuple[LogRow, int, int], list[Text]] = {}

        def lines_of(index: int) -> list[tuple[Hashable, Text]]:
            row = self._row(index)
            if row is None:
                return [(None, Text())]
            shows = (row, width, digits)
            lines = wraps[shows] = self._wraps.get(shows) or wrap_row(row, width, console, digits)
            return [((shows, n), line) for n, line in enumerate(lines)]

        lines: list[tuple[Hashable, Text]] = []
        whole = 0
        index = lowest
        while index >= 0 and len(lines) < height:
            lines[:0] = lines_of(index)
            whole += len(lines) <= height
            index -= 1
        if len(lines) < height:
            # The oldest records do not fill the screen: read on from the top.
            index = lowest + 1
            while index < count and len(lines) < height:
                lines.extend(lines_of(index))
                whole += len(lines) <= height
                index += 1
            lines = lines[:height]
        else:
            lines = lines[-height:]
        self._wraps = wraps
        self._shows = [shows for shows, _ in lines]
        shown = set(self._shows)
        self._drawn = {at: strip for at, strip in self._drawn.items() if at[0] in shown}
        self._layout = (key, [line for _, line in lines], whole)
        return self._layout

    def _frame_now(self) -> tuple[Style, int, list[Text], list[Hashable]]:
        """What the panel's lines are drawn from now: its style, its width, the layout's
        lines and what each shows."""
        lines = self.screen_lines()[1] if self._count else []
        return self.rich_style, self.scrollable_content_region.width, lines, self._shows

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame = self._frame_now()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        style, width, lines, at = self._frame or self._frame_now()
        if y >= len(lines):
            return Strip.blank(width, style)
        shows = at[y]
        drawn = self._drawn.get((shows, style, width)) if shows is not None else None
        if drawn is None:
            text = lines[y].copy()
            text.stylize_before(style)
            drawn = Strip(list(text.render(self.app.console)), text.cell_len).crop_extend(
                0, width, style
            )
            if shows is not None:
                self._drawn[shows, style, width] = drawn
        return drawn


class OddsBar(Static):
    """The exact odds of the check being typed, drawn as a bar; with typed faces, their result."""

    DEFAULT_CSS = """
    OddsBar { height: auto; max-height: 8; padding: 0 1; display: none; }
    OddsBar.shown { display: block; }
    """

    def show_odds(self, odds: Odds | None, result: str = "") -> None:
        self.set_class(odds is not None, "shown")
        if odds is not None:
            width = self.content_size.width or self.app.size.width - 2
            self.update(odds_text(odds, width, result))


class WordSuggester(Suggester):
    """Completes the last word: commands first, then characters, skills, weapons."""

    def __init__(self, view: View) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.view = view

    async def get_suggestion(self, value: str) -> str | None:
        if not value or value[-1].isspace():
            return None  # no word begun: any guess would be noise
        done = commandline.complete(value, self.view.state(), self.view.player)
        return done.rstrip() if done else None


class CommandLine(Input):
    """The GM's command line; Tab completes the word being typed.

    Every key is handled here, in the order typed: Enter hands the line over
    and empties the line at once, so keys typed before the line has run (a fast
    burst) start the next line instead of joining this one.
    """

    DEFAULT_CSS = """
    CommandLine { border: none; height: 1; padding: 0 1; }
    CommandLine:focus { border: none; }
    """
    # A tooltip is the line help shows for a key; a pair shares the first one's line.
    BINDINGS = [
        Binding("enter", "enter", "Run", show=False, tooltip="run the command line"),
        Binding(
            "tab", "complete", "Complete", show=False, key_display="Tab / Right",
            tooltip="complete the word its place takes",
        ),
        *key_pair(
            "Up / Down", "earlier and later command lines",
            ("up", "history(-1)", "Earlier line"),
            ("down", "history(1)", "Later line"),
        ),
        Binding(
            "escape", "clear", "Clear line", show=False,
            tooltip="clear the command line (Up brings it back)",
        ),
    ]  # fmt: skip
    #: what help says of input that is no key
    HELP_NOTES: ClassVar[list[tuple[str, str]]] = [
        ("paste", "pasted lines run in order, after Enter"),
    ]
    #: lines of history kept (in memory and in the history file)
    KEEP = 1000

    class Entered(Message):
        """A line the GM ran with Enter (already cleared from the command line)."""

        def __init__(self, line: CommandLine, text: str) -> None:
            super().__init__()
            self.line = line
            self.text = text

    class Pasted(Message):
        """Several lines pasted at once: the screen asks before running them."""

        def __init__(self, line: CommandLine, lines: list[str]) -> None:
            super().__init__()
            self.line = line
            self.lines = lines

    def __init__(self, view: View, history: Path | None = None, **kwargs: Any) -> None:
        super().__init__(
            placeholder="type a command (help, or Tab to complete)",
            suggester=WordSuggester(view),
            **kwargs,
        )
        self.view = view
        self.history = history
        self.lines: list[str] = read_history(history, self.KEEP)
        self._back = 0
        #: lines entered that the screen has not finished with yet
        self.pending = 0
        #: a refused line put back as it was: its reason holds the message line until edited
        self._put_back: str | None = None

    async def _on_key(self, event: events.Key) -> None:
        if event.character == ":" and not self.value:
            # ':' is the key that opens a player's line: pressed again there, it is not typed
            event.prevent_default()
            event.stop()
            return
        # Input leaves its bindings to the app, which runs them after this widget
        # has already taken the keys typed next; run them here, in order.
        bindings = self._bindings.key_to_bindings.get(event.key)
        if bindings and event.key in _EDITING_KEYS:
            event.prevent_default()
            if await self.app.run_action(bindings[0].action, self):
                event.stop()
            # else nothing to act on (Ctrl+C, nothing selected): the key goes on to the app
            return
        await super()._on_key(event)

    def _on_paste(self, event: events.Paste) -> None:
        lines = [line for line in map(str.strip, event.text.splitlines()) if line]
        if len(lines) > 1 and _one_json_object(event.text):
            lines = [" ".join(lines)]  # a command as JSON, laid out on several lines
        # Input's own handler would run after this one and keep only the first line.
        event.prevent_default()
        event.stop()
        if len(lines) > 1:
            for line in lines:
                self.remember(line)
            self.post_message(self.Pasted(self, lines))
        elif lines:  # in place of what is selected, or at the cursor
            self.replace(lines[0], *self.selection)

    def action_enter(self) -> None:
        text = self.value
        if not text.strip():
            return
        self.remember(text)
        self.value = ""
        self.pending += 1
        self.post_message(self.Entered(self, text))

    def refused(self, text: str) -> None:
        """Put a refused line back to be fixed, unless the GM has typed on since."""
        if not self.value and not self.pending:
            self._put_back = text
            self.value = text
            self.cursor_position = len(text)

    def action_clear(self) -> None:
        if self.value.strip():
            self.remember(self.value)
        self.value = ""

    def remember(self, text: str) -> None:
        """Keep a line for Up and Down, here and in the table's history file."""
        self._back = 0
        if self.lines and self.lines[-1] == text:
            return
        self.lines.append(text)
        del self.lines[: -self.KEEP]
        if self.history is not None:
            try:
                self.history.parent.mkdir(parents=True, exist_ok=True)
                with self.history.open("a", encoding="utf-8") as out:
                    out.write(text.replace("\n", " ") + "\n")
            except OSError:
                self.history = None  # a read-only home must not stop the table

    def action_history(self, step: int) -> None:
        if not self.lines:
            return
        self._back = max(0, min(len(self.lines), self._back - step))
        self.value = self.lines[-self._back] if self._back else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        done = commandline.complete(self.value, self.view.state(), self.view.player)
        if done is not None:
            self.value = done
            self.cursor_position = len(done)

    def hint(self, state: TableState) -> str:
        """What the word being typed may be: the first candidates, each group after its kind
        (``weapon: sword  punch; or: burst  single``); none for a refused line put back
        until it is edited, so the reason it was refused stays in sight."""
        if self.value == self._put_back:
            return ""
        self._put_back = None
        groups = commandline.offers(self.value, state, self.view.player)
        room, parts = HINT_WORDS, []
        for kind, words in groups:
            if room <= 0:
                break
            parts.append(f"{kind}: " + "  ".join(words[:room]))
            room -= len(words)
        left = -room
        return "; ".join(parts) + (f"  (+{left})" if left > 0 else "")


#: how many candidates the hint under the command line lists
HINT_WORDS = 12

#: keys the command line acts on itself (Input's and its own), rather than the screen
_EDITING_KEYS = frozenset(
    key
    for binding in Binding.make_bindings((*Input.BINDINGS, *CommandLine.BINDINGS))
    for key in binding.key.split(",")
)


def _one_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def read_history(path: Path | None, keep: int) -> list[str]:
    """The last ``keep`` lines of a history file (none when it is missing or unreadable)."""
    if path is None:
        return []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [line for line in lines if line.strip()][-keep:]
