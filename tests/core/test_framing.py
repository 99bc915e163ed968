"""One framing decision: `sniff` picks how a file is laid out, and loading follows it."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from inspector.core.formats import Framing, load_bytes, load_stream, sniff
from inspector.core.jsonio import read_bytes
from inspector.core.model import LoadError
from tests.conftest import CORPUS, SAMPLES

#: The recorded streams among the JSON and JSONL files (everything .sse is SSE).
EVENT_FILES = {
    "samples/native/bedrock-stream.jsonl": Framing.EVENT_JSONL,
    "samples/native/gemini-stream.json": Framing.EVENT_ARRAY,
    "samples/native/gemini-stream-partial-args.jsonl": Framing.EVENT_JSONL,
    "samples/streams/two-responses.jsonl": Framing.EVENT_JSONL,
    "samples/providers/ollama-tool-roundtrip.resp.jsonl": Framing.EVENT_JSONL,
    "corpus/vercel-ai/openai-apply-patch-tool.1.chunks.jsonl": Framing.EVENT_JSONL,
    "corpus/vercel-ai/openai-error.1.chunks.jsonl": Framing.EVENT_JSONL,
    "corpus/vercel-ai/openai-reasoning-encrypted-content.1.chunks.jsonl": Framing.EVENT_JSONL,
    "corpus/vercel-ai/openai-web-search-tool.1.chunks.jsonl": Framing.EVENT_JSONL,
}
FILES = sorted(
    p
    for root in (SAMPLES, CORPUS)
    for p in root.rglob("*")
    if p.is_file() and p.suffix in (".json", ".jsonl", ".sse") and "expected" not in p.parts
)


def _name(path: Path) -> str:
    root = SAMPLES if SAMPLES in path.parents else CORPUS
    return str(path.relative_to(root.parent))


def _expected(path: Path, data: bytes) -> Framing:
    if path.suffix == ".sse":
        return Framing.SSE
    if _name(path) in EVENT_FILES:
        return EVENT_FILES[_name(path)]
    if path.suffix == ".jsonl" and len([x for x in data.splitlines() if x.strip()]) > 1:
        return Framing.JSONL
    return Framing.DOCUMENT  # a .json file, or JSON Lines of one line (one value)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_sample_and_corpus_file_gets_its_framing_and_loads_by_it(path: Path) -> None:
    data = read_bytes(path)
    framing = sniff(data)
    assert framing == _expected(path, data)
    try:
        loaded = load_bytes(data, _name(path))
    except LoadError:
        return  # samples of unreadable input; their errors are tested elsewhere
    is_stream = framing in (Framing.SSE, Framing.EVENT_JSONL, Framing.EVENT_ARRAY)
    assert (loaded.stream is not None) == is_stream


def test_the_samples_cover_every_framing_but_empty() -> None:
    seen = {sniff(read_bytes(p)) for p in FILES}
    assert seen == set(Framing) - {Framing.EMPTY}


ITEM = b'{"type": "message", "role": "user", "content": "hi"}'
EVENT = b'{"type": "response.created", "sequence_number": 0, "response": {"id": "r"}}'
CHUNK = b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]}'


@pytest.mark.parametrize(
    ("data", "framing"),
    [
        (b"", Framing.EMPTY),
        (b" \n\t\r\n", Framing.EMPTY),
        (codecs.BOM_UTF8, Framing.EMPTY),
        (codecs.BOM_UTF8 + ITEM + b"\n" + ITEM + b"\n", Framing.JSONL),
        (codecs.BOM_UTF8 + b"data: " + EVENT + b"\n\n", Framing.SSE),
        (b"\n\n   \n" + ITEM + b"\n" + ITEM, Framing.JSONL),
        (b"\r\n\r\nevent: response.created\r\ndata: " + EVENT + b"\r\n\r\n", Framing.SSE),
        (ITEM + b"\r" + ITEM + b"\r", Framing.JSONL),  # lines ended by a lone CR
        (b"data: " + EVENT + b"\r\rdata: [DONE]\r\r", Framing.SSE),
        (b"data: [DONE]\n\n", Framing.SSE),
        (b": keep-alive\n\n", Framing.SSE),
        (b"HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\ndata: " + EVENT, Framing.SSE),
        (EVENT + b"\n" + EVENT + b"\n", Framing.EVENT_JSONL),
        (b'{"object": "chat.completion.chunk", "choices": []}\n{}\n', Framing.EVENT_JSONL),
        (ITEM, Framing.DOCUMENT),
        (EVENT, Framing.DOCUMENT),  # one value: a document, which is one event
        (b'{\n  "type": "message",\n  "role": "user"\n}\n', Framing.DOCUMENT),
        (b"[" + CHUNK + b",\n" + CHUNK + b"]", Framing.EVENT_ARRAY),
        (b"[\n  " + ITEM + b"\n]", Framing.DOCUMENT),
        (b"[]", Framing.DOCUMENT),
        (b'"one"\n"two"\n', Framing.JSONL),
        (b'{"type": "message", "n": 123456789012345678901234567890}\n' + ITEM, Framing.JSONL),
        (b"not json at all", Framing.DOCUMENT),
        (
            "\ufeff".encode("utf-16-le") + (ITEM + b"\n" + ITEM).decode().encode("utf-16-le"),
            Framing.JSONL,
        ),
    ],
)
def test_sniff_edge_cases(data: bytes, framing: Framing) -> None:
    assert sniff(data) is framing


def test_lines_ended_by_a_lone_cr_load_as_json_lines() -> None:
    second = b'{"type": "message", "role": "assistant", "content": "yes"}'
    t = load_bytes(ITEM + b"\r" + second + b"\r", "cr.jsonl")
    assert [i.role for i in t.items] == ["user", "assistant"]
    assert [i.origin.line for i in t.items] == [1, 2]


def test_an_empty_file_is_a_clear_error_whatever_is_asked() -> None:
    with pytest.raises(LoadError, match="file is empty; expected an Open Responses request"):
        load_bytes(codecs.BOM_UTF8 + b"\n \n", "empty.json")
    with pytest.raises(LoadError, match="the file is empty; expected a recorded event stream"):
        load_stream(b"", "empty.sse")


def test_a_done_sentinel_alone_is_a_stream_of_one_event() -> None:
    t = load_stream(b"data: [DONE]\n\n", "done.sse")
    assert len(t.events) == 1 and t.events[0].done


def test_a_stream_is_found_below_a_first_line_the_sse_decoder_ignores() -> None:
    data = b"HTTP/1.1 200 OK\n\nevent: response.created\ndata: " + EVENT + b"\n\n"
    t = load_bytes(data, "capture.sse")
    assert t.stream is not None and len(t.events) == 1


def test_an_array_whose_first_chunk_is_too_big_to_sniff_is_still_read_as_its_stream() -> None:
    picture = {"inlineData": {"mimeType": "image/png", "data": "A" * (2 << 20)}}
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [picture]}}]},
        {"candidates": [{"content": {"parts": [{"text": "done"}]}, "finishReason": "STOP"}]},
    ]
    data = json.dumps(chunks).encode()
    assert sniff(data) is Framing.DOCUMENT  # sniff looks at no more than 1 MiB of an element
    for loaded in (load_bytes(data, "big.json"), load_stream(data, "big.json")):
        assert loaded.stream is not None and loaded.stream.dialect == "gemini"
