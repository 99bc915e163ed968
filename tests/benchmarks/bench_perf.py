"""Every performance target in one run: `python tests/benchmarks/bench_perf.py [--quick]`.

Each figure is measured side by side with its baseline in the same run, runs interleaved and
the median taken, as whole processes where a user runs a whole process (peak RSS is that one
process's ru_maxrss, from os.wait4 in a tiny wrapper: see measure.py). The transcripts are
synthetic.py's: eight tool schemas, about a quarter of the calls invalid; the right-hand file
of a pair is a second provider's version of the left (bench_diff.make_right: new ids, 1% of
items changed).

  gate --format json on a 100k-item JSONL ÷ the source article's own gate (its code cut from
  ../shared/seeds/replay-gate-article.txt at run time: article_gate.py), ÷ a stdlib json parse
  (as run by default, on every core for a file this large, and in one process: --jobs 1) and
  ÷ an orjson parse; gate peak RSS ÷ file size, and on
  a 1M-item file its RSS ÷ file and time ÷ the 100k run; `inspector diff` of two 100k-item
  files: peak RSS ÷ both files; the GUI with both loaded and diffed: peak RSS ÷ both files;
  cold start to first paint with the sample pair ÷ a bare PySide6 window; diff ÷ load of two
  200k-item files; stream reduce ÷ parse; first paint of a 200k-item pane; the new sources
  (Claude Code sessions, OTLP traces) ÷ their stdlib parse, where this checkout reads them.

The dedicated benchmarks beside this file (bench_diff, bench_stream, bench_gui) measure the
last figures and print more detail; each also runs on its own. `--quick` runs every figure once
on small inputs, its groups side by side, to check that the benchmark still works (its figures
mean little). `--only gate,large` runs some groups of rows (GROUPS names them all).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# Run as a script from a checkout: that checkout's package and the sibling benchmark modules.
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]

import bench_gui  # noqa: E402
import bench_stream  # noqa: E402
import synthetic  # noqa: E402
from measure import Measured, run_measured, write_bytecode  # noqa: E402

from inspector.core.parallel import POOL_MIN_BYTES  # noqa: E402

PARSE_JSON = "import json,sys\nfor line in open(sys.argv[1], 'rb'):\n    json.loads(line)\n"
#: The source article, whose own gate is the first baseline (read at run time, never copied).
ARTICLE = HERE.parents[1].parent / "shared" / "seeds" / "replay-gate-article.txt"
PARSE_ORJSON = "import orjson,sys\nfor line in open(sys.argv[1], 'rb'):\n    orjson.loads(line)\n"


#: The groups of rows, in the order they run (`--only` picks some).
GROUPS = ("gate", "large", "diff", "gui-pair", "cold", "diff-load", "stream", "pane", "sources")


@dataclass(frozen=True)
class Sizes:
    """How big and how often: items per file, items in the pane and the stream, runs."""

    items: int
    #: items in the large file whose gate must stay linear (10× `items`)
    large: int
    #: items per file of the diff ÷ load pair
    diff: int
    #: bytes of the Claude Code session file
    source: int
    pane: int
    stream: int
    runs: int
    #: runs of the slow whole-process memory figures (diff, GUI pair): their peak varies little
    memory_runs: int


FULL = Sizes(
    items=100_000,
    large=1_000_000,
    diff=200_000,
    source=100_000_000,
    pane=200_000,
    stream=200_000,
    runs=5,
    memory_runs=3,
)
QUICK = Sizes(
    items=1_000,
    large=10_000,
    diff=1_000,
    source=300_000,
    pane=5_000,
    stream=5_000,
    runs=1,
    memory_runs=1,
)


@dataclass(frozen=True)
class Figure:
    """One row of the table: what, the measured value, its target, and how it was measured."""

    name: str
    #: None: not measured (the detail says why)
    value: float | None
    limit: float
    detail: str
    unit: str = ""

    def line(self) -> str:
        """The row as printed: name, value, target, met, detail."""
        target = f"≤ {self.limit:.1f}{self.unit}"
        if self.value is None:
            return f"{self.name:58} {'—':>9}  {target:>8}  {'—':3}  {self.detail}"
        met = "yes" if self.value <= self.limit else "NO"
        value = f"{self.value:.2f}{self.unit}"
        return f"{self.name:58} {value:>9}  {target:>8}  {met:3}  {self.detail}"


def _mb(size: float) -> str:
    return f"{size / 1e6:.0f} MB"


def interleaved(commands: dict[str, list[str]], runs: int) -> dict[str, list[Measured]]:
    """Run every command `runs` times, one of each per round, so load changes hit all alike."""
    done: dict[str, list[Measured]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            done[name].append(run_measured(command, ok=(0, 1)))  # 1: the gate found something
    return done


def _gate(path: Path, tools: Path, *options: str) -> list[str]:
    """`inspector gate --format json FILE --tools TOOLS [OPTIONS]` as a command line."""
    return [
        sys.executable,
        "-m",
        "inspector",
        "gate",
        "--format",
        "json",
        str(path),
        "--tools",
        str(tools),
        *options,
    ]


def _median(done: dict[str, list[Measured]], what: str) -> dict[str, float]:
    return {
        name: statistics.median(getattr(m, what) for m in runs_) for name, runs_ in done.items()
    }


def gate_figures(jsonl: Path, tools: Path, runs: int, article: Path) -> list[Figure]:
    """gate --format json against the article's own gate, a stdlib and an orjson parse; its RSS.

    Whole processes, interleaved: `gate --jobs 0` (every core: forked workers load, judge and
    encode runs of the file's lines, core/parallel.py) and `gate --jobs 1` (one process); the
    article's row and the RSS
    row take the one `gate` runs by default for this file (every core from POOL_MIN_BYTES). The
    article's gate is its code cut from the article at run time (article_gate.py). The same
    command on the file's first item alone, timed with them, is the fixed cost of a run
    (interpreter, imports, argument parsing), shown for context. Peak RSS is the gate's own
    process (a pool's workers are processes of their own).
    """
    py = sys.executable
    one = jsonl.with_name("one-item.jsonl")
    with jsonl.open("rb") as source:
        one.write_bytes(source.readline())
    commands = {
        "gate": _gate(jsonl, tools, "--jobs", "0"),
        "single": _gate(jsonl, tools, "--jobs", "1"),
        "json": [py, "-c", PARSE_JSON, str(jsonl)],
        "orjson": [py, "-c", PARSE_ORJSON, str(jsonl)],
        "one": _gate(one, tools),
    }
    if article.is_file():
        commands["article"] = [
            py,
            str(HERE / "article_gate.py"),
            str(article),
            str(jsonl),
            str(tools),
        ]
    done = interleaved(commands, runs)
    seconds, peak = _median(done, "seconds"), _median(done, "peak_rss")
    size = jsonl.stat().st_size
    gate_s, single_s = seconds["gate"], seconds["single"]
    cores = _cores()
    # What `gate` runs by default for a file of this size, and the words for it.
    default, words = ("gate", "every core") if size >= POOL_MIN_BYTES else ("single", "one process")
    article_row = (
        Figure(
            "gate --format json ÷ the article's own gate",
            seconds[default] / seconds["article"],
            1.0,
            f"gate {seconds[default]:.2f} s (the default: {words}), article's gate "
            f"{seconds['article']:.2f} s (verdicts only)",
        )
        if "article" in seconds
        else Figure(
            "gate --format json ÷ the article's own gate", None, 1.0, f"{article} not found"
        )
    )
    return [
        article_row,
        Figure(
            "gate on every core ÷ stdlib json parse",
            gate_s / seconds["json"],
            1.0,
            f"gate --jobs 0 {gate_s:.2f} s on {cores} core(s), json {seconds['json']:.2f} s",
        ),
        Figure(
            "gate in one process ÷ stdlib json parse",
            single_s / seconds["json"],
            2.0,
            f"gate --jobs 1 {single_s:.2f} s, json {seconds['json']:.2f} s; "
            f"{size / 1e6:.1f} MB JSONL",
        ),
        Figure(
            "gate --format json ÷ orjson parse",
            single_s / seconds["orjson"],
            3.0,
            f"--jobs 1; orjson {seconds['orjson']:.2f} s; gate of one item {seconds['one']:.2f} s",
        ),
        Figure(
            "gate peak RSS ÷ file size",
            peak[default] / size,
            5.0,
            f"peak {_mb(peak[default])} (the default: {words}; --jobs 0 {_mb(peak['gate'])}, "
            f"--jobs 1 {_mb(peak['single'])}); gate of one item "
            f"{_mb(peak['one'])}",
        ),
    ]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def large_gate_figures(folder: Path, small: Path, tools: Path, items: int) -> list[Figure]:
    """gate on a file 10× the size of `small`, once each: peak RSS ÷ file, time ÷ the small one."""
    large = folder / "large.jsonl"
    synthetic.write_jsonl(large, items)
    done = interleaved({"large": _gate(large, tools), "small": _gate(small, tools)}, 1)
    big, little = done["large"][0], done["small"][0]
    size = large.stat().st_size
    scale = size / small.stat().st_size
    return [
        Figure(
            f"gate of {items:,} items: peak RSS ÷ file size",
            big.peak_rss / size,
            5.0,
            f"peak {_mb(big.peak_rss)}, file {size / 1e6:.0f} MB; {big.seconds:.1f} s",
        ),
        Figure(
            f"gate of {items:,} items: time ÷ the {scale:.0f}× smaller file",
            big.seconds / little.seconds,
            10.0,
            f"{big.seconds:.1f} s ÷ {little.seconds:.2f} s",
        ),
    ]


def source_figures(folder: Path, tools: Path, size: int) -> list[Figure]:
    """The new sources' target: a 100 MB session or trace file gates within 2× its stdlib parse."""
    from inspector.core.formats import FORMATS

    names = {spec.name for spec in FORMATS}
    sources = [
        ("Claude Code session", "claude_code", synthetic.write_claude_code, "claude-code.jsonl"),
        ("OTLP trace", "otel", synthetic.write_otlp, "otlp.jsonl"),
    ]
    figures = []
    for label, name, write, file_name in sources:
        if name not in names:
            missing = f"gate of a {label} ÷ stdlib json parse"
            figures.append(Figure(missing, None, 2.0, "no such format"))
            continue
        path = folder / file_name
        write(path, size)
        parse = [sys.executable, "-c", PARSE_JSON, str(path)]
        commands = {"gate": _gate(path, tools), "json": parse}
        done = interleaved(commands, 1)
        gate_s, json_s = (done[what][0].seconds for what in ("gate", "json"))
        size = path.stat().st_size
        peak = done["gate"][0].peak_rss
        figures.append(
            Figure(
                f"gate of a {size / 1e6:.1f} MB {label} ÷ stdlib json parse",
                gate_s / json_s,
                2.0,
                f"gate {gate_s:.2f} s, json {json_s:.2f} s; gate peak RSS {_mb(peak)} "
                f"({peak / size:.1f}× the file)",
            )
        )
    return figures


def diff_figure(left: Path, right: Path, tools: Path, runs: int) -> Figure:
    """`inspector diff --format json` of the pair, a whole process: peak RSS ÷ both files."""
    command = [sys.executable, "-m", "inspector", "diff", "--format", "json"]
    command += ["--tools", str(tools), str(left), str(right)]
    done = interleaved({"diff": command}, runs)["diff"]
    peak = statistics.median(m.peak_rss for m in done)
    both = left.stat().st_size + right.stat().st_size
    seconds = statistics.median(m.seconds for m in done)
    return Figure(
        "diff peak RSS ÷ both files",
        peak / both,
        5.0,
        f"peak {_mb(peak)}, both files {both / 1e6:.1f} MB; {seconds:.2f} s",
    )


def gui_pair_figure(left: Path, right: Path, tools: Path, runs: int) -> Figure:
    """The window with both files loaded, gated and diffed: its peak RSS ÷ both files."""
    done = [bench_gui.pair_memory(left, right, tools) for _ in range(runs)]
    peak = statistics.median(d["peak_rss"] for d in done)
    both = done[0]["both_bytes"]
    empty, _run = bench_gui.run_child("baseline")
    painted = statistics.median(d["painted_s"] for d in done)
    return Figure(
        "GUI pair loaded and diffed: peak RSS ÷ both files",
        peak / both,
        8.0,
        f"peak {_mb(peak)}, empty window {_mb(empty['peak_rss_bytes'])}; "
        f"opened → painted {painted:.2f} s",
    )


def cold_figure(runs: int) -> Figure:
    """Cold start to first paint with the sample pair ÷ a bare PySide6 window: 2 × `runs` + 1
    interleaved runs of each (a start is short, and its spread is wide at any load)."""
    ratio, words = bench_gui.cold_ratio(bench_gui.cold_runs(2 * runs + 1))
    return Figure("cold start to first paint ÷ bare PySide6 window", ratio, 1.5, words)


def diff_load_figure(items: int, runs: int) -> Figure:
    """Diff ÷ load of two gated transcripts, in a fresh interpreter (bench_diff)."""
    command = [sys.executable, str(HERE / "bench_diff.py"), "--one", str(items)]
    row = json.loads(run_measured([*command, "--runs", str(runs)], keep_stdout=True).stdout)
    return Figure(
        "diff ÷ load",
        row["diff"] / row["load"],
        1.0,
        f"diff {row['diff']:.2f} s, load both {row['load']:.2f} s ({items:,} items each)",
    )


def stream_figure(deltas: int, runs: int) -> Figure:
    """Reducing a stream ÷ parsing its data lines (bench_stream)."""
    reduce, parse, _whole = bench_stream.measure(deltas, runs)
    return Figure(
        "stream reduce ÷ parse",
        reduce / parse,
        1.5,
        f"reduce {reduce:.2f} s, parse {parse:.2f} s ({deltas:,} events)",
    )


def pane_figure(folder: Path, items: int) -> Figure:
    """Load finished → first paint of a large pane (bench_gui)."""
    pane = bench_gui.pane_first_paint(folder, items)
    size = pane["file_bytes"] / 1e6
    return Figure(
        "first paint of a large pane",
        pane["first_paint_s"],
        0.5,
        f"{items:,} items, {size:.0f} MB; load + gate {pane['load_gate_s']:.2f} s",
        unit=" s",
    )


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print the table of figures beside their targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, one run each")
    parser.add_argument(
        "--article", type=Path, default=ARTICLE, help="the source article, whose gate is a baseline"
    )
    parser.add_argument(
        "--only",
        metavar="GROUP,…",
        help="run only these groups of rows: " + ", ".join(GROUPS),
    )
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else set(GROUPS)
    if only - set(GROUPS):
        parser.error(f"groups are: {', '.join(GROUPS)}")
    sizes = QUICK if args.quick else FULL
    write_bytecode()  # every command runs as an installed package's would
    started = time.perf_counter()
    load_before = os.getloadavg()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, {platform.system()} {platform.release()}; "
        f"{sizes.items:,} items per file; medians of {sizes.runs} run(s), "
        f"{sizes.memory_runs} for the diff and GUI pair"
    )
    print(f"{'figure':58} {'measured':>9}  {'target':>8}  met  detail", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-perf-") as scratch:
        folder = Path(scratch)
        left, right, tools = bench_gui.write_pair(folder, sizes.items)
        every: dict[str, Callable[[], list[Figure]]] = {
            "gate": lambda: gate_figures(left, tools, sizes.runs, args.article),
            "large": lambda: large_gate_figures(folder, left, tools, sizes.large),
            "diff": lambda: [diff_figure(left, right, tools, sizes.memory_runs)],
            "gui-pair": lambda: [gui_pair_figure(left, right, tools, sizes.memory_runs)],
            "cold": lambda: [cold_figure(sizes.runs)],
            "diff-load": lambda: [diff_load_figure(sizes.diff, sizes.runs)],
            "stream": lambda: [stream_figure(sizes.stream, sizes.runs)],
            "pane": lambda: [pane_figure(folder, sizes.pane)],
            "sources": lambda: source_figures(folder, tools, sizes.source),
        }
        groups = [run for name, run in every.items() if name in only]
        # --quick only checks that every figure still runs, so its groups may share the cores;
        # a full run measures one group at a time, or they would slow each other down.
        workers = (os.cpu_count() or 1) if args.quick else 1
        # Each row is printed as its group ends (in order), so a long run shows its progress.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for group in pool.map(lambda run: run(), groups):
                for figure in group:
                    print(figure.line(), flush=True)
    load_after = os.getloadavg()
    print(
        f"total benchmark time: {time.perf_counter() - started:.0f} s; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
