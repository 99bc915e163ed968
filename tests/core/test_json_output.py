"""JSON output is written as a stream, yet reads exactly as the whole document would."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from inspector.commands import common
from inspector.commands.common import write_json
from inspector.core.report import Streamed


def _written(document) -> str:
    out = io.StringIO()
    write_json(document, out)
    return out.getvalue()


def test_streamed_arrays_write_the_same_bytes_as_the_whole_document():
    rows = [{"index": i, "nested": {"a": [1, {"b": None}], "c": []}, "e": {}} for i in range(3)]
    whole = {"files": [{"path": "x", "items": rows, "empty": [], "summary": {"ok": 3}}, {}]}
    lazy = {
        "files": Streamed(
            nested=True,
            elements=iter(
                [
                    {
                        "path": "x",
                        "items": Streamed(iter(rows)),
                        "empty": Streamed(()),
                        "summary": {"ok": 3},
                    },
                    {},
                ]
            ),
        )
    }
    expected = orjson.dumps(whole, option=orjson.OPT_INDENT_2).decode() + "\n"
    assert _written(lazy) == expected
    assert _written(whole) == expected


def test_values_orjson_refuses_are_written_exactly():
    big = 123456789012345678901234567890
    text = _written({"files": Streamed(iter([{"n": big, "s": "\ud800"}]))})
    assert json.loads(text) == {"files": [{"n": big, "s": "\ud800"}]}
    text = _written({"files": Streamed(iter([{"x": Streamed([big])}]), nested=True)})
    assert json.loads(text) == {"files": [{"x": [big]}]}


def test_rows_are_produced_while_writing():
    produced = []
    batch = common._BATCH  # rows are encoded a bounded batch at a time

    def rows():
        for i in range(3 * batch):
            produced.append(i)
            yield {"i": i}

    class Probe(io.StringIO):
        def write(self, text):
            # Nothing past the first batch exists when the first row is written.
            if '"i": 0,' in text or '"i": 0\n' in text:
                assert produced == list(range(batch))
            return super().write(text)

    write_json({"items": Streamed(rows())}, Probe())
    assert produced == list(range(3 * batch))


def test_batches_write_what_one_row_at_a_time_writes():
    # A nested Streamed array writes each element by itself: the oracle for the batches. Rows
    # orjson refuses (a long integer, a lone surrogate), C1 controls and U+2028, and batches
    # cut at every length around the batch size.
    odd = [{"n": 10**30}, {"s": "\ud800"}, {"c": "\x9b[2J", "ls": "\u2028"}, {}, [], "x", None]
    for count in (1, common._BATCH - 1, common._BATCH, common._BATCH + 1, 2 * common._BATCH):
        rows = [{"i": i, "nested": {"a": [i, {"b": None}], "e": {}}} for i in range(count)]
        rows[count // 2 : count // 2] = odd
        for level in (0, 2):
            batched: object = Streamed(iter(rows))
            alone: object = Streamed(iter(rows), nested=True)
            for _ in range(level):
                batched = {"k": Streamed([batched], nested=True)}
                alone = {"k": Streamed([alone], nested=True)}
            assert _written(batched) == _written(alone)


def test_short_documents_are_written_whole_as_their_parts_would_be(monkeypatch):
    # A document whose Streamed arrays are short (one conversation of a trace) is encoded by
    # one orjson call; written part by part (the oracle) it reads byte for byte the same,
    # around the batch size, with rows orjson refuses and keys that are not strings.
    odd = [{"n": 10**30}, {"s": "\ud800"}, {"c": "\x9b", "ls": "\u2028", "e": "…"}, {1: 2}]
    documents = []
    for count in (0, 1, common._SHORT, common._SHORT + 1, common._BATCH + 1):
        rows = [{"i": i, "nested": {"a": [i, {"b": None}], "e": {}}} for i in range(count)]
        documents.append({"path": "x", "items": rows, "findings": [], "summary": {"ok": count}})
        for spoiler in odd:
            documents.append({"items": [*rows, spoiler], "after": {"k": [1.5, "é"]}})
    documents.append({7: "a key that is not a string", "items": [{"i": 0}]})

    def lazy() -> dict:
        made = [
            {k: Streamed(iter(v)) if k == "items" else v for k, v in d.items()} for d in documents
        ]
        return {"files": Streamed(iter(made), nested=True)}

    whole_calls = []
    encode_whole = common._encode_whole

    def spy(value, level):
        encoded = encode_whole(value, level)
        whole_calls.append(encoded is not None)
        return encoded

    monkeypatch.setattr(common, "_encode_whole", spy)
    written = _written(lazy())
    assert any(whole_calls)  # the short, plain documents took the one-call path
    assert whole_calls.count(True) < len(whole_calls)  # the odd ones were written in parts
    monkeypatch.setattr(common, "_encode_whole", lambda value, level: None)
    assert written == _written(lazy())
    assert json.loads(written.replace("\ud800", "")) is not None


def _odd_log(path) -> None:
    """A JSON Lines log whose rows take every way through `encoded_item_rows`."""
    lines = []
    for i in range(3 * common._BATCH):
        lines.append({"type": "message", "role": "user", "content": f"hi {i}"})
        lines.append({"type": "reasoning", "id": f"rs_{i}", "summary": []})
        call = {"type": "function_call", "id": f"fc_{i}", "call_id": f"c_{i}", "name": "t"}
        arguments = ['{"n": 1}', '{"n": "x"}', "{", '{"n": 1, "n": 2}'][i % 4]
        lines.append({**call, "arguments": arguments, "status": "completed"})
        lines.append({"type": "function_call_output", "call_id": f"c_{i}", "output": "ok"})
    odd = [
        {"type": "message", "id": "ид_1", "role": "assistant", "content": []},  # non-ASCII id
        {"type": "message", "id": "a\x85b\u2028", "role": "user", "content": []},  # C1, U+2028
        {"type": "message", "id": 'q"\\\x01', "role": "user", "content": []},  # escapes
        {"type": "message", "id": 7, "role": 1.5, "content": []},  # numbers
        {"type": "message", "id": {"a": [1]}, "role": ["x"], "content": []},  # containers
        {"type": "function_call", "call_id": True, "name": {"n": 1}, "status": None},
        {"type": "function_call", "call_id": "c", "name": "t\x9b", "status": "in_\u2029"},
        {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"},  # a plain item
        {"role": "user", "content": "a shorthand message"},
        {"type": "message", "role": "user", "status": "\u00e9t\u00e9", "content": []},
    ]
    for k, item in enumerate(odd):
        lines.insert(200 * k + 7, item)
    text = "\n".join(json.dumps(line, ensure_ascii=k % 2 == 0) for k, line in enumerate(lines))
    lone = '{"type": "message", "id": "\\ud800", "role": "user", "content": []}'
    path.write_text(text + "\n\n" + lone + "\n", encoding="utf-8")


def test_item_rows_from_templates_are_the_rows_encoded(tmp_path, monkeypatch):
    # The oracle: each row made as a dict and encoded in batches. Strings orjson escapes or
    # refuses, members that are not strings, plain and shorthand items among lean ones, blank
    # lines and rows with schema errors; at several levels of the document.
    from inspector.core import report
    from inspector.core.formats import load_conversations, load_tools
    from inspector.core.gate import gate_transcript

    log, tools = tmp_path / "odd.jsonl", tmp_path / "tools.json"
    _odd_log(log)
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    tool = {"type": "function", "name": "t", "parameters": schema}
    tools.write_text(json.dumps({"tools": [tool]}))
    (transcript,) = load_conversations(log)
    result = gate_transcript(transcript, load_tools(tools))
    words = {v.verdict.value for v in result.verdicts}
    assert words >= {"ok", "arguments_schema", "arguments_parse"}
    made = []
    item_row = report.item_row

    def counted(item, verdict):
        made.append(item.index)
        return item_row(item, verdict)

    monkeypatch.setattr(report, "item_row", counted)
    for level in (0, 1, 3):
        made.clear()
        templated = b"".join(common.encoded_item_rows(result, level))
        # Only the odd rows were made as dicts: the others were filled in from templates.
        assert 0 < len(made) < 20
        assert templated == b"".join(common.encoded_elements(report.item_rows(result), level))


@pytest.mark.parametrize("extra", [-1, 0, 1, 512])
def test_item_rows_in_blocks_join_to_the_rows_encoded(tmp_path, extra):
    # Each block after the first begins with its separator (an empty first piece joined):
    # at a block's end, one past it and a whole block more, the blocks join to the rows.
    from inspector.core import report
    from inspector.core.formats import load_conversations
    from inspector.core.gate import gate_transcript

    log = tmp_path / "log.jsonl"
    count = 2 * common._BATCH + extra
    lines = [
        {"type": "message", "id": f"m_{i}", "role": "user", "content": []} for i in range(count)
    ]
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    (transcript,) = load_conversations(log)
    result = gate_transcript(transcript)
    blocks = list(common.encoded_item_rows(result, 2))
    assert len(blocks) == -(-count // common._BATCH)
    assert all(block.startswith(b",") for block in blocks[1:]) and blocks[0].startswith(b"\n")
    assert b"".join(blocks) == b"".join(common.encoded_elements(report.item_rows(result), 2))
