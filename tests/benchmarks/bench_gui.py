"""GUI benchmarks (not collected by pytest): run `python tests/benchmarks/bench_gui.py`.

Figures, each measured in fresh subprocesses on the offscreen platform, on the realistic
transcripts of synthetic.py:

* first paint: from a 200,000-item JSONL transcript being loaded and gated to the first paint
  of its pane (the result handed to the window, the tree viewport rendered);
* a pair: the window opens two 100,000-item files (left and right) with their tools, the way
  `replay-inspector --tools T LEFT RIGHT` does, waits until both are gated and diffed on its
  worker threads, and paints; its peak RSS (ru_maxrss of that whole process) ÷ both files;
* cold start: process start → first paint of the window started on the sample pair (as
  `replay-inspector --tools T LEFT RIGHT`, which opens them after that paint), divided by the
  same for a bare PySide6 window shown by the same interpreter (medians, the runs interleaved);
  for context, the same until the pair is loaded, diffed and painted, and how many Python enum
  classes PySide6 has made by the first paint (it makes a Qt class's when the class is first
  used; the `Qt` namespace alone has 93).
"""

from __future__ import annotations

import argparse
import enum
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Run as a script from a checkout: that checkout's package and the sibling benchmark modules.
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE)]

import synthetic  # noqa: E402
from measure import Measured, run_measured, write_bytecode  # noqa: E402

if TYPE_CHECKING:
    from inspector.gui.qt_main_window import MainWindow

PANE_ITEMS = 200_000
PAIR_ITEMS = 100_000
#: Cold starts of each kind (one more of each is made first and dropped: `cold_runs`).
COLD_RUNS = 11
TARGETS = {"first_paint_s": 0.5, "pair_rss_ratio": 8.0, "cold_ratio": 1.5}
#: How long a child may take to load, gate and diff its pair before it gives up.
PAIR_TIMEOUT_MS = 600_000


def write_pair(folder: Path, count: int) -> tuple[Path, Path, Path]:
    """Write a transcript, a second provider's version of it (1% changed) and the tools."""
    from bench_diff import make_right
    from bench_diff import write_jsonl as write_items

    left, right, tools = folder / "left.jsonl", folder / "right.jsonl", folder / "tools.json"
    items = list(synthetic.items(count))
    write_items(left, items)
    write_items(right, make_right(items))
    tools.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return left, right, tools


def run_child(*args: str) -> tuple[dict[str, float], Measured]:
    """Run this file in child mode; return the JSON on its last line and its measurement."""
    run = run_measured([sys.executable, __file__, "--child", *args], keep_stdout=True)
    return json.loads(run.stdout.strip().splitlines()[-1]), run


def _shown_window(scratch: str, *, synchronous: bool) -> MainWindow:
    """A QApplication and a shown 1400×900 inspector window keeping settings in `scratch`,
    started as the application starts it, with what it does after its first paint done (the
    target profiles loaded on a worker)."""
    from inspector.gui.qt_app import _application, build_parser, open_window
    from inspector.gui.qt_settings import Settings

    app = _application()
    settings = Settings.open(Path(scratch) / "s.ini")
    window = open_window(build_parser().parse_args([]), settings, synchronous=synchronous)
    window.resize(1400, 900)
    app.processEvents()
    # The toolbar's target selector is made after the first paint.
    while (
        getattr(window, "target_selector", None) is None
        or window.runner.busy("targets")
        or not window.target_selector.count() > 1
    ):
        window.runner.wait()
        app.processEvents()
    return window


def _own_peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0  # KiB on Linux


def child_large(path: str, tools_path: str) -> dict[str, float]:
    """Load + gate the large file, hand it to the window, time until its pane is painted."""
    from inspector.core.formats import load_tools
    from inspector.gui.qt_session import load_and_gate

    with tempfile.TemporaryDirectory() as scratch:
        window = _shown_window(scratch, synchronous=True)
        started = time.perf_counter()
        loaded = load_and_gate(path, load_tools(tools_path), lambda *_report: None)
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        window.session.set_loaded("left", loaded)
        window.left.tree.viewport().grab()  # paints the visible rows
        first_paint_s = time.perf_counter() - started
        laid_out = window.left.model.fetched_rows
        started = time.perf_counter()
        window.select("left", len(loaded.result.transcript.items) - 1)
        window.left.tree.viewport().grab()
        jump_s = time.perf_counter() - started
    return {
        "load_gate_s": load_s,
        "first_paint_s": first_paint_s,
        "rows_laid_out": laid_out,
        "jump_to_last_s": jump_s,
        "peak_rss_bytes": _own_peak_rss(),
    }


