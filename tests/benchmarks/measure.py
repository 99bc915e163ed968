"""Run a benchmark's child process and measure it: wall time and that child's own peak RSS.

The peak comes from `os.wait4`, which returns the rusage of the one child it reaps (ru_maxrss is
in KiB on Linux). RUSAGE_CHILDREN would not do: it is the maximum over every child reaped so far.
Children get this checkout first on PYTHONPATH, so they measure this checkout's package and not
whichever copy is installed in the interpreter's environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class Measured:
    """One finished child: seconds from start to exit, peak RSS in bytes, its stdout."""

    seconds: float
    peak_rss: int
    stdout: str


def child_env() -> dict[str, str]:
    """The environment for a child: this checkout first on the path, Qt drawing offscreen."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "QT_QPA_PLATFORM": "offscreen"}


def run_measured(
    command: list[str], *, keep_stdout: bool = False, ok: tuple[int, ...] = (0,)
) -> Measured:
    """Run a command to its end; SystemExit with its stderr if its status is not in `ok`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(
            command,
            stdout=out if keep_stdout else subprocess.DEVNULL,
            stderr=err,
            env=child_env(),
            cwd=ROOT,
        )
        _pid, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        # Reaped here, so Popen must not try to reap it again.
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in ok:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-3000:]
            raise SystemExit(f"{command} exited with {process.returncode}:\n{tail}")
        out.seek(0)
        text = out.read().decode("utf-8", "replace") if keep_stdout else ""
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return Measured(seconds, usage.ru_maxrss * scale, text)
