"""Session files at scale: `python tests/benchmarks/bench_sources.py [--quick] [--size MB]`.

100 MB Claude Code sessions (1.0.98 and 2.1.39 records) and a 100 MB Codex rollout are generated
by repeating a real session's turns (the samples under samples/sessions/; each repeat gets its
own call, message and record ids, so the gate sees distinct calls), and a 100 MB OTLP trace in
the collector's file-exporter lines by `synthetic.write_otlp` (each call a trace of two GenAI
chat spans). For each, `inspector gate --format json` is timed against a plain stdlib parse of
the same file (`json.loads` on every line), as whole processes, runs interleaved and the median
taken, in wall time and in CPU time (steadier on a shared machine, but summed over the gate's
processes: a large session or trace is gated on every core, so on an idle machine the wall
time is the target's measure; the OTLP trace is also timed with `--jobs 1`); the gate's peak
RSS is shown beside (target: 5× the file). Target: the gate within 2× the stdlib parse. Then
the window (offscreen, in a child process) opens each file: the time from asking for the file
to the first paint of its pane's rows (target 1 s), and to the whole file shown. `--quick`
uses small files
and one run, to check the benchmark still works (its figures mean little).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]

import synthetic  # noqa: E402
from measure import Measured, run_measured, write_bytecode  # noqa: E402

SAMPLES = HERE.parents[1] / "samples" / "sessions"
SOURCES = {
    "Claude Code 1.0.98 session": SAMPLES / "claude_code" / "v1.0.98-session.jsonl",
    "Claude Code 2.1.39 session": SAMPLES
    / "claude_code"
    / "project"
    / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "Codex rollout": SAMPLES / "codex" / "rollout-0.104-calls.jsonl",
}
#: Generated files: label → (file name, writer of about `size` bytes).
GENERATED = {"OTLP trace": ("otlp.jsonl", "write_otlp")}
#: Sources gated by runs on every core by default: also timed in one process (`--jobs 1`).
BY_RUNS = {"OTLP trace"}
#: Peak RSS of the gate ÷ the file.
RSS_LIMIT = 5.0
PARSE_JSON = "import json,sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
#: Ids made unique per repeat: Anthropic tool and message ids, OpenAI call ids, record uuids
#: (not the `call_id` key itself, which a Codex rollout's calls and outputs are paired by).
_IDS = re.compile(rb'"(toolu_|msg_|call_(?!id")|req_)|"([0-9a-f]{8})-([0-9a-f]{4}-)')
LIMIT = 2.0
#: Seconds from opening a 100 MB session in the window to the first paint of its rows.
FIRST_PAINT_S = 1.0


def repeated(source: Path, target: Path, size: int) -> int:
    """Write the source's lines again and again (ids renamed per repeat) up to `size` bytes."""
    body = source.read_bytes()
    if not body.endswith(b"\n"):
        body += b"\n"
    written = repeat = 0
    with target.open("wb") as out:
        while written < size:
            tag = b"r%d" % repeat

            def rename(match: re.Match[bytes], tag: bytes = tag) -> bytes:
                if match.group(1):
                    return b'"' + match.group(1) + tag + b"_"
                return b'"' + match.group(2)[: -len(tag)] + tag + b"-" + match.group(3)

            chunk = _IDS.sub(rename, body)
            out.write(chunk)
            written += len(chunk)
            repeat += 1
    return written


def _cpu(command: list[str]) -> float:
    """CPU seconds (user + system) a child process used: steadier than wall time on a shared
    machine, where other processes' load stretches a long run's wall time the most."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, cwd=HERE.parents[1])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(path: Path, runs: int, *options: str) -> dict[str, float]:
    """Median wall and CPU seconds of the gate and of the stdlib parse; the gate's peak RSS."""
    py = sys.executable
    gate = [py, "-m", "inspector", "gate", "--format", "json", *options, str(path)]
    parse = [py, "-c", PARSE_JSON, str(path)]
    wall: dict[str, list[Measured]] = {"gate": [], "json": []}
    cpu: dict[str, list[float]] = {"gate": [], "json": []}
    for _ in range(runs):
        wall["gate"].append(run_measured(gate, ok=(0, 1)))
        wall["json"].append(run_measured(parse))
        cpu["gate"].append(_cpu(gate))
        cpu["json"].append(_cpu(parse))
    return {
        "gate": statistics.median(m.seconds for m in wall["gate"]),
        "json": statistics.median(m.seconds for m in wall["json"]),
        "gate_cpu": statistics.median(cpu["gate"]),
        "json_cpu": statistics.median(cpu["json"]),
        "peak": statistics.median(m.peak_rss for m in wall["gate"]),
    }


