"""The readiness report of a scan: go / no-go per target, rules with examples, tools, health."""

from __future__ import annotations

import io
import json
from pathlib import Path

from inspector.cli import run
from inspector.core import scan
from inspector.core.report.readiness import render_readiness
from inspector.core.report.redact import Redactor

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SECRET = "sk-proj-abcdefghijklmnop1234567890"
HOSTILE = "<img src=x onerror=alert(1)>"


def _fleet_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "fleet"
    folder.mkdir()
    for name in ("providers/provider-a.json", "logs/agent-session.jsonl", "article/items.json"):
        (folder / Path(name).name).write_bytes((SAMPLES / name).read_bytes())
    # A tool whose name is markup, and a file whose name holds an API key.
    request = {
        "input": [
            {"type": "function_call", "call_id": "c1", "name": HOSTILE, "arguments": "{}",
             "status": "completed"},
        ],
        "tools": [{"type": "function", "name": HOSTILE, "parameters": {"type": "object",
                   "properties": {"q": {"type": "string", "minLength": 3}}}}],
    }  # fmt: skip
    (folder / f"key-{SECRET}.json").write_text(json.dumps(request), encoding="utf-8")
    (folder / "broken.json").write_bytes(b'{"input": [')
    return folder


def _scan(folder: Path, report: Path, *extra: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = run(
        ["scan", str(folder), "--target", "openai", "anthropic", "--jobs", "1",
         "-o", str(report.with_suffix(".jsonl")), "--report", str(report), *extra],
        out,
        err,
    )  # fmt: skip
    assert status == 2, err.getvalue()  # broken.json is unreadable
    return report.read_text(encoding="utf-8")


def test_html_report_says_go_or_no_go_per_target_with_rules_and_examples(tmp_path: Path) -> None:
    page = _scan(_fleet_folder(tmp_path), tmp_path / "readiness.html")
    rows = list(scan.read_rows(str(tmp_path / "readiness.jsonl")))
    fleet = scan.Fleet(targets=("openai", "anthropic"))
    for row in rows:
        fleet.add(row)
    rejected = fleet.per_target["openai"].rejected
    assert rejected and f"openai: NO-GO: {rejected:,} of" in page
    assert "openai.strict.unsupported_keywords" in page  # a rule, with its example's file
    assert 'href="./provider-a.json"' in page or 'href="./fleet/' in page
    assert 'id="tools"' in page and "get_latest_sales_report" in page
    assert "unreadable .json" in page and "broken.json" in page
    # Markup from a file is text; a key in a path is redacted, and that file gets no link.
    assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert SECRET not in page
    assert "<script" not in page and "default-src 'none'" in page
    assert "prefers-color-scheme:dark" in page


def test_markdown_report_escapes_and_redacts(tmp_path: Path) -> None:
    text = _scan(_fleet_folder(tmp_path), tmp_path / "readiness.md")
    assert text.startswith("# Migration readiness")
    assert "openai" in text and "| rule |" in text
    # Markup from a file appears only inside code spans (shown as text), or escaped.
    assert text.count(HOSTILE) == text.count(f"`{HOSTILE}`") >= 1
    assert SECRET not in text
    assert "## Parse health" in text


def test_no_redact_keeps_the_path_and_links_it(tmp_path: Path) -> None:
    page = _scan(_fleet_folder(tmp_path), tmp_path / "readiness.html", "--no-redact")
    assert SECRET in page


def test_a_fleet_the_target_accepts_is_go(tmp_path: Path) -> None:
    folder = tmp_path / "ok"
    folder.mkdir()
    (folder / "items.json").write_bytes((SAMPLES / "article" / "items.json").read_bytes())
    fleet = scan.Fleet(targets=("openai",))
    for path in scan.walk([str(folder)]):
        for row in scan.scan_file(path, scan.ScanOptions(targets=("openai",))):
            fleet.add(row)
    assert fleet.verdict("openai") in ("go", "go with changes")
    page = render_readiness(fleet, Redactor())
    assert "NO-GO" not in page and "openai: GO" in page
