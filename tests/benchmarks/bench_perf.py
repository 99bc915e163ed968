"""Every performance target in one run: `python tests/benchmarks/bench_perf.py`.

Each figure is a median over several runs, measured side by side with its baseline in the same
run, as whole processes where a user would run a whole process:

  (a) `gate --format json` on a 200k-item JSONL ÷ parsing it with `json` (one loads per line)
  (b) the same ÷ parsing it with orjson alone (the practical floor)
  (c) diff of two 100k-item transcripts with 1% changed ÷ loading them
  (d) reducing a 200k-event stream ÷ JSON-parsing its data lines
  (e) GUI: load finished → first paint of a 200k-item pane; peak RSS ÷ file size (large JSONL)
  (f) GUI cold start to first paint with the sample pair ÷ a bare PySide6 window

(c)–(f) run the dedicated benchmarks beside this file (bench_diff, bench_stream, bench_gui) in
child processes and collect their figures; each can also be run on its own for more detail.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synthetic  # noqa: E402

PARSE_JSON = "import json,sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
PARSE_ORJSON = "import orjson,sys\nfor line in open(sys.argv[1], 'rb'):\n    orjson.loads(line)\n"


def _timed(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"benchmark command failed: {command}\n{done.stderr.decode()[-2000:]}")
    return elapsed


def gate_ratios(items: int, runs: int, folder: Path) -> list[tuple[str, float, str, str]]:
    """(a) and (b): whole-process gate against whole-process parsing, interleaved runs."""
    jsonl = folder / "items.jsonl"
    tools = folder / "tools.json"
    synthetic.write_jsonl(jsonl, items)
    tools.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    py = sys.executable
    commands = {
        "gate": [
            py,
            "-m",
            "inspector",
            "gate",
            "--format",
            "json",
            str(jsonl),
            "--tools",
            str(tools),
        ],
        "json": [py, "-c", PARSE_JSON, str(jsonl)],
        "orjson": [py, "-c", PARSE_ORJSON, str(jsonl)],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(_timed(command))
    median = {name: statistics.median(values) for name, values in times.items()}
    size = jsonl.stat().st_size / 1e6
    note = (
        f"gate {median['gate']:.2f} s, json {median['json']:.2f} s, orjson "
        f"{median['orjson']:.2f} s ({items:,} items, {size:.0f} MB)"
    )
    return [
        ("(a) gate ÷ stdlib json parse", median["gate"] / median["json"], "≤ 0.6", note),
        ("(b) gate ÷ orjson parse", median["gate"] / median["orjson"], "≤ 3", ""),
    ]


def child_json(script: str, *args: str) -> dict[str, float]:
    """Run a dedicated benchmark in a fresh interpreter; its last line is a JSON object."""
    done = subprocess.run(
        [sys.executable, str(HERE / script), *args], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"{script} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    """Run every benchmark and print the table of ratios beside their targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--items", type=int, default=200_000)
    args = parser.parse_args()
    started = time.perf_counter()
    rows: list[tuple[str, float, str, str]] = []
    with tempfile.TemporaryDirectory() as scratch:
        rows += gate_ratios(args.items, args.runs, Path(scratch))
    diff = child_json("bench_diff.py", "--one", "100000", "--runs", str(args.runs))
    rows.append(
        (
            "(c) diff ÷ load (100k items, 1% changed)",
            diff["diff"] / diff["load"],
            "≤ 1.0",
            f"diff {diff['diff']:.2f} s, load {diff['load']:.2f} s",
        )
    )
    from bench_stream import measure

    reduce, parse, _whole = measure(200_000, args.runs)
    rows.append(
        (
            "(d) reduce ÷ parse (200k events)",
            reduce / parse,
            "≤ 1.5",
            f"reduce {reduce:.2f} s, parse {parse:.2f} s",
        )
    )
    gui = child_json("bench_gui.py", "--runs", str(args.runs), "--json")
    rows.append(("(e) first paint of a 200k-item pane (s)", gui["first_paint"], "≤ 0.5", ""))
    rows.append(
        (
            "(e) peak RSS ÷ file size",
            gui["rss_over_size"],
            "≤ 3",
            f"{gui['file_mb']:.0f} MB JSONL, peak {gui['peak_mb']:.0f} MB",
        )
    )
    rows.append(
        (
            "(f) cold start ÷ bare PySide6 window",
            gui["cold_ratio"],
            "≤ 1.5",
            f"app {gui['cold_app']:.2f} s, bare {gui['cold_bare']:.2f} s",
        )
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}"
    )
    print(f"{'figure':44} {'measured':>9}  {'target':>7}  met  detail")
    for name, value, target, detail in rows:
        limit = float(target.split()[-1])
        met = "yes" if value <= limit else "NO"
        print(f"{name:44} {value:9.2f}  {target:>7}  {met:3}  {detail}")
    print(f"total benchmark time: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
