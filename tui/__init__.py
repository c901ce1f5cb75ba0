"""margin's user-facing layer: the command line and the Textual screens."""
