"""Every output gives the same decision, for every sample file and every sample pair in both
modes: the exit status, the JSON `replay_safe` and `verdict_summary`, the text output, the HTML
decision block, the Markdown headline, the JUnit failures and the window's status line all
render the core's one `Decision` (inspector/core/decision.py).

The files and pairs are found by walking samples/ (tests/sample_pairs.py), so a new sample
folder is covered without editing this test; a pair's tools file is given to every output."""

from __future__ import annotations

import html
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
from inspector.core.formats import load_conversations, load_path, load_tools
from inspector.core.gate import gate_transcript
from inspector.core.model import LoadError
from inspector.gui import qt_palette
from tests.conftest import SAMPLES
from tests.sample_pairs import SamplePair, is_tools_file, sample_pairs

#: The issue's example of a stream whose violations block (and once crashed the Markdown).
GAP = SAMPLES / "streams" / "sequence-gap-duplicate.sse"


#: Every transcript under samples/ (stored expected outputs and tools files left out).
FILES = sorted(
    path
    for pattern in ("*.json", "*.jsonl", "*.sse")
    for path in SAMPLES.rglob(pattern)
    if "expected" not in path.relative_to(SAMPLES).parts and not is_tools_file(path)
)
PAIRS = sample_pairs()
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


def _unmarked(text: str) -> str:
    """Markdown text as read: backslash escapes and the word joiner after `#` dropped."""
    return re.sub(r"\\(.)", r"\1", text).replace("\u2060", "")


def _reports(tmp_path: Path, decision: Decision, *args: str) -> None:
    """The HTML decision block, the Markdown headline and the JUnit failures agree."""
    page = tmp_path / "report.html"
    status, _ = _cli("report", *args, "--format", "html", "-o", str(page))
    assert status == decision.exit_status
    text = page.read_text(encoding="utf-8")
    block = re.search(r'<div class="decision (\w+)">(.*?)</div>', text, re.S)
    assert block is not None and block.group(1) == STATES[str(decision.severity)]
    shown = html.unescape(re.sub(r"<[^>]*>", "", block.group(2)))
    assert shown.startswith(decision.headline[:120]), (shown, decision.headline)
    # The reasons, then the warnings, listed under it (past the first few in a fold; long
    # ones clipped).
    header = text[block.end() : text.index("</header>")]
    listed = [html.unescape(li) for li in re.findall(r"<li>([^<]*)</li>", header)]
    lines = [*decision.reason_lines(), *decision.warning_lines()]
    assert len(listed) == len(lines)
    for shown_line, line in zip(listed, lines, strict=True):
        assert line.startswith(shown_line.rstrip("…")[:120]), (shown_line, line)
    status, markdown = _cli("report", *args, "--format", "markdown")
    assert status == decision.exit_status
    headline = markdown.splitlines()[0]
    mark = MARKS[str(decision.severity)]
    assert _unmarked(headline).startswith(f"## {mark} {decision.headline[:120]}"), headline
    status, junit = _cli("report", *args, "--format", "junit")
    assert status == decision.exit_status
    root = ET.fromstring(junit)
    # Any failing case means the exit status is 1, and the decision case fails exactly then.
    assert (int(root.get("failures", "0")) > 0) == decision.blocks
    (case,) = root.findall(".//testcase[@classname='decision']")
    failure = case.find("failure")
    assert (failure is not None) == decision.blocks
    if failure is not None:
        assert failure.get("type") == str(decision.outcome)


def _text_tail(decision: Decision) -> list[str]:
    """The lines the text output ends with: the decision, its reasons, warnings and notes."""
    listed = decision.reasons or decision.warnings
    head = decision.outcome.words if listed else decision.headline
    return [
        f"decision: {head}",
        *(f"  - {line}" for line in decision.reason_lines()),
        *(f"  ! {line}" for line in decision.warning_lines()),
        *(f"  note: {extra}" for extra in (decision.note, decision.suggestion) if extra),
    ]


def _ends_with(text: str, tail: list[str]) -> None:
    assert text.splitlines()[-len(tail) :] == tail


