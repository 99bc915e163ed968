"""Gate and diff of large JSONL logs as whole processes: wall time and peak memory.

`python tests/benchmarks/bench_memory.py [--items N] [--runs R] [--baseline REV]`

Writes an N-item synthetic log (and a copy with 1% of its calls changed), then runs, side by
side and interleaved, R times each (medians are shown):

  gate   `python -m inspector gate FILE --format json --tools TOOLS > /dev/null`
  diff   `python -m inspector diff FILE COPY --format json --tools TOOLS > /dev/null`
  json   a stdlib `json.loads` of every line, the baseline the gate is measured against
  orjson an `orjson.loads` of every line, the practical floor

Peak memory is each process's maximum resident set (`os.wait4`), divided by the file size
(gate) or by both files' sizes (diff). With `--baseline REV`, the gate and the diff of that
git revision (its `inspector/` package, extracted to a temporary folder) run beside this
checkout's, so before and after come from one run on one machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import synthetic  # noqa: E402

PARSE_JSON = "import json,sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
PARSE_ORJSON = "import orjson,sys\nfor line in open(sys.argv[1], 'rb'):\n    orjson.loads(line)\n"


def run(command: list[str], cwd: Path) -> tuple[float, int]:
    """Run a whole process; return its wall time (s) and peak resident set (bytes)."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    assert process.stderr is not None
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{errors[-2000:]}")
    return elapsed, usage.ru_maxrss * 1024  # kilobytes on Linux


def write_logs(folder: Path, items: int) -> tuple[Path, Path, Path]:
    """The log, a copy with every 100th call's arguments changed, and the tools."""
    log, copy, tools = folder / "a.jsonl", folder / "b.jsonl", folder / "tools.json"
    synthetic.write_jsonl(log, items)
    calls = 0
    with log.open(encoding="utf-8") as source, copy.open("w", encoding="utf-8") as out:
        for line in source:
            if '"type":"function_call"' in line and isinstance(
                (item := json.loads(line)).get("arguments"), str
            ):
                calls += 1
                if calls % 100 == 0:
                    item["arguments"] = json.dumps({"changed": calls})
                    line = json.dumps(item, separators=(",", ":")) + "\n"
            out.write(line)
    tools.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return log, copy, tools


def baseline_tree(revision: str, folder: Path) -> Path:
    """The `inspector` package of a git revision, extracted into folder."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "inspector"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main() -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", metavar="REV", help="also measure this git revision")
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        log, copy, tools = write_logs(folder, args.items)
        trees = {"now": REPO}
        if args.baseline:
            (folder / "base").mkdir()
            trees["before"] = baseline_tree(args.baseline, folder / "base")
        commands: dict[str, tuple[list[str], Path]] = {
            "json": ([py, "-c", PARSE_JSON, str(log)], REPO),
            "orjson": ([py, "-c", PARSE_ORJSON, str(log)], REPO),
        }
        for name, tree in trees.items():
            gate = ["gate", str(log), "--format", "json", "--tools", str(tools)]
            diff = ["diff", str(log), str(copy), "--format", "json", "--tools", str(tools)]
            commands[f"gate {name}"] = ([py, "-m", "inspector", *gate], tree)
            commands[f"diff {name}"] = ([py, "-m", "inspector", *diff], tree)
        times: dict[str, list[float]] = {k: [] for k in commands}
        peaks: dict[str, list[int]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for key, (command, cwd) in commands.items():
                elapsed, peak = run(command, cwd)
                times[key].append(elapsed)
                peaks[key].append(peak)
        size, both = log.stat().st_size, log.stat().st_size + copy.stat().st_size
    wall = {k: statistics.median(v) for k, v in times.items()}
    peak = {k: statistics.median(v) for k, v in peaks.items()}
    print(f"{args.items:,} items, {size / 1e6:.1f} MB per file; medians of {args.runs} runs")
    print(
        f"json parse {wall['json']:.2f} s ({peak['json'] / 1e6:.0f} MB), orjson parse "
        f"{wall['orjson']:.2f} s ({peak['orjson'] / 1e6:.0f} MB)"
    )
    names = [n for n in ("before", "now") if n in trees]
    print(f"{'figure':34}" + "".join(f"{n:>10}" for n in names) + "  target")
    rows = [
        ("gate wall (s)", lambda n: wall[f"gate {n}"], ""),
        ("gate ÷ json parse", lambda n: wall[f"gate {n}"] / wall["json"], "≤ 1.0"),
        ("gate ÷ orjson parse", lambda n: wall[f"gate {n}"] / wall["orjson"], "≤ 3"),
        ("gate peak RSS (MB)", lambda n: peak[f"gate {n}"] / 1e6, ""),
        ("gate peak RSS ÷ file", lambda n: peak[f"gate {n}"] / size, "≤ 5"),
        ("diff wall (s)", lambda n: wall[f"diff {n}"], ""),
        ("diff peak RSS (MB)", lambda n: peak[f"diff {n}"] / 1e6, ""),
        ("diff peak RSS ÷ both files", lambda n: peak[f"diff {n}"] / both, "≤ 5"),
    ]
    for label, value, target in rows:
        print(f"{label:34}" + "".join(f"{value(n):10.2f}" for n in names) + f"  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
