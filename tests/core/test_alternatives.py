"""A response with several alternatives: only the first is read, and a warning says so."""

from __future__ import annotations

import json

import pytest

from inspector.core.formats import load_bytes
from inspector.core.gate import gate_transcript


def _gemini(n: int) -> dict:
    part = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    return {
        "candidates": [
            {"index": i, "content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}
            for i in range(n)
        ],
        "modelVersion": "gemini-2.5-flash",
    }


def _chat(n: int) -> dict:
    message = {"role": "assistant", "content": "Sunny."}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini",
        "choices": [{"index": i, "message": message, "finish_reason": "stop"} for i in range(n)],
    }


@pytest.mark.parametrize(
    ("document", "code"), [(_gemini, "extra_candidates"), (_chat, "extra_choices")]
)
def test_several_alternatives_are_a_warning_and_only_the_first_is_read(document, code) -> None:
    one = gate_transcript(load_bytes(json.dumps(document(1)).encode(), "one.json"))
    three = gate_transcript(load_bytes(json.dumps(document(3)).encode(), "three.json"))
    assert [f.code for f in one.findings if f.code == code] == []
    found = [f for f in three.findings if f.code == code]
    assert len(found) == 1 and str(found[0].severity) == "warning"
    assert "3" in found[0].message
    assert len(three.transcript.items) == len(one.transcript.items)
