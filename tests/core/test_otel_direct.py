"""An OTel trace's common messages converted straight into held items (`otel._direct`) give
what the general converter gives: items, values, origins, marks, natives, groups, tools,
verdicts and findings, on every OTLP sample, on a generated trace, and on a trace of every
part type, where spans the direct path takes and spans it leaves to the converter meet in one
conversation (a result without an id answering a call converted directly, repeats of calls
and results read either way)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import load_conversations, otel
from inspector.core.model import Origin, Tool, Transcript
from tests.benchmarks import synthetic
from tests.conftest import SAMPLES
from tests.core.test_session_lean import _facts

TRACES = sorted((SAMPLES / "sessions" / "otel").glob("*.json*"))


def _both(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[list[Transcript], int]:
    """The file's transcripts through the converter only, and how many messages' worth of
    inferences the direct path took when allowed (the transcripts compared by the caller)."""
    taken = [0]
    direct = otel._direct

    def counted(*args: Any) -> None:
        taken[0] += 1
        direct(*args)

    with monkeypatch.context() as patched:
        patched.setattr(otel, "_direct_ok", lambda messages: False)
        general = load_conversations(path)
    with monkeypatch.context() as patched:
        patched.setattr(otel, "_direct", counted)
        made = load_conversations(path)
    assert _facts(made) == _facts(general)
    return made, taken[0]


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_every_samples_direct_items_are_the_converters(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    _both(monkeypatch, path)


def test_the_direct_path_reads_real_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison above means something: real instrumentations' spans take the direct path.
    taken = sum(_both(monkeypatch, path)[1] for path in TRACES)
    assert taken > 20


def test_a_generated_traces_direct_items_are_the_converters(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    trace = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(trace, 120_000)
    made, taken = _both(monkeypatch, trace)
    # Each conversation's two spans, history and response: all taken directly.
    assert taken == 4 * len(made) > 40


def _text(content: Any) -> dict[str, Any]:
    return {"type": "text", "content": content}


def _call(call_id: Any, name: str = "get_weather", **extra: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": call_id, "name": name, **extra}


def _answer(call_id: Any, response: Any = "sunny") -> dict[str, Any]:
    return {"type": "tool_call_response", "id": call_id, "response": response}


def _span(trace: str, k: int, attributes: dict[str, Any]) -> dict[str, Any]:
    values = {
        key: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        for key, v in attributes.items()
    }
    return synthetic._otel_span(trace, k, "chat m", {"gen_ai.operation.name": "chat", **values})


#: Messages of every part type and shape; each conversation below sends a run of them.
_USER = {"role": "user", "parts": [_text("weather?"), _text(""), _text(None)]}
_ODD_PARTS = [
    {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "AAAA"},
    {"type": "uri", "modality": "image", "uri": "https://example.com/a.png"},
    {"type": "file", "file_id": "file-1"},
    {"type": "reasoning", "content": "thinking"},
    {"type": "server_tool_call", "id": "srv1", "name": "web_search"},
    {"type": "server_tool_call_response", "id": "srv1", "response": {"ok": True}},
    {"type": "compaction", "content": "summary"},
    {"type": "custom_part", "value": 1},
    "not an object",
]


def _conversations() -> list[list[dict[str, Any]]]:
    """Conversations, each a list of span attributes in time order."""
    floats = {"a": [1e16, 1e-7, 3.0, -0.0, 12345678901234567890], "é": "ü\u2028"}
    asked = {
        "role": "assistant",
        "parts": [
            _text("let me look"),
            _call("c1", arguments={"city": "Paris"}),
            _text(""),
            _call("c2", arguments='{"city": "Rome"}'),
            _call("c3"),
            _text("and"),
            _call("c4", arguments=floats),
        ],
    }
    answers = {"role": "tool", "parts": [_answer("c1"), _answer("c2", {"t": 21}), _answer("c3")]}
    cut = {"role": "assistant", "parts": [_call("c5", arguments={}), _text("x")]}
    empty = {"role": "user", "parts": []}
    return [
        # Every common shape, taken directly, its history resent by the next span.
        [
            {"gen_ai.input.messages": [_USER], "gen_ai.output.messages": [asked]},
            {
                "gen_ai.system_instructions": [_text("be brief")],
                "gen_ai.input.messages": [_USER, asked, answers],
                "gen_ai.output.messages": [{**cut, "finish_reason": "length"}],
            },
            {
                "gen_ai.input.messages": [_USER, asked, answers, cut, empty],
                "gen_ai.output.messages": [{"role": "assistant", "parts": [_call("c4")]}],
                "gen_ai.response.finish_reasons": ["tool_calls"],
            },
        ],
        # A call answered by a result without an id (paired by name by the converter), calls
        # with no id, a list id, odd parts, choices and plain text, beside direct spans.
        [
            {
                "gen_ai.input.messages": [_USER],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [_call("p1", "lookup", arguments={"q": 1})]}
                ],
            },
            {
                "gen_ai.input.messages": [
                    _USER,
                    {"role": "tool", "parts": [_answer(None, "found")]},
                    {"role": "assistant", "parts": [_call(None, "lookup"), _call(["run", "p2"])]},
                ],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": _ODD_PARTS, "finish_reason": 7},
                    {"role": "assistant", "parts": [_text("other choice")]},
                ],
            },
            {
                "gen_ai.input.messages": [_USER, {"role": "user", "parts": [_answer("p2")]}],
                "gen_ai.output.messages": "plain text, not message JSON",
            },
            {
                "gen_ai.input.messages": [
                    {"role": "user", "content": "no parts"},
                    {"role": "user", "parts": [_text("kept")], "name": "extra field"},
                    "not a message",
                ],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [_call("p3", arguments=[1, 2])]}
                ],
            },
            {
                "gen_ai.input.messages": [_USER, {"role": "tool", "parts": [_answer("p3")]}],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [_call("p4", arguments={"n": None})]}
                ],
            },
        ],
        # A response with no finish reason whose call no later span answers, and one stopped.
        [
            {
                "gen_ai.input.messages": [_USER],
                "gen_ai.output.messages": [{"role": "assistant", "parts": [_call("n1")]}],
            },
            {
                "gen_ai.input.messages": [_USER],
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [_text("done")], "finish_reason": "stop"}
                ],
            },
        ],
    ]


def test_a_trace_of_every_part_type_gives_the_converters_items(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "every-part.jsonl"
    lines = []
    k = 0
    for n, spans in enumerate(_conversations()):
        for attributes in spans:
            span = _span(f"{n:032x}", k, attributes)
            k += 1
            lines.append(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    made, taken = _both(monkeypatch, path)
    assert len(made) == 3
    # Some inferences were converted directly, and some were left to the converter.
    spans = sum(len(spans) for spans in _conversations())
    assert 5 < taken < 2 * spans
    types = {i.type for t in made for i in t.items}
    assert {"message", "function_call", "function_call_output", "otel:reasoning"} <= types


def test_tools_made_slot_by_slot_are_the_dataclasses(tmp_path: Path) -> None:
    trace = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(trace, 20_000)
    tools = [t for c in load_conversations(trace) for t in c.tools.values()]
    assert len(tools) > 8
    for tool in tools:
        assert tool.origin is not None
        origin = Origin(**{f.name: getattr(tool.origin, f.name) for f in fields(Origin)})
        again = Tool(**{f.name: getattr(tool, f.name) for f in fields(Tool)} | {"origin": origin})
        assert (tool.origin, hash(tool.origin), repr(tool.origin)) == (
            origin,
            hash(origin),
            repr(origin),
        )
        assert (tool, repr(tool)) == (again, repr(again))


def _grouped(path: Path) -> dict[str, list[otel.Inference]]:
    data = path.read_bytes()
    return otel._conversations(otel._gather(otel._exports(data, str(path)), None))


def _direct_agrees(path: Path) -> int:
    """Assert that every conversation `direct_conversation` takes is what `build` makes of it
    (items, their groups, pointers and marks, groups, tools); return how many it took."""
    taken = 0
    for cid, inferences in _grouped(path).items():
        direct = otel.direct_conversation(inferences)
        if direct is None:
            continue
        taken += 1
        built = otel.build(str(path), cid, inferences, [])
        assert [
            (i.group, i.raw, i.origin.pointer, i.conversion and i.conversion.derived)
            for i in built.items
        ] == [(group, raw, pointer, derived) for group, raw, pointer, derived in direct.items]
        assert all(i.origin.line == direct.groups[i.group][0] for i in built.items)
        assert [(g.kind, g.origin.line, g.status, g.response_id) for g in built.groups] == [
            ("otel_span", *group) for group in direct.groups
        ]
        assert sorted(built.tools) == sorted(otel.definitions_tools(direct.definitions))
        for name, tool in otel.definitions_tools(direct.definitions).items():
            assert (tool.parameters, tool.kind, tool.strict) == (
                built.tools[name].parameters,
                built.tools[name].kind,
                built.tools[name].strict,
            )
        assert not any(g.notes for g in built.groups)
    return taken


def test_a_direct_conversation_is_what_build_makes(tmp_path: Path) -> None:
    generated = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(generated, 60_000)
    assert _direct_agrees(generated) == len(generated.read_bytes().splitlines()) > 5
    # Real instrumentations' conversations: some taken, and the others (system instructions,
    # agents' spans, log records, older events) left to the usual build.
    taken = [_direct_agrees(path) for path in TRACES]
    assert 0 < sum(taken) < sum(len(_grouped(path)) for path in TRACES)
