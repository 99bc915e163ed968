"""A report of a file of several conversations says which one it shows, in every format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import SAMPLES
from tests.core.test_report_cli import run_report

TRACE = SAMPLES / "sessions" / "otel" / "tool-calls-spans.json"


def _trace_ids() -> list[str]:
    """The trace ids in file order, read with plain json (not the loader)."""
    spans = [
        span
        for resource in json.loads(TRACE.read_text())["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope["spans"]
    ]
    return list(dict.fromkeys(span["traceId"] for span in spans))


@pytest.mark.parametrize("fmt", ["html", "markdown", "junit"])
def test_the_conversation_reported_is_named(tmp_path: Path, fmt: str) -> None:
    first, second = _trace_ids()
    for picked, other, args in ((first, second, ()), (second, first, ("--conversation", second))):
        out = tmp_path / f"{picked}.{fmt}"
        status, _stdout, err = run_report(str(TRACE), "--format", fmt, "-o", str(out), *args)
        assert status in (0, 1), err
        text = out.read_text(encoding="utf-8")
        if fmt == "junit":
            names = {
                p.get("value")
                for p in ET.fromstring(text).iter("property")
                if p.get("name") == "conversation"
            }
            assert names == {picked}
        else:
            named = {f"conversation <code>{picked}</code>", f"conversation `{picked}`"}
            assert any(mark in text for mark in named)
            assert f"conversation <code>{other}</code>" not in text
            assert f"conversation `{other}`" not in text


def test_junit_decision_line_says_the_headlines_reason_once(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    run_report(str(TRACE), "--format", "junit", "-o", str(out))
    decision = next(
        p.get("value") or ""
        for p in ET.fromstring(out.read_text(encoding="utf-8")).iter("property")
        if p.get("name") == "decision"
    )
    assert decision.count("1 of 4 items block a replay") == 1
