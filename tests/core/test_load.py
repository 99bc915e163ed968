"""Loaders: every supported shape, origins, encodings and clear errors with locations."""

from __future__ import annotations

import json

import pytest

from inspector.core.formats import chat_completions, load_bytes, load_path, load_text, load_tools
from inspector.core.jsonio import element_lines
from inspector.core.model import LoadError


def test_request_with_items_and_tools(samples):
    t = load_path(samples / "providers" / "provider-a.json")
    assert t.format == "request"
    assert len(t.items) == 10
    assert set(t.tools) == {"get_latest_sales_report", "search_web", "send_summary"}
    assert t.tool_choice == "auto"
    assert [g.kind for g in t.groups] == ["request"]


def test_item_origins_have_lines_and_pointers(samples):
    path = samples / "providers" / "provider-a.json"
    t = load_path(path)
    lines = path.read_text().splitlines()
    for item in t.items:
        assert item.origin.pointer == f"/input/{item.index}"
        assert item.origin.file == str(path)
        # The line an item starts on holds its opening brace.
        assert lines[item.origin.line - 1].strip() == "{"
    # Items start on increasing lines.
    assert [i.origin.line for i in t.items] == sorted(i.origin.line for i in t.items)


def test_string_input_is_one_user_message():
    t = load_text('{"model": "m", "input": "hello"}')
    assert [(i.type, i.role, i.origin.pointer) for i in t.items] == [("message", "user", "/input")]


def test_response_object_keeps_status_and_details(samples):
    t = load_path(samples / "incomplete" / "response-incomplete.json")
    assert t.format == "response"
    (group,) = t.groups
    assert group.status == "incomplete"
    assert group.incomplete_details == {"reason": "max_output_tokens"}
    assert group.response_id == "resp_inc_01"
    assert [i.origin.pointer for i in t.items] == ["/output/0", "/output/1"]


def test_input_items_list():
    doc = {
        "object": "list",
        "data": [{"type": "message", "role": "user", "content": "x"}],
        "has_more": False,
    }
    t = load_text(json.dumps(doc))
    assert t.format == "item_list"
    assert t.items[0].origin.pointer == "/data/0"


def test_bare_array_and_single_item(samples):
    t = load_path(samples / "article" / "items.json")
    assert t.format == "items" and len(t.items) == 4
    single = load_text('{"type": "function_call_output", "call_id": "c", "output": "x"}')
    assert single.format == "item" and single.items[0].origin.pointer == ""


def test_shorthands():
    t = load_text('[{"role": "user", "content": "hi"}, {"id": "msg_1"}, {"type": null, "id": "x"}]')
    assert [i.type for i in t.items] == ["message", "item_reference", "item_reference"]


def test_jsonl_mixed_records_keep_line_numbers(samples):
    t = load_path(samples / "logs" / "agent-session.jsonl")
    assert t.format == "jsonl"
    assert [g.kind for g in t.groups] == ["request", "response", "request", "response", "items"]
    assert t.items[-1].origin.line == 6  # line 5 is blank and skipped
    assert t.groups[1].origin.line == 2
    assert t.items[1].origin.pointer == "/output/0"


def test_batch_lines(samples):
    out = load_path(samples / "logs" / "batch-output.jsonl")
    assert out.format == "batch"
    assert [g.kind for g in out.groups] == ["response", "error"]
    assert out.items[0].origin.pointer == "/response/body/output/0"
    inp = load_path(samples / "logs" / "batch-input.jsonl")
    assert inp.items[1].origin.pointer == "/body/input/1"


def test_chat_completions_request_becomes_items_with_envelope(samples):
    t = load_path(samples / "chat-completions.json")
    assert t.format == "chat_completions"
    assert [i.type for i in t.items] == ["message", "function_call", "function_call_output"]
    assert all(i.envelope == chat_completions.ENVELOPE for i in t.items)
    assert t.items[1].origin.pointer == "/messages/1/tool_calls/0"
    assert t.items[1].raw["arguments"] == '{"city":"Paris"}'
    assert "get_weather" in t.tools


def test_chat_completions_response(shared):
    t = load_path(shared / "corpus" / "mirascope" / "chat_parallel_tools.resp0.json")
    assert t.format == "chat_completions"
    assert [i.type for i in t.items] == ["function_call", "function_call"]


