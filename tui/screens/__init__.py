"""The Textual screens: the GM's table, a player's view, replay; their widgets and styles."""
