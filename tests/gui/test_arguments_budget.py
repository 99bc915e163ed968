"""Hostile schema patterns: a catastrophic one ends at the core's backtrack limit, a slow check at
its time budget, both with a `budget` error. The Arguments tab checks on a worker, says it is
validating, stays responsive, and cancels superseded checks.

Responsiveness is asserted by its cause, never by a stopwatch: the check ran on a worker thread,
and while it was held there the GUI thread ran an event posted to it. The time budget runs out
on an injected clock that moves per read (schema.budget_clock)."""

from __future__ import annotations

import json

import pytest

from inspector.core import schema
from inspector.core.gate import Verdict, make_toolset
from inspector.core.model import Tool
from inspector.gui import qt_schema_panel, qt_scratch
from inspector.gui.qt_schema_panel import ArgumentsPanel
from inspector.gui.qt_workers import BUSY_DELAY_MS, TaskRunner
from tests.conftest import StepClock

# The lookahead makes fancy-regex backtrack: 5000 a's overrun its limit at once, while 24 a's stay
# below it, so forty of them run until the budget stops them.
PATTERN = "^(a|aa)+(?!b)$"
SCHEMA = {"properties": {"s": {"pattern": PATTERN, "items": {"pattern": PATTERN}}}}
HOSTILE = {"type": "function_call", "name": "t", "call_id": "c", "status": "completed"}
HOSTILE["arguments"] = json.dumps({"s": "a" * 5000 + "!"})
SLOW = {**HOSTILE, "arguments": json.dumps({"s": ["a" * 24 + "!"] * 40})}
BUDGET = 0.6


@pytest.fixture
def panel(qtbot) -> ArgumentsPanel:
    """An Arguments panel that checks on the thread pool with a short budget."""
    runner = TaskRunner()
    panel = ArgumentsPanel(runner=runner)
    qtbot.addWidget(panel)
    panel.budget = BUDGET
    panel.show()
    yield panel
    panel.stop()
    runner.wait()


@pytest.fixture
def recorded(monkeypatch) -> list:
    """The cancel event of every check the panels start."""
    events = []
    real = TaskRunner.start

    def spy(self, channel, work, on_done, on_error, *, cancel=None):
        if channel == qt_schema_panel.CHANNEL:
            events.append(cancel)
        return real(self, channel, work, on_done, on_error, cancel=cancel)

    monkeypatch.setattr(TaskRunner, "start", spy)
    return events


@pytest.fixture
def step_clock(monkeypatch) -> StepClock:
    """The validation budget measured on a clock that moves 0.1 s per read."""
    clock = StepClock(0.1)
    monkeypatch.setattr(schema, "budget_clock", clock)
    return clock


def _toolset():
    toolset, _overridden = make_toolset(None, {"t": Tool("t", SCHEMA, "function", "test")})
    return toolset


def test_a_catastrophic_pattern_ends_in_the_budget_error_without_freezing(
    panel, qtbot, probe_workers
):
    probe = probe_workers(qt_schema_panel.CHANNEL)
    panel.set_item(HOSTILE, None, _toolset())
    assert panel.validating and panel.verdict is None
    assert probe.gui_answers_while_held(qtbot)
    qtbot.waitUntil(lambda: not panel.validating, timeout=60_000)
    assert probe.off_gui_thread
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    first = panel.errors.records()[0].cells
    assert first[1] == "budget"
    assert "backtrack limit" in first[2] and PATTERN in first[2]
    assert panel.banner.verdict_text == "arguments_schema"


def test_a_slow_check_says_it_is_validating_without_freezing(
    panel, qtbot, probe_workers, step_clock
):
    probe = probe_workers(qt_schema_panel.CHANNEL)
    panel.set_item(SLOW, None, _toolset())
    assert panel.validating and panel.verdict is None
    # Held on its worker, the check is still running: the GUI thread says so meanwhile.
    qtbot.waitUntil(probe.entered.is_set, timeout=60_000)
    qtbot.waitUntil(lambda: panel.banner.detail.text() == "validating…", timeout=60_000)
    assert probe.gui_answers_while_held(qtbot)
    qtbot.waitUntil(lambda: not panel.validating, timeout=60_000)
    assert probe.off_gui_thread and step_clock.reads > 1
    assert panel.verdict == Verdict.ARGUMENTS_SCHEMA
    first = panel.errors.records()[0].cells
    assert first[1] == "budget" and "time budget of 0.6 s" in first[2]