def child_pair(left: str, right: str, tools: str) -> dict[str, float]:
    """Open both files with the tools as a user does, wait for the diff, paint, report."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    with tempfile.TemporaryDirectory() as scratch:
        window = _shown_window(scratch, synchronous=False)  # loads on worker threads
        session = window.session
        loop = QEventLoop()
        problems: list[str] = []

        def failed(*details: object) -> None:
            problems.append(str(details[-1]))
            loop.quit()

        session.failed.connect(failed)
        session.diff_failed.connect(failed)
        session.diffed.connect(loop.quit)
        QTimer.singleShot(PAIR_TIMEOUT_MS, loop.quit)
        started = time.perf_counter()
        if not window.load_tool_file(tools, regate=False):
            raise SystemExit(f"cannot load the tools {tools}")
        window.open_pair(left, right)
        loop.exec()
        if problems or session.alignment is None or None in session.files.values():
            raise SystemExit(f"the pair was not loaded and diffed: {problems or 'timed out'}")
        diffed_s = time.perf_counter() - started
        # Whatever the panels started on the diff finishes (and is shown) before the paint.
        for _ in range(3):
            window.runner.wait()
            QApplication.processEvents()
        window.grab()
        painted_s = time.perf_counter() - started
    return {"diffed_s": diffed_s, "painted_s": painted_s, "peak_rss_bytes": _own_peak_rss()}


def child_baseline() -> dict[str, float]:
    """Peak RSS of the same window with nothing loaded (what Qt and Python cost anyway)."""
    with tempfile.TemporaryDirectory() as scratch:
        _shown_window(scratch, synchronous=True).grab()
    return {"peak_rss_bytes": _own_peak_rss()}


def pyside_enum_classes() -> int:
    """How many Python enum classes PySide6 has made so far (a class's, when it is first used)."""
    found: set[type] = set()
    todo: list[type] = [enum.Enum]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sum(1 for c in found if c.__module__.startswith("PySide6."))


def child_cold(kind: str, count: bool = False) -> None:
    """Start, show a window, exit at its first paint: the inspector as
    `replay-inspector --tools T LEFT RIGHT` starts on the sample pair ('app': the pair is opened
    after the first paint), the same until the pair is loaded, diffed and painted ('app-pair'),
    or a bare PySide6 window ('bare'). `count` reports the enum classes made by then (not in
    the timed runs)."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

    class FirstPaint(QObject):
        # The bench's own (the bare window imports nothing of the inspector); as qt_app's.
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                QTimer.singleShot(0, finish)
            return False

    def after_first_paint(widget: QWidget) -> None:
        widget.installEventFilter(FirstPaint(widget))

    def finish() -> None:
        sys.stdout.write(json.dumps({"enum_classes": pyside_enum_classes()} if count else {}))
        sys.stdout.write("\n")
        sys.stdout.flush()
        os._exit(0)  # the finish line; teardown is not part of a cold start

    if kind.startswith("app"):
        # The application's own entry point (`replay-inspector`), told to watch the window it
        # makes: the same imports, arguments, theme, settings store and window.
        from inspector.__main__ import main
        from inspector.gui import qt_app
        from inspector.resources import sample_pair

        make_window = qt_app.open_window

        def watched(*args: Any, **kwargs: Any) -> Any:
            window = make_window(*args, **kwargs)
            if kind == "app":
                # Installed after the window's own watcher, so it runs first: before the pair.
                after_first_paint(window)
            else:

                def painted() -> None:
                    window.grab()
                    finish()

                window.session.diffed.connect(painted)
            return window

        qt_app.open_window = watched
        pair = sample_pair()
        settings = Path(tempfile.mkdtemp()) / "s.ini"
        main(
            [
                "--settings",
                str(settings),
                "--tools",
                str(pair.tools),
                str(pair.left),
                str(pair.right),
            ]
        )
    else:
        app = QApplication([])
        bare = QMainWindow()
        bare.resize(1400, 900)
        bare.show()
        after_first_paint(bare)
        app.exec()


def pane_first_paint(folder: Path, count: int) -> dict[str, float]:
    """The large-pane child's figures for a `count`-item transcript written into `folder`."""
    path, tools = folder / "pane.jsonl", folder / "pane-tools.json"
    synthetic.write_jsonl(path, count)
    tools.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    figures, _run = run_child("large", str(path), str(tools))
    return {**figures, "file_bytes": path.stat().st_size}


def pair_memory(left: Path, right: Path, tools: Path) -> dict[str, float]:
    """The pair child's figures, its peak RSS as wait4 reports it, and both files' size."""
    figures, run = run_child("pair", str(left), str(right), str(tools))
    both = left.stat().st_size + right.stat().st_size
    return {**figures, "peak_rss": run.peak_rss, "both_bytes": both}


def cold_runs(runs: int, kinds: tuple[str, ...] = ("app", "bare")) -> dict[str, list[float]]:
    """Seconds to first paint of each kind's `runs` runs, both kinds treated alike.

    The bytecode of this checkout's modules is written first, as installing a package writes
    it: with none (PYTHONDONTWRITEBYTECODE, a checkout just changed) every app run compiles
    the window's 130-odd modules, which the bare window, importing only PySide6, never does.
    One run of each kind is then made and dropped (it warms the disk cache and the
    interpreter's own files), and the kinds are interleaved, their order turned round every
    run, so that a machine speeding up or slowing down weighs on both alike.
    """
    write_bytecode()
    for kind in kinds:
        run_child("cold", kind)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for number in range(runs):
        for kind in kinds if number % 2 == 0 else kinds[::-1]:
            times[kind].append(run_child("cold", kind)[1].seconds)
    return times


def cold_starts(runs: int, kinds: tuple[str, ...] = ("app", "bare")) -> dict[str, float]:
    """Median seconds to first paint per kind (`cold_runs`)."""
    return {kind: statistics.median(values) for kind, values in cold_runs(runs, kinds).items()}


def spread(values: list[float]) -> str:
    """A figure's runs as `median (lowest–highest)`, in seconds."""
    return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f})"


