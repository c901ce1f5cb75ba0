"""Modal screens: the undo preview, the help screen and the replay's jump prompt."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from margin.events import StoreError
from margin.tui.table.reader import LogRow, View

from .widgets import row_body, row_head, row_text


class ConfirmScreen(ModalScreen[bool]):
    """A list shown before something is done: Enter (or y) does it, Escape (or n) does not."""

    BINDINGS = [
        Binding("enter,y", "confirm", "Confirm"),
        Binding("escape,n", "cancel", "Cancel"),
    ]

    def dialog(self, text: Text, id: str) -> ComposeResult:
        with Vertical(id="dialog"), VerticalScroll():
            yield Static(text, id=id)

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


class UndoScreen(ConfirmScreen):
    """What an undo will void, listed before it is done; Enter confirms, Escape keeps it."""

    def __init__(self, rows: list[LogRow]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        count = len(self.rows)
        text = Text(f"Undo voids {count} record{'s' if count != 1 else ''}:\n", style="bold")
        for row in self.rows:
            text.append_text(row_text(row))
            text.append("\n")
        text.append("\nEnter: undo it    Escape: keep it", style="dim")
        yield from self.dialog(text, "undo-list")


class PasteScreen(ConfirmScreen):
    """Lines pasted at once, listed before they run in order; Enter runs them, Escape drops them."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        text = Text(f"Run these {len(self.lines)} pasted lines, in order?\n", style="bold")
        width = len(str(len(self.lines)))
        for n, line in enumerate(self.lines, 1):
            text.append(f"{n:>{width}}  ", style="dim")
            text.append(f"{line}\n")
        text.append("\nEnter: run them    Escape: run nothing", style="dim")
        yield from self.dialog(text, "paste-list")


class ReadingScreen(ModalScreen[None]):
    """A dialog that is only read. The app hands it each key as it comes (``take_key``): its
    own keys act at once and a typed character closes it and goes on to the screen beneath,
    so nothing typed while it opens or closes is lost or run by the wrong screen."""

    async def take_key(self, event: events.Key) -> bool:
        """Act on a key typed at this dialog; whether the key is done with (else it goes on)."""
        if event.key in self.active_bindings:
            # as Textual runs a key: each binding for it in turn until one acts (the
            # scroll's Up does nothing when there is no scrolling, and the dialog's Up does)
            await self.app._check_bindings(event.key)
            return True
        if event.is_printable:
            self.dismiss(None)
        return False


class RecordScreen(ReadingScreen):
    """One record of the log in full, however long; Up and Down step to older and newer ones."""

    BINDINGS = [
        Binding("escape,q,f3,enter", "close", "Close"),
        Binding("up,left,k", "step(-1)", "Older"),
        Binding("down,right,j", "step(1)", "Newer"),
        Binding("home", "first", "Oldest", show=False),
        Binding("end", "last", "Newest", show=False),
    ]

    def __init__(self, view: View, index: int) -> None:
        super().__init__()
        self.view = view
        self.index = index

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"), VerticalScroll():
            yield Static(self.record_text(), id="record-text")

    def record_text(self) -> Text:
        count = self.view.log_len()
        try:
            rows = self.view.rows(self.index, self.index + 1)
        except StoreError as exc:
            return Text(f"cannot read the table: {exc}", style="bold red")
        if not rows:
            return Text("the log is empty", style="dim")
        row = rows[0]
        text = Text(f"Record {self.index + 1} of {count} in this log\n", style="bold")
        text.append_text(row_head(row))
        text.append("\n")
        text.append_text(row_body(row))
        if row.undone:
            text.append("\n(undone)", style="italic")
        text.append("\n\nUp/Down: older/newer record    Escape: close", style="dim")
        return text

    def _show(self, index: int) -> None:
        self.index = max(0, min(self.view.log_len() - 1, index))
        self.query_one("#record-text", Static).update(self.record_text())

    def action_step(self, step: int) -> None:
        self._show(self.index + step)

    def action_first(self) -> None:
        self._show(0)

    def action_last(self) -> None:
        self._show(self.view.log_len() - 1)

    def action_close(self) -> None:
        self.dismiss(None)


#: How help names keys that Textual spells otherwise.
KEY_NAMES = {
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "question_mark": "?",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
    "slash": "/",
}


def key_name(key: str) -> str:
    """A key as help shows it: ``ctrl+n`` as Ctrl+N, ``question_mark`` as ?, ``q`` as q."""
    *mods, last = key.split("+")
    if last in KEY_NAMES:
        base = KEY_NAMES[last]
    elif len(last) == 1:
        base = last.upper() if mods else last
    else:
        base = last.capitalize()
    return "+".join([*(m.capitalize() for m in mods), base])


