"""The application: a table opened, read through one reader, written to; keys, dice, sheets."""
