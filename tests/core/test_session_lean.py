"""Session files read lean give exactly what parsing every line gives: items, origins, values,
marks, findings and the gate's verdicts (Codex rollouts, whose response items are Open
Responses items already, keep them in the file's bytes), and what a trace repeats is read once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.core.formats import _lean, _sessions, claude_code, codex, load_conversations
from inspector.core.formats._records import Builder
from inspector.core.formats._sessions import parse_lines
from inspector.core.gate import gate_transcript
from inspector.core.model import LEAN, Transcript
from tests.benchmarks import synthetic
from tests.benchmarks.bench_sources import repeated
from tests.conftest import SAMPLES
from tests.spies import CountingJson

ROLLOUTS = sorted((SAMPLES / "sessions" / "codex").glob("*.jsonl"))


def resolve_pointer(value: Any, pointer: str) -> Any:
    """The value a JSON Pointer names (tokens unescaped)."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def _plain_codex(data: bytes, path: str) -> list[Transcript]:
    """The rollout as the line-by-line reader gives it (what following a file does)."""
    lines, corrupt = parse_lines(data, path, skip=codex.repeats)
    return codex.conversations(lines, corrupt, path)


def _facts(transcripts: list[Transcript]) -> list[Any]:
    found: list[Any] = []
    for t in transcripts:
        found.append((t.conversation, t.groups, dict(t.tools), len(t.items)))
        for i in t.items:
            found.append(
                (
                    i.index,
                    i.raw,
                    i.origin,
                    i.group,
                    i.envelope,
                    i.conversion,
                    i.type,
                    *(i.get(k) for k in ("id", "call_id", "name", "role", "status", "arguments")),
                )
            )
        result = gate_transcript(t)
        found.append(([v.verdict for v in result.verdicts], result.findings))
    return found


def _assert_same(data: bytes, path: str) -> list[Transcript]:
    lean = codex.load_file(data, path)
    assert _facts(lean) == _facts(_plain_codex(data, path))
    return lean


@pytest.mark.parametrize("path", ROLLOUTS, ids=lambda p: p.name)
def test_a_rollout_read_lean_is_the_rollout_read_line_by_line(path: Path) -> None:
    loaded = _assert_same(path.read_bytes(), str(path))
    items = [i for t in loaded for i in t.items]
    lean = [i for i in items if i._mask & LEAN]
    # The comparison means something: most items are lean, and no function_call is (its
    # status is derived from a later output, a value of its own).
    assert len(lean) > len(items) / 2
    assert not any(i.type == "function_call" for i in lean)
    assert all(i.origin.pointer == "/payload" for i in lean)


def test_a_large_rollout_keeps_its_items_in_the_files_bytes(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"
    repeated(SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl", path, 2_000_000)
    (loaded,) = _assert_same(path.read_bytes(), str(path))
    lean = [i for i in loaded.items if i._mask & LEAN]
    assert lean and all(i.lean_source is not None for i in lean)


def _line(payload: dict[str, Any], **top: Any) -> bytes:
    record = {"timestamp": "2026-01-01T00:00:00.000Z", "type": "response_item", **top}
    record["payload"] = payload
    return json.dumps(record, separators=(",", ":")).encode()


_META = json.dumps({"type": "session_meta", "payload": {"id": "s1"}}).encode()
_MESSAGE = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
_CALL = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}
_OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "done"}


@pytest.mark.parametrize(
    "lines",
    [
        # The payload first, not last as Codex writes it.
        [b'{"payload":' + json.dumps(_MESSAGE).encode() + b',"type":"response_item"}'],
        # Two payload members (the last one counts, as for the parser), once with the same bytes.
        [b'{"type":"response_item","payload":{"type":"reasoning"},"payload":' + b'{"type":"x"}}'],
        [b'{"payload":{"type":"x"},"type":"response_item","payload":{"type":"x"},"z":1}'],
        # A number beyond a double, a long integer, a deep value, invalid UTF-8, a cut line.
        [_line({**_MESSAGE, "n": 1.5}).replace(b"1.5", b"1e999")],
        [_line({**_OUTPUT, "output": 12345678901234567890123})],
        [_line({**_MESSAGE, "deep": json.loads("[" * 600 + "1.5" + "]" * 600)})],
        [
            _line({**_MESSAGE, "deep": json.loads("[" * 600 + "1.5" + "]" * 600)}).replace(
                b"1.5", b"1e999"
            )
        ],
        [_line(_MESSAGE).replace(b"hi", b"h\xff")],
        [_line(_MESSAGE)[:-9]],
        # A null or missing type, a payload that is not an object, lone surrogates, a BOM-less
        # file of nothing but items, an output before its call.
        [_line({"role": "user", "content": "x"}), _line({"type": None, "id": "r"})],
        [_line([1, 2]), _line("text")],  # type: ignore[arg-type]
        [_line({**_MESSAGE, "content": "\\ud800"}).replace(b"\\\\ud800", b"\\ud800")],
        [_line(_OUTPUT), _line(_CALL), _line(_CALL), _line(_OUTPUT)],
        # Codex's layout, but a member after the payload, spaces, a payload that does not
        # parse, an escape in the timestamp, a passed-over type cut short.
        [_line(_MESSAGE)[:-1] + b',"z":1}', _line(_MESSAGE)[:-1] + b',"payload":{"type":"x"}}'],
        [_line(_MESSAGE).replace(b'"payload":', b'"payload": '), _line(_MESSAGE)[:-1] + b" }"],
        [_line(_MESSAGE)[:-2] + b",}}", _line(_MESSAGE)[:-2] + b"}}}"],
        [_line(_MESSAGE).replace(b'00.000Z"', b'00.000\\u005a"')],
        [_line({"type": "token_count"}, type="event_msg")[:-3], _line({}, type="turn_context")],
    ],
    ids=[
        "payload-first",
        "payload-twice",
        "payload-twice-same",
        "huge-number",
        "long-integer",
        "deep",
        "deep-huge-number",
        "invalid-utf8",
        "cut",
        "untyped",
        "not-objects",
        "lone-surrogate",
        "output-first",
        "member-after-payload",
        "spaces",
        "payload-broken",
        "escaped-timestamp",
        "passed-over-cut",
    ],
)
def test_odd_lines_read_lean_or_plain_give_the_same(tmp_path: Path, lines: list[bytes]) -> None:
    body = [_META, _line(_MESSAGE), *lines, _line(_CALL), _line(_OUTPUT)]
    data = b"\n".join(body) + b"\n"
    _assert_same(data, str(tmp_path / "rollout.jsonl"))


