"""Server-sent events framing: bytes in any chunking → events (the WHATWG event-stream rules).

Deviations from a browser's EventSource, chosen because this decoder inspects recordings
rather than feeding an application:

* a final event that lacks its blank line is dispatched at ``close()`` (the Open Responses
  reference parser does the same; a browser drops it);
* a frame with an ``event:`` line but no ``data:`` line is dispatched with empty data, so the
  reducer can report it instead of it vanishing;
* invalid UTF-8 is replaced per line (U+FFFD) and the event is flagged ``invalid_utf8``.
"""

from __future__ import annotations

from msgspec import Struct

DONE_SENTINEL = "[DONE]"

_BOM = b"\xef\xbb\xbf"


class SSEEvent(Struct, frozen=True):
    """One dispatched event: its number, where it starts, and its fields."""

    index: int
    line: int
    event: str | None
    data: str
    id: str | None = None
    retry: int | None = None
    done: bool = False
    invalid_utf8: bool = False


class SSEDecoder:
    """Incremental decoder: feed byte chunks, collect events; close() flushes the last one."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []  # pieces of a line whose terminator has not arrived
        self._skip_lf = False  # the previous chunk ended in CR: a leading LF belongs to it
        self._line_no = 0
        self._first_line = True
        self._count = 0
        self._closed = False
        self._reset_frame()

    def _reset_frame(self) -> None:
        self._start: int | None = None  # line of the frame's first field
        self._name: bytes | None = None
        self._data: list[bytes] = []
        self._id: bytes | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode one chunk and return the events it completed."""
        if self._closed:
            raise ValueError("feed() after close()")
        out: list[SSEEvent] = []
        if not chunk:
            return out
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return out
        if b"\n" not in chunk and b"\r" not in chunk:
            self._partial.append(chunk)
            return out
        if self._partial:
            self._partial.append(chunk)
            chunk = b"".join(self._partial)
            self._partial = []
        lines = chunk.splitlines(keepends=True)
        last = lines[-1]
        if last[-1:] not in (b"\n", b"\r"):
            self._partial.append(lines.pop())
        elif last[-1:] == b"\r":
            self._skip_lf = True
        for raw in lines:
            self._line(raw.rstrip(b"\r\n"), out)
        return out

    def close(self) -> list[SSEEvent]:
        """End of input: dispatch a trailing line and an event left without its blank line."""
        out: list[SSEEvent] = []
        if self._closed:
            return out
        if self._partial:
            raw = b"".join(self._partial)
            self._partial = []
            self._line(raw, out)
        self._dispatch(out)
        self._closed = True
        return out

    def _line(self, raw: bytes, out: list[SSEEvent]) -> None:
        self._line_no += 1
        if self._first_line:
            self._first_line = False
            if raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
        if not raw:
            self._dispatch(out)
            return
        name, colon, value = raw.partition(b":")
        if not name:
            return  # a comment line
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._name = value
        elif name == b"id":
            if b"\x00" in value:
                return
            self._id = value
        elif name == b"retry" and value.isdigit():
            self._retry = int(value)
        else:
            return  # any other field name is ignored, as the WHATWG rules say
        if self._start is None:
            self._start = self._line_no

    def _dispatch(self, out: list[SSEEvent]) -> None:
        # A frame of only id:/retry: lines updates decoder state in a browser; it is no event.
        if self._start is None or (self._name is None and not self._data):
            self._reset_frame()
            return
        chunks = self._data
        data, bad = _text(chunks[0] if len(chunks) == 1 else b"\n".join(chunks))
        name = event_id = None
        if self._name is not None:
            name, bad_name = _text(self._name)
            bad = bad or bad_name
        if self._id is not None:
            event_id, bad_id = _text(self._id)
            bad = bad or bad_id
        done = bool(chunks) and len(data) < 32 and data.strip() == DONE_SENTINEL
        out.append(SSEEvent(self._count, self._start, name, data, event_id, self._retry, done, bad))
        self._count += 1
        self._reset_frame()


def _text(raw: bytes) -> tuple[str, bool]:
    """Decode UTF-8; bad bytes become U+FFFD and the second value says so."""
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), True


def decode_sse(data: bytes) -> list[SSEEvent]:
    """Decode a whole recorded event stream."""
    decoder = SSEDecoder()
    events = decoder.feed(data)
    events.extend(decoder.close())
    return events
