"""Entry point: a subcommand runs the CLI; anything else opens the desktop inspector."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from inspector.cli import SUBCOMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the CLI or the GUI; Qt is imported only when the GUI starts."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        from inspector.cli import run

        try:
            return run(args)
        except BrokenPipeError:
            # `inspector gate … | head` closed the pipe: not an error worth a traceback.
            sys.stderr.close()
            return 0
    from inspector.gui.app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
