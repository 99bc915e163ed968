"""A tools file: empty, and a tool defined twice, each one clear error with where."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.core.formats import load_tools
from inspector.core.model import LoadError

CALL = {
    "type": "function_call",
    "call_id": "c1",
    "name": "f",
    "arguments": "{}",
    "status": "completed",
}


def _tool(properties: dict) -> dict:
    return {
        "type": "function",
        "name": "f",
        "parameters": {"type": "object", "properties": properties},
    }


def test_an_empty_tools_file_says_it_is_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.tools.json"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(LoadError, match="tools file is empty") as raised:
        load_tools(empty)
    assert str(raised.value.path).endswith("empty.tools.json")


def test_a_tool_defined_twice_differently_is_refused_with_both_places(tmp_path: Path) -> None:
    tools = tmp_path / "dup.tools.json"
    tools.write_text(json.dumps([_tool({}), _tool({"a": {"type": "string"}})]), encoding="utf-8")
    with pytest.raises(LoadError, match=r"'f' is defined twice .*at /0 and /1") as raised:
        load_tools(tools)
    assert raised.value.where.pointer == "/1"
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps(CALL) + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "gate", str(transcript), "--tools", str(tools)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "defined twice" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_same_definition_twice_is_one_tool(tmp_path: Path) -> None:
    tools = tmp_path / "same.tools.json"
    tools.write_text(json.dumps([_tool({}), _tool({})]), encoding="utf-8")
    assert list(load_tools(tools)) == ["f"]
