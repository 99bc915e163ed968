"""Entry point: a subcommand runs the CLI; anything else opens the desktop inspector.

A command ends with one line on stderr and no traceback however it is stopped: Ctrl+C (130),
SIGTERM (143), a write error on stdout (2: `> /dev/full`, a closed stdout), running out of
memory (2). Output files are written atomically, so none is left half-written.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import io
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from inspector import headroom, heap
from inspector.commands import SUBCOMMANDS  # not the CLI: a window's start needs none of it

_EXIT_UNREADABLE = 2
_EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Terminated(BaseException):
    """SIGTERM, raised where the command is so that `finally` clauses (temporary files) run."""


def _terminate(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process was started with it closed: writing is an error."""

    def write(self, text: str) -> int:
        """Refuse: the output would be lost."""
        raise OSError(errno.EBADF, "standard output is closed")


def _end(status: int, line: str) -> None:
    """Say one line on stderr and leave at once (nothing is torn down)."""
    headroom.stop()
    try:
        sys.stderr.write(f"inspector: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    except MemoryError:
        # Even the line could not be made: write the words that already exist.
        with contextlib.suppress(OSError):
            os.write(2, _OUT_OF_MEMORY_LINE)
    os._exit(status)


_OUT_OF_MEMORY = "out of memory; the input is too large for this machine"
#: The line made before it is needed: with no memory left, not even it could be formatted.
_OUT_OF_MEMORY_LINE = f"inspector: {_OUT_OF_MEMORY}\n".encode()


def _thread_failed(args: threading.ExceptHookArgs) -> None:
    if issubclass(args.exc_type, MemoryError):
        _end(_EXIT_UNREADABLE, _OUT_OF_MEMORY)
    threading.__excepthook__(args)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def run_command(args: list[str]) -> None:
    """Run one CLI command and end the process with its exit status."""
    # Under an address-space cap the heap's padding would count against it: glibc's defaults.
    if not headroom.guard():
        heap.keep_freed_memory()
    try:
        from inspector.cli import run
    except MemoryError:
        _end(_EXIT_UNREADABLE, _OUT_OF_MEMORY)

    signal.signal(signal.SIGTERM, _terminate)
    # A worker thread (a process pool's manager) can be the one to run out: the same line.
    threading.excepthook = _thread_failed
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    # A command is a short-lived process over acyclic parsed JSON: reference counting
    # frees what it must, and the cyclic collector would only rescan the growing heap.
    gc.disable()
    try:
        status = run(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        _end(_EXIT_SIGNAL[signal.SIGINT], "interrupted (SIGINT); standard output may be cut off")
    except Terminated:
        _end(_EXIT_SIGNAL[signal.SIGTERM], "terminated (SIGTERM); standard output may be cut off")
    except BrokenPipeError:
        # `inspector gate … | head` closed the pipe: not an error worth a traceback.
        sys.stderr.close()
        os._exit(0)
    except MemoryError:
        _end(_EXIT_UNREADABLE, _OUT_OF_MEMORY)
    except OSError as exc:
        _end(_EXIT_UNREADABLE, f"cannot write to standard output: {_reason(exc)}")
    sys.stderr.flush()
    # Skip tearing down hundreds of thousands of objects one by one on the way out;
    # the output is flushed and the command has nothing else to release.
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the CLI or the GUI; Qt is imported only when the GUI starts."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        try:
            run_command(args)
        except KeyboardInterrupt:  # before the command's own handlers were in place
            _end(_EXIT_SIGNAL[signal.SIGINT], "interrupted (SIGINT)")
    from inspector.gui.qt_app import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
