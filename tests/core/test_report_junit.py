"""JUnit XML: parses, one test case per item, finding, violation and pair, failures counted."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from inspector.core.diff import diff_transcripts
from inspector.core.formats import load_path, load_tools
from inspector.core.gate import PASSING, gate_transcript
from tests.conftest import SAMPLES
from tests.core.test_report_cli import PAIR, run_report
from tests.core.test_report_html import INJECTIONS


def junit(*args: str) -> tuple[int, ET.Element]:
    """Run the report as JUnit; return the status and the parsed document."""
    status, out, err = run_report(*args, "--format", "junit")
    assert err == ""
    return status, ET.fromstring(out)


def assert_counts_add_up(root: ET.Element) -> None:
    """Every tests / failures attribute matches the test cases it counts."""
    total = failed = 0
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        failures = [c for c in cases if c.find("failure") is not None]
        assert suite.get("tests") == str(len(cases))
        assert suite.get("failures") == str(len(failures))
        total += len(cases)
        failed += len(failures)
    assert root.get("tests") == str(total) and root.get("failures") == str(failed)


def test_one_case_per_item_and_finding() -> None:
    path = SAMPLES / "findings" / "verdicts.json"
    tools = SAMPLES / "findings" / "verdicts.tools.json"
    status, root = junit(str(path), "--tools", str(tools))
    assert status == 1
    assert_counts_add_up(root)
    result = gate_transcript(load_path(path), load_tools(tools))
    suite, decided = root.findall("testsuite")
    assert decided.get("name") == "replay decision"
    (case,) = decided.findall("testcase")
    assert case.find("failure") is not None  # the decision fails exactly when the exit is 1
    items = suite.findall("testcase[@classname='gate.items']")
    findings = suite.findall("testcase[@classname='gate.findings']")
    assert len(items) == len(result.verdicts) == 11
    assert len(findings) == len(result.findings)
    blocked = [v for v in result.verdicts if v.verdict not in PASSING]
    failing = [c.find("failure") for c in items if c.find("failure") is not None]
    assert len(failing) == len(blocked) == 8
    # The failure carries the verdict as its type and the detail as its message.
    assert [f.get("type") for f in failing] == [v.verdict.value for v in blocked]  # type: ignore[union-attr]
    assert [f.get("message") for f in failing] == [v.detail for v in blocked]  # type: ignore[union-attr]
    # Info findings pass; the decision and the redaction are recorded as properties.
    assert all(c.find("failure") is None for c in findings)
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["decision"].startswith("Replay UNSAFE")  # type: ignore[union-attr]
    assert props["redaction"].startswith("Redaction on")  # type: ignore[union-attr]


def test_diff_has_a_case_per_pair() -> None:
    status, root = junit(*PAIR)
    assert status == 1
    assert_counts_add_up(root)
    names = [s.get("name") for s in root.findall("testsuite")]
    assert names[2] == "replay decision" and names[0].startswith("left: ")  # type: ignore[union-attr]
    tools = load_tools(PAIR[3])
    diff = diff_transcripts(load_path(PAIR[0]), load_path(PAIR[1]), tools)
    pairs = root.findall("testsuite[@name='replay decision']/testcase[@classname='diff.pairs']")
    assert len(pairs) == len(diff.pairs)
    assert sum(c.find("failure") is not None for c in pairs) == sum(p.blocking for p in diff.pairs)


def test_error_findings_and_violations_fail() -> None:
    status, root = junit(str(SAMPLES / "findings" / "orphan-output.json"))
    assert status == 1
    cases = root.findall(".//testcase[@classname='gate.findings']")
    assert any(
        c.find("failure") is not None and "orphan_output" in c.get("name", "") for c in cases
    )
    status, root = junit(str(SAMPLES / "streams" / "sequence-gap-duplicate.sse"))
    assert_counts_add_up(root)
    stream = root.findall(".//testcase[@classname='gate.stream']")
    assert {c.get("name", "").split()[0] for c in stream} >= {"sequence_gap"}
    assert all(c.find("failure") is not None for c in stream if "(error)" in c.get("name", ""))


def test_strings_from_a_file_survive_as_text(tmp_path: Path) -> None:
    odd = "nul\x00 esc\x1b[0m surrogate\ud800 nonchar\ufffe end"
    names = [*INJECTIONS, odd]
    items = [
        {
            "type": "function_call",
            "call_id": f"c{n}",
            "name": name,
            "arguments": "{}",
            "status": "completed",
        }
        for n, name in enumerate(names)
    ]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(items, ensure_ascii=True), encoding="utf-8")
    status, root = junit(str(path))
    assert status == 1
    cases = root.findall(".//testcase[@classname='gate.items']")
    for case, name in zip(cases, INJECTIONS, strict=False):
        assert name in case.get("name", "")
        assert name in (case.find("failure").get("message") or "")  # type: ignore[union-attr]
    assert "nul\\x00 esc\\x1b[0m surrogate\\ud800 nonchar\\ufffe end" in cases[-1].get("name", "")
