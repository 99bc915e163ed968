"""Run a benchmark's child process and measure it: wall time and that child's own peak RSS.

The peak comes from `os.wait4`, which returns the rusage of the one child it reaps (ru_maxrss is
in KiB on Linux); RUSAGE_CHILDREN would be the maximum over every child reaped so far. A child
started straight from a benchmark would not do either: on Linux a process's ru_maxrss starts at
the RSS of the process it was forked from (exec keeps the high-water mark), and a benchmark
holding a large transcript would lift every small child's figure to its own. So each child is
started by a tiny wrapper interpreter (about 11 MB, the floor of every figure) that reaps it
with wait4 and writes the time and peak to a file.

Children get this checkout first on PYTHONPATH, so they measure this checkout's package and not
whichever copy is installed in the interpreter's environment.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write_bytecode() -> None:
    """Write this checkout's bytecode first, as installing a package writes it.

    With none (PYTHONDONTWRITEBYTECODE set, or a checkout just changed) every measured command
    would compile the package's modules again: about 600 M instructions before a gate's fork,
    which a stdlib parse never pays.
    """
    import compileall

    for folder in (ROOT / "inspector", ROOT / "tests" / "benchmarks"):
        compileall.compile_dir(folder, quiet=1)


#: Starts the command, reaps it with wait4 and writes "seconds maxrss status" to argv[1].
#: Run with -S (no site): the smaller the wrapper, the lower the floor it puts under the peak.
WRAPPER = """\
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - started
child.returncode = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as report:
    report.write(f"{seconds} {usage.ru_maxrss} {child.returncode}")
"""


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
    with tempfile.TemporaryDirectory(prefix="measure-") as scratch:
        report = Path(scratch) / "report"
        out_path, err_path = Path(scratch) / "stdout", Path(scratch) / "stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            wrapper = subprocess.run(
                [sys.executable, "-S", "-c", WRAPPER, str(report), *command],
                stdout=out if keep_stdout else subprocess.DEVNULL,
                stderr=err,
                env=child_env(),
                cwd=ROOT,
                check=False,
            )
        stderr = err_path.read_text("utf-8", "replace")[-3000:]
        if wrapper.returncode != 0 or not report.exists():
            raise SystemExit(f"the measuring wrapper failed on {command}:\n{stderr}")
        seconds, maxrss, status = report.read_text().split()
        if int(status) not in ok:
            raise SystemExit(f"{command} exited with {status}:\n{stderr}")
        stdout = out_path.read_text("utf-8", "replace") if keep_stdout else ""
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    return Measured(float(seconds), int(maxrss) * scale, stdout)
