"""A large diffed pair in aligned mode: the panes expose rows in chunks, level with each other,
and lay them out without parsing any item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.formats import _lean
from inspector.gui.qt_transcript_model import TranscriptModel

ITEMS = 3_000
CHUNK = 128


def _write(path: Path, prefix: str) -> Path:
    lines = []
    for i in range(ITEMS):
        if i % 3 == 1:
            item = {"type": "function_call", "id": f"{prefix}{i}", "call_id": f"c{i}"}
            item |= {"name": "f", "arguments": json.dumps({"n": i}), "status": "completed"}
        else:
            item = {"type": "message", "id": f"{prefix}{i}", "role": "user", "content": f"m{i}"}
        lines.append(json.dumps(item))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def large_pair(make_window, tmp_path, monkeypatch):
    monkeypatch.setattr(TranscriptModel, "initial_rows", CHUNK)
    window = make_window()
    window.resize(1100, 700)
    window.show()
    window.set_aligned(True)
    window.open_pair(str(_write(tmp_path / "a.jsonl", "a")), str(_write(tmp_path / "b.jsonl", "b")))
    window.settle()
    assert window.alignment is not None
    return window


def test_the_diffed_panes_fetch_a_chunk_each_not_every_row(large_pair):
    # Qt's tree asks for more rows on every full layout; each pane handing its count to the
    # other made them double each other's rows until all were exposed (and laid out).
    left, right = large_pair.left.model, large_pair.right.model
    assert left.display_rows == right.display_rows == ITEMS
    assert left.fetched_rows == right.fetched_rows
    assert left.fetched_rows <= 2 * CHUNK


def test_scrolling_to_the_end_still_fetches_rows_on_both_sides(large_pair, qtbot):
    left, right = large_pair.left, large_pair.right
    before = left.model.fetched_rows
    bar = left.tree.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: left.model.fetched_rows > before)
    large_pair.settle()
    assert right.model.fetched_rows == left.model.fetched_rows


def test_aligned_rows_say_they_have_fields_without_parsing_items(large_pair, monkeypatch):
    parsed: list[int] = []
    real = _lean.JsonRun.value
    monkeypatch.setattr(_lean.JsonRun, "value", lambda s, i: parsed.append(i) or real(s, i))
    for pane in (large_pair.left, large_pair.right):
        model = pane.model
        assert model.padded
        assert all(model.hasChildren(model.index(r, 0)) for r in range(model.fetched_rows))
        pane.tree.doItemsLayout()
    assert parsed == []
