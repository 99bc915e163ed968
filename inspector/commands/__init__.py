"""CLI subcommands: each module registers a parser and returns an exit status from run()."""

#: The subcommands' names, one module each (the entry point tells a command from the GUI's
#: file arguments by these alone, without importing the CLI).
SUBCOMMANDS = ("gate", "diff", "events", "report", "tools", "scan")
