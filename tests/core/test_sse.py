"""SSE framing: fields, line endings, chunking, BOM, sentinel, bad bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.stream.sse import SSEDecoder, SSEEvent, decode_sse

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "streams" / "text-deltas.sse"


def feed_chunks(data: bytes, cuts: list[int]) -> list[SSEEvent]:
    """Decode data fed in pieces split at the given byte offsets."""
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    start = 0
    for cut in [*sorted(cuts), len(data)]:
        events.extend(decoder.feed(data[start:cut]))
        start = cut
    events.extend(decoder.close())
    return events


def test_event_and_data_fields_with_one_space_stripped() -> None:
    events = decode_sse(b'event: response.created\ndata:  {"a": 1}\n\n')
    assert events == [
        SSEEvent(index=0, line=1, event="response.created", data=' {"a": 1}', id=None)
    ]


def test_multi_line_data_is_joined_with_newlines() -> None:
    (event,) = decode_sse(b"data: first\ndata:second\ndata\n\n")
    assert event.data == "first\nsecond\n"


def test_comments_are_ignored_and_do_not_start_an_event() -> None:
    events = decode_sse(b": OPENROUTER PROCESSING\n\n: another\ndata: x\n\n")
    assert [(e.index, e.line, e.data) for e in events] == [(0, 4, "x")]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_line_endings(eol: bytes) -> None:
    data = eol.join([b"event: a", b"data: 1", b"", b"data: 2", b"", b""])
    events = decode_sse(data)
    assert [(e.event, e.data, e.line) for e in events] == [("a", "1", 1), (None, "2", 4)]


def test_cr_at_end_of_chunk_then_lf_is_one_line_break() -> None:
    decoder = SSEDecoder()
    out = decoder.feed(b"data: 1\r")
    out += decoder.feed(b"\n\r")
    out += decoder.feed(b"\ndata: 2\r\n\r\n")
    out += decoder.close()
    assert [(e.data, e.line) for e in out] == [("1", 1), ("2", 3)]


def test_bom_is_stripped_even_when_split_across_chunks() -> None:
    data = b"\xef\xbb\xbfevent: x\ndata: 1\n\n"
    for cut in range(1, 4):
        events = feed_chunks(data, [cut])
        assert [(e.event, e.data) for e in events] == [("x", "1")]


def test_bom_only_at_the_start() -> None:
    (event,) = decode_sse(b"data: 1\n\xef\xbb\xbfdata: 2\n\n")
    assert event.data == "1"  # the second line's field name is "\ufeffdata": ignored


def test_final_event_without_blank_line_is_dispatched_at_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: 1\n\ndata: 2") == [SSEEvent(0, 1, None, "1")]
    assert decoder.close() == [SSEEvent(1, 3, None, "2")]
    assert decoder.close() == []


def test_done_sentinel_is_marked_and_kept() -> None:
    events = decode_sse(b"data: {}\n\ndata: [DONE]\n\n")
    assert [e.done for e in events] == [False, True]
    assert events[1].data == "[DONE]"


def test_id_and_retry_are_kept_with_the_event() -> None:
    (event,) = decode_sse(b"id: 7\nretry: 1500\nretry: soon\ndata: x\n\n")
    assert (event.id, event.retry, event.line) == ("7", 1500, 1)


def test_frames_without_data_or_event_are_not_events() -> None:
    assert decode_sse(b"id: 3\n\nretry: 10\n\nfoo: bar\n\n") == []


def test_event_name_without_data_is_kept_with_empty_data() -> None:
    (event,) = decode_sse(b"event: response.created\n\n")
    assert (event.event, event.data) == ("response.created", "")


def test_invalid_utf8_is_replaced_and_flagged() -> None:
    events = decode_sse(b"data: caf\xe9\n\ndata: ok\n\n")
    assert events[0].data == "caf\ufffd"
    assert events[0].invalid_utf8
    assert not events[1].invalid_utf8


def test_feed_after_close_is_refused() -> None:
    decoder = SSEDecoder()
    decoder.close()
    with pytest.raises(ValueError):
        decoder.feed(b"data: 1\n\n")


def _variants() -> list[bytes]:
    data = SAMPLE.read_bytes()
    return [data, data.replace(b"\n", b"\r\n"), data.replace(b"\n", b"\r")]


@pytest.mark.parametrize("eol", ["lf", "crlf", "cr"])
def test_real_stream_split_at_every_byte_gives_the_same_events(eol: str) -> None:
    data = _variants()[["lf", "crlf", "cr"].index(eol)]
    whole = decode_sse(data)
    assert len(whole) == 15 and whole[-1].done
    for cut in range(1, len(data)):
        assert feed_chunks(data, [cut]) == whole, f"split at byte {cut}"


@settings(max_examples=150, deadline=None)
@given(
    variant=st.integers(min_value=0, max_value=2),
    cuts=st.lists(st.integers(min_value=0, max_value=20_000), max_size=40),
)
def test_random_chunkings_give_the_same_events(variant: int, cuts: list[int]) -> None:
    data = _variants()[variant]
    cuts = [c % (len(data) + 1) for c in cuts]
    assert feed_chunks(data, cuts) == decode_sse(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(min_value=0, max_value=300), max_size=8))
def test_arbitrary_bytes_never_crash_and_chunking_never_matters(
    data: bytes, cuts: list[int]
) -> None:
    cuts = [c % (len(data) + 1) for c in cuts]
    events = decode_sse(data)
    assert feed_chunks(data, cuts) == events
    assert [e.index for e in events] == list(range(len(events)))
