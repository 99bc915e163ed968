"""Diff speed against load speed on large transcripts: `python tests/benchmarks/bench_diff.py`.

Writes two JSONL transcripts of N items (synthetic.py's, gated with its tools) that differ in
1% of items (text, arguments, call_id,
provider-prefixed type, deleted and inserted items; every item id differs, as between two
providers), then reports the median of 5 runs of: loading both files, gating both, and
diffing the already-gated results. The target is diff ÷ load ≤ 1.0, and a per-item diff time
that stays flat as N grows (linear alignment).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script from a checkout: that checkout's package and the sibling benchmark modules.
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]

import synthetic  # noqa: E402
from measure import run_measured  # noqa: E402

from inspector.core.diff import diff_results  # noqa: E402
from inspector.core.formats import load_path, tools_from_document  # noqa: E402
from inspector.core.gate import GateResult, gate_transcript  # noqa: E402
from inspector.core.model import Tool, Transcript  # noqa: E402

SIZES = (25_000, 50_000, 100_000)
RUNS = 5
CHANGED = 0.01


def _change(rng: random.Random, item: dict[str, Any]) -> list[dict[str, Any]]:
    kind = item.get("type")
    roll = rng.random()
    if roll < 0.15:
        return []  # deleted on the right
    if roll < 0.30:
        return [item, {"type": "message", "role": "assistant", "content": "An extra remark."}]
    if kind == "function_call":
        if roll < 0.55:
            return [{**item, "call_id": item["call_id"] + "_b"}]
        if roll < 0.75:
            return [{**item, "arguments": json.dumps({"region": "global", "page": 1})}]
        return [
            {
                "type": "openai:web_search_call",
                "id": "ws_x",
                "status": "completed",
                "action": {"type": "search", "query": item["arguments"]},
            }
        ]
    if kind == "message" and isinstance(item.get("content"), str):
        return [{**item, "content": item["content"] + " (rephrased)"}]
    if kind == "function_call_output":
        return [{**item, "output": "{}"}]
    return [{**item, "status": "incomplete"}]


def make_right(left: list[dict[str, Any]], seed: int = 11) -> list[dict[str, Any]]:
    """Return the other provider's items: new ids everywhere, 1% of items changed."""
    rng = random.Random(seed)
    changed = set(rng.sample(range(len(left)), int(len(left) * CHANGED)))
    right: list[dict[str, Any]] = []
    for index, item in enumerate(left):
        if "id" in item:
            item = {**item, "id": "b_" + item["id"]}
        right.extend(_change(rng, item) if index in changed else [item])
    return right


def write_jsonl(path: Path, items: list[dict[str, Any]]) -> None:
    """Write one item per line."""
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item, separators=(",", ":")) + "\n")


def timed(action: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """Return the wall time of one call and its result."""
    start = time.perf_counter()
    result = action(*args)
    return time.perf_counter() - start, result


def load_both(left: Path, right: Path) -> tuple[Transcript, Transcript]:
    """Load both files."""
    return load_path(left), load_path(right)


def gate_both(
    left: Transcript, right: Transcript, tools: dict[str, Tool]
) -> tuple[GateResult, GateResult]:
    """Gate both transcripts with the tools."""
    return gate_transcript(left, tools), gate_transcript(right, tools)


def bench(size: int, folder: Path, runs: int) -> dict[str, float]:
    """Median times of loading, gating and diffing for one size, the runs interleaved."""
    left_path, right_path = folder / f"left-{size}.jsonl", folder / f"right-{size}.jsonl"
    left_items = list(synthetic.items(size))
    write_jsonl(left_path, left_items)
    write_jsonl(right_path, make_right(left_items))
    del left_items
    tools = tools_from_document(synthetic.tools(), "tools")
    times: dict[str, list[float]] = {"load": [], "gate": [], "diff": []}
    changed = 0
    # One load, gate and diff per round, so a busy machine slows all three alike; each round
    # starts from the same heap, so no round pays for the garbage of the one before.
    for _ in range(runs):
        gc.collect()
        seconds, (left, right) = timed(load_both, left_path, right_path)
        times["load"].append(seconds)
        seconds, (gated_left, gated_right) = timed(gate_both, left, right, tools)
        times["gate"].append(seconds)
        seconds, result = timed(diff_results, gated_left, gated_right)
        times["diff"].append(seconds)
        counts = result.summary()
        changed = counts["changed"] + counts["only_left"] + counts["only_right"]
        del left, right, gated_left, gated_right, result
    row: dict[str, float] = {k: statistics.median(v) for k, v in times.items()}
    row["n"] = size
    row["changed"] = changed
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, each size in a fresh interpreter, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run: one size
    args = parser.parse_args(argv)
    if args.one is not None:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(bench(args.one, Path(tmp), args.runs)))
        return 0
    header = (
        f"{'N':>8}  {'load both':>10}  {'gate both':>10}  {'diff':>8}  "
        f"{'diff÷load':>9}  {'target':>6}  {'µs/item':>8}  {'pairs≠':>6}"
    )
    print(header)
    print("-" * len(header))
    for size in args.sizes:
        # A fresh interpreter per size: a heap grown by the smaller sizes would slow the larger.
        child = run_measured(
            [sys.executable, __file__, "--one", str(size), "--runs", str(args.runs)],
            keep_stdout=True,
        )
        row = json.loads(child.stdout)
        ratio = row["diff"] / row["load"]
        per_item = row["diff"] / size * 1e6
        print(
            f"{size:>8}  {row['load']:>9.3f}s  {row['gate']:>9.3f}s  {row['diff']:>7.3f}s  "
            f"{ratio:>9.2f}  {'≤ 1.0':>6}  {per_item:>8.2f}  {row['changed']:>6}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