def test_the_walk_finds_the_samples_and_pairs():
    names = {p.relative_to(SAMPLES).as_posix() for p in FILES}
    assert GAP in FILES and len(FILES) >= 40
    assert not any(name.startswith("tools/") or ".tools." in name for name in names)
    # Every case folder under samples/diff/ gives at least one pair, each session run another.
    folders = {p.left.parent for p in PAIRS}
    cases = {f for f in (SAMPLES / "diff").iterdir() if f.is_dir() and f.name != "expected"}
    assert cases <= folders
    session = SAMPLES / "diff" / "session"
    runs = [f for f in session.iterdir() if f.suffix == ".json" and f.stem != "left"]
    assert sum(1 for p in PAIRS if p.left.parent == session) == len(runs) >= 4
    assert any(p.tools is not None and p.tools.parent == p.left.parent for p in PAIRS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_every_output_agrees_on_a_file(window, tmp_path, path: Path):
    try:
        conversations = load_conversations(path)
    except LoadError:
        pytest.skip("not a transcript the CLI reads")
    # A file of several conversations (a trace, a session with subagents): each is decided on
    # its own, and the exit status is the worst of them.
    decisions = [decide_file(gate_transcript(t), name=str(path)) for t in conversations]
    status, out = _cli("gate", str(path), "--format", "json")
    assert status == max(d.exit_status for d in decisions)
    documents = json.loads(out)["files"]
    assert [d["replay_safe"] for d in documents] == [d.replay_safe for d in decisions]
    assert [d["verdict_summary"] for d in documents] == [d.to_json() for d in decisions]
    several = len(conversations) > 1
    for transcript, decision in zip(conversations, decisions, strict=True):
        picked = ["--conversation", str(transcript.conversation)] if several else []
        status, text = _cli("gate", str(path), *picked)
        assert status == decision.exit_status
        _ends_with(text, _text_tail(decision))
    # A report renders the file's first conversation, as the window first shows it.
    _reports(tmp_path, decisions[0], str(path))
    # The window: the same words and icon in the status line, for either side, and for each
    # conversation picked.
    side = "left" if FILES.index(path) % 2 == 0 else "right"
    window.open_file(side, str(path))
    for number, decision in enumerate(decisions):
        if number:
            window.session.pick_conversation(side, number)
        shown = window.results[side]
        assert shown is not None
        assert shown.transcript.conversation == conversations[number].conversation
        label = window.decision_label.text()
        assert label.startswith(f"{path.name}: {decision.status_line()}"), label
        assert window.decision_icon.pixmap().toImage() == _icon(decision)


@pytest.mark.parametrize("mode", ["replay", "compare"])
@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_every_output_agrees_on_a_pair(window, tmp_path, pair: SamplePair, mode: str):
    left, right = str(pair.left), str(pair.right)
    tools = load_tools(pair.tools) if pair.tools is not None else None
    tool_args = ["--tools", str(pair.tools)] if pair.tools is not None else []
    diff = diff_transcripts(load_path(left), load_path(right), tools, mode=mode)
    decision = decide_pair(diff, names=(left, right))
    status, text = _cli("diff", left, right, *tool_args, "--mode", mode)
    assert status == decision.exit_status
    _ends_with(text, _text_tail(decision))
    status, out = _cli("diff", left, right, *tool_args, "--mode", mode, "--format", "json")
    document = json.loads(out)
    assert status == decision.exit_status
    assert document["replay_safe"] == decision.replay_safe
    assert document["verdict_summary"] == decision.to_json()
    assert document["verdict_summary"]["outcome"] in (
        ("safe", "safe_with_warnings", "unsafe")
        if mode == "replay"
        else ("equivalent", "different", "diverged")
    )
    _reports(tmp_path, decision, left, right, *tool_args, "--mode", mode)
    window.set_mode(mode)
    if pair.tools is not None:
        window.load_tool_file(str(pair.tools), regate=False)
    window.open_pair(left, right)
    assert window.alignment is not None and window.alignment.diff.mode == mode
    assert window.alignment.decision == decision
    label = window.decision_label.text()
    # The window names the files by the paths it opened; the words are the decision's.
    assert label.startswith(decision.status_line()), label
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
