"""Every output gives the same decision, for every sample file and every sample pair in both
modes: the exit status, the JSON `replay_safe` and `verdict_summary`, the text output, the HTML
decision block, the Markdown headline, the JUnit failures and the window's status line all
render the core's one `Decision` (inspector/core/decision.py)."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from inspector.cli import run
from inspector.core.decision import Decision, decide_file, decide_pair
from inspector.core.diff import diff_transcripts
from inspector.core.formats import load_conversations, load_path
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from inspector.gui import qt_palette
from tests.conftest import SAMPLES

#: The issue's example of a stream whose violations block (and once crashed the Markdown).
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


def _pairs() -> list[tuple[Path, Path]]:
    """Every sample pair: each folder holding left.* and right.* (and other right sides)."""
    found = [(SAMPLES / "providers" / "provider-a.json", SAMPLES / "providers" / "provider-b.json")]
    for left in sorted(SAMPLES.rglob("left.*")):
        if "expected" in left.parts:
            continue
        for right in sorted(left.parent.iterdir()):
            if right != left and right.suffix == left.suffix and right.stem != "left":
                found.append((left, right))
    return found


PAIRS = _pairs()
MARKS = {"error": "❌", "warning": "⚠️", "info": "✅"}
STATES = {"error": "block", "warning": "warn", "info": "pass"}


def _cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), out, err)
    return status, out.getvalue()


def _icon(decision: Decision) -> QImage:
    severity = str(decision.severity)
    swatch = (
        qt_palette.verdict_swatch("ok")
        if severity == "info"
        else qt_palette.severity_swatch(severity)
    )
    return qt_palette.pixmap(swatch.icon, 16).toImage()


def _reports(tmp_path: Path, decision: Decision, *args: str) -> None:
    """The HTML decision block, the Markdown headline and the JUnit failures agree."""
    page = tmp_path / "report.html"
    status, _ = _cli("report", *args, "--format", "html", "-o", str(page))
    assert status == decision.exit_status
    html = page.read_text(encoding="utf-8")
    block = re.search(r'<div class="decision (\w+)">', html)
    assert block is not None and block.group(1) == STATES[str(decision.severity)]
    assert decision.outcome.words in html[block.start() : block.start() + 400]
    status, markdown = _cli("report", *args, "--format", "markdown")
    assert status == decision.exit_status
    headline = markdown.splitlines()[0]
    assert headline.startswith(f"## {MARKS[str(decision.severity)]} {decision.outcome.words}")
    status, junit = _cli("report", *args, "--format", "junit")
    assert status == decision.exit_status
    root = ET.fromstring(junit)
    # Any failing case means the exit status is 1, and the decision case fails exactly then.
    assert (int(root.get("failures", "0")) > 0) == decision.blocks
    (case,) = root.findall(".//testcase[@classname='decision']")
    assert (case.find("failure") is not None) == decision.blocks


def test_the_walk_finds_the_samples_and_pairs():
    names = {p.relative_to(SAMPLES).as_posix() for p in FILES}
    assert GAP in FILES and len(FILES) >= 40
    assert not any(name.startswith("tools/") or ".tools." in name for name in names)
    assert len(PAIRS) >= 12


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_every_output_agrees_on_a_file(window, tmp_path, path: Path):
    try:
        conversations = load_conversations(path)
    except LoadError:
        pytest.skip("not a transcript the CLI reads")
    if len(conversations) != 1:
        pytest.skip("several conversations: gate reports each (tests/core/test_sources.py)")
    (transcript,) = conversations
    decision = decide_file(gate_transcript(transcript), name=str(path))
    status, text = _cli("gate", str(path))
    assert status == decision.exit_status
    assert text.splitlines()[-1 - _tail(decision)].startswith("decision: ")
    assert decision.outcome.words in text.splitlines()[-1 - _tail(decision)]
    status, out = _cli("gate", str(path), "--format", "json")
    (document,) = json.loads(out)["files"]
    assert document["replay_safe"] == decision.replay_safe
    assert document["verdict_summary"] == decision.to_json()
    _reports(tmp_path, decision, str(path))
    # The window: the same words and icon in the status line, for either side.
    side = "left" if FILES.index(path) % 2 == 0 else "right"
    window.open_file(side, str(path))
    label = window.decision_label.text()
    assert label.startswith(f"{path.name}: {decision.status_line()}"), label
    assert window.decision_icon.pixmap().toImage() == _icon(decision)


def _tail(decision: Decision) -> int:
    """How many lines the text output writes under its `decision:` line."""
    extras = sum(1 for n in (decision.note, decision.suggestion) if n)
    return len(decision.reasons) + len(decision.warnings) + extras


@pytest.mark.parametrize("mode", ["replay", "compare"])
@pytest.mark.parametrize(
    ("left", "right"),
    PAIRS,
    ids=[f"{a.relative_to(SAMPLES).parent.as_posix()}:{b.name}" for a, b in PAIRS],
)
def test_every_output_agrees_on_a_pair(window, tmp_path, left: Path, right: Path, mode: str):
    diff = diff_transcripts(load_path(left), load_path(right), mode=mode)
    decision = decide_pair(diff, names=(str(left), str(right)))
    status, text = _cli("diff", str(left), str(right), "--mode", mode)
    assert status == decision.exit_status
    assert text.splitlines()[-1 - _tail(decision)].startswith("decision: ")
    status, out = _cli("diff", str(left), str(right), "--mode", mode, "--format", "json")
    document = json.loads(out)
    assert status == decision.exit_status
    assert document["replay_safe"] == decision.replay_safe
    assert document["verdict_summary"] == decision.to_json()
    assert document["verdict_summary"]["outcome"] in (
        ("safe", "safe_with_warnings", "unsafe")
        if mode == "replay"
        else ("equivalent", "different", "diverged")
    )
    _reports(tmp_path, decision, str(left), str(right), "--mode", mode)
    window.set_mode(mode)
    window.open_pair(str(left), str(right))
    assert window.alignment is not None and window.alignment.diff.mode == mode
    assert window.alignment.decision == decide_pair(
        window.alignment.diff, names=(str(left), str(right))
    )
    label = window.decision_label.text()
    # The window names the files by the paths it opened; the words are the decision's.
    assert label.startswith(window.alignment.decision.status_line()), label
    assert window.alignment.decision.outcome == decision.outcome
    assert window.decision_icon.pixmap().toImage() == _icon(decision)


def test_a_stream_with_error_violations_blocks_in_the_threaded_window(make_window, qtbot):
    status, _ = _cli("gate", str(GAP))
    assert status == 1
    window = make_window(synchronous=False)
    window.open_file("left", str(GAP))
    qtbot.waitUntil(lambda: window.results["left"] is not None, timeout=60_000)
    assert window.decision_label.text().startswith(f"{GAP.name}: Replay UNSAFE: stream ")


def test_the_markdown_report_of_a_stream_with_violations_renders():
    status, text = _cli("report", str(GAP), "--format", "markdown")
    assert status == 1 and text.startswith("## ❌ Replay UNSAFE")
    assert "### Stream violations" in text and "event " in text