def cold_ratio(times: dict[str, list[float]]) -> tuple[float, str]:
    """The app's median ÷ the bare window's, and words giving both spreads and the spread of
    the ratio run by run (each app run ÷ the bare run beside it)."""
    app, bare = times["app"], times["bare"]
    paired = sorted(a / b for a, b in zip(app, bare, strict=True))
    words = (
        f"app {spread(app)} / bare {spread(bare)}, median of {len(app)}; "
        f"run by run {paired[0]:.2f}–{paired[-1]:.2f}"
    )
    return statistics.median(app) / statistics.median(bare), words


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print each figure beside its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, default=PANE_ITEMS, help="items in the large pane")
    parser.add_argument("--pair-items", type=int, default=PAIR_ITEMS, help="items per pair file")
    parser.add_argument("--runs", type=int, default=COLD_RUNS, help="cold starts per kind")
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        if kind == "large":
            print(json.dumps(child_large(*rest)))
        elif kind == "pair":
            print(json.dumps(child_pair(*rest)))
        elif kind == "baseline":
            print(json.dumps(child_baseline()))
        else:
            child_cold(rest[0], count=rest[1:] == ["count"])
        return 0

    with tempfile.TemporaryDirectory(prefix="bench-gui-") as scratch:
        folder = Path(scratch)
        large = pane_first_paint(folder, args.items)
        pair = pair_memory(*write_pair(folder, args.pair_items))
    baseline, _run = run_child("baseline")
    times = cold_runs(args.runs, ("app", "app-pair", "bare"))
    cold = {kind: statistics.median(values) for kind, values in times.items()}
    cold_ratio_value, cold_words = cold_ratio(times)
    enums = {
        kind: int(run_child("cold", kind, "count")[0]["enum_classes"]) for kind in ("app", "bare")
    }
    pair_ratio = pair["peak_rss"] / pair["both_bytes"]
    empty_mb = baseline["peak_rss_bytes"] / 1e6
    rows = [
        (
            "pane: file",
            f"{args.items:,} items, {large['file_bytes'] / 1e6:.1f} MB JSONL",
            "",
            "",
        ),
        ("  load + gate (core, for context)", f"{large['load_gate_s']:.2f} s", "", ""),
        (
            "  load finished → first paint",
            f"{large['first_paint_s']:.3f} s",
            f"≤ {TARGETS['first_paint_s']} s",
            large["first_paint_s"] <= TARGETS["first_paint_s"],
        ),
        ("  rows laid out for that paint (context)", f"{large['rows_laid_out']:,}", "", ""),
        ("  select + paint the last item", f"{large['jump_to_last_s']:.3f} s", "", ""),
        (
            "  peak RSS ÷ file size (context)",
            f"{large['peak_rss_bytes'] / large['file_bytes']:.2f}  "
            f"({large['peak_rss_bytes'] / 1e6:.0f} MB)",
            "",
            "",
        ),
        (
            "pair: both files",
            f"2 × {args.pair_items:,} items, {pair['both_bytes'] / 1e6:.1f} MB",
            "",
            "",
        ),
        (
            "  peak RSS ÷ both files",
            f"{pair_ratio:.2f}  ({pair['peak_rss'] / 1e6:.0f} MB)",
            f"≤ {TARGETS['pair_rss_ratio']}",
            pair_ratio <= TARGETS["pair_rss_ratio"],
        ),
        (
            "  (peak RSS − empty window) ÷ both",
            f"{(pair['peak_rss'] - baseline['peak_rss_bytes']) / pair['both_bytes']:.2f}  "
            f"(empty window {empty_mb:.0f} MB)",
            "",
            "",
        ),
        ("  opened → diffed → painted", f"{pair['painted_s']:.2f} s", "", ""),
        (
            "cold start ÷ bare PySide6 window",
            f"{cold_ratio_value:.2f}  ({cold_words})",
            f"≤ {TARGETS['cold_ratio']}",
            cold_ratio_value <= TARGETS["cold_ratio"],
        ),
        (
            "  enum classes made by the first paint (context)",
            f"{enums['app']}  (bare window {enums['bare']})",
            "",
            "",
        ),
        (
            "  the sample pair loaded, diffed and painted",
            f"{cold['app-pair'] / cold['bare']:.2f}  ({cold['app-pair']:.2f} s)",
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