def test_typing_a_new_value_cancels_the_running_check(panel, qtbot, recorded, probe_workers):
    probe = probe_workers(qt_schema_panel.CHANNEL, hold=False)
    panel.set_item(SLOW, None, _toolset())
    assert len(recorded) == 1 and not recorded[0].is_set()
    with qtbot.waitSignal(panel.checked, timeout=60_000) as blocker:
        panel.editor.selectAll()
        panel.editor.insertPlainText('{"s": "aaaa"}')  # as typed: the debounce, then a check
    assert recorded[0].is_set()  # the superseded check was told to stop
    assert len(recorded) == 2 and not recorded[1].is_set()
    assert blocker.args == ["ok"]
    assert panel.verdict == Verdict.OK and panel.errors.rowCount() == 0
    # The first check's late result (its budget error) must not replace the newer one.
    panel.runner.wait()
    qtbot.wait(50)
    assert panel.verdict == Verdict.OK and panel.errors.rowCount() == 0
    assert probe.off_gui_thread and len(probe.threads) == 2


def test_quick_checks_do_not_flash_validating(panel, qtbot, probe_workers):
    probe = probe_workers(qt_schema_panel.CHANNEL)
    panel.set_item({**HOSTILE, "arguments": '{"s": "aa"}'}, None, _toolset())
    # "validating…" waits for the busy delay (a check that ends first never shows it), however
    # long this check takes on a loaded machine: held on its worker, it has not ended yet.
    assert panel.banner.detail.text() != "validating…"
    busy = panel._busy_timer
    assert busy.isActive() and busy.isSingleShot() and busy.interval() == BUSY_DELAY_MS
    assert probe.gui_answers_while_held(qtbot)
    qtbot.waitUntil(lambda: panel.verdict == Verdict.OK, timeout=60_000)
    assert not busy.isActive() and panel.banner.detail.text() != "validating…"


def test_closing_the_window_cancels_a_running_check(make_window, qtbot, recorded):
    window = make_window(synchronous=False)
    window.arguments_panel.budget = BUDGET
    window.arguments_panel.set_item(SLOW, None, _toolset())
    assert window.arguments_panel.validating
    window.close()
    assert recorded[0].is_set() and not window.arguments_panel.validating


def test_pasted_calls_to_a_catastrophic_tool_are_gated_off_the_gui_thread(
    make_window, qtbot, probe_workers, step_clock
):
    probe = probe_workers(qt_scratch.CHANNEL)
    window = make_window(synchronous=False)
    window.scratch_panel.budget = BUDGET
    calls = [
        {**HOSTILE, "call_id": f"c{n}", "arguments": json.dumps({"s": "a" * (5000 + n) + "!"})}
        for n in range(2)
    ]
    calls.append({**SLOW, "call_id": "c2"})
    request = {
        "tools": [{"type": "function", "name": "t", "parameters": SCHEMA}],
        "input": calls,
    }
    scratch = window.scratch_panel
    window.paste(json.dumps(request))
    assert scratch.gating
    qtbot.waitUntil(probe.entered.is_set, timeout=60_000)
    qtbot.waitUntil(lambda: scratch.banner.detail.text() == "Gating…", timeout=60_000)
    assert probe.gui_answers_while_held(qtbot)
    qtbot.waitUntil(lambda: not scratch.gating, timeout=60_000)
    assert probe.off_gui_thread
    verdicts = scratch.result.verdicts
    assert [v.verdict for v in verdicts] == [Verdict.ARGUMENTS_SCHEMA] * 3
    assert all(v.errors[0].keyword == "budget" for v in verdicts)
    assert "backtrack limit" in verdicts[0].detail and "time budget" in verdicts[2].detail
    assert "request: 3 items" in scratch.banner.detail.text()
