"""Hostile input in the window: huge integers and odd `$schema` values load, and a schema bomb is
refused on a worker thread while the event loop keeps running."""

from __future__ import annotations

import json
import threading
import uuid

from PySide6.QtCore import QObject, Qt, Signal

from inspector.core import schema as schema_module
from tests.gui.conftest import model_indexes

BIG = "9" * 5000


def _call(**fields):
    item = {"type": "function_call", "name": "t", "call_id": "c1", "status": "completed"}
    return {**item, "arguments": '{"x": 1}', **fields}


def _write(tmp_path, name, document, big=False):
    path = tmp_path / name
    text = json.dumps(document)
    path.write_text(text.replace('"BIG"', BIG) if big else text)
    return path


def _shown(window):
    """Every cell's display text in the left tree (the model answers for each)."""
    model = window.left.model
    return [
        str(i.data(Qt.ItemDataRole.DisplayRole)) for i in model_indexes(model, levels=2, rows=50)
    ]


def test_5000_digit_integers_load_in_the_window(window, tmp_path):
    items = [_call(call_id="BIG"), _call(name="BIG", call_id="c2"), {"type": "BIG", "id": "x"}]
    window.open_file("left", str(_write(tmp_path, "big.json", {"input": items}, big=True)))
    assert window.results["left"] is not None
    assert window.left.model.rowCount() == 3
    cells = _shown(window)
    assert not any(BIG in cell for cell in cells)
    assert any("(5,000 digits)" in cell for cell in cells)


def test_schema_dialect_that_is_not_a_string_loads_in_the_window(window, tmp_path):
    tools = [{"type": "function", "name": "t", "parameters": {"$schema": [], "type": "object"}}]
    window.open_file(
        "left", str(_write(tmp_path, "dialect.json", {"tools": tools, "input": [_call()]}))
    )
    result = window.results["left"]
    assert result is not None
    assert result.verdicts[0].errors[0].keyword == "schema_invalid"


class _Relay(QObject):
    """Carries a call from a worker thread to the GUI thread (a queued signal)."""

    ping = Signal()


def test_schema_bomb_is_refused_on_a_worker_while_the_event_loop_runs(
    make_window, qtbot, tmp_path, monkeypatch
):
    window = make_window(synchronous=False)
    gui_thread = threading.current_thread()
    relay = _Relay()
    seen: dict[str, object] = {}
    handled = threading.Event()

    def on_ping() -> None:
        seen["slot_thread"] = threading.current_thread()
        handled.set()

    relay.ping.connect(on_ping, Qt.ConnectionType.QueuedConnection)
    measure = schema_module.measure

    def watched(schema, limit=None):
        # While the schema is being judged, the GUI thread must run what is posted to it.
        seen["measure_thread"] = threading.current_thread()
        relay.ping.emit()
        seen["handled_meanwhile"] = handled.wait(timeout=30)
        return measure(schema, limit)

    monkeypatch.setattr(schema_module, "measure", watched)
    defs = {
        f"l{i}": {"allOf": [{"$ref": f"#/$defs/l{i + 1}"}, {"$ref": f"#/$defs/l{i + 1}"}]}
        for i in range(32)
    }
    # A fresh description: no earlier test can have compiled (and cached) this schema.
    bomb = {"description": uuid.uuid4().hex, "$ref": "#/$defs/l0", "$defs": {**defs, "l32": {}}}
    tools = [{"type": "function", "name": "t", "parameters": bomb}]
    window.open_file(
        "left", str(_write(tmp_path, "bomb.json", {"tools": tools, "input": [_call()]}))
    )
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    assert seen["measure_thread"] is not gui_thread
    assert seen["slot_thread"] is gui_thread
    assert seen["handled_meanwhile"] is True
    verdict = window.results["left"].verdicts[0]
    assert verdict.errors[0].keyword == "schema_too_complex"


def test_a_stream_of_violations_says_how_many_more_in_the_stream_tab(window, tmp_path, monkeypatch):
    from inspector.core.stream import reducer
    from tests.core.test_hostile import delta_stream

    monkeypatch.setattr(reducer, "VIOLATIONS_KEPT", 5)
    window.open_file("right", str(delta_stream(tmp_path / "stray.sse", 40, item_id="zz")))
    panel = window.stream_panel
    assert panel.violations.rowCount() == 7  # the first five, the first missing_terminal
    summary = panel.summary.text()
    assert "41 errors, 1 warning" in summary
    assert summary.endswith("; 7 listed, … and 35 more counted (unknown_item 35)")
