"""The performance benchmark still runs and still prints every target (`-m slow`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The figures of the performance targets (issue 26) as patterns (a size in a name follows the
#: inputs), each with the target it must be shown beside; the table must hold a row for every one.
FIGURES = {
    r"gate --format json ÷ the article's own gate": "≤ 1.0",
    r"gate on every core ÷ stdlib json parse": "≤ 1.0",
    r"gate in one process ÷ stdlib json parse": "≤ 2.0",
    r"gate --format json ÷ orjson parse": "≤ 3.0",
    r"gate peak RSS ÷ file size": "≤ 5.0",
    r"gate of [\d,]+ items: peak RSS ÷ file size": "≤ 5.0",
    r"gate of [\d,]+ items: time ÷ the \d+× smaller file": "≤ 10.0",
    r"diff peak RSS ÷ both files": "≤ 5.0",
    r"GUI pair loaded and diffed: peak RSS ÷ both files": "≤ 8.0",
    r"cold start to first paint ÷ bare PySide6 window": "≤ 1.5",
    r"diff ÷ load": "≤ 1.0",
    r"stream reduce ÷ parse": "≤ 1.5",
    r"first paint of a large pane": "≤ 0.5 s",
    r"gate of a [\d.]+ MB Claude Code session ÷ stdlib json parse": "≤ 2.0",
    r"gate of a [\d.]+ MB OTLP trace ÷ stdlib json parse": "≤ 2.0",
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
        rows = [line for line in lines if re.match(name + " ", line)]
        assert len(rows) == 1, f"no single row for {name!r} in:\n{done.stdout}"
        # name, a measured number, the target, whether it is met
        pattern = rf"{name}\s+\d+\.\d\d( s)?\s+{re.escape(target)}\s+(yes|NO)\b"
        assert re.match(pattern, rows[0]), rows[0]
    assert len([line for line in lines if re.search(r"\s(yes|NO)\s", line)]) == len(FIGURES)


def test_bench_report_takes_help_and_refuses_a_bad_size_in_one_line() -> None:
    script = str(ROOT / "tests" / "benchmarks" / "bench_report.py")
    shown = subprocess.run(
        [sys.executable, script, "--help"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert shown.returncode == 0, shown.stderr
    assert "items per transcript" in shown.stdout
    refused = subprocess.run(
        [sys.executable, script, "many"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert refused.returncode == 2
    assert "Traceback" not in refused.stderr
    assert (
        refused.stderr.strip()
        .splitlines()[-1]
        .endswith("'many' is not a number of items (1 or more)")
    )
