"""Robustness: a hundred quick loads, reloads, cancels and switches between good, broken, large
and stream files; no crash, no exception, no thread left behind, and memory back near where
it was."""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool

from inspector.gui.qt_main_window import SIDES, MainWindow
from tests.conftest import SAMPLES
from tests.gui.conftest import PROVIDER_A, PROVIDER_B, SALES_TOOLS

CYCLES = 100
WARM_UP = 10
#: Growth of the resident set allowed from the first to the last of the measured cycles.
GROWTH_LIMIT = 50 * 1024 * 1024
STREAM = SAMPLES / "streams" / "function-call.sse"


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _large(path: Path, count: int = 4000) -> Path:
    """A few megabytes of calls, outputs and messages (one call in five fails its schema)."""
    items = []
    for n in range(count // 4):
        call_id = f"call_{n:05d}"
        region = "global" if n % 5 == 0 else "apac"
        items += [
            {"type": "message", "role": "user", "content": f"report {n} " + "word " * 40},
            {
                "type": "function_call",
                "call_id": call_id,
                "name": "get_latest_sales_report",
                "arguments": json.dumps({"region": region}),
                "status": "completed",
            },
            {"type": "function_call_output", "call_id": call_id, "output": "figures " * 60},
            {"role": "assistant", "content": [{"type": "output_text", "text": "done " * 30}]},
        ]
    path.write_text(json.dumps(items))
    return path


def _settle(window: MainWindow, qtbot) -> None:
    """Wait for every channel and the pool, then let deferred deletes and garbage go."""
    qtbot.waitUntil(
        lambda: not any(window.runner.busy(c) for c in (*SIDES, "diff", "filter", "arguments")),
        timeout=30_000,
    )
    assert window.runner.wait(30_000)
    for _ in range(3):
        QCoreApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


def _cycle(window: MainWindow, qtbot, n: int, files: list[Path]) -> None:
    side = SIDES[n % 2]
    path = files[n % len(files)]
    step = n % 5
    window.open_file(side, str(path))
    if step == 0:  # let it land, then look at it
        qtbot.waitUntil(lambda: not window.runner.busy(side), timeout=30_000)
        window.select(side, 0)
    elif step == 1:  # cancel mid-load
        window.cancel_load(side)
    elif step == 2:  # switch to another file before the first lands
        window.open_file(side, str(files[(n + 1) % len(files)]))
    elif step == 3:  # reload both sides at once
        window.reload()
    else:  # edit arguments and paste while loads run
        window.arguments_panel.set_bare_arguments(
            '{"region": "emea"}', window.arguments_panel._toolset
        )
        window.paste('[{"type": "function_call", "name": "x", "status": "completed"}]')
    if n % 10 == 9:
        qtbot.waitUntil(lambda: not window.runner.busy(side), timeout=30_000)


def test_a_hundred_quick_loads_reloads_cancels_and_switches(make_window, qtbot, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"input": [{"type": "message",, }]}')
    files = [PROVIDER_A, broken, _large(tmp_path / "large.json"), PROVIDER_B, STREAM]
    hooked: list[object] = []
    previous_hook = sys.excepthook
    sys.excepthook = lambda *exc: hooked.append(exc)
    try:
        window = make_window(synchronous=False)
        window.show()
        window.load_tool_file(str(SALES_TOOLS), regate=False)
        for n in range(WARM_UP):
            _cycle(window, qtbot, n, files)
        _settle(window, qtbot)
        threads, rss = threading.active_count(), _rss()
        for n in range(CYCLES):
            _cycle(window, qtbot, n, files)
        _settle(window, qtbot)
        growth = _rss() - rss
        print(
            f"\nRSS {rss / 2**20:.1f} MiB after warm-up, {growth / 2**20:+.1f} MiB after {CYCLES}"
        )
        assert QThreadPool.globalInstance().activeThreadCount() == 0
        assert threading.active_count() == threads
        assert growth < GROWTH_LIMIT
        assert not window.runner._alive  # every task handed back once its signal landed
        # Still usable: a last pair loads and compares.
        window.open_pair(str(PROVIDER_A), str(PROVIDER_B))
        _settle(window, qtbot)
        assert (window.left.path, window.right.path) == (str(PROVIDER_A), str(PROVIDER_B))
        assert window.alignment is not None
        assert window.decision_label.text().startswith("Replay UNSAFE")
        window.close()
        _settle(window, qtbot)
    finally:
        sys.excepthook = previous_hook
    assert not hooked, hooked
