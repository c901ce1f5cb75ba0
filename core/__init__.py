"""margin's rules and state: pure folds of the log, no I/O, no clock, no randomness."""

from .commands import command_schema, command_type, parse_command
from .decider import create_table, decide, evolve
from .dice import Dice, TypedDice
from .errors import NotationError, RuleError
from .history import History
from .projection import Projection
from .state import Character, TableState, find_character
from .systems import SYSTEMS, get_system

__all__ = [
    "SYSTEMS",
    "Character",
    "Dice",
    "History",
    "NotationError",
    "Projection",
    "RuleError",
    "TableState",
    "TypedDice",
    "command_schema",
    "command_type",
    "create_table",
    "decide",
    "evolve",
    "find_character",
    "get_system",
    "parse_command",
]
