"""Report size and speed: `python tests/benchmarks/bench_report.py [N…]`.

For each N (default 10,000 and 50,000; past html.ROW_LIMIT the HTML lists only blocked and
changed rows), writes a synthetic transcript (tests/benchmarks/synthetic.py) and a second
provider's version of it (bench_diff.py), then prints, for one file and for
the pair: loading and gating (or diffing) time, and for each format the rendering time and the
size of the report. Each time is the median of 3 runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script from a checkout: that checkout's package and the sibling benchmark modules.
ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "benchmarks")]

import bench_diff  # noqa: E402
import synthetic  # noqa: E402

from inspector.core.diff import diff_transcripts  # noqa: E402
from inspector.core.formats import load_path, load_tools  # noqa: E402
from inspector.core.gate import gate_transcript  # noqa: E402
from inspector.core.report.html import render_html  # noqa: E402
from inspector.core.report.junit import render_junit  # noqa: E402
from inspector.core.report.markdown import render_markdown  # noqa: E402
from inspector.core.report.model import ReportInput, ReportSide, decide  # noqa: E402
from inspector.core.report.redact import Redactor  # noqa: E402

RUNS = 3
RENDERERS = {"html": render_html, "markdown": render_markdown, "junit": render_junit}


def median_time(action: Callable[[], Any]) -> tuple[float, Any]:
    """Median wall time of RUNS calls, and the last result."""
    times, result = [], None
    for _ in range(RUNS):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def single(folder: Path, n: int) -> tuple[float, ReportInput]:
    """Load and gate one synthetic transcript of n items."""
    source = folder / f"items-{n}.jsonl"
    synthetic.write_jsonl(source, n)
    tools_path = folder / "tools.json"
    tools_path.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    tools = load_tools(tools_path)

    def build() -> ReportInput:
        result = gate_transcript(load_path(source), tools)
        sides = (ReportSide(str(source), result),)
        return ReportInput(sides, decide(sides, None))

    return median_time(build)


def pair(folder: Path, n: int) -> tuple[float, ReportInput]:
    """Load and diff two providers' transcripts of n items, 1% changed."""
    left_items = list(synthetic.items(n))
    left, right = folder / f"left-{n}.jsonl", folder / f"right-{n}.jsonl"
    bench_diff.write_jsonl(left, left_items)
    bench_diff.write_jsonl(right, bench_diff.make_right(left_items))

    def build() -> ReportInput:
        diff = diff_transcripts(load_path(left), load_path(right))
        sides = (ReportSide(str(left), diff.left), ReportSide(str(right), diff.right))
        return ReportInput(sides, decide(sides, diff), diff=diff, mode="replay")

    return median_time(build)


def _count(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of items (1 or more)")
    return value


def main(argv: list[str]) -> int:
    """Print one line per size, input kind and format."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "sizes",
        nargs="*",
        type=_count,
        metavar="N",
        help="items per transcript (default: 10000 50000)",
    )
    sizes = parser.parse_args(argv).sizes or [10_000, 50_000]
    print(f"{'items':>7}  {'input':6}  {'prepare':>8}  {'format':8}  {'render':>7}  {'size':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in sizes:
            for kind, prepare in (("single", single), ("pair", pair)):
                prepared, report = prepare(folder, n)
                for name, renderer in RENDERERS.items():
                    seconds, text = median_time(lambda r=renderer, i=report: r(i, Redactor()))
                    size = len(text.encode("utf-8"))
                    print(
                        f"{n:>7,}  {kind:6}  {prepared:>7.2f}s  {name:8}  {seconds:>6.2f}s  "
                        f"{size / 1e6:>7.2f}MB"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
