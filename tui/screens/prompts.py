"""The checks the GM asks of players: the banner a player answers from, and the GM's list
of what is still waiting.

A player's banner shows the oldest check the GM asked of them (from the lensed state,
so it never shows another player's): Enter rolls it with margin's dice, ``=`` puts
``= `` on the command line for the faces rolled at the table, Escape hides it until
``r`` brings it back or the GM asks again. The GM's panel lists each ask with a
prompt waiting, who has answered and who has not. Neither decides anything: the
banner posts a message the screen answers by giving the ``answer`` command from the
player's seat.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from margin.core import RuleError, TableState, get_system
from margin.core.commands import convert_command
from margin.core.state import Prompt


def asked_line(check: dict[str, Any]) -> str:
    """A prompt's check in words: its fields as the GM gave them, the character's aside."""
    words = [str(check[k]) for k in ("skill", "attribute", "characteristic") if check.get(k)]
    rest = [
        f"{k} {v}"
        for k, v in check.items()
        if k not in ("type", "character", "skill", "attribute", "characteristic")
    ]
    return ", ".join([" ".join(words) or "a check", *rest])


def odds_line(prompt: Prompt, state: TableState) -> str:
    """The check's label and chance as the system's odds give them, from ``state`` (the
    reader's own), and the task it is for when the GM named one; the check's own words
    when the system gives no odds for it."""
    try:
        odds = get_system(state.system).odds(convert_command(state.system, prompt.check), state)
    except RuleError:
        odds = None
    if odds is None:
        return asked_line(prompt.check)
    label = odds.label or asked_line(prompt.check)
    chance = f"{odds.success:.0%}"
    line = (
        f"{label} to succeed" if label.endswith(f": {chance}") else f"{label}: {chance} to succeed"
    )
    task = prompt.check.get("task")
    return f"{line} · task: {task}" if task else line


class PromptBar(Static, can_focus=True):
    """A player's banner for the check the GM asks of them now; hidden while none waits."""

    DEFAULT_CSS = """
    PromptBar { height: auto; padding: 0 1; border: tall $warning; display: none; }
    PromptBar.shown { display: block; }
    PromptBar:focus { border: tall $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "roll", "Roll", tooltip="roll the check the GM asks for, margin's dice"),
        Binding(
            "equals_sign", "faces", "Faces",
            tooltip="type the faces you rolled at the table (= 7 3 on the command line)",
        ),
        Binding("escape", "dismiss", "Hide", tooltip="hide the GM's ask (r brings it back)"),
    ]  # fmt: skip

    class Roll(Message):
        """The player answers the prompt shown, with margin's dice."""

    class Faces(Message):
        """The player will type the faces they rolled, on the command line."""

    class Hidden(Message):
        """The banner had the keys and is hidden now: the screen gives them back."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the prompt shown (its number in the player's log), None while none waits
        self.prompt: int | None = None
        #: prompts the player hid: shown again only when asked (``reopen``)
        self.hidden: set[int] = set()

    def show_prompts(self, state: TableState) -> bool:
        """Show the oldest prompt waiting in the player's state; whether a new one came."""
        waiting = sorted(state.prompts)
        first = waiting[0] if waiting else None
        new = first is not None and first != self.prompt
        self.prompt = first
        if first is None:
            self._hide()
            return False
        prompt = state.prompts[first]
        text = Text()
        text.append(" THE GM ASKS YOU TO ROLL ", style="bold reverse")
        text.append(f"  {odds_line(prompt, state)}\n", style="bold")
        more = f"  ({len(waiting) - 1} more after it)" if len(waiting) > 1 else ""
        text.append(
            "Enter rolls margin's dice · = then the faces you rolled (= 7 3) · Escape hides"
            f" this, r brings it back{more}",
            style="dim",
        )
        self.update(text)
        self.set_class(first not in self.hidden, "shown")
        return new and first not in self.hidden

    def reopen(self) -> bool:
        """Show the prompt waiting again after the player hid it; whether one waits."""
        if self.prompt is None:
            return False
        self.hidden.discard(self.prompt)
        self.set_class(True, "shown")
        self.focus()
        return True

    def action_roll(self) -> None:
        if self.prompt is not None:
            self.post_message(self.Roll())

    def action_faces(self) -> None:
        if self.prompt is not None:
            self.post_message(self.Faces())

    def action_dismiss(self) -> None:
        if self.prompt is not None:
            self.hidden.add(self.prompt)
        self._hide()

    def _hide(self) -> None:
        self.set_class(False, "shown")
        if self.has_focus:
            self.post_message(self.Hidden())


class PromptsPanel(Static):
    """The GM's list of the checks asked of players that are still waiting; hidden while none
    waits."""

    DEFAULT_CSS = """
    PromptsPanel {
        height: auto; max-height: 8; padding: 0 1; border-top: solid $warning; display: none;
    }
    PromptsPanel.shown { display: block; }
    """

    @staticmethod
    def first_waiting(state: TableState) -> str | None:
        """The name of the player whose prompt has waited longest, None when none waits."""
        for _seq, prompt in sorted(state.prompts.items()):
            if not prompt.answered:
                char = state.characters.get(prompt.seat)
                return char.name if char is not None else prompt.seat
        return None

    @staticmethod
    def text_of(state: TableState) -> Text:
        return prompts_text(state, str(state.options.get("players", "ask")))

    def show_text(self, text: Text) -> None:
        self.set_class(bool(text.plain), "shown")
        self.update(text)


def _answer(name: str, prompt: Prompt) -> Text:
    """Whether ``name`` has answered the prompt, as the GM's list says it."""
    if prompt.answered:
        return Text(f"{name} answered", style="green")
    return Text(f"{name} waiting", style="bold")


def prompts_text(state: TableState, players: str = "ask") -> Text:
    """The GM's list of asks with a prompt waiting: the check, who answered, who has not."""
    text = Text()
    if not state.prompts:
        return text
    names = {c.id: c.name for c in state.characters.values()}
    asks: dict[str, list[tuple[int, Prompt]]] = {}
    for seq, prompt in sorted(state.prompts.items()):
        asks.setdefault(prompt.ask, []).append((seq, prompt))
    for prompts in asks.values():
        first = prompts[0][0]
        text.append(f"#{first} ", style="bold yellow")
        text.append(f"asked: {asked_line(prompts[0][1].check)}: ")
        said = [_answer(names.get(prompt.seat, prompt.seat), prompt) for _seq, prompt in prompts]
        text.append_text(Text(", ").join(said))
        text.append("\n")
    how = (
        "players watch only (option players off): F8 (ask roll NAME) rolls each"
        if players == "off"
        else "F8 (ask roll NAME) rolls it for a player who has not answered"
    )
    text.append(how, style="dim")
    return text
