"""Entry point: a subcommand runs the CLI; anything else opens the desktop inspector."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

from inspector.cli import SUBCOMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the CLI or the GUI; Qt is imported only when the GUI starts."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        from inspector.cli import run

        # A command is a short-lived process over acyclic parsed JSON: reference counting
        # frees what it must, and the cyclic collector would only rescan the growing heap.
        gc.disable()
        try:
            status = run(args)
            sys.stdout.flush()
        except BrokenPipeError:
            # `inspector gate … | head` closed the pipe: not an error worth a traceback.
            sys.stderr.close()
            os._exit(0)
        sys.stderr.flush()
        # Skip tearing down hundreds of thousands of objects one by one on the way out;
        # the output is flushed and the command has nothing else to release.
        os._exit(status)
    from inspector.gui.qt_app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
