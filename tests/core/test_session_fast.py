"""The direct conversions of session records give what the general converter gives: items,
origins, values, marks, natives, findings and verdicts (Claude Code turns of text, tool_use and
tool_result blocks), and compact JSON written by orjson is the standard library's text."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import _convert, claude_code, load_conversations, otel
from inspector.core.formats._convert import Held
from inspector.core.formats._sessions import parse_lines
from inspector.core.model import Transcript
from tests.benchmarks import synthetic
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES
from tests.core.test_session_lean import _facts

CLAUDE = SAMPLES / "sessions" / "claude_code"
SESSIONS = sorted(CLAUDE.rglob("*.json*"))
_SESSION = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/x"}


def _record(kind: str, message: Any, uuid: str, **extra: Any) -> dict[str, Any]:
    return {**_SESSION, "sessionId": "s-1", "type": kind, "message": message, "uuid": uuid, **extra}


def _odd_records() -> list[dict[str, Any]]:
    """Records of every shape the direct conversion takes or leaves to the converter."""
    call = {"type": "tool_use", "id": "t1", "name": "Read"}
    floats = {"b": 1.5, "a": [1e16, 1e-7, 3.0, -0.0, 12345678901234567890], "é": "ü\u0001\u2028"}
    messages: list[tuple[str, Any, dict[str, Any]]] = [
        ("user", {"role": "user", "content": "hello"}, {}),
        ("user", {"role": "user", "content": ""}, {}),
        ("user", {"role": "user", "content": []}, {}),
        ("user", {"role": "user", "content": None}, {}),
        ("user", {"content": "no role"}, {}),
        (
            "assistant",
            {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "a"}]},
            {},
        ),
        (
            "assistant",
            {"id": "m1", "role": "assistant", "content": [{**call, "input": floats}]},
            {},
        ),
        (
            "assistant",
            {
                "id": "m1",
                "content": [{"type": "text", "text": ""}, {"type": "text", "citations": [1]}],
            },
            {},
        ),
        (
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": False}
                ],
            },
            {},
        ),
        (
            "assistant",
            {
                "id": "m2",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "x"},
                    {"type": "tool_use", "id": "t2", "name": "Bash", "input": "raw text"},
                    {"type": "tool_use", "id": "t3", "input": {}, "cache_control": {}},
                    {"type": "text", "text": "y"},
                ],
            },
            {},
        ),
        (
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t3",
                        "content": [{"type": "text", "text": "r"}],
                    },
                    "content",
                ],
            },
            {},
        ),
        (
            "assistant",
            {"id": "m3", "content": [{"type": "tool_use", "id": "", "name": "Bash", "input": {}}]},
            {},
        ),
        ("assistant", {"id": "m4", "content": [{"type": "tool_use", "name": "Bash"}]}, {}),
        ("user", {"role": "user", "content": [{"type": "tool_result", "content": "no id"}]}, {}),
        (
            "assistant",
            {
                "id": "m5",
                "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "t"}],
            },
            {},
        ),
        (
            "assistant",
            {
                "id": "m6",
                "content": [
                    {"type": "tool_use", "id": "t/~6", "name": "Task", "input": {"prompt": "go"}}
                ],
            },
            {},
        ),
        ("assistant", {"content": [{"type": "text", "text": "no message id"}]}, {}),
        (
            "assistant",
            {
                "id": "m7",
                "content": [{"type": "tool_use", "id": "t7", "name": "X", "input": {"big": 2**70}}],
            },
            {},
        ),
        (
            "user",
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "u"},
                    {"type": "tool_result", "tool_use_id": "t7", "content": 5},
                ],
            },
            {},
        ),
        (
            "assistant",
            {
                "id": "m8",
                "content": [{"type": "tool_use", "id": "t8", "name": "X", "input": {"k": 1}}],
            },
            {"isSidechain": True, "agentId": "a1"},
        ),
    ]
    records = [
        _record(kind, message, f"u{n}", **extra)
        for n, (kind, message, extra) in enumerate(messages)
    ]
    records.append({**_SESSION, "type": "summary", "summary": "s", "uuid": "u-summary"})
    return records


def _odd_lines() -> list[str]:
    lines = [json.dumps(r, ensure_ascii=False) for r in _odd_records()]
    lines.insert(3, '{"broken": ')
    strange = {"v": math.nan, "w": math.inf, "s": "\ud800"}
    message = {
        "id": "m9",
        "content": [{"type": "tool_use", "id": "t9", "name": "X", "input": strange}],
    }
    lines.append(json.dumps(_record("assistant", message, "u-nan")))
    return lines


def _general(monkeypatch: pytest.MonkeyPatch, load: Any) -> list[Transcript]:
    """What the general converter gives (the direct conversion turned off)."""
    with monkeypatch.context() as patched:
        patched.setattr(claude_code, "_plain_turn", lambda conv, run: False)
        found: list[Transcript] = load()
    return found


def _assert_same(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[Transcript]:
    direct = load_conversations(path)
    assert _facts(direct) == _facts(_general(monkeypatch, lambda: load_conversations(path)))
    return direct


def _held(transcripts: list[Transcript]) -> int:
    return sum(isinstance(i.lean_source, Held) for t in transcripts for i in t.items)


def _ways(monkeypatch: pytest.MonkeyPatch, load: Any) -> list[bool]:
    """Whether each turn was converted directly (True) or by the converter, as `load` runs."""
    taken: list[bool] = []
    direct = claude_code._plain_turn

    def watched(conv: Any, run: Any) -> bool:
        taken.append(direct(conv, run))
        return taken[-1]

    with monkeypatch.context() as patched:
        patched.setattr(claude_code, "_plain_turn", watched)
        load()
    return taken


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_a_claude_code_session_converted_directly_is_what_the_converter_gives(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    _assert_same(monkeypatch, path)


def test_every_shape_of_record_converts_as_the_converter_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(_odd_lines()) + "\n", encoding="utf-8")
    loaded = _assert_same(monkeypatch, path)
    # Both ways were taken: some turns directly, the odd ones by the converter; the items of
    # both are held.
    ways = _ways(monkeypatch, lambda: load_conversations(path))
    assert any(ways) and not all(ways)
    assert _held(loaded) == sum(len(t.items) for t in loaded)
    # The web export holds the same records with no line numbers.
    export = tmp_path / "odd-export.json"
    export.write_text(json.dumps({"loglines": _odd_records()}, indent=1), encoding="utf-8")
    _assert_same(monkeypatch, export)
    assert any(_ways(monkeypatch, lambda: load_conversations(export)))


def test_a_large_session_is_mostly_converted_directly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "large.jsonl"
    repeated(CLAUDE / "v1.0.98-session.jsonl", path, 300_000)
    _assert_same(monkeypatch, path)
    ways = _ways(monkeypatch, lambda: load_conversations(path))
    assert ways.count(True) > 0.9 * len(ways)


def test_a_followed_response_that_grows_converts_as_the_converter_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A snapshot converts the last response for the time being; when another record of it
    arrives, it goes back and converts the whole response again: the same both ways."""
    data = ("\n".join(_odd_lines()) + "\n").encode()

    def polls() -> list[Any]:
        reader = claude_code.Reader("odd.jsonl")
        lines, _corrupt = parse_lines(data, "odd.jsonl")
        seen: list[Any] = []
        for line in lines:
            reader.add([line])
            seen.append(_facts(reader.transcripts()))
        seen.append(_facts(reader.transcripts(final=True)))
        return seen

    assert polls() == _general(monkeypatch, polls)


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [True, False, None], "é": "ü漢😀\u2028\u0000\x7f"},
        [1e16, 1e-7, 1.5, -0.0, 0.1, 1 / 3, 2.0**53, 5e-324, 1.7976931348623157e308],
        {"n": 2**63 - 1, "m": -(2**63), "big": 2**64, "bigger": -(2**70)},
        {"nan": math.nan, "inf": math.inf, "-inf": -math.inf},
        {"lone": "\ud800"},
        {1: "int key", None: "null key"},
        "just text with 1e5 inside",
        [
            [
                [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    [
                                                                                                                                                                                        [
                                                                                                                                                                                            [
                                                                                                                                                                                                [
                                                                                                                                                                                                    [
                                                                                                                                                                                                        [
                                                                                                                                                                                                            [
                                                                                                                                                                                                                [
                                                                                                                                                                                                                    [
                                                                                                                                                                                                                        [
                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                        1
                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                ]
                                                                                                                                                                                                            ]
                                                                                                                                                                                                        ]
                                                                                                                                                                                                    ]
                                                                                                                                                                                                ]
                                                                                                                                                                                            ]
                                                                                                                                                                                        ]
                                                                                                                                                                                    ]
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            ]
        ],
    ],
)
def test_compact_json_is_the_standard_librarys(value: Any) -> None:
    assert _convert.serialise(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_compact_json_of_deep_or_odd_values_is_the_standard_librarys() -> None:
    deep: Any = 0
    for _ in range(300):
        deep = {"k": [deep]}
    assert _convert.serialise(deep) == json.dumps(deep, ensure_ascii=False, separators=(",", ":"))

    class Text(str):
        pass

    assert _convert.serialise({"t": Text("x")}) == '{"t":"x"}'
    assert _convert.serialise({"t": object()}) is None


def _plain_items(monkeypatch: pytest.MonkeyPatch, module: Any, load: Any) -> list[Transcript]:
    """What the loader gives when its converters make plain items, not held ones."""
    made = _convert.Converter

    def plain(*args: Any, **kwargs: Any) -> _convert.Converter:
        return made(*args, **{**kwargs, "hold": False})

    with monkeypatch.context() as patched:
        patched.setattr(module, "Converter", plain)
        patched.setattr(claude_code, "_plain_turn", lambda conv, run: False)
        patched.setattr(otel, "_direct_ok", lambda messages: False)
        found: list[Transcript] = load()
    return found


TRACES = sorted((SAMPLES / "sessions" / "otel").glob("*.json*"))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_a_traces_held_items_are_its_plain_items(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    held = load_conversations(path)
    assert _facts(held) == _facts(_plain_items(monkeypatch, otel, lambda: load_conversations(path)))
    items = [i for t in held for i in t.items]
    assert all(isinstance(i.lean_source, Held) for i in items)


def test_held_items_are_plain_items_for_a_generated_trace_and_session(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    trace, session = tmp_path / "otlp.jsonl", tmp_path / "session.jsonl"
    synthetic.write_otlp(trace, 60_000)
    synthetic.write_claude_code(session, 60_000)
    for path, module in ((trace, otel), (session, claude_code)):
        held = load_conversations(path)
        assert _held(held) == sum(len(t.items) for t in held) > 20
        plain = _plain_items(monkeypatch, module, lambda path=path: load_conversations(path))
        assert _held(plain) == 0
        assert _facts(held) == _facts(plain)
        # A caller may change the value it is given: the item's own stays as it was.
        item = held[0].items[0]
        item.read()["type"] = "changed"
        assert item.raw["type"] != "changed" and item.get("type") != "changed"


def _rows_both_ways(monkeypatch: pytest.MonkeyPatch, transcript: Transcript) -> int:
    """Assert the rows `encoded_item_rows` fills in from templates are the rows made as dicts
    and encoded, at several levels; how many rows were made as dicts at level 3."""
    from inspector.commands import common
    from inspector.core import report
    from inspector.core.gate import gate_transcript

    result = gate_transcript(transcript, None)
    made: list[int] = []
    item_row = report.item_row

    def counted(item: Any, verdict: Any) -> dict[str, Any]:
        made.append(item.index)
        return item_row(item, verdict)

    slow = 0
    for level in (0, 1, 3):
        with monkeypatch.context() as patched:
            patched.setattr(report, "item_row", counted)
            made.clear()
            templated = b"".join(common.encoded_item_rows(result, level))
            slow = len(made)
        assert templated == b"".join(common.encoded_elements(report.item_rows(result), level))
    return slow


@pytest.mark.parametrize("path", [*SESSIONS, *TRACES], ids=lambda p: p.name)
def test_rows_of_held_items_from_templates_are_the_rows_encoded(
    monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    for transcript in load_conversations(path):
        _rows_both_ways(monkeypatch, transcript)


def test_rows_of_odd_and_generated_held_items_are_mostly_templates(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Odd records (escapes, non-ASCII, marks of the converter's own making) and a generated
    # session whose rows share a few marks: nearly all of the latter's rows are templates.
    odd, session = tmp_path / "odd.jsonl", tmp_path / "session.jsonl"
    odd.write_text("\n".join(_odd_lines()) + "\n", encoding="utf-8")
    for transcript in load_conversations(odd):
        _rows_both_ways(monkeypatch, transcript)
    synthetic.write_claude_code(session, 200_000)
    (transcript,) = load_conversations(session)
    assert len(transcript.items) > 400
    assert _rows_both_ways(monkeypatch, transcript) == 0
    # Calls without ids: each one's marks are its own (its synthesised id), past the marks
    # kept by identity, so the later rows are made as dicts.
    unnamed = tmp_path / "unnamed.jsonl"
    records = [
        _record("assistant", {"id": f"m{k}", "content": [{"type": "tool_use", "input": {}}]}, "u")
        for k in range(1200)
    ]
    unnamed.write_text("\n".join(map(json.dumps, records)) + "\n", encoding="utf-8")
    (transcript,) = load_conversations(unnamed)
    assert len({id(i.conversion.derived) for i in transcript.items}) == 1200
    assert 0 < _rows_both_ways(monkeypatch, transcript) < 1200
