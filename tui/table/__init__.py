"""The application: a table opened, read through one reader, written to; keys, dice, sheets."""

from .table import Table, new_command_id

__all__ = ["Table", "new_command_id"]
