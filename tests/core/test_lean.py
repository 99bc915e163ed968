"""Lean loading reads every file exactly as the plain loader does: items, origins, verdicts,
findings and diff pairs, on the samples, the corpus, generated logs and hostile edge cases."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core import formats
from inspector.core.diff import DiffMode, diff_results
from inspector.core.formats import _lean, load_bytes, tools_from_list
from inspector.core.gate import GateResult, gate_transcript
from inspector.core.model import LEAN, Item, LeanItem, LoadError, Origin, Transcript
from tests.benchmarks import synthetic
from tests.conftest import CORPUS, SAMPLES

_FILES = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and "expected" not in p.parts)
_CORPUS = (
    sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    if CORPUS.is_dir()
    else []
)
_ABSENT = object()
#: Members every comparison reads through `Item.get` (kept ones and parsed ones).
_MEMBERS = ("type", "id", "call_id", "name", "role", "status", "arguments", "output", "content")


@contextmanager
def _plain() -> Iterator[None]:
    """Load the plain way: no file is found safe to read lean."""
    saved = _lean.Risks.lean
    _lean.Risks.lean = property(lambda self: False)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        _lean.Risks.lean = saved  # type: ignore[method-assign]


def _load(data: bytes, name: str = "input.json") -> Transcript | LoadError:
    try:
        return load_bytes(data, name)
    except LoadError as exc:
        return exc


def _both(data: bytes, name: str = "input.json") -> tuple[Any, Any]:
    lean = _load(data, name)
    with _plain():
        plain = _load(data, name)
    return lean, plain


def same(a: Any, b: Any) -> bool:
    """Equal JSON values of the same kinds (1 is not 1.0 nor True), keys in the same order."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if type(a) is dict:
            if list(a) != list(b):
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif type(a) is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif type(a) is float and math.isnan(a):
            if not math.isnan(b):
                return False
        elif a != b:
            return False
    return True


def assert_items_same(lean: Item, plain: Item) -> None:
    where = f"item {plain.index} ({plain.origin.describe()})"
    assert same(lean.raw, plain.raw), where
    assert same(lean.read(), plain.read()), where
    assert lean.origin == plain.origin, where
    assert (lean.index, lean.group, lean.envelope) == (plain.index, plain.group, plain.envelope)
    assert lean.conversion == plain.conversion, where
    for key in ("type", "id", "call_id", "name", "role", "status"):
        assert same(getattr(lean, key), getattr(plain, key)), (where, key)
    for key in _MEMBERS:
        assert same(lean.get(key, _ABSENT), plain.get(key, _ABSENT)), (where, key)
    assert lean == plain, where


def assert_same_load(lean: Any, plain: Any) -> None:
    if isinstance(plain, LoadError):
        assert isinstance(lean, LoadError), f"lean loaded what the plain loader refuses: {plain}"
        assert (str(lean), lean.line, lean.column) == (str(plain), plain.line, plain.column)
        return
    assert isinstance(lean, Transcript), f"lean refused what the plain loader loads: {lean}"
    assert (lean.path, lean.format, lean.groups) == (plain.path, plain.format, plain.groups)
    assert dict(lean.tools) == dict(plain.tools)
    assert same(lean.tool_choice, plain.tool_choice)
    assert len(lean.items) == len(plain.items)
    for a, b in zip(lean.items, plain.items, strict=True):
        assert_items_same(a, b)


def assert_same_gate(lean: GateResult, plain: GateResult) -> None:
    assert lean.findings == plain.findings
    for a, b in zip(lean.verdicts, plain.verdicts, strict=True):
        assert (a.verdict, a.detail, a.errors, a.tool) == (b.verdict, b.detail, b.errors, b.tool)
        assert same(a.parsed, b.parsed)
        assert str(a.parse_error) == str(b.parse_error)


