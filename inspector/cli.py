"""Command line: `python -m inspector gate|diff|events|report|tools|scan …`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from inspector import __version__
from inspector.commands import SUBCOMMANDS as SUBCOMMANDS  # re-exported: callers import it here
from inspector.commands.common import EXIT_UNREADABLE
from inspector.core.errors import UsageError
from inspector.core.model import paused_gc


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` gives it: COLUMNS, the terminal, 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, told the width: its own asks `shutil`, whose import (with
    bz2, lzma and fnmatch) every command would pay for, since each argument makes a formatter."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, _columns() - 2 if width is None else width
        )


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so run() controls the exit status."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser with every subcommand registered, or just `only` (the one being run).

    A command imports only its own module: the others' imports (report renderers, the diff)
    would be start-up time paid for nothing.
    """
    parser = _Parser(prog="inspector", description="Check Open Responses transcripts for replay.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in (only,) if only in SUBCOMMANDS else SUBCOMMANDS:
        importlib.import_module(f"inspector.commands.{name}").add_parser(sub)
    return parser


def run(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one CLI command and return its exit status."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    for stream in {id(s): s for s in (sys.stdout, sys.stderr) if s in (out, err)}.values():
        # A terminal in a non-UTF-8 locale must not turn an odd character into a crash.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    parser = build_parser(argv[0] if argv else None)
    try:
        args = parser.parse_args(list(argv))
    except UsageError as exc:
        err.write(parser.format_usage())
        err.write(f"{exc}\n")
        return EXIT_UNREADABLE
    except SystemExit as exc:  # --help and --version exit through argparse
        return int(exc.code or 0)
    # A command's data is parsed JSON without reference cycles: collecting while it grows
    # only rescans the heap (see model.paused_gc).
    with paused_gc():
        return int(args.run(args, out, err))
