"""What the first-frame measurements (``screen.py``, ``length.py``) run in a fresh process
beside margin's screens: an empty Textual app, so that a slow machine shows in both."""

#: Python source defining ``Empty``, the app that draws one word (a child script's baseline)
EMPTY_APP = """
from textual.app import App
from textual.widgets import Static


class Empty(App):
    def compose(self):
        yield Static("empty")
"""
