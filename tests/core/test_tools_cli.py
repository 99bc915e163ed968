"""The tools command and gate --target: JSON shape, text matrix, exit statuses, bad usage."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from inspector.cli import run
from inspector.core.targets import profile_names
from tests.conftest import REPO

SALES = "samples/tools/sales-tools.json"
PORTABLE = "samples/tools/portable.tools.json"


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(REPO)
    try:
        status = run(list(args), out, err)
    finally:
        os.chdir(old)
    return status, out.getvalue(), err.getvalue()


def test_tools_json_shape():
    status, out, _ = cli("tools", SALES, "--format", "json")
    assert status == 1
    document = json.loads(out)
    assert document["targets"] == profile_names()
    names = [t["name"] for t in document["tools"]]
    assert names == ["get_latest_sales_report", "search_web", "send_summary"]
    search = document["tools"][1]
    assert search["source"] == {"path": SALES, "pointer": "/1"}
    assert list(search["targets"]) == profile_names()
    openai = search["targets"]["openai"]
    assert openai["accepted"] is False and openai["mode"] == "strict"
    problem = next(p for p in openai["problems"] if p["rule"] == "openai.strict.all_required")
    assert set(problem) == {"code", "severity", "pointer", "rule", "message", "source"}
    assert problem["code"] == "target_tool_schema" and problem["severity"] == "error"
    assert problem["pointer"] == "/required" and "'max_results'" in problem["message"]
    assert problem["source"].startswith("https://")
    assert search["targets"]["mistral"] == {
        "accepted": True,
        "altered": False,
        "mode": "loose",
        "problems": [],
    }
    altered = search["targets"]["ollama"]
    assert altered["accepted"] is True and altered["altered"] is True
    assert {p["code"] for p in altered["problems"]} == {"target_tool_schema_altered"}


def test_tools_exit_status_follows_the_listed_targets():
    assert cli("tools", SALES, "--target", "mistral", "vllm")[0] == 0
    assert cli("tools", SALES, "--target", "mistral", "--target", "openai")[0] == 1
    # Altered but accepted is not a rejection.
    assert cli("tools", SALES, "--target", "ollama", "--format", "json")[0] == 0
    assert cli("tools", PORTABLE)[0] == 0


def test_tools_reads_requests_transcripts_and_name_maps():
    for path in (
        "samples/providers/provider-a.json",
        "samples/streams/two-responses.jsonl",
        "samples/tools/region-with-global.tools.json",
        "samples/anthropic-messages.json",
    ):
        status, out, err = cli("tools", path, "--target", "mistral", "--format", "json")
        assert status == 0, (path, err)
        tools = json.loads(out)["tools"]
        assert tools and all(t["source"]["path"] == path for t in tools)
    status, out, _ = cli("tools", "samples/streams/two-responses.jsonl", "--format", "json")
    (tool,) = json.loads(out)["tools"]
    assert tool["source"]["pointer"] == "/response/tools/0"


def test_tools_text_matrix():
    status, out, _ = cli("tools", SALES, PORTABLE, "--target", "openai", "gemini", "ollama")
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f"{SALES}  (3 tools)"
    assert lines[1].split() == ["tool", "openai", "gemini", "ollama"]
    assert lines[2].split() == ["get_latest_sales_report", "✓", "✗", "~"]
    assert lines[3].split() == ["search_web", "✗", "✗", "~"]
    assert "✓ accepted" in lines[5]
    assert "problems:" in lines
    assert any(
        line.strip().startswith("error   openai  /required: optional property 'max_results'")
        and line.endswith("[openai.strict.all_required]")
        for line in lines
    )
    portable = lines.index(f"{PORTABLE}  (2 tools)")
    assert lines[portable + 2].split() == ["get_weather", "✓", "✓", "✓"]


def test_tools_text_groups_targets_that_share_a_rule():
    _, out, _ = cli("tools", SALES, "--target", "gemini", "gemini-3")
    assert "error   gemini, gemini-3  /additionalProperties:" in out


def test_tools_text_escapes_control_characters(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"bad\x1b[31mname": {"type": "object", "properties": {}}}))
    status, out, _ = cli("tools", str(path), "--target", "openai")
    assert status == 1
    assert "\x1b" not in out and "bad\\x1b[31mname" in out


def test_tools_unreadable_input(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [')
    status, out, err = cli("tools", str(broken), SALES)
    assert status == 2 and "broken.json" in err and SALES in out
    status, out, _ = cli("tools", str(broken), "--format", "json")
    document = json.loads(out)
    assert status == 2 and document["tools"] == []
    assert document["errors"][0]["path"] == str(broken)
    assert document["errors"][0]["error"]["line"] == 1


def test_tools_file_without_tools(tmp_path):
    path = tmp_path / "items.json"
    path.write_text(json.dumps([{"type": "message", "role": "user", "content": "hi"}]))
    status, _, err = cli("tools", str(path))
    assert status == 2 and "no tool definitions found" in err


@pytest.mark.parametrize("command", ["tools", "gate"])
def test_unknown_target_is_a_usage_error(command):
    status, out, err = cli(command, SALES, "--target", "chatgpt")
    assert status == 2 and out == ""
    assert "unknown target 'chatgpt'; profiles are: " + ", ".join(profile_names()) in err
    assert err.startswith("usage:")


def test_gate_target_json_findings():
    path = "samples/diff/reordered-parallel/left.json"
    assert cli("gate", path)[0] == 0
    status, out, _ = cli("gate", path, "--target", "mistral", "--format", "json")
    assert status == 1
    (entry,) = json.loads(out)["files"]
    target = [f for f in entry["findings"] if f["code"].startswith("target_")]
    assert {f["code"] for f in target} == {"target_call_id"}
    first = target[0]
    assert list(first)[:4] == ["code", "severity", "items", "message"]
    assert first["target"] == "mistral" and first["rule"] == "mistral.call_id.pattern"
    assert first["items"] == [1, 3] and first["source"].startswith("https://")
    status, out, _ = cli("gate", path, "--target", "openai", "--format", "json")
    (entry,) = json.loads(out)["files"]
    schema = [f for f in entry["findings"] if f["code"] == "target_tool_schema"]
    assert schema and all({"tool", "pointer"} <= set(f) for f in schema)
    assert {f["tool"] for f in schema} == {"search_web", "send_summary"}


def test_gate_target_text_and_exit_status():
    path = "samples/diff/reordered-parallel/left.json"
    status, out, _ = cli("gate", path, "--target", "vllm")
    assert status == 0 and "target_" not in out
    status, out, _ = cli("gate", path, "--target", "ollama")
    assert status == 0 and "warning target_tool_schema_altered" in out
    assert cli("gate", path, "--target", "ollama", "--strict")[0] == 1
    status, out, _ = cli("gate", path, "--target", "mistral")
    assert status == 1
    assert "error target_call_id [#1,#3]: mistral: call_id 'call_eu'" in out


def test_tools_reads_standard_input():
    # `-` is file descriptor 0 itself, so the command runs in a process of its own.
    with open(REPO / SALES, "rb") as handle:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "inspector",
                "tools",
                "-",
                "--target",
                "mistral",
                "--format",
                "json",
            ],
            stdin=handle,
            capture_output=True,
            cwd=REPO,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)["tools"]
    assert [t["source"]["path"] for t in tools] == ["<stdin>"] * 3
