"""The window's status bar and the CLI's exit status give the same replay answer for every
sample the CLI can load: both come from the core's one decision."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from inspector.cli import run
from inspector.gui import qt_palette
from tests.conftest import SAMPLES

#: The issue's example: `gate` exits 1 on its stream violations, so the window must say it blocks.
GAP = SAMPLES / "streams" / "sequence-gap-duplicate.sse"


def _is_tools_file(path: Path) -> bool:
    return path.name.endswith(".tools.json") or path.parent == SAMPLES / "tools"


#: Every transcript under samples/ (stored expected outputs and tools files left out).
FILES = sorted(
    path
    for pattern in ("*.json", "*.jsonl", "*.sse")
    for path in SAMPLES.rglob(pattern)
    if "expected" not in path.relative_to(SAMPLES).parts and not _is_tools_file(path)
)


def _cli_status(path: Path) -> int:
    out, err = io.StringIO(), io.StringIO()
    return run(["gate", str(path)], out, err)


def _icon(severity: str) -> QImage:
    return qt_palette.pixmap(qt_palette.severity_swatch(severity).icon, 16).toImage()


def _assert_window_says(window, side: str, path: Path, status: int) -> None:
    pane = window.panes[side]
    assert not pane.showing_error, pane.error_message.text()
    assert window.results[side] is not None
    text = window.decision_label.text()
    answer = "blocks a replay" if status == 1 else "nothing blocks a replay"
    assert text.startswith(f"{path.name}: {answer}"), (status, text)
    shown = window.decision_icon.pixmap().toImage()
    assert shown == _icon("error" if status == 1 else "info")


def test_the_walk_finds_the_samples():
    names = {p.relative_to(SAMPLES).as_posix() for p in FILES}
    assert GAP in FILES
    assert len(FILES) >= 40
    assert not any(name.startswith("tools/") or ".tools." in name for name in names)
    assert not any("/expected/" in f"/{name}" for name in names)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_status_bar_agrees_with_the_cli(window, path: Path):
    status = _cli_status(path)
    if status == 2:
        pytest.skip("the CLI cannot load it as a transcript")
    assert status in (0, 1)
    # Alternate the sides, so both panes' answers are checked.
    side = "left" if FILES.index(path) % 2 == 0 else "right"
    window.open_file(side, str(path))
    _assert_window_says(window, side, path, status)


def test_a_stream_with_error_violations_blocks_in_the_threaded_window(make_window, qtbot):
    assert _cli_status(GAP) == 1
    window = make_window(synchronous=False)
    window.open_file("left", str(GAP))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    _assert_window_says(window, "left", GAP, 1)
    assert "2 error stream violations" in window.decision_label.text()
