"""CLI subcommands: each module registers a parser and returns an exit status from run()."""