def _gated(data: bytes, name: str, tools: Any = None) -> tuple[GateResult, GateResult]:
    lean, plain = _both(data, name)
    assert_same_load(lean, plain)
    assert isinstance(lean, Transcript) and isinstance(plain, Transcript)
    return gate_transcript(lean, tools), gate_transcript(plain, tools)


def _lean_share(transcript: Transcript) -> float:
    items = transcript.items
    return sum(1 for i in items if i._mask & LEAN) / len(items) if items else 0.0


# --------------------------------------------------------------------------------------------
# The samples, the corpus, generated logs


@pytest.mark.parametrize("path", _FILES + _CORPUS, ids=lambda p: str(p.name))
def test_every_file_loads_and_gates_the_same(path: Path) -> None:
    data = path.read_bytes()
    lean, plain = _both(data, str(path))
    assert_same_load(lean, plain)
    if isinstance(plain, Transcript):
        assert isinstance(lean, Transcript)
        assert_same_gate(gate_transcript(lean), gate_transcript(plain))


def test_the_samples_are_read_lean_where_they_can_be() -> None:
    """The comparison above means something: most sample items go the lean way."""
    # Session files (Codex, Claude Code) have loaders of their own, which read nothing lean.
    files = [p for p in _FILES if "sessions" not in p.relative_to(SAMPLES).parts]
    loaded = [t for p in files if isinstance(t := _load(p.read_bytes(), str(p)), Transcript)]
    items = [i for t in loaded for i in t.items]
    lean = [i for i in items if i._mask & LEAN]
    assert len(lean) > len(items) / 3
    assert any(i.origin.pointer.startswith("/input/") for i in lean)  # arrays of documents
    assert any(i.origin.pointer == "" for i in lean)  # JSON Lines records


def test_lean_items_are_made_without_the_items_post_init() -> None:
    # The hook sets the hot members from `raw`: an Item gets them, a LeanItem (whose loader
    # passes them in) is left as made, so the hook never ran for it.
    where = Origin("f", 1, "")
    assert Item(0, {"type": "message", "role": "user"}, where).role == "user"
    made = LeanItem(0, {"type": "message", "role": "user"}, where)
    assert made.role is None and made.type is None and isinstance(made, Item)
    # Loaders make every lean item so, and every other item as a plain Item.
    files = [p for p in _FILES if "sessions" not in p.relative_to(SAMPLES).parts]
    loaded = [t for p in files if isinstance(t := _load(p.read_bytes(), str(p)), Transcript)]
    kinds = {(bool(i._mask & LEAN), type(i)) for t in loaded for i in t.items}
    assert kinds == {(True, LeanItem), (False, Item)}


_PAIRS = sorted(p for p in (SAMPLES / "diff").iterdir() if p.is_dir() and p.name != "expected")


@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: p.name)
@pytest.mark.parametrize("mode", list(DiffMode))
def test_sample_diffs_pair_the_same(pair: Path, mode: DiffMode) -> None:
    left, right = sorted(p for p in pair.iterdir() if p.stem in ("left", "right"))
    lean_left, plain_left = _gated(left.read_bytes(), str(left))
    lean_right, plain_right = _gated(right.read_bytes(), str(right))
    lean = diff_results(lean_left, lean_right, mode=mode)
    plain = diff_results(plain_left, plain_right, mode=mode)
    assert (lean.pairs, lean.reasons, lean.document_changes) == (
        plain.pairs,
        plain.reasons,
        plain.document_changes,
    )


