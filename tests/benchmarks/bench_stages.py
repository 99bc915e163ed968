"""Where a command's time and memory go, stage by stage: `python tests/benchmarks/bench_stages.py`.

    bench_stages.py gate FILE TOOLS          read + load, gate, write the JSON report
    bench_stages.py diff LEFT RIGHT TOOLS    load both, gate both, align, build + write the JSON

Each stage runs once, in this process, the way the CLI runs it (cyclic collector off, the report
written to /dev/null), and prints its wall time, its CPU time, the RSS after it and the peak RSS
so far, each also ÷ the input size. With `--trace`, Python's own allocations (tracemalloc: the
live heap after each stage and the largest allocation sites) are printed too; tracing makes
every stage several times slower, so its times mean nothing then.

`gate` splits the one-process gate (`gate --jobs 1`) into loading, verdicts, findings, the
decision and document, the item rows (encoded and dropped) and writing (the rows encoded again
and written: writing is that stage less the rows). With `--marks`, `os.getppid()` is called at
the end of each stage, so that under
`valgrind --tool=callgrind --dump-before=getppid --dump-instr=no` each stage's instructions go to
a dump of its own (dump 1: the interpreter and the imports, 2: the tools file, then one a stage).
The file's validation budget (30 s) is then unlimited: a callgrind run is tens of times slower,
and calls judged after the budget ran out would get a cheap budget error instead of a verdict.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from inspector.commands import gate as gate_command
from inspector.commands.common import write_json
from inspector.core.decision import decide_file
from inspector.core.diff import diff_results
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import (
    GateResult,
    gate_transcript,
    item_verdicts,
    make_toolset,
    transcript_findings,
)
from inspector.core.report import Streamed
from inspector.core.report.diff_json import diff_document
from inspector.core.schema import FileBudget, file_budget

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * PAGE


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


class Stages:
    """Runs stages one after another and prints a row per stage."""

    def __init__(self, size: int, trace: bool, marks: bool = False) -> None:
        self.size = size
        self.trace = trace
        self.marks = marks
        print(f"input: {size / 1e6:.1f} MB; started at RSS {_rss() / 1e6:.0f} MB")
        print(
            f"{'stage':24} {'seconds':>8} {'CPU s':>8} {'RSS MB':>8} {'÷ input':>8} "
            f"{'peak MB':>8} {'÷ input':>8}"
            + (f" {'py heap MB':>10} {'py peak MB':>10}" if trace else "")
        )
        if trace:
            tracemalloc.start()
        if marks:
            os.getppid()  # the end of the start-up (see the module's docstring)

    def run(self, name: str, action: Callable[[], Any]) -> Any:
        """Run one stage and print its row; return what it returned."""
        started, cpu = time.perf_counter(), time.process_time()
        value = action()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        if self.marks:
            os.getppid()
        rss, peak = _rss(), _peak()
        row = (
            f"{name:24} {seconds:8.2f} {cpu:8.2f} {rss / 1e6:8.0f} {rss / self.size:8.2f} "
            f"{peak / 1e6:8.0f} {peak / self.size:8.2f}"
        )
        if self.trace:
            current, traced_peak = tracemalloc.get_traced_memory()
            row += f" {current / 1e6:10.0f} {traced_peak / 1e6:10.0f}"
        print(row, flush=True)
        return value

    def top(self, count: int = 12) -> None:
        """With tracing, print the allocation sites holding the most memory now."""
        if not self.trace:
            return
        print(f"largest live allocation sites (tracemalloc, top {count}):")
        for stat in tracemalloc.take_snapshot().statistics("lineno")[:count]:
            frame = stat.traceback[0]
            where = f"{Path(frame.filename).name}:{frame.lineno}"
            print(f"  {stat.size / 1e6:7.1f} MB {stat.count:>9,} blocks  {where}")


def gate(path: str, tools_path: str, trace: bool, marks: bool = False) -> None:
    """The stages of `inspector gate --format json --jobs 1 FILE --tools TOOLS`."""
    stages = Stages(os.path.getsize(path), trace, marks)
    tools = load_tools(tools_path)
    if marks:
        os.getppid()
    transcript = stages.run("read + load", lambda: load_path(path))
    stages.top()
    with file_budget(FileBudget(seconds=math.inf) if marks else FileBudget()):
        toolset, overridden = make_toolset(transcript, tools)
        verdicts = stages.run("verdicts", lambda: item_verdicts(transcript.items, toolset))
        findings = stages.run(
            "findings", lambda: transcript_findings(transcript, verdicts, toolset, overridden)
        )
    result = GateResult(transcript, tuple(verdicts), tuple(findings), toolset)
    stages.top()
    rows: list[Any] = []

    def document() -> dict[str, Any]:
        decision = decide_file(result, name=path)
        encoded = Streamed(rows, encoded=gate_command.ROWS_LEVEL)
        return gate_command.file_document(path, result, decision, encoded)

    made = stages.run("decision + document", document)
    items = len(transcript.items)
    stages.run("item rows", lambda: sum(map(len, gate_command._encode_rows(result))))
    rows.append(gate_command._encode_rows(result))
    with open(os.devnull, "w", encoding="utf-8") as sink:
        written = {"files": Streamed([made], nested=True)}
        stages.run("rows + write JSON", lambda: write_json(written, sink))
    print(f"{items:,} items")


def diff(left_path: str, right_path: str, tools_path: str, trace: bool) -> None:
    """The stages of `inspector diff --format json LEFT RIGHT --tools TOOLS`."""
    size = os.path.getsize(left_path) + os.path.getsize(right_path)
    stages = Stages(size, trace)
    tools = load_tools(tools_path)
    left = stages.run("read + load left", lambda: load_path(left_path))
    right = stages.run("read + load right", lambda: load_path(right_path))
    stages.top()
    gated_left = stages.run("gate left", lambda: gate_transcript(left, tools))
    gated_right = stages.run("gate right", lambda: gate_transcript(right, tools))
    result = stages.run("align + changes", lambda: diff_results(gated_left, gated_right))
    stages.top()
    document = stages.run(
        "build JSON document", lambda: diff_document(result, left_path, right_path)
    )
    stages.top()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        stages.run("write JSON", lambda: write_json(document, sink))


def main() -> int:
    """Run one command's stages and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="store_true", help="also trace Python allocations")
    parser.add_argument(
        "--marks", action="store_true", help="call os.getppid() after each stage (callgrind)"
    )
    parser.add_argument("command", choices=("gate", "diff"))
    parser.add_argument("files", nargs="+", help="gate: FILE TOOLS; diff: LEFT RIGHT TOOLS")
    args = parser.parse_args()
    gc.disable()  # as `python -m inspector` runs its commands
    if args.command == "gate" and len(args.files) == 2:
        gate(*args.files, args.trace, args.marks)
    elif args.command == "diff" and len(args.files) == 3:
        diff(*args.files, args.trace)
    else:
        parser.error("gate takes FILE TOOLS; diff takes LEFT RIGHT TOOLS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
