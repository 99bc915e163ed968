"""A large transcript handed to the window is painted without walking its items, verdicts or
findings on the GUI thread: what is counted over all of them comes counted with the load, and
the tree asks only for the rows it lays out."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any, overload

import pytest

from inspector.core.formats import load_tools
from inspector.gui.actions import Tab
from inspector.gui.qt_session import Loaded, load_and_gate
from tests.benchmarks import synthetic

ITEMS = 20_000


class Watched(Sequence[Any]):
    """A sequence that records which of its elements are read (iterating it reads them all)."""

    def __init__(self, values: Sequence[Any]) -> None:
        self._values = tuple(values)
        self.read: set[int] = set()
        self.walks = 0

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, at: int) -> Any: ...
    @overload
    def __getitem__(self, at: slice) -> Sequence[Any]: ...
    def __getitem__(self, at: int | slice) -> Any:
        if isinstance(at, slice):
            self.read.update(range(*at.indices(len(self._values))))
        else:
            self.read.add(at % len(self._values))
        return self._values[at]

    def __iter__(self) -> Iterator[Any]:
        self.walks += 1
        return iter(self._values)


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Loaded:
    """A 20,000-item transcript with findings, loaded and gated as a worker does."""
    folder = tmp_path_factory.mktemp("large")
    path, tools = folder / "large.jsonl", folder / "tools.json"
    synthetic.write_jsonl(path, ITEMS)
    tools.write_text(json.dumps(synthetic.tools()), encoding="utf-8")
    return load_and_gate(str(path), load_tools(str(tools)), lambda *_report: None)


def _watched(loaded: Loaded) -> tuple[Loaded, Watched, Watched, Watched]:
    """The same load, its items, verdicts and findings watched (its counts as the load made)."""
    result = loaded.result
    items, verdicts = Watched(result.transcript.items), Watched(result.verdicts)
    findings = Watched(result.findings)
    transcript = replace(result.transcript, items=items)
    watched = replace(result, transcript=transcript, verdicts=verdicts, findings=findings)
    return loaded._replace(result=watched), items, verdicts, findings


def test_the_first_paint_reads_only_the_rows_it_lays_out(make_window, qtbot, large) -> None:
    assert large.tallies is not None and large.tallies.findings > 1000  # counted by the load
    window = make_window()
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    loaded, items, verdicts, findings = _watched(large)
    window.session.set_loaded("left", loaded)
    pane = window.left
    pane.tree.viewport().grab()  # paints the visible rows

    assert items.walks == verdicts.walks == findings.walks == 0
    assert not findings.read
    # One chunk of rows exposed and laid out; the columns fitted to the texts the load gathered.
    fetched = pane.model.fetched_rows
    assert fetched == pane.model.initial_rows < ITEMS
    assert len(items.read) <= fetched and len(verdicts.read) <= fetched
    # What the window shows of them came from the load's counts.
    assert window.tabs.tabText(Tab.FINDINGS) == f"Findings ({len(findings):,})"
    assert not window.details.made(Tab.FINDINGS)
    tools = window.session.tool_rows
    assert tools is not None
    calls = sum(sum(row.calls.get("left", {}).values()) for row in tools)
    expected = sum(
        1
        for item in large.result.transcript.items
        if isinstance(item.name, str) and (item.type == "function_call" or item.namespaced)
    )
    assert calls == expected

    # Still the whole transcript after: the last item is reached and shown.
    assert window.select("left", ITEMS - 1)
    assert pane.current_item() == ITEMS - 1
    window.tabs.setCurrentIndex(Tab.FINDINGS)
    assert window.findings_panel.model.rowCount() == len(findings)
