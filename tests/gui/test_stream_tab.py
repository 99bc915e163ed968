"""The Stream tab: the core's violations beside the event timeline of a recorded stream."""

from __future__ import annotations

from PySide6.QtCore import Qt

from inspector.core.formats import load_path
from tests.conftest import SAMPLES

GAP = SAMPLES / "streams" / "sequence-gap-duplicate.sse"
TWO = SAMPLES / "streams" / "two-responses.jsonl"


def test_stream_file_shows_timeline_and_violations(window):
    window.open_file("right", str(GAP))
    panel = window.stream_panel
    assert panel.has_streams
    expected = load_path(GAP).stream
    assert panel.timeline.rowCount() == expected.events
    assert panel.violations.rowCount() == len(expected.violations)
    codes = [panel.violations.index(r, 1).data() for r in range(panel.violations.rowCount())]
    assert codes == ["sequence_gap", "sequence_not_increasing"]
    gap = panel.timeline.index(5, 5)
    assert gap.data() == "sequence_gap"
    assert gap.data(Qt.ItemDataRole.DecorationRole) is not None
    assert panel.timeline.index(4, 3).data() == "response.output_text.delta"
    assert panel.timeline.index(4, 4).data() == 'delta "The Eiffel"'
    assert "2 errors" in panel.summary.text()
    panel.violations_view.selectRow(1)
    assert panel.timeline_view.currentIndex().row() == 7


def test_jsonl_event_stream_and_a_plain_file_side_by_side(window):
    window.open_pair(str(SAMPLES / "providers" / "provider-a.json"), str(TWO))
    panel = window.stream_panel
    assert panel.side_combo.count() == 1
    assert panel.side_combo.currentData() == "right"
    assert panel.timeline.rowCount() == load_path(TWO).stream.events
    window.open_file("right", str(SAMPLES / "providers" / "provider-b.json"))
    assert not panel.has_streams
    assert panel.timeline.rowCount() == 0
    assert not panel.hint.isHidden()
