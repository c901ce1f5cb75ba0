"""Errors a user can cause: the message is the whole story, one line."""


class RuleError(ValueError):
    """A command the rules or the table's state refuse; nothing is appended."""


class NotationError(RuleError):
    """Dice notation that cannot be read; the message points at the character."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        pointer = f"{text}\n{' ' * position}^"
        super().__init__(f"dice {text!r}: {reason} at position {position + 1}")
        self.text = text
        self.position = position
        self.pointer = pointer
