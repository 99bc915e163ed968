"""Checked reducer over Open Responses streaming events: events → response snapshots + violations.

The reducer applies the 24 event types of the 2026-04-24 catalogue, builds each response's
output items from the events alone, and collects every violation of the item/event lifecycle
instead of stopping at the first. The terminal response object is compared with what the
events built; a disagreement is reported (``snapshot_mismatch``) and the event-built items are
kept, because they are what a streaming client showed.

Decisions taken against the specification for shapes found in real recordings:

* **No ``sequence_number`` (2025-03 OpenAI streams).** The schema requires it on every event,
  but the field did not exist when those streams were recorded and the recorder kept transport
  order. One summarising ``missing_sequence_number`` is reported per stream, at the first event
  without one: a *warning* when no event carries a number (gaps and reordering cannot be
  checked, so the stream is unverifiable rather than wrong), an *error* when only some do
  (a producer that numbers some events and not others is broken).
* **Resumed streams (``GET …?starting_after=N``)** begin after sequence 0, typically with
  ``response.queued``. ``response.created`` and ``response.queued`` are optional in the
  lifecycle, so this is not ``response_not_started``; the skipped prefix is noted once as
  ``stream_resumed`` (info) and numbering is checked from the first number seen.
* **OpenAI hosted-tool and other unprefixed provider events** (``response.web_search_call.*``,
  ``response.mcp_list_tools.*``, ``response.code_interpreter_call_code.delta``,
  ``response.apply_patch_call_operation_diff.delta``, ``response.custom_tool_call_input.*``,
  ``response.reasoning_text.*`` …) are outside the catalogue and carry no implementer slug.
  They are known OpenAI shapes, not garbage, so they get their own code ``vendor_event``
  (info; warning under ``strict``), reported once per type and response with a count, so they
  do not bury real violations. They are still sequence-checked and must name a known, open
  item; their payloads stay opaque. ``response.reasoning_text.delta/done`` is OpenAI's name
  for ``response.reasoning.delta/done`` and is reduced as raw reasoning text.
* **Truly unknown unprefixed events** give ``unknown_event`` (warning; error under
  ``strict``), once per event. ``slug:``-prefixed events are legal extensions: one
  ``extension_event`` (info, in both modes) per type and response; each is kept as an opaque
  record and never turned into text.
* **Hosted-tool items added but never done** (``mcp_list_tools`` in a recording whose
  ``response.mcp_list_tools.completed`` arrived but ``output_item.done`` did not):
  ``open_item_at_completion`` is an error for portable-core item types and a warning for
  provider-specific item types, whose lifecycle the provider drives with its own events. The
  reduced item keeps the form the events gave it; the terminal snapshot's form is not copied in.
  In an ``incomplete`` or ``failed`` response an unclosed item is a warning: output was cut off.
* **Several responses in one file** (streams recorded back to back): a ``response.created`` (or,
  for resumed streams, ``response.queued``/``in_progress``/``failed``) after a terminal event
  starts the next response, with its own sequence numbering. In SSE each response should be
  followed by ``data: [DONE]`` (``missing_done_sentinel``, warning, once per response); JSONL
  recordings do not keep the sentinel, so it is not expected there.
* A text ``.done`` with no deltas before it is adopted as the text (nothing streamed to
  disagree with); with deltas, the concatenation is kept and a mismatch reported once, where it
  first shows (the later part/item/terminal snapshots repeating the same claim are not
  reported again).

Besides the codes named above, the reducer reports ``invalid_utf8`` (bytes replaced while
decoding), ``response_out_of_order`` (e.g. ``response.queued`` after ``in_progress``, or
``completed`` without ``in_progress``), ``item_index_mismatch`` (an event's ``output_index``
disagrees with its item's), ``open_content_part`` (an item done while one of its parts is not)
and ``incomplete_item_in_completed_response`` (an ``incomplete`` item must end an
``incomplete`` response). ``VIOLATION_CODES`` lists them all.
"""

from typing import TYPE_CHECKING

from inspector.core.lazy import names_on_first_use
from inspector.core.stream.events import (
    SPEC_EVENT_TYPES,
    TERMINAL_EVENTS,
    StreamEvent,
    events_from_bytes,
    events_from_json_lines,
    events_from_sse,
)
from inspector.core.stream.sse import DONE_SENTINEL, SSEDecoder, SSEEvent, decode_sse

if TYPE_CHECKING:
    from inspector.core.stream.reducer import item_differences, reduce_stream
    from inspector.core.stream.results import (
        VIOLATION_CODES,
        ExtensionRecord,
        OutputItem,
        ResponseResult,
        StreamResult,
        Violation,
        stream_transcript,
    )

#: Where the reducer's names live: imported on first use, so that the formats, which decode
#: other APIs' events with `events`, load a transcript without the reducer and its results.
_LAZY = {
    "item_differences": "reducer",
    "reduce_stream": "reducer",
    "VIOLATION_CODES": "results",
    "ExtensionRecord": "results",
    "OutputItem": "results",
    "ResponseResult": "results",
    "StreamResult": "results",
    "Violation": "results",
    "stream_transcript": "results",
}


__getattr__ = names_on_first_use(__name__, _LAZY, globals())


__all__ = [
    "DONE_SENTINEL",
    "SPEC_EVENT_TYPES",
    "TERMINAL_EVENTS",
    "VIOLATION_CODES",
    "ExtensionRecord",
    "OutputItem",
    "ResponseResult",
    "SSEDecoder",
    "SSEEvent",
    "StreamEvent",
    "StreamResult",
    "Violation",
    "decode_sse",
    "events_from_bytes",
    "events_from_json_lines",
    "events_from_sse",
    "item_differences",
    "reduce_stream",
    "stream_transcript",
]