def child_window(path: str) -> dict[str, float]:
    """In a child: open the file in a shown window; seconds to its first painted rows and to
    the whole file shown."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from inspector.gui.qt_app import _application
    from inspector.gui.qt_main_window import MainWindow
    from inspector.gui.qt_settings import Settings

    app = _application()
    with tempfile.TemporaryDirectory() as scratch:
        window = MainWindow(Settings.open(Path(scratch) / "s.ini"), synchronous=False)
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        pane = window.panes["left"]
        started = time.perf_counter()
        window.open_file("left", path)
        while pane.model.rowCount() == 0:
            app.processEvents()
            time.sleep(0.001)
        pane.tree.viewport().grab()  # paints the visible rows
        first = time.perf_counter() - started
        shown = window.session.files["left"]
        early_items = len(shown.result.transcript.items) if shown is not None else 0
        while window.session.runner.busy("left"):
            app.processEvents()
            time.sleep(0.005)
        pane.tree.viewport().grab()
        whole = time.perf_counter() - started
        loaded = window.session.files["left"]
        items = len(loaded.result.transcript.items) if loaded is not None else 0
        window.runner.wait()
    return {"first_paint_s": first, "whole_s": whole, "first_items": early_items, "items": items}


def first_paint(path: Path) -> dict[str, float]:
    """The window child's figures for a file."""
    run = subprocess.run(
        [sys.executable, __file__, "--child", str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=HERE.parents[1],
    )
    figures: dict[str, float] = json.loads(run.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    """Generate, measure and print one row per source."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="small files, one run")
    parser.add_argument("--size", type=float, default=100.0, help="MB per generated file")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_window(args.child)))
        return 0
    write_bytecode()  # every command runs as an installed package's would
    size = int((5.0 if args.quick else args.size) * 1e6)
    runs = 1 if args.quick else args.runs
    print(f"{'figure':58} {'measured':>9}  {'target':>8}  met  detail")
    with tempfile.TemporaryDirectory() as folder:
        files: list[tuple[str, Path, int]] = []
        for name, source in SOURCES.items():
            path = Path(folder) / source.name
            files.append((name, path, repeated(source, path, size)))
        for name, (file_name, writer) in GENERATED.items():
            path = Path(folder) / file_name
            getattr(synthetic, writer)(path, size)
            files.append((name, path, path.stat().st_size))
        for name, path, written in files:
            m = measure(path, runs)
            rows = [("wall", m["gate"], m["json"]), ("CPU", m["gate_cpu"], m["json_cpu"])]
            if name in BY_RUNS:
                alone = measure(path, runs, "--jobs", "1")
                rows += [
                    ("wall, --jobs 1", alone["gate"], alone["json"]),
                    ("CPU, --jobs 1", alone["gate_cpu"], alone["json_cpu"]),
                ]
            for kind, gate, parse in rows:
                ratio = gate / parse
                met = "yes" if ratio <= LIMIT else "NO"
                label = f"{name} {written / 1e6:.0f} MB: gate ÷ stdlib parse ({kind})"
                print(
                    f"{label:58} {ratio:>9.2f}  {'≤ ' + str(LIMIT):>8}  {met:3}  gate "
                    f"{gate:.2f} s, json {parse:.2f} s"
                )
            rss = m["peak"] / written
            label = f"{name} {written / 1e6:.0f} MB: gate peak RSS ÷ file"
            met = "yes" if rss <= RSS_LIMIT else "NO"
            print(
                f"{label:58} {rss:>9.2f}  {'≤ ' + str(RSS_LIMIT):>8}  {met:3}  "
                f"peak {m['peak'] / 1e6:.0f} MB"
            )
            w = first_paint(path)
            met = "yes" if w["first_paint_s"] <= FIRST_PAINT_S else "NO"
            label = f"{name} {written / 1e6:.0f} MB: window open → first rows painted"
            print(
                f"{label:58} {w['first_paint_s']:>8.2f}s  {'≤ ' + str(FIRST_PAINT_S):>7}s  "
                f"{met:3}  {w['first_items']:,.0f} items first; the whole file "
                f"({w['items']:,.0f} items) shown after {w['whole_s']:.2f} s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
