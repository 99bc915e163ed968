"""`inspector events FILE`: timeline, violations, exit status, JSON, golden sample outputs."""

from __future__ import annotations

import argparse
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from inspector.commands import events

REPO = Path(__file__).resolve().parents[2]
STREAMS = REPO / "samples" / "streams"
EXPECTED = STREAMS / "expected"
SAMPLES = sorted(p for p in STREAMS.iterdir() if p.suffix in (".sse", ".jsonl"))


def run(*argv: str) -> tuple[int, str, str]:
    """Run the events subcommand through its own parser; return (status, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="inspector")
    events.add_parser(parser.add_subparsers())
    args = parser.parse_args(["events", *argv])
    out, err = io.StringIO(), io.StringIO()
    status = args.run(args, out, err)
    return status, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> tuple[int, dict[str, Any]]:
    status, out, _ = run(*argv, "--format", "json")
    return status, json.loads(out)


EXIT = {
    "delta-before-item": (1, 1),
    "done-only": (1, 1),
    "mcp-call-arguments-logprobs": (0, 1),
    "event-after-completion": (1, 1),
    "extension-heartbeat": (0, 0),
    "failed-after-error": (0, 1),
    "function-call": (0, 0),
    "incomplete-function-call": (0, 1),
    "missing-terminal": (1, 1),
    "reasoning-summary": (0, 0),
    "sequence-gap-duplicate": (1, 1),
    "text-deltas": (0, 0),
    "text-mismatch": (1, 1),
    "two-responses": (0, 0),
}


def test_every_sample_has_an_expected_exit_status() -> None:
    assert {p.stem for p in SAMPLES} == EXIT.keys()


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_exit_status_permissive_and_strict(path: Path) -> None:
    permissive, strict = EXIT[path.stem]
    assert run(str(path))[0] == permissive
    assert run(str(path), "--strict")[0] == strict


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_golden_json_output(path: Path, monkeypatch: pytest.MonkeyPatch, golden) -> None:
    monkeypatch.chdir(REPO)
    relative = path.relative_to(REPO).as_posix()
    _, document = run_json(relative)
    rendered = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    golden(EXPECTED / f"{path.stem}.json", rendered)


def test_json_document_shape() -> None:
    status, doc = run_json(str(STREAMS / "sequence-gap-duplicate.sse"))
    assert status == 1
    assert doc["path"].endswith("sequence-gap-duplicate.sse")
    assert {"status", "events", "violations", "responses", "dialect"} <= doc.keys()
    assert [v["code"] for v in doc["violations"]] == ["sequence_gap", "sequence_not_increasing"]
    assert set(doc["violations"][0]) == {
        "code",
        "severity",
        "event_index",
        "sequence_number",
        "line",
        "message",
    }


def test_text_timeline_and_violations() -> None:
    status, out, err = run(str(STREAMS / "incomplete-function-call.sse"))
    assert status == 0 and err == ""
    assert "response 0  resp_0d13f2c1a5e6b47900680a1f8e25d081a7c6b5a4f3e2d1c0b9  incomplete" in out
    assert "function_call_arguments.delta 6" in out
    assert 'get_weather call_Hk9sP2vQ7nLm4XcB8zRt1WgE arguments {"city":"Grenoble","un' in out
    assert "(never done)" in out
    assert 'incomplete_details: {"reason": "max_output_tokens"}' in out
    assert "event 18  line 55  seq 18  warning  open_item_at_completion" in out
    assert out.rstrip().endswith("status: incomplete  ok")


def test_partial_snapshot_is_labelled() -> None:
    _, out, _ = run(str(STREAMS / "missing-terminal.sse"))
    assert "none (partial snapshot: no terminal event)" in out


def test_reasoning_and_two_responses_are_summarised() -> None:
    _, out, _ = run(str(STREAMS / "reasoning-summary.sse"))
    assert "summary summary_text 83 chars, summary_text 60 chars" in out
    _, out, _ = run(str(STREAMS / "two-responses.jsonl"))
    assert "(Open Responses stream, jsonl, 22 events, 2 responses)" in out
    assert "response 1  resp_0f35b4e3c708d69b00680a1fb7a1fc81c7a6f5e4d3c2b1a0f9  completed" in out


def test_control_characters_from_the_file_are_escaped(tmp_path: Path) -> None:
    data = (
        (STREAMS / "text-deltas.sse")
        .read_bytes()
        .replace(b"msg_0a4f2c7e81d9b35600680a1f3d9e4881908c1b2a3d4e5f6a7b", b"msg_\\u001b[31mred")
    )
    path = tmp_path / "hostile.sse"
    path.write_bytes(data)
    _, out, _ = run(str(path))
    assert "\x1b" not in out
    assert "msg_\\x1b[31mred" in out


def test_deeply_nested_event_is_reported_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.sse"
    path.write_text('data: {"type": "error", "x": ' + "[" * 900 + "]" * 900 + "}\n\n")
    for fmt in ("text", "json"):
        status, out, err = run(str(path), "--format", fmt)
        assert status == 1 and err == ""
        assert "nested more than 512 levels" in out


def test_the_file_is_never_modified(tmp_path: Path) -> None:
    path = tmp_path / "stream.sse"
    original = (STREAMS / "text-mismatch.sse").read_bytes()
    path.write_bytes(original)
    os.chmod(path, 0o444)
    before = path.stat().st_mtime_ns
    assert run(str(path))[0] == 1
    assert path.read_bytes() == original and path.stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("name", "content", "message", "line"),
    [
        ("missing.sse", None, "no such file", None),
        ("directory", "dir", "is a directory", None),
        ("empty.sse", b"", "empty", None),
        ("response.json", b'{\n  "id": "resp_1",\n  "output": []\n}\n', "JSON document", 1),
        ("notes.txt", b"\n\nhello\n", "no server-sent events", 3),
    ],
)
def test_unreadable_file_exits_2_and_says_where(
    tmp_path: Path, name: str, content: Any, message: str, line: int | None
) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    status, out, err = run(str(path))
    assert status == 2 and out == ""
    assert str(path) in err and message in err
    if line is not None:
        assert f"{path}:{line}: " in err
    status, doc = run_json(str(path))
    assert status == 2
    assert doc["path"] == str(path)
    assert message in doc["error"]["message"]
    assert doc["error"]["line"] == line and "column" in doc["error"]


CHAT_STREAM = (
    'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4o","choices":'
    '[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1",'
    '"type":"function","function":{"name":"lookup","arguments":"{\\"q\\": 1}"}}]},'
    '"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
)
ANTHROPIC_STREAM = (
    "event: message_start\n"
    'data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",'
    '"model":"claude-sonnet-4-20250514","content":[],"usage":{"input_tokens":3}}}\n\n'
    "event: content_block_start\n"
    'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use",'
    '"id":"toolu_1","name":"lookup","input":{}}}\n\n'
    "event: content_block_delta\n"
    'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta",'
    '"partial_json":"{\\"q\\": 1}"}}\n\n'
    "event: content_block_stop\n"
    'data: {"type":"content_block_stop","index":0}\n\n'
)


@pytest.mark.parametrize(
    ("content", "name", "detail"),
    [
        (CHAT_STREAM, "a Chat Completions", 'tool_call 0 call_1 lookup arguments {"q": 1}'),
        (
            ANTHROPIC_STREAM,
            "an Anthropic Messages",
            'block 0 tool_use toolu_1 lookup input {"q": 1}',
        ),
    ],
)
def test_foreign_stream_is_named_and_blocks(
    tmp_path: Path, content: str, name: str, detail: str
) -> None:
    path = tmp_path / "foreign.sse"
    path.write_text(content, encoding="utf-8")
    status, out, _ = run(str(path))
    assert status == 1
    assert f"this is {name} stream, not Open Responses" in out
    assert detail in out
    status, doc = run_json(str(path))
    assert status == 1 and doc["status"] == "foreign"
    assert doc["violations"][0]["code"] == "foreign_stream"
    assert doc["assembled"]["id"] in ("chatcmpl-1", "msg_1")


def test_broken_foreign_stream_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "broken.sse"
    path.write_text(ANTHROPIC_STREAM.replace('{\\"q\\": 1}', '{\\"q\\":'), encoding="utf-8")
    status, _, err = run(str(path))
    assert status == 2
    assert f"{path}:10 (event 3): tool_use 'toolu_1' input is not JSON" in err


def test_dispatcher_runs_events() -> None:
    from inspector.cli import run as cli_run

    out, err = io.StringIO(), io.StringIO()
    status = cli_run(["events", str(STREAMS / "text-deltas.sse"), "--format", "json"], out, err)
    assert status == 0 and json.loads(out.getvalue())["status"] == "completed"
