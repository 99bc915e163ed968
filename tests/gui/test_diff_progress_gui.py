"""A large pair's diff shows determinate progress: the session passes on the core's reports,
rising to 100%, and the status bar's bar shows them while the diff runs."""

from __future__ import annotations

import json

from inspector.gui.qt_session import DIFF, Session


def _write(path, count: int, reworded: int):
    items = []
    for n in range(count):
        text = f"question {n}, reworded" if n % reworded == 0 else f"question {n}"
        items.append({"type": "message", "role": "user", "content": text})
        items.append({"type": "function_call", "call_id": f"c{n}", "name": "f", "arguments": "{}"})
    path.write_text(json.dumps(items))
    return path


def test_the_session_passes_on_the_diff_progress_up_to_100_percent(qapp, tmp_path):
    left = _write(tmp_path / "left.json", 5000, 10**9)
    right = _write(tmp_path / "right.json", 5000, 3)
    session = Session(synchronous=True)
    seen: list[tuple[str, float]] = []
    session.diff_progress.connect(lambda stage, fraction: seen.append((stage, fraction)))
    session.open("left", str(left))
    assert seen == []  # one side: nothing to compare
    session.open("right", str(right))
    assert session.alignment is not None
    fractions = [f for _s, f in seen]
    assert len(fractions) > 10
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "Comparing the pairs" in {s for s, _f in seen}
    # Loads report on their own signal, never as the diff's.
    assert all(not s.startswith(("Reading left", "Gating")) for s, _f in seen)


def test_the_status_bar_shows_the_diff_progress_while_it_runs(window):
    bar = window.diff_progress
    session = window.session
    window.show()
    assert not bar.isVisible()
    session.busy.emit(DIFF, True)
    session.diff_progress.emit("Comparing the pairs", 0.25)
    assert bar.isVisible()
    assert (bar.minimum(), bar.maximum(), bar.value()) == (0, 1000, 250)
    assert "Comparing the pairs" in bar.toolTip()
    session.diff_progress.emit("Compared", 1.0)
    assert bar.value() == 1000
    session.busy.emit(DIFF, False)
    assert not bar.isVisible()
    session.busy.emit("left", True)  # a load is not the diff
    assert not bar.isVisible()