def help_keys(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """The keys help lists: every binding that says what it does (its tooltip), in order.

    An action bound again later (an app over the keys every screen shares)
    is listed once, with its later keys and words.
    """
    listed: dict[str, tuple[str, str]] = {}
    for entry in bindings:
        binding = entry if isinstance(entry, Binding) else Binding(*entry)
        if binding.tooltip:
            keys = binding.key_display or " or ".join(map(key_name, binding.key.split(",")))
            listed.pop(binding.action, None)
            listed[binding.action] = (keys, binding.tooltip)
    return list(listed.values())


class HelpScreen(ReadingScreen):
    """Every key of the screen it was opened from, and the commands."""

    BINDINGS = [Binding("escape,q,f1,question_mark,enter", "close", "Close")]

    def __init__(self, keys: list[tuple[str, str]], commands: list[str | tuple[str, str]]) -> None:
        super().__init__()
        self.keys = keys
        self.commands = commands

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for key, what in self.keys:
            keys.add_row(Text(key), Text(what))
        parts: list[RenderableType] = [Text("Keys", style="bold"), Padding(keys, (0, 0, 0, 2))]
        if self.commands:
            parts.append(Text("\nCommands", style="bold"))
            parts.extend(Padding(part, (0, 0, 0, 2)) for part in _usages(self.commands))
        parts.append(Text("\nEscape closes this help.", style="dim"))
        with Vertical(id="dialog"), VerticalScroll():
            yield Static(Group(*parts), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)


class RulesScreen(ReadingScreen):
    """The rules of the table's system, as margin plays them (the same text as margin rules).

    One widget draws the whole document, laid out once per width (``Drawn``): a widget per
    paragraph and table cell took seconds to open and to close on a long document."""

    BINDINGS = [
        Binding("escape,q,f2", "close", "Close"),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"), VerticalScroll(id="rules-scroll"):
            yield Static(_drawn_markdown(self.text), id="rules-text")

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#rules-scroll", VerticalScroll)
        if direction < 0:
            scroll.scroll_page_up()
        else:
            scroll.scroll_page_down()

    def action_close(self) -> None:
        self.dismiss(None)


class Drawn:
    """A renderable drawn once per width and kept: a long document's layout asks for its
    lines several times (its height, then what shows), and the dialog is opened often."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._lines: dict[int, list[list[Segment]]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if width not in self._lines:
            self._lines[width] = console.render_lines(
                self.renderable, options.update(height=None), pad=False
            )
        for line in self._lines[width]:
            yield from line
            yield Segment.line()


@functools.lru_cache(maxsize=8)
def _drawn_markdown(text: str) -> Drawn:
    # read when the rules are first shown: rich's Markdown brings a Markdown parser that
    # would otherwise cost every screen's start
    from rich.markdown import Markdown

    return Drawn(Markdown(text))


class JumpScreen(ModalScreen[str]):
    """Asks where a replay should jump: a record number, or round/turn/count N."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    PROMPT = "Jump to: a record number, or round N, turn N, count N"
    PLACEHOLDER = "round 2"

    def compose(self) -> ComposeResult:
        with Vertical(id="jump"):
            yield Static(self.PROMPT)
            yield Input(placeholder=self.PLACEHOLDER, id="jump-input")

    @on(Input.Submitted)
    def jump(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss("")


class SearchScreen(JumpScreen):
    """Asks what a replay should look for in the log: text, or @NAME for one character's records."""

    PROMPT = "Search the log for text (Enter: the match before this record), @NAME: only NAME's records, @: all"
    PLACEHOLDER = "bloodied"


def _usages(entries: list[str | tuple[str, str]]) -> list[RenderableType]:
    """Commands' usages and what they do, in columns whose words wrap under themselves.

    An entry is a usage and its meaning, or a plain line: a heading, or a usage
    and its meaning apart by three spaces. Runs of usages share one grid.
    """
    parts: list[RenderableType] = []
    grid: Table | None = None
    for entry in entries:
        if isinstance(entry, str):
            usage, gap, what = entry.partition("   ")
            if not gap:
                parts.append(Text(entry))
                grid = None
                continue
            entry = (usage, what.strip())
        if grid is None:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(max_width=44)
            grid.add_column(ratio=1)
            parts.append(grid)
        grid.add_row(Text(entry[0]), Text(entry[1]))
    return parts