def test_anthropic_messages(samples):
    t = load_path(samples / "anthropic-messages.json")
    assert t.format == "anthropic"
    assert [i.type for i in t.items] == [
        "message",
        "message",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert json.loads(t.items[3].raw["arguments"]) == {"order_id": "ORD-104233"}
    assert t.tools["lookup_order"].parameters["required"] == ["order_id"]


def test_error_body(samples):
    t = load_path(samples / "findings" / "provider-error.json")
    assert t.format == "error" and t.items == ()
    assert t.groups[0].error["code"] == "string_above_max_length"


def test_utf8_bom_and_utf16(samples):
    data = (samples / "article" / "items.json").read_bytes()
    assert len(load_bytes(b"\xef\xbb\xbf" + data).items) == 4
    text = data.decode("utf-8")
    assert len(load_bytes(text.encode("utf-16")).items) == 4


def test_invalid_utf8_says_where():
    with pytest.raises(LoadError) as info:
        load_bytes(b'[\n {"type": "message", "content": "\xff"}]', "bad.json")
    assert (info.value.line, info.value.column) == (2, 34)
    assert "UTF-8" in info.value.message


def test_json_syntax_error_has_line_and_column():
    with pytest.raises(LoadError) as info:
        load_text('{\n  "input": [\n    {"type": "message",}\n  ]\n}', "x.json")
    assert info.value.line == 3 and info.value.column is not None
    assert str(info.value).startswith("x.json:3:")


def test_jsonl_error_names_the_line():
    text = '{"type": "message", "role": "user", "content": "a"}\n{"type": oops}\n'
    with pytest.raises(LoadError) as info:
        load_text(text, "log.jsonl")
    assert info.value.line == 2


def test_unrecognised_shape_names_what_was_expected():
    with pytest.raises(LoadError, match="expected an Open Responses request"):
        load_text('{"hello": "world"}')
    with pytest.raises(LoadError, match="empty"):
        load_text("   \n")
    with pytest.raises(LoadError, match="unrecognised"):
        load_text("42")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(LoadError, match="no such file"):
        load_path(tmp_path / "nope.json")
    with pytest.raises(LoadError, match="directory"):
        load_path(tmp_path)


def test_nesting_too_deep_is_a_clear_error():
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(LoadError, match="nested"):
        load_text(deep)


def test_big_integers_and_nan_in_files_load():
    t = load_text(
        '[{"type": "message", "role": "user", "content": "x", "n": 18446744073709551617, "f": NaN}]'
    )
    assert t.items[0].raw["n"] == 18446744073709551617


def test_element_lines_ignores_brackets_in_strings():
    text = '{"a": "[,]", "input": [\n 1,\n "x,]",\n {"k": [1, 2]}\n]}'
    assert element_lines(text, ("input",)) == [2, 3, 4]


def test_tools_file_formats(samples, tmp_path):
    mapping = load_tools(samples / "article" / "region-schema.tools.json")
    assert mapping["get_latest_sales_report"].parameters["required"] == ["region"]
    listed = load_tools(samples / "tools" / "sales-tools.json")
    assert set(listed) == {"get_latest_sales_report", "search_web", "send_summary"}
    body = load_tools(samples / "providers" / "provider-b.json")
    assert set(body) == set(listed)
    bad = tmp_path / "bad.tools.json"
    bad.write_text('{"t": 5}')
    with pytest.raises(LoadError, match="schema must be an object"):
        load_tools(bad)


def test_integers_beyond_64_bits_stay_exact(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text(
        '{"type": "message", "role": "user", "content": "x", "n": 123456789012345678901234567890}\n'
        '{"type": "message", "role": "user", "content": "y", "n": 18446744073709551617}\n'
    )
    t = load_path(path)
    assert [i.raw["n"] for i in t.items] == [123456789012345678901234567890, 2**64 + 1]
    doc = load_text('{"input": [{"role": "user", "content": "z", "n": -99999999999999999999}]}')
    assert doc.items[0].raw["n"] == -99999999999999999999


def test_jsonl_bytes_path_handles_crlf_blank_lines_and_bad_bytes():
    good = (
        b'{"type": "message", "role": "user", "content": "a"}\r\n\r\n'
        b'{"type": "function_call_output", "call_id": "c", "output": "b"}\r\n'
    )
    t = load_bytes(good, "log.jsonl")
    assert t.format == "jsonl"
    assert [i.origin.line for i in t.items] == [1, 3]
    bad = good + b'{"type": "message", "role": "user", "content": "\xc3\x28"}\n'
    with pytest.raises(LoadError) as info:
        load_bytes(bad, "log.jsonl")
    assert (info.value.line, info.value.column) == (4, 49)
    assert "UTF-8" in info.value.message
    broken = good + b'{"type": "message",, "role": "user"}\n'
    with pytest.raises(LoadError) as info:
        load_bytes(broken, "log.jsonl")
    assert info.value.line == 4 and info.value.column == 20


def test_long_integer_across_a_scan_window_stays_exact():
    from inspector.core.jsonio import _WINDOW

    filler = "x" * (_WINDOW - 63)
    text = json.dumps([{"type": "message", "role": "user", "content": filler, "n": 0}])
    text = text.replace('"n": 0', '"n": 123456789012345678901234567890')
    start = text.index("123456789012")
    assert start < _WINDOW < start + 30  # the run straddles the first window's end
    transcript = load_bytes(text.encode())
    assert transcript.items[0].raw["n"] == 123456789012345678901234567890


def test_element_lines_follow_nested_paths_and_skip_siblings():
    text = '{"tools": [{"a": "]"}], "response": {"body": {"output": [\n1,\n "x",\n {}]}}}'
    assert element_lines(text, ("response", "body", "output")) == [2, 3, 4]
    assert element_lines("[[0], [\n1,\n2]]", (1,)) == [2, 3]
    assert element_lines('{"input": 5}', ("input",)) == []


def test_unhashable_type_values_do_not_break_detection():
    t = load_text('{"type": [], "id": "x"}')
    assert t.format == "item"
    assert load_text('[{"type": {"a": 1}}]').items[0].type == {"a": 1}
