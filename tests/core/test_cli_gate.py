"""The gate command: text and JSON output, exit statuses, escaping, golden outputs."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from inspector.cli import run
from tests.conftest import REPO, SAMPLES

ARTICLE = ["samples/article/items.json", "--tools", "samples/article/region-schema.tools.json"]


def gate(*args, cwd=REPO):
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        status = run(["gate", *args], out, err)
    finally:
        os.chdir(old)
    return status, out.getvalue(), err.getvalue()


def test_json_shape():
    status, out, _ = gate(*ARTICLE, "--format", "json")
    assert status == 1
    (entry,) = json.loads(out)["files"]
    assert entry["path"] == "samples/article/items.json"
    assert entry["format"] == "items"
    first = entry["items"][0]
    assert set(first) >= {
        "index",
        "type",
        "id",
        "call_id",
        "name",
        "status",
        "verdict",
        "detail",
        "errors",
        "source",
    }
    assert first["source"] == {"line": 2, "pointer": "/0"}
    bad = entry["items"][3]
    assert bad["errors"][0] == {
        "path": "/region",
        "schema_path": "/properties/region/enum",
        "keyword": "enum",
        "message": '"global" is not one of "apac", "emea" or "amer"',
    }
    assert entry["summary"] == {
        "namespaced": 1,
        "not_function_call": 1,
        "arguments_schema": 1,
        "ok": 1,
    }
    assert {f["code"] for f in entry["findings"]} == {"missing_output"}


def test_text_output_is_aligned():
    status, out, _ = gate(*ARTICLE)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith("samples/article/items.json  (items, 4 items)")
    rows = lines[1:5]
    columns = {row.index(" ok ") if " ok " in row else None for row in rows} - {None}
    assert len(columns) == 1
    verdict_columns = {
        row.find(word)
        for row, word in zip(
            rows, ["ok", "not_function_call", "namespaced", "arguments_schema"], strict=True
        )
    }
    assert len(verdict_columns) == 1
    summary = next(line for line in lines if line.startswith("summary: "))
    assert summary.startswith("summary: namespaced 1 | not_function_call 1")
    # The text output ends with the one decision, its reasons beneath.
    assert lines[-2:] == [
        "decision: Replay UNSAFE",
        "  - 2 of 4 items block a replay (verdicts: namespaced 1, arguments_schema 1)",
    ]
    assert "\x1b[" not in out  # not a TTY: no colour


def test_exit_zero_when_clean():
    status, _, _ = gate("samples/findings/non-portable-type.json")
    assert status == 0


def test_strict_counts_warnings():
    status, _, _ = gate("samples/findings/non-portable-type.json", "--strict")
    assert status == 1


def test_fail_on_narrows_verdicts():
    assert gate(*ARTICLE, "--fail-on", "arguments_schema")[0] == 1
    assert gate(*ARTICLE, "--fail-on", "unknown_tool")[0] == 0
    status, _, err = gate(*ARTICLE, "--fail-on", "bogus")
    assert status == 2 and "verdicts are:" in err


def test_unreadable_file_exits_2_and_reports_where(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"input": [\n  {"type": "message",,}\n]}')
    status, out, err = gate(str(broken), "samples/article/items.json", "--format", "json")
    assert status == 2
    files = json.loads(out)["files"]
    assert files[0]["path"] == str(broken)
    assert files[0]["error"]["line"] == 2 and files[0]["error"]["column"] == 22
    assert files[1]["items"]  # the readable file is still reported
    status, _, err = gate(str(broken))
    assert status == 2 and f"{broken}:2:22: invalid JSON" in err


def test_bad_usage_exits_2():
    assert gate()[0] == 2
    assert gate("x.json", "--format", "yaml")[0] == 2
    status, _, err = gate("samples/article/items.json", "--tools", "no/such/tools.json")
    assert status == 2 and "no such file" in err


def test_control_characters_are_escaped(tmp_path):
    hostile = tmp_path / "hostile.json"
    hostile.write_text(
        json.dumps(
            [
                {
                    "type": "function_call",
                    "name": "evil\x1b[2J\x1b]0;pwned\x07",
                    "call_id": "c\r\nx",
                    "status": "completed",
                    "arguments": "{}",
                }
            ]
        )
    )
    status, out, _ = gate(str(hostile))
    assert status == 1
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b[2J" in out and "c\\r\\nx" in out


def test_module_entry_point_runs_the_gate():
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "gate", *ARTICLE, "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["files"][0]["summary"]["ok"] == 1


GEMINI_TOOLS = "samples/native/gemini-request.json"
BEDROCK_TOOLS = "samples/native/bedrock-request.json"
SALES_TOOLS = ["--tools", "samples/tools/sales-tools.json"]
GOLDEN = [
    ("article-items", [*ARTICLE]),
    ("provider-a", ["samples/providers/provider-a.json"]),
    ("provider-b", ["samples/providers/provider-b.json"]),
    ("response-incomplete", ["samples/incomplete/response-incomplete.json"]),
    ("agent-session", ["samples/logs/agent-session.jsonl"]),
    ("mixed-envelopes", ["samples/logs/mixed-envelopes.jsonl"]),
    ("chat-completions", ["samples/chat-completions.json"]),
    ("anthropic-messages", ["samples/anthropic-messages.json"]),
    ("batch-output", ["samples/logs/batch-output.jsonl"]),
    ("mixed-native", ["samples/logs/mixed-native.jsonl"]),
    *[
        (name, [f"samples/native/{file}", *tools])
        for name, file, tools in (
            ("gemini-request", "gemini-request.json", []),
            ("gemini-response", "gemini-response.json", ["--tools", GEMINI_TOOLS]),
            ("gemini-stream-sse", "gemini-stream.sse", ["--tools", GEMINI_TOOLS]),
            ("gemini-stream-array", "gemini-stream.json", ["--tools", GEMINI_TOOLS]),
            ("gemini-stream-partial-args", "gemini-stream-partial-args.jsonl", SALES_TOOLS),
            ("gemini-request-system-role", "gemini-request-system-role.json", []),
            ("bedrock-request", "bedrock-request.json", []),
            ("bedrock-response", "bedrock-response.json", ["--tools", BEDROCK_TOOLS]),
            ("bedrock-stream", "bedrock-stream.jsonl", ["--tools", BEDROCK_TOOLS]),
            ("bedrock-response-server-tool", "bedrock-response-server-tool.json", []),
            ("bedrock-request-empty-content", "bedrock-request-empty-content.json", []),
            ("chat-completions-response", "chat-completions-response.json", SALES_TOOLS),
            ("chat-completions-stream", "chat-completions-stream.sse", SALES_TOOLS),
            ("chat-stream-no-index", "chat-completions-stream-no-index.sse", SALES_TOOLS),
            (
                "chat-stream-continuations",
                "chat-completions-stream-continuations.sse",
                SALES_TOOLS,
            ),
            ("anthropic-response", "anthropic-response.json", SALES_TOOLS),
            ("anthropic-stream", "anthropic-stream.sse", SALES_TOOLS),
            ("cohere-request", "cohere-request.json", []),
            ("cohere-response", "cohere-response.json", SALES_TOOLS),
            ("cohere-stream", "cohere-stream.sse", SALES_TOOLS),
        )
    ],
    (
        "verdicts",
        ["samples/findings/verdicts.json", "--tools", "samples/findings/verdicts.tools.json"],
    ),
    *[
        (p.stem, [f"samples/findings/{p.name}"])
        for p in sorted((SAMPLES / "findings").glob("*.json"))
        if not p.name.startswith("verdicts")
    ],
]


@pytest.mark.parametrize(("name", "args"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden_outputs(name, args, golden):
    status, out, _ = gate(*args, "--format", "json")
    document = json.loads(out)
    document["exit_status"] = status
    rendered = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    golden(SAMPLES / "expected" / f"{name}.gate.json", rendered)