def _jsonl(items: Iterator[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(i, separators=(",", ":")) + "\n" for i in items).encode()


@pytest.mark.parametrize("mode", list(DiffMode))
def test_generated_logs_gate_and_diff_the_same(mode: DiffMode) -> None:
    tools = {t.name: t for t in tools_from_list(synthetic.tools(), source="tools.json")}
    left = _jsonl(synthetic.items(3000))
    right = _jsonl(synthetic.items(3000, seed=8))
    lean_left, plain_left = _gated(left, "left.jsonl", tools)
    lean_right, plain_right = _gated(right, "right.jsonl", tools)
    assert _lean_share(lean_left.transcript) > 0.9
    assert_same_gate(lean_left, plain_left)
    lean = diff_results(lean_left, lean_right, mode=mode)
    plain = diff_results(plain_left, plain_right, mode=mode)
    assert (lean.pairs, lean.reasons) == (plain.pairs, plain.reasons)


def test_a_generated_request_document_loads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    synthetic.write_json(path, 2000)
    lean, plain = _both(path.read_bytes(), str(path))
    assert_same_load(lean, plain)
    assert isinstance(lean, Transcript) and _lean_share(lean) == 1.0
    assert lean.items[1999].origin.line == plain.items[1999].origin.line > 2000


def test_a_document_too_large_to_locate_gives_every_item_the_record_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(formats, "LOCATE_LIMIT", 20)
    data = b'\n\n{"input": [\n {"type": "message", "role": "user", "content": "hi"},\n 7]}\n'
    lean, plain = _both(data)
    assert_same_load(lean, plain)
    assert isinstance(lean, Transcript)
    assert [i.origin.line for i in lean.items] == [3, 3]


# --------------------------------------------------------------------------------------------
# Edge cases: each file must come out exactly as the plain loader gives it (or fail as it does)

_ITEM = b'{"type":"function_call","call_id":"c1","name":"f","arguments":"{}","status":"completed"}'
_EDGES: dict[str, bytes] = {
    "blank and CRLF lines": b"\r\n" + _ITEM + b"\r\n\r\n  \n" + _ITEM + b"\r\n",
    "UTF-8 BOM": b"\xef\xbb\xbf" + _ITEM + b"\n" + _ITEM + b"\n",
    "invalid UTF-8 in a skipped member": _ITEM[:-1] + b',"x":"\xff"}\n' + _ITEM + b"\n",
    "invalid UTF-8 in a document": b'[{"type":"message","x":"\xc3"}]',
    "NaN in a record": _ITEM + b'\n{"type":"message","role":"user","n":NaN}\n',
    "a number beyond a double": _ITEM + b'\n{"type":"message","role":"user","n":1e400}\n',
    "beyond a double, nested past the limit": _ITEM
    + b'\n{"type":"message","n":1e400,"x":'
    + b"[" * 600
    + b"]" * 600
    + b"}\n",
    "nested past the limit, orjson reads it": _ITEM
    + b'\n{"type":"message","x":'
    + b"[" * 600
    + b"]" * 600
    + b"}\n",
    "beyond a double in one line, nested past the limit in another": _ITEM
    + b'\n{"type":"message","n":1e400}\n{"type":"message","x":'
    + b"[" * 600
    + b"]" * 600
    + b"}\n",
    "a document nested past the limit": b'{"input":[{"type":"message","x":'
    + b"[" * 600
    + b"]" * 600
    + b"}]}",
    "long digits": _ITEM + b'\n{"type":"message","n":12345678901234567890123}\n',
    "a lone surrogate escape": _ITEM + b'\n{"type":"message","t":"\\ud800"}\n',
    "repeated keys": b'{"type":"message","type":"function_call","name":"a","name":"b"}\n'
    + _ITEM
    + b"\n",
    "null members": b'{"type":"function_call","status":null,"name":null,"call_id":null,'
    b'"id":null,"role":null,"arguments":null}\n' + _ITEM + b"\n",
    "members of every kind": b'{"type":"function_call","status":1.5,"name":[1],"call_id":{},'
    b'"id":true,"role":-0,"arguments":{"a":1}}\n' + _ITEM + b"\n",
    "an Anthropic message line": b'{"type":"message","role":"assistant","stop_reason":null,'
    b'"content":[]}\n' + _ITEM + b"\n",
    "an object member": b'{"type":"message","object":"x"}\n' + _ITEM + b"\n",
    "a deleted receipt": b'{"id":"resp_1","object":"response.deleted","deleted":true}\n'
    + _ITEM
    + b"\n",
    "shorthand items in an array": b'[{"role":"user","content":"hi"},{"id":"msg_1"},'
    b'{"type":null,"role":"x"},{"type":null},{},{"type":"reasoning"},3,"s",[1],null]',
    "an empty array": b"[]",
    "an array of stream chunks": b'[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}]',
    "an array of Converse events": b'[{"messageStart":{"role":"assistant"}},'
    b'{"messageStop":{"stopReason":"end_turn"}}]',
    "an array without objects": b"[1, 2]",
    "a request": b'{"model":"m","tools":[{"type":"function","name":"f","parameters":'
    b'{"type":"object"}}],"tool_choice":"auto",\n"input":[\n' + _ITEM + b",\n\n" + _ITEM + b"]}",
    "a response": b'{"object":"response","id":"r","status":"incomplete",'
    b'"incomplete_details":{"reason":"max_output_tokens"},"output":[' + _ITEM + b"]}",
    "a string input": b'{"model":"m","input":"hello"}',
    "input twice": b'{"input":[' + _ITEM + b'],\n"input":[{"type":"message"}]}',
    "one array in two places": b'{"model":"m",\n"metadata":[{"type":"message"}],\n'
    b'"input":[{"type":"message"}]}',
    "an input that is not an array": b'{"model":"m","input":5}',
    "request lines": b'{"model":"m","input":[' + _ITEM + b"]}\n" + b'{"object":"response",'
    b'"status":"completed","output":[' + _ITEM + b',{"type":"message"}]}\n' + _ITEM + b"\n",
    "a Batch line": b'{"custom_id":"1","body":{"model":"m","input":['
    + _ITEM
    + b"]}}\n"
    + _ITEM
    + b"\n",
    "a chat request line": b'{"model":"m","messages":[{"role":"user","content":"hi"}]}\n'
    + _ITEM
    + b"\n",
    "a stream event after items": _ITEM
    + b'\n{"type":"response.created","sequence_number":0,"response":{}}\n',
    "a broken line": _ITEM + b'\n{"type":"message",\n',
    "a truncated document": b'{"input":[' + _ITEM,
    "trailing content": b'{"input":[' + _ITEM + b"]} x",
    "unicode": '[{"type":"message","role":"user","content":"héllo ✓ 𝄞","id":"é"}]'.encode(),
    "an escaped item in an array": b'[{"type":"mes\\u0073age","role":"user"}]',
    "no newline at the end": _ITEM + b"\n" + _ITEM,
    "CRLF lines, no newline at the end": _ITEM + b"\r\n" + _ITEM + b"\r",
    "a blank last line without a newline": _ITEM + b"\n" + _ITEM + b"\n  ",
    "a stream event last, without a newline": _ITEM
    + b'\n{"type":"response.created","sequence_number":0,"response":{}}',
}


@pytest.mark.parametrize("name", list(_EDGES))
def test_edge_cases_load_the_same(name: str) -> None:
    lean, plain = _both(_EDGES[name], "edge.jsonl")
    assert_same_load(lean, plain)
    if isinstance(plain, Transcript):
        assert isinstance(lean, Transcript)
        assert_same_gate(gate_transcript(lean), gate_transcript(plain))


@pytest.mark.parametrize(
    "data",
    [
        _ITEM + b"\n" + _ITEM,
        _ITEM + b"\r\n\n" + _ITEM + b"\r\n",
        b"\n\n" + _ITEM + b"\n  \n" + _ITEM + b"\n\n",
        _ITEM + b'\n{"model":"m","input":[' + _ITEM + b"]}\n" + _ITEM + b"\n" + _ITEM,
    ],
)
def test_lean_lines_are_the_files_lines(data: bytes) -> None:
    """Each lean JSON Lines item's text is its line without the newline (a CR kept), however
    the lines are read (a BytesIO's `readline`) and wherever a run of them stops."""
    transcript = load_bytes(data, "log.jsonl")
    lines = data.split(b"\n")
    lean = [i for i in transcript.items if i.lean_source is not None and i.origin.pointer == ""]
    assert len(lean) >= 2
    for item in lean:
        assert item.lean_source.text(item.index) == lines[item.origin.line - 1]


def test_nesting_past_orjson_under_a_raised_recursion_limit_loads_the_same() -> None:
    """msgspec then reads deeper than orjson; such a record must still go the plain way."""
    data = _ITEM + b'\n{"type":"message","x":' + b"[" * 1100 + b"]" * 1100 + b"}\n"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        lean, plain = _both(data, "deep.jsonl")
    finally:
        sys.setrecursionlimit(limit)
    assert isinstance(plain, LoadError)
    assert_same_load(lean, plain)


def test_lean_items_keep_the_file_once_and_parse_on_demand() -> None:
    data = _ITEM + b"\n" + _ITEM.replace(b"c1", b"c2") + b"\n"
    transcript = load_bytes(data, "log.jsonl")
    first, second = transcript.items
    assert first.lean_source is not None and first.lean_source is second.lean_source
    assert first.lean_source.text(0) == _ITEM
    held = sys.getrefcount(first), sys.getrefcount(first.lean_source)
    assert first.raw is first.raw  # a value asked for again is the one just parsed
    assert first.read() is not first.read()  # a pass over many items keeps none
    assert first.raw == json.loads(_ITEM)
    after = sys.getrefcount(first), sys.getrefcount(first.lean_source)
    assert after == held  # the values kept hold no item, so no file


# --------------------------------------------------------------------------------------------
# Generated records

_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
_KEYS = ("type", "id", "call_id", "name", "role", "status", "arguments", "output", "stop_reason")
_TYPES = st.sampled_from(["function_call", "message", "function_call_output", "reasoning", "x:y"])


@st.composite
def _records(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(_KEYS), unique=True, max_size=6)):
        record[key] = draw(_TYPES if key == "type" and draw(st.booleans()) else _VALUES)
    if draw(st.booleans()):
        record["arguments"] = json.dumps(draw(_VALUES))
    return record


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_records(), min_size=1, max_size=6), st.booleans())
def test_generated_records_load_the_same(records: list[dict[str, Any]], as_array: bool) -> None:
    if as_array:
        data = json.dumps(records, indent=1).encode()
    else:
        data = b"".join(json.dumps(r).encode() + b"\n" for r in records) + b'{"type":"message"}\n'
    lean, plain = _both(data)
    assert_same_load(lean, plain)


@pytest.mark.parametrize("framing", ["array", "jsonl", "request"])
def test_an_item_over_the_lean_limit_is_held_parsed(framing):
    # A lean item is parsed whenever its raw value is asked for, on whichever thread asks: a
    # huge one is parsed once by the loader instead.
    limit = _lean.LEAN_ITEM_LIMIT
    small = {"type": "message", "role": "user", "content": "hi"}
    huge = {"type": "function_call_output", "call_id": "c", "output": "x" * limit}
    if framing == "array":
        data = json.dumps([small, huge]).encode()
    elif framing == "request":
        data = json.dumps({"model": "m", "input": [small, huge]}).encode()
    else:
        data = (json.dumps(small) + "\n" + json.dumps(huge) + "\n").encode()
    transcript = load_bytes(data, "big")
    assert transcript.items[1].lean_source is None
    assert transcript.items[1].raw == huge
    small_only = load_bytes(data.replace(b"x" * limit, b"x"), "small")
    assert small_only.items[1].lean_source is not None


def test_a_lean_item_keeps_the_items_hot_members_in_order() -> None:
    from inspector.core.model import HOT_MEMBERS

    assert _lean._Hot.__struct_fields__ == ("type", *HOT_MEMBERS)
