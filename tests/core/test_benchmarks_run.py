"""The performance benchmark still runs and still prints every target (`-m slow`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The figures of the performance targets (issue 16), each with the target it must be shown
#: beside; the benchmark's table must hold a row for every one.
FIGURES = {
    "gate --format json ÷ stdlib json parse": "≤ 1.0",
    "gate --format json ÷ orjson parse": "≤ 3.0",
    "gate peak RSS ÷ file size": "≤ 5.0",
    "diff peak RSS ÷ both files": "≤ 6.0",
    "GUI pair loaded and diffed: peak RSS ÷ both files": "≤ 8.0",
    "cold start to first paint ÷ bare PySide6 window": "≤ 1.5",
    "diff ÷ load": "≤ 1.0",
    "stream reduce ÷ parse": "≤ 1.5",
    "first paint of a large pane": "≤ 0.5 s",
}


@pytest.mark.slow
def test_bench_perf_quick_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "benchmarks" / "bench_perf.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    for name, target in FIGURES.items():
        rows = [line for line in lines if line.startswith(name + " ")]
        assert len(rows) == 1, f"no single row for {name!r} in:\n{done.stdout}"
        # name, a measured number, the target, whether it is met
        pattern = rf"{re.escape(name)}\s+\d+\.\d\d( s)?\s+{re.escape(target)}\s+(yes|NO)\b"
        assert re.match(pattern, rows[0]), rows[0]
    assert len([line for line in lines if re.search(r"\s(yes|NO)\s", line)]) == len(FIGURES)
