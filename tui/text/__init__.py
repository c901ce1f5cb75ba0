"""Plain words of a table: log lines, rules, recaps and luck, as text and as HTML."""
