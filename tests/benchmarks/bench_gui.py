"""GUI benchmarks (not collected by pytest): run `python tests/benchmarks/bench_gui.py`.

Figures, each measured in fresh subprocesses on the offscreen platform:

* first paint: from a 200,000-item JSONL transcript being loaded and gated to the first paint
  of its pane (the result handed to the window, the tree viewport rendered);
* peak RSS ÷ file size for that transcript (ru_maxrss of the process that loaded and showed it);
* cold start: process start → first paint of the window with the sample pair, divided by the
  same for a bare PySide6 window shown by the same interpreter (median of 5 each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspector.gui.qt_main_window import MainWindow

REPO = Path(__file__).resolve().parents[2]
ITEMS = 200_000
RUNS = 5
TARGETS = {"first_paint_s": 0.5, "rss_ratio": 3.0, "cold_ratio": 1.5}

TOOLS = [
    {
        "type": "function",
        "name": "get_latest_sales_report",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["region"],
            "properties": {"region": {"type": "string", "enum": ["apac", "emea", "amer"]}},
        },
    },
    {
        "type": "function",
        "name": "search_web",
        "parameters": {
            "type": "object",
            "required": ["query"],
            "properties": {"query": {"type": "string"}, "max_results": {"type": "integer"}},
        },
    },
]


def generate(path: Path, count: int = ITEMS, seed: int = 5) -> None:
    """Write a realistic agent log: a request with tools, then one item per line."""
    rng = random.Random(seed)
    regions = ["apac", "emea", "amer", "global"]
    words = [
        "sales",
        "report",
        "market",
        "news",
        "freight",
        "demand",
        "quarter",
        "revenue",
        "growth",
        "holiday",
    ]
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"model": "bench", "tools": TOOLS, "input": []}) + "\n")
        n = 0
        while n < count:
            turn = n // 5
            call_id = f"call_{turn:06d}"
            text = " ".join(rng.choice(words) for _ in range(rng.randint(6, 30)))
            if rng.random() < 0.5:
                name, args = "get_latest_sales_report", {"region": rng.choice(regions)}
            else:
                name, args = "search_web", {"query": text[:60], "max_results": rng.randint(1, 9)}
            batch = [
                {"type": "message", "role": "user", "content": text},
                {
                    "type": "reasoning",
                    "id": f"rs_{turn:06d}",
                    "summary": [{"type": "summary_text", "text": text[:80]}],
                },
                {
                    "type": "function_call",
                    "id": f"fc_{turn:06d}",
                    "call_id": call_id,
                    "name": name,
                    "arguments": json.dumps(args),
                    "status": "completed",
                },
                {"type": "function_call_output", "call_id": call_id, "output": text},
                {
                    "type": "message",
                    "id": f"msg_{turn:06d}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                },
            ]
            for item in batch[: count - n]:
                out.write(json.dumps(item) + "\n")
            n += len(batch)


def _child_env() -> dict[str, str]:
    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)}


def _run_child(*args: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        env=_child_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _shown_window(scratch: str) -> MainWindow:
    """A QApplication and a shown 1400×900 inspector window keeping settings in `scratch`."""
    from PySide6.QtWidgets import QApplication

    from inspector.gui.qt_main_window import MainWindow
    from inspector.gui.qt_settings import Settings

    app = QApplication.instance() or QApplication([])
    window = MainWindow(Settings.open(Path(scratch) / "s.ini"), synchronous=True)
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    return window


def _peak_rss_bytes() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0  # kilobytes on Linux


def child_large(path: str) -> dict[str, float]:
    """Load + gate the large file, hand it to the window, time until its pane is painted."""
    from inspector.gui.qt_session import load_and_gate

    with tempfile.TemporaryDirectory() as scratch:
        window = _shown_window(scratch)
        started = time.perf_counter()
        loaded = load_and_gate(path, {}, lambda *_report: None)
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        window.session.set_loaded("left", loaded)
        window.left.tree.viewport().grab()  # paints the visible rows
        first_paint_s = time.perf_counter() - started
        started = time.perf_counter()
        window.select("left", len(loaded.result.transcript.items) - 1)
        window.left.tree.viewport().grab()
        jump_s = time.perf_counter() - started
    return {
        "load_gate_s": load_s,
        "first_paint_s": first_paint_s,
        "jump_to_last_s": jump_s,
        "peak_rss_bytes": _peak_rss_bytes(),
    }


def child_baseline() -> dict[str, float]:
    """Peak RSS of the same window with nothing loaded (what Qt and Python cost anyway)."""
    with tempfile.TemporaryDirectory() as scratch:
        _shown_window(scratch).grab()
    return {"peak_rss_bytes": _peak_rss_bytes()}


def child_cold(kind: str) -> None:
    """Start, show a window, paint it, exit: the inspector with the sample pair loaded
    ('app'), the inspector painting while the pair still loads on workers ('app-window'),
    or a bare PySide6 window ('bare')."""
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([])
    if kind.startswith("app"):
        from inspector.gui.qt_app import _application
        from inspector.gui.qt_main_window import MainWindow
        from inspector.gui.qt_settings import Settings

        _application()
        scratch = tempfile.mkdtemp()
        window = MainWindow(Settings.open(Path(scratch) / "s.ini"), synchronous=kind == "app")
        window.open_sample_pair()
    else:
        window = QMainWindow()
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    window.grab()
    sys.stdout.write("{}\n")
    sys.stdout.flush()
    os._exit(0)  # first paint is the finish line; teardown is not part of a cold start


def _cold_seconds(kind: str, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        _run_child("cold", kind)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print each figure beside its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, default=ITEMS, help="items in the large transcript")
    parser.add_argument("--runs", type=int, default=RUNS, help="cold starts per kind")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)
    if args.child:
        kind = args.child[0]
        if kind == "large":
            print(json.dumps(child_large(args.child[1])))
        elif kind == "baseline":
            print(json.dumps(child_baseline()))
        else:
            child_cold(args.child[1])
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-gui-") as scratch:
        big = Path(scratch) / "large.jsonl"
        generate(big, args.items)
        size = big.stat().st_size
        large = _run_child("large", str(big))
        baseline = _run_child("baseline")
    cold_app = _cold_seconds("app", args.runs)
    cold_window = _cold_seconds("app-window", args.runs)
    cold_bare = _cold_seconds("bare", args.runs)
    rss_ratio = large["peak_rss_bytes"] / size
    above_baseline = (large["peak_rss_bytes"] - baseline["peak_rss_bytes"]) / size
    cold_ratio = cold_app / cold_bare
    rows = [
        ("file", f"{args.items:,} items, {size / 1e6:.1f} MB JSONL", "", ""),
        ("load + gate (core, for context)", f"{large['load_gate_s']:.2f} s", "", ""),
        (
            "load finished → first paint",
            f"{large['first_paint_s']:.3f} s",
            f"≤ {TARGETS['first_paint_s']} s",
            large["first_paint_s"] <= TARGETS["first_paint_s"],
        ),
        ("select + paint the last item", f"{large['jump_to_last_s']:.3f} s", "", ""),
        (
            "peak RSS ÷ file size",
            f"{rss_ratio:.2f}  ({large['peak_rss_bytes'] / 1e6:.0f} MB)",
            f"≤ {TARGETS['rss_ratio']}",
            rss_ratio <= TARGETS["rss_ratio"],
        ),
        (
            "  (peak RSS − empty window) ÷ size",
            f"{above_baseline:.2f}  (empty window {baseline['peak_rss_bytes'] / 1e6:.0f} MB)",
            "",
            "",
        ),
        (
            "cold start ÷ bare PySide6 window",
            f"{cold_ratio:.2f}  ({cold_app:.2f} s / {cold_bare:.2f} s, median of {RUNS})",
            f"≤ {TARGETS['cold_ratio']}",
            cold_ratio <= TARGETS["cold_ratio"],
        ),
        (
            "  window painted, pair still loading",
            f"{cold_window / cold_bare:.2f}  ({cold_window:.2f} s)",
            "",
            "",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    value_width = max(len(r[1]) for r in rows)
    print(f"{'figure':<{width}}  {'measured':<{value_width}}  {'target':<8}  result")
    for name, value, target, ok in rows:
        verdict = "" if ok == "" else ("ok" if ok else "MISSED")
        print(f"{name:<{width}}  {value:<{value_width}}  {target:<8}  {verdict}")
    if args.json:
        figures = {
            "first_paint": large["first_paint_s"],
            "rss_over_size": rss_ratio,
            "file_mb": size / 1e6,
            "peak_mb": large["peak_rss_bytes"] / 1e6,
            "cold_ratio": cold_ratio,
            "cold_app": cold_app,
            "cold_bare": cold_bare,
        }
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