class _CountingDecoder:
    """A decoder that counts what it decodes."""

    def __init__(self, decoder: Any) -> None:
        self.decoder, self.calls = decoder, 0

    def decode(self, data: Any) -> Any:
        self.calls += 1
        return self.decoder.decode(data)


def test_lines_as_codex_writes_them_are_read_lean_without_decoding_their_envelope(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A payload is the last member of a line as Codex writes it: its bytes are taken at once.
    envelope = _CountingDecoder(codex._ENVELOPE)
    monkeypatch.setattr(codex, "_ENVELOPE", envelope)
    data = b"\n".join([_META, _line(_MESSAGE), _line(_OUTPUT), _line({"type": "reasoning"})])
    (loaded,) = _assert_same(data + b"\n", str(tmp_path / "rollout.jsonl"))
    assert sum(1 for i in loaded.items if i._mask & LEAN) == 3
    assert envelope.calls == 0
    # Another layout is read as before: its envelope decoded.
    odd = b'{"payload":' + json.dumps(_MESSAGE).encode() + b',"type":"response_item"}'
    _assert_same(data + b"\n" + odd + b"\n", str(tmp_path / "rollout.jsonl"))
    assert envelope.calls == 1


def test_a_file_the_lean_reader_must_not_take_is_read_line_by_line(tmp_path: Path) -> None:
    data = b"\n".join([_META, _line({**_OUTPUT, "output": 10**20}), _line(_MESSAGE)]) + b"\n"
    assert not _lean.Risks(data).lean  # 21 digits: the parser could read them otherwise
    (loaded,) = _assert_same(data, str(tmp_path / "rollout.jsonl"))
    assert not any(i._mask & LEAN for i in loaded.items)


def test_a_traces_repeated_tool_definitions_are_read_once_and_shared(tmp_path: Path) -> None:
    path = tmp_path / "otlp.jsonl"
    synthetic.write_otlp(path, 40_000)
    loaded = load_conversations(path)
    assert len(loaded) > 3
    lines = path.read_bytes().splitlines()
    for t in loaded:
        # What reading the attribute on its own gives: the same tools, pointed at this span.
        (tool,) = [t.tools[n] for n in t.tools][:1]
        assert tool.origin is not None and tool.origin.line is not None
        record = json.loads(lines[tool.origin.line - 1])
        pointer = tool.origin.pointer.rsplit("/", 1)[0]
        text = resolve_pointer(record, pointer)
        b = Builder(str(path), lambda b, r: "")
        b.add_tools(json.loads(text), pointer, tool.origin.line)
        assert dict(t.tools) == b.tools
    first, second = loaded[0].tools, loaded[1].tools
    # One parse for every span: the gate finds each schema compiled by its identity.
    assert all(first[n].parameters is second[n].parameters for n in first)
    assert first.keys() == second.keys()
    assert [first[n].origin for n in first] != [second[n].origin for n in first]


@pytest.mark.parametrize(
    "source",
    [
        SAMPLES / "sessions" / "claude_code" / "v1.0.98-session.jsonl",
        SAMPLES / "sessions" / "codex" / "rollout-0.104-calls.jsonl",
    ],
    ids=["claude", "codex"],
)
def test_a_session_file_is_converted_as_it_is_parsed(monkeypatch, source: Path) -> None:
    """Its records are never all held at once: each is taken as soon as it is parsed."""
    spy = CountingJson()
    monkeypatch.setattr(_sessions, "orjson", spy)
    taken: list[int] = []
    if source.parent.name == "claude_code":
        module: Any = claude_code
        original = module.Reader.add

        def add(self: Any, lines: Any, corrupt: Any = ()) -> None:
            def watched() -> Any:
                for line in lines:
                    taken.append(sum(spy.parsed.values()))
                    yield line

            original(self, watched(), corrupt)

        monkeypatch.setattr(module.Reader, "add", add)
    else:
        # A rollout's reader parses its calls' lines itself, and takes each line at once.
        module = codex
        monkeypatch.setattr(codex, "orjson", spy)
        one = codex.Reader._take

        def take(self: Any, line: Any) -> None:
            taken.append(sum(spy.parsed.values()))
            one(self, line)

        monkeypatch.setattr(codex.Reader, "_take", take)
    data = source.read_bytes()
    module.load_file(data, str(source))
    parsed = sum(spy.parsed.values())
    assert parsed > 10
    # The first record reached the reader when one line had been parsed, not every line.
    assert taken[0] <= 2 < parsed
    assert taken == sorted(taken)
